/**
 * The other kind of outage: the database accepts connections and never
 * answers (a hung server, a dropped network path), so nothing fails fast
 * and every timeout has to do its job. The snapshot is the reviewed kb/,
 * held in memory (as if loaded from the database before it hung); the app's
 * own client then talks to a silent TCP server. /readyz gives up after its
 * 2 s ping timeout, and writes and token checks end in 503 UNAVAILABLE once
 * the pool or the transaction gives up, never in a 500 or a hang. The pool's
 * connect timeout is lowered from its 15 s to 1 s (createDatabase's
 * connectTimeoutMs): the same timeout doing its job, sooner.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createApp } from "../../src/app.js";
import { Authenticator } from "../../src/services/authenticator.js";
import type { Principal } from "../../src/core/tokens.js";
import { createDatabase, type Database } from "../../src/db/client.js";
import { pingDatabase } from "../../src/db/health.js";
import { Curator } from "../../src/services/curation.js";
import { createLogger } from "../../src/core/logger.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "../support/runtime.js";

const CRONJOB = "batch/v1beta1 CronJob";
// Hang detectors: the pool gives up after POOL_TIMEOUT_MS, a transaction after Prisma's wait on top of that.
const WITHIN_MS = 20_000;
const POOL_TIMEOUT_MS = 1_000;

/** Says it is whoever the test wants, without asking the database. */
class EditorAuthenticator extends Authenticator {
  override authenticate(): Promise<Principal> {
    return Promise.resolve({ name: "editor-bot", role: "editor" });
  }
}

describe("the database accepts connections and never answers", { concurrency: true }, () => {
  let runtime: SnapshotRuntime;
  let silent: net.Server;
  const sockets = new Set<net.Socket>();
  let hung: Database;
  let app: Express;
  let editorApp: Express;
  let item: Record<string, unknown>;

  before(async () => {
    runtime = await startSnapshotRuntime();
    silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const logger = createLogger("silent");
    hung = createDatabase(
      `postgresql://kubecompat:secret@127.0.0.1:${port}/kubecompat`,
      2,
      logger,
      { connectTimeoutMs: POOL_TIMEOUT_MS },
    );
    const deps = {
      kb: runtime.kb,
      logger,
      isDatabaseReachable: () => pingDatabase(hung),
      curator: new Curator(hung, runtime.kb),
    };
    app = await createApp({ ...deps, authenticator: new Authenticator(hung, logger) });
    editorApp = await createApp({ ...deps, authenticator: new EditorAuthenticator(hung, logger) });
    const list = await request(app).get("/api/v1/api-removals").expect(200);
    item = (list.body.items as Array<Record<string, unknown>>).find(
      (entry) => `${String(entry.apiVersion)} ${String(entry.kind)}` === CRONJOB,
    )!;
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    await hung?.$disconnect().catch(() => undefined);
    await runtime?.close();
  });

  it("/readyz answers 503 when its ping times out", async () => {
    const ready = await request(app).get("/readyz").timeout(WITHIN_MS);
    assert.equal(ready.status, 503);
    assert.equal(ready.body.database, "unreachable");
  });

  it("a token that cannot be checked gets 503 UNAVAILABLE once the pool gives up", async () => {
    const response = await request(app)
      .get("/api/v1/api-removals")
      .set("Authorization", `Bearer kc_${"Z".repeat(43)}`)
      .timeout(WITHIN_MS);
    assert.equal(response.status, 503, JSON.stringify(response.body));
    assert.equal(response.body.error.code, "UNAVAILABLE");
    assert.ok(response.headers["retry-after"]);
  });

  it("a write gets 503 UNAVAILABLE once its transaction gives up waiting for a connection", async () => {
    const response = await request(editorApp)
      .put(`/api/v1/api-removals/${encodeURIComponent(CRONJOB)}`)
      .send({ ...item, notes: "written to a hung database" })
      .timeout(WITHIN_MS);
    assert.equal(response.status, 503, JSON.stringify(response.body));
    assert.equal(response.body.error.code, "UNAVAILABLE");
    assert.ok(response.headers["retry-after"]);
  });
});
