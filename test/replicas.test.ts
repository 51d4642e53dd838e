/**
 * Two instances against one database stay coherent: an edit through one is
 * announced with NOTIFY on commit and the other serves the new revision
 * within a second; a change that slipped past the notifications is picked up
 * by the periodic revision check.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { startInstance, type Instance } from "./support/instance.js";
import { createDatabase } from "../src/db/client.js";
import { migrate } from "../src/db/migrator.js";
import { importKbDirectory } from "../src/services/import.js";
import { createLogger } from "../src/core/logger.js";
import { createTestDatabase, query, type TestDatabase } from "./support/database.js";
import { KB_DIR, createTestToken } from "./support/runtime.js";

async function revisionWithin(app: Express, expected: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let seen = -1;
  while (Date.now() < deadline) {
    seen = (await request(app).get("/api/v1/kb").expect(200)).body.revision as number;
    if (seen === expected) return seen;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return seen;
}

describe("replicas", () => {
  let database: TestDatabase;
  let first: Instance;
  let second: Instance;

  before(async () => {
    database = await createTestDatabase();
    await migrate(database.url);
    const seed = createDatabase(database.url, 2, createLogger("silent"));
    await importKbDirectory(seed, KB_DIR);
    await seed.$disconnect();
    // The second instance polls rarely: within the test it can only learn of a change by NOTIFY.
    first = await startInstance(database.url, 60_000);
    second = await startInstance(database.url, 60_000);
  });
  after(async () => {
    for (const instance of [first, second]) {
      await instance?.sync.stop();
      await instance?.db.$disconnect();
    }
    await database.drop();
  });

  it("an edit through one instance is served by the other within one second", async () => {
    const editor = await createTestToken(first, "editor", "editor");
    const before = (await request(second.app).get("/api/v1/releases/1.30").expect(200)).body;
    const { kbRevision: _revision, revision, ...record } = before;
    const edit = await request(first.app)
      .put("/api/v1/releases/1.30")
      .set("Authorization", `Bearer ${editor}`)
      .send({ ...record, revision, disagreement: "replica test" })
      .expect(200);
    const seen = await revisionWithin(second.app, edit.body.kbRevision, 1_000);
    assert.equal(
      seen,
      edit.body.kbRevision,
      "the second instance did not see the edit within one second",
    );
    const after = (await request(second.app).get("/api/v1/releases/1.30").expect(200)).body;
    assert.equal(after.disagreement, "replica test");
  });

  it("a change that no notification announced is found by the periodic check", async () => {
    const third = await startInstance(database.url, 200);
    try {
      const current = (await request(third.app).get("/api/v1/kb").expect(200)).body
        .revision as number;
      // Bump the revision behind every listener's back (no NOTIFY).
      await query(database.url, `UPDATE "KbState" SET revision = revision + 1 WHERE id = 1`);
      const seen = await revisionWithin(third.app, current + 1, 3_000);
      assert.equal(seen, current + 1);
    } finally {
      await third.sync.stop();
      await third.db.$disconnect();
    }
  });
});
