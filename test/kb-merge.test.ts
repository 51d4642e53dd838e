/**
 * Start-up never undoes curation. The three-way merge of kb/ (the last
 * imported kb/, the new kb/, the database) table by table at its rule
 * boundaries, then against PostgreSQL: a run-time edit survives an
 * unchanged and a changed kb/, a record both sides changed is a conflict
 * that keeps the database's value (served on REST and GraphQL) until an
 * edit resolves it, exporting to kb/ and importing changes nothing, a
 * database from before import bases were recorded keeps its run-time
 * edits, and `startRuntime` (what `npm start` runs, default configuration)
 * keeps an edit across restarts.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { parseConfig } from "../src/core/config.js";
import { readKnowledgeBase } from "../src/db/kb-read.js";
import { exportFile } from "../src/knowledge/export.js";
import { importKbDirectory } from "../src/services/import.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { mergeBundles, recordHash, type MergeBase } from "../src/knowledge/merge.js";
import { type KbBundle, type RecommendationRecord } from "../src/knowledge/records.js";
import { ENTITIES, ENTITY_NAMES } from "../src/knowledge/registry.js";
import { createLogger } from "../src/core/logger.js";
import { startRuntime } from "../src/runtime.js";
import { query } from "./support/database.js";
import { KB_DIR, createTestToken, startTestRuntime, type TestRuntime } from "./support/runtime.js";

const RECOMMENDATION: RecommendationRecord = {
  id: "merge-test-advice",
  title: "A piece of advice",
  components: ["kubelet"],
  phase: "ANY",
  appliesFrom: null,
  appliesUntil: null,
  text: "Original text.",
  sourceUrl: "https://kubernetes.io/docs/setup/",
  notes: null,
};

function bundleOf(recommendations: RecommendationRecord[]): KbBundle {
  const empty = Object.fromEntries(
    ENTITY_NAMES.map((entity) => [entity, []]),
  ) as unknown as KbBundle;
  return { ...empty, recommendations };
}

function baseOf(bundle: KbBundle): MergeBase {
  return new Map(
    bundle.recommendations.map((record) => [
      `recommendations\u0000${record.id}`,
      { entity: "recommendations" as const, key: record.id, record },
    ]),
  );
}

const v = (text: string): RecommendationRecord => ({ ...RECOMMENDATION, text });

describe("the three-way merge, case by case", () => {
  const none: RecommendationRecord[] = [];
  // base (kb/ last imported) | kb/ now | database → what the merge does
  const cases: Array<{
    name: string;
    base: RecommendationRecord[];
    kb: RecommendationRecord[];
    db: RecommendationRecord[];
    expect: string;
  }> = [
    {
      name: "nothing changed anywhere",
      base: [v("a")],
      kb: [v("a")],
      db: [v("a")],
      expect: "none",
    },
    { name: "only kb/ changed it", base: [v("a")], kb: [v("b")], db: [v("a")], expect: "update" },
    {
      name: "only the database changed it (run-time edit)",
      base: [v("a")],
      kb: [v("a")],
      db: [v("c")],
      expect: "kept",
    },
    {
      name: "both changed it the same way",
      base: [v("a")],
      kb: [v("b")],
      db: [v("b")],
      expect: "none",
    },
    {
      name: "both changed it differently",
      base: [v("a")],
      kb: [v("b")],
      db: [v("c")],
      expect: "conflict",
    },
    { name: "created in kb/ only", base: none, kb: [v("a")], db: none, expect: "create" },
    { name: "created at run time only", base: none, kb: none, db: [v("a")], expect: "kept" },
    {
      name: "created on both sides differently",
      base: none,
      kb: [v("a")],
      db: [v("b")],
      expect: "conflict",
    },
    {
      name: "removed from kb/, untouched in the database",
      base: [v("a")],
      kb: none,
      db: [v("a")],
      expect: "delete",
    },
    {
      name: "retired at run time, kb/ unchanged",
      base: [v("a")],
      kb: [v("a")],
      db: none,
      expect: "kept",
    },
    {
      name: "retired at run time, changed in kb/",
      base: [v("a")],
      kb: [v("b")],
      db: none,
      expect: "conflict",
    },
    {
      name: "removed from kb/, edited at run time",
      base: [v("a")],
      kb: none,
      db: [v("c")],
      expect: "conflict",
    },
    { name: "removed on both sides", base: [v("a")], kb: none, db: none, expect: "none" },
  ];
  for (const testCase of cases) {
    it(`${testCase.name}: ${testCase.expect}`, () => {
      const outcome = mergeBundles(
        baseOf(bundleOf(testCase.base)),
        bundleOf(testCase.kb),
        bundleOf(testCase.db),
      );
      const got =
        outcome.conflicts.length > 0
          ? "conflict"
          : outcome.changes.length > 0
            ? outcome.changes[0]!.action
            : outcome.keptRuntime > 0
              ? "kept"
              : "none";
      assert.equal(got, testCase.expect);
      assert.ok(outcome.changes.length + outcome.conflicts.length <= 1);
      if (got === "conflict") {
        const [conflict] = outcome.conflicts;
        assert.deepEqual(conflict?.kb, testCase.kb[0] ?? null);
        assert.deepEqual(conflict?.database, testCase.db[0] ?? null);
        assert.deepEqual(conflict?.base, testCase.base[0] ?? null);
      }
    });
  }

  it("resolves an open conflict once kb/ and the database agree", () => {
    const outcome = mergeBundles(
      baseOf(bundleOf([v("a")])),
      bundleOf([v("c")]),
      bundleOf([v("c")]),
      new Set(["recommendations\u0000merge-test-advice"]),
    );
    assert.deepEqual(outcome.resolved, [{ entity: "recommendations", key: "merge-test-advice" }]);
  });

  it("ignores the stored revision when comparing records", () => {
    assert.equal(recordHash({ ...v("a"), revision: 7 }), recordHash(v("a")));
    assert.notEqual(recordHash(v("a")), recordHash(v("b")));
  });
});

async function copyKb(): Promise<string> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-merge-"));
  for (const file of await fs.readdir(KB_DIR))
    await fs.copyFile(path.join(KB_DIR, file), path.join(directory, file));
  return directory;
}

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

/** Reads a recommendation and puts it back with another text, as a curator does at run time. */
async function editText(
  runtime: TestRuntime,
  editor: string,
  id: string,
  text: string,
): Promise<void> {
  const current = (
    await request(runtime.app).get("/api/v1/recommendations").expect(200)
  ).body.items.find((item: { id: string }) => item.id === id);
  await request(runtime.app)
    .put(`/api/v1/recommendations/${id}`)
    .set(bearer(editor))
    .send({ ...current, text })
    .expect(200);
}

