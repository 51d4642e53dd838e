/**
 * Making the database hold exactly a bundle (an uploaded bundle, or kb/ taken
 * as it is with kb:import --prefer-kb): what differs is created, updated
 * (bumping each record's revision) and deleted by natural key, every open
 * conflict is resolved, and the import is audited and announced, all in one
 * transaction under the write lock. Decides what to write; the statements are
 * src/db/kb-import-store.ts's.
 */
import { diffBundles, type RecordChange } from "../knowledge/diff.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { ENTITY_NAMES, recordKey } from "../knowledge/registry.js";
import { type Database } from "../db/client.js";
import { writeAuditEntry } from "../db/kb-audit.js";
import {
  createRecords,
  deleteAllConflicts,
  deleteRecord,
  inKbWriteTransaction,
  notifyKbChanged,
  orderForInsert,
  readKbState,
  readRows,
  recordImport,
  recordImportBase,
  updateRecord,
  writeImportRevision,
  type StoredRows,
  type Transaction,
} from "../db/kb-import-store.js";
import { type Actor } from "./edits.js";

export interface SyncResult {
  readonly changed: boolean;
  readonly revisionBefore: number;
  readonly revision: number;
  readonly changes: readonly RecordChange[];
}

/**
 * Makes the database hold exactly `desired`: creates, updates (bumping each
 * record's revision) and deletes by natural key, bumps the knowledge-base
 * revision once and records the import, all in one transaction. When nothing
 * differs it writes nothing at all.
 */
export async function syncKnowledgeBase(
  db: Database,
  desired: KbBundle,
  source: string,
  actor: Actor = { name: "system:import", role: "admin" },
  options: { readonly asDirectoryImport?: boolean } = {},
): Promise<SyncResult> {
  return inKbWriteTransaction(db, async (tx) => {
    const { revision: revisionBefore } = await readKbState(tx);
    const current = await readRows(tx);
    const changes = diffBundles(current.bundle, desired);
    // An import makes the database hold exactly the bundle: no conflict is left open.
    const resolved = await deleteAllConflicts(tx);
    // Forcing kb/ in (kb:import --prefer-kb) makes it the base of the next merge; an uploaded bundle is a run-time change and leaves the base alone.
    if (options.asDirectoryImport === true) await recordImportBase(tx, desired);
    if (changes.length === 0 && resolved === 0)
      return { changed: false, revisionBefore, revision: revisionBefore, changes };

    await writeChanges(tx, current, desired, changes);
    const revision = revisionBefore + 1;
    await writeImportRevision(tx, revision);
    const count = (action: RecordChange["action"]): number =>
      changes.filter((change) => change.action === action).length;
    if (resolved > 0) {
      await writeAuditEntry(tx, {
        actor: actor.name,
        actorRole: actor.role,
        action: "kb.conflicts-resolved",
        entity: "kb",
        key: source,
        after: { resolved },
        kbRevision: revision,
      });
    }
    await recordImport(tx, source, revisionBefore, revision, changes);
    await writeAuditEntry(tx, {
      actor: actor.name,
      actorRole: actor.role,
      action: "kb.import",
      entity: "kb",
      key: source,
      after: {
        created: count("create"),
        updated: count("update"),
        deleted: count("delete"),
        changes: changes.slice(0, 500).map((change) => ({ ...change })),
      },
      kbRevision: revision,
    });
    await notifyKbChanged(tx, revision);
    return { changed: true, revisionBefore, revision, changes };
  });
}

/** The records `changes` names, written: dependents go first when deleting, referenced records first when writing. */
async function writeChanges(
  tx: Transaction,
  current: StoredRows,
  desired: KbBundle,
  changes: readonly RecordChange[],
): Promise<void> {
  const byAction = (entity: EntityName, action: RecordChange["action"]): Set<string> =>
    new Set(
      changes
        .filter((change) => change.entity === entity && change.action === action)
        .map((change) => change.key),
    );

  for (const entity of [...ENTITY_NAMES].reverse()) {
    for (const key of byAction(entity, "delete")) {
      await deleteRecord(tx, entity, current.ids.get(`${entity}\u0000${key}`) as number);
    }
  }
  for (const entity of ENTITY_NAMES) {
    const records = desired[entity] as readonly object[];
    const keyOf = (record: object): string => recordKey(entity, record as never);
    const creates = byAction(entity, "create");
    const updates = byAction(entity, "update");
    const toCreate = orderForInsert(
      entity,
      records.filter((record) => creates.has(keyOf(record))),
    );
    if (toCreate.length > 0) await createRecords(tx, entity, toCreate);
    for (const record of records.filter((candidate) => updates.has(keyOf(candidate)))) {
      await updateRecord(
        tx,
        entity,
        current.ids.get(`${entity}\u0000${keyOf(record)}`) as number,
        record,
      );
    }
  }
}
