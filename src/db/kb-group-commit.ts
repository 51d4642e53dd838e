/**
 * The one write path of an edit: a group of judged edits committed in one
 * round trip. One message begins the transaction, takes the write lock, runs
 * the group's statement and commits. The statement writes every accepted
 * record, its audit entry and its idempotent answer, decides the conflicts
 * those records were in, bumps the revision and notifies the replicas, all
 * on one condition checked under the lock: the revision is still the one the
 * group was judged at, no Idempotency-Key the judge did not look up is in
 * use, and every record an update or retirement touches is as judged. When
 * the condition fails the statement raises, nothing is written and the
 * caller re-reads and judges again. The round trip saved matters under load:
 * each one waits for a turn of an event loop busy with reads. Which edits to
 * accept is src/services/edit-judgement.ts's.
 */
import { entityKey } from "../knowledge/merge.js";
import { type EntityName } from "../knowledge/records.js";
import { UnavailableError } from "../core/errors.js";
import { poolOf, type Database } from "./client.js";
import { auditRow, type AuditedEdit } from "./kb-audit.js";
import {
  DOCUMENT_TABLE,
  documentRow,
  jsonColumns,
  revisionOf,
  tableOf,
  toColumns,
  type Row,
} from "./kb-records.js";
import {
  answersInsertion,
  expiredAnswersDeletion,
  expiredAnswersSweep,
  sweepDue,
  unusedKeysCondition,
  type IdempotencyKey,
} from "./idempotent-edits.js";
import { ident, jsonLiteral, textLiteral } from "./sql-literals.js";
import { KB_CHANGED_CHANNEL, KB_WRITE_LOCK_ID } from "./kb-write-lock.js";
import { approvalsUpdate } from "./proposal-store.js";
import { asUnavailable } from "./unavailable.js";

/** An accepted edit as the store writes it (judged by src/services/edit-judgement.ts). */
export interface EditToWrite extends AuditedEdit {
  readonly edit: {
    readonly entity: EntityName;
    readonly action: "create" | "update" | "retire";
    readonly record?: object;
    readonly actor: { readonly name: string; readonly role: string };
    readonly idempotencyKey?: string;
    /** The proposal the edit applies, recorded APPROVED in the same statement (it must still be open). */
    readonly approves?: number;
  };
  readonly fingerprint: string | undefined;
  /** The record as it will be stored (its own revision included), or null when retired. */
  readonly judged: object | null;
  /** The edit's answer, kept as its Idempotency-Key's answer. */
  readonly result: object;
}

/** A judged group of edits. */
export interface EditGroup {
  /** The revision the group was judged at, and the open conflicts then (as "entity\u0000key"). */
  readonly revisionBefore: number;
  readonly conflicts: ReadonlySet<string>;
  /** The accepted edits, in order: each is the next revision. */
  readonly accepted: readonly EditToWrite[];
  /** Every Idempotency-Key of the group, and whether the judge looked up their earlier answers. */
  readonly keys: readonly IdempotencyKey[];
  readonly keysLookedUp: boolean;
  /** Earlier answers past their time whose keys the group uses again. */
  readonly expiredAnswers: readonly number[];
  /** Whether every edit of the group (accepted or not) has an Idempotency-Key (what a lost COMMIT says). */
  readonly everyEditKeyed: boolean;
}

/** committed; declined (the database is not as the group was judged: nothing written); or the statement failed (nothing written). */
export type GroupCommit = "committed" | "declined" | { readonly failed: unknown };

// The text a declined group's statement raises with: the caller re-reads and judges again.
const DECLINED = "kubecompat: declined";

/**
 * Commits a judged group in one round trip (see the module's comment). A
 * group that refuses every edit still goes: its statement confirms, under
 * the lock, that the refusals were judged at the current revision. A
 * connection lost once the message was sent leaves the outcome unknown: an
 * UnavailableError saying so.
 */
