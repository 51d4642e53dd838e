/**
 * Brings the kb/ directory into the database without undoing curation: a
 * three-way merge (src/knowledge/merge.ts) against the kb/ imported last,
 * in one transaction under the write lock. Decides what to write, step by
 * step; the statements are src/db/kb-import-store.ts's.
 */
import { type RecordChange } from "../knowledge/diff.js";
import {
  bundleHash,
  entityKey,
  mergeBundles,
  type MergeConflict,
  type MergeOutcome,
} from "../knowledge/merge.js";
import { InputError, type KbIssue } from "../core/errors.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { ENTITY_NAMES, recordKey } from "../knowledge/registry.js";
import { type Database } from "../db/client.js";
import { writeAuditEntry } from "../db/kb-audit.js";
import {
  createRecord,
  deleteConflict,
  deleteRecord,
  inKbWriteTransaction,
  notifyKbChanged,
  openConflict,
  orderForInsert,
  readImportBase,
  readKbState,
  readOpenConflicts,
  readRows,
  recordImport,
  recordImportBase,
  updateRecord,
  writeImportRevision,
  type StoredRows,
  type Transaction,
} from "../db/kb-import-store.js";
import { type SyncResult } from "./bundle-import.js";
import { type Actor } from "./edits.js";

export interface MergeResult extends SyncResult {
  /** The kb/ directory is the one imported last: nothing was compared or written. */
  readonly directoryUnchanged: boolean;
  /** Conflicts found by this merge (the database's value was kept). */
  readonly conflicts: readonly MergeConflict[];
  /** Conflicts that no longer hold. */
  readonly resolved: number;
  /** Records whose run-time value was kept because kb/ did not change them. */
  readonly keptRuntime: number;
}

const MERGE_ACTOR: Actor = { name: "system:kb-merge", role: "admin" };
const ACTION_VERB: Readonly<Record<RecordChange["action"], string>> = {
  create: "create",
  update: "update",
  delete: "retire",
};

type MergeChanges = MergeOutcome["changes"];

/**
 * Brings the kb/ directory into the database without undoing curation: a
 * three-way merge (src/knowledge/merge.ts) against the kb/ imported last. An
 * unchanged directory (same bundle hash) writes nothing at all; otherwise
 * records only kb/ changed are applied, each audited like an edit, records
 * changed on both sides become open conflicts (the database's value kept),
 * and the directory becomes the base of the next merge. Replicas starting
 * together merge once: the write lock serialises them and the second finds
 * the hash recorded. `crossCheck` refuses a merge whose result would not
 * hold together (nothing is written then).
 */
export async function mergeKbDirectory(
  db: Database,
  desired: KbBundle,
  source: string,
  crossCheck: (bundle: KbBundle) => KbIssue[],
): Promise<MergeResult> {
  const hash = bundleHash(desired);
  return inKbWriteTransaction(db, async (tx) => {
    const state = await readKbState(tx);
    const revisionBefore = state.revision;
    const unchanged = {
      changed: false,
      revisionBefore,
      revision: revisionBefore,
      changes: [],
      conflicts: [],
      resolved: 0,
      keptRuntime: 0,
    };
    if (state.importedBundleHash === hash) return { ...unchanged, directoryUnchanged: true };

    const current = await readRows(tx);
    const base = await readImportBase(tx, current.bundle, state.importedBundleHash, revisionBefore);
    const outcome = mergeBundles(base, desired, current.bundle, await readOpenConflicts(tx));
    refuseInconsistent(current.bundle, outcome.changes, crossCheck);

    const touched = outcome.changes.length + outcome.conflicts.length + outcome.resolved.length;
    const revision = touched > 0 ? revisionBefore + 1 : revisionBefore;
    const stored = await writeMergeChanges(tx, current, outcome.changes);
    // A first import fills an empty database: its summary entry lists the records; per-record entries would only repeat kb/.
    if (revisionBefore !== 0) await auditMergeChanges(tx, outcome.changes, stored, revision);
    await settleConflicts(tx, outcome, source, revision);
    await recordImportBase(tx, desired, hash);

    const changes: RecordChange[] = outcome.changes.map((change) => ({
      entity: change.entity,
      key: change.key,
      action: change.action,
      ...(change.fields ? { fields: change.fields } : {}),
    }));
    if (touched === 0)
      return { ...unchanged, directoryUnchanged: false, keptRuntime: outcome.keptRuntime };

    await writeImportRevision(tx, revision, hash);
    await recordMerge(tx, source, revisionBefore, revision, changes, outcome);
    return {
      changed: true,
      revisionBefore,
      revision,
      changes,
      directoryUnchanged: false,
      conflicts: outcome.conflicts,
      resolved: outcome.resolved.length,
      keptRuntime: outcome.keptRuntime,
    };
  });
}

