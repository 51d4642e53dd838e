/**
 * The reads of the knowledge base: the whole of it with its revision (to
 * build a snapshot), the revision alone (to poll), and the basis an edit
 * group is judged on when this instance's snapshot is not current.
 */
import { type EntityName, type KbBundle, type KbConflictRecord } from "../knowledge/records.js";
import { entityKey } from "../knowledge/merge.js";
import { type Database } from "./client.js";
import { readRows } from "./kb-records.js";
import { readEarlierAnswers, type EarlierAnswer, type IdempotencyKey } from "./idempotent-edits.js";

export interface StoredKnowledgeBase {
  readonly bundle: KbBundle;
  readonly revision: number;
  readonly lastImportAt: Date | null;
  readonly conflicts: readonly KbConflictRecord[];
}

/** Reads the whole knowledge base and its revision in one consistent transaction. */
export async function readKnowledgeBase(db: Database): Promise<StoredKnowledgeBase> {
  return db.$transaction(
    async (tx) => {
      const state = await tx.kbState.findUnique({ where: { id: 1 } });
      const { bundle } = await readRows(tx);
      const conflicts = await tx.kbConflict.findMany({ orderBy: { id: "asc" } });
      return {
        bundle,
        revision: state?.revision ?? 0,
        lastImportAt: state?.lastImportAt ?? null,
        conflicts: conflicts.map((row) => ({
          entity: row.entity as EntityName,
          key: row.key,
          base: (row.baseRecord as object | null) ?? null,
          kb: (row.kbRecord as object | null) ?? null,
          database: (row.databaseRecord as object | null) ?? null,
          detectedAt: row.detectedAt.toISOString(),
          source: row.source,
        })),
      };
    },
    { isolationLevel: "RepeatableRead", timeout: 30_000 },
  );
}

/** The current revision, cheap enough to poll. */
export async function readRevision(db: Database): Promise<number> {
  const state = await db.kbState.findUnique({ where: { id: 1 }, select: { revision: true } });
  return state?.revision ?? 0;
}

/** What an edit group is judged on: the knowledge base at one revision, its open conflicts and the group's earlier answers. */
export interface EditBasis {
  readonly revision: number;
  readonly bundle: KbBundle;
  /** The open conflicts at that revision (as "entity\u0000key"). */
  readonly conflicts: ReadonlySet<string>;
  /** The earlier answers of the group's Idempotency-Keys (as "actor\u0000key"). */
  readonly answers: ReadonlyMap<string, EarlierAnswer>;
}

/**
 * The basis of an edit group read from the database: what a group is judged
 * on when this instance's snapshot is not the database's revision (or holds
 * none yet). No transaction: the revision is read first, and every write that
 * could change what is read after it bumps the revision, so a basis that
 * mixes two revisions carries the older one and the group's commit, which
 * requires that revision, declines it (and the group is judged again).
 */
export async function readEditBasis(
  db: Database,
  keys: readonly IdempotencyKey[],
): Promise<EditBasis> {
  const state = await db.kbState.findUnique({ where: { id: 1 }, select: { revision: true } });
  const [{ bundle }, open, answers] = await Promise.all([
    readRows(db),
    db.kbConflict.findMany({ select: { entity: true, key: true } }),
    readEarlierAnswers(db, keys),
  ]);
  return {
    revision: state?.revision ?? 0,
    bundle,
    conflicts: new Set(open.map((row) => entityKey(row.entity as EntityName, row.key))),
    answers,
  };
}
