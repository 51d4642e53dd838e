/**
 * kb/api-removals.yaml against the removals derived from the
 * prerelease-lifecycle markers of kubernetes/api (lifecycle.ts): a removal
 * the kb lacks is proposed when it falls from `since` on; a kb record is
 * compared field by field (removedIn, deprecatedIn, replacement, and
 * introducedIn and servedByDefault when the schema has them) unless it was
 * removed before the oldest tag read, whose markers say nothing about it.
 */
import { type ApiRemovalRecord } from "../../knowledge/records.js";
import {
  explained,
  inputWarnings,
  minorNumber,
  newRecord,
  proposeChange,
  show,
  validate,
  type Finding,
  type ProposedRecord,
  type Section,
} from "./compare.js";
import type { DerivedRemoval } from "./lifecycle.js";

export interface ApiRemovalComparison {
  readonly kb: readonly ApiRemovalRecord[];
  readonly derived: readonly DerivedRemoval[];
  /** "1.33": removals from this minor on that the kb lacks are proposed. */
  readonly since: string;
  /** apiRemovalRecord's fields at run time (schemaFields("apiRemovals")). */
  readonly fields: readonly string[];
  /**
   * The minor of the oldest tag read. A kb record removed before it is not
   * compared: the markers read were written after its removal (and may have
   * been retargeted since), so they say nothing about it.
   */
  readonly oldestMinor: number;
  readonly file: string;
  readonly from: string;
  readonly warnings?: readonly string[];
}

type ComparedField =
  | "introducedIn"
  | "removedIn"
  | "deprecatedIn"
  | "replacement"
  | "servedByDefault";

function sourceOf(removal: DerivedRemoval): string {
  return `${removal.sourceUrl} (${removal.sourceTag}, ${removal.sourceCommit})`;
}

function removedInWhy(removal: DerivedRemoval): string {
  return removal.removedBy === "marker"
    ? `APILifecycleRemoved at ${removal.sourceTag}`
    : `type gone at ${removal.goneAt!.tag} (${removal.goneAt!.commit.slice(0, 12)})${removal.markerRemovedIn === null ? "" : `; marker said ${removal.markerRemovedIn}`}`;
}

/** The record's notes: where it was derived from, and what the schema has no field for. */
function removalNotes(removal: DerivedRemoval, fields: readonly string[]): string {
  const has = (field: string): boolean => fields.includes(field);
  const notes = [
    `Derived by kb:derive from the prerelease-lifecycle markers in kubernetes/api at ${removal.sourceTag} (commit ${removal.sourceCommit}).`,
  ];
  if (!has("introducedIn")) notes.push(`introducedIn ${show(removal.introducedIn)}.`);
  if (!has("servedByDefault"))
    notes.push(
      `servedByDefault ${show(removal.servedByDefault)}: ${removal.servedByDefaultReason}.`,
    );
  if (removal.replacementKind !== null)
    notes.push(`The replacement kind is ${removal.replacementKind}.`);
  if (removal.goneAt !== null)
    notes.push(`The type is absent at ${removal.goneAt.tag} (commit ${removal.goneAt.commit}).`);
  for (const note of removal.notes) notes.push(`${note.charAt(0).toUpperCase()}${note.slice(1)}.`);
  return notes.join(" ");
}

function proposeRemoval(removal: DerivedRemoval, fields: readonly string[]): ProposedRecord {
  const values: Record<string, unknown> = {
    apiVersion: removal.apiVersion,
    group: removal.group,
    version: removal.version,
    kind: removal.kind,
    introducedIn: removal.introducedIn,
    deprecatedIn: removal.deprecatedIn,
    removedIn: removal.removedIn,
    replacement: removal.replacement,
    replacementAvailableIn: removal.replacementAvailableIn,
    servedByDefault: removal.servedByDefault,
    notes: removalNotes(removal, fields),
    sourceUrl: removal.sourceUrl,
    disagreement: null,
  };
  const comments: Record<string, string> = {
    removedIn: removedInWhy(removal),
    deprecatedIn:
      removal.deprecatedIn === null
        ? "no APILifecycleDeprecated marker"
        : `APILifecycleDeprecated at ${removal.sourceTag}`,
    replacementAvailableIn:
      removal.replacement === null
        ? "no replacement"
        : removal.replacementAvailableIn === null
          ? "not derived: the replacement's markers are not in the tags read"
          : `APILifecycleIntroduced of ${removal.replacement} ${removal.replacementKind ?? removal.kind}`,
    servedByDefault: removal.servedByDefaultReason,
  };
  if (removal.provisional) comments.kind = "provisional: read at or gone in a pre-release tag";
  const record = newRecord(fields, values, comments);
  return {
    change: "new",
    key: `${removal.apiVersion} ${removal.kind}`,
    record,
    comments,
    problems: validate("apiRemovals", record),
  };
}

function missingRemoval(key: string, removal: DerivedRemoval): Finding {
  const facts = [
    `removedIn ${removal.removedIn} (${removedInWhy(removal)})`,
    `deprecatedIn ${show(removal.deprecatedIn)}`,
    `replacement ${show(removal.replacement)}`,
    `introducedIn ${show(removal.introducedIn)}`,
    `servedByDefault ${show(removal.servedByDefault)}`,
  ];
  if (removal.provisional) facts.push("provisional (pre-release tag)");
  return {
    status: "missing",
    key,
    message: `${key}: ${facts.join(", ")}`,
    source: sourceOf(removal),
  };
}

