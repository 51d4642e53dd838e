/**
 * `npm start` as people run it, in a checkout of its own (a temporary
 * directory holding a copy of the repository's package.json, tsconfigs,
 * scripts/, src/, kb/, prisma/ ..., its node_modules/ linked, so its .env,
 * .data/ and dist/ are the test's): with no DATABASE_URL, on the embedded
 * PostgreSQL.
 *
 * - On a fresh checkout (no dist/), npm start compiles src/ to dist/ first,
 *   then runs the compiled server: the process npm runs is `node
 *   dist/server.js`, no tsx loader in its arguments or NODE_OPTIONS. Later
 *   starts with nothing changed do not compile again.
 * - .env is read at start; a variable already in the environment wins; a
 *   malformed .env stops the start naming its line. The start-up line
 *   prints the addresses of the front page, the playground and the docs.
 * - SIGTERM or SIGINT sent to the npm process itself (not to the server it
 *   runs) stops the server and the embedded PostgreSQL and frees both ports;
 *   npm waits for that and exits 0.
 * - npm killed outright (SIGKILL, no chance to relay anything) still leaves
 *   nothing behind: the server notices and stops itself.
 *
 * The runs share one embedded data directory, so only the first pays for
 * initdb and the import of kb/; the .env run also ends with the SIGTERM
 * checks, so SIGTERM costs no start of its own.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { freePort } from "../src/db/embedded-postgres.js";
import { eventually } from "./support/eventually.js";
import { REPO_ROOT } from "./support/runtime.js";
import {
  probe,
  spawnNpmStart,
  waitUntilReady,
  type Exit,
  type ServerProcess,
} from "./support/server-process.js";

// Hang detectors, not timing requirements: initdb, migrations and the import of kb/ on 2 busy cores.
const READY_WITHIN_MS = 120_000;
const STOPPED_WITHIN_MS = 30_000;
const CONFIG_EXIT_WITHIN_MS = 30_000;

/**
 * What a checkout holds that `npm start` reads, copied (the build writes dist/ beside them, and
 * scripts/build.mjs finds the checkout from its own path); node_modules/ is linked. Everything else
 * (.env, .data/, dist/) is the test's own.
 */
const CHECKOUT_COPIES = [
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts",
  "src",
  "kb",
  "prisma",
  "schema.graphql",
];

/** The arguments and environment of a running process (Linux's /proc). */
function processOf(pid: number): { argv: string[]; env: Map<string, string>; cwd: string } {
  const split = (file: string): string[] =>
    fs
      .readFileSync(`/proc/${pid}/${file}`, "utf8")
      .split("\0")
      .filter((entry) => entry !== "");
  const env = new Map(
    split("environ").map(
      (entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)] as const,
    ),
  );
  return { argv: split("cmdline"), env, cwd: fs.realpathSync(`/proc/${pid}/cwd`) };
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function exitWithin(run: ServerProcess, ms: number): Promise<Exit> {
  const hang = new Promise<"hang">((resolve) => setTimeout(() => resolve("hang"), ms).unref());
  const exit = await Promise.race([run.exited, hang]);
  if (exit === "hang")
    assert.fail(
      `npm start still ran ${ms} ms later:\n${run.stderr()}\n${run.stdout().slice(-3000)}`,
    );
  return exit;
}

/** The pid the server logs when it listens (npm's child, not npm). */
function serverPid(run: ServerProcess): number {
  const line = run
    .logs()
    .find((entry) => typeof entry.msg === "string" && entry.msg.startsWith("kubecompat listening"));
  assert.ok(
    line !== undefined && typeof line.pid === "number",
    `no "kubecompat listening" line with a pid:\n${run.stdout().slice(-3000)}`,
  );
  return line.pid;
}

