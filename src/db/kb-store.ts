/**
 * The edit path, until it moves to src/services/: applying edits in groups.
 * The store's other statements live in kb-records.ts, kb-read.ts,
 * kb-import-store.ts, kb-audit.ts and idempotent-edits.ts; imports and the
 * kb/ merge are src/services/bundle-import.ts and kb-merge.ts.
 */
import { entityKey } from "../knowledge/merge.js";
import {
  ConflictError,
  InputError,
  KubecompatError,
  NotFoundError,
  UnavailableError,
  type KbIssue,
} from "../core/errors.js";
import { asUnavailable } from "./unavailable.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { ENTITY_NAMES, recordKey } from "../knowledge/registry.js";
import { keyIndexOf, withAppended, withRemoved, withReplaced } from "../knowledge/lists.js";
import { poolOf, type Database } from "./client.js";
import { type Prisma } from "./generated/client.js";
import {
  delegate,
  DOCUMENT_TABLE,
  documentRow,
  fromColumns,
  jsonColumns,
  readRows,
  revisionOf,
  storedForm,
  tableOf,
  toColumns,
  type Row,
  type Transaction,
} from "./kb-records.js";
import { ident, jsonLiteral, textLiteral } from "./sql-literals.js";
import { KB_CHANGED_CHANNEL, KB_WRITE_LOCK_ID } from "./kb-write-lock.js";
import { auditRow } from "./kb-audit.js";
import {
  editFingerprint,
  IDEMPOTENCY_TTL_MS,
  sweepDue,
  type EarlierAnswer,
} from "./idempotent-edits.js";

export { readKnowledgeBase, readRevision, type StoredKnowledgeBase } from "./kb-read.js";
export { readAudit, type AuditQuery } from "./kb-audit.js";
export { KB_CHANGED_CHANNEL } from "./kb-write-lock.js";
export { textLiteral } from "./sql-literals.js";

export interface Actor {
  readonly name: string;
  readonly role: string;
}

export interface EditRequest {
  readonly entity: EntityName;
  readonly action: "create" | "update" | "retire";
  /** Natural key of the record to update or retire. */
  readonly key?: string;
  /** The validated record to create, or to replace the stored one with. */
  readonly record?: object;
  /** The revision the caller read; required for update and retire. */
  readonly expectedRevision?: number;
  readonly actor: Actor;
  /** A key the client chose (Idempotency-Key): a retry with it answers the first result instead of applying again. */
  readonly idempotencyKey?: string;
}

export interface EditResult {
  readonly entity: EntityName;
  readonly key: string;
  /** The record as stored now (with its revision), or null when retired. */
  readonly record: object | null;
  readonly kbRevision: number;
  /** True when this is the stored answer of an earlier request with the same Idempotency-Key (nothing was applied now). */
  readonly replayed?: boolean;
}

/**
 * Applies one edit in one transaction, serialised with every other write by
 * a row lock on the knowledge-base state: checks the revision the caller
 * read (a stale one is a CONFLICT naming the current revision, so no update
 * is lost), checks the whole knowledge base still holds together with the
 * change (`crossCheck`), writes the record, bumps its revision and the
 * knowledge base's, records the audit entry, and notifies the replicas.
 */
/** The knowledge base this instance already holds in memory, at the revision it was read at. */
export interface KnownKnowledgeBase {
  readonly revision: number;
  readonly bundle: KbBundle;
  /** The open conflicts at that revision (as "entity\u0000key"). */
  readonly conflicts: ReadonlySet<string>;
}

/** One edit's outcome in a batch: its result, or the error that refused it (nothing of it was written). */
export type EditOutcome =
  | { readonly ok: true; readonly result: EditResult }
  | { readonly ok: false; readonly error: KubecompatError };

/**
 * A group's outcomes, and, when it was judged on the caller's snapshot and
 * committed as judged, the lists of each kind it changed as the group left
 * them: the snapshot after the commit is made of these very lists (their
 * index of keys and cross-check findings already worked out).
 */
export interface GroupOutcome {
  readonly outcomes: EditOutcome[];
  readonly lists?: Readonly<Partial<Record<EntityName, readonly object[]>>>;
}

/** Applies one edit (a batch of one). */
export async function applyEdit(
  db: Database,
  edit: EditRequest,
  crossCheck: (bundle: KbBundle) => KbIssue[],
  known?: KnownKnowledgeBase,
): Promise<EditResult> {
  const [outcome] = (await applyEdits(db, [edit], crossCheck, known)).outcomes;
  if (!outcome!.ok) throw outcome!.error;
  return outcome!.result;
}

