/**
 * Compares what an upstream source says with kb/ and lists, per kb file,
 * what the knowledge base lacks or states differently: findings for a
 * reviewer and proposed records (new ones, and kb records with the upstream
 * values put in). Nothing here writes anywhere; the command prints the result.
 *
 * A difference the kb already explains is "known", not something to review:
 * its record's `disagreement` names the field and the upstream value.
 */
import semver from "semver";
import type { z } from "zod";
import {
  type ApiRemovalRecord,
  type EntityName,
  type ReleaseRecord,
  type RuntimeRequirementRecord,
} from "../../knowledge/records.js";
import { ENTITIES } from "../../knowledge/registry.js";
import { CONTAINERD_REPOSITORY, type ContainerdSupportRow } from "./containerd.js";
import { ENDOFLIFE_PAGE, type EndOfLifeCycle } from "./endoflife.js";
import type { DerivedRemoval } from "./lifecycle.js";

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

const minorNumber = (minor: string): number => Number(minor.split(".")[1]);

function show(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length === 0 ? "[]" : value.map(show).join(", ");
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The kb records the difference already: its disagreement names the field and the upstream value. */
function explained(
  disagreement: string | null | undefined,
  field: string,
  upstream: unknown,
): boolean {
  if (disagreement === null || disagreement === undefined) return false;
  const values = Array.isArray(upstream) ? upstream.map(String) : [String(upstream)];
  return disagreement.includes(field) && values.every((value) => disagreement.includes(value));
}

function validate(entity: EntityName, record: Record<string, unknown>): string[] {
  const parsed = (ENTITIES[entity].schema as unknown as z.ZodType).safeParse(record);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join(".") || "(record)"}: ${issue.message}`);
}

/** `record` with its keys in schema order (keys the schema does not know last). */
function ordered(
  fields: readonly string[],
  record: Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of fields) if (field in record) result[field] = record[field];
  for (const [field, value] of Object.entries(record))
    if (!(field in result)) result[field] = value;
  return result;
}

// ---------------------------------------------------------------- API removals

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

function sourceOf(removal: DerivedRemoval): string {
  return `${removal.sourceUrl} (${removal.sourceTag}, ${removal.sourceCommit})`;
}

function removedInWhy(removal: DerivedRemoval): string {
  return removal.removedBy === "marker"
    ? `APILifecycleRemoved at ${removal.sourceTag}`
    : `type gone at ${removal.goneAt!.tag} (${removal.goneAt!.commit.slice(0, 12)})${removal.markerRemovedIn === null ? "" : `; marker said ${removal.markerRemovedIn}`}`;
}

function proposeRemoval(removal: DerivedRemoval, fields: readonly string[]): ProposedRecord {
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
    notes: notes.join(" "),
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
  const record: Record<string, unknown> = {};
  for (const field of fields) {
    if (field in values) record[field] = values[field];
    else {
      record[field] = null;
      comments[field] = "not derived by kb:derive; fill in";
    }
  }
  return {
    change: "new",
    key: `${removal.apiVersion} ${removal.kind}`,
    record,
    comments,
    problems: validate("apiRemovals", record),
  };
}

export function compareApiRemovals(input: ApiRemovalComparison): Section {
  const findings: Finding[] = (input.warnings ?? []).map((message) => ({
    status: "warning" as const,
    key: "(input)",
    message,
    source: null,
  }));
  const proposals: ProposedRecord[] = [];
  const kb = new Map(input.kb.map((record) => [`${record.apiVersion} ${record.kind}`, record]));
  const since = minorNumber(input.since);
  const hasServed = input.fields.includes("servedByDefault");
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
      const proposal = proposeRemoval(removal, input.fields);
      proposals.push(proposal);
      const facts = [
        `removedIn ${removal.removedIn} (${removedInWhy(removal)})`,
        `deprecatedIn ${show(removal.deprecatedIn)}`,
        `replacement ${show(removal.replacement)}`,
        `introducedIn ${show(removal.introducedIn)}`,
        `servedByDefault ${show(removal.servedByDefault)}`,
      ];
      if (removal.provisional) facts.push("provisional (pre-release tag)");
      findings.push({
        status: "missing",
        key,
        message: `${key}: ${facts.join(", ")}`,
        source: sourceOf(removal),
      });
      continue;
    }
    const changes: Record<string, unknown> = {};
    const comments: Record<string, string> = {};
    const compare = (
      field: "introducedIn" | "removedIn" | "deprecatedIn" | "replacement" | "servedByDefault",
      upstream: unknown,
      says: string,
      why: string,
    ): void => {
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
    if (input.fields.includes("introducedIn"))
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
    if (hasServed)
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
    if (Object.keys(changes).length > 0) {
      const updated = ordered(input.fields, { ...(record as Record<string, unknown>), ...changes });
      proposals.push({
        change: "changed",
        key,
        record: updated,
        comments,
        problems: validate("apiRemovals", updated),
      });
    }
  }
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
  return { entity: "apiRemovals", file: input.file, from: input.from, findings, proposals };
}

// ---------------------------------------------------------------- releases (endoflife.date)

export interface ReleaseComparison {
  readonly kb: readonly ReleaseRecord[];
  readonly cycles: readonly EndOfLifeCycle[];
  readonly fields: readonly string[];
  readonly file: string;
  readonly from: string;
  readonly warnings?: readonly string[];
}

const RELEASE_FIELDS = [
  ["releaseDate", "releaseDate"],
  ["endOfStandardSupport", "support"],
  ["endOfLife", "eol"],
  ["latestPatch", "latest"],
  ["latestPatchDate", "latestReleaseDate"],
] as const;

export function compareReleases(input: ReleaseComparison): Section {
  const findings: Finding[] = (input.warnings ?? []).map((message) => ({
    status: "warning" as const,
    key: "(input)",
    message,
    source: null,
  }));
  const proposals: ProposedRecord[] = [];
  const kb = new Map(input.kb.map((record) => [record.version, record]));
  const oldestKb = Math.min(...input.kb.map((record) => minorNumber(record.version)));
  const upstream = new Set(input.cycles.map((cycle) => cycle.cycle));
  const older: string[] = [];
  const sorted = [...input.cycles].sort((a, b) => minorNumber(a.cycle) - minorNumber(b.cycle));
  for (const cycle of sorted) {
    const record = kb.get(cycle.cycle);
    if (record === undefined) {
      if (minorNumber(cycle.cycle) < oldestKb) {
        older.push(cycle.cycle);
        continue;
      }
      const values: Record<string, unknown> = {
        version: cycle.cycle,
        releaseDate: cycle.releaseDate,
        endOfStandardSupport: cycle.support,
        endOfLife: cycle.eol,
        latestPatch: cycle.latest,
        latestPatchDate: cycle.latestReleaseDate,
        etcdVersion: null,
        etcdSourceUrl: null,
        sourceUrl: ENDOFLIFE_PAGE,
        disagreement: null,
      };
      const comments: Record<string, string> = {};
      for (const [field] of RELEASE_FIELDS)
        comments[field] = values[field] === null ? "not on endoflife.date yet" : "endoflife.date";
      comments.etcdVersion =
        "not derived: kubeadm's SupportedEtcdVersion (cmd/kubeadm/app/constants/constants.go)";
      const record: Record<string, unknown> = {};
      for (const field of input.fields) {
        record[field] = field in values ? values[field] : null;
        if (!(field in values)) comments[field] = "not derived by kb:derive; fill in";
      }
      proposals.push({
        change: "new",
        key: cycle.cycle,
        record,
        comments,
        problems: validate("releases", record),
      });
      const facts = RELEASE_FIELDS.map(([field, json]) => `${field} ${show(cycle[json])}`);
      findings.push({
        status: "missing",
        key: cycle.cycle,
        message: `${cycle.cycle}: ${facts.join(", ")}`,
        source: ENDOFLIFE_PAGE,
      });
      continue;
    }
    const changes: Record<string, unknown> = {};
    const comments: Record<string, string> = {};
    let kbAhead = false;
    for (const [field, json] of RELEASE_FIELDS) {
      const value = cycle[json];
      const current = record[field];
      if (value === null || value === current) continue;
      if (field === "latestPatchDate" && kbAhead) continue;
      if (
        field === "latestPatch" &&
        current !== null &&
        semver.valid(current) !== null &&
        semver.gt(current, value)
      ) {
        kbAhead = true;
        findings.push({
          status: "info",
          key: cycle.cycle,
          message: `${cycle.cycle} latestPatch: kb says ${current}, endoflife.date says ${value}; the endoflife.date copy is older, nothing to change`,
          source: ENDOFLIFE_PAGE,
        });
        continue;
      }
      if (current === null) {
        findings.push({
          status: "missing",
          key: cycle.cycle,
          message: `${cycle.cycle} lacks ${field}: endoflife.date says ${value}`,
          source: ENDOFLIFE_PAGE,
        });
      } else {
        const status = explained(record.disagreement, field, value) ? "known" : "differs";
        const suffix = status === "known" ? "; the kb's disagreement explains it" : "";
        findings.push({
          status,
          key: cycle.cycle,
          message: `${cycle.cycle} ${field}: kb says ${current}, endoflife.date says ${value}${suffix}`,
          source: ENDOFLIFE_PAGE,
        });
        if (status === "known") continue;
      }
      changes[field] = value;
      comments[field] = `kb: ${show(current)}; endoflife.date ${json}`;
    }
    if (Object.keys(changes).length > 0) {
      const updated = ordered(input.fields, { ...(record as Record<string, unknown>), ...changes });
      proposals.push({
        change: "changed",
        key: cycle.cycle,
        record: updated,
        comments,
        problems: validate("releases", updated),
      });
    }
  }
  if (older.length > 0) {
    findings.push({
      status: "info",
      key: "(older)",
      message: `endoflife.date also lists ${older.join(", ")}, older than the kb's oldest release; not proposed`,
      source: null,
    });
  }
  const onlyKb = input.kb
    .filter((record) => !upstream.has(record.version))
    .map((record) => record.version);
  if (onlyKb.length > 0) {
    findings.push({
      status: "info",
      key: "(kb only)",
      message: `the kb has ${onlyKb.join(", ")}, which this endoflife.date copy does not list; nothing to compare`,
      source: null,
    });
  }
  return { entity: "releases", file: input.file, from: input.from, findings, proposals };
}

