/**
 * Renders the server's answers for people: aligned text tables for a
 * terminal (coloured only when the caller says stdout is a colour TTY) and
 * Markdown tables for a pull-request comment. Rendering never changes what an
 * answer says, only how it is laid out; `--output json` bypasses this module.
 */
import { planMermaid } from "../../domain/plan-timeline.js";
import type {
  Finding,
  NodePoolAnswer,
  ScanRow,
  UpgradePlanAnswer,
  UpgradeStep,
  ValidationAnswer,
} from "./answers.js";

export interface TextStyle {
  /** ANSI colours on; the caller decides (TTY and NO_COLOR). */
  readonly colour: boolean;
  /** Terminal width to wrap the last column at, or null to never wrap (pipes, files, CI logs stay one line per row). */
  readonly width: number | null;
}

/** A scan finding with the file it came from. */
export interface FileFinding extends ScanRow {
  readonly file: string;
}

/** What a node-pool check was about, besides the answer: the direction and the control plane. */
export interface NodePoolQuestion {
  readonly rollback: boolean;
  readonly controlPlaneVersion: string;
  readonly profile: string | undefined;
}

export interface ScanSummary {
  readonly targetVersion: string;
  /** The files' verdicts as one (scanStatus). */
  readonly status: string;
  readonly kbRevision: number | null;
  readonly files: number;
  readonly documentsScanned: number;
  readonly objectsScanned: number;
  readonly findings: readonly FileFinding[];
  /** About the scan as a whole (the same for every file, so listed once). */
  readonly notes: readonly Finding[];
}

// ---------------------------------------------------------------------------------------------
// Text

const ANSI = { red: "31", yellow: "33", cyan: "36", green: "32", bold: "1", dim: "2" } as const;
type Paint = keyof typeof ANSI;

interface Cell {
  readonly text: string;
  readonly paint?: readonly Paint[];
}

function paint(text: string, codes: readonly Paint[] | undefined, style: TextStyle): string {
  if (!style.colour || codes === undefined || codes.length === 0 || text === "") return text;
  return `\u001b[${codes.map((code) => ANSI[code]).join(";")}m${text}\u001b[0m`;
}

function severityPaint(severity: string): Paint[] {
  if (severity === "ERROR") return ["red", "bold"];
  if (severity === "WARNING") return ["yellow"];
  return ["cyan"];
}

/**
 * Columns padded to their widest cell (measured before colouring, so escape
 * codes never skew the alignment); the last column wraps under itself when a
 * width is known and leaves room for it.
 */
function table(
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  style: TextStyle,
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]?.text.length ?? 0)),
  );
  const indent = widths.slice(0, -1).reduce((sum, width) => sum + width + 2, 0);
  const lastWidth = style.width === null ? null : style.width - indent;
  const render = (cells: readonly Cell[]): string[] => {
    const lead = cells
      .slice(0, -1)
      .map(
        (cell, column) =>
          paint(cell.text, cell.paint, style) + " ".repeat(widths[column]! - cell.text.length + 2),
      )
      .join("");
    const last = cells.at(-1)!;
    const lines = lastWidth !== null && lastWidth >= 30 ? wrap(last.text, lastWidth) : [last.text];
    return lines.map(
      (line, index) => (index === 0 ? lead : " ".repeat(indent)) + paint(line, last.paint, style),
    );
  };
  const header = render(headers.map((text) => ({ text, paint: ["bold"] as Paint[] })));
  return [...header, ...rows.flatMap((row) => render(row))]
    .map((line) => line.trimEnd())
    .join("\n");
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((part) => part !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}

/** Numbers each distinct source URL once, so a table row can cite `[2]` and the list follows the table. */
class Sources {
  private readonly numbers = new Map<string, number>();

  cite(url: string | null | undefined): string {
    if (!url) return "";
    let number = this.numbers.get(url);
    if (number === undefined) {
      number = this.numbers.size + 1;
      this.numbers.set(url, number);
    }
    return ` [${number}]`;
  }

  text(): string {
    if (this.numbers.size === 0) return "";
    return ["Sources:", ...[...this.numbers].map(([url, number]) => `  [${number}] ${url}`)].join(
      "\n",
    );
  }
}

