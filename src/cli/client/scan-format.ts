/**
 * The manifest scan for people: one table of findings across the files
 * scanned, each at its file and line, and the notes about the scan as a
 * whole, as text and as Markdown.
 */
import type { Finding, ScanRow } from "./answers.js";
import {
  Sources,
  about,
  blocks,
  cell,
  code,
  counted,
  findingsMarkdown,
  footer,
  markdownTable,
  severityCell,
  severityCounts,
  severityPaint,
  statusIcon,
  statusPhrase,
  statusText,
  table,
  withSource,
  type TextStyle,
} from "./format.js";

/** A scan finding with the file it came from. */
export interface FileFinding extends ScanRow {
  readonly file: string;
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
