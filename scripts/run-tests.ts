/**
 * `npm test`'s runner: uses the PostgreSQL in DATABASE_URL when set, else
 * starts an embedded one for the duration of the run; each test file then
 * creates (and drops) its own database on that server, so files can run in
 * parallel without seeing each other's data.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../src/core/config.js";
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../src/db/embedded-postgres.js";

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
if (files.some((file) => file.includes("browser")) && !fs.existsSync(CHROMIUM) && process.getuid?.() === 0 && fs.existsSync("/usr/bin/apt-get")) {
  process.stdout.write("installing Debian's chromium for the browser tests (apt-get)\n");
  const apt = (args: string[]): number | null =>
    spawnSync("apt-get", args, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).status;
  if (apt(["update", "-qq"]) !== 0 || apt(["install", "-y", "-qq", "chromium"]) !== 0) {
    process.stdout.write("could not install chromium; the browser test will say what is missing\n");
  }
}

const config = parseConfig();
let embedded: EmbeddedDatabase | undefined;
const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "test", LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" };
if (config.database.kind === "embedded") {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-test-pg-"));
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  process.stdout.write(`DATABASE_URL is unset: starting an embedded PostgreSQL on 127.0.0.1:${port} for the tests\n`);
  embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "data"), port, database: "kubecompat_test", ephemeral: true });
  env.DATABASE_URL = embedded.url;
}

// Human-readable output on stdout, TAP to a file for the closing summary line.
const tapFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-tap-")), "results.tap");
const child = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    "--test-concurrency=2",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  { cwd: root, env, stdio: "inherit" },
);
let code: number = await new Promise((resolve) => {
  child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
});
await embedded?.stop();

const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, "utf8") : "";
const count = (name: string): number => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap)?.[1] ?? 0);
const passed = count("pass");
const failed = count("fail") + count("cancelled");
if (passed + failed === 0) {
  process.stdout.write("no test ran\n");
  code = code === 0 ? 1 : code;
}
process.stdout.write(`${passed} passed, ${failed} failed, ${count("skipped")} skipped\n`);
process.exit(code);
