/**
 * Edits that arrive together are committed together (group commit), yet
 * each is judged on its own, in order, against the edits before it: one
 * refused edit leaves the others applied, two updates of one record from
 * the same revision give one success and one CONFLICT, the same
 * Idempotency-Key twice applies once, every applied edit has exactly one
 * audit entry and its own knowledge-base revision, and the snapshot this
 * instance serves holds them all when they are answered.
 */
import assert from "node:assert/strict";
import pg from "pg";
import { after, before, describe, it } from "node:test";
import { Curator } from "../src/services/curation.js";
import { ConflictError, InputError } from "../src/core/errors.js";
import { query } from "./support/database.js";
import { startTestRuntime, type TestRuntime } from "./support/runtime.js";
import { recommendation } from "./support/records.js";
import { derivationOf } from "../src/knowledge/lists.js";
import { textLiteral } from "../src/db/sql-literals.js";
import { applyEdit, type EditResult } from "../src/services/edits.js";
import { createDatabase } from "../src/db/client.js";
import { createLogger } from "../src/core/logger.js";
import { crossCheckBundle } from "../src/knowledge/validate.js";

const editor = { name: "group-editor", role: "editor" as const };
const record = recommendation;

describe("edits committed in groups", () => {
  let runtime: TestRuntime;
  let curator: Curator;

  before(async () => {
    runtime = await startTestRuntime();
    curator = new Curator(runtime.db, runtime.kb);
  });
  after(async () => {
    await runtime?.close();
  });

  it("judges each edit of a group on its own and in order", async () => {
    const revisionBefore = runtime.kb.current().revision;
    await curator.create(editor, "recommendations", record("group-base"));
    const base = runtime.kb
      .current()
      .recommendations.find((candidate) => candidate.id === "group-base") as unknown as {
      revision: number;
    };
    const results = await Promise.allSettled([
      ...Array.from({ length: 40 }, (_, index) =>
        curator.create(editor, "recommendations", record(`group-${index}`)),
      ),
      // Not a component the knowledge base knows: refused alone.
      curator.create(editor, "recommendations", {
        ...record("group-bad"),
        components: ["no-such-component"],
      }),
      // Two updates from the same revision: the first wins, the second is told to re-read.
      curator.update(
        editor,
        "recommendations",
        "group-base",
        base.revision,
        record("group-base", "first update"),
      ),
      curator.update(
        editor,
        "recommendations",
        "group-base",
        base.revision,
        record("group-base", "second update"),
      ),
      // The same Idempotency-Key twice: applied once, the retry gets the first answer.
      curator.create(editor, "recommendations", record("group-keyed"), {
        idempotencyKey: "group-key",
      }),
      curator.create(editor, "recommendations", record("group-keyed"), {
        idempotencyKey: "group-key",
      }),
      // A create of a record an earlier edit of the group created.
      curator.create(editor, "recommendations", record("group-0")),
    ]);
    const created = results.slice(0, 40);
    assert.ok(
      created.every((result) => result.status === "fulfilled"),
      JSON.stringify(created.filter((result) => result.status === "rejected")),
    );
    const [bad, firstUpdate, secondUpdate, keyed, keyedAgain, duplicate] = results.slice(40);
    assert.equal(bad?.status, "rejected");
    assert.ok(
      bad.status === "rejected" && bad.reason instanceof InputError,
      String(bad.status === "rejected" ? bad.reason : ""),
    );
    assert.equal(firstUpdate?.status, "fulfilled");
    assert.ok(secondUpdate?.status === "rejected" && secondUpdate.reason instanceof ConflictError);
    assert.ok(keyed?.status === "fulfilled" && keyedAgain?.status === "fulfilled");
    assert.equal(keyedAgain.value.replayed, true);
    assert.equal(keyedAgain.value.kbRevision, keyed.value.kbRevision);
    assert.ok(duplicate?.status === "rejected" && duplicate.reason instanceof ConflictError);

    // One revision per applied edit, each with exactly one audit entry, in the database and in this instance's snapshot.
    const applied = 1 + 40 + 1 + 1;
    const revisions = results.flatMap((result) =>
      result.status === "fulfilled" && result.value.replayed !== true
        ? [result.value.kbRevision]
        : [],
    );
    assert.equal(
      new Set(revisions).size,
      revisions.length,
      "every applied edit has its own revision",
    );
    const state = await query<{ revision: number }>(
      runtime.database.url,
      `SELECT revision FROM "KbState"`,
    );
    assert.equal(state[0]?.revision, revisionBefore + applied);
    assert.equal(runtime.kb.current().revision, revisionBefore + applied);
    const audits = await query<{ key: string; n: string }>(
      runtime.database.url,
      `SELECT key, count(*) AS n FROM "AuditEntry" WHERE entity = 'recommendations' AND key LIKE 'group-%' GROUP BY key`,
    );
    assert.equal(audits.length, 40 + 2, JSON.stringify(audits));
    assert.ok(
      audits.every((row) => (row.key === "group-base" ? row.n === "2" : row.n === "1")),
      JSON.stringify(audits),
    );
    const rows = await query<{ n: string }>(
      runtime.database.url,
      `SELECT count(*) AS n FROM "Recommendation" WHERE "recommendationId" LIKE 'group-%'`,
    );
    assert.equal(rows[0]?.n, String(40 + 2));
    assert.equal(
      runtime.kb.current().recommendations.filter((candidate) => candidate.id.startsWith("group-"))
        .length,
      40 + 2,
    );
    assert.equal(
      (
        runtime.kb
          .current()
          .recommendations.find((candidate) => candidate.id === "group-base") as unknown as {
          text: string;
        }
      ).text,
      "first update",
    );
  });

  it("refuses an edit that only a later edit of the same group would make valid", async () => {
    const kubelet = runtime.kb
      .current()
      .components.find((component) => component.name === "kubelet")!;
    const { revision: _revision, ...fields } = kubelet as typeof kubelet & { revision?: number };
    const component = {
      ...fields,
      name: "group-component",
      aliases: [],
      processName: "group-component",
    };
    // The first edit goes alone (the group starts at once); the next ones queue and are committed together.
    const [, early, late] = await Promise.allSettled([
      curator.create(editor, "recommendations", record("group-filler")),
      curator.create(editor, "recommendations", {
        ...record("group-early"),
        components: ["group-component"],
      }),
      curator.create(editor, "components", component),
    ]);
    assert.ok(
      early?.status === "rejected" && early.reason instanceof InputError,
      `the recommendation names a component no edit before it created: ${early?.status === "fulfilled" ? "accepted" : String(early?.reason)}`,
    );
    assert.equal(late?.status, "fulfilled", late?.status === "rejected" ? String(late.reason) : "");
    assert.equal(
      runtime.kb.current().recommendations.some((candidate) => candidate.id === "group-early"),
      false,
    );
    assert.equal(
      runtime.kb.current().components.some((candidate) => candidate.name === "group-component"),
      true,
    );
  });

  it("writes a group whole or not at all when a record is not as the snapshot has it", async () => {
    // The group commit takes the snapshot's word for every record it touches; one changed behind its back (no new
    // revision, as only a hand-made fix could) must not get a revision and an audit entry without its own update.
    const created = await curator.create(editor, "recommendations", record("group-behind"));
    await query(
      runtime.database.url,
      `UPDATE "Recommendation" SET text = 'changed by hand' WHERE "recommendationId" = 'group-behind'`,
    );
    const revisionBefore = runtime.kb.current().revision;
    const updated = await curator.update(
      editor,
      "recommendations",
      "group-behind",
      (created.record as { revision: number }).revision,
      record("group-behind", "updated through the API"),
    );
    assert.equal(updated.kbRevision, revisionBefore + 1);
    const rows = await query<{ text: string; revision: number }>(
      runtime.database.url,
      `SELECT text, revision FROM "Recommendation" WHERE "recommendationId" = 'group-behind'`,
    );
    assert.deepEqual(rows, [{ text: "updated through the API", revision: 2 }]);
    const state = await query<{ revision: number }>(
      runtime.database.url,
      `SELECT revision FROM "KbState"`,
    );
    assert.equal(state[0]?.revision, revisionBefore + 1, "one revision for one edit");
    const audits = await query<{ action: string }>(
      runtime.database.url,
      `SELECT action FROM "AuditEntry" WHERE key = 'group-behind' ORDER BY id`,
    );
    assert.deepEqual(
      audits.map((audit) => audit.action),
      ["recommendations.create", "recommendations.update"],
    );
    assert.equal(
      (
        runtime.kb
          .current()
          .recommendations.find((candidate) => candidate.id === "group-behind") as unknown as {
          text: string;
        }
      ).text,
      "updated through the API",
    );
  });

  it("writes text with quotes, backslashes and characters beyond ASCII exactly as sent, and finds it again to update it", async () => {
    // The edit group commit (src/db/kb-group-commit.ts) writes records as string constants in its statement: what it escapes must come back unchanged.
    const awkward = `It's a \\path\\ with "quotes", \\' and '' pairs, a tab\there, über ✓ 𝄞 and a line\nbreak`;
    const created = await curator.create(editor, "recommendations", {
      ...record("group-awkward", awkward),
      notes: "back\\slash \\\\ two",
    });
    const updated = await curator.update(
      editor,
      "recommendations",
      "group-awkward",
      (created.record as { revision: number }).revision,
      {
        ...record("group-awkward", `${awkward} (updated)`),
        notes: "'quoted' \\",
      },
    );
    const rows = await query<{ text: string; notes: string; revision: number }>(
      runtime.database.url,
      `SELECT text, notes, revision FROM "Recommendation" WHERE "recommendationId" = 'group-awkward'`,
    );
    assert.deepEqual(rows, [{ text: `${awkward} (updated)`, notes: "'quoted' \\", revision: 2 }]);
    const audit = await query<{ before: { text: string; notes: string }; after: { text: string } }>(
      runtime.database.url,
      `SELECT before, after FROM "AuditEntry" WHERE key = 'group-awkward' ORDER BY id`,
    );
    assert.equal(audit[1]?.before.text, awkward);
    assert.equal(audit[1]?.before.notes, "back\\slash \\\\ two");
    assert.deepEqual(
      updated.record,
      runtime.kb.current().recommendations.find((candidate) => candidate.id === "group-awkward"),
    );
  });

  it("writes any text as a string constant PostgreSQL reads back unchanged, whatever standard_conforming_strings says", async () => {
    // The test above fails too when the group's statement cannot read a constant back; this one names the cause.
    const texts = [
      `It's`,
      `a \\path\\`,
      `\\'`,
      `''`,
      `\\\\'\\`,
      `{"json":"x\\\\y\\"z"}`,
      `über ✓ 𝄞`,
      `tab\tand\nline`,
      `E'x'`,
      `$$ $tag$`,
    ];
    const client = new pg.Client({ connectionString: runtime.database.url });
    await client.connect();
    try {
      for (const conforming of ["on", "off"]) {
        await client.query(`SET standard_conforming_strings = ${conforming}`);
        const { rows } = await client.query<{ value: string }>(
          texts
            .map((text, index) => `SELECT ${index} AS index, ${textLiteral(text)} AS value`)
            .join(" UNION ALL ") + " ORDER BY index",
        );
        assert.deepEqual(
          rows.map((row) => row.value),
          texts,
          `standard_conforming_strings = ${conforming}`,
        );
      }
    } finally {
      await client.end();
    }
  });

  it("writes a group that creates a record and then updates it (two statements in one transaction)", async () => {
    const revisionBefore = runtime.kb.current().revision;
    // The first edit goes alone; the create and the update queue and are committed together, the update after the create.
    const [, created, updated] = await Promise.allSettled([
      curator.create(editor, "recommendations", record("group-filler-2")),
      curator.create(editor, "recommendations", record("group-twice")),
      curator.update(editor, "recommendations", "group-twice", 1, record("group-twice", "again")),
    ]);
    assert.ok(created?.status === "fulfilled" && updated?.status === "fulfilled");
    assert.equal(updated.value.kbRevision, created.value.kbRevision + 1);
    assert.equal(updated.value.kbRevision, revisionBefore + 3);
    const rows = await query<{ text: string; revision: number }>(
      runtime.database.url,
      `SELECT text, revision FROM "Recommendation" WHERE "recommendationId" = 'group-twice'`,
    );
    assert.deepEqual(rows, [{ text: "again", revision: 2 }]);
    assert.deepEqual(
      updated.value.record,
      runtime.kb.current().recommendations.find((candidate) => candidate.id === "group-twice"),
    );
    const state = await query<{ revision: number }>(
      runtime.database.url,
      `SELECT revision FROM "KbState"`,
    );
    assert.equal(state[0]?.revision, revisionBefore + 3);
  });

  it("judges a group again when another instance wrote since this snapshot: the right conflict, the next revision", async () => {
    const created = await curator.create(editor, "recommendations", record("group-raced"));
    const revision = (created.record as { revision: number }).revision;
    // Another instance's edit: this instance's snapshot (no sync runs here) does not see it, so its group is declined and judged again.
    const other = createDatabase(runtime.database.url, 1, createLogger("silent"));
    let theirs: EditResult;
    try {
      theirs = await applyEdit(
        other,
        {
          entity: "recommendations",
          action: "update",
          key: "group-raced",
          record: record("group-raced", "their update"),
          expectedRevision: revision,
          actor: { name: "other-instance", role: "editor" },
        },
        crossCheckBundle,
      );
    } finally {
      await other.$disconnect();
    }
    assert.equal(runtime.kb.current().revision, theirs.kbRevision - 1, "this snapshot is behind");
    const [mine, next] = await Promise.allSettled([
      curator.update(
        editor,
        "recommendations",
        "group-raced",
        revision,
        record("group-raced", "my update"),
      ),
      curator.create(editor, "recommendations", record("group-after-race")),
    ]);
    assert.ok(
      mine?.status === "rejected" &&
        mine.reason instanceof ConflictError &&
        mine.reason.message.includes(`at revision ${revision + 1}, not ${revision}`),
      String(mine?.status === "rejected" ? mine.reason : "accepted"),
    );
    assert.ok(next?.status === "fulfilled", String(next?.status === "rejected" && next.reason));
    assert.equal(next.value.kbRevision, theirs.kbRevision + 1);
    const rows = await query<{ text: string; revision: number }>(
      runtime.database.url,
      `SELECT text, revision FROM "Recommendation" WHERE "recommendationId" = 'group-raced'`,
    );
    assert.deepEqual(rows, [{ text: "their update", revision: revision + 1 }]);
    const audits = await query<{ actor: string; action: string }>(
      runtime.database.url,
      `SELECT actor, action FROM "AuditEntry" WHERE key IN ('group-raced', 'group-after-race') ORDER BY id`,
    );
    assert.deepEqual(audits, [
      { actor: editor.name, action: "recommendations.create" },
      { actor: "other-instance", action: "recommendations.update" },
      { actor: editor.name, action: "recommendations.create" },
    ]);
    assert.equal(runtime.kb.current().revision, theirs.kbRevision + 1);
    assert.equal(
      (
        runtime.kb
          .current()
          .recommendations.find((candidate) => candidate.id === "group-raced") as unknown as {
          text: string;
        }
      ).text,
      "their update",
    );
  });

  it("publishes an edit as the previous snapshot's lists with that one record, so what was derived from them carries over", async () => {
    const before = runtime.kb.current();
    const created = await curator.create(editor, "recommendations", record("group-carried"));
    const after = runtime.kb.current();
    assert.equal(after.revision, before.revision + 1);
    // The edited kind: made from the list before by appending the stored record (src/knowledge/lists.ts).
    const derivation = derivationOf(after.recommendations);
    assert.equal(
      derivation?.from,
      before.recommendations,
      "made from the previous snapshot's list, not copied afresh",
    );
    assert.deepEqual(derivation.changes, [
      { change: "append", index: before.recommendations.length },
    ]);
    assert.equal(
      after.recommendations[before.recommendations.length],
      created.record,
      "the record answered is the one the snapshot holds",
    );
    // Every other kind: the very same list.
    for (const entity of ["components", "apiRemovals", "featureGates", "releases"] as const)
      assert.equal(after[entity], before[entity], entity);
  });
});