// ---------------------------------------------------------------- containerd (RELEASES.md)

export interface ContainerdComparison {
  readonly kb: readonly RuntimeRequirementRecord[];
  readonly rows: readonly ContainerdSupportRow[];
  /** The file's commit in containerd/containerd when known, for blob links with #L<line>. */
  readonly commit: string | null;
  readonly fields: readonly string[];
  readonly file: string;
  readonly from: string;
  readonly warnings?: readonly string[];
}

/** "1.7.28" → "1.7" */
const releaseLine = (version: string): string => version.split(".").slice(0, 2).join(".");

function joinOr(items: readonly string[]): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} or ${items.at(-1)!}`;
}

export function containerdSourceUrl(commit: string | null, row: ContainerdSupportRow): string {
  return commit === null
    ? `${CONTAINERD_REPOSITORY}/blob/main/RELEASES.md#kubernetes-support`
    : `${CONTAINERD_REPOSITORY}/blob/${commit}/RELEASES.md#L${row.line}`;
}

export function compareContainerd(input: ContainerdComparison): Section {
  const findings: Finding[] = (input.warnings ?? []).map((message) => ({
    status: "warning" as const,
    key: "(input)",
    message,
    source: null,
  }));
  const proposals: ProposedRecord[] = [];
  const recommended = input.kb.filter(
    (record) => record.component === "containerd" && record.kind === "RECOMMENDED_MIN_VERSION",
  );
  const kb = new Map<string, RuntimeRequirementRecord>();
  for (const record of recommended)
    if (!kb.has(record.kubernetesFrom)) kb.set(record.kubernetesFrom, record);
  const ids = new Set(input.kb.map((record) => record.id));
  const readAt =
    input.commit === null
      ? "Read in a copy of containerd's RELEASES.md whose commit kb:derive could not tell (pass --containerd-commit)."
      : `Read at containerd commit ${input.commit.slice(0, 12)}.`;

  const oldestKb = Math.min(...[...kb.keys()].map(minorNumber));
  const olderRows: string[] = [];
  for (const row of input.rows) {
    const source = containerdSourceUrl(input.commit, row);
    if (
      row.problems.length === 0 &&
      !kb.has(row.kubernetes) &&
      minorNumber(row.kubernetes) < oldestKb
    ) {
      olderRows.push(row.kubernetes);
      continue;
    }
    if (row.problems.length > 0) {
      findings.push({
        status: "warning",
        key: row.kubernetes,
        message: `RELEASES.md line ${row.line} (Kubernetes ${row.kubernetes}) is not compared: ${row.problems.join("; ")}`,
        source,
      });
      continue;
    }
    const byVersion = [...row.versions].sort((a, b) => semver.rcompare(a, b));
    const minVersion = byVersion.at(-1)!;
    const lineMinVersions = byVersion.length > 1 ? byVersion : [];
    const summary = `containerd's Kubernetes Support table for ${row.kubernetes}: ${joinOr(byVersion.map((version) => `${version}+`))}${row.cri === null ? "" : ` (CRI ${row.cri})`}.`;
    const record = kb.get(row.kubernetes);
    if (record === undefined) {
      let id = `containerd-k8s-${row.kubernetes.replace(".", "-")}-recommended`;
      if (ids.has(id)) id = `${id}-table`;
      const values: Record<string, unknown> = {
        id,
        component: "containerd",
        kubernetesFrom: row.kubernetes,
        kind: "RECOMMENDED_MIN_VERSION",
        minVersion,
        lineMinVersions,
        requires: null,
        summary,
        sourceUrl: source,
        notes: `${readAt} Recommended/tested versions, not a hard Kubernetes requirement; minVersion is the lowest listed line (${releaseLine(minVersion)}).`,
        disagreement: null,
      };
      const comments: Record<string, string> = {};
      const proposed: Record<string, unknown> = {};
      for (const field of input.fields) {
        proposed[field] = field in values ? values[field] : null;
        if (!(field in values)) comments[field] = "not derived by kb:derive; fill in";
      }
      proposals.push({
        change: "new",
        key: id,
        record: proposed,
        comments,
        problems: validate("runtimeRequirements", proposed),
      });
      findings.push({
        status: "missing",
        key: id,
        message: `Kubernetes ${row.kubernetes}: containerd ${byVersion.map((version) => `${version}+`).join(", ")}${row.cri === null ? "" : ` (CRI ${row.cri})`}`,
        source,
      });
      continue;
    }
    const kbLines =
      record.lineMinVersions.length > 0
        ? record.lineMinVersions
        : record.minVersion === null
          ? []
          : [record.minVersion];
    const kbByLine = new Map(kbLines.map((version) => [releaseLine(version), version]));
    const tableByLine = new Map(byVersion.map((version) => [releaseLine(version), version]));
    const lines = [...new Set([...kbByLine.keys(), ...tableByLine.keys()])].sort((a, b) =>
      semver.rcompare(`${a}.0`, `${b}.0`),
    );
    const details = lines
      .filter((line) => kbByLine.get(line) !== tableByLine.get(line))
      .map(
        (line) =>
          `${line}: ${kbByLine.get(line) ?? "not in kb"} → ${tableByLine.get(line) ?? "not in table"}`,
      );
    const changes: Record<string, unknown> = {};
    const comments: Record<string, string> = {};
    if (details.length > 0) {
      const status = explained(record.disagreement, "lineMinVersions", byVersion)
        ? "known"
        : "differs";
      const suffix = status === "known" ? "; the kb's disagreement explains it" : "";
      findings.push({
        status,
        key: record.id,
        message: `${record.id} (Kubernetes ${row.kubernetes}) lineMinVersions: kb says ${show(kbLines)}, RELEASES.md says ${show(byVersion)} (${details.join("; ")})${suffix}`,
        source,
      });
      if (status === "differs") {
        if (JSON.stringify(record.lineMinVersions) !== JSON.stringify(lineMinVersions)) {
          changes.lineMinVersions = lineMinVersions;
          comments.lineMinVersions = `kb: ${show(record.lineMinVersions)}`;
        }
        if (record.minVersion !== minVersion) {
          changes.minVersion = minVersion;
          comments.minVersion = `kb: ${show(record.minVersion)}`;
        }
        changes.summary = summary;
        comments.summary = "rewritten from the table row";
        changes.sourceUrl = source;
        comments.sourceUrl = `kb: ${record.sourceUrl}`;
      }
    }
    if (Object.keys(changes).length > 0) {
      const updated = ordered(input.fields, { ...(record as Record<string, unknown>), ...changes });
      proposals.push({
        change: "changed",
        key: record.id,
        record: updated,
        comments,
        problems: validate("runtimeRequirements", updated),
      });
    }
  }
  if (olderRows.length > 0) {
    findings.push({
      status: "info",
      key: "(older)",
      message: `the table also lists ${olderRows.join(", ")}, older than the kb's oldest containerd row; not proposed`,
      source: null,
    });
  }
  const tableMinors = input.rows
    .map((row) => row.kubernetes)
    .filter((minor) => /^1\.\d+$/.test(minor))
    .map(minorNumber);
  const newestRow = Math.max(...tableMinors);
  const kbOnly = [...kb.keys()]
    .filter((minor) => !input.rows.some((row) => row.kubernetes === minor))
    .sort((a, b) => minorNumber(a) - minorNumber(b));
  const dropped = kbOnly.filter((minor) => minorNumber(minor) < newestRow);
  const ahead = kbOnly.filter((minor) => minorNumber(minor) > newestRow);
  if (dropped.length > 0) {
    findings.push({
      status: "info",
      key: "(kb only)",
      message: `the kb has containerd rows for ${dropped.join(", ")} that this table does not list (containerd drops the rows of Kubernetes minors past end of life); not a difference`,
      source: null,
    });
  }
  if (ahead.length > 0) {
    findings.push({
      status: "info",
      key: "(kb only)",
      message: `the kb has containerd rows for ${ahead.join(", ")}, newer than this table's newest row (1.${newestRow}): this copy of RELEASES.md may be older than the kb's source`,
      source: null,
    });
  }
  return { entity: "runtimeRequirements", file: input.file, from: input.from, findings, proposals };
}
