/**
 * `npm run bench`: starts one kubecompat instance (the real server process,
 * the compiled dist/ build with the Docker image's node flags and
 * environment), drives it with autocannon scenario by scenario, and prints
 * requests/s, p50/p99 latency and the ratio to the floor (a trivial
 * GET /healthz on the same server, measured in the same run), plus the scan
 * throughput against a bare YAML parse of the same input and the server's
 * resident memory. Where `taskset` is there and the machine has two or more
 * CPUs, the server gets one CPU (a pod's limit is one) and the load
 * generator, in its own process, the others. Uses DATABASE_URL when set,
 * else the embedded PostgreSQL.
 *
 * "Writes at load": the validate read once with no
 * writes, then again while a writer (bench/writer.ts, its own process,
 * pinned like the load) creates knowledge-base records at a steady rate
 * with an editor token the bench makes itself (`kubecompat token`, against
 * the bench's database). Targets (issue 36: a knowledge base people curate,
 * one write path): edit p99 < 250 ms at 10 edits/s, and reads with writes
 * within 15% of the reads without.
 *
 * Knobs: BENCH_SECONDS (8) and BENCH_CONNECTIONS (32) per scenario;
 * BENCH_WRITES_SECONDS (4) for each of the two reads of a round of the
 * writes scenario, BENCH_WRITES_ROUNDS (8, each a read without and a read
 * with writes, after one warm-up round that is not counted; the ratio is
 * the rounds' median), BENCH_WRITES_PER_SECOND (10),
 * BENCH_WRITES_WARMUP_SECONDS (1, edits before each measured window); BENCH_WRITES_CONTROL=refused
 * or healthz (a control run: the writer sends edits the server refuses, 400, which pay for the requests without
 * their commits, or GET /healthz, what any request sent that way costs and waits); EDIT_GATHER_MS and the
 * server's other variables pass through to it; BENCH_ONLY=reads,scan,writes,sizes,fleet,fix (any
 * of them, comma-separated; all by default); BENCH_NO_PIN; BENCH_NO_BUILD=1
 * runs dist/ as it is (no `npm run build` first); BENCH_CPU_PROF=dir (a CPU profile of the
 * server, and windows.json beside it: each load window's span on the profile's clock); BENCH_NODE_FLAGS (more flags for the server's node, e.g. --trace-gc). With DATABASE_URL
 * set the writes scenario adds records to that database, so it runs only
 * with BENCH_WRITES_ON_DATABASE_URL=1.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadAll as jsYamlLoadAll } from "js-yaml";
import { parseAllDocuments } from "yaml";
import { dockerRuntime } from "./docker-runtime.js";
import type { LoadScenario } from "./load.js";
import { PLAN, UPGRADE, manifest } from "./questions.js";
import { answerSizes } from "./sizes.js";
import { fleetBench } from "./fleet.js";
import { fixBench } from "./fix.js";
import type { WriterResult, WriterScenario } from "./writer.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
// Many short rounds, not a few long ones: on a shared machine the read rate drifts by 10-15% from one window to the
// next, so pairs of windows close in time and the median of many pairs are what hold still.
const WRITES_DURATION = Number(process.env.BENCH_WRITES_SECONDS ?? 4);
const WRITES_PER_SECOND = Number(process.env.BENCH_WRITES_PER_SECOND ?? 10);
/** The writes scenario's targets: an edit's p99, and the share of the idle-writes read rate kept. */
const EDIT_P99_TARGET_MS = 250;
const READS_KEPT_TARGET = 0.85;
const WRITES_WARMUP = Number(process.env.BENCH_WRITES_WARMUP_SECONDS ?? 1);
const WRITES_ROUNDS = Number(process.env.BENCH_WRITES_ROUNDS ?? 8);
/** Where the server's CPU profile goes (BENCH_CPU_PROF), when one is taken. */
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** A control run of the writes scenario: refused edits (the requests without their commits) or GET /healthz (any request). */
const WRITES_CONTROL = ((): "refused" | "healthz" | undefined => {
  const control = process.env.BENCH_WRITES_CONTROL;
  if (control === undefined || control === "") return undefined;
  if (control === "refused" || control === "healthz") return control;
  throw new Error(
    `BENCH_WRITES_CONTROL must be refused or healthz, not ${JSON.stringify(control)}`,
  );
})();
const CONTROL_WRITES = {
  refused: "sends recommendations the server refuses (400) over POST /api/v1/recommendations",
  healthz: "sends GET /healthz",
} as const;
/** Writes per minute the server allows per token: limits stay on, above the writer's rate. */
const WRITES_PER_MINUTE_LIMIT = 100_000;

const GROUPS = ["reads", "scan", "writes", "sizes", "fleet", "fix"] as const;
type Group = (typeof GROUPS)[number];
const ONLY = (process.env.BENCH_ONLY ?? "")
  .split(",")
  .map((entry) => entry.trim())
  .filter((entry) => entry !== "");
