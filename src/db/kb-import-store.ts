/**
 * The statements of an import and of a kb/ merge: the write transaction they
 * run in, the records they create, update and delete, the knowledge base's
 * new revision, the import's own row, the merge base (the kb/ imported last)
 * and the open conflicts. What to write is decided by src/services/
 * (bundle-import.ts, kb-merge.ts).
 */
import { type RecordChange } from "../knowledge/diff.js";
import {
  bundleHash,
  entityKey,
  recordHash,
  withoutRevision,
  type MergeBase,
  type MergeConflict,
} from "../knowledge/merge.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { ENTITY_NAMES, recordKey } from "../knowledge/registry.js";
import { type Database } from "./client.js";
import { Prisma } from "./generated/client.js";
import { delegate, fromColumns, toColumns, type Transaction } from "./kb-records.js";
import { KB_CHANGED_CHANNEL, KB_WRITE_LOCK_ID } from "./kb-write-lock.js";

export { readRows, type StoredRows, type Transaction } from "./kb-records.js";

/** Runs `work` in a transaction holding the knowledge base's write lock (imports may take a while). */
export async function inKbWriteTransaction<T>(
  db: Database,
  work: (tx: Transaction) => Promise<T>,
): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KB_WRITE_LOCK_ID}::bigint)`;
      return work(tx);
    },
    { isolationLevel: "ReadCommitted", timeout: 120_000, maxWait: 30_000 },
  );
}

/** The knowledge base's revision and the hash of the kb/ imported last. */
export async function readKbState(
  tx: Transaction,
): Promise<{ readonly revision: number; readonly importedBundleHash: string | null }> {
  const state = await tx.kbState.findUnique({ where: { id: 1 } });
  return { revision: state?.revision ?? 0, importedBundleHash: state?.importedBundleHash ?? null };
}

/** The new revision of an import (and, for a first merge, the hash of its kb/). */
export async function writeImportRevision(
  tx: Transaction,
  revision: number,
  importedBundleHash?: string,
): Promise<void> {
  const now = new Date();
  await tx.kbState.upsert({
    where: { id: 1 },
    create: {
      id: 1,
      revision,
      lastImportAt: now,
      ...(importedBundleHash === undefined ? {} : { importedBundleHash }),
    },
    update: { revision, lastImportAt: now },
  });
}

/** Tells the replicas (at commit) that the knowledge base is now at `revision`. */
export async function notifyKbChanged(tx: Transaction, revision: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${KB_CHANGED_CHANNEL}, ${String(revision)})`;
}

export async function deleteRecord(tx: Transaction, entity: EntityName, id: number): Promise<void> {
  await delegate(tx, entity).delete({ where: { id } });
}

/** Creates records in one statement (parents first, see orderForInsert). */
export async function createRecords(
  tx: Transaction,
  entity: EntityName,
  records: readonly object[],
): Promise<void> {
  await delegate(tx, entity).createMany({
    data: records.map((record) => toColumns(entity, record)),
  });
}

/** Creates one record; returns it as stored. */
export async function createRecord(
  tx: Transaction,
  entity: EntityName,
  record: object,
): Promise<object> {
  return fromColumns(
    entity,
    await delegate(tx, entity).create({ data: toColumns(entity, record) }),
  );
}

/** Replaces the record of row `id`, bumping its revision; returns it as stored. */
export async function updateRecord(
  tx: Transaction,
  entity: EntityName,
  id: number,
  record: object,
): Promise<object> {
  const row = await delegate(tx, entity).update({
    where: { id },
    data: { ...toColumns(entity, record), revision: { increment: 1 } },
  });
  return fromColumns(entity, row);
}

/** Resolves every open conflict; returns how many there were. */
export async function deleteAllConflicts(tx: Transaction): Promise<number> {
  return (await tx.kbConflict.deleteMany({})).count;
}

/** The open conflicts (as "entity\u0000key"). */
export async function readOpenConflicts(tx: Transaction): Promise<Set<string>> {
  const open = await tx.kbConflict.findMany({ select: { entity: true, key: true } });
  return new Set(open.map((row) => entityKey(row.entity as EntityName, row.key)));
}

export async function deleteConflict(
  tx: Transaction,
  conflict: { readonly entity: string; readonly key: string },
): Promise<void> {
  await tx.kbConflict.deleteMany({ where: { entity: conflict.entity, key: conflict.key } });
}

/**
 * Opens a conflict a merge found (replacing one open on the same record) and
 * audits it: the database's value was kept, kb/'s is what it would have been.
 */
