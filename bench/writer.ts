/**
 * The knowledge-base writer of the "writes at load" scenario, in its own
 * process (pinned like the load generator) so that its timers and its
 * latency clock do not wait behind autocannon's event loop. Sends creates of
 * new `recommendations` records, each with a unique id, at a steady rate
 * and open loop: every edit leaves at its scheduled time whether or not the
 * earlier ones were answered, so a slow server cannot slow the writer down
 * and hide its own latency. Each edit's latency runs from the moment it is
 * sent to the end of its response.
 *
 * Protocol: the scenario as one JSON line on stdin; then "measure" starts
 * the measured window (edits sent before it warm the path up and are not
 * counted), "stop" ends it. Prints "sending" once the first edit left, and
 * at the end the result as one JSON line (WriterResult).
 */
import http from "node:http";
import readline from "node:readline";

export interface WriterScenario {
  /** Base URL of the server, e.g. http://127.0.0.1:4000. */
  readonly base: string;
  /** An editor token's secret. */
  readonly token: string;
  /** Edits per second. */
  readonly rate: number;
  /** Prefix of the records' ids; the writer appends -<n>. Lower case, digits and dashes. */
  readonly idPrefix: string;
  /**
   * What is sent: "edits" (the default); or, for a control run, "refused"
   * edits (400: a phase the server does not know), which cost the requests
   * without their commits and snapshots, or "healthz", GET /healthz: what any
   * request sent this way costs and waits under the load.
   */
  readonly mode?: "edits" | "refused" | "healthz";
}

export interface WriterResult {
  /** Length of the measured window in seconds (from "measure" to "stop"). */
  readonly seconds: number;
  /** Edits sent in the window. */
  readonly sent: number;
  /** Of those, answered with 2xx. */
  readonly ok: number;
  /** Answered with another status. */
  readonly non2xx: number;
  /** Failed on the socket, or no answer within 10 s (a timeout). */
  readonly errors: number;
  /** Of the errors, the timeouts. */
  readonly timeouts: number;
  /**
   * Latency percentiles of the window's edits, ms: the answered ones, and the
   * timed-out ones at the time they were given up (so a timeout counts as at
   * least 10 s, not as nothing); null when no edit was answered or timed out.
   */
  readonly p50: number | null;
  readonly p99: number | null;
  readonly max: number | null;
  /** Every latency the percentiles are taken over, ms, in ascending order (to pool several windows). */
  readonly latencies: readonly number[];
  /** How late the writer sent an edit at worst, ms (its own CPU's share of the measurement). */
  readonly maxSendLagMs: number;
  /** Edits of the warm-up (before "measure") and how many of them failed. */
  readonly warmUpSent: number;
  readonly warmUpFailed: number;
  /** The first non-2xx answer or error, for the report. */
  readonly firstFailure?: string;
}

const TIMEOUT_MS = 10_000;

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const first = await lines.next();
if (first.done === true) throw new Error("the writer needs its scenario on stdin");
const scenario = JSON.parse(first.value) as WriterScenario;

// No cap on sockets: an edit waiting for a free socket would be late, and its wait not in its latency.
const agent = new http.Agent({ keepAlive: true });
const healthz = scenario.mode === "healthz";
const target = new URL(healthz ? "/healthz" : "/api/v1/recommendations", scenario.base);
const interval = 1000 / scenario.rate;

type Phase = "warm-up" | "measured";
interface Outcome {
  readonly phase: Phase;
  readonly latencyMs: number;
  readonly status: number | "error" | "timeout";
}

const outcomes: Outcome[] = [];
const pending = new Set<Promise<void>>();
let firstFailure: string | undefined;
let phase: Phase = "warm-up";
let stopping = false;
let maxSendLagMs = 0;
let measureStart = 0;
let measureEnd = 0;