describe("edits gathered under steady writes (EDIT_GATHER_MS)", () => {
  let runtime: TestRuntime;
  // Long enough that the edits below, sent tens of milliseconds apart, all fall within one interval on a busy machine.
  const gatherMs = 1_000;

  before(async () => {
    runtime = await startTestRuntime();
  });
  after(async () => {
    await runtime?.close();
  });

  /** The transaction of each audit entry, told apart by its time (now() is the transaction's start in PostgreSQL). */
  async function transactionsOf(keys: readonly string[]): Promise<Map<string, string>> {
    const rows = await query<{ key: string; at: string }>(
      runtime.database.url,
      `SELECT key, to_char(at, 'YYYY-MM-DD HH24:MI:SS.US') AS at FROM "AuditEntry" WHERE entity = 'recommendations' AND key = ANY($1)`,
      [keys],
    );
    return new Map(rows.map((row) => [row.key, row.at]));
  }

  it("commits the edits that arrive within the interval after a group together, and holds no edit after a quiet spell", async () => {
    const curator = new Curator(runtime.db, runtime.kb, { gatherMs });
    // After a quiet spell: committed at once, not held for the interval.
    const sent = performance.now();
    await curator.create(editor, "recommendations", record("gather-first"));
    const firstTook = performance.now() - sent;
    assert.ok(
      firstTook < gatherMs,
      `the first edit after a quiet spell waited ${firstTook.toFixed(0)} ms, as if gathered`,
    );
    // Within the interval after it: held, and committed with the ones that follow.
    const later: Array<Promise<unknown>> = [];
    for (const [index, id] of ["gather-a", "gather-b", "gather-c"].entries()) {
      if (index > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      later.push(curator.create(editor, "recommendations", record(id)));
    }
    await Promise.all(later);
    const at = await transactionsOf(["gather-first", "gather-a", "gather-b", "gather-c"]);
    assert.equal(at.size, 4, JSON.stringify([...at]));
    assert.equal(
      new Set([at.get("gather-a"), at.get("gather-b"), at.get("gather-c")]).size,
      1,
      `one transaction for the gathered edits: ${JSON.stringify([...at])}`,
    );
    assert.notEqual(at.get("gather-a"), at.get("gather-first"));
    assert.ok(
      runtime.kb.current().recommendations.some((candidate) => candidate.id === "gather-c"),
      "answered once the snapshot holds them",
    );
  });

  it("without an interval, an edit that arrives after the group before it committed is not held for later ones", async () => {
    const curator = new Curator(runtime.db, runtime.kb);
    await curator.create(editor, "recommendations", record("nogather-first"));
    const firstDone = curator.create(editor, "recommendations", record("nogather-a"));
    await firstDone;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await curator.create(editor, "recommendations", record("nogather-b"));
    const at = await transactionsOf(["nogather-a", "nogather-b"]);
    assert.notEqual(at.get("nogather-a"), at.get("nogather-b"), JSON.stringify([...at]));
  });
});