function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

export function severityCounts(findings: readonly { severity: string }[]): string {
  const count = (severity: string): number =>
    findings.filter((finding) => finding.severity === severity).length;
  const parts = [
    count("ERROR") > 0 ? counted(count("ERROR"), "error") : "",
    count("WARNING") > 0 ? counted(count("WARNING"), "warning") : "",
    count("INFO") > 0 ? `${count("INFO")} info` : "",
  ].filter((part) => part !== "");
  return parts.length === 0 ? "no findings" : parts.join(", ");
}

function subject(component: string | null, instance: string | null): string {
  if (component === null) return "-";
  return instance === null || instance === "" ? component : `${component}@${instance}`;
}

function findingsTable(findings: readonly Finding[], sources: Sources, style: TextStyle): string {
  return table(
    ["SEVERITY", "CODE", "COMPONENT", "MESSAGE"],
    findings.map((finding) => [
      { text: finding.severity, paint: severityPaint(finding.severity) },
      { text: finding.code },
      { text: subject(finding.component, finding.instance) },
      { text: finding.message + sources.cite(finding.sourceUrl) },
    ]),
    style,
  );
}

type Status = "SUPPORTED" | "SUPPORTED_WITH_WARNINGS" | "UNSUPPORTED" | "NOT_JUDGED";

/** The verdict of an answer: its status, or (from a server that sends none) what ok and the findings say. */
function statusOf(answer: {
  readonly ok: boolean;
  readonly status?: string;
  readonly findings: readonly { severity: string }[];
}): Status {
  if (
    answer.status === "SUPPORTED" ||
    answer.status === "SUPPORTED_WITH_WARNINGS" ||
    answer.status === "UNSUPPORTED" ||
    answer.status === "NOT_JUDGED"
  )
    return answer.status;
  if (!answer.ok) return "UNSUPPORTED";
  return answer.findings.some((finding) => finding.severity === "WARNING")
    ? "SUPPORTED_WITH_WARNINGS"
    : "SUPPORTED";
}

const pastEndOfLife = (findings: readonly { check?: string }[]): boolean =>
  findings.some((finding) => finding.check === "END_OF_LIFE");

/** SUPPORTED in green only when there is nothing to warn about; end of life and "not checked" say so. */
function statusText(
  answer: {
    readonly ok: boolean;
    readonly status?: string;
    readonly findings: readonly { severity: string; code: string; check?: string }[];
  },
  style: TextStyle,
): string {
  const status = statusOf(answer);
  if (status === "SUPPORTED") return paint("SUPPORTED", ["green", "bold"], style);
  if (status === "UNSUPPORTED") return paint("NOT SUPPORTED", ["red", "bold"], style);
  if (status === "NOT_JUDGED") return paint("NOT CHECKED", ["yellow", "bold"], style);
  return paint(
    pastEndOfLife(answer.findings) ? "END OF LIFE" : "SUPPORTED WITH WARNINGS",
    ["yellow", "bold"],
    style,
  );
}

function statusIcon(answer: {
  readonly ok: boolean;
  readonly status?: string;
  readonly findings: readonly { severity: string }[];
}): string {
  return { SUPPORTED: "✅", SUPPORTED_WITH_WARNINGS: "⚠️", UNSUPPORTED: "❌", NOT_JUDGED: "❔" }[
    statusOf(answer)
  ];
}

function statusPhrase(answer: {
  readonly ok: boolean;
  readonly status?: string;
  readonly findings: readonly { severity: string; code: string; check?: string }[];
}): string {
  const status = statusOf(answer);
  if (status === "SUPPORTED") return "supported";
  if (status === "UNSUPPORTED") return "not supported";
  if (status === "NOT_JUDGED") return "not checked";
  return pastEndOfLife(answer.findings) ? "end of life" : "supported with warnings";
}

function about(kbRevision: number | null | undefined, profile: string | undefined): string {
  const parts = [
    kbRevision === null || kbRevision === undefined ? "" : `knowledge base revision ${kbRevision}`,
    profile ? `profile ${profile}` : "",
  ];
  const text = parts.filter((part) => part !== "").join(", ");
  return text === "" ? "" : ` (${text})`;
}

