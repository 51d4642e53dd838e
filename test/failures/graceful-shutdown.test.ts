/**
 * The real server process under load gets SIGTERM (and, in a second run,
 * SIGINT): every request it accepted is answered, it stops listening, it
 * closes keep-alive connections once their request is answered instead of
 * waiting for the shutdown timeout, stops its database work and exits 0
 * with "stopped" in the log.
 *
 * What may fail, and is counted apart: requests sent after the signal that
 * never reached the server — refused connections once it stopped listening,
 * and a request written onto a keep-alive connection in the instant the
 * server closed it as idle (the race every HTTP/1.1 client must retry).
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it, type TestContext } from "node:test";
import { freePort } from "../../src/db/embedded-postgres.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { spawnServer, waitUntilReady, type ServerProcess } from "../support/server-process.js";

const LOOPS = 8;
const LOAD_MS = 2_000;
const SIGNAL_AFTER_MS = 1_000;
// Hang detectors, not timing requirements: start-up (migrations, import of kb/) and the 10 s drain bound plus slack.
const READY_WITHIN_MS = 60_000;
const EXIT_WITHIN_MS = 20_000;
const REQUEST_TIMEOUT_MS = 15_000;

const BODY = JSON.stringify({
  components: [
    { component: "kube-apiserver", version: "1.30.4" },
    { component: "kubelet", version: "1.27.3", instance: "pool-a" },
    { component: "kube-proxy", version: "1.27.3", instance: "pool-a" },
    { component: "containerd", version: "1.7.13", instance: "pool-a" },
  ],
});

interface Outcome {
  /** The whole request was handed to the OS before the signal was sent. */
  readonly sentBeforeSignal: boolean;
  readonly status?: number;
  readonly error?: string;
  /** The request went out on a kept-alive connection of an earlier request. */
  readonly reusedSocket: boolean;
}

function post(agent: http.Agent, port: number, signalled: () => boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    let sentBeforeSignal = false;
    let settled = false;
    const done = (outcome: Omit<Outcome, "sentBeforeSignal" | "reusedSocket">): void => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, sentBeforeSignal, reusedSocket: req.reusedSocket });
    };
    const req = http.request(
      {
        agent,
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/v1/validate",
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(BODY) },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            done({ status: res.statusCode, error: `not JSON: ${text.slice(0, 200)}` });
            return;
          }
          const ok = res.statusCode === 200 && typeof (body as { ok?: unknown }).ok === "boolean";
          done(ok ? { status: 200 } : { status: res.statusCode, error: text.slice(0, 300) });
        });
        res.on("error", (error: NodeJS.ErrnoException) => done({ status: res.statusCode, error: `response cut: ${error.code ?? error.message}` }));
      },
    );
    req.on("finish", () => (sentBeforeSignal = !signalled()));
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }));
    req.end(BODY);
  });
}

/** Requests that never reached the server after the signal: expected, and counted apart. */
function notAccepted(outcome: Outcome): "refused" | "closed-idle" | undefined {
  if (outcome.sentBeforeSignal || outcome.status !== undefined) return undefined;
  if (outcome.error === "ECONNREFUSED") return "refused";
  if (outcome.reusedSocket && (outcome.error === "ECONNRESET" || outcome.error === "EPIPE")) return "closed-idle";
  return undefined;
}

async function shutdownUnderLoad(t: TestContext, databaseUrl: string, signal: "SIGTERM" | "SIGINT"): Promise<void> {
  const port = await freePort();
  const server: ServerProcess = spawnServer({ PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: databaseUrl, LOG_LEVEL: "info", NODE_ENV: "test" });
  const agent = new http.Agent({ keepAlive: true, maxSockets: LOOPS });
  try {
    await waitUntilReady(server, port, READY_WITHIN_MS);

    const outcomes: Outcome[] = [];
    let signalledAt: number | undefined;
    let inFlightAtSignal = 0;
    let inFlight = 0;
    const started = Date.now();
    const signalTimer = setTimeout(() => {
      signalledAt = Date.now();
      inFlightAtSignal = inFlight;
      server.child.kill(signal);
    }, SIGNAL_AFTER_MS);
    const loops = Array.from({ length: LOOPS }, async () => {
      while (Date.now() - started < LOAD_MS) {
        inFlight += 1;
        const outcome = await post(agent, port, () => signalledAt !== undefined);
        inFlight -= 1;
        outcomes.push(outcome);
        // Once the server refuses connections there is nothing more to learn from this loop.
        if (outcome.error === "ECONNREFUSED") break;
      }
    });
    await Promise.all(loops);
    clearTimeout(signalTimer);
    assert.ok(signalledAt !== undefined, "the load ended before the signal was sent");

    const hang = new Promise<"hang">((resolve) => setTimeout(() => resolve("hang"), EXIT_WITHIN_MS).unref());
    const exit = await Promise.race([server.exited, hang]);
    assert.notEqual(exit, "hang", `the server did not exit within ${EXIT_WITHIN_MS} ms of ${signal}:\n${server.stdout().slice(-3000)}`);
    if (exit === "hang") return;
    const shutdownMs = exit.at - signalledAt;

    const refused = outcomes.filter((outcome) => notAccepted(outcome) === "refused").length;
    const closedIdle = outcomes.filter((outcome) => notAccepted(outcome) === "closed-idle").length;
    const failed = outcomes.filter((outcome) => outcome.status !== 200 && notAccepted(outcome) === undefined);
    const before = outcomes.filter((outcome) => outcome.sentBeforeSignal);
    const answeredAfter = outcomes.filter((outcome) => !outcome.sentBeforeSignal && outcome.status === 200).length;
    t.diagnostic(
      `${signal}: ${outcomes.length} requests, ${before.length} sent before the signal (${inFlightAtSignal} in flight at it), ` +
        `${answeredAfter} sent after it and answered, ${refused} refused after the listener closed, ${closedIdle} on idle keep-alive connections closed; ` +
        `${failed.length} failed; exit ${exit.code} ${shutdownMs} ms after the signal`,
    );

    assert.deepEqual(failed, [], `requests the server accepted failed:\n${server.stdout().slice(-3000)}`);
    assert.ok(before.length > LOOPS, "too little load before the signal to test anything");
    assert.ok(inFlightAtSignal > 0, "no request was in flight when the signal was sent");
    assert.equal(exit.code, 0, `exit code ${exit.code} (signal ${exit.signal}); stderr:\n${server.stderr()}`);

    const logs = server.logs();
    const messages = logs.map((line) => line.msg);
    assert.ok(
      logs.some((line) => line.msg === "shutting down: draining requests" && line.signal === signal),
      `no "shutting down" line for ${signal} in the log: ${JSON.stringify(messages)}`,
    );
    assert.ok(messages.includes("stopped"), `no "stopped" in the log: ${JSON.stringify(messages)}`);
    // Keep-alive connections close after their request: the drain never has to be cut short by the timeout.
    assert.ok(!logs.some((line) => Number(line.level) >= 40), `warnings or errors while stopping: ${JSON.stringify(logs.filter((line) => Number(line.level) >= 40))}`);
  } finally {
    agent.destroy();
    await server.kill();
  }
}

describe("graceful shutdown of the server process", () => {
  let database: TestDatabase;

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  it("SIGTERM under load: accepted requests are answered, then it exits 0 and logs stopped", async (t) => {
    await shutdownUnderLoad(t, database.url, "SIGTERM");
  });

  it("SIGINT under load: the same", async (t) => {
    await shutdownUnderLoad(t, database.url, "SIGINT");
  });
});