for (const entry of ONLY) {
  if (!(GROUPS as readonly string[]).includes(entry))
    throw new Error(`BENCH_ONLY: unknown scenario group "${entry}"; use ${GROUPS.join(", ")}`);
}
const selected = (group: Group): boolean => ONLY.length === 0 || ONLY.includes(group);
for (const [name, value] of [
  ["BENCH_SECONDS", DURATION],
  ["BENCH_WRITES_SECONDS", WRITES_DURATION],
  ["BENCH_WRITES_PER_SECOND", WRITES_PER_SECOND],
] as const) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
}
if (!Number.isFinite(WRITES_WARMUP) || WRITES_WARMUP < 0)
  throw new Error("BENCH_WRITES_WARMUP_SECONDS must be 0 or more");
if (!Number.isInteger(WRITES_ROUNDS) || WRITES_ROUNDS < 1)
  throw new Error("BENCH_WRITES_ROUNDS must be a whole number, 1 or more");
if (WRITES_PER_SECOND * 60 >= WRITES_PER_MINUTE_LIMIT) {
  throw new Error(
    `BENCH_WRITES_PER_SECOND ${WRITES_PER_SECOND} is ${WRITES_PER_SECOND * 60} a minute, at or over the write limit the bench configures (${WRITES_PER_MINUTE_LIMIT})`,
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

const GRAPHQL_VALIDATE = {
  query: `query Validate($plan: ClusterPlanInput!, $asOf: String) { validateCluster(plan: $plan, asOf: $asOf) { ok kbRevision findings { code severity component instance message sourceUrl } } }`,
  variables: { plan: { components: PLAN.components }, asOf: PLAN.asOf },
};

interface Row {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Shown in the table but not a target: every request a new question. */
  note?: string;
}

function statusField(pid: number, field: string): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

function hasTaskset(): boolean {
  return spawnSync("taskset", ["--version"], { stdio: "ignore" }).status === 0;
}

const CPUS = os.cpus().length;
const PIN = CPUS >= 2 && hasTaskset() && process.env.BENCH_NO_PIN === undefined;
/** The server on the last CPU, the load generator on all the others. */
const SERVER_CPUS = String(CPUS - 1);
const LOAD_CPUS = CPUS === 2 ? "0" : `0-${CPUS - 2}`;

function pinned(cpus: string, command: string, args: string[]): [string, string[]] {
  return PIN ? ["taskset", ["-c", cpus, command, ...args]] : [command, args];
}

/** The pids of a process's descendants (from /proc), e.g. the embedded PostgreSQL under the server. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command's closing parenthesis: state, ppid, ...
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended meanwhile.
    }
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/**
 * The embedded PostgreSQL is the server's child, so it inherits the server's
 * CPU; in production it is its own container (docker-compose.yml). Moved to
 * the load generator's CPUs, it no longer takes the server's CPU when edits
 * reach it. Backends forked later inherit the postmaster's CPUs.
 */
/**
 * V8's CPU profiler samples the main thread from a thread of its own. Pinned
 * to the server's one CPU, that thread gets to run mostly when the main
 * thread waits, so busy time goes unsampled (a third of it was seen here).
 * Moved to the load generator's CPUs, it samples the main thread as it runs.
 */
function moveProfilerThread(serverPid: number): boolean {
  let moved = false;
  for (const tid of fs.readdirSync(`/proc/${serverPid}/task`)) {
    const name = fs.readFileSync(`/proc/${serverPid}/task/${tid}/comm`, "utf8").trim();
    if (name === "v8:ProfEvntProc")
      moved =
        spawnSync("taskset", ["-p", "-c", LOAD_CPUS, tid], { stdio: "ignore" }).status === 0 ||
        moved;
  }
  return moved;
}

/** Each load window's name and span on the monotonic clock (µs, as in a V8 CPU profile), to cut a BENCH_CPU_PROF profile by window. */
const windows: Array<{ name: string; from: number; to: number }> = [];
const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

function moveEmbeddedPostgres(serverPid: number): number {
  const pids = descendants(serverPid).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres";
    } catch {
      return false;
    }
  });
  for (const pid of pids)
    spawnSync("taskset", ["-a", "-p", "-c", LOAD_CPUS, String(pid)], { stdio: "ignore" });
  return pids.length;
}

