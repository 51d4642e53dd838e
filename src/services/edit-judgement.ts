/**
 * Judging a group of edits, in memory and in order, against the knowledge
 * base the edits before each one leave: the revision its author read, its
 * Idempotency-Key's earlier answer, and whether the knowledge base still
 * holds together with it. No database is touched; src/services/edits.ts
 * commits what is accepted.
 */
import {
  ConflictError,
  InputError,
  KubecompatError,
  NotFoundError,
  type KbIssue,
} from "../core/errors.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { recordKey } from "../knowledge/registry.js";
import { keyIndexOf, withAppended, withRemoved, withReplaced } from "../knowledge/lists.js";
import { jsonbOrder, revisionOf, storedForm } from "../db/kb-records.js";
import { editFingerprint, IDEMPOTENCY_TTL_MS, type EarlierAnswer } from "../db/idempotent-edits.js";
import { type EditToWrite } from "../db/kb-group-commit.js";
import { type EditOutcome, type EditRequest, type EditResult } from "./edits.js";

/** An edit that passed its checks, with what its writes need. */
export interface Accepted extends EditToWrite {
  readonly index: number;
  readonly edit: EditRequest;
  readonly result: EditResult;
}

export interface Judgement {
  /** Per edit: its refusal or replayed answer; undefined for an accepted edit (its result comes with its writes). */
  readonly outcomes: Array<EditOutcome | undefined>;
  readonly accepted: readonly Accepted[];
  /** Earlier answers past their time: deleted, and their keys used again. */
  readonly expiredAnswers: readonly number[];
  /** The knowledge base as the accepted edits leave it. */
  readonly bundle: KbBundle;
}

/** What a group is judged on: the knowledge base at a revision, and the earlier answers of its keys known then. */
export interface JudgementBasis {
  readonly bundle: KbBundle;
  readonly revision: number;
  readonly answers: ReadonlyMap<string, EarlierAnswer>;
}

/**
 * Every edit checked in memory, in order, against the knowledge base the
 * edits before it leave (starting from the basis); no database is touched.
 * Each edit is cross-checked on what it leaves, and refused alone: an edit
 * is judged by itself and what came before it, never by what another client
 * sent after it in the same group, so whether it is accepted does not depend
 * on how requests happened to be grouped, and every revision the group
 * writes holds together. Records are judged as stored (storedForm): the
 * snapshot after the commit is made of the very lists judged here (lists.ts
 * remembers what it made), and what the cross-check found for them carries
 * over to the next edit. A key used twice in the group is answered the
 * second time from the first, as the database would.
 */
export function judgeEdits(
  edits: readonly EditRequest[],
  basis: JudgementBasis,
  crossCheck: (bundle: KbBundle) => KbIssue[],
): Judgement {
  const outcomes: Array<EditOutcome | undefined> = edits.map(() => undefined);
  const accepted: Accepted[] = [];
  const expiredAnswers: number[] = [];
  const earlierAnswers = new Map(basis.answers);
  let bundle = basis.bundle;
  let revision = basis.revision;
  edits.forEach((edit, index) => {
    const { entity } = edit;
    try {
      const fingerprint = edit.idempotencyKey === undefined ? undefined : editFingerprint(edit);
      const answerKey = `${edit.actor.name}\u0000${edit.idempotencyKey}`;
      const earlier = edit.idempotencyKey === undefined ? undefined : earlierAnswers.get(answerKey);
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
      if (earlier?.id !== undefined) expiredAnswers.push(earlier.id);
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
          : storedForm(entity, edit.record!, existing === undefined ? 1 : revisionOf(existing) + 1);
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
      const result: EditResult = { entity, key, record: judged, kbRevision: revision };
      accepted.push({
        index,
        edit,
        key,
        existing,
        fingerprint,
        kbRevision: revision,
        judged,
        result,
      });
      // As the database gives a stored answer back (jsonb orders its keys), for a retry later in the group.
      if (fingerprint !== undefined)
        earlierAnswers.set(answerKey, {
          fingerprint,
          result: jsonbOrder(result),
          createdAt: new Date(),
        });
    } catch (error) {
      // A refusal of this edit: nothing of it will be written, and the others go on.
      if (error instanceof KubecompatError) outcomes[index] = { ok: false, error };
      else throw error;
    }
  });
  return { outcomes, accepted, expiredAnswers, bundle };
}

/** The checks of one edit against the record it touches (none for a create). */
export function checkEdit(
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
