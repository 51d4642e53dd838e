/**
 * What a proposal changes, field by field, against the knowledge base a face
 * answers from: the record of its key now (if any) and each changed field's
 * value before and after. Every face that shows the review queue (GraphQL,
 * chat, the page) reads a proposal through here, so a reviewer sees the same
 * before → after wherever they decide.
 */
import type { KbSnapshot } from "../knowledge/snapshot.js";
import type { EntityName } from "../knowledge/records.js";
import { ENTITIES, recordKey } from "../knowledge/registry.js";
import type { StoredProposal } from "./proposals.js";

/** One field a proposal changes: undefined before for a created record, undefined after for a retired one. */
export interface FieldChange {
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** The knowledge base's record of the proposal's key now; undefined when it has none (or the kind is unknown here). */
export function currentRecordOf(
  snapshot: KbSnapshot,
  proposal: Pick<StoredProposal, "entity" | "key">,
): Readonly<Record<string, unknown>> | undefined {
  const entity = proposal.entity as EntityName;
  if (!(entity in ENTITIES)) return undefined;
  const records = snapshot.records(entity) as readonly object[];
  const found = records.find((record) => recordKey(entity, record as never) === proposal.key);
  return found as Readonly<Record<string, unknown>> | undefined;
}

/**
 * The fields the proposal changes with their values before (the record now)
 * and after (the proposed record): every field of a create, the changed
 * fields of an update, every field of the record now for a retirement.
 */
export function fieldChanges(snapshot: KbSnapshot, proposal: StoredProposal): FieldChange[] {
  const current = currentRecordOf(snapshot, proposal);
  const proposed = (proposal.record ?? {}) as Readonly<Record<string, unknown>>;
  if (proposal.action === "retire")
    return Object.entries(current ?? {})
      .filter(([field]) => field !== "revision")
      .map(([field, before]) => ({ field, before, after: undefined }));
  const fields = proposal.action === "create" ? Object.keys(proposed) : proposal.changedFields;
  return fields.map((field) => ({ field, before: current?.[field], after: proposed[field] }));
}

/** A value as a person reads it in a short line: JSON, cut at `max` characters; "—" for nothing. */
export function valueWords(value: unknown, max = 120): string {
  if (value === undefined) return "—";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