/**
 * One kb record against its derived removal. A field the kb leaves empty is
 * only reported (as missing) when the removal is in scope; one that differs
 * is proposed unless the record's disagreement explains it.
 */
function compareRemoval(
  key: string,
  record: ApiRemovalRecord,
  removal: DerivedRemoval,
  inScope: boolean,
  fields: readonly string[],
): { findings: Finding[]; proposal: ProposedRecord | undefined } {
  const findings: Finding[] = [];
  const changes: Record<string, unknown> = {};
  const comments: Record<string, string> = {};
  const compare = (field: ComparedField, upstream: unknown, says: string, why: string): void => {
    const current = (record as Record<string, unknown>)[field] ?? null;
    if (upstream === null || upstream === current) return;
    if (current === null && (field === "servedByDefault" || field === "introducedIn")) {
      if (!inScope) return;
      const reason = field === "servedByDefault" ? ` (${removal.servedByDefaultReason})` : "";
      findings.push({
        status: "missing",
        key,
        message: `${key} lacks ${field}: ${says} says ${show(upstream)}${reason}`,
        source: sourceOf(removal),
      });
    } else {
      const status = explained(record.disagreement, field, upstream) ? "known" : "differs";
      const suffix = status === "known" ? "; the kb's disagreement explains it" : "";
      findings.push({
        status,
        key,
        message: `${key} ${field}: kb says ${show(current)}, ${says} says ${show(upstream)}${suffix}`,
        source: sourceOf(removal),
      });
      if (status === "known") return;
    }
    changes[field] = upstream;
    comments[field] = `kb: ${show(current)}; ${why}`;
  };
  const removedSays =
    removal.removedBy === "marker"
      ? "marker"
      : `kubernetes/api (type gone at ${removal.goneAt!.tag})`;
  if (fields.includes("introducedIn"))
    compare(
      "introducedIn",
      removal.introducedIn,
      "marker",
      `APILifecycleIntroduced at ${removal.sourceTag}`,
    );
  compare("removedIn", removal.removedIn, removedSays, removedInWhy(removal));
  compare(
    "deprecatedIn",
    removal.deprecatedIn,
    "marker",
    `APILifecycleDeprecated at ${removal.sourceTag}`,
  );
  compare(
    "replacement",
    removal.replacement,
    "marker",
    `APILifecycleReplacement at ${removal.sourceTag}`,
  );
  if (fields.includes("servedByDefault"))
    compare(
      "servedByDefault",
      removal.servedByDefault,
      "the KEP-3136 rule",
      removal.servedByDefaultReason,
    );
  if (
    "replacement" in changes &&
    removal.replacementAvailableIn !== null &&
    removal.replacementAvailableIn !== record.replacementAvailableIn
  ) {
    changes.replacementAvailableIn = removal.replacementAvailableIn;
    comments.replacementAvailableIn = `kb: ${show(record.replacementAvailableIn)}; goes with the marker's replacement (its APILifecycleIntroduced)`;
  }
  return {
    findings,
    proposal: proposeChange("apiRemovals", key, fields, record, changes, comments),
  };
}

/** What was left out of the comparison, so the reviewer knows it was seen. */
function leftOut(input: ApiRemovalComparison, outside: number, older: number): Finding[] {
  const findings: Finding[] = [];
  if (outside > 0) {
    findings.push({
      status: "info",
      key: "(before the tags)",
      message: `${outside} kb record(s) removed before 1.${input.oldestMinor}, the oldest tag read, are not compared (their markers were read after the removal)`,
      source: null,
    });
  }
  if (older > 0) {
    findings.push({
      status: "info",
      key: "(older)",
      message: `${older} derived removal(s) before ${input.since} are not in the kb; they are not proposed (use --since to see them)`,
      source: null,
    });
  }
  return findings;
}

export function compareApiRemovals(input: ApiRemovalComparison): Section {
  const findings = inputWarnings(input.warnings);
  const proposals: ProposedRecord[] = [];
  const kb = new Map(input.kb.map((record) => [`${record.apiVersion} ${record.kind}`, record]));
  const since = minorNumber(input.since);
  let older = 0;
  let outside = 0;
  for (const removal of input.derived) {
    const key = `${removal.apiVersion} ${removal.kind}`;
    const record = kb.get(key);
    const inScope = minorNumber(removal.removedIn) >= since;
    if (
      record !== undefined &&
      Math.max(minorNumber(record.removedIn), minorNumber(removal.removedIn)) < input.oldestMinor
    ) {
      outside += 1;
      continue;
    }
    if (record === undefined) {
      if (!inScope) {
        older += 1;
        continue;
      }
      proposals.push(proposeRemoval(removal, input.fields));
      findings.push(missingRemoval(key, removal));
      continue;
    }
    const compared = compareRemoval(key, record, removal, inScope, input.fields);
    findings.push(...compared.findings);
    if (compared.proposal !== undefined) proposals.push(compared.proposal);
  }
  findings.push(...leftOut(input, outside, older));
  return { entity: "apiRemovals", file: input.file, from: input.from, findings, proposals };
}