describe("merging kb/ into a database with run-time edits", () => {
  let runtime: TestRuntime;
  let editor: string;

  before(async () => {
    runtime = await startTestRuntime();
    editor = await createTestToken(runtime, "merge-editor", "editor");
  });
  after(async () => {
    await runtime?.close();
  });

  const recommendation = async (id: string) =>
    (
      await query<{ text: string; revision: number }>(
        runtime.database.url,
        `SELECT text, revision FROM "Recommendation" WHERE "recommendationId" = $1`,
        [id],
      )
    )[0];

  it("keeps a run-time creation and edit when kb/ is unchanged, writing nothing", async () => {
    await request(runtime.app)
      .post("/api/v1/recommendations")
      .set(bearer(editor))
      .send(RECOMMENDATION)
      .expect(201);
    await editText(runtime, editor, "worker-system-reserved", "Edited at run time.");
    const revision = (
      await query<{ revision: number }>(runtime.database.url, `SELECT revision FROM "KbState"`)
    )[0]?.revision;
    const audit = (await query(runtime.database.url, `SELECT id FROM "AuditEntry"`)).length;

    const result = await importKbDirectory(runtime.db, KB_DIR);
    assert.equal(result.directoryUnchanged, true);
    assert.equal(result.changed, false);
    assert.equal((await recommendation("merge-test-advice"))?.text, "Original text.");
    assert.equal((await recommendation("worker-system-reserved"))?.text, "Edited at run time.");
    assert.equal(
      (await query<{ revision: number }>(runtime.database.url, `SELECT revision FROM "KbState"`))[0]
        ?.revision,
      revision,
    );
    assert.equal(
      (await query(runtime.database.url, `SELECT id FROM "AuditEntry"`)).length,
      audit,
      "an unchanged kb/ audits nothing",
    );
  });

  it("applies an unrelated kb/ change, audited like an edit, and keeps the run-time edits", async () => {
    const directory = await copyKb();
    const file = path.join(directory, "recommendations.yaml");
    const text = await fs.readFile(file, "utf8");
    await fs.writeFile(
      file,
      text.replace(
        /(id: leader-election-pause\n(?:.*\n)*?\s+title: )"([^"]*)"/,
        '$1"$2 (reviewed)"',
      ),
    );
    const result = await importKbDirectory(runtime.db, directory);
    assert.deepEqual(
      result.changes.map(
        (change) => `${change.action} ${change.key} ${change.fields?.join(",") ?? ""}`,
      ),
      ["update leader-election-pause title"],
    );
    assert.equal(result.conflicts.length, 0);
    assert.ok(result.keptRuntime >= 2, `kept ${result.keptRuntime}`);
    assert.equal((await recommendation("worker-system-reserved"))?.text, "Edited at run time.");
    assert.equal((await recommendation("merge-test-advice"))?.text, "Original text.");
    const audit = await query<{ actor: string; action: string; key: string }>(
      runtime.database.url,
      `SELECT actor, action, key FROM "AuditEntry" WHERE actor = 'system:kb-merge' AND "kbRevision" > 1 ORDER BY id`,
    );
    assert.deepEqual(
      audit.map((entry) => `${entry.action} ${entry.key}`),
      ["recommendations.update leader-election-pause", `kb.merge directory:${directory}`],
    );
    // The same directory again: recognised by its hash, nothing happens.
    assert.equal((await importKbDirectory(runtime.db, directory)).directoryUnchanged, true);
  });

  it("reports a record both sides changed as a conflict, keeps the database's value and serves it until an edit resolves it", async () => {
    const directory = await copyKb();
    const file = path.join(directory, "recommendations.yaml");
    const text = await fs.readFile(file, "utf8");
    const changed = text.replace(
      /(id: worker-system-reserved\n(?:.*\n)*?\s+text: )"[^"]*"/,
      '$1"Changed in review."',
    );
    assert.notEqual(changed, text);
    await fs.writeFile(file, changed);
    const result = await importKbDirectory(runtime.db, directory);
    assert.equal(result.conflicts.length, 1);
    const [conflict] = result.conflicts;
    assert.equal(conflict?.key, "worker-system-reserved");
    assert.equal((conflict?.kb as RecommendationRecord).text, "Changed in review.");
    assert.equal((conflict?.database as RecommendationRecord).text, "Edited at run time.");
    assert.equal((await recommendation("worker-system-reserved"))?.text, "Edited at run time.");

    await runtime.kb.refresh();
    const summary = await request(runtime.app).get("/api/v1/kb").expect(200);
    assert.equal(summary.body.conflicts.length, 1);
    assert.equal(summary.body.conflicts[0].entity, "recommendations");
    assert.equal(summary.body.conflicts[0].kb.text, "Changed in review.");
    assert.equal(summary.body.conflicts[0].database.text, "Edited at run time.");
    assert.equal(
      summary.body.conflicts[0].base.text,
      (await loadKbDirectory(KB_DIR)).recommendations.find((r) => r.id === "worker-system-reserved")
        ?.text,
    );
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({ query: "{ knowledgeBase { conflicts { entity key kb database base source } } }" })
      .expect(200);
    assert.equal(graphql.body.data.knowledgeBase.conflicts[0].key, "worker-system-reserved");
    assert.equal(graphql.body.data.knowledgeBase.conflicts[0].source, `directory:${directory}`);
    assert.match(
      (await request(runtime.app).get("/metrics").expect(200)).text,
      /^kubecompat_kb_conflicts_open 1$/m,
    );

    // Restarting with the same kb/ keeps the conflict open (and writes nothing).
    assert.equal((await importKbDirectory(runtime.db, directory)).directoryUnchanged, true);
    assert.equal((await readKnowledgeBase(runtime.db)).conflicts.length, 1);

    // An edit of the record decides it.
    await editText(runtime, editor, "worker-system-reserved", "Changed in review.");
    assert.equal(
      (await request(runtime.app).get("/api/v1/kb").expect(200)).body.conflicts.length,
      0,
    );
    assert.match(
      (await request(runtime.app).get("/metrics").expect(200)).text,
      /^kubecompat_kb_conflicts_open 0$/m,
    );
  });

  it("changes no record when the database is exported to kb/ and imported (the reviewed-pull-request round trip)", async () => {
    const directory = await copyKb();
    await runtime.kb.refresh();
    const snapshot = runtime.kb.current();
    for (const entity of ENTITY_NAMES)
      await fs.writeFile(path.join(directory, ENTITIES[entity].file), exportFile(snapshot, entity));
    const before = await readKnowledgeBase(runtime.db);
    const result = await importKbDirectory(runtime.db, directory);
    assert.deepEqual(result.changes, []);
    assert.equal(result.conflicts.length, 0);
    const afterwards = await readKnowledgeBase(runtime.db);
    assert.deepEqual(afterwards.bundle, before.bundle);
    // The exported directory is now the base: starting with it again is recognised and writes nothing.
    assert.equal((await importKbDirectory(runtime.db, directory)).directoryUnchanged, true);
  });

  it("refuses a merge whose result would not hold together, writing nothing", async () => {
    const directory = await copyKb();
    // kb/ drops a profile that a run-time skew rule would still need.
    const profiles = await fs.readFile(path.join(directory, "profiles.yaml"), "utf8");
    const rules = (await loadKbDirectory(directory)).skewRules.filter(
      (rule) => rule.profile === "strict",
    );
    assert.ok(rules.length > 0);
    await fs.writeFile(
      path.join(directory, "profiles.yaml"),
      profiles.replace(/\n {2}- name: strict\n(?: {4}.*\n)*/, "\n"),
    );
    await fs.writeFile(
      path.join(directory, "skew-rules.yaml"),
      (await fs.readFile(path.join(directory, "skew-rules.yaml"), "utf8")).replace(
        /\n {2}- id: strict-[\s\S]*?(?=\n {2}- id: |\n*$)/g,
        "",
      ),
    );
    // The edited copy is itself valid: only its merge with the run-time rule is not.
    await loadKbDirectory(directory);
    // A rule added at run time to the profile that kb/ is about to drop.
    const { revision: _revision, ...strictRule } = {
      ...rules[0]!,
      id: "strict-added-at-run-time",
      component: "kubectl",
      revision: 0,
    };
    const edit = await request(runtime.app)
      .post("/api/v1/skew-rules")
      .set(bearer(editor))
      .send(strictRule);
    assert.equal(edit.status, 201, JSON.stringify(edit.body));
    const before = await readKnowledgeBase(runtime.db);
    await assert.rejects(
      importKbDirectory(runtime.db, directory),
      /inconsistent.*nothing was written/s,
    );
    assert.deepEqual((await readKnowledgeBase(runtime.db)).bundle, before.bundle);
  });
});

