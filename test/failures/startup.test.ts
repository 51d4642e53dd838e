/**
 * Start-up fails fast and says why. A bad configuration exits 2 listing
 * every problem at once, before anything touches a database. A database
 * that refuses connections, or accepts them and never answers, ends the
 * start with a non-zero exit and a message naming where it was looked for
 * (never the password) instead of a hang.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { freePort } from "../../src/db/embedded-postgres.js";
import { CONNECT_TIMEOUT_MS } from "../../src/db/migrator.js";
import { spawnServer, type Exit, type ServerProcess } from "../support/server-process.js";

// Hang detectors, not timing requirements.
const CONFIG_EXIT_WITHIN_MS = 30_000;
const CONNECT_EXIT_WITHIN_MS = CONNECT_TIMEOUT_MS + 30_000;

async function exitWithin(server: ServerProcess, ms: number): Promise<Exit> {
  const hang = new Promise<"hang">((resolve) => setTimeout(() => resolve("hang"), ms).unref());
  const exit = await Promise.race([server.exited, hang]);
  if (exit === "hang") {
    await server.kill();
    assert.fail(
      `the server still ran ${ms} ms after it started:\nstderr: ${server.stderr()}\nstdout: ${server.stdout().slice(-3000)}`,
    );
  }
  return exit;
}

/** A TCP server that counts connections; with `silent`, it holds them open and never says a word. */
async function listen(
  silent: boolean,
): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    if (!silent) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    port: address.port,
    connections: () => count,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("start-up failures", { concurrency: true }, () => {
  let scratch: string;
  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-startup-"));
  });
  after(() => {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("a bad configuration exits 2 listing every problem, without touching a database", async (t) => {
    // Where an embedded PostgreSQL would go, watched: nothing may connect there or create its data.
    const trap = await listen(false);
    const dataDir = path.join(scratch, "pg");
    const started = Date.now();
    try {
      const server = spawnServer({
        PORT: "99999",
        DATABASE_URL: "mysql://x",
        LOG_LEVEL: "loud",
        KB_POLL_MS: "5",
        SHUTDOWN_TIMEOUT_MS: "soon",
        KB_REFRESH_INTERVAL: "daily",
        EMBEDDED_PG_DIR: dataDir,
        EMBEDDED_PG_PORT: String(trap.port),
      });
      const exit = await exitWithin(server, CONFIG_EXIT_WITHIN_MS);
      t.diagnostic(`exit ${exit.code} after ${exit.at - started} ms`);
      const stderr = server.stderr();
      assert.equal(exit.code, 2, `exit code ${exit.code}; stderr:\n${stderr}`);
      assert.match(stderr, /invalid configuration/);
      for (const [variable, says] of [
        ["PORT", /between 1 and 65535/],
        ["DATABASE_URL", /postgresql:\/\//],
        ["LOG_LEVEL", /fatal|info|debug/],
        ["KB_POLL_MS", /200/],
        ["SHUTDOWN_TIMEOUT_MS", /number/i],
        ["KB_REFRESH_INTERVAL", /"off" or a duration between 5m and 90d such as 30m, 24h or 7d/],
      ] as const) {
        const line = stderr.split("\n").find((text) => text.includes(`- ${variable}:`));
        assert.ok(line, `stderr does not name ${variable}:\n${stderr}`);
        assert.match(line, says, `the problem with ${variable} is not explained: ${line}`);
      }
      assert.equal(trap.connections(), 0, "something connected to the embedded PostgreSQL port");
      assert.equal(
        fs.existsSync(dataDir),
        false,
        "the embedded PostgreSQL data directory was created",
      );
      assert.equal(server.stdout(), "", "nothing is logged before the configuration is valid");
    } finally {
      await trap.close();
    }
  });

  it("a database that refuses connections ends the start with a clear message", async (t) => {
    const port = await freePort();
    const started = Date.now();
    const server = spawnServer({
      PORT: String(await freePort()),
      DATABASE_URL: `postgresql://kubecompat:s3cret-password@127.0.0.1:${port}/kubecompat`,
      LOG_LEVEL: "info",
    });
    const exit = await exitWithin(server, CONNECT_EXIT_WITHIN_MS);
    t.diagnostic(`exit ${exit.code} after ${exit.at - started} ms`);
    assert.equal(exit.code, 1, `exit code ${exit.code}; stderr:\n${server.stderr()}`);
    assert.match(
      server.stderr(),
      new RegExp(
        `start-up failed: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${port}/kubecompat \\(.*ECONNREFUSED.*\\); check DATABASE_URL`,
      ),
    );
    assert.doesNotMatch(
      server.stderr() + server.stdout(),
      /s3cret-password/,
      "the password leaked into the output",
    );
  });

  it("a database that accepts connections and never answers ends the start instead of hanging", async (t) => {
    const silent = await listen(true);
    const started = Date.now();
    try {
      const server = spawnServer({
        PORT: String(await freePort()),
        // libpq's connect_timeout, which the start-up honours: 2 s instead of the default 10 s, the same timeout doing its job.
        DATABASE_URL: `postgresql://kubecompat:s3cret-password@127.0.0.1:${silent.port}/kubecompat?connect_timeout=2`,
        LOG_LEVEL: "info",
      });
      const exit = await exitWithin(server, CONNECT_EXIT_WITHIN_MS);
      t.diagnostic(`exit ${exit.code} after ${exit.at - started} ms`);
      assert.ok(silent.connections() > 0, "the server never tried the database");
      assert.equal(exit.code, 1, `exit code ${exit.code}; stderr:\n${server.stderr()}`);
      assert.match(
        server.stderr(),
        new RegExp(
          `cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${silent.port}/kubecompat \\(no answer within 2 s\\)`,
        ),
      );
      assert.doesNotMatch(
        server.stderr() + server.stdout(),
        /s3cret-password/,
        "the password leaked into the output",
      );
    } finally {
      await silent.close();
    }
  });
});