/** Runs one scenario in the load process; `onStart` is called when the load begins (with announceStart). */
async function load(
  name: string,
  scenario: Partial<LoadScenario> & { url: string },
  onStart?: () => void,
): Promise<Row> {
  const profiling = CPU_PROFILE_DIR !== undefined;
  const spec: LoadScenario = {
    connections: CONNECTIONS,
    duration: DURATION,
    ...scenario,
    ...(onStart || profiling ? { announceStart: true } : {}),
  };
  const [command, args] = pinned(LOAD_CPUS, process.execPath, [
    "--import",
    "tsx",
    path.join(ROOT, "bench/load.ts"),
  ]);
  const child = spawn(command, args, { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.end(JSON.stringify(spec));
  let output = "";
  let announced = false;
  let from = 0;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    if (!announced && output.startsWith("started\n")) {
      announced = true;
      from = monotonicMicros();
      onStart?.();
    }
  });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (profiling) windows.push({ name, from, to: monotonicMicros() });
  if (code !== 0) throw new Error(`the load generator failed for ${name} (exit ${String(code)})`);
  const result = JSON.parse(output.trim().split("\n").at(-1) ?? "") as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
  };
  return {
    name,
    requests: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

interface LargeScans {
  readonly bytes: number;
  readonly findings: number;
  readonly singleMs: readonly number[];
  readonly concurrentMs: number;
  readonly concurrentPeakRss: number;
  readonly healthz: Row;
  readonly scansDuring: number;
  /** Large scans that did not answer 200. */
  readonly failures: number;
}

/**
 * Scans of 10 MiB: one at a time (time), four at once (the server's peak RSS, reset just before through
 * /proc/PID/clear_refs), and two back to back while autocannon asks /healthz (does a large scan hold the
 * event loop?). Raw YAML, as `curl --data-binary @all.yaml` sends it.
 */
async function largeScans(base: string, pid: number): Promise<LargeScans> {
  const text = manifest(10 * 2 ** 20 - 64 * 1024);
  const url = `${base}/api/v1/scan?targetVersion=1.29`;
  let failures = 0;
  let findings = 0;
  // Only the first answer is parsed (for its findings): parsing 8 MB of JSON per scan would take this
  // process's CPU from the load generator measuring /healthz beside it.
  const scan = async (parse = false): Promise<number> => {
    const started = performance.now();
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/yaml" },
      body: text,
    });
    if (parse)
      findings = ((await response.json()) as { findings?: unknown[] }).findings?.length ?? 0;
    else await response.arrayBuffer();
    if (response.status !== 200) failures += 1;
    return performance.now() - started;
  };
  await scan(true);
  const singleMs: number[] = [];
  for (let round = 0; round < 5; round += 1) singleMs.push(await scan());
  let concurrentPeakRss = Number.NaN;
  let concurrentMs = 0;
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const started = performance.now();
    await Promise.all([scan(), scan(), scan(), scan()]);
    concurrentMs = performance.now() - started;
    concurrentPeakRss = statusField(pid, "VmHWM");
  } catch (error) {
    process.stdout.write(
      `four concurrent scans: could not reset the peak RSS (${(error as Error).message})\n`,
    );
  }
  let running = true;
  let scansDuring = 0;
  const loop = async (): Promise<void> => {
    while (running) {
      await scan();
      scansDuring += 1;
    }
  };
  const loops = [loop(), loop()];
  await new Promise((resolve) => setTimeout(resolve, 300));
  const healthz = await load("GET /healthz during large scans", {
    url: `${base}/healthz`,
    connections: 4,
    duration: DURATION,
  });
  running = false;
  await Promise.all(loops);
  return {
    bytes: Buffer.byteLength(text),
    findings,
    singleMs,
    concurrentMs,
    concurrentPeakRss,
    healthz,
    scansDuring,
    failures,
  };
}

/** Runs a command to its end; its stdout, or an error with its output. */
async function output(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0)
    throw new Error(`${[command, ...args].join(" ")} failed (exit ${String(code)}):\n${text}`);
  return text;
}

/** A process's stdout as lines, each handed to `onLine` as it arrives. */
function onLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      onLine(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
    }
  });
}

interface WritesRound {
  readonly idle: Row;
  readonly withWrites: Row;
  readonly edits: WriterResult;
}

interface WritesAtLoad {
  readonly read: string;
  readonly rounds: readonly WritesRound[];
  /** The round that warmed the edit path up (not counted). */
  readonly warmUp: WritesRound | undefined;
  /** The median over the rounds of reads with writes / reads without. */
  readonly readRatio: number;
  /** All the rounds' reads with writes / all their reads without (a second estimate beside the median). */
  readonly meanRatio: number;
  /** The edits of every round's window together (percentiles over all their latencies). */
  readonly edits: WriterResult;
}