/**
 * Applies edits in order in one transaction (group commit), serialised with
 * every other write by the knowledge-base write lock. Each edit is checked
 * against the knowledge base as the edits before it left it: the revision
 * the caller read (a stale one is a CONFLICT naming the current revision, so
 * no update is lost), that the whole knowledge base still holds together
 * (`crossCheck`, after each edit), and its Idempotency-Key (a retry answers
 * the first result).
 * An edit refused by a check writes nothing and the others go on; each
 * accepted one writes its record, bumps its revision and the knowledge
 * base's, and records its audit entry (and its idempotent answer) in the
 * same transaction, so a record never exists without its audit entry.
 * Replicas are notified once, at commit. The caller's snapshot, when it is
 * current, spares reading the whole knowledge base.
 *
 * When the caller's snapshot is given, the group is first tried in one round
 * trip (see commitInOneTrip); when the database turns out not to be at the
 * snapshot's revision, or an Idempotency-Key of the group was used before,
 * that try writes nothing and the group goes the general way below.
 *
 * A connection lost during COMMIT leaves the outcome unknown: that is an
 * UnavailableError saying so, for every edit of the batch.
 */
export async function applyEdits(
  db: Database,
  edits: readonly EditRequest[],
  crossCheck: (bundle: KbBundle) => KbIssue[],
  known?: KnownKnowledgeBase,
): Promise<GroupOutcome> {
  if (known !== undefined) {
    const fast = await commitInOneTrip(db, edits, crossCheck, known);
    if (fast !== undefined) return fast;
  }
  // Set once every statement of the transaction succeeded: a connection lost after it was lost during COMMIT.
  let committing = false;
  try {
    const outcomes = await db.$transaction(
      async (tx) => {
        // Edits of one record, or with one Idempotency-Key, go in separate runs: each run writes all at once, so its edits must not depend on each other.
        const outcomes: EditOutcome[] = [];
        for (let start = 0; start < edits.length; ) {
          const end = endOfRun(edits, start);
          outcomes.push(
            ...(await applyEditsIn(
              tx,
              edits.slice(start, end),
              crossCheck,
              start === 0 ? known : undefined,
            )),
          );
          start = end;
        }
        committing = true;
        return outcomes;
      },
      { isolationLevel: "ReadCommitted", timeout: 30_000, maxWait: 20_000 },
    );
    return { outcomes };
  } catch (error) {
    throw unknownOutcomeOr(error, committing, edits);
  }
}

/** The error to answer for a failed write: an outcome left unknown by a connection lost during COMMIT says so. */
function unknownOutcomeOr(
  error: unknown,
  committing: boolean,
  edits: readonly EditRequest[],
): unknown {
  const unavailable = asUnavailable(error);
  if (committing && unavailable !== undefined) {
    const keyed = edits.every((edit) => edit.idempotencyKey !== undefined);
    return new UnavailableError(
      `the connection to the database was lost while the edit was being committed, so it may or may not have been applied: read the record again before retrying${keyed ? ", or retry with the same Idempotency-Key" : " (or send an Idempotency-Key, so that a retry cannot apply it twice)"}`,
    );
  }
  return unavailable ?? error;
}

/** The end of the run of edits from `start` in which no record and no Idempotency-Key comes twice. */
function endOfRun(edits: readonly EditRequest[], start: number): number {
  const seen = new Set<string>();
  for (let index = start; index < edits.length; index += 1) {
    const edit = edits[index]!;
    const record = `${edit.entity}\u0000${edit.action === "create" ? recordKey(edit.entity, edit.record as never) : edit.key!}`;
    const answer =
      edit.idempotencyKey === undefined
        ? undefined
        : `\u0001${edit.actor.name}\u0000${edit.idempotencyKey}`;
    if (seen.has(record) || (answer !== undefined && seen.has(answer))) return index;
    seen.add(record);
    if (answer !== undefined) seen.add(answer);
  }
  return edits.length;
}

/** An edit that passed its checks, with what its writes need. */
interface Accepted {
  readonly index: number;
  readonly edit: EditRequest;
  readonly key: string;
  readonly existing: object | undefined;
  readonly fingerprint: string | undefined;
  readonly kbRevision: number;
  /** The record as the judged lists hold it (null when retired). */
  readonly judged: object | null;
}