describe("npm start", () => {
  let checkout: string;
  let pgPort: number;
  const runs: ServerProcess[] = [];
  const serverPids: number[] = [];

  before(async () => {
    checkout = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-checkout-"));
    // As root, the embedded PostgreSQL runs as the "postgres" OS user, which must reach .data/.
    fs.chmodSync(checkout, 0o755);
    for (const entry of CHECKOUT_COPIES)
      fs.cpSync(path.join(REPO_ROOT, entry), path.join(checkout, entry), {
        recursive: true,
        preserveTimestamps: true,
      });
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(checkout, "node_modules"));
    pgPort = await freePort();
  });

  after(async () => {
    // Only what this file started, should a test have failed half-way: servers, npm, and the
    // embedded PostgreSQL (detached, so a killed server leaves it running), found by its pid file.
    for (const pid of serverPids) if (alive(pid)) process.kill(pid, "SIGKILL");
    for (const run of runs) await run.kill();
    const postmaster = path.join(checkout, ".data/postgres/postmaster.pid");
    const pgPid = fs.existsSync(postmaster)
      ? Number(fs.readFileSync(postmaster, "utf8").split("\n")[0])
      : NaN;
    if (Number.isInteger(pgPid) && alive(pgPid)) {
      process.kill(pgPid, "SIGINT");
      await eventually(
        "the leftover embedded PostgreSQL to stop",
        () => (alive(pgPid) ? undefined : true),
        { withinMs: STOPPED_WITHIN_MS },
      ).catch(() => process.kill(pgPid, "SIGKILL"));
    }
    fs.rmSync(checkout, { recursive: true, force: true });
  });

  /** Starts `npm start` in the checkout with .env holding `dotenv`, and waits for /readyz on `port`. */
  async function start(
    port: number,
    dotenv: string,
    env: Record<string, string> = {},
  ): Promise<{ run: ServerProcess; pid: number }> {
    fs.writeFileSync(path.join(checkout, ".env"), dotenv);
    const run = spawnNpmStart({ LOG_LEVEL: "info", ...env }, checkout);
    runs.push(run);
    await waitUntilReady(run, port, READY_WITHIN_MS);
    const pid = serverPid(run);
    serverPids.push(pid);
    assert.notEqual(
      pid,
      run.pid,
      "the server is npm's child, so the signals below go to npm, not to the server",
    );
    // The compiled server, exec'd by the start script: node and its script, no loader.
    const server = processOf(pid);
    assert.deepEqual(
      server.argv.slice(1),
      ["dist/server.js"],
      `npm start runs the compiled server: ${server.argv.join(" ")}`,
    );
    assert.match(path.basename(server.argv[0]!), /^node/);
    assert.equal(server.cwd, fs.realpathSync(checkout), "the checkout's own dist/");
    assert.doesNotMatch(
      server.env.get("NODE_OPTIONS") ?? "",
      /tsx|--import|--loader|--require/,
      "no loader through NODE_OPTIONS",
    );
    assert.equal(await connects(pgPort), true, "the embedded PostgreSQL listens");
    return { run, pid };
  }

  /** Waits for the server and the embedded PostgreSQL to be gone and both ports free. */
  async function assertAllStopped(run: ServerProcess, pid: number, port: number): Promise<void> {
    await eventually("the server process to end", () => (alive(pid) ? undefined : true), {
      withinMs: STOPPED_WITHIN_MS,
      everyMs: 100,
    });
    await eventually(
      "the embedded PostgreSQL to free its port",
      async () => ((await connects(pgPort)) ? undefined : true),
      { withinMs: STOPPED_WITHIN_MS, everyMs: 100 },
    );
    assert.equal(await connects(port), false, `port ${port} is free`);
    assert.ok(
      run.logs().some((entry) => entry.msg === "stopped"),
      `the server stopped cleanly (drained, closed the pool and PostgreSQL):\n${run.stdout().slice(-3000)}`,
    );
  }

  const dotenvFor = (port: number, extra = ""): string =>
    [
      "# written by test/npm-start.test.ts",
      `PORT=${port}`,
      `export EMBEDDED_PG_PORT=${pgPort}`,
      `EMBEDDED_PG_DIR='.data/postgres'`,
      "KB_POLL_MS=5000  # a comment after a value",
      extra,
    ].join("\n");

  /** When dist/server.js was written by the first start's build. */
  let builtAt: number | undefined;

  /** Asserts that this start compiled nothing: dist/ is as the first start built it. */
  function assertNotRebuilt(): void {
    assert.ok(builtAt !== undefined, "the first start built dist/");
    assert.equal(
      fs.statSync(path.join(checkout, "dist/server.js")).mtimeMs,
      builtAt,
      "nothing changed in src/, so npm start did not compile again",
    );
  }

  // One start serves the build on a fresh checkout, the .env checks and SIGTERM (each start of npm start costs seconds); SIGINT gets its own below.
  it("on a fresh checkout builds dist/ first and runs it; reads .env at start, and a variable in the environment wins over it; then SIGTERM to the npm process stops the server and the embedded PostgreSQL, frees both ports, and npm exits 0", async () => {
    assert.equal(
      fs.existsSync(path.join(checkout, "dist")),
      false,
      "a fresh checkout has no dist/",
    );
    const fromDotenv = await freePort();
    const fromEnvironment = await freePort();
    const token = "chatops-token-from-dotenv-0123456789";
    const { run, pid } = await start(
      fromEnvironment,
      dotenvFor(fromDotenv, `CHATOPS_TOKEN="${token}"`),
      { PORT: String(fromEnvironment) },
    );
    try {
      for (const built of ["server.js", "db/generated/client.js", "ops/token.js", ".build-stamp"])
        assert.ok(
          fs.existsSync(path.join(checkout, "dist", built)),
          `npm start built dist/${built}`,
        );
      builtAt = fs.statSync(path.join(checkout, "dist/server.js")).mtimeMs;
      assert.equal(
        await probe(fromDotenv, "/healthz"),
        undefined,
        "the PORT in .env lost to the environment's",
      );
      const answer = await fetch(`http://127.0.0.1:${fromEnvironment}/chatops/command`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ text: "help" }),
      });
      assert.equal(
        answer.status,
        200,
        "CHATOPS_TOKEN came from .env (without it the endpoint answers 503)",
      );
      assert.ok(
        fs.existsSync(path.join(checkout, ".data")),
        "EMBEDDED_PG_DIR from .env, relative to the checkout",
      );

      // The start-up line says where to go, and the addresses it prints answer.
      const listening = run
        .logs()
        .find(
          (entry) => typeof entry.msg === "string" && entry.msg.startsWith("kubecompat listening"),
        )!;
      assert.equal(listening.playground, `http://localhost:${fromEnvironment}/graphql`);
      assert.equal(listening.docs, `http://localhost:${fromEnvironment}/docs`);
      assert.ok(
        String(listening.msg).includes(String(listening.playground)) &&
          String(listening.msg).includes(String(listening.docs)),
        String(listening.msg),
      );
      for (const url of [listening.url, listening.playground, listening.docs]) {
        const page = await fetch(String(url), { headers: { Accept: "text/html" } });
        assert.equal(page.status, 200, `${String(url)} answers`);
        assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
      }
    } finally {
      process.kill(run.pid, "SIGTERM");
      const exit = await exitWithin(run, STOPPED_WITHIN_MS);
      assert.deepEqual(
        { code: exit.code, signal: exit.signal },
        { code: 0, signal: null },
        `npm start ended once the server had stopped:\n${run.stderr()}`,
      );
      // npm waited for the server: by the time it exits, nothing is left.
      assert.equal(alive(pid), false, "the server ended before npm did");
      await assertAllStopped(run, pid, fromEnvironment);
      assert.ok(
        run
          .logs()
          .some(
            (entry) =>
              entry.msg === "shutting down: draining requests" && entry.signal === "SIGTERM",
          ),
      );
    }
  });

  for (const signal of ["SIGINT"] as const) {
    it(`${signal} to the npm process stops the server and the embedded PostgreSQL, frees both ports, and npm exits 0`, async () => {
      const port = await freePort();
      const { run, pid } = await start(port, dotenvFor(port));
      assertNotRebuilt();
      process.kill(run.pid, signal);
      const exit = await exitWithin(run, STOPPED_WITHIN_MS);
      assert.deepEqual(
        { code: exit.code, signal: exit.signal },
        { code: 0, signal: null },
        `npm start ended once the server had stopped:\n${run.stderr()}`,
      );
      // npm waited for the server: by the time it exits, nothing is left.
      assert.equal(alive(pid), false, "the server ended before npm did");
      await assertAllStopped(run, pid, port);
      assert.ok(
        run
          .logs()
          .some(
            (entry) => entry.msg === "shutting down: draining requests" && entry.signal === signal,
          ),
      );
    });
  }

  it("npm killed with SIGKILL: the server notices its launcher is gone and stops, embedded PostgreSQL too", async () => {
    const port = await freePort();
    const { run, pid } = await start(port, dotenvFor(port));
    process.kill(run.pid, "SIGKILL");
    await assertAllStopped(run, pid, port);
    assert.ok(
      run
        .logs()
        .some(
          (entry) =>
            entry.msg === "shutting down: draining requests" && entry.signal === "launcher exited",
        ),
    );
  });

  it("a malformed .env stops the start with exit 2, naming the line and not echoing it", async () => {
    fs.writeFileSync(
      path.join(checkout, ".env"),
      `PORT=4000\nSLACK_SIGNING_SECRET is-not-an-assignment-0123456789\nLOG_LEVEL="info\n`,
    );
    const run = spawnNpmStart({}, checkout);
    runs.push(run);
    const exit = await exitWithin(run, CONFIG_EXIT_WITHIN_MS);
    assert.equal(exit.code, 2, "npm passes on the server's exit code");
    assert.match(run.stderr(), /\.env line 2: expected NAME=value/);
    assert.match(
      run.stderr(),
      /\.env line 3: LOG_LEVEL's value opens a double quote that is not closed/,
    );
    assert.doesNotMatch(
      run.stderr(),
      /is-not-an-assignment/,
      "a line that may hold a secret is not repeated",
    );
  });
});
