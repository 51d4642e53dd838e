/**
 * A first `npm start` where the embedded PostgreSQL's default port is taken:
 * when the operator did not choose the port, a free one is taken and the
 * log says which; the command-line tools still find the running server (by
 * its postmaster.pid). A port the operator chose stays an error that says
 * what to do. Real embedded servers on real ports.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  connectToRunningEmbedded,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from "../src/db/embedded-postgres.js";
import { parseConfig } from "../src/core/config.js";

async function occupy(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("the embedded PostgreSQL's port", () => {
  const roots: string[] = [];
  const running: EmbeddedDatabase[] = [];
  after(async () => {
    for (const server of running) await server.stop().catch(() => undefined);
    for (const root of roots) await fs.rm(root, { recursive: true, force: true });
  });

  async function dataDir(): Promise<string> {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-pg-port-"));
    roots.push(root);
    await fs.chmod(root, 0o755);
    return path.join(root, "data");
  }

  it("takes a free port when the default one is busy and the operator chose none, says which, and the tools find it", async () => {
    const taken = await occupy();
    try {
      const directory = await dataDir();
      const logged: string[] = [];
      const server = await startEmbeddedPostgres({
        dataDir: directory,
        port: taken.port,
        database: "kubecompat_port",
        anotherPortIfBusy: true,
        log: (line) => logged.push(line),
      });
      running.push(server);
      const used = Number(new URL(server.url).port);
      assert.notEqual(used, taken.port);
      assert.ok(
        logged.some((line) =>
          line.includes(
            `port ${taken.port} on 127.0.0.1 is already in use; the embedded PostgreSQL uses port ${used} instead (set EMBEDDED_PG_PORT to choose one)`,
          ),
        ),
        logged.join("\n"),
      );
      const found = await connectToRunningEmbedded({
        dataDir: directory,
        port: taken.port,
        database: "kubecompat_port",
      });
      assert.equal(
        found === undefined ? undefined : Number(new URL(found.url).port),
        used,
        "the tools find the server on the port it took",
      );
    } finally {
      await taken.close();
    }
  });

  it("keeps a port the operator chose: busy, it is an error that says what to do", async () => {
    const taken = await occupy();
    try {
      await assert.rejects(
        startEmbeddedPostgres({
          dataDir: await dataDir(),
          port: taken.port,
          database: "kubecompat_port",
        }),
        new RegExp(
          `port ${taken.port} on 127\\.0\\.0\\.1 is already in use.*set EMBEDDED_PG_PORT to a free port \\(or leave it unset and a free one is taken\\)`,
        ),
      );
    } finally {
      await taken.close();
    }
    const chosen = parseConfig({ EMBEDDED_PG_PORT: "55432" }).database;
    const unset = parseConfig({}).database;
    assert.ok(chosen.kind === "embedded" && chosen.portGiven && chosen.port === 55432);
    assert.ok(unset.kind === "embedded" && !unset.portGiven && unset.port === 54329);
  });
});
