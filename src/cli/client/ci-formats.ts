/**
 * Findings where CI systems show them: JUnit XML (Jenkins, GitLab, Azure DevOps test reports: one test suite
 * per file or per evidence, one test case per finding, ERRORs as failures) and GitHub Actions workflow
 * commands (`::error file=…,line=…,title=…::message`, shown as annotations on the pull request).
 */
import type { SarifFinding } from "./sarif.js";

function xml(text: string): string {
  // XML 1.0 allows no control characters but tab, newline and carriage return.
  return (
    text
      // eslint-disable-next-line no-control-regex -- removing exactly those characters is the point
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
  );
}

export function junitReport(findings: readonly SarifFinding[], name: string): string {
  const suites = new Map<string, SarifFinding[]>();
  for (const entry of findings) {
    const suite = entry.file ?? entry.logicalLocation?.split("/")[0] ?? "kubecompat";
    suites.set(suite, [...(suites.get(suite) ?? []), entry]);
  }
  const failures = findings.filter((entry) => entry.severity === "ERROR").length;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${xml(name)}" tests="${findings.length}" failures="${failures}">`,
  ];
  for (const [suite, entries] of suites) {
    lines.push(
      `  <testsuite name="${xml(suite)}" tests="${entries.length}" failures="${entries.filter((entry) => entry.severity === "ERROR").length}" skipped="${entries.filter((entry) => entry.severity === "INFO").length}">`,
    );
    for (const entry of entries) {
      const where = entry.line ? `${suite}:${entry.line}` : (entry.logicalLocation ?? suite);
      lines.push(
        `    <testcase classname="${xml(entry.code)}" name="${xml(`${entry.code} ${where}`)}"${entry.file ? ` file="${xml(entry.file)}"` : ""}${entry.line ? ` line="${entry.line}"` : ""}>`,
      );
      if (entry.severity === "ERROR")
        lines.push(
          `      <failure type="${xml(entry.code)}" message="${xml(entry.message)}">${xml(entry.sourceUrl ?? "")}</failure>`,
        );
      else if (entry.severity === "INFO")
        lines.push(`      <skipped message="${xml(entry.message)}"/>`);
      else lines.push(`      <system-out>${xml(`WARNING ${entry.message}`)}</system-out>`);
      lines.push("    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

/** GitHub's escaping of workflow-command data and properties. */
function data(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function property(text: string): string {
  return data(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

export function githubAnnotations(findings: readonly SarifFinding[]): string {
  const level: Readonly<Record<string, string>> = {
    ERROR: "error",
    WARNING: "warning",
    INFO: "notice",
  };
  return findings
    .map((entry) => {
      const properties = [
        entry.file ? `file=${property(entry.file)}` : null,
        entry.line ? `line=${entry.line}` : null,
        `title=${property(entry.code)}`,
      ]
        .filter((part) => part !== null)
        .join(",");
      const where =
        entry.file === undefined || entry.file === null
          ? entry.logicalLocation
            ? `${entry.logicalLocation}: `
            : ""
          : "";
      return `::${level[entry.severity] ?? "notice"} ${properties}::${data(`${where}${entry.message}`)}\n`;
    })
    .join("");
}
