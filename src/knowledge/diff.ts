/**
 * Compares the knowledge base in the database with a desired bundle (kb/ or
 * an uploaded one) record by record, matched by natural key. Import applies
 * exactly these changes, so an unchanged kb/ produces none and the revision
 * stays put.
 */
import { type EntityName, type KbBundle } from "./records.js";
import { ENTITY_NAMES, recordKey } from "./registry.js";

export interface RecordChange {
  readonly entity: EntityName;
  readonly key: string;
  readonly action: "create" | "update" | "delete";
  /** For updates: which fields differ. */
  readonly fields?: readonly string[];
}

export function diffBundles(current: KbBundle, desired: KbBundle): RecordChange[] {
  const changes: RecordChange[] = [];
  for (const entity of ENTITY_NAMES) {
    const before = new Map<string, object>(
      current[entity].map((record) => [recordKey(entity, record), record]),
    );
    const after = new Map<string, object>(
      desired[entity].map((record) => [recordKey(entity, record), record]),
    );
    for (const [key, record] of after) {
      const existing = before.get(key);
      if (existing === undefined) {
        changes.push({ entity, key, action: "create" });
      } else {
        const fields = changedFields(existing, record);
        if (fields.length > 0) changes.push({ entity, key, action: "update", fields });
      }
    }
    for (const key of before.keys()) {
      if (!after.has(key)) changes.push({ entity, key, action: "delete" });
    }
  }
  return changes;
}

/** The fields whose values differ between two versions of a record. */
export function changedFields(before: object, after: object): string[] {
  // `revision` is bookkeeping of the stored record, not a fact.
  const names = new Set(
    [...Object.keys(before), ...Object.keys(after)].filter((name) => name !== "revision"),
  );
  return [...names].filter(
    (name) =>
      canonical((before as Record<string, unknown>)[name]) !==
      canonical((after as Record<string, unknown>)[name]),
  );
}

/** JSON with sorted object keys; undefined and null are the same (both mean "not set"). */
export function canonical(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
