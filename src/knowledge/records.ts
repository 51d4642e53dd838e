/**
 * The shape of every knowledge-base record, as reviewed YAML under kb/ and as
 * served by the read APIs. zod validates each record when kb/ is loaded;
 * cross-record rules (references, natural-key uniqueness) live in
 * src/knowledge/validate.ts. Unknown fields are rejected so that a typo in a
 * reviewed file cannot silently drop a fact.
 *
 * The records are defined by what they describe, in the files re-exported here, so that importers
 * need only this one: record-fields.ts (the shared field types), cluster-records.ts, upgrade-rule-records.ts,
 * node-records.ts, component-config-records.ts, api-records.ts, release-records.ts, ecosystem-records.ts.
 */
export { BEHAVIOUR_AREAS, type BehaviourArea, minorVersion } from "./record-fields.js";
export * from "./cluster-records.js";
export * from "./upgrade-rule-records.js";
export * from "./node-records.js";
export * from "./component-config-records.js";
export * from "./api-records.js";
export * from "./conversion-records.js";
export * from "./release-records.js";
export * from "./ecosystem-records.js";

export type { EntityName, KbBundle } from "./built-in-kinds.js";
import type { EntityName } from "./built-in-kinds.js";

/**
 * A record that kb/ and a run-time edit changed differently (found by the
 * merge at start-up): the database's value is what is served until an edit
 * of the record or an import resolves it.
 */
export interface KbConflictRecord {
  readonly entity: EntityName;
  readonly key: string;
  /** The record as kb/ had it at the import before (null: kb/ did not have it). */
  readonly base: object | null;
  /** The record as kb/ has it now (null: kb/ removed it). */
  readonly kb: object | null;
  /** The record the database keeps and serves (null: retired at run time). */
  readonly database: object | null;
  readonly detectedAt: string;
  /** The import that found it, e.g. "directory:kb". */
  readonly source: string;
}
