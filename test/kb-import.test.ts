import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createDatabase, type Database } from "../src/db/client.js";
import { readKnowledgeBase } from "../src/db/kb-read.js";
import { migrate } from "../src/db/migrator.js";
import { KbValidationError } from "../src/core/errors.js";
import { importKbDirectory } from "../src/services/import.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { ENTITY_NAMES } from "../src/knowledge/registry.js";
import { createLogger } from "../src/core/logger.js";
import { createTestDatabase, query, type TestDatabase } from "./support/database.js";
import { KB_DIR } from "./support/runtime.js";

/** Every table's rows, as one comparable text: proves "nothing was written". */
async function dumpTables(url: string): Promise<string> {
  const tables = [
    "Component",
    "Port",
    "CommunicationLink",
    "PolicyProfile",
    "SkewRule",
    "ApiRemoval",
    "Release",
    "UpgradeDependency",
    "RuntimeRequirement",
    "Recommendation",
    "KbState",
    "KbImport",
  ];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await query(url, `SELECT * FROM "${table}" ORDER BY id`);
    parts.push(`${table}:${JSON.stringify(rows)}`);
  }
  return parts.join("\n");
}

async function copyKb(): Promise<string> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-kb-"));
  for (const file of await fs.readdir(KB_DIR)) {
    await fs.copyFile(path.join(KB_DIR, file), path.join(directory, file));
  }
  return directory;
}