export async function commitEditGroup(db: Database, group: EditGroup): Promise<GroupCommit> {
  const pool = poolOf(db);
  if (pool === undefined)
    throw new Error("edits are committed through the pg pool of a database made by createDatabase");
  const sql = groupSql(group);
  const client = await pool.connect().catch((error: unknown) => {
    throw asUnavailable(error) ?? error;
  });
  let broken: unknown;
  // Connection trouble once the message is sent leaves the outcome unknown: it ends with the COMMIT.
  let committing = false;
  // A dropped connection is also emitted as an event (besides failing the query): unheard, it would crash the process.
  const onLost = (error: unknown): void => {
    broken ??= error;
  };
  client.on("error", onLost);
  try {
    try {
      committing = true;
      await client.query(sql);
      return "committed";
    } catch (error) {
      // The statement raised (the transaction is open and aborted: the COMMIT did not run) or the connection failed.
      if (asUnavailable(error) !== undefined) throw error;
      committing = false;
      await client.query("ROLLBACK");
      return error instanceof Error && error.message.includes(DECLINED)
        ? "declined"
        : { failed: error };
    }
  } catch (error) {
    broken = error;
    throw unknownOutcomeOr(error, committing, group.everyEditKeyed);
  } finally {
    client.off("error", onLost);
    // A connection that failed is not given back to the pool.
    client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
  }
}

/** The error to answer for a failed write: an outcome left unknown by a connection lost during COMMIT says so. */
export function unknownOutcomeOr(
  error: unknown,
  committing: boolean,
  everyEditKeyed: boolean,
): unknown {
  const unavailable = asUnavailable(error);
  if (committing && unavailable !== undefined) {
    return new UnavailableError(
      `the connection to the database was lost while the edit was being committed, so it may or may not have been applied: read the record again before retrying${everyEditKeyed ? ", or retry with the same Idempotency-Key" : " (or send an Idempotency-Key, so that a retry cannot apply it twice)"}`,
    );
  }
  return unavailable ?? error;
}

/**
 * The group's message: the lock, then one statement per run of edits (a run
 * touches each record once, as one statement must; a group that edits a
 * record twice has two), each run on the condition that the one before it
 * left the revision it was judged to leave.
 */
function groupSql(group: EditGroup): string {
  const statements = [
    "BEGIN ISOLATION LEVEL READ COMMITTED",
    `SELECT pg_advisory_xact_lock(${KB_WRITE_LOCK_ID})`,
  ];
  // A knowledge base never written has no state row yet: the condition needs one.
  if (group.revisionBefore === 0)
    statements.push(
      `INSERT INTO "KbState" (id, revision, "updatedAt") VALUES (1, 0, now()) ON CONFLICT (id) DO NOTHING`,
    );
  if (group.expiredAnswers.length > 0)
    statements.push(expiredAnswersDeletion(group.expiredAnswers));
  const unused = group.keysLookedUp ? "" : unusedKeysCondition(group.keys);
  const sweep = group.keys.length > 0 && sweepDue();
  const runs = runsOf(group.accepted);
  if (runs.length === 0) {
    // Refusals and replays only: confirmed at the revision they were judged at, nothing written.
    const statement = new EditGroupStatement();
    if (sweep) statement.add(expiredAnswersSweep(), undefined);
    statement.condition(
      `SELECT revision FROM "KbState" WHERE id = 1 AND revision = ${group.revisionBefore}${unused}`,
    );
    statements.push(statement.sql(undefined));
  }
  let revision = group.revisionBefore;
  runs.forEach((run, index) => {
    const last = index === runs.length - 1;
    const statement = new EditGroupStatement();
    const found = writeRecords(statement, run);
    recordEdits(statement, run, group.conflicts);
    if (last && sweep) statement.add(expiredAnswersSweep(), undefined);
    const newest = run.at(-1)!.kbRevision;
    statement.condition(
      `UPDATE "KbState" SET revision = ${newest}, "updatedAt" = now() WHERE id = 1 AND revision = ${revision}${index === 0 ? unused : ""}${found.map((check) => ` AND ${check}`).join("")} RETURNING revision`,
    );
    // The replicas are told once, of the newest revision.
    statements.push(statement.sql(last ? KB_CHANGED_CHANNEL : undefined));
    revision = newest;
  });
  return `${statements.join("; ")}; COMMIT`;
}