interface Judgement {
  /** Per edit: its refusal or replayed answer; undefined for an accepted edit (its result comes with its writes). */
  readonly outcomes: Array<EditOutcome | undefined>;
  readonly accepted: readonly Accepted[];
  /** Earlier answers past their time: deleted, and their keys used again. */
  readonly expiredAnswers: readonly number[];
}

/**
 * Every edit checked in memory, in order, against the knowledge base the
 * edits before it leave (starting from `start` at `revisionBefore`); no
 * database is touched. Each edit is cross-checked on what it leaves, and
 * refused alone: an edit is judged by itself and what came before it, never
 * by what another client sent after it in the same group, so whether it is
 * accepted does not depend on how requests happened to be grouped, and
 * every revision the group writes holds together.
 */
function judgeEdits(
  edits: readonly EditRequest[],
  start: KbBundle,
  revisionBefore: number,
  earlierAnswers: ReadonlyMap<string, EarlierAnswer>,
  crossCheck: (bundle: KbBundle) => KbIssue[],
  recordAs: (entity: EntityName, record: object, revision: number) => object = (
    _entity,
    record,
    revision,
  ) => ({ ...record, revision }),
): Judgement & { readonly bundle: KbBundle } {
  const outcomes: Array<EditOutcome | undefined> = edits.map(() => undefined);
  const accepted: Accepted[] = [];
  const expiredAnswers: number[] = [];
  let bundle = start;
  let revision = revisionBefore;
  edits.forEach((edit, index) => {
    const { entity } = edit;
    try {
      const fingerprint = edit.idempotencyKey === undefined ? undefined : editFingerprint(edit);
      const earlier =
        edit.idempotencyKey === undefined
          ? undefined
          : earlierAnswers.get(`${edit.actor.name}\u0000${edit.idempotencyKey}`);
      if (earlier !== undefined && Date.now() - earlier.createdAt.getTime() < IDEMPOTENCY_TTL_MS) {
        if (earlier.fingerprint !== fingerprint) {
          throw new ConflictError(
            `the Idempotency-Key "${edit.idempotencyKey}" was used for a different edit; use a new key for a new edit`,
            [{ field: "idempotencyKey", message: "already used for another edit" }],
          );
        }
        outcomes[index] = {
          ok: true,
          result: { ...(earlier.result as EditResult), replayed: true },
        };
        return;
      }
      if (earlier !== undefined) expiredAnswers.push(earlier.id!);
      const records = bundle[entity] as readonly object[];
      const keyOf = (record: object): string => recordKey(entity, record as never);
      const key = edit.action === "create" ? keyOf(edit.record!) : edit.key!;
      const position = keyIndexOf(entity, records).get(key);
      const existing = position === undefined ? undefined : records[position];
      checkEdit(edit, entity, key, existing, keyOf);
      // Where the database keeps it: an updated record in its place, a created one last. Made from the list before
      // (lists.ts), so the cross-check carries over what it found there and judges only this record again.
      const judged =
        edit.action === "retire"
          ? null
          : recordAs(entity, edit.record!, existing === undefined ? 1 : revisionOf(existing) + 1);
      const next =
        judged === null
          ? withRemoved(records, position!)
          : existing === undefined
            ? withAppended(records, judged)
            : withReplaced(records, position!, judged);
      const issues = crossCheck({ ...bundle, [entity]: next });
      if (issues.length > 0) {
        throw new InputError(
          `the change would leave the knowledge base inconsistent: ${issues.map((issue) => issue.message).join("; ")}`,
          issues[0]?.field,
          issues.map((issue) => ({
            field: issue.field,
            message: `${issue.entry ?? issue.file}: ${issue.message}`,
          })),
        );
      }
      bundle = { ...bundle, [entity]: next };
      revision += 1;
      accepted.push({ index, edit, key, existing, fingerprint, kbRevision: revision, judged });
    } catch (error) {
      // A refusal of this edit: nothing of it will be written, and the others go on.
      if (error instanceof KubecompatError) outcomes[index] = { ok: false, error };
      else throw error;
    }
  });
  return { outcomes, accepted, expiredAnswers, bundle };
}

