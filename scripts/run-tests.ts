/**
 * `npm test`'s runner: uses the PostgreSQL in DATABASE_URL when set, else
 * starts an embedded one for the duration of the run; each test file then
 * creates (and drops) its own database on that server, so files can run in
 * parallel without seeing each other's data.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../src/config.js";
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