/** The accepted edits in runs in which no record comes twice. */
function runsOf(accepted: readonly EditToWrite[]): EditToWrite[][] {
  const runs: EditToWrite[][] = [];
  let seen = new Set<string>();
  for (const entry of accepted) {
    const record = entityKey(entry.edit.entity, entry.key);
    if (runs.length === 0 || seen.has(record)) {
      runs.push([]);
      seen = new Set();
    }
    seen.add(record);
    runs.at(-1)!.push(entry);
  }
  return runs;
}

/**
 * The record writes of a run: creates, one INSERT per kind (and set of
 * columns); updates and retirements one statement each, finding the row as
 * judged. Returns the checks that every such row is as judged.
 */
function writeRecords(statement: EditGroupStatement, run: readonly EditToWrite[]): string[] {
  const found: string[] = [];
  const creates = new Map<string, { table: string; rows: Row[] }>();
  for (const entry of run) {
    const { entity, action } = entry.edit;
    const table = tableOf(entity);
    if (table === undefined)
      throw new Error(`the records of ${entity} cannot be written: its model has no table`);
    if (action === "create") {
      const row = columnsOf(table, entity, entry.key, entry.edit.record!);
      const signature = `${table}\u0000${Object.keys(row).join("\u0000")}`;
      const batch = creates.get(signature) ?? { table, rows: [] };
      batch.rows.push(row);
      creates.set(signature, batch);
      continue;
    }
    const where =
      table === DOCUMENT_TABLE
        ? `t.entity = ${textLiteral(entity)} AND t.key = ${textLiteral(entry.key)} AND t.revision = ${revisionOf(entry.existing!)}`
        : `to_jsonb(t) @> ${jsonLiteral({ ...jsonColumns(toColumns(entity, entry.existing!)), revision: revisionOf(entry.existing!) })}`;
    found.push(`EXISTS (SELECT 1 FROM ${ident(table)} AS t WHERE ${where})`);
    if (action === "retire") {
      statement.add(
        `DELETE FROM ${ident(table)} AS t WHERE ${where} AND EXISTS (SELECT 1 FROM state) RETURNING 1`,
        1,
      );
      continue;
    }
    const row = columnsOf(table, entity, entry.key, entry.edit.record!);
    const columns = Object.keys(row);
    const source = `jsonb_populate_record(NULL::${ident(table)}, ${jsonLiteral(row)})`;
    statement.add(
      `UPDATE ${ident(table)} AS t SET ${columns.map((column) => `${ident(column)} = s.${ident(column)}`).join(", ")}, revision = t.revision + 1, "updatedAt" = now() FROM ${source} AS s WHERE ${where} AND EXISTS (SELECT 1 FROM state) RETURNING 1`,
      1,
    );
  }
  for (const { table, rows } of creates.values()) {
    const columns = Object.keys(rows[0]!).map(ident);
    statement.add(
      `INSERT INTO ${ident(table)} (${columns.join(", ")}) SELECT ${columns.map((column) => `r.${column}`).join(", ")} FROM jsonb_populate_recordset(NULL::${ident(table)}, ${jsonLiteral(rows)}) AS r WHERE EXISTS (SELECT 1 FROM state) RETURNING 1`,
      rows.length,
    );
  }
  return found;
}

function columnsOf(table: string, entity: EntityName, key: string, record: object): Row {
  return table === DOCUMENT_TABLE
    ? documentRow(entity, key, record)
    : jsonColumns(toColumns(entity, record));
}