/** Refuses (nothing written) a merge whose result would not hold together. */
function refuseInconsistent(
  bundle: KbBundle,
  changes: MergeChanges,
  crossCheck: (bundle: KbBundle) => KbIssue[],
): void {
  const issues = crossCheck(applyToBundle(bundle, changes));
  if (issues.length === 0) return;
  throw new InputError(
    `merging kb/ with the run-time edits would leave the knowledge base inconsistent, so nothing was written; resolve these records with an edit (or run kb:import --prefer-kb to take kb/ as it is): ${issues.map((issue) => `${issue.entry ?? issue.file}: ${issue.message}`).join("; ")}`,
    issues[0]?.field,
    issues.map((issue) => ({
      field: issue.field,
      message: `${issue.entry ?? issue.file}: ${issue.message}`,
    })),
  );
}

/**
 * The records the merge changes, written (dependents deleted first, parents
 * created first); returns each created or updated record as stored.
 */
async function writeMergeChanges(
  tx: Transaction,
  current: StoredRows,
  changes: MergeChanges,
): Promise<Map<string, object>> {
  for (const entity of [...ENTITY_NAMES].reverse()) {
    for (const change of changes.filter(
      (candidate) => candidate.entity === entity && candidate.action === "delete",
    )) {
      await deleteRecord(tx, entity, current.ids.get(entityKey(entity, change.key)) as number);
    }
  }
  const stored = new Map<string, object>();
  for (const entity of ENTITY_NAMES) {
    const creates = orderForInsert(
      entity,
      changes
        .filter((change) => change.entity === entity && change.action === "create")
        .map((change) => change.after!),
    );
    for (const record of creates) {
      stored.set(
        entityKey(entity, recordKey(entity, record as never)),
        await createRecord(tx, entity, record),
      );
    }
    for (const change of changes.filter(
      (candidate) => candidate.entity === entity && candidate.action === "update",
    )) {
      stored.set(
        entityKey(entity, change.key),
        await updateRecord(
          tx,
          entity,
          current.ids.get(entityKey(entity, change.key)) as number,
          change.after!,
        ),
      );
    }
  }
  return stored;
}

/** Each record the merge changed, audited like an edit. */
async function auditMergeChanges(
  tx: Transaction,
  changes: MergeChanges,
  stored: ReadonlyMap<string, object>,
  revision: number,
): Promise<void> {
  for (const change of changes) {
    await writeAuditEntry(tx, {
      actor: MERGE_ACTOR.name,
      actorRole: MERGE_ACTOR.role,
      action: `${change.entity}.${ACTION_VERB[change.action]}`,
      entity: change.entity,
      key: change.key,
      before: change.before === undefined ? undefined : change.before,
      after: stored.get(entityKey(change.entity, change.key)) ?? undefined,
      kbRevision: revision,
    });
  }
}

/** Conflicts that no longer hold are closed; the new ones opened (and audited). */
async function settleConflicts(
  tx: Transaction,
  outcome: MergeOutcome,
  source: string,
  revision: number,
): Promise<void> {
  for (const resolved of outcome.resolved) await deleteConflict(tx, resolved);
  for (const conflict of outcome.conflicts)
    await openConflict(tx, conflict, source, MERGE_ACTOR, revision);
}

/** The merge's row in KbImport, its summary audit entry and the replicas' notification. */
async function recordMerge(
  tx: Transaction,
  source: string,
  revisionBefore: number,
  revision: number,
  changes: readonly RecordChange[],
  outcome: MergeOutcome,
): Promise<void> {
  const count = (action: RecordChange["action"]): number =>
    changes.filter((change) => change.action === action).length;
  await recordImport(tx, source, revisionBefore, revision, changes, outcome.conflicts);
  await writeAuditEntry(tx, {
    actor: MERGE_ACTOR.name,
    actorRole: MERGE_ACTOR.role,
    action: "kb.merge",
    entity: "kb",
    key: source,
    after: {
      created: count("create"),
      updated: count("update"),
      deleted: count("delete"),
      conflicts: outcome.conflicts.length,
      resolved: outcome.resolved.length,
      keptRuntime: outcome.keptRuntime,
    },
    kbRevision: revision,
  });
  await notifyKbChanged(tx, revision);
}

function applyToBundle(
  bundle: KbBundle,
  changes: readonly {
    entity: EntityName;
    key: string;
    action: string;
    after: object | undefined;
  }[],
): KbBundle {
  const next: Record<string, object[]> = {};
  for (const entity of ENTITY_NAMES) {
    const mine = changes.filter((change) => change.entity === entity);
    if (mine.length === 0) {
      next[entity] = [...(bundle[entity] as readonly object[])];
      continue;
    }
    const gone = new Set(mine.map((change) => change.key));
    next[entity] = [
      ...(bundle[entity] as readonly object[]).filter(
        (record) => !gone.has(recordKey(entity, record as never)),
      ),
      ...mine.flatMap((change) => (change.after === undefined ? [] : [change.after])),
    ];
  }
  return next as unknown as KbBundle;
}
