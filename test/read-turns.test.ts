/**
 * Reads take turns (src/http/read-turns.ts): under a flood of checks, a probe and an edit are answered
 * in the pass they arrive in, not after every read that arrived before them. Real HTTP against the app,
 * the reviewed kb/; a new question per read, so each one is judged (nothing remembered).
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { EventEmitter } from "node:events";
import { readTurns } from "../src/http/read-turns.js";
import { collectGarbage } from "./support/collect.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";
import { close, listen } from "./support/cli-process.js";

interface Sent {
  readonly name: string;
  readonly answer: Promise<{ status: number; text: string }>;
  readonly request: http.ClientRequest;
}

function send(
  port: number,
  agent: http.Agent,
  name: string,
  method: string,
  path: string,
  body?: string,
): Sent {
  const request = http.request({
    port,
    host: "127.0.0.1",
    method,
    path,
    agent,
    headers:
      body === undefined
        ? {}
        : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    request.on("error", reject);
  });
  request.end(body);
  return { name, answer, request };
}

/** A validate question no earlier read asked (the instance name differs), so its answer is judged, not remembered. */
function question(n: number): string {
  return JSON.stringify({
    components: [
      { component: "apiserver", version: "1.30" },
      { component: "kubelet", version: "1.27", instance: `pool-${n}` },
    ],
    asOf: "2026-11-29",
  });
}

