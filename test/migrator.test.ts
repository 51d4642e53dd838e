import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { MIGRATIONS_DIR, migrate, readMigrations } from "../src/db/migrator.js";
import { createTestDatabase, query, type TestDatabase } from "./support/database.js";

async function copyMigrations(): Promise<string> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-migrations-"));
  await fs.cp(MIGRATIONS_DIR, directory, { recursive: true });
  return directory;
}

describe("the migrator", () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database.drop());

  it("applies every migration once and records it the way Prisma does", async () => {
    const migrations = await readMigrations();
    assert.ok(migrations.length >= 1);
    const first = await migrate(database.url);
    assert.deepEqual(
      first.applied,
      migrations.map((migration) => migration.name),
    );
    const rows = await query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      applied_steps_count: number;
    }>(
      database.url,
      `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    assert.deepEqual(
      rows.map((row) => [
        row.migration_name,
        row.checksum,
        row.finished_at !== null,
        row.applied_steps_count,
      ]),
      await Promise.all(
        migrations.map(async (migration) => {
          const sql = await fs.readFile(path.join(MIGRATIONS_DIR, migration.name, "migration.sql"));
          return [migration.name, crypto.createHash("sha256").update(sql).digest("hex"), true, 1];
        }),
      ),
    );
    const second = await migrate(database.url);
    assert.deepEqual(second.applied, []);
    assert.equal(second.alreadyApplied.length, migrations.length);
  });

  it("applies concurrent start-ups once (advisory lock)", async () => {
    const other = await createTestDatabase();
    try {
      const results = await Promise.all([
        migrate(other.url),
        migrate(other.url),
        migrate(other.url),
      ]);
      assert.equal(results.filter((result) => result.applied.length > 0).length, 1);
      const rows = await query(other.url, `SELECT 1 FROM "_prisma_migrations"`);
      assert.equal(rows.length, (await readMigrations()).length);
    } finally {
      await other.drop();
    }
  });

  it("refuses to run when an applied migration was edited", async () => {
    const directory = await copyMigrations();
    const [first] = await readMigrations(directory);
    assert.ok(first);
    await fs.appendFile(
      path.join(directory, first.name, "migration.sql"),
      "\n-- edited after the fact\n",
    );
    await assert.rejects(migrate(database.url, directory), /was changed after it was applied/);
  });

  it("rolls back a failing migration completely, bookkeeping included", async () => {
    const directory = await copyMigrations();
    const name = "29991231000000_broken";
    await fs.mkdir(path.join(directory, name));
    await fs.writeFile(
      path.join(directory, name, "migration.sql"),
      `CREATE TABLE "Half" (id int);\nSELECT * FROM "NoSuchTable";\n`,
    );
    await assert.rejects(
      migrate(database.url, directory),
      /29991231000000_broken failed and was rolled back/,
    );
    const half = await query(
      database.url,
      `SELECT 1 FROM information_schema.tables WHERE table_name = 'Half'`,
    );
    assert.equal(half.length, 0);
    const recorded = await query(
      database.url,
      `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1`,
      [name],
    );
    assert.equal(recorded.length, 0);
  });

  it("refuses a database migrated by a newer build", async () => {
    const directory = await copyMigrations();
    const name = "29991231000001_future";
    await fs.mkdir(path.join(directory, name));
    await fs.writeFile(path.join(directory, name, "migration.sql"), `SELECT 1;\n`);
    await migrate(database.url, directory);
    await assert.rejects(
      migrate(database.url),
      /migrations this build does not know \(29991231000001_future\)/,
    );
  });
});