/** What a run records besides its records: the conflicts it decides, its audit entries and its idempotent answers. */
function recordEdits(
  statement: EditGroupStatement,
  run: readonly EditToWrite[],
  conflicts: ReadonlySet<string>,
): void {
  // An edit of a record in conflict decides it.
  const decided = run
    .filter((entry) => conflicts.has(entityKey(entry.edit.entity, entry.key)))
    .map((entry) => ({ entity: entry.edit.entity, key: entry.key }));
  if (decided.length > 0) {
    statement.add(
      `DELETE FROM "KbConflict" AS c USING jsonb_to_recordset(${jsonLiteral(decided)}) AS k(entity text, key text) WHERE c.entity = k.entity AND c.key = k.key AND EXISTS (SELECT 1 FROM state) RETURNING 1`,
      undefined,
    );
  }
  const audits = run.map((entry) => auditRow(entry, entry.judged));
  const auditName = statement.add(
    `INSERT INTO "AuditEntry" (actor, "actorRole", action, entity, key, before, after, "kbRevision") SELECT a.actor, a."actorRole", a.action, a.entity, a.key, a.before, a.after, a."kbRevision" FROM jsonb_to_recordset(${jsonLiteral(audits)}) AS a(actor text, "actorRole" text, action text, entity text, key text, before jsonb, after jsonb, "kbRevision" int) WHERE EXISTS (SELECT 1 FROM state) RETURNING id, "kbRevision"`,
    run.length,
  );
  const answers = run.flatMap((entry) =>
    entry.edit.idempotencyKey === undefined
      ? []
      : [
          {
            actor: entry.edit.actor.name,
            key: entry.edit.idempotencyKey,
            fingerprint: entry.fingerprint!,
            result: entry.result,
            kbRevision: entry.kbRevision,
          },
        ],
  );
  if (answers.length > 0) statement.add(answersInsertion(answers, auditName), answers.length);
  const approvals = run.flatMap((entry) =>
    entry.edit.approves === undefined
      ? []
      : [
          {
            id: entry.edit.approves,
            decidedBy: entry.edit.actor.name,
            appliedRevision: entry.kbRevision,
          },
        ],
  );
  // Every proposal must still be open: one decided meanwhile touches no row, and the group is refused whole.
  if (approvals.length > 0) statement.add(approvalsUpdate(approvals), approvals.length);
}

/**
 * The data-modifying sub-statements of one statement of the group: the
 * condition ("state") and the parts that write only when it held, each with
 * how many rows it must touch.
 */
class EditGroupStatement {
  private readonly parts: Array<{ name: string; body: string; expected: number | undefined }> = [];
  private conditionBody: string | undefined;

  /** The condition every part waits on, named "state": one row when the group may be written, none when it is declined. */
  condition(body: string): void {
    this.conditionBody = body;
  }

  /** Adds a part; returns its name. */
  add(body: string, expected: number | undefined): string {
    const name = `w${this.parts.length + 1}`;
    this.parts.push({ name, body, expected });
    return name;
  }

  /**
   * One statement: every part as a CTE; its one row's outcome is "applied"
   * when every part touched the rows it must (and the replicas are told on
   * `channel`, if given). When the condition did not hold it raises DECLINED
   * (nothing was written); anything else (a record not found, which the
   * condition rules out, so only a fault of this code) raises too. Either
   * way the transaction aborts and its COMMIT never runs: a group is written
   * whole or not at all.
   */
  sql(channel: string | undefined): string {
    if (this.conditionBody === undefined)
      throw new Error("the edit group's statement needs its condition");
    const parts = [{ name: "state", body: this.conditionBody, expected: 1 }, ...this.parts];
    const counts = parts.map((part) => `(SELECT count(*) FROM ${part.name})`);
    const expected = parts.flatMap((part, index) =>
      part.expected === undefined ? [] : [`${counts[index]} = ${part.expected}`],
    );
    // The cast of a text made from the rows raises at run time only (a constant would be folded, and raise, at planning).
    const declined = `(SELECT ('${DECLINED} ' || count(*))::int FROM state)::text`;
    const mismatch = `(SELECT ('kubecompat: the edit group touched ${parts.map((part) => part.name).join("/")} ' || ${counts.map((count) => `${count}::text`).join(" || '/' || ")})::int FROM state)::text`;
    const notified =
      channel === undefined
        ? ""
        : `, (SELECT count(pg_notify(${textLiteral(channel)}, revision::text)) FROM state)::int AS notified`;
    return `WITH ${parts.map((part) => `${part.name} AS (${part.body})`).join(",\n")}\nSELECT CASE WHEN NOT EXISTS (SELECT 1 FROM state) THEN ${declined} WHEN ${expected.join(" AND ")} THEN 'applied' ELSE ${mismatch} END AS outcome${notified}`;
  }
}
