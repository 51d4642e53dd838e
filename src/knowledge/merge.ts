/**
 * The three-way merge that start-up applies when kb/ changed: the base is
 * the kb/ directory as it was last imported, "kb" the directory now, and
 * "database" what the database holds (which run-time edits change). Per
 * record, matched by natural key:
 * - kb/ and the database agree: nothing to do (an open conflict is resolved);
 * - only kb/ changed it (the database still holds the base): kb/ wins;
 * - only the database changed it (kb/ still holds the base): the run-time
 *   state is kept, whether the record was edited, created or retired;
 * - both changed it, differently: the database's value is kept and the
 *   record is reported as a conflict with all three values.
 * "Absent" is a value like any other, so creations and retirements on
 * either side follow the same rules. Pure: the store applies the outcome.
 */
import crypto from "node:crypto";
import { canonical, changedFields } from "./diff.js";
import { type EntityName, type KbBundle } from "./records.js";
import { ENTITY_NAMES, recordKey } from "./registry.js";

/** A record's identity across bundles. */
export function entityKey(entity: EntityName, key: string): string {
  return `${entity}\u0000${key}`;
}

/** The content hash of one record; its stored `revision` is bookkeeping, not content. */
export function recordHash(record: object): string {
  return crypto
    .createHash("sha256")
    .update(canonical(withoutRevision(record)))
    .digest("hex");
}

/** The content hash of a whole bundle, independent of record order within a file. */
export function bundleHash(bundle: KbBundle): string {
  const hash = crypto.createHash("sha256");
  for (const entity of ENTITY_NAMES) {
    const hashes = (bundle[entity] as readonly object[]).map((record) => recordHash(record)).sort();
    hash.update(`${entity}:${hashes.join(",")};`);
  }
  return hash.digest("hex");
}

export function withoutRevision(record: object): object {
  if (!("revision" in record)) return record;
  const { revision: _revision, ...rest } = record as { revision?: unknown };
  return rest;
}

/** What kb/ looked like at the last import, per record. */
export type MergeBase = ReadonlyMap<
  string,
  { readonly entity: EntityName; readonly key: string; readonly record: object }
>;

export interface MergeChange {
  readonly entity: EntityName;
  readonly key: string;
  readonly action: "create" | "update" | "delete";
  /** The database's record before (create: none). */
  readonly before: object | undefined;
  /** The record kb/ now holds (delete: none). */
  readonly after: object | undefined;
  readonly fields?: readonly string[];
}

export interface MergeConflict {
  readonly entity: EntityName;
  readonly key: string;
  readonly base: object | null;
  readonly kb: object | null;
  readonly database: object | null;
}

export interface MergeOutcome {
  /** What to write: records only kb/ changed. */
  readonly changes: readonly MergeChange[];
  /** Records both sides changed differently; the database keeps its value. */
  readonly conflicts: readonly MergeConflict[];
  /** Records whose open conflict no longer holds (kb/ and the database agree now). */
  readonly resolved: ReadonlyArray<{ readonly entity: EntityName; readonly key: string }>;
  /** Records kept as edited at run time although kb/ has another value (kb/ did not change them). */
  readonly keptRuntime: number;
}

/**
 * Merges `kb` into `database` over `base`. Records are compared by content
 * (recordHash). `openConflicts` are the conflicts recorded before, so that
 * agreeing sides resolve them.
 */
export function mergeBundles(
  base: MergeBase,
  kb: KbBundle,
  database: KbBundle,
  openConflicts: ReadonlySet<string> = new Set(),
): MergeOutcome {
  const changes: MergeChange[] = [];
  const conflicts: MergeConflict[] = [];
  const resolved: Array<{ entity: EntityName; key: string }> = [];
  let keptRuntime = 0;
  for (const entity of ENTITY_NAMES) {
    const kbRecords = byKey(entity, kb[entity]);
    const dbRecords = byKey(entity, database[entity]);
    const baseRecords = new Map<string, object>();
    for (const entry of base.values())
      if (entry.entity === entity) baseRecords.set(entry.key, entry.record);
    const keys = new Set([...baseRecords.keys(), ...kbRecords.keys(), ...dbRecords.keys()]);
    for (const key of keys) {
      const baseRecord = baseRecords.get(key);
      const kbRecord = kbRecords.get(key);
      const dbRecord = dbRecords.get(key);
      const [b, n, d] = [baseRecord, kbRecord, dbRecord].map((record) =>
        record === undefined ? "" : recordHash(record),
      );
      if (n === d) {
        if (openConflicts.has(entityKey(entity, key))) resolved.push({ entity, key });
        continue;
      }
      if (b === n) {
        keptRuntime += 1;
        continue;
      }
      if (b === d) {
        const action =
          kbRecord === undefined ? "delete" : dbRecord === undefined ? "create" : "update";
        changes.push({
          entity,
          key,
          action,
          before: dbRecord,
          after: kbRecord,
          ...(action === "update" ? { fields: changedFields(dbRecord!, kbRecord!) } : {}),
        });
        continue;
      }
      conflicts.push({
        entity,
        key,
        base: baseRecord ?? null,
        kb: kbRecord ?? null,
        database: dbRecord === undefined ? null : withoutRevision(dbRecord),
      });
    }
  }
  return { changes, conflicts, resolved, keptRuntime };
}

function byKey(entity: EntityName, records: readonly object[]): Map<string, object> {
  return new Map(records.map((record) => [recordKey(entity, record as never), record]));
}
