/**
 * Applying edits to the knowledge base: the edit API (one edit, or a group
 * of them committed together). Each group is judged in memory
 * (edit-judgement.ts) and committed by the store's one write path
 * (src/db/kb-group-commit.ts); a group the database declines because it
 * moved on since the judging is judged again on a fresh read and retried.
 */
import { UnavailableError, type KbIssue, type KubecompatError } from "../core/errors.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { type Database } from "../db/client.js";
import { readEditBasis, type EditBasis } from "../db/kb-read.js";
import { commitEditGroup } from "../db/kb-group-commit.js";
import { type IdempotencyKey } from "../db/idempotent-edits.js";
import { asUnavailable } from "../db/unavailable.js";
import { judgeEdits, type Judgement } from "./edit-judgement.js";

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
  /**
   * The proposal this edit applies: recorded APPROVED (by the actor, with the
   * revision the edit made) in the edit's own transaction, and the whole
   * group refused when it is not open any more (decided meanwhile).
   */
  readonly approves?: number;
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
 * A group's outcomes, and the lists of each kind it changed as the group
 * left them: the snapshot after the commit is made of these very lists
 * (their index of keys and cross-check findings already worked out).
 */
export interface GroupOutcome {
  readonly outcomes: EditOutcome[];
  readonly lists?: Readonly<Partial<Record<EntityName, readonly object[]>>>;
}

/** How often a group is judged again when the database moved on since it was judged, before giving up. */
const MAX_GROUP_TRIES = 10;

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
 * Replicas are notified once, at commit.
 *
 * The group is judged on the caller's snapshot when given (no read at all),
 * else on a read of the database (readEditBasis). When the database turns
 * out not to be as judged (another instance wrote since, or an
 * Idempotency-Key of the group was used before), nothing is written: the
 * group is judged again on a fresh read and committed the same way, at most
 * MAX_GROUP_TRIES times.
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
  if (edits.length === 0) return { outcomes: [] };
  const keys: IdempotencyKey[] = edits.flatMap((edit) =>
    edit.idempotencyKey === undefined ? [] : [{ actor: edit.actor.name, key: edit.idempotencyKey }],
  );
  // The caller's snapshot spares a read; its earlier answers are not known, so the commit requires there are none.
  let basis: EditBasis | undefined =
    known === undefined ? undefined : { ...known, answers: new Map() };
  let keysLookedUp = false;
  for (let attempt = 1; attempt <= MAX_GROUP_TRIES; attempt += 1) {
    if (basis === undefined) {
      basis = await readBasis(db, keys);
      keysLookedUp = true;
    }
    const judgement = judgeEdits(edits, basis, crossCheck);
    const commit = await commitEditGroup(db, {
      revisionBefore: basis.revision,
      conflicts: basis.conflicts,
      accepted: judgement.accepted,
      keys,
      keysLookedUp,
      expiredAnswers: judgement.expiredAnswers,
      everyEditKeyed: edits.every((edit) => edit.idempotencyKey !== undefined),
    });
    if (commit === "committed") return outcomeOf(judgement);
    // A statement that failed on what the database itself says is a fault to report, not a reason to try again.
    if (commit !== "declined" && keysLookedUp) throw commit.failed;
    basis = undefined;
  }
  throw new UnavailableError(
    `the knowledge base kept changing while the edits were being committed (${MAX_GROUP_TRIES} tries); retry in a moment`,
  );
}

async function readBasis(db: Database, keys: readonly IdempotencyKey[]): Promise<EditBasis> {
  try {
    return await readEditBasis(db, keys);
  } catch (error) {
    throw asUnavailable(error) ?? error;
  }
}

/** The outcome of a committed group: each edit's result or refusal, and the lists it changed. */
function outcomeOf(judgement: Judgement): GroupOutcome {
  const outcomes = [...judgement.outcomes];
  for (const entry of judgement.accepted)
    outcomes[entry.index] = { ok: true, result: entry.result };
  const changed = new Set(judgement.accepted.map((entry) => entry.edit.entity));
  return {
    outcomes: outcomes.map((outcome) => outcome!),
    lists: Object.fromEntries(
      [...changed].map((entity) => [entity, judgement.bundle[entity] as readonly object[]]),
    ),
  };
}