function blocks(...parts: string[]): string {
  return `${parts.filter((part) => part !== "").join("\n\n")}\n`;
}

export function validationText(
  answer: ValidationAnswer,
  profile: string | undefined,
  style: TextStyle,
): string {
  const sources = new Sources();
  const findings =
    answer.findings.length === 0 ? "" : findingsTable(answer.findings, sources, style);
  const summary = `${statusText(answer, style)}: ${severityCounts(answer.findings)}${about(answer.kbRevision, profile)}`;
  return blocks(findings, sources.text(), summary);
}

/** What a step changes, for its FROM and TO columns: versions, or the nodes' cgroup version. */
function stepEnds(step: UpgradeStep): { from: string; to: string } {
  if (step.action === "MIGRATE_CGROUP_V2")
    return { from: `${step.fromVersion} on cgroup v1`, to: `${step.toVersion} on cgroup v2` };
  if (step.action === "REMOVE_FEATURE_GATES")
    return { from: `${step.fromVersion} with gates`, to: `${step.toVersion} without them` };
  return { from: step.fromVersion, to: step.toVersion };
}

export function upgradePlanText(
  answer: UpgradePlanAnswer,
  profile: string | undefined,
  style: TextStyle,
): string {
  const sources = new Sources();
  const steps =
    answer.steps.length === 0
      ? "No upgrade steps."
      : `${paint(`Upgrade steps to ${answer.targetVersion}`, ["bold"], style)}\n${table(
          ["ORDER", "COMPONENT", "FROM", "TO", "NOTE"],
          answer.steps.map((step) => [
            { text: String(step.order) },
            { text: subject(step.component, step.instance) },
            { text: stepEnds(step).from },
            { text: stepEnds(step).to },
            { text: step.note },
          ]),
          style,
        )}`;
  // One line per control-plane hop (its first kube-apiserver step): the last point it can be undone.
  const hops = answer.steps.filter(
    (step, index, all) =>
      typeof step.undo === "string" && all.findIndex((other) => other.undo === step.undo) === index,
  );
  const undo =
    hops.length === 0
      ? ""
      : `${paint("Undoing a hop", ["bold"], style)}
${hops.map((step) => `  step ${step.order} (${step.fromVersion} to ${step.toVersion}): ${step.undo!}`).join("\n")}`;
  const removals =
    answer.apiRemovals.length === 0
      ? ""
      : `${paint(`API versions removed on the way to ${answer.targetVersion}`, ["bold"], style)}\n${table(
          ["API VERSION", "KIND", "REMOVED IN", "REPLACEMENT"],
          answer.apiRemovals.map((removal) => [
            { text: removal.apiVersion },
            { text: removal.kind },
            { text: removal.removedIn },
            { text: (removal.replacement ?? "none") + sources.cite(removal.sourceUrl) },
          ]),
          style,
        )}`;
  const findings =
    answer.findings.length === 0
      ? ""
      : `${paint("Findings", ["bold"], style)}\n${findingsTable(answer.findings, sources, style)}`;
  const summary = `PLAN ${statusText(answer, style)}: ${counted(answer.steps.length, "step")} to ${answer.targetVersion}, ${severityCounts(answer.findings)}${about(answer.kbRevision, profile)}`;
  return blocks(steps, undo, removals, findings, sources.text(), summary);
}

function nodePoolSummary(answer: NodePoolAnswer, question: NodePoolQuestion): string {
  return `${answer.pool} under control plane ${question.controlPlaneVersion}, ${counted(answer.steps.length, "step")}, ${severityCounts(answer.findings)}`;
}

