import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: { error?: { code: string; message: string }; findings?: unknown[] };
}

/** A scan of about 100 KB (one CronJob and a long comment): large by the test's threshold, quick to judge. */
const BODY = JSON.stringify({
  manifests: `# ${"x".repeat(100_000)}\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n`,
  targetVersion: "1.29",
});

/** Sends a scan; with `hold`, only half of the body goes out until `finish()` is called. */
function scan(port: number, hold = false): { answer: Promise<Answer>; finish: () => void } {
  const bytes = Buffer.from(BODY);
  const req = http.request({
    port,
    host: "127.0.0.1",
    method: "POST",
    path: "/api/v1/scan",
    headers: { "content-type": "application/json", "content-length": bytes.length },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: JSON.parse(text) as Answer["body"],
        }),
      );
    });
    // A refused request's socket is closed before its whole body was sent.
    req.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error),
    );
  });
  const half = Math.floor(bytes.length / 2);
  req.write(bytes.subarray(0, hold ? half : bytes.length));
  if (!hold) req.end();
  return { answer, finish: () => req.end(bytes.subarray(half)) };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("large requests are read a few at a time", () => {
  let runtime: SnapshotRuntime;
  let server: http.Server;
  let port: number;
  before(async () => {
    runtime = await startSnapshotRuntime({
      largeRequests: { thresholdBytes: 64 * 1024, inFlight: 1, queue: 1, waitMs: 1500 },
    });
    server = runtime.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await runtime.close();
  });

  it("queues one behind the slot, refuses one more at once, and lets small requests through meanwhile", async () => {
    const first = scan(port, true);
    await pause(150);
    const queued = scan(port);
    await pause(150);
    const refused = await scan(port).answer;
    assert.equal(refused.status, 503);
    assert.equal(refused.body.error?.code, "UNAVAILABLE");
    assert.match(
      refused.body.error?.message ?? "",
      /busy with 1 large requests and 1 more waiting/,
    );
    assert.ok(Number(refused.headers["retry-after"]) > 0);

    const small = await fetch(`http://127.0.0.1:${port}/api/v1/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ components: [{ component: "kube-apiserver", version: "1.30.1" }] }),
    });
    assert.equal(small.status, 200, "a small request does not wait behind large ones");

    first.finish();
    const [firstAnswer, queuedAnswer] = await Promise.all([first.answer, queued.answer]);
    assert.equal(firstAnswer.status, 200);
    assert.equal(queuedAnswer.status, 200, "the waiting request gets the slot the first one freed");
    assert.equal(queuedAnswer.body.findings?.length, 1);
  });

  it("refuses a request that waited longer than allowed, and frees the slot when the holder ends", async () => {
    const holder = scan(port, true);
    await pause(150);
    const late = await scan(port).answer;
    assert.equal(late.status, 503);
    assert.match(late.body.error?.message ?? "", /busy with 1 large requests for 2 s/);
    holder.finish();
    assert.equal((await holder.answer).status, 200);
    assert.equal((await scan(port).answer).status, 200, "the slot is free again");
  });

  it("gives the slot back when a client hangs up mid-body", async () => {
    const req = http.request({
      port,
      host: "127.0.0.1",
      method: "POST",
      path: "/api/v1/scan",
      headers: { "content-type": "application/json", "content-length": BODY.length },
    });
    req.on("error", () => undefined);
    req.write(BODY.slice(0, 1000));
    await pause(150);
    req.destroy();
    await pause(150);
    assert.equal((await scan(port).answer).status, 200);
  });
});
