/**
 * `npm test`'s runner: uses the PostgreSQL in DATABASE_URL when set, else
 * starts an embedded one for the duration of the run; each test file that
 * needs a database creates (and drops) its own on that server, so files can
 * run in parallel without seeing each other's data.
 *
 * Each test file runs in a process of its own (`node --import tsx <file>`,
 * node:test reporting spec to us and TAP to a file), at most
 * TEST_CONCURRENCY at a time (default: the number of cores, at least 2).
 * The slowest files start first, by the durations of the last run kept in
 * node_modules/.cache/kubecompat/test-times.json, else those in
 * test/support/test-times.json (files never timed go first of all, as they
 * may be slow too): the run then ends soon after its slowest
 * file does instead of waiting for one that started last. A file's output is
 * printed in one piece when it ends; the closing summary lists the slowest
 * files and their wall times, and TEST_TIMES=all lists every file.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import pg from "pg";
import { parseConfig } from "../src/core/config.js";
import {
  freePort,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from "../src/db/embedded-postgres.js";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const requested = process.argv.slice(2);
const files =
  requested.length > 0
    ? requested
    : fs
        .readdirSync(path.join(root, "test"), { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".test.ts"))
        .sort()
        .map((file) => path.join("test", file));

// The playground test drives Debian's Chromium; on a fresh machine (as root) install it once.
const CHROMIUM = "/usr/bin/chromium";
if (
  files.some((file) => file.includes("browser")) &&
  !fs.existsSync(CHROMIUM) &&
  process.getuid?.() === 0 &&
  fs.existsSync("/usr/bin/apt-get")
) {
  process.stdout.write("installing Debian's chromium for the browser tests (apt-get)\n");
  const apt = (args: string[]): number | null =>
    spawnSync("apt-get", args, {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    }).status;
  if (apt(["update", "-qq"]) !== 0 || apt(["install", "-y", "-qq", "chromium"]) !== 0) {
    process.stdout.write("could not install chromium; the browser test will say what is missing\n");
  }
}

const { TEST_CONCURRENCY, TEST_TIMES } = process.env;
const concurrency = Math.max(1, Number(TEST_CONCURRENCY) || Math.max(2, os.availableParallelism()));

// Durations of earlier runs (file → ms), to start the slowest files first: this machine's last run, over
// test/support/test-times.json (the wall times of one full run, for a fresh checkout).
const timesFile = path.join(root, "node_modules", ".cache", "kubecompat", "test-times.json");
const readTimes = (file: string): Record<string, number> => {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
};
const previous: Record<string, number> = {
  ...readTimes(path.join(root, "test", "support", "test-times.json")),
  ...readTimes(timesFile),
};
const queue = [...files].sort(
  (a, b) => (previous[b] ?? Infinity) - (previous[a] ?? Infinity) || a.localeCompare(b),
);

// The CLI tests run the real executable, bin/kubecompat.js, which runs the compiled dist/ when it is
// current and src/ through tsx's loader otherwise. Compiled, each of the CLI's hundreds of starts in the
// suite is about a second cheaper (about a third of those tests' time), so dist/ is brought up to date once here (incremental: half a second
// when nothing changed). The tests then run the code `npm start` and the image run; a build that fails
// (a type error) stops the run, as it would stop `npm start`.
{
  const build = spawnSync(process.execPath, [path.join(root, "scripts", "build.mjs")], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (build.status !== 0) {
    process.stdout.write("the build of dist/ failed (above): the tests would not run what ships\n");
    process.exit(1);
  }
}

const config = parseConfig();
let embedded: EmbeddedDatabase | undefined;
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: "test",
  LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
};
if (process.stdout.isTTY && env.NO_COLOR === undefined) env.FORCE_COLOR ??= "1";
if (config.database.kind === "embedded") {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-test-pg-"));
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  process.stdout.write(
    `DATABASE_URL is unset: starting an embedded PostgreSQL on 127.0.0.1:${port} for the tests\n`,
  );
  embedded = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, "data"),
    port,
    database: "kubecompat_test",
    ephemeral: true,
  });
  env.DATABASE_URL = embedded.url;
}

// Databases most files start from (migrated, kb/ imported) are built once and copied: test/support/database.ts.
const templates =
  files.length > 1 ? `kc_tpl_${process.pid}_${crypto.randomBytes(3).toString("hex")}` : undefined;
if (templates !== undefined) env.KUBECOMPAT_TEST_TEMPLATES = templates;

async function dropTemplates(prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [`${prefix}_`],
    );
    for (const { datname } of rows)
      await client.query(
        `DROP DATABASE IF EXISTS ${client.escapeIdentifier(datname)} WITH (FORCE)`,
      );
  } finally {
    await client.end();
  }
}

interface Result {
  readonly file: string;
  readonly ms: number;
  readonly code: number;
  readonly pass: number;
  readonly fail: number;
  readonly skipped: number;
}

const tapDir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-tap-"));
const running = new Set<ChildProcess>();
let interrupted = false;

/** Runs one test file in a process of its own; its output is printed in one piece when it ends. */
function runFile(file: string, index: number): Promise<Result> {
  const tapFile = path.join(tapDir, `${index}.tap`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      "--test-reporter=tap",
      `--test-reporter-destination=${tapFile}`,
      file,
    ],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  running.add(child);
  const output: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    child.on("close", (exitCode, signal) => {
      running.delete(child);
      const ms = performance.now() - started;
      const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, "utf8") : "";
      const count = (name: string): number =>
        Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap)?.[1] ?? 0);
      const code = exitCode ?? (signal ? 1 : 0);
      // A file that fails before any test reports (a syntax error, a crash) is one failure.
      const fail = count("fail") + count("cancelled") || (code !== 0 ? 1 : 0);
      process.stdout.write(
        `\n── ${file} (${seconds(ms)})${code !== 0 ? `, exit ${signal ?? code}` : ""}\n`,
      );
      process.stdout.write(Buffer.concat(output));
      resolve({ file, ms, code, pass: count("pass"), fail, skipped: count("skipped") });
    });
  });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function stopAll(signal: NodeJS.Signals): void {
  interrupted = true;
  queue.length = 0;
  for (const child of running) child.kill(signal);
}
process.once("SIGINT", () => stopAll("SIGINT"));
process.once("SIGTERM", () => stopAll("SIGTERM"));