describe("reads take turns with probes and edits", () => {
  let runtime: SnapshotRuntime;
  let server: http.Server;
  let port: number;
  before(async () => {
    runtime = await startSnapshotRuntime({ readsPerTurn: 1 });
    server = http.createServer(runtime.app);
    port = Number(new URL(await listen(server)).port);
  });
  after(async () => {
    await close(server);
    await runtime.close();
  });

  it("answers a probe and an edit sent after 200 reads before most of those reads", async () => {
    // Connections opened beforehand, as a load balancer's or a CI fleet's are: a new connection waits in
    // the kernel's accept queue behind the others, before any request of it can be read.
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    await Promise.all(
      Array.from(
        { length: 203 },
        (_, n) => send(port, agent, `open ${n}`, "GET", "/healthz").answer,
      ),
    );
    const reads = Array.from({ length: 200 }, (_, n) =>
      send(port, agent, `read ${n}`, "POST", "/api/v1/validate", question(n)),
    );
    // Sent right after the reads, so their connections open first: the reads reach the server before the probe.
    const order: string[] = [];
    const note = (sent: Sent) => sent.answer.then((answer) => (order.push(sent.name), answer));
    const readAnswers = reads.map(note);
    const probe = note(send(port, agent, "probe", "GET", "/healthz"));
    const scrape = note(send(port, agent, "scrape", "GET", "/metrics"));
    // This runtime has no curator: an edit route is no read, so it is answered (405: read-only) without waiting its turn.
    const edit = note(
      send(port, agent, "edit", "POST", "/api/v1/recommendations", JSON.stringify({ id: "turns" })),
    );
    const [probeAnswer, editAnswer, scrapeAnswer, ...answers] = await Promise.all([
      probe,
      edit,
      scrape,
      ...readAnswers,
    ]);
    agent.destroy();
    assert.equal(probeAnswer.status, 200);
    assert.equal(editAnswer.status, 405);
    // The scrape, also first, saw reads still waiting for their turn.
    const waiting = Number(/^kubecompat_http_reads_waiting (\d+)$/m.exec(scrapeAnswer.text)?.[1]);
    assert.ok(
      waiting > 0,
      `kubecompat_http_reads_waiting was ${waiting} while reads sent before the scrape were answered`,
    );
    // Every read is answered, and answered right: its own instance, judged against the skew policy.
    for (const [n, answer] of answers.entries()) {
      assert.equal(answer.status, 200, `read ${n}: ${answer.text.slice(0, 200)}`);
      assert.match(
        answer.text,
        new RegExp(`"pool-${n}"`),
        `read ${n} is answered for its own question`,
      );
    }
    const before = (name: string) => order.indexOf(name);
    assert.ok(
      before("probe") < 100,
      `the probe came back after ${before("probe")} of the 200 reads sent before it`,
    );
    assert.ok(
      before("scrape") < 100,
      `the scrape came back after ${before("scrape")} of the 200 reads sent before it`,
    );
    assert.ok(
      before("edit") < 100,
      `the edit came back after ${before("edit")} of the 200 reads sent before it`,
    );
    // Reads are let in in the order they arrived: the first ones sent are answered first.
    const firstTen = reads.slice(0, 10).map((read) => order.indexOf(read.name));
    assert.ok(
      Math.max(...firstTen) < 100,
      `the first 10 reads came back at ${firstTen.join(", ")}`,
    );
  });

  it("counts a read's wait for its turn in its latency", async () => {
    // Reads wait before the app sees them (read-turns.ts): the latency /metrics reports must still start
    // at their arrival, or a flood of reads would look fast to the server while its clients wait.
    const validateSum = async (): Promise<number> => {
      const text = (await send(port, new http.Agent(), "scrape", "GET", "/metrics").answer).text;
      return Number(
        /^kubecompat_http_request_duration_seconds_sum\{method="POST",route="\/api\/v1\/validate"\} (\S+)$/m.exec(
          text,
        )?.[1] ?? 0,
      );
    };
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    await Promise.all(
      Array.from(
        { length: 120 },
        (_, n) => send(port, agent, `open ${n}`, "GET", "/healthz").answer,
      ),
    );
    const before = await validateSum();
    const started = performance.now();
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 120 }, (_, n) =>
        send(port, agent, `read ${n}`, "POST", "/api/v1/validate", question(9000 + n)).answer.then(
          (answer) => {
            assert.equal(answer.status, 200);
            seen.push((performance.now() - started) / 1000);
          },
        ),
      ),
    );
    agent.destroy();
    const counted = (await validateSum()) - before;
    const waitedInAll = seen.reduce((sum, seconds) => sum + seconds, 0);
    // The clients' waits include the network and the client's own loop; the server's must be most of them
    // (counted from when the app handled each read, they would be a few per cent: 120 reads, one per turn).
    assert.ok(
      counted >= 0.5 * waitedInAll,
      `the server counted ${counted.toFixed(3)} s for reads its clients waited ${waitedInAll.toFixed(3)} s for`,
    );
  });

  it("skips a read whose client hung up while it waited, and answers the others", async () => {
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const reads = Array.from({ length: 60 }, (_, n) =>
      send(port, agent, `read ${n}`, "POST", "/api/v1/validate", question(1000 + n)),
    );
    const gone = reads.filter((_, n) => n % 2 === 1);
    for (const read of gone) {
      read.answer.catch(() => undefined);
      read.request.destroy();
    }
    const kept = await Promise.all(reads.filter((_, n) => n % 2 === 0).map((read) => read.answer));
    agent.destroy();
    for (const answer of kept) assert.equal(answer.status, 200);
    // The instance still answers new reads afterwards (nothing waits for a client that left).
    const after = await send(
      port,
      new http.Agent(),
      "after",
      "POST",
      "/api/v1/validate",
      question(5000),
    ).answer;
    assert.equal(after.status, 200);
  });

  it("keeps nothing of a read once it is let in, while others still wait", async () => {
    // A read that stayed in the line after its turn kept its request and response, and all the router hung on
    // them, alive into the old space (npm run bench measures it). Plain objects stand in for them: the line
    // only reads the method and the URL, and listens for "close".
    const turns = readTurns(1, () => true);
    const letIn: number[] = [];
    const admitted = ((): Array<WeakRef<object>> =>
      Array.from({ length: 50 }, (_, index) => {
        const req = { method: "POST", url: "/api/v1/validate" } as http.IncomingMessage;
        const res = new EventEmitter() as unknown as http.ServerResponse;
        turns.admit(req, res, () => letIn.push(index));
        return new WeakRef(res);
      }))();
    // One read a pass, in order: after a few passes, some were let in and most wait.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    await collectGarbage();
    const passed = letIn.length;
    assert.ok(passed >= 2 && passed < 10, `${passed} reads let in after three passes`);
    assert.deepEqual(
      letIn,
      Array.from({ length: passed }, (_, index) => index),
      "in arrival order",
    );
    assert.deepEqual(
      admitted.map((ref) => ref.deref() !== undefined),
      admitted.map((_, index) => index >= passed),
      "the reads let in are gone, the waiting ones held",
    );
    assert.equal(turns.stats().waiting, admitted.length - passed);
  });
});