describe("a database imported before merge bases were recorded", () => {
  let runtime: TestRuntime;
  let editor: string;

  before(async () => {
    runtime = await startTestRuntime();
    editor = await createTestToken(runtime, "legacy-editor", "editor");
  });
  after(async () => {
    await runtime?.close();
  });

  it("keeps the edits made since the last import and applies what kb/ changed", async () => {
    // The state an older version left: kb/ imported by a plain sync (no base, no hash), then edits.
    await query(runtime.database.url, `DELETE FROM "KbImportBase"`);
    await query(runtime.database.url, `UPDATE "KbState" SET "importedBundleHash" = NULL`);
    await query(
      runtime.database.url,
      `INSERT INTO "AuditEntry" (actor, "actorRole", action, entity, key, "kbRevision") VALUES ('system:import', 'admin', 'kb.import', 'kb', 'directory:kb', 1)`,
    );
    await request(runtime.app)
      .post("/api/v1/recommendations")
      .set(bearer(editor))
      .send(RECOMMENDATION)
      .expect(201);
    await editText(runtime, editor, "worker-system-reserved", "Edited before the upgrade.");

    const directory = await copyKb();
    const file = path.join(directory, "recommendations.yaml");
    await fs.writeFile(
      file,
      (await fs.readFile(file, "utf8")).replace(
        /(id: leader-election-pause\n(?:.*\n)*?\s+title: )"([^"]*)"/,
        '$1"$2 (new kb)"',
      ),
    );
    const result = await importKbDirectory(runtime.db, directory);
    assert.deepEqual(
      result.changes.map((change) => `${change.action} ${change.key}`),
      ["update leader-election-pause"],
    );
    assert.equal(result.conflicts.length, 0);
    const texts = await query<{ recommendationId: string; text: string }>(
      runtime.database.url,
      `SELECT "recommendationId", text FROM "Recommendation" WHERE "recommendationId" IN ('merge-test-advice', 'worker-system-reserved') ORDER BY 1`,
    );
    assert.deepEqual(
      texts.map((row) => row.text),
      ["Original text.", "Edited before the upgrade."],
    );
  });
});