export function nodePoolText(
  answer: NodePoolAnswer,
  question: NodePoolQuestion,
  style: TextStyle,
): string {
  const sources = new Sources();
  const findings =
    answer.findings.length === 0 ? "" : findingsTable(answer.findings, sources, style);
  const title = question.rollback
    ? `Steps to roll ${answer.pool} back`
    : `Steps to upgrade ${answer.pool}`;
  const steps =
    answer.steps.length === 0
      ? "No steps: the pool's versions, flags and kube-proxy mode stay as they are."
      : `${paint(title, ["bold"], style)}\n${table(
          ["ORDER", "ACTION", "COMPONENT", "FROM", "TO", "NOTE"],
          answer.steps.map((step) => [
            { text: String(step.order) },
            { text: step.action },
            { text: step.component ?? "-" },
            { text: step.fromVersion ?? "-" },
            { text: step.toVersion ?? "-" },
            { text: step.note },
          ]),
          style,
        )}`;
  const what = question.rollback ? "ROLLBACK" : "UPGRADE";
  const summary = `${what} ${statusText(answer, style)}: ${nodePoolSummary(answer, question)}${about(answer.kbRevision, question.profile)}`;
  return blocks(findings, steps, sources.text(), summary);
}

function objectName(finding: ScanRow): string {
  const name = finding.name ?? "(unnamed)";
  return `${finding.kind} ${finding.namespace ? `${finding.namespace}/${name}` : name}`;
}

export function scanText(summary: ScanSummary, style: TextStyle): string {
  const sources = new Sources();
  const findings =
    summary.findings.length === 0
      ? ""
      : table(
          ["SEVERITY", "CODE", "FILE:LINE", "OBJECT", "MESSAGE"],
          summary.findings.map((finding) => [
            { text: finding.severity, paint: severityPaint(finding.severity) },
            { text: finding.code },
            { text: `${finding.file}:${finding.line}` },
            { text: objectName(finding) },
            { text: finding.message + sources.cite(finding.sourceUrl) },
          ]),
          style,
        );
  const notes =
    summary.notes.length === 0
      ? ""
      : table(
          ["SEVERITY", "CODE", "MESSAGE"],
          summary.notes.map((note) => [
            { text: note.severity, paint: severityPaint(note.severity) },
            { text: note.code },
            { text: note.message + sources.cite(note.sourceUrl) },
          ]),
          style,
        );
  const scanned = `${counted(summary.files, "file")}, ${counted(summary.documentsScanned, "document")}, ${counted(summary.objectsScanned, "object")} scanned for ${summary.targetVersion}`;
  const line = `${statusText({ ok: false, status: summary.status, findings: [...summary.findings, ...summary.notes] }, style)}: ${severityCounts([...summary.findings, ...summary.notes])}; ${scanned}${about(summary.kbRevision, undefined)}`;
  return blocks(findings, notes, sources.text(), line);
}

// ---------------------------------------------------------------------------------------------
// Markdown

/** A table cell: pipes and line breaks would end the cell or the row. */
function cell(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("|", "\\|").replaceAll(/\r?\n/g, "<br>");
}

function code(text: string): string {
  // GFM ends a cell at a pipe even inside a code span unless it is escaped.
  return text === "" || text === "-"
    ? text
    : `\`${text.replaceAll("`", "'").replaceAll("|", "\\|")}\``;
}