/** The writer results of several windows as one: counts added, percentiles over all latencies. */
function pooled(results: readonly WriterResult[]): WriterResult {
  const latencies = results.flatMap((result) => result.latencies).sort((a, b) => a - b);
  const percentile = (q: number): number | null =>
    latencies.length === 0
      ? null
      : latencies[
          Math.min(latencies.length - 1, Math.max(0, Math.ceil(q * latencies.length) - 1))
        ]!;
  const sum = (
    field:
      | "seconds"
      | "sent"
      | "ok"
      | "non2xx"
      | "errors"
      | "timeouts"
      | "warmUpSent"
      | "warmUpFailed",
  ): number => results.reduce((total, result) => total + result[field], 0);
  const firstFailure = results.find((result) => result.firstFailure !== undefined)?.firstFailure;
  return {
    seconds: sum("seconds"),
    sent: sum("sent"),
    ok: sum("ok"),
    non2xx: sum("non2xx"),
    errors: sum("errors"),
    timeouts: sum("timeouts"),
    p50: percentile(0.5),
    p99: percentile(0.99),
    max: latencies.at(-1) ?? null,
    maxSendLagMs: Math.max(0, ...results.map((result) => result.maxSendLagMs)),
    warmUpSent: sum("warmUpSent"),
    warmUpFailed: sum("warmUpFailed"),
    latencies,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Issue 11, item 6, in WRITES_ROUNDS rounds: the read for WRITES_DURATION
 * seconds with no writes, then again while a writer creates records at
 * WRITES_PER_SECOND. Each round's writer starts first and warms the edit
 * path up for WRITES_WARMUP seconds; its measured window opens when the load
 * generator announces its start and closes when the load generator is done,
 * so the edits counted are those sent under read load. Rounds alternate the
 * two reads so that another job on the machine, which slows whichever window
 * it falls in, spoils one round's ratio rather than the result: the ratio is
 * the median of the rounds'.
 */
async function writesAtLoad(
  base: string,
  env: NodeJS.ProcessEnv,
  read: { name: string; scenario: Partial<LoadScenario> & { url: string } },
): Promise<WritesAtLoad> {
  // The bench's own editor token, made the way an operator makes one, in the bench's database.
  const tokenCli = path.join(ROOT, "dist/ops/token.js");
  const tokenName = `bench-writer-${Date.now().toString(36)}`;
  const created = await output(
    process.execPath,
    [tokenCli, "create", "--role", "editor", "--name", tokenName],
    env,
  );
  const secret = /\bkc_[A-Za-z0-9_-]{43}\b/.exec(created)?.[0];
  if (secret === undefined)
    throw new Error(`kubecompat token create printed no secret:\n${created}`);
  try {
    let warmUp: WritesRound | undefined;
    const rounds: WritesRound[] = [];
    // Round 0 warms the edit path up (the JIT, the pools) and is not counted: with the reads group left out
    // (BENCH_ONLY=writes) the server would otherwise still be getting faster during the first rounds.
    for (let round = 0; round <= WRITES_ROUNDS; round += 1) {
      const idle = await load(
        `${read.name}, no writes (${round === 0 ? "warm-up round, not counted" : `round ${round}`})`,
        { ...read.scenario, duration: WRITES_DURATION },
      );

      const spec: WriterScenario = {
        base,
        token: secret,
        rate: WRITES_PER_SECOND,
        idPrefix: `bench-${Date.now().toString(36)}-${round}`,
        mode: WRITES_CONTROL ?? "edits",
      };
      const [command, args] = pinned(LOAD_CPUS, process.execPath, [
        "--import",
        "tsx",
        path.join(ROOT, "bench/writer.ts"),
      ]);
      const writer = spawn(command, args, { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
      // A writer that died is reported by its exit code, not by an EPIPE on its stdin.
      writer.stdin.on("error", () => undefined);
      writer.stdin.write(`${JSON.stringify(spec)}\n`);
      const exited = new Promise<unknown>((resolve) => writer.once("exit", resolve));
      let resultLine: string | undefined;
      const sending = new Promise<void>((resolve, reject) => {
        onLines(writer.stdout, (line) => {
          if (line === "sending") resolve();
          else if (line.startsWith("{")) resultLine = line;
        });
        void exited.then(() => reject(new Error("the writer stopped before it sent an edit")));
      });
      let withWrites: Row;
      try {
        await sending;
        await new Promise((resolve) => setTimeout(resolve, WRITES_WARMUP * 1000));
        withWrites = await load(
          `${read.name}, ${WRITES_PER_SECOND} edits/s (${round === 0 ? "warm-up round, not counted" : `round ${round}`})`,
          { ...read.scenario, duration: WRITES_DURATION },
          () => writer.stdin.write("measure\n"),
        );
      } finally {
        writer.stdin.end("stop\n");
      }
      const code = await exited;
      if (code !== 0 || resultLine === undefined)
        throw new Error(`the writer failed (exit ${String(code)})`);
      const edits = JSON.parse(resultLine) as WriterResult;
      if (edits.sent === 0)
        throw new Error(
          "the writer's measured window holds no edit: the load generator never announced its start",
        );
      if (round === 0) warmUp = { idle, withWrites, edits };
      else rounds.push({ idle, withWrites, edits });
    }
    const readRatio = median(
      rounds.map((round) => round.withWrites.requests / Math.max(round.idle.requests, 1e-9)),
    );
    const sum = (rows: readonly Row[]): number =>
      rows.reduce((total, row) => total + row.requests, 0);
    const meanRatio =
      sum(rounds.map((round) => round.withWrites)) /
      Math.max(sum(rounds.map((round) => round.idle)), 1e-9);
    return {
      read: read.name,
      warmUp,
      rounds,
      readRatio,
      meanRatio,
      edits: pooled(rounds.map((round) => round.edits)),
    };
  } finally {
    await output(process.execPath, [tokenCli, "revoke", "--name", tokenName], env).catch(
      (error: unknown) => {
        process.stderr.write(
          `could not revoke the bench's token ${tokenName}: ${(error as Error).message}\n`,
        );
      },
    );
  }
}

async function main(): Promise<void> {
  // Sizes need no server (bench/sizes.ts): alone, they are all the run does.
  if (selected("sizes")) process.stdout.write(`${await answerSizes()}\n`);
  // The fleet's passes run in process over their own database (bench/fleet.ts).
  if (selected("fleet")) process.stdout.write(`${await fleetBench()}\n`);
  // fix runs in process, beside the scan it is built on (bench/fix.ts).
  if (selected("fix")) process.stdout.write(`${await fixBench()}\n`);
  if (ONLY.length > 0 && ONLY.every((group) => ["sizes", "fleet", "fix"].includes(group))) return;
  const port = await freePort();
  const pgPort = await freePort();
  const image = dockerRuntime();
  // The bench's own database, removed after the run (the writes scenario fills it with test records).
  const pgDir = process.env.DATABASE_URL
    ? undefined
    : path.join(os.tmpdir(), `kubecompat-bench-pg-${process.pid}`);
  const env = {
    ...process.env,
    ...image.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    EMBEDDED_PG_DIR: pgDir,
    EMBEDDED_PG_PORT: String(pgPort),
    // Limits stay on, set above the benchmark's rate (express-rate-limit answers 429s otherwise).
    RATE_LIMIT_WRITES_PER_MINUTE: String(WRITES_PER_MINUTE_LIMIT),
    RATE_LIMIT_CHAT_PER_MINUTE: "100000",
  };
  // The production build, as the Docker image runs it (tsx's on-the-fly transform adds a wrapper to every closure).
  if (process.env.BENCH_NO_BUILD === "1") {
    process.stdout.write("BENCH_NO_BUILD=1: running dist/ as it is\n");
  } else {
    process.stdout.write("building dist/ (npm run build)...\n");
    const build = spawn("npm", ["run", "-s", "build"], { cwd: ROOT, stdio: "inherit" });
    if ((await new Promise((resolve) => build.once("exit", resolve))) !== 0)
      throw new Error("npm run build failed");
  }
  const serverFlags = [
    ...(CPU_PROFILE_DIR === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${CPU_PROFILE_DIR}`]),
    // Extra flags for the server's node (e.g. --trace-gc), which NODE_OPTIONS does not all allow.
    ...(process.env.BENCH_NODE_FLAGS === undefined
      ? []
      : process.env.BENCH_NODE_FLAGS.split(/\s+/).filter((flag) => flag !== "")),
  ];
  const [command, args] = pinned(SERVER_CPUS, process.execPath, [
    ...image.nodeFlags,
    ...serverFlags,
    image.script,
  ]);
  const server = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "inherit", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let attempt = 0; ; attempt += 1) {
      const ready = await fetch(`${base}/readyz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (attempt > 240 || server.exitCode !== null)
        throw new Error("the server did not become ready");
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // With taskset in between, the server is taskset's child's image: same pid (taskset execs).
    const pid = server.pid!;
    const idleRss = statusField(pid, "VmRSS");
    const movedPostgres = PIN && !process.env.DATABASE_URL ? moveEmbeddedPostgres(pid) : 0;
    if (PIN && CPU_PROFILE_DIR !== undefined && !moveProfilerThread(pid))
      process.stderr.write(
        "could not move the profiler's thread off the server's CPU: the profile undercounts busy time\n",
      );
    const json = { "content-type": "application/json" };
    const scanInput = manifest(1_000_000);
    const scanBody = JSON.stringify({ manifests: scanInput, targetVersion: "1.29" });
    const validate = JSON.stringify(PLAN);
    const graphql = JSON.stringify(GRAPHQL_VALIDATE);
    const upgrade = JSON.stringify(UPGRADE);

    // Warm up the JIT on every path before measuring.
    const warmUps = [
      ...(selected("reads") || selected("writes") ? [["/api/v1/validate", validate] as const] : []),
      ...(selected("reads")
        ? ([
            ["/graphql", graphql],
            ["/api/v1/upgrade-plan", upgrade],
          ] as const)
        : []),
    ];
    for (const [url, body] of warmUps) {
      await load("warm-up", {
        url: `${base}${url}`,
        method: "POST",
        headers: json,
        body,
        duration: 2,
        distinct: true,
      });
    }

    const validateScenario = {
      url: `${base}/api/v1/validate`,
      method: "POST",
      headers: json,
      body: validate,
    } as const;
    const rows: Row[] = [];
    let floor: Row | undefined;
    let validateRow: Row | undefined;
    let graphqlRow: Row | undefined;
    if (selected("reads")) {
      floor = await load("GET /healthz (floor)", { url: `${base}/healthz` });
      rows.push(floor);
      rows.push(await load("GET /api/v1/api-removals", { url: `${base}/api/v1/api-removals` }));
      validateRow = await load("POST /api/v1/validate (12 components)", validateScenario);
      rows.push(validateRow);
      graphqlRow = await load("POST /graphql validateCluster", {
        url: `${base}/graphql`,
        method: "POST",
        headers: json,
        body: graphql,
      });
      rows.push(graphqlRow);
      rows.push(
        await load("POST /api/v1/upgrade-plan (1.25 -> 1.30, 3 pools)", {
          url: `${base}/api/v1/upgrade-plan`,
          method: "POST",
          headers: json,
          body: upgrade,
        }),
      );
      const fresh = "a new question every request: nothing remembered";
      rows.push({
        ...(await load("POST /api/v1/validate, new plan each time", {
          url: `${base}/api/v1/validate`,
          method: "POST",
          headers: json,
          body: validate,
          distinct: true,
        })),
        note: fresh,
      });
      rows.push({
        ...(await load("POST /graphql validateCluster, new plan each time", {
          url: `${base}/graphql`,
          method: "POST",
          headers: json,
          body: graphql,
          distinct: true,
        })),
        note: fresh,
      });
      rows.push({
        ...(await load("POST /api/v1/upgrade-plan, new plan each time", {
          url: `${base}/api/v1/upgrade-plan`,
          method: "POST",
          headers: json,
          body: upgrade,
          distinct: true,
        })),
        note: fresh,
      });
    }
    let single: Row | undefined;
    let bareParseMs = 0;
    let loadAllMs = 0;
    let large: LargeScans | undefined;
    if (selected("scan")) {
      rows.push(
        await load("POST /api/v1/scan (1 MB manifest, 2 connections)", {
          url: `${base}/api/v1/scan`,
          method: "POST",
          headers: json,
          body: scanBody,
          connections: 2,
        }),
      );
      single = await load("scan, one connection", {
        url: `${base}/api/v1/scan`,
        method: "POST",
        headers: json,
        body: scanBody,
        connections: 1,
        duration: 5,
      });
      // Yardsticks, in this process on the same input: js-yaml's loadAll (the target), and the yaml library's
      // parseAllDocuments, which the scan took as long as before the fast path (1.02x of it in earlier runs).
      const medianTime = (run: () => void): number => {
        const times: number[] = [];
        for (let round = 0; round < 12; round += 1) {
          const started = process.hrtime.bigint();
          run();
          times.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
        return median(times);
      };
      bareParseMs = medianTime(() => {
        for (const document of parseAllDocuments(scanInput)) void document.contents;
      });
      loadAllMs = medianTime(() => void jsYamlLoadAll(scanInput));
    }
    // The memory target is about reads and 1 MB scans; the 10 MiB scans and the writes report their own memory after them.
    const rss = statusField(pid, "VmRSS");
    const peakRss = statusField(pid, "VmHWM");
    if (selected("scan")) large = await largeScans(base, pid);

    let writes: WritesAtLoad | undefined;
    let writesSkipped: string | undefined;
    // What the server holds before the edits: after the 10 MiB scans, its RSS is the scans' high water, not the edits'.
    const rssBeforeWrites = statusField(pid, "VmRSS");
    if (selected("writes")) {
      if (process.env.DATABASE_URL && process.env.BENCH_WRITES_ON_DATABASE_URL !== "1") {
        writesSkipped =
          "DATABASE_URL is set, and this scenario would add its records to that database: unset it (the bench then runs its own embedded PostgreSQL) or set BENCH_WRITES_ON_DATABASE_URL=1";
      } else {
        writes = await writesAtLoad(base, env, {
          name: "POST /api/v1/validate (12 components)",
          scenario: validateScenario,
        });
      }
    }
    const writesRss = statusField(pid, "VmRSS");
    const writesPeakRss = statusField(pid, "VmHWM");

    const cpu = os.cpus()[0]?.model ?? "?";
    process.stdout.write(
      `\nkubecompat benchmark: ${CPUS} cores (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per scenario${ONLY.length > 0 ? ` (BENCH_ONLY=${ONLY.join(",")})` : ""}\n`,
    );
    process.stdout.write(
      PIN
        ? `server pinned to CPU ${SERVER_CPUS}, load generator (autocannon, own process) to CPU ${LOAD_CPUS}\n`
        : "server and load generator share the CPUs (no taskset, one CPU, or BENCH_NO_PIN set)\n",
    );
    if (movedPostgres > 0)
      process.stdout.write(
        `embedded PostgreSQL (${movedPostgres} processes) moved to CPU ${LOAD_CPUS}, off the server's: in production it runs in its own container\n`,
      );
    process.stdout.write(
      `server: node ${image.nodeFlags.join(" ")} ${image.script}; ${Object.entries(image.env)
        .map(([name, value]) => `${name}=${value}`)
        .join(" ")} (the Dockerfile's)\n\n`,
    );
    const ratio = (row: Row): string =>
      floor === undefined ? "-" : `${((row.requests / floor.requests) * 100).toFixed(1)}%`;
    const p99Ratio = (row: Row): string =>
      floor === undefined ? "-" : `${(row.p99 / Math.max(floor.p99, 0.01)).toFixed(2)}x`;
    if (rows.length > 0) {
      const table = [
        "| scenario | req/s | p50 ms | p99 ms | throughput vs floor | p99 vs floor | errors | non-2xx |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        ...rows.map(
          (row) =>
            `| ${row.name}${row.note ? ` (${row.note})` : ""} | ${row.requests.toFixed(0)} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${ratio(row)} | ${p99Ratio(row)} | ${row.errors} | ${row.non2xx} |`,
        ),
      ];
      process.stdout.write(`${table.join("\n")}\n\n`);
    }
    const mb = Buffer.byteLength(scanInput) / 1e6;
    if (single !== undefined) {
      process.stdout.write(
        `scan: ${mb.toFixed(2)} MB per request; one connection p50 ${single.p50.toFixed(1)} ms = ${(mb / (single.p50 / 1000)).toFixed(1)} MB/s; js-yaml loadAll of the same input ${loadAllMs.toFixed(1)} ms (scan / loadAll = ${(single.p50 / loadAllMs).toFixed(2)}x); yaml parseAllDocuments ${bareParseMs.toFixed(1)} ms, the scan's time before the fast path (speed-up ${(bareParseMs / single.p50).toFixed(1)}x)\n`,
      );
    }
    if (large !== undefined) {
      process.stdout.write(
        [
          `10 MiB scan (${(large.bytes / 2 ** 20).toFixed(1)} MiB, ${large.findings} findings): ${large.singleMs.map((value) => value.toFixed(0)).join(", ")} ms over HTTP, median ${median(large.singleMs).toFixed(0)} ms`,
          `four concurrent 10 MiB scans: all answered 200 in ${large.concurrentMs.toFixed(0)} ms; server peak RSS during them ${large.concurrentPeakRss.toFixed(0)} MB (reset before)`,
          `GET /healthz while two 10 MiB scans run back to back: ${large.healthz.requests.toFixed(0)} req/s, p50 ${large.healthz.p50.toFixed(1)} ms, p99 ${large.healthz.p99.toFixed(1)} ms (${large.scansDuring} scans answered meanwhile)`,
          "",
        ].join("\n"),
      );
    }
    if (selected("reads") || selected("scan")) {
      process.stdout.write(
        `server resident memory: ${idleRss.toFixed(0)} MB idle after start, ${rss.toFixed(0)} MB after the run, ${peakRss.toFixed(0)} MB at the peak\n`,
      );
    }
    const ms = (value: number | null): string =>
      value === null ? "n/a" : `${value.toFixed(1)} ms`;
    const readRatio = writes === undefined ? 0 : writes.readRatio;
    const editsPerSecond =
      writes === undefined ? 0 : writes.edits.ok / Math.max(writes.edits.seconds, 1e-9);
    if (writes !== undefined) {
      const { rounds, edits } = writes;
      process.stdout.write(
        [
          "",
          `writes at load, ${rounds.length} rounds after one warm-up round: ${writes.read} for ${WRITES_DURATION} s with no writes, then for ${WRITES_DURATION} s while a writer (own process, pinned with the load) ${WRITES_CONTROL === undefined ? "creates recommendations over POST /api/v1/recommendations" : `${CONTROL_WRITES[WRITES_CONTROL]} (BENCH_WRITES_CONTROL=${WRITES_CONTROL}, a control run)`} at ${WRITES_PER_SECOND}/s, open loop, with an editor token (writes limited to ${WRITES_PER_MINUTE_LIMIT} a minute per token; ${WRITES_WARMUP} s of edits before each window)`,
          "",
          "| run | reads/s | read p50 ms | read p99 ms | errors | non-2xx | ratio | edit p50 | edit p99 |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
          ...[...(writes.warmUp === undefined ? [] : [writes.warmUp]), ...rounds].flatMap(
            ({ idle, withWrites, edits: roundEdits }) => [
              `| ${idle.name} | ${idle.requests.toFixed(0)} | ${idle.p50.toFixed(2)} | ${idle.p99.toFixed(2)} | ${idle.errors} | ${idle.non2xx} | | | |`,
              `| ${withWrites.name} | ${withWrites.requests.toFixed(0)} | ${withWrites.p50.toFixed(2)} | ${withWrites.p99.toFixed(2)} | ${withWrites.errors} | ${withWrites.non2xx} | ${(withWrites.requests / Math.max(idle.requests, 1e-9)).toFixed(3)} | ${ms(roundEdits.p50)} | ${ms(roundEdits.p99)} |`,
            ],
          ),
          "",
          `reads with writes / reads without = ${readRatio.toFixed(3)} (median of the rounds; all the rounds' reads together: ${writes.meanRatio.toFixed(3)})`,
          `edits of all rounds: ${edits.sent} sent in ${edits.seconds.toFixed(1)} s (${(edits.sent / Math.max(edits.seconds, 1e-9)).toFixed(1)}/s), ${edits.ok} answered 2xx = ${editsPerSecond.toFixed(1)} edits/s; latency p50 ${ms(edits.p50)}, p99 ${ms(edits.p99)}, max ${ms(edits.max)}; ${edits.errors} errors (${edits.timeouts} of them no answer within 10 s, counted in the latencies at 10 s), ${edits.non2xx} non-2xx; writer sent at most ${edits.maxSendLagMs.toFixed(1)} ms late; warm-up ${edits.warmUpSent} edits, ${edits.warmUpFailed} failed`,
          ...(edits.firstFailure === undefined ? [] : [`first failed edit: ${edits.firstFailure}`]),
          `server resident memory: ${rssBeforeWrites.toFixed(0)} MB before the writes, ${writesRss.toFixed(0)} MB after them, ${writesPeakRss.toFixed(0)} MB at the peak`,
          "",
        ].join("\n"),
      );
    } else if (writesSkipped !== undefined) {
      process.stdout.write(`\nwrites at load: skipped: ${writesSkipped}\n`);
    }

    const errors =
      rows.reduce((sum, row) => sum + row.errors + row.non2xx, 0) +
      (single === undefined ? 0 : single.errors + single.non2xx) +
      (large === undefined ? 0 : large.failures + large.healthz.errors + large.healthz.non2xx) +
      (writes === undefined
        ? 0
        : writes.rounds.reduce(
            (sum, round) =>
              sum +
              round.idle.errors +
              round.idle.non2xx +
              round.withWrites.errors +
              round.withWrites.non2xx,
            0,
          ) +
          writes.edits.errors +
          (WRITES_CONTROL === "refused" ? writes.edits.ok : writes.edits.non2xx));
    const targets: Array<readonly [string, boolean | "skipped"]> = [];
    if (floor !== undefined && validateRow !== undefined && graphqlRow !== undefined) {
      targets.push(
        [
          `validate REST >= 60% of floor (${((validateRow.requests / floor.requests) * 100).toFixed(0)}%)`,
          validateRow.requests / floor.requests >= 0.6,
        ],
        [
          `validate REST p99 <= 1.5x floor p99 (${(validateRow.p99 / floor.p99).toFixed(2)}x)`,
          validateRow.p99 <= 1.5 * floor.p99,
        ],
        [
          `validate GraphQL >= 45% of floor (${((graphqlRow.requests / floor.requests) * 100).toFixed(0)}%)`,
          graphqlRow.requests / floor.requests >= 0.45,
        ],
      );
    }
    if (single !== undefined) {
      targets.push(
        [
          `scan within 1.5x of js-yaml loadAll (${(single.p50 / loadAllMs).toFixed(2)}x)`,
          single.p50 <= 1.5 * loadAllMs,
        ],
        [
          `scan >= 15x faster than before the fast path (${(bareParseMs / single.p50).toFixed(1)}x)`,
          bareParseMs / single.p50 >= 15,
        ],
      );
    }
    if (large !== undefined) {
      targets.push(
        [
          `10 MiB scan < 1 s (median ${median(large.singleMs).toFixed(0)} ms)`,
          median(large.singleMs) < 1000,
        ],
        [
          `four concurrent 10 MiB scans < 300 MB peak RSS (${large.concurrentPeakRss.toFixed(0)} MB)`,
          large.concurrentPeakRss < 300,
        ],
        [
          `/healthz p99 < 50 ms during large scans (${large.healthz.p99.toFixed(1)} ms)`,
          large.healthz.p99 < 50,
        ],
      );
    }
    const fresh = (name: string) =>
      rows.find((row) => row.name.startsWith(name) && row.note !== undefined);
    const freshTargets: Array<readonly [string, string, number]> = [
      ["POST /api/v1/validate, new plan", "validate REST, a new plan every request", 0.6],
      [
        "POST /graphql validateCluster, new plan",
        "validate GraphQL, a new plan every request",
        0.45,
      ],
      ["POST /api/v1/upgrade-plan, new plan", "upgrade plans, a new plan every request", 0.3],
    ];
    for (const [prefix, name, goal] of freshTargets) {
      const row = fresh(prefix);
      if (row !== undefined && floor !== undefined)
        targets.push([
          `${name} >= ${goal * 100}% of floor (${((row.requests / floor.requests) * 100).toFixed(0)}%)`,
          row.requests / floor.requests >= goal,
        ]);
    }
    if (selected("reads") || selected("scan"))
      targets.push([`RSS < 200 MB after the run (${rss.toFixed(0)} MB)`, rss < 200]);
    if (writes !== undefined && WRITES_CONTROL !== undefined) {
      targets.push([
        `edits and the read rate with them (BENCH_WRITES_CONTROL=${WRITES_CONTROL}, a control run: reads kept ${(readRatio * 100).toFixed(1)}%, p99 ${ms(writes.edits.p99)})`,
        "skipped",
      ]);
    } else if (writes !== undefined) {
      targets.push(
        [
          `edits sustained at ${WRITES_PER_SECOND}/s with p99 < ${EDIT_P99_TARGET_MS} ms (${editsPerSecond.toFixed(1)}/s answered 2xx, p99 ${ms(writes.edits.p99)})`,
          editsPerSecond >= 0.95 * WRITES_PER_SECOND &&
            writes.edits.p99 !== null &&
            writes.edits.p99 < EDIT_P99_TARGET_MS,
        ],
        [
          `reads with ${WRITES_PER_SECOND} edits/s >= ${READS_KEPT_TARGET * 100}% of reads with none (${(readRatio * 100).toFixed(1)}%, median of ${writes.rounds.length} rounds)`,
          readRatio >= READS_KEPT_TARGET,
        ],
        // Thousands of edits: what each one leaves behind (old snapshots, what was derived from them) must go. A list that
        // kept every earlier one alive grew the RSS by 60 MB over the group's 2 200 edits.
        [
          `RSS grows < 30 MB over the writes (${rssBeforeWrites.toFixed(0)} → ${writesRss.toFixed(0)} MB, ${writes.edits.sent + writes.edits.warmUpSent} edits)`,
          writesRss - rssBeforeWrites < 30,
        ],
      );
    } else if (writesSkipped !== undefined) {
      targets.push(
        [`edits at ${WRITES_PER_SECOND}/s with p99 < ${EDIT_P99_TARGET_MS} ms`, "skipped"],
        [`reads with writes >= ${READS_KEPT_TARGET * 100}% of reads with none`, "skipped"],
      );
    }
    targets.push([`no errors and no non-2xx answers (${errors})`, errors === 0]);
    process.stdout.write(
      `\ntargets:\n${targets.map(([name, met]) => `  ${met === "skipped" ? "SKIPPED" : met ? "met    " : "MISSED "} ${name}`).join("\n")}\n`,
    );
  } finally {
    server.kill("SIGTERM");
    if (server.exitCode === null && server.signalCode === null)
      await new Promise((resolve) => server.once("exit", resolve));
    if (pgDir !== undefined) fs.rmSync(pgDir, { recursive: true, force: true });
    if (CPU_PROFILE_DIR !== undefined)
      fs.writeFileSync(
        path.join(CPU_PROFILE_DIR, "windows.json"),
        `${JSON.stringify(windows, null, 2)}\n`,
      );
  }
}

await main();