export async function openConflict(
  tx: Transaction,
  conflict: MergeConflict,
  source: string,
  actor: { readonly name: string; readonly role: string },
  revision: number,
): Promise<void> {
  await deleteConflict(tx, conflict);
  await tx.kbConflict.create({
    data: {
      entity: conflict.entity,
      key: conflict.key,
      baseRecord: jsonOrNull(conflict.base),
      kbRecord: jsonOrNull(conflict.kb),
      databaseRecord: jsonOrNull(conflict.database),
      source,
    },
  });
  await tx.auditEntry.create({
    data: {
      actor: actor.name,
      actorRole: actor.role,
      action: `${conflict.entity}.conflict`,
      entity: conflict.entity,
      key: conflict.key,
      before: jsonOrNull(conflict.database) ?? undefined,
      after: jsonOrNull(conflict.kb) ?? undefined,
      kbRevision: revision,
    },
  });
}

function jsonOrNull(record: object | null): object | typeof Prisma.DbNull {
  return record === null ? Prisma.DbNull : record;
}

/** Makes `bundle` the base of the next merge. */
export async function recordImportBase(
  tx: Transaction,
  bundle: KbBundle,
  hash: string = bundleHash(bundle),
): Promise<void> {
  await tx.kbImportBase.deleteMany({});
  const rows = ENTITY_NAMES.flatMap((entity) =>
    (bundle[entity] as readonly object[]).map((record) => ({
      entity,
      key: recordKey(entity, record as never),
      hash: recordHash(record),
      record: withoutRevision(record),
    })),
  );
  for (let start = 0; start < rows.length; start += 500)
    await tx.kbImportBase.createMany({ data: rows.slice(start, start + 500) });
  await tx.kbState.upsert({
    where: { id: 1 },
    create: { id: 1, revision: 0, importedBundleHash: hash },
    update: { importedBundleHash: hash },
  });
}

/**
 * The base of the merge: the records of the kb/ imported last. A database
 * imported before bases were recorded has none; its base is then rebuilt
 * from what it holds and the audit trail: every record is as the last import
 * left it, except those edited since, whose value before their first edit
 * (none for a record created at run time) is what that import wrote.
 */
export async function readImportBase(
  tx: Transaction,
  database: KbBundle,
  recordedHash: string | null,
  revision: number,
): Promise<MergeBase> {
  const base = new Map<string, { entity: EntityName; key: string; record: object }>();
  if (recordedHash !== null) {
    for (const row of await tx.kbImportBase.findMany({ orderBy: { id: "asc" } })) {
      base.set(entityKey(row.entity as EntityName, row.key), {
        entity: row.entity as EntityName,
        key: row.key,
        record: row.record as object,
      });
    }
    return base;
  }
  if (revision === 0) return base;
  for (const entity of ENTITY_NAMES) {
    for (const record of database[entity] as readonly object[]) {
      const key = recordKey(entity, record as never);
      base.set(entityKey(entity, key), { entity, key, record: withoutRevision(record) });
    }
  }
  const lastImport = await tx.auditEntry.findFirst({
    where: { action: "kb.import", key: { startsWith: "directory:" } },
    orderBy: { id: "desc" },
    select: { id: true },
  });
  const edits = await tx.auditEntry.findMany({
    where: { id: { gt: lastImport?.id ?? 0 }, entity: { in: [...ENTITY_NAMES] } },
    orderBy: { id: "asc" },
    select: { entity: true, key: true, before: true },
  });
  const seen = new Set<string>();
  for (const edit of edits) {
    const id = entityKey(edit.entity as EntityName, edit.key);
    if (seen.has(id)) continue;
    seen.add(id);
    if (edit.before === null) base.delete(id);
    else
      base.set(id, {
        entity: edit.entity as EntityName,
        key: edit.key,
        record: withoutRevision(edit.before as object),
      });
  }
  return base;
}

/** The import's row in KbImport: what it changed (and which conflicts it found). */
export async function recordImport(
  tx: Transaction,
  source: string,
  revisionBefore: number,
  revisionAfter: number,
  changes: readonly RecordChange[],
  conflicts: readonly MergeConflict[] = [],
): Promise<void> {
  const count = (action: RecordChange["action"]): number =>
    changes.filter((change) => change.action === action).length;
  await tx.kbImport.create({
    data: {
      source,
      revisionBefore,
      revisionAfter,
      created: count("create"),
      updated: count("update"),
      deleted: count("delete"),
      changes: [
        ...changes.map((change) => ({ ...change })),
        ...conflicts.map((conflict) => ({
          entity: conflict.entity,
          key: conflict.key,
          action: "conflict",
        })),
      ],
    },
  });
}

/** Profiles reference their parent: insert parents before children. */
export function orderForInsert(entity: EntityName, records: readonly object[]): object[] {
  if (entity !== "profiles") return [...records];
  const depth = (record: object): number => {
    let level = 0;
    let parent = (record as { extends: string | null }).extends;
    while (parent !== null && level < records.length) {
      level += 1;
      parent =
        (
          records.find((candidate) => (candidate as { name: string }).name === parent) as
            | { extends: string | null }
            | undefined
        )?.extends ?? null;
    }
    return level;
  };
  return [...records].sort((a, b) => depth(a) - depth(b));
}
