/**
 * What the service's logger writes when a real pooled connection to
 * PostgreSQL fails while idle (its backend is terminated, as when
 * PostgreSQL stops or an operator kills it): pg gives that error its whole
 * client, password included; the line keeps the error and nothing
 * attached to it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createDatabase } from "../src/db/client.js";
import { createLogger } from "../src/core/logger.js";
import { createTestDatabase, query, type TestDatabase } from "./support/database.js";
import { eventually } from "./support/eventually.js";
import { captureLogs } from "./support/log-sink.js";

describe("logged errors", () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  it("an idle connection's failure is one short line: the error, not the client pg attaches to it", async () => {
    const logs = captureLogs();
    // The URL's password (the embedded PostgreSQL's), or, where the server trusts local connections and the URL has
    // none, one it ignores: either way the client's parameters carry it.
    const url = new URL(database.url);
    if (url.password === "") url.password = "not-for-the-log-4f1c";
    const password = decodeURIComponent(url.password);
    const db = createDatabase(url.toString(), 2, createLogger("warn", logs.sink));
    try {
      await db.$queryRawUnsafe("SELECT 1");
      // The pooled connection is idle now: end its backend from outside.
      const ended = await query<{ ended: boolean }>(
        database.url,
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [database.name],
      );
      assert.ok(
        ended.length > 0 && ended.every((row) => row.ended),
        "the pool's connection was found and ended",
      );
      const line = await eventually(
        "the failure is logged",
        () => logs.raw.find((candidate) => candidate.includes("idle database connection failed")),
        {
          withinMs: 5_000,
          last: () => JSON.stringify(logs.raw),
        },
      );
      const entry = JSON.parse(line) as { level: number; err?: Record<string, unknown> };
      assert.equal(entry.level, 40, "a warning");
      assert.equal(typeof entry.err?.message, "string");
      assert.match(String(entry.err?.message), /terminat/i);
      assert.equal(entry.err?.code, "57P01", "PostgreSQL's admin_shutdown code is kept");
      assert.equal(entry.err?.client, undefined, "the client pg attached is left out");
      assert.ok(!line.includes(password), "no password in the line");
      assert.ok(line.length < 4_000, `a short line (${line.length} characters)`);
    } finally {
      await db.$disconnect();
    }
  });
});
