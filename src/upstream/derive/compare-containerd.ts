/**
 * kb/runtime-requirements.yaml's containerd rows (RECOMMENDED_MIN_VERSION)
 * against the Kubernetes Support table of containerd's RELEASES.md
 * (containerd.ts): a row the kb lacks is proposed, a kb row is compared line
 * by line (1.7, 2.0, ...) on the lowest containerd version of each line. Rows
 * containerd dropped (minors past end of life) are not differences.
 */
import semver from "semver";
import { type RuntimeRequirementRecord } from "../../knowledge/records.js";
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
import { CONTAINERD_REPOSITORY, type ContainerdSupportRow } from "./containerd.js";

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

/** What one table row says, in the kb's terms. */
interface TableRow {
  readonly row: ContainerdSupportRow;
  readonly source: string;
  /** The row's versions, newest first. */
  readonly byVersion: readonly string[];
  readonly minVersion: string;
  /** Empty when the row lists one line only (the kb then states minVersion alone). */
  readonly lineMinVersions: readonly string[];
  readonly summary: string;
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

function readRow(row: ContainerdSupportRow, source: string): TableRow {
  const byVersion = [...row.versions].sort((a, b) => semver.rcompare(a, b));
  return {
    row,
    source,
    byVersion,
    minVersion: byVersion.at(-1)!,
    lineMinVersions: byVersion.length > 1 ? byVersion : [],
    summary: `containerd's Kubernetes Support table for ${row.kubernetes}: ${joinOr(byVersion.map((version) => `${version}+`))}${row.cri === null ? "" : ` (CRI ${row.cri})`}.`,
  };
}

function proposeRow(
  table: TableRow,
  ids: ReadonlySet<string>,
  readAt: string,
  fields: readonly string[],
): { finding: Finding; proposal: ProposedRecord } {
  const { row, source, byVersion, minVersion } = table;
  let id = `containerd-k8s-${row.kubernetes.replace(".", "-")}-recommended`;
  if (ids.has(id)) id = `${id}-table`;
  const values: Record<string, unknown> = {
    id,
    component: "containerd",
    kubernetesFrom: row.kubernetes,
    kind: "RECOMMENDED_MIN_VERSION",
    minVersion,
    lineMinVersions: table.lineMinVersions,
    requires: null,
    summary: table.summary,
    sourceUrl: source,
    notes: `${readAt} Recommended/tested versions, not a hard Kubernetes requirement; minVersion is the lowest listed line (${releaseLine(minVersion)}).`,
    disagreement: null,
  };
  const comments: Record<string, string> = {};
  const proposed = newRecord(fields, values, comments);
  return {
    proposal: {
      change: "new",
      key: id,
      record: proposed,
      comments,
      problems: validate("runtimeRequirements", proposed),
    },
    finding: {
      status: "missing",
      key: id,
      message: `Kubernetes ${row.kubernetes}: containerd ${byVersion.map((version) => `${version}+`).join(", ")}${row.cri === null ? "" : ` (CRI ${row.cri})`}`,
      source,
    },
  };
}

/** One kb row against the table's row, compared per containerd release line. */
function compareRow(
  record: RuntimeRequirementRecord,
  table: TableRow,
  fields: readonly string[],
): { findings: Finding[]; proposal: ProposedRecord | undefined } {
  const { row, source, byVersion, minVersion, lineMinVersions } = table;
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
  const findings: Finding[] = [];
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
      changes.summary = table.summary;
      comments.summary = "rewritten from the table row";
      changes.sourceUrl = source;
      comments.sourceUrl = `kb: ${record.sourceUrl}`;
    }
  }
  return {
    findings,
    proposal: proposeChange("runtimeRequirements", record.id, fields, record, changes, comments),
  };
}

/**
 * kb rows the table does not list: older ones containerd dropped, and newer
 * ones that say this copy of RELEASES.md is older than the kb's source.
 */
function kbOnly(
  kb: ReadonlyMap<string, RuntimeRequirementRecord>,
  rows: readonly ContainerdSupportRow[],
): Finding[] {
  const findings: Finding[] = [];
  const tableMinors = rows
    .map((row) => row.kubernetes)
    .filter((minor) => /^1\.\d+$/.test(minor))
    .map(minorNumber);
  const newestRow = Math.max(...tableMinors);
  const unlisted = [...kb.keys()]
    .filter((minor) => !rows.some((row) => row.kubernetes === minor))
    .sort((a, b) => minorNumber(a) - minorNumber(b));
  const dropped = unlisted.filter((minor) => minorNumber(minor) < newestRow);
  const ahead = unlisted.filter((minor) => minorNumber(minor) > newestRow);
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
  return findings;
}

export function compareContainerd(input: ContainerdComparison): Section {
  const findings = inputWarnings(input.warnings);
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
    const table = readRow(row, source);
    const record = kb.get(row.kubernetes);
    if (record === undefined) {
      const proposed = proposeRow(table, ids, readAt, input.fields);
      proposals.push(proposed.proposal);
      findings.push(proposed.finding);
      continue;
    }
    const compared = compareRow(record, table, input.fields);
    findings.push(...compared.findings);
    if (compared.proposal !== undefined) proposals.push(compared.proposal);
  }
  if (olderRows.length > 0) {
    findings.push({
      status: "info",
      key: "(older)",
      message: `the table also lists ${olderRows.join(", ")}, older than the kb's oldest containerd row; not proposed`,
      source: null,
    });
  }
  findings.push(...kbOnly(kb, input.rows));
  return { entity: "runtimeRequirements", file: input.file, from: input.from, findings, proposals };
}
