/**
 * Renders the server's answers for people: aligned text tables for a
 * terminal (coloured only when the caller says stdout is a colour TTY) and
 * Markdown tables for a pull-request comment. Rendering never changes what an
 * answer says, only how it is laid out; `--output json` bypasses these
 * modules. This one holds the layout every answer shares (tables, colours,
 * numbered sources, the verdict line) and the validation answer, which is
 * findings only; plan-format.ts, node-pool-format.ts and scan-format.ts lay
 * out the answers that have more.
 */
import type { Finding, ValidationAnswer } from "./answers.js";

export interface TextStyle {
  /** ANSI colours on; the caller decides (TTY and NO_COLOR). */
  readonly colour: boolean;
  /** Terminal width to wrap the last column at, or null to never wrap (pipes, files, CI logs stay one line per row). */
  readonly width: number | null;
}

// ---------------------------------------------------------------------------------------------
// Text

const ANSI = { red: "31", yellow: "33", cyan: "36", green: "32", bold: "1", dim: "2" } as const;
type Paint = keyof typeof ANSI;

interface Cell {
  readonly text: string;
  readonly paint?: readonly Paint[];
}

export function paint(text: string, codes: readonly Paint[] | undefined, style: TextStyle): string {
  if (!style.colour || codes === undefined || codes.length === 0 || text === "") return text;
  return `\u001b[${codes.map((code) => ANSI[code]).join(";")}m${text}\u001b[0m`;
}

export function severityPaint(severity: string): Paint[] {
  if (severity === "ERROR") return ["red", "bold"];
  if (severity === "WARNING") return ["yellow"];
  return ["cyan"];
}

/**
 * Columns padded to their widest cell (measured before colouring, so escape
 * codes never skew the alignment); the last column wraps under itself when a
 * width is known and leaves room for it.
 */
export function table(
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
export class Sources {
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

export function counted(count: number, singular: string, plural = `${singular}s`): string {
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

export function subject(component: string | null, instance: string | null): string {
  if (component === null) return "-";
  return instance === null || instance === "" ? component : `${component}@${instance}`;
}

export function findingsTable(
  findings: readonly Finding[],
  sources: Sources,
  style: TextStyle,
): string {
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
export function statusText(
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

export function statusIcon(answer: {
  readonly ok: boolean;
  readonly status?: string;
  readonly findings: readonly { severity: string }[];
}): string {
  return { SUPPORTED: "✅", SUPPORTED_WITH_WARNINGS: "⚠️", UNSUPPORTED: "❌", NOT_JUDGED: "❔" }[
    statusOf(answer)
  ];
}

export function statusPhrase(answer: {
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

export function about(kbRevision: number | null | undefined, profile: string | undefined): string {
  const parts = [
    kbRevision === null || kbRevision === undefined ? "" : `knowledge base revision ${kbRevision}`,
    profile ? `profile ${profile}` : "",
  ];
  const text = parts.filter((part) => part !== "").join(", ");
  return text === "" ? "" : ` (${text})`;
}

export function blocks(...parts: string[]): string {
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

// ---------------------------------------------------------------------------------------------
// Markdown

/** A table cell: pipes and line breaks would end the cell or the row. */
export function cell(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("|", "\\|").replaceAll(/\r?\n/g, "<br>");
}

export function code(text: string): string {
  // GFM ends a cell at a pipe even inside a code span unless it is escaped.
  return text === "" || text === "-"
    ? text
    : `\`${text.replaceAll("`", "'").replaceAll("|", "\\|")}\``;
}

export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  return [
    `| ${headers.join(" | ")} |`,
    `| ${headers.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

export function withSource(message: string, url: string | null | undefined): string {
  return url ? `${cell(message)} ([source](${url}))` : cell(message);
}

const SEVERITY_ICON: Readonly<Record<string, string>> = {
  ERROR: "❌ ERROR",
  WARNING: "⚠️ WARNING",
  INFO: "ℹ️ INFO",
};

export function severityCell(severity: string): string {
  return SEVERITY_ICON[severity] ?? cell(severity);
}

export function findingsMarkdown(findings: readonly Finding[]): string {
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

export function footer(kbRevision: number | null | undefined, profile: string | undefined): string {
  const text = about(kbRevision, profile);
  return text === "" ? "" : `<sub>kubecompat${text}</sub>`;
}

export function validationMarkdown(answer: ValidationAnswer, profile: string | undefined): string {
  const heading = `### ${statusIcon(answer)} kubecompat check: ${statusPhrase(answer)} (${severityCounts(answer.findings)})`;
  const findings =
    answer.findings.length === 0 ? "No findings." : findingsMarkdown(answer.findings);
  return blocks(heading, findings, footer(answer.kbRevision, profile));
}