function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${headers.join(" | ")} |`,
    `| ${headers.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

function withSource(message: string, url: string | null | undefined): string {
  return url ? `${cell(message)} ([source](${url}))` : cell(message);
}

const SEVERITY_ICON: Readonly<Record<string, string>> = {
  ERROR: "❌ ERROR",
  WARNING: "⚠️ WARNING",
  INFO: "ℹ️ INFO",
};

function severityCell(severity: string): string {
  return SEVERITY_ICON[severity] ?? cell(severity);
}

function findingsMarkdown(findings: readonly Finding[]): string {
  return markdownTable(
    ["Severity", "Code", "Component", "Message"],
    findings.map((finding) => [
      severityCell(finding.severity),
      code(finding.code),
      code(subject(finding.component, finding.instance)),
      withSource(finding.message, finding.sourceUrl),
    ]),
  );
}

function footer(kbRevision: number | null | undefined, profile: string | undefined): string {
  const text = about(kbRevision, profile);
  return text === "" ? "" : `<sub>kubecompat${text}</sub>`;
}

export function validationMarkdown(answer: ValidationAnswer, profile: string | undefined): string {
  const heading = `### ${statusIcon(answer)} kubecompat check: ${statusPhrase(answer)} (${severityCounts(answer.findings)})`;
  const findings =
    answer.findings.length === 0 ? "No findings." : findingsMarkdown(answer.findings);
  return blocks(heading, findings, footer(answer.kbRevision, profile));
}

export function upgradePlanMarkdown(
  answer: UpgradePlanAnswer,
  profile: string | undefined,
): string {
  const heading = `### ${statusIcon(answer)} kubecompat plan to ${cell(answer.targetVersion)}: ${counted(answer.steps.length, "step")}, ${severityCounts(answer.findings)}`;
  const steps =
    answer.steps.length === 0
      ? "No upgrade steps."
      : markdownTable(
          ["Order", "Component", "From", "To", "Note"],
          answer.steps.map((step) => [
            String(step.order),
            code(subject(step.component, step.instance)),
            code(stepEnds(step).from),
            code(stepEnds(step).to),
            cell(step.note),
          ]),
        );
  const removals =
    answer.apiRemovals.length === 0
      ? ""
      : `#### API versions removed on the way\n\n${markdownTable(
          ["API version", "Kind", "Removed in", "Replacement"],
          answer.apiRemovals.map((removal) => [
            code(removal.apiVersion),
            cell(removal.kind),
            cell(removal.removedIn),
            withSource(removal.replacement ?? "none", removal.sourceUrl),
          ]),
        )}`;
  const findings =
    answer.findings.length === 0 ? "" : `#### Findings\n\n${findingsMarkdown(answer.findings)}`;
  const diagram =
    answer.steps.length === 0
      ? ""
      : `#### The plan as a diagram\n\n\`\`\`mermaid\n${planMermaid(answer)}\n\`\`\``;
  return blocks(heading, steps, diagram, removals, findings, footer(answer.kbRevision, profile));
}

export function nodePoolMarkdown(answer: NodePoolAnswer, question: NodePoolQuestion): string {
  const what = question.rollback ? "rollback" : "upgrade";
  const heading =
    `### ${statusIcon(answer)} kubecompat nodepool ${what} of ${cell(answer.pool)} under control plane ${cell(question.controlPlaneVersion)}: ` +
    `${statusPhrase(answer)} (${counted(answer.steps.length, "step")}, ${severityCounts(answer.findings)})`;
  const findings =
    answer.findings.length === 0 ? "No findings." : findingsMarkdown(answer.findings);
  const steps =
    answer.steps.length === 0
      ? ""
      : `#### Steps\n\n${markdownTable(
          ["Order", "Action", "Component", "From", "To", "Note"],
          answer.steps.map((step) => [
            String(step.order),
            cell(step.action),
            code(step.component ?? "-"),
            code(step.fromVersion ?? "-"),
            code(step.toVersion ?? "-"),
            cell(step.note),
          ]),
        )}`;
  return blocks(heading, findings, steps, footer(answer.kbRevision, question.profile));
}

export function scanMarkdown(summary: ScanSummary): string {
  const judged = {
    ok: false,
    status: summary.status,
    findings: [...summary.findings, ...summary.notes],
  };
  const heading = `### ${statusIcon(judged)} kubecompat scan for ${cell(summary.targetVersion)}: ${statusPhrase(judged)} (${severityCounts(judged.findings)} in ${counted(summary.files, "file")})`;
  const findings =
    summary.findings.length === 0
      ? "No object uses an API version removed or deprecated at this version."
      : markdownTable(
          ["Severity", "Code", "File", "Object", "API version", "Message"],
          summary.findings.map((finding) => [
            severityCell(finding.severity),
            code(finding.code),
            code(`${finding.file}:${finding.line}`),
            cell(objectName(finding)),
            code(finding.apiVersion),
            withSource(finding.message, finding.sourceUrl),
          ]),
        );
  return blocks(
    heading,
    findings,
    summary.notes.length === 0 ? "" : findingsMarkdown(summary.notes),
    footer(summary.kbRevision, undefined),
  );
}