describe("restarts with the default configuration (startRuntime, as npm start runs it)", () => {
  let runtime: TestRuntime;

  before(async () => {
    // Only for its database: migrated and imported like a first start.
    runtime = await startTestRuntime();
  });
  after(async () => {
    await runtime?.close();
  });

  it("keeps a run-time edit across two restarts", async () => {
    // Only what the test decides: the defaults stand for everything else (KB_IMPORT_ON_START among them).
    const config = parseConfig({
      DATABASE_URL: runtime.database.url,
      KB_DIR: KB_DIR,
      LOG_LEVEL: "silent",
    });
    assert.equal(config.kb.importOnStart, true, "the default configuration imports kb/ at start");
    const logger = createLogger("silent");
    const first = await startRuntime(config, logger);
    const editor = await createTestToken(first, "restart-editor", "editor");
    const { createApp } = await import("../src/app.js");
    const { Curator } = await import("../src/services/curation.js");
    const { Authenticator } = await import("../src/services/authenticator.js");
    const app = await createApp({
      kb: first.kb,
      isDatabaseReachable: () => Promise.resolve(true),
      logger,
      curator: new Curator(first.db, first.kb),
      authenticator: new Authenticator(first.db, logger),
    });
    await request(app)
      .post("/api/v1/recommendations")
      .set(bearer(editor))
      .send({ ...RECOMMENDATION, id: "survives-restarts" })
      .expect(201);
    await first.stop();

    for (let restart = 1; restart <= 2; restart += 1) {
      const next = await startRuntime(config, logger);
      try {
        const record = next.kb
          .current()
          .recommendations.find((candidate) => candidate.id === "survives-restarts");
        assert.ok(record, `the run-time record is gone after restart ${restart}`);
        assert.equal(record.text, RECOMMENDATION.text);
      } finally {
        await next.stop();
      }
    }
  });
});
