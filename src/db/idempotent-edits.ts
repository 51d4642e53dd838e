/**
 * The answers of edits sent with an Idempotency-Key: kept a day so that a
 * retry answers the first result instead of applying again. What identifies
 * an edit (its fingerprint), the read of a group's earlier answers, and the
 * parts of the edit group's statement that check, write and sweep them.
 */
import { recordHash } from "../knowledge/merge.js";
import { type EntityName } from "../knowledge/records.js";
import { type Executor } from "./kb-records.js";
import { jsonLiteral } from "./sql-literals.js";

/** How long the answer of an edit with an Idempotency-Key is kept for retries. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

// Expired idempotent answers are swept at most this often (per instance), not by every write.
const IDEMPOTENCY_SWEEP_MS = 60_000;
let lastIdempotencySweep = 0;

/** An Idempotency-Key as stored: the client's key is its own within its actor's. */
export interface IdempotencyKey {
  readonly actor: string;
  readonly key: string;
}

/** An earlier answer of an edit with an Idempotency-Key, as stored (no id: answered by an edit before it in the same group). */
export interface EarlierAnswer {
  readonly id?: number;
  readonly fingerprint: string;
  readonly result: unknown;
  readonly createdAt: Date;
}

/** What makes two edits the same edit: a retry with the same key must send the same one. */
export function editFingerprint(edit: {
  readonly entity: EntityName;
  readonly action: string;
  readonly key?: string;
  readonly expectedRevision?: number;
  readonly record?: object;
}): string {
  return recordHash({
    entity: edit.entity,
    action: edit.action,
    key: edit.key ?? null,
    expectedRevision: edit.expectedRevision ?? null,
    record: edit.record ?? null,
  });
}

/** The stored answers of these keys (as "actor\u0000key"). */
export async function readEarlierAnswers(
  db: Executor,
  keys: readonly IdempotencyKey[],
): Promise<Map<string, EarlierAnswer>> {
  return new Map(
    (keys.length === 0
      ? []
      : await db.idempotentEdit.findMany({
          where: { OR: keys.map((key) => ({ actor: key.actor, key: key.key })) },
        })
    ).map((row) => [`${row.actor}\u0000${row.key}`, row]),
  );
}

/** Whether expired idempotent answers are due to be swept (at most once a minute per instance); true claims the sweep. */
export function sweepDue(): boolean {
  if (Date.now() - lastIdempotencySweep <= IDEMPOTENCY_SWEEP_MS) return false;
  lastIdempotencySweep = Date.now();
  return true;
}

/** The condition that none of these keys has an answer stored (appended to the group's condition). */
export function unusedKeysCondition(keys: readonly IdempotencyKey[]): string {
  return keys.length === 0
    ? ""
    : ` AND NOT EXISTS (SELECT 1 FROM "IdempotentEdit" AS e JOIN jsonb_to_recordset(${jsonLiteral(keys)}) AS k(actor text, key text) ON e.actor = k.actor AND e.key = k.key)`;
}

/** Answers past their time that a key of the group is used again after: deleted before the group writes its own. */
export function expiredAnswersDeletion(ids: readonly number[]): string {
  return `DELETE FROM "IdempotentEdit" WHERE id IN (${ids.map((id) => String(Math.trunc(id))).join(", ")})`;
}

/** The answers of a group's keyed edits, each pointing at its audit entry (`audits`, joined on the revision, which is the edit's own). */
export function answersInsertion(
  answers: ReadonlyArray<
    IdempotencyKey & { fingerprint: string; result: object; kbRevision: number }
  >,
  audits: string,
): string {
  return `INSERT INTO "IdempotentEdit" (actor, key, fingerprint, result, "auditEntryId") SELECT k.actor, k.key, k.fingerprint, k.result, a.id FROM jsonb_to_recordset(${jsonLiteral(answers)}) AS k(actor text, key text, fingerprint text, result jsonb, "kbRevision" int) JOIN ${audits} AS a ON a."kbRevision" = k."kbRevision" RETURNING 1`;
}

/** The sweep of expired answers, as a part of the group's statement. */
export function expiredAnswersSweep(): string {
  return `DELETE FROM "IdempotentEdit" WHERE "createdAt" < now() - interval '${IDEMPOTENCY_TTL_MS} milliseconds' AND EXISTS (SELECT 1 FROM state) RETURNING 1`;
}
