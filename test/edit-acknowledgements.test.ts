/**
 * Acknowledgements tell the truth. Against a real PostgreSQL behind a TCP
 * proxy that cuts the connection around a real COMMIT (test/support/pg-proxy.ts):
 * - an edit whose COMMIT went through but whose answer was lost is a 503 that
 *   says the outcome is unknown, and a retry with the same Idempotency-Key
 *   gets the first result (not a 409, not a second record);
 * - an edit whose COMMIT never arrived is a 503 too, and its retry applies it;
 * - an edit that committed is answered 201 even when this instance cannot
 *   load the new snapshot right after (the database went away): the sync
 *   loads it once the database answers again;
 * - the Idempotency-Key on REST and GraphQL: a retry is answered from the
 *   database without applying twice; the same key for another edit is a 409.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createApp } from "../src/app.js";
import { Authenticator } from "../src/services/authenticator.js";
import { createDatabase, type Database } from "../src/db/client.js";
import { pingDatabase } from "../src/db/health.js";
import { migrate } from "../src/db/migrator.js";
import { applyEdit } from "../src/services/edits.js";
import { Curator } from "../src/services/curation.js";
import { crossCheckBundle } from "../src/knowledge/validate.js";
import { importKbDirectory } from "../src/services/import.js";
import { KnowledgeBase } from "../src/services/knowledge-base.js";
import { KbSync } from "../src/services/sync.js";
import { createLogger } from "../src/core/logger.js";
import { createTestDatabase, query, type TestDatabase } from "./support/database.js";
import { eventually } from "./support/eventually.js";
import { startPgProxy, type PgProxy } from "./support/pg-proxy.js";
import { KB_DIR, createTestToken } from "./support/runtime.js";
import { recommendation } from "./support/records.js";

const record = recommendation;

describe("edits answered truthfully around database faults", () => {
  let database: TestDatabase;
  let proxy: PgProxy;
  let db: Database;
  let kb: KnowledgeBase;
  let sync: KbSync;
  let app: Express;
  let editor: string;

  before(async () => {
    database = await createTestDatabase();
    await migrate(database.url);
    proxy = await startPgProxy(database.url);
    const logger = createLogger("silent");
    db = createDatabase(proxy.url, 4, logger);
    await importKbDirectory(db, KB_DIR);
    kb = new KnowledgeBase(db);
    await kb.refresh();
    sync = new KbSync(kb, proxy.url, logger, { pollMs: 200, outagePollMs: 100 });
    await sync.start();
    app = await createApp({
      kb,
      logger,
      isDatabaseReachable: () => pingDatabase(db),
      curator: new Curator(db, kb),
      authenticator: new Authenticator(db, logger),
      freshness: sync,
    });
    editor = await createTestToken({ db }, "ack-editor", "editor");
  });
  after(async () => {
    await sync?.stop();
    await db?.$disconnect();
    await proxy?.close();
    await database?.drop();
  });

  const create = (body: object, key?: string) => {
    const call = request(app)
      .post("/api/v1/recommendations")
      .set("Authorization", `Bearer ${editor}`);
    return (key === undefined ? call : call.set("Idempotency-Key", key)).send(body);
  };
  // The proxy faults the next COMMIT it sees; snapshot loads run in transactions too, so let them finish first.
  const settle = async (): Promise<void> => {
    await eventually(
      "the snapshot caught up with the database",
      async () =>
        (await query<{ revision: number }>(database.url, `SELECT revision FROM "KbState"`))[0]
          ?.revision === kb.current().revision
          ? true
          : undefined,
      { withinMs: 10_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  };
  const stored = (id: string) =>
    query<{ text: string }>(
      database.url,
      `SELECT text FROM "Recommendation" WHERE "recommendationId" = $1`,
      [id],
    );
  const audited = (id: string) =>
    query(
      database.url,
      `SELECT id FROM "AuditEntry" WHERE action = 'recommendations.create' AND key = $1`,
      [id],
    );

  it("answers a retry with the same Idempotency-Key from the first result, without applying twice", async () => {
    const first = await create(record("idem-1"), "key-1").expect(201);
    assert.equal(first.headers["idempotent-replayed"], undefined);
    const again = await create(record("idem-1"), "key-1").expect(201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.body, first.body);
    assert.equal((await stored("idem-1")).length, 1);
    assert.equal((await audited("idem-1")).length, 1);
    // Without the key, the same create is a conflict: the record exists.
    await create(record("idem-1")).expect(409);
    // The same key for another edit is refused.
    const reused = await create(record("idem-2"), "key-1").expect(409);
    assert.match(
      reused.body.error.message,
      /Idempotency-Key "key-1" was used for a different edit/,
    );
    assert.equal((await stored("idem-2")).length, 0);
    // A key that is not a plain token is bad input.
    const bad = await create(record("idem-3"), "has spaces in it").expect(400);
    assert.equal(bad.body.error.details[0].field, "idempotencyKey");
  });

  it("takes the key as a GraphQL argument too", async () => {
    const mutation = `mutation($record: JSONObject!, $key: String) { createRecord(entity: RECOMMENDATIONS, record: $record, idempotencyKey: $key) { key kbRevision replayed } }`;
    const send = () =>
      request(app)
        .post("/graphql")
        .set("Authorization", `Bearer ${editor}`)
        .send({ query: mutation, variables: { record: record("idem-gql"), key: "gql-key-1" } });
    const first = await send().expect(200);
    assert.equal(first.body.data.createRecord.replayed, false);
    const again = await send().expect(200);
    assert.equal(again.body.data.createRecord.replayed, true);
    assert.equal(again.body.data.createRecord.kbRevision, first.body.data.createRecord.kbRevision);
    assert.equal((await audited("idem-gql")).length, 1);
  });

  it("says the outcome is unknown when the answer to COMMIT is lost, and the keyed retry gets the committed result", async () => {
    await settle();
    proxy.failNextCommit("drop-after-commit");
    const lost = await create(record("lost-answer"), "key-lost");
    assert.equal(lost.status, 503, JSON.stringify(lost.body));
    assert.equal(lost.body.error.code, "UNAVAILABLE");
    assert.match(lost.body.error.message, /may or may not have been applied.*same Idempotency-Key/);
    assert.match(String(lost.headers["retry-after"]), /^\d+$/);
    // It did commit: the record and its audit entry are there, together.
    assert.equal((await stored("lost-answer")).length, 1);
    assert.equal((await audited("lost-answer")).length, 1);
    const retry = await create(record("lost-answer"), "key-lost").expect(201);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    assert.equal((await audited("lost-answer")).length, 1);

    await settle();
    proxy.failNextCommit("drop-after-commit");
    const unkeyed = await create(record("lost-unkeyed"));
    assert.equal(unkeyed.status, 503);
    assert.match(
      unkeyed.body.error.message,
      /read the record again before retrying.*send an Idempotency-Key/,
    );
  });

  it("refuses with 503 when the COMMIT never arrived, and the retry applies the edit once", async () => {
    await settle();
    proxy.failNextCommit("drop-before-commit");
    const cut = await create(record("never-committed"), "key-never");
    assert.equal(cut.status, 503, JSON.stringify(cut.body));
    assert.equal((await stored("never-committed")).length, 0);
    assert.equal((await audited("never-committed")).length, 0);
    const retry = await create(record("never-committed"), "key-never").expect(201);
    assert.equal(retry.headers["idempotent-replayed"], undefined);
    assert.equal((await audited("never-committed")).length, 1);
  });

  it("publishes a committed edit from memory when the database goes away right after the COMMIT", async () => {
    await settle();
    proxy.failNextCommit("down-after-commit");
    const created = await create(record("committed-then-outage"), "key-outage");
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await stored("committed-then-outage")).length, 1);
    // The snapshot was the revision right before the edit, so the edit was applied to it without reading the database.
    assert.equal(kb.current().revision, created.body.kbRevision);
    assert.ok(
      kb.current().recommendations.some((candidate) => candidate.id === "committed-then-outage"),
    );
    proxy.up();
  });

  it("answers a committed edit 201 although the snapshot could not be reloaded after it, and loads it when the database is back", async () => {
    await settle();
    await sync.stop();
    // Another instance's edit this one has not seen: its snapshot is behind, so after its own edit it must reload.
    const other = createDatabase(database.url, 1, createLogger("silent"));
    try {
      await applyEdit(
        other,
        {
          entity: "recommendations",
          action: "create",
          record: record("from-another-instance"),
          actor: { name: "other", role: "editor" },
        },
        crossCheckBundle,
      );
    } finally {
      await other.$disconnect();
    }
    proxy.failNextCommit("down-after-commit");
    const created = await create(record("committed-then-reload-fails"), "key-reload");
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await stored("committed-then-reload-fails")).length, 1);
    assert.equal(
      kb
        .current()
        .recommendations.some((candidate) => candidate.id === "committed-then-reload-fails"),
      false,
      "the snapshot could not have been loaded",
    );
    proxy.up();
    await sync.start();
    await eventually(
      "the sync loaded the committed edit",
      () =>
        Promise.resolve(
          kb
            .current()
            .recommendations.some((candidate) => candidate.id === "committed-then-reload-fails")
            ? true
            : undefined,
        ),
      { withinMs: 10_000 },
    );
    assert.ok(
      kb.current().recommendations.some((candidate) => candidate.id === "from-another-instance"),
    );
  });
});