async function applyEditsIn(
  tx: Transaction,
  edits: readonly EditRequest[],
  crossCheck: (bundle: KbBundle) => KbIssue[],
  known: KnownKnowledgeBase | undefined,
): Promise<EditOutcome[]> {
  // The same lock as imports: every write to the knowledge base happens one at a time.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KB_WRITE_LOCK_ID}::bigint)`;
  // A statement of its own, after the lock: under READ COMMITTED a statement sees the data as of its start,
  // so a revision read in the statement that waited for the lock would miss what was committed meanwhile.
  const state = await tx.kbState.upsert({
    where: { id: 1 },
    create: { id: 1, revision: 0 },
    update: {},
  });
  const revisionBefore = state.revision;
  const fromMemory = known !== undefined && known.revision === revisionBefore;
  // The knowledge base as the edits so far leave it; ids of the rows read from the database.
  const current = fromMemory
    ? { bundle: known.bundle, ids: new Map<string, number>() }
    : await readRows(tx);
  let bundle: KbBundle = current.bundle;
  const ids = new Map(current.ids);
  if (fromMemory) {
    // The snapshot's records carry no row ids: updates and retirements need them, so read those entities' rows (creates need none).
    for (const entity of new Set(
      edits.filter((edit) => edit.action !== "create").map((edit) => edit.entity),
    )) {
      const rows = await delegate(tx, entity).findMany({ orderBy: { id: "asc" } });
      bundle = {
        ...bundle,
        [entity]: rows.map((row) => {
          const record = fromColumns(entity, row);
          ids.set(entityKey(entity, recordKey(entity, record as never)), row.id as number);
          return record;
        }),
      };
    }
  }
  const openConflicts = fromMemory
    ? new Set(known.conflicts)
    : new Set(
        (await tx.kbConflict.findMany({ select: { entity: true, key: true } })).map((row) =>
          entityKey(row.entity as EntityName, row.key),
        ),
      );
  const keyed = edits.filter((edit) => edit.idempotencyKey !== undefined);
  const earlierAnswers = new Map(
    (keyed.length === 0
      ? []
      : await tx.idempotentEdit.findMany({
          where: {
            OR: keyed.map((edit) => ({ actor: edit.actor.name, key: edit.idempotencyKey! })),
          },
        })
    ).map((row) => [`${row.actor}\u0000${row.key}`, row]),
  );

  // Every edit is checked in memory first; the writes follow, a few statements for the whole group.
  const { outcomes, accepted, expiredAnswers } = judgeEdits(
    edits,
    bundle,
    revisionBefore,
    earlierAnswers,
    crossCheck,
  );
  const revision = accepted.at(-1)?.kbRevision ?? revisionBefore;

  // The writes. A failure from here on is the database's, and fails the whole group.
  if (expiredAnswers.length > 0)
    await tx.idempotentEdit.deleteMany({ where: { id: { in: [...expiredAnswers] } } });
  const stored = new Map<number, object | null>();
  for (const entity of ENTITY_NAMES) {
    const mine = accepted.filter((entry) => entry.edit.entity === entity);
    if (mine.length === 0) continue;
    const creates = mine.filter((entry) => entry.edit.action === "create");
    if (creates.length > 0) {
      const rows = await delegate(tx, entity).createManyAndReturn({
        data: creates.map((entry) => toColumns(entity, entry.edit.record!)),
      });
      const byKey = new Map(
        rows.map((row) => [recordKey(entity, fromColumns(entity, row) as never), row]),
      );
      for (const entry of creates)
        stored.set(entry.index, fromColumns(entity, byKey.get(entry.key)!));
    }
    for (const entry of mine.filter((candidate) => candidate.edit.action !== "create")) {
      const id = ids.get(entityKey(entity, entry.key))!;
      if (entry.edit.action === "update") {
        const row = await delegate(tx, entity).update({
          where: { id },
          data: { ...toColumns(entity, entry.edit.record!), revision: { increment: 1 } },
        });
        stored.set(entry.index, fromColumns(entity, row));
      } else {
        await delegate(tx, entity).delete({ where: { id } });
        stored.set(entry.index, null);
      }
    }
  }
  if (accepted.length > 0) {
    // An edit of a record in conflict decides it.
    const decided = accepted.filter((entry) =>
      openConflicts.has(entityKey(entry.edit.entity, entry.key)),
    );
    if (decided.length > 0)
      await tx.kbConflict.deleteMany({
        where: { OR: decided.map((entry) => ({ entity: entry.edit.entity, key: entry.key })) },
      });
    const auditRows = accepted.map((entry) => auditRow(entry, stored.get(entry.index) ?? null));
    // Idempotent answers point at their audit entry, so only then are the new ids read back.
    const audits = accepted.some((entry) => entry.edit.idempotencyKey !== undefined)
      ? await tx.auditEntry.createManyAndReturn({
          data: auditRows,
          select: { id: true, kbRevision: true },
        })
      : (await tx.auditEntry.createMany({ data: auditRows }), []);
    const auditOf = new Map(audits.map((audit) => [audit.kbRevision, audit.id]));
    const answers: Array<{
      actor: string;
      key: string;
      fingerprint: string;
      result: Prisma.InputJsonObject;
      auditEntryId: number;
    }> = [];
    for (const entry of accepted) {
      const result: EditResult = {
        entity: entry.edit.entity,
        key: entry.key,
        record: stored.get(entry.index) ?? null,
        kbRevision: entry.kbRevision,
      };
      outcomes[entry.index] = { ok: true, result };
      if (entry.edit.idempotencyKey !== undefined) {
        answers.push({
          actor: entry.edit.actor.name,
          key: entry.edit.idempotencyKey,
          fingerprint: entry.fingerprint!,
          result: result as unknown as Prisma.InputJsonObject,
          auditEntryId: auditOf.get(entry.kbRevision)!,
        });
      }
    }
    if (answers.length > 0) await tx.idempotentEdit.createMany({ data: answers });
    // The new revision and the replicas' notification in one round trip.
    await tx.$executeRaw`WITH state AS (UPDATE "KbState" SET revision = ${revision}, "updatedAt" = now() WHERE id = 1 RETURNING revision) SELECT pg_notify(${KB_CHANGED_CHANNEL}, revision::text) FROM state`;
  }
  if (keyed.length > 0 && sweepDue()) {
    await tx.idempotentEdit.deleteMany({
      where: { createdAt: { lt: new Date(Date.now() - IDEMPOTENCY_TTL_MS) } },
    });
  }
  return outcomes.map((outcome) => outcome!);
}

