/**
 * The two outputs of kb:derive: a text report (per kb file a heading, then
 * `+ missing`, `~ differs`, `= known`, `i info`, `! warning` lines with their
 * sources) and proposed YAML in the kb's own style, ready to paste after
 * review. Pure.
 */
import { Document, Scalar, visit } from "yaml";
import { countByStatus, type Finding, type ProposedRecord, type Section } from "./compare.js";

const LABELS: Record<Finding["status"], string> = {
  missing: "+ missing",
  differs: "~ differs",
  known: "= known  ",
  info: "i info   ",
  warning: "! warning",
};

export function renderText(sections: readonly Section[]): string {
  const out: string[] = [];
  for (const section of sections) {
    out.push(`${section.file}  (from ${section.from})`);
    for (const finding of section.findings) {
      if (finding.source !== null && (finding.status === "differs" || finding.status === "known")) {
        out.push(`  ${LABELS[finding.status]}  ${finding.message} (${finding.source})`);
      } else {
        out.push(`  ${LABELS[finding.status]}  ${finding.message}`);
        if (finding.source !== null) out.push(`             source: ${finding.source}`);
      }
    }
    const counts = countByStatus(section);
    const toReview = counts.missing + counts.differs + counts.warning;
    out.push(
      toReview === 0
        ? `  nothing differs${counts.known + counts.info > 0 ? ` (${counts.known} known, ${counts.info} info)` : ""}`
        : `  ${counts.missing} missing, ${counts.differs} differs, ${counts.warning} warnings, ${counts.known} known: review, then edit ${section.file} by hand (--output yaml proposes the records)`,
    );
    out.push("");
  }
  return out.join("\n");
}

const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

/** A scalar the way kb/ writes it: minors, dates and versions quoted, identifiers and URLs plain. */
export function yamlScalar(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  if (Array.isArray(value))
    return `[${value.map((item: unknown) => (typeof item === "string" ? JSON.stringify(item) : yamlScalar(item))).join(", ")}]`;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (/^https:\/\/[^\s]+$/.test(text) && !text.includes(" #")) return text;
  if (/^[A-Za-z][A-Za-z0-9._/-]*$/.test(text) && !RESERVED.test(text)) return text;
  return JSON.stringify(text);
}

const COMMENT_COLUMN = 41;

/** A nested list as YAML, minors, dates and versions quoted as kb/ writes them (a bare 2026-01-01 is a timestamp to YAML 1.1 readers). */
function nestedYaml(value: readonly unknown[]): string {
  const document = new Document(value);
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && /^[\d>]/.test(node.value))
        node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return document.toString({ lineWidth: 0 });
}

function recordLines(proposal: ProposedRecord): string[] {
  const lines: string[] = [];
  for (const problem of proposal.problems) lines.push(`  # ! does not validate yet: ${problem}`);
  Object.entries(proposal.record).forEach(([field, value], index) => {
    const comment = proposal.comments[field];
    if (Array.isArray(value) && value.some((item) => typeof item === "object" && item !== null)) {
      // A nested list (a platform's releases, an add-on's lines): written as YAML writes it, the note above it.
      if (comment !== undefined) lines.push(`    # ${field}: ${comment.replace(/\s+/g, " ")}`);
      lines.push(`${index === 0 ? "  - " : "    "}${field}:`);
      for (const nested of nestedYaml(value).trimEnd().split("\n")) lines.push(`    ${nested}`);
      return;
    }
    let line = `${index === 0 ? "  - " : "    "}${field}: ${yamlScalar(value)}`;
    if (comment !== undefined)
      line = `${line.padEnd(Math.max(COMMENT_COLUMN - 1, line.length + 2))} # ${comment.replace(/\s+/g, " ")}`;
    lines.push(line);
  });
  return lines;
}

export function renderYaml(sections: readonly Section[]): string {
  return sections.map((section) => renderSection(section)).join("---\n");
}

/**
 * One section as a YAML document: its header, the findings worth a comment, then the new and the
 * changed records, each written by `linesOf` (a kind whose records hold nested lists brings its own).
 */
export function renderSection(
  section: Section,
  linesOf: (proposal: Section["proposals"][number]) => string[] = recordLines,
): string {
  const out: string[] = [
    `# ${section.file}: proposed by npm run kb:derive from ${section.from}.`,
    `# Review every entry before pasting it into ${section.file}; kb:derive never edits kb/.`,
  ];
  for (const finding of section.findings) {
    if (finding.status === "known" || finding.status === "info" || finding.status === "warning") {
      out.push(`# ${finding.status}: ${finding.message.replace(/\s+/g, " ")}`);
    }
  }
  const added = section.proposals.filter((proposal) => proposal.change === "new");
  const changed = section.proposals.filter((proposal) => proposal.change === "changed");
  if (added.length === 0 && changed.length === 0) {
    out.push(`${section.entity}: []   # nothing to propose`);
  } else {
    out.push(`${section.entity}:`);
    if (added.length > 0) out.push("  # ---- new records: append them to the list");
    for (const proposal of added) out.push(...linesOf(proposal));
    if (changed.length > 0)
      out.push(
        "",
        "  # ---- changed records: each replaces the kb entry with the same key (the comments give the kb's value)",
      );
    for (const proposal of changed) out.push(...linesOf(proposal));
  }
  return `${out.join("\n")}\n`;
}