function record(id: string): string {
  return JSON.stringify({
    id,
    title: "Benchmark write: a recommendation created under read load",
    components: ["kubelet"],
    phase: scenario.mode === "refused" ? "NO_SUCH_PHASE" : "NODE_UPGRADE",
    appliesFrom: null,
    appliesUntil: null,
    text: `Written by npm run bench (writes at load) as ${id}; it carries no advice.`,
    sourceUrl: "https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/",
    notes: null,
  });
}

function send(n: number): void {
  const body = record(`${scenario.idPrefix}-${n}`);
  const sentIn = phase;
  const started = performance.now();
  const done = new Promise<void>((resolve) => {
    const finish = (status: number | "error" | "timeout", detail?: string): void => {
      outcomes.push({ phase: sentIn, latencyMs: performance.now() - started, status });
      if (firstFailure === undefined && detail !== undefined) firstFailure = detail;
      resolve();
    };
    const request = http.request(
      target,
      {
        method: healthz ? "GET" : "POST",
        agent,
        headers: healthz
          ? {}
          : {
              authorization: `Bearer ${scenario.token}`,
              "content-type": "application/json",
              "content-length": Buffer.byteLength(body),
            },
        timeout: TIMEOUT_MS,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (status < 200 || status > 299) text += chunk;
        });
        response.on("end", () =>
          finish(
            status,
            status >= 200 && status <= 299 ? undefined : `HTTP ${status}: ${text.slice(0, 500)}`,
          ),
        );
        response.on("error", (error) => finish("error", error.message));
      },
    );
    let timedOut = false;
    request.on("timeout", () => {
      timedOut = true;
      request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`));
    });
    request.on("error", (error) => finish(timedOut ? "timeout" : "error", error.message));
    request.end(healthz ? undefined : body);
  });
  pending.add(done);
  void done.then(() => pending.delete(done));
}

// Steady schedule: edit n leaves at start + n * interval. A timer that fires late sends every edit that is due.
const start = performance.now();
let next = 0;
function tick(): void {
  if (stopping) return;
  const now = performance.now();
  while (start + next * interval <= now) {
    maxSendLagMs = Math.max(maxSendLagMs, now - (start + next * interval));
    send(next);
    if (next === 0) process.stdout.write("sending\n");
    next += 1;
  }
  setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
}
tick();

for (let line = await lines.next(); line.done !== true; line = await lines.next()) {
  const command = line.value.trim();
  if (command === "measure" && phase === "warm-up") {
    phase = "measured";
    measureStart = performance.now();
    maxSendLagMs = 0;
  } else if (command === "stop") {
    break;
  }
}
stopping = true;
measureEnd = performance.now();
await Promise.all([...pending]);
agent.destroy();

const measured = outcomes.filter((outcome) => outcome.phase === "measured");
const timed = measured
  .filter((outcome) => outcome.status !== "error")
  .map((outcome) => outcome.latencyMs)
  .sort((a, b) => a - b);
const percentile = (q: number): number | null =>
  timed.length === 0
    ? null
    : timed[Math.min(timed.length - 1, Math.max(0, Math.ceil(q * timed.length) - 1))]!;
const isOk = (outcome: Outcome): boolean =>
  typeof outcome.status === "number" && outcome.status >= 200 && outcome.status <= 299;
const warmUp = outcomes.filter((outcome) => outcome.phase === "warm-up");
const result: WriterResult = {
  seconds: measureStart === 0 ? 0 : (measureEnd - measureStart) / 1000,
  sent: measured.length,
  ok: measured.filter(isOk).length,
  non2xx: measured.filter((outcome) => typeof outcome.status === "number" && !isOk(outcome)).length,
  errors: measured.filter((outcome) => typeof outcome.status !== "number").length,
  timeouts: measured.filter((outcome) => outcome.status === "timeout").length,
  p50: percentile(0.5),
  p99: percentile(0.99),
  max: timed.at(-1) ?? null,
  latencies: timed.map((latency) => Math.round(latency * 10) / 10),
  maxSendLagMs,
  warmUpSent: warmUp.length,
  warmUpFailed: warmUp.filter((outcome) => !isOk(outcome)).length,
  ...(firstFailure === undefined ? {} : { firstFailure }),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