/**
 * The group commit in one round trip, for the common case: this instance's
 * snapshot is the database's current revision. The edits are judged in
 * memory against the snapshot; then one message begins the transaction,
 * takes the write lock, runs one statement and commits. The statement writes
 * every accepted record, its audit entry and its idempotent answer, decides
 * the conflicts those records were in, bumps the revision and notifies the
 * replicas, all on one condition checked under the lock: the revision is
 * still the snapshot's, no Idempotency-Key of the group was used before, and
 * every record an update or retirement touches is as the snapshot has it.
 * When the condition fails nothing is written (the COMMIT commits nothing)
 * and undefined tells the caller to take the general way; so does a
 * statement that fails (its transaction aborts before the COMMIT), a group
 * in which a record or a key comes twice (its edits would depend on each
 * other within one statement), or a kind this path cannot map. The round
 * trip saved matters under load: each one waits for a turn of an event loop
 * busy with reads.
 */
async function commitInOneTrip(
  db: Database,
  edits: readonly EditRequest[],
  crossCheck: (bundle: KbBundle) => KbIssue[],
  known: KnownKnowledgeBase,
): Promise<GroupOutcome | undefined> {
  const pool = poolOf(db);
  if (pool === undefined || edits.length === 0 || endOfRun(edits, 0) !== edits.length)
    return undefined;
  if (edits.some((edit) => tableOf(edit.entity) === undefined)) return undefined;
  // Earlier answers are not read: the statement writes only if there are none, else the general way replays them.
  // Judged as stored: the snapshot after the commit is then made of the very lists judged here (lists.ts
  // remembers what it made), and what the cross-check found for them carries over to the next edit.
  const { outcomes, accepted, bundle } = judgeEdits(
    edits,
    known.bundle,
    known.revision,
    new Map(),
    crossCheck,
    storedForm,
  );
  // Nothing to write: the refusals are confirmed (under the lock, at the current revision) the general way.
  if (accepted.length === 0) return undefined;

  const newest = accepted.at(-1)!.kbRevision;
  // Each record as it will be stored: its own revision is 1 when created, one more than the snapshot's when updated.
  const stored = new Map<number, object | null>(
    accepted.map((entry) => [entry.index, entry.judged]),
  );
  const statement = new OneTripStatement();
  const keys = edits.flatMap((edit) =>
    edit.idempotencyKey === undefined ? [] : [{ actor: edit.actor.name, key: edit.idempotencyKey }],
  );
  const unusedKeys =
    keys.length === 0
      ? ""
      : ` AND NOT EXISTS (SELECT 1 FROM "IdempotentEdit" AS e JOIN jsonb_to_recordset(${jsonLiteral(keys)}) AS k(actor text, key text) ON e.actor = k.actor AND e.key = k.key)`;
  // Each record an update or a retirement touches, as the snapshot has it: the condition requires every one.
  const found: string[] = [];

  // Creates, one INSERT per kind (and set of columns); updates and retirements one statement each, finding the row as the snapshot has it.
  const creates = new Map<string, { table: string; rows: Row[] }>();
  for (const entry of accepted) {
    const { entity, action } = entry.edit;
    const table = tableOf(entity)!;
    if (action === "create") {
      const row =
        table === DOCUMENT_TABLE
          ? documentRow(entity, entry.key, entry.edit.record!)
          : jsonColumns(toColumns(entity, entry.edit.record!));
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
    const row =
      table === DOCUMENT_TABLE
        ? documentRow(entity, entry.key, entry.edit.record!)
        : jsonColumns(toColumns(entity, entry.edit.record!));
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
  // An edit of a record in conflict decides it.
  const decided = accepted
    .filter((entry) => known.conflicts.has(entityKey(entry.edit.entity, entry.key)))
    .map((entry) => ({ entity: entry.edit.entity, key: entry.key }));
  if (decided.length > 0) {
    statement.add(
      `DELETE FROM "KbConflict" AS c USING jsonb_to_recordset(${jsonLiteral(decided)}) AS k(entity text, key text) WHERE c.entity = k.entity AND c.key = k.key AND EXISTS (SELECT 1 FROM state) RETURNING 1`,
      undefined,
    );
  }
  const audits = accepted.map((entry) => auditRow(entry, stored.get(entry.index) ?? null));
  const auditName = statement.add(
    `INSERT INTO "AuditEntry" (actor, "actorRole", action, entity, key, before, after, "kbRevision") SELECT a.actor, a."actorRole", a.action, a.entity, a.key, a.before, a.after, a."kbRevision" FROM jsonb_to_recordset(${jsonLiteral(audits)}) AS a(actor text, "actorRole" text, action text, entity text, key text, before jsonb, after jsonb, "kbRevision" int) WHERE EXISTS (SELECT 1 FROM state) RETURNING id, "kbRevision"`,
    accepted.length,
  );
  const results = accepted.map((entry) => ({
    entry,
    result: {
      entity: entry.edit.entity,
      key: entry.key,
      record: stored.get(entry.index) ?? null,
      kbRevision: entry.kbRevision,
    } satisfies EditResult,
  }));
  const answers = results.flatMap(({ entry, result }) =>
    entry.edit.idempotencyKey === undefined
      ? []
      : [
          {
            actor: entry.edit.actor.name,
            key: entry.edit.idempotencyKey,
            fingerprint: entry.fingerprint!,
            result,
            kbRevision: entry.kbRevision,
          },
        ],
  );
  if (answers.length > 0) {
    // Idempotent answers point at their audit entry: joined on the revision, which is the edit's own.
    statement.add(
      `INSERT INTO "IdempotentEdit" (actor, key, fingerprint, result, "auditEntryId") SELECT k.actor, k.key, k.fingerprint, k.result, a.id FROM jsonb_to_recordset(${jsonLiteral(answers)}) AS k(actor text, key text, fingerprint text, result jsonb, "kbRevision" int) JOIN ${auditName} AS a ON a."kbRevision" = k."kbRevision" RETURNING 1`,
      answers.length,
    );
  }
  if (keys.length > 0 && sweepDue()) {
    statement.add(
      `DELETE FROM "IdempotentEdit" WHERE "createdAt" < now() - interval '${IDEMPOTENCY_TTL_MS} milliseconds' AND EXISTS (SELECT 1 FROM state) RETURNING 1`,
      undefined,
    );
  }
  // The condition every other part waits on (EXISTS (SELECT 1 FROM state)): the snapshot's revision, no key used before, every record found.
  statement.condition(
    `UPDATE "KbState" SET revision = ${newest}, "updatedAt" = now() WHERE id = 1 AND revision = ${known.revision}${unusedKeys}${found.map((check) => ` AND ${check}`).join("")} RETURNING revision`,
  );

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
    let outcome: string;
    try {
      committing = true;
      const replies = (await client.query(
        `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(${KB_WRITE_LOCK_ID}); ${statement.sql(KB_CHANGED_CHANNEL)}; COMMIT`,
      )) as unknown as Array<{ rows: Row[] }>;
      outcome = String(replies.at(-2)!.rows[0]!.outcome);
    } catch (error) {
      // The statement failed (the transaction is open and aborted: the COMMIT did not run) or the connection did.
      if (asUnavailable(error) !== undefined) throw error;
      committing = false;
      await client.query("ROLLBACK");
      return undefined;
    }
    // Declined: the condition wrote nothing, so the COMMIT committed nothing; the general way judges the group under the lock.
    if (outcome !== "applied") return undefined;
  } catch (error) {
    broken = error;
    throw unknownOutcomeOr(error, committing, edits);
  } finally {
    client.off("error", onLost);
    // A connection that failed is not given back to the pool.
    client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
  }
  for (const { entry, result } of results) outcomes[entry.index] = { ok: true, result };
  const changed = new Set(accepted.map((entry) => entry.edit.entity));
  return {
    outcomes: outcomes.map((outcome) => outcome!),
    lists: Object.fromEntries(
      [...changed].map((entity) => [entity, bundle[entity] as readonly object[]]),
    ),
  };
}

/**
 * The data-modifying sub-statements of the one-trip commit: the condition
 * ("state") and the parts that write only when it held, each with how many
 * rows it must touch.
 */
class OneTripStatement {
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
   * One statement: every part as a CTE; its one row's outcome is "declined"
   * when the condition did not hold (nothing was written) and "applied" when
   * every part touched the rows it must. Anything else (a record not found,
   * which the condition rules out, so only a fault of this code) raises an
   * error, so that the transaction aborts and its COMMIT never runs: a group
   * is written whole or not at all.
   */
  sql(channel: string): string {
    if (this.conditionBody === undefined)
      throw new Error("the one-trip commit needs its condition");
    const parts = [{ name: "state", body: this.conditionBody, expected: 1 }, ...this.parts];
    const counts = parts.map((part) => `(SELECT count(*) FROM ${part.name})`);
    const expected = parts.flatMap((part, index) =>
      part.expected === undefined ? [] : [`${counts[index]} = ${part.expected}`],
    );
    // The cast of a text made from the rows raises at run time only (a constant would be folded, and raise, at planning).
    const mismatch = `(SELECT ('kubecompat: the one-trip commit touched ${parts.map((part) => part.name).join("/")} ' || ${counts.map((count) => `${count}::text`).join(" || '/' || ")})::int FROM state)::text`;
    return `WITH ${parts.map((part) => `${part.name} AS (${part.body})`).join(",\n")}\nSELECT CASE WHEN NOT EXISTS (SELECT 1 FROM state) THEN 'declined' WHEN ${expected.join(" AND ")} THEN 'applied' ELSE ${mismatch} END AS outcome, (SELECT count(pg_notify(${textLiteral(channel)}, revision::text)) FROM state)::int AS notified`;
  }
}

/** The checks of one edit against the record it touches (none for a create). */
function checkEdit(
  edit: EditRequest,
  entity: EntityName,
  key: string,
  existing: object | undefined,
  keyOf: (record: object) => string,
): void {
  if (edit.action === "create") {
    if (existing !== undefined) {
      throw new ConflictError(
        `${entity} "${key}" exists already (revision ${revisionOf(existing)}); update it instead`,
        [{ field: "key", message: `current revision ${revisionOf(existing)}` }],
      );
    }
    return;
  }
  if (existing === undefined) throw new NotFoundError(`no ${entity} record has the key "${key}"`);
  if (edit.expectedRevision !== revisionOf(existing)) {
    throw new ConflictError(
      `${entity} "${key}" is at revision ${revisionOf(existing)}, not ${edit.expectedRevision}: someone changed it since you read it; read it again and reapply your change`,
      [{ field: "revision", message: `current revision ${revisionOf(existing)}` }],
    );
  }
  if (edit.action === "update" && keyOf(edit.record!) !== key) {
    throw new InputError(
      `the update changes the record's key from "${key}" to "${keyOf(edit.record!)}"; retire the record and create the new one instead`,
      "key",
    );
  }
}