describe("importing kb/ into PostgreSQL", () => {
  let database: TestDatabase;
  let db: Database;

  before(async () => {
    database = await createTestDatabase();
    await migrate(database.url);
    db = createDatabase(database.url, 4, createLogger("silent"));
  });
  after(async () => {
    await db.$disconnect();
    await database.drop();
  });

  it("imports every record and sets revision 1", async () => {
    const expected = await loadKbDirectory(KB_DIR);
    const result = await importKbDirectory(db, KB_DIR);
    assert.equal(result.changed, true);
    assert.equal(result.revisionBefore, 0);
    assert.equal(result.revision, 1);
    const stored = await readKnowledgeBase(db);
    assert.equal(stored.revision, 1);
    for (const entity of ENTITY_NAMES) {
      assert.equal(stored.bundle[entity].length, expected[entity].length, entity);
    }
    // What comes back is what went in, field for field, each record at revision 1.
    const withoutRevision = <T extends object>(records: readonly T[]) =>
      records.map((record) => {
        assert.equal((record as { revision?: number }).revision, 1);
        const { revision: _revision, ...rest } = record as T & { revision?: number };
        return rest;
      });
    assert.deepEqual(
      withoutRevision(
        [...stored.bundle.releases].sort((a, b) => a.version.localeCompare(b.version)),
      ),
      [...expected.releases].sort((a, b) => a.version.localeCompare(b.version)),
    );
    assert.deepEqual(withoutRevision(stored.bundle.skewRules), expected.skewRules);
    assert.deepEqual(withoutRevision(stored.bundle.components), expected.components);
    const imports = await query<{ created: number }>(
      database.url,
      `SELECT created FROM "KbImport"`,
    );
    assert.equal(imports.length, 1);
    assert.equal(
      imports[0]?.created,
      ENTITY_NAMES.reduce((sum, entity) => sum + expected[entity].length, 0),
    );
  });

  it("changes nothing when the same data is imported again", async () => {
    const before = await dumpTables(database.url);
    const result = await importKbDirectory(db, KB_DIR);
    assert.equal(result.changed, false);
    assert.equal(result.revision, 1);
    assert.deepEqual(result.changes, []);
    assert.equal(await dumpTables(database.url), before);
  });

  it("applies an edit as one update, bumping the record's and the knowledge base's revision", async () => {
    const directory = await copyKb();
    const ports = await fs.readFile(path.join(directory, "ports.yaml"), "utf8");
    await fs.writeFile(
      path.join(directory, "ports.yaml"),
      ports.replace(
        'purpose: "Kubernetes API server"',
        'purpose: "Kubernetes API server (edited)"',
      ),
    );
    const result = await importKbDirectory(db, directory);
    assert.equal(result.changed, true);
    assert.equal(result.revision, 2);
    assert.deepEqual(result.changes, [
      {
        entity: "ports",
        key: "kube-apiserver 6443/TCP CONTROL_PLANE",
        action: "update",
        fields: ["purpose"],
      },
    ]);
    const rows = await query<{ purpose: string; revision: number }>(
      database.url,
      `SELECT purpose, revision FROM "Port" WHERE "componentName" = 'kube-apiserver' AND port = 6443`,
    );
    assert.deepEqual(rows, [{ purpose: "Kubernetes API server (edited)", revision: 2 }]);

    // Back to kb/: one more update, revision 3.
    const back = await importKbDirectory(db, KB_DIR);
    assert.equal(back.revision, 3);
    assert.equal(back.changes.length, 1);
  });

  it("deletes records that left kb/ and creates new ones", async () => {
    const directory = await copyKb();
    const recommendations = await fs.readFile(path.join(directory, "recommendations.yaml"), "utf8");
    const renamed = recommendations.replace(
      "id: leader-election-pause",
      "id: leader-election-pause-renamed",
    );
    await fs.writeFile(path.join(directory, "recommendations.yaml"), renamed);
    const result = await importKbDirectory(db, directory);
    assert.deepEqual(result.changes.map((change) => `${change.action} ${change.key}`).sort(), [
      "create leader-election-pause-renamed",
      "delete leader-election-pause",
    ]);
    const ids = await query<{ recommendationId: string }>(
      database.url,
      `SELECT "recommendationId" FROM "Recommendation" ORDER BY 1`,
    );
    assert.ok(ids.some((row) => row.recommendationId === "leader-election-pause-renamed"));
    assert.ok(!ids.some((row) => row.recommendationId === "leader-election-pause"));
    await importKbDirectory(db, KB_DIR);
  });

  it("rejects a broken record with a precise message and leaves the database untouched", async () => {
    const directory = await copyKb();
    const removals = await fs.readFile(path.join(directory, "api-removals.yaml"), "utf8");
    // A good edit and a bad one in the same import: neither may land.
    const edited = removals
      .replace(/(kind: CronJob\n(?:.*\n)*?\s+removedIn: )"1\.25"/, '$1"1.2x"')
      .replace(/notes: "[^"]*"/, 'notes: "edited"');
    await fs.writeFile(path.join(directory, "api-removals.yaml"), edited);
    const before = await dumpTables(database.url);
    await assert.rejects(importKbDirectory(db, directory), (error: unknown) => {
      assert.ok(error instanceof KbValidationError);
      assert.equal(error.issues.length, 1);
      const [issue] = error.issues;
      assert.equal(issue?.file, "api-removals.yaml");
      assert.equal(issue?.field, "removedIn");
      assert.match(issue?.key ?? "", /^batch\/v1beta1 CronJob$/);
      assert.equal(
        issue?.line,
        edited.split("\n").findIndex((line) => line.includes('"1.2x"')) + 1,
      );
      assert.match(error.message, /nothing was written/);
      return true;
    });
    assert.equal(await dumpTables(database.url), before);
  });

  it("serialises concurrent imports: one applies the change, the others find nothing to do", async () => {
    const directory = await copyKb();
    const releases = await fs.readFile(path.join(directory, "releases.yaml"), "utf8");
    await fs.writeFile(
      path.join(directory, "releases.yaml"),
      releases.replace(/disagreement: null/, 'disagreement: "concurrency test"'),
    );
    const others = [
      createDatabase(database.url, 2, createLogger("silent")),
      createDatabase(database.url, 2, createLogger("silent")),
    ];
    try {
      const results = await Promise.all([
        importKbDirectory(db, directory),
        ...others.map((other) => importKbDirectory(other, directory)),
      ]);
      assert.equal(results.filter((result) => result.changed).length, 1);
      const revisions = new Set(results.map((result) => result.revision));
      assert.equal(revisions.size, 1);
      const state = await query<{ revision: number }>(
        database.url,
        `SELECT revision FROM "KbState"`,
      );
      assert.equal(state[0]?.revision, [...revisions][0]);
    } finally {
      await Promise.all(others.map((other) => other.$disconnect()));
    }
  });
});
