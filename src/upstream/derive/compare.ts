/**
 * What a comparison of an upstream source with kb/ produces, whatever the
 * source: per kb file a section of findings for a reviewer and proposed
 * records (new ones, and kb records with the upstream values put in), and the
 * few rules every comparison shares (how a value is shown, when the kb already
 * explains a difference, how a proposal is checked against its schema). The
 * comparisons themselves live in compare-api-removals.ts, compare-releases.ts,
 * compare-containerd.ts and feature-gates.ts. Nothing here writes anywhere;
 * the command prints the result.
 *
 * A difference the kb already explains is "known", not something to review:
 * its record's `disagreement` names the field and the upstream value.
 */
import type { z } from "zod";
import { type EntityName } from "../../knowledge/records.js";
import { ENTITIES } from "../../knowledge/registry.js";

export type FindingStatus = "missing" | "differs" | "known" | "info" | "warning";

export interface Finding {
  readonly status: FindingStatus;
  /** The record's natural key, e.g. "batch/v1beta1 CronJob", "1.36". */
  readonly key: string;
  readonly message: string;
  readonly source: string | null;
}

export interface ProposedRecord {
  readonly change: "new" | "changed";
  readonly key: string;
  /** The whole record, fields in schema order. */
  readonly record: Readonly<Record<string, unknown>>;
  /** Field → a short note printed after it in YAML (where the value comes from, what the kb had). */
  readonly comments: Readonly<Record<string, string>>;
  /** Schema problems of the proposal (it is still shown, with them, for the reviewer to finish). */
  readonly problems: readonly string[];
}

export interface Section {
  readonly entity: EntityName;
  /** The kb file as shown, e.g. kb/api-removals.yaml. */
  readonly file: string;
  /** What was read, e.g. "kubernetes/api at kubernetes-1.33.0 (82c0029e), ...". */
  readonly from: string;
  /** The upstream revision read, when known: a commit (a proposal's sourceRevision; else the day it was read). */
  readonly revision?: string;
  /**
   * The derivation that made it, where several derive the same kind (kb-derive-propose.ts's
   * DERIVATIONS names the others by their kind); a proposal names it.
   */
  readonly derivation?: string;
  readonly findings: readonly Finding[];
  readonly proposals: readonly ProposedRecord[];
}

/** Findings that need a reviewer (exit 1): missing records or fields, differences, unreadable input. */
export function needsReview(sections: readonly Section[]): boolean {
  return sections.some((section) =>
    section.findings.some(
      (finding) =>
        finding.status === "missing" ||
        finding.status === "differs" ||
        finding.status === "warning",
    ),
  );
}

export function countByStatus(section: Section): Record<FindingStatus, number> {
  const counts: Record<FindingStatus, number> = {
    missing: 0,
    differs: 0,
    known: 0,
    info: 0,
    warning: 0,
  };
  for (const finding of section.findings) counts[finding.status] += 1;
  return counts;
}

export const minorNumber = (minor: string): number => Number(minor.split(".")[1]);

export function show(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length === 0 ? "[]" : value.map(show).join(", ");
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The kb records the difference already: its disagreement names the field and the upstream value. */
export function explained(
  disagreement: string | null | undefined,
  field: string,
  upstream: unknown,
): boolean {
  if (disagreement === null || disagreement === undefined) return false;
  const values = Array.isArray(upstream) ? upstream.map(String) : [String(upstream)];
  return disagreement.includes(field) && values.every((value) => disagreement.includes(value));
}

export function validate(entity: EntityName, record: Record<string, unknown>): string[] {
  const parsed = (ENTITIES[entity].schema as unknown as z.ZodType).safeParse(record);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join(".") || "(record)"}: ${issue.message}`);
}

/** `record` with its keys in schema order (keys the schema does not know last). */
export function ordered(
  fields: readonly string[],
  record: Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of fields) if (field in record) result[field] = record[field];
  for (const [field, value] of Object.entries(record))
    if (!(field in result)) result[field] = value;
  return result;
}

/** The input's own warnings (an unreadable part of it), first in the section. */
export function inputWarnings(warnings: readonly string[] | undefined): Finding[] {
  return (warnings ?? []).map((message) => ({
    status: "warning" as const,
    key: "(input)",
    message,
    source: null,
  }));
}

/**
 * A new record from what was derived: the schema's fields in order, each
 * derived value put in and every other field left null with a note for the
 * reviewer (added to `comments`).
 */
export function newRecord(
  fields: readonly string[],
  values: Readonly<Record<string, unknown>>,
  comments: Record<string, string>,
): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of fields) {
    record[field] = field in values ? values[field] : null;
    if (!(field in values)) comments[field] = "not derived by kb:derive; fill in";
  }
  return record;
}

/** The kb record with the upstream values put in, or undefined when nothing changes. */
export function proposeChange(
  entity: EntityName,
  key: string,
  fields: readonly string[],
  record: object,
  changes: Readonly<Record<string, unknown>>,
  comments: Readonly<Record<string, string>>,
): ProposedRecord | undefined {
  if (Object.keys(changes).length === 0) return undefined;
  const updated = ordered(fields, { ...(record as Record<string, unknown>), ...changes });
  return { change: "changed", key, record: updated, comments, problems: validate(entity, updated) };
}