const runStarted = performance.now();
const results: Result[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift())
      results.push(await runFile(file, next++));
  }),
);
const wall = performance.now() - runStarted;
if (templates !== undefined && embedded === undefined) {
  await dropTemplates(templates).catch((error: unknown) =>
    process.stdout.write(`could not drop the test templates ${templates}_*: ${String(error)}\n`),
  );
}
await embedded?.stop();
fs.rmSync(tapDir, { recursive: true, force: true });

if (!interrupted) {
  try {
    fs.mkdirSync(path.dirname(timesFile), { recursive: true });
    fs.writeFileSync(
      timesFile,
      `${JSON.stringify({ ...previous, ...Object.fromEntries(results.map((result) => [result.file, Math.round(result.ms)])) }, null, 1)}\n`,
    );
  } catch {
    // Only the order of the next run depends on it.
  }
}

const byTime = [...results].sort((a, b) => b.ms - a.ms);
const shown = TEST_TIMES === "all" ? byTime : byTime.slice(0, 12);
if (results.length > 1) {
  const width = Math.max(...shown.map((result) => result.file.length));
  process.stdout.write(
    `\n${TEST_TIMES === "all" ? "every file" : `the ${shown.length} slowest of ${results.length} files (TEST_TIMES=all lists every one)`}, wall time:\n`,
  );
  for (const result of shown) {
    process.stdout.write(
      `  ${result.file.padEnd(width)}  ${seconds(result.ms).padStart(7)}  ${result.pass + result.fail} tests${result.code !== 0 ? "  FAILED" : ""}\n`,
    );
  }
  const total = results.reduce((sum, result) => sum + result.ms, 0);
  process.stdout.write(
    `  files one after another: ${seconds(total)}; this run, ${concurrency} at a time: ${seconds(wall)}\n`,
  );
}

const passed = results.reduce((sum, result) => sum + result.pass, 0);
const failed = results.reduce((sum, result) => sum + result.fail, 0);
const skipped = results.reduce((sum, result) => sum + result.skipped, 0);
let code = interrupted ? 130 : results.some((result) => result.code !== 0) ? 1 : 0;
if (passed + failed === 0) {
  process.stdout.write("no test ran\n");
  code = code === 0 ? 1 : code;
}
const failedFiles = results.filter((result) => result.code !== 0).map((result) => result.file);
if (failedFiles.length > 0) process.stdout.write(`failed: ${failedFiles.join(", ")}\n`);
process.stdout.write(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(code);
