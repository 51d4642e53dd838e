/**
 * What `kubecompat fix` prints: per file the server's unified diff (or that the file was written), per object
 * left as it is its reason, per lossy conversion applied what it lost, and a closing line; or, for CI, the
 * objects of removed APIs as SARIF results whose fixes are the server's text replacements.
 */
import type { FixAnswer } from "./answers.js";
import { counted, paint, type TextStyle } from "./format.js";
import { STDIN_LABEL } from "./inputs.js";
import type { SarifFinding, SarifFix } from "./sarif.js";

/** One file's answer, under the label the diff and the findings name it by. */
export interface FixedFile {
  readonly file: string;
  readonly answer: FixAnswer;
  /** True when --write wrote the rewritten text back to the file (stdin's: to stdout). */
  readonly written: boolean;
}

type ObjectFix = FixAnswer["objects"][number];

function objectName(fix: ObjectFix): string {
  const name = fix.name === null ? "(no name)" : fix.name;
  return `${fix.kind} ${fix.namespace === null ? name : `${fix.namespace}/${name}`}`;
}

function objectLines(file: string, fix: ObjectFix, style: TextStyle): string[] {
  const where = `${file}:${fix.line} ${objectName(fix)} ${fix.apiVersion}`;
  if (fix.status !== "FIXED")
    return [
      `${where}: ${paint("not fixed", ["red", "bold"], style)}: ${fix.reason ?? "no reason given"}`,
    ];
  const lines = [`${where} → ${fix.toApiVersion ?? "?"}: ${paint("fixed", ["green"], style)}`];
  for (const lost of fix.lossy) lines.push(`  lost: ${lost}`);
  return lines;
}

function colouredDiff(diff: string, style: TextStyle): string {
  if (!style.colour) return diff;
  return diff
    .split("\n")
    .map((line) =>
      line.startsWith("+") && !line.startsWith("+++")
        ? paint(line, ["green"], style)
        : line.startsWith("-") && !line.startsWith("---")
          ? paint(line, ["red"], style)
          : line.startsWith("@@")
            ? paint(line, ["cyan"], style)
            : line,
    )
    .join("\n");
}

/** The counts every face of the report closes with. */
export function fixCounts(files: readonly FixedFile[]): {
  fixed: number;
  notFixed: number;
  changedFiles: number;
} {
  const objects = files.flatMap(({ answer }) => answer.objects);
  return {
    fixed: objects.filter((fix) => fix.status === "FIXED").length,
    notFixed: objects.filter((fix) => fix.status !== "FIXED").length,
    changedFiles: files.filter(({ answer }) => answer.changed).length,
  };
}

export function fixText(
  files: readonly FixedFile[],
  options: { readonly write: boolean; readonly style: TextStyle },
): string {
  const { style } = options;
  const parts = files
    .filter(({ answer, written }) => answer.changed && !written)
    .map(({ answer }) => colouredDiff(answer.diff, style));
  const written = files
    .filter((file) => file.written)
    .map(({ file }) =>
      file === STDIN_LABEL ? `${file}: the rewritten text is on stdout` : `${file}: written`,
    );
  if (written.length > 0) parts.push(`${written.join("\n")}\n`);
  const lines = files.flatMap(({ file, answer }) =>
    answer.objects.flatMap((fix) => objectLines(file, fix, style)),
  );
  if (lines.length > 0) parts.push(`${lines.join("\n")}\n`);
  const { fixed, notFixed, changedFiles } = fixCounts(files);
  const target = files[0]?.answer.targetVersion ?? "";
  const summary =
    fixed === 0 && notFixed === 0
      ? `Nothing to fix for ${target} in ${counted(files.length, "file")}.`
      : `${counted(fixed, "object")} fixed, ${counted(notFixed, "object")} left as ${notFixed === 1 ? "it is" : "they are"}; ${counted(changedFiles, "file")} ${options.write ? "written" : `would change (--write writes ${changedFiles === 1 ? "it" : "them"})`}.`;
  parts.push(`${summary}\n`);
  return parts.join(parts.length > 1 ? "\n" : "");
}

/**
 * SARIF's replacements of one object: touching edits joined (an insertion at the start of a deleted region is
 * one replacement with it), so no two regions meet or overlap and each applies to the file as it was.
 */
function sarifReplacements(fix: ObjectFix): SarifFix["replacements"] {
  const joined: Array<{
    startLine: number;
    startColumn: number;
    endLine: number;
    endColumn: number;
    insertedText: string;
  }> = [];
  for (const edit of fix.replacements) {
    const last = joined.at(-1);
    if (
      last !== undefined &&
      last.endLine === edit.startLine &&
      last.endColumn === edit.startColumn
    ) {
      last.endLine = edit.endLine;
      last.endColumn = edit.endColumn;
      last.insertedText += edit.insertedText;
      continue;
    }
    const { startLine, startColumn, endLine, endColumn, insertedText } = edit;
    joined.push({ startLine, startColumn, endLine, endColumn, insertedText });
  }
  return joined;
}

/** Each object of a removed API as a located finding; a fixed one carries its fix. */
export function fixFindings(files: readonly FixedFile[]): SarifFinding[] {
  return files.flatMap(({ file, answer }) =>
    answer.objects.map((fix) => ({
      code: fix.finding.code,
      severity: fix.finding.severity,
      message:
        fix.status === "FIXED"
          ? `${fix.finding.message} kubecompat fix rewrites it to ${fix.toApiVersion ?? "?"}.`
          : `${fix.finding.message} Not fixed: ${fix.reason ?? "no reason given"}`,
      sourceUrl: fix.finding.sourceUrl,
      file,
      line: fix.line,
      fixes:
        fix.status === "FIXED"
          ? [
              {
                description: `Rewrite ${objectName(fix)} from ${fix.apiVersion} to ${fix.toApiVersion ?? "?"}${fix.lossy.length > 0 ? ` (loses ${fix.lossy.join("; ")})` : ""}`,
                replacements: sarifReplacements(fix),
              },
            ]
          : [],
    })),
  );
}

/** The answers as received, per file, with whether each was written. */
export function fixJson(files: readonly FixedFile[]): string {
  const json = {
    targetVersion: files[0]?.answer.targetVersion ?? null,
    files: files.map(({ file, answer, written }) => ({ file, written, ...answer })),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

export function fixMarkdown(files: readonly FixedFile[]): string {
  const parts = files
    .filter(({ answer }) => answer.changed || answer.objects.length > 0)
    .map(({ file, answer }) => {
      const rows = answer.objects.map(
        (fix) =>
          `- \`${file}:${fix.line}\` ${objectName(fix)} \`${fix.apiVersion}\`: ${fix.status === "FIXED" ? `fixed → \`${fix.toApiVersion ?? "?"}\`${fix.lossy.length > 0 ? ` (lost: ${fix.lossy.join("; ")})` : ""}` : `**not fixed**: ${fix.reason ?? ""}`}`,
      );
      const diff = answer.changed ? `\n\n\`\`\`diff\n${answer.diff}\`\`\`` : "";
      return `### ${file}\n\n${rows.join("\n")}${diff}\n`;
    });
  const { fixed, notFixed } = fixCounts(files);
  parts.push(`${counted(fixed, "object")} fixed, ${counted(notFixed, "object")} not fixed.\n`);
  return parts.join("\n");
}
