/**
 * SARIF 2.1.0 for code-scanning tools (GitHub code scanning, Azure DevOps, SonarQube): one run of the tool
 * "kubecompat"; each finding code is a rule with its description (from src/domain/findings.ts) and the source
 * it cites; each finding a result at its file and line when it has one, with the fixes that resolve it when
 * it has some (`kubecompat fix`).
 */
import { FINDING_CODES } from "../../domain/findings.js";

export interface SarifFinding {
  readonly code: string;
  readonly severity: string;
  readonly message: string;
  readonly sourceUrl?: string | null;
  /** The file the finding is in, relative to where the tool ran, and its line. */
  readonly file?: string | null;
  readonly line?: number | null;
  /** Where it is when there is no file: a Helm release, an object, an API. */
  readonly logicalLocation?: string | null;
  /** Edits of `file` that resolve the finding (`kubecompat fix`), each a SARIF fix of that one file. */
  readonly fixes?: readonly SarifFix[];
}

export interface SarifFix {
  readonly description: string;
  /** Regions of the file as it was (1-based, the end exclusive) and their new text; none overlap. */
  readonly replacements: ReadonlyArray<{
    readonly startLine: number;
    readonly startColumn: number;
    readonly endLine: number;
    readonly endColumn: number;
    readonly insertedText: string;
  }>;
}

const LEVEL: Readonly<Record<string, "error" | "warning" | "note">> = {
  ERROR: "error",
  WARNING: "warning",
  INFO: "note",
};

/** A SARIF file's URI for a path as given (forward slashes, no ./); stdin has none. */
function artifactUri(file: string): string {
  return file.replace(/\\/g, "/").replace(/^\.\//, "").split("/").map(encodeURIComponent).join("/");
}

export function sarifLog(
  findings: readonly SarifFinding[],
  tool: { readonly version: string; readonly server: string },
): object {
  const codes = [...new Set(findings.map((entry) => entry.code))].sort();
  const rules = codes.map((code) => {
    const known = (
      FINDING_CODES as Readonly<
        Record<string, { readonly check: string; readonly description: string }>
      >
    )[code];
    const cited =
      findings.find((entry) => entry.code === code && entry.sourceUrl)?.sourceUrl ?? undefined;
    return {
      id: code,
      name: code.toLowerCase().replace(/_(.)/g, (_match, letter: string) => letter.toUpperCase()),
      shortDescription: { text: known?.description ?? code },
      ...(cited === undefined ? {} : { helpUri: cited }),
      properties: { check: known?.check ?? "UNKNOWN" },
    };
  });
  const results = findings.map((entry) => {
    const physical =
      entry.file !== undefined && entry.file !== null && entry.file !== "-"
        ? {
            physicalLocation: {
              artifactLocation: { uri: artifactUri(entry.file) },
              ...(entry.line ? { region: { startLine: entry.line } } : {}),
            },
          }
        : undefined;
    const logical = entry.logicalLocation
      ? { logicalLocations: [{ fullyQualifiedName: entry.logicalLocation }] }
      : undefined;
    const location =
      physical === undefined && logical === undefined ? undefined : { ...physical, ...logical };
    const fixes =
      entry.fixes !== undefined && entry.fixes.length > 0 && physical !== undefined
        ? entry.fixes.map((fix) => ({
            description: { text: fix.description },
            artifactChanges: [
              {
                artifactLocation: physical.physicalLocation.artifactLocation,
                replacements: fix.replacements.map(
                  ({ startLine, startColumn, endLine, endColumn, insertedText }) => ({
                    deletedRegion: { startLine, startColumn, endLine, endColumn },
                    insertedContent: { text: insertedText },
                  }),
                ),
              },
            ],
          }))
        : undefined;
    return {
      ruleId: entry.code,
      ruleIndex: codes.indexOf(entry.code),
      level: LEVEL[entry.severity] ?? "note",
      message: { text: entry.message },
      ...(location === undefined ? {} : { locations: [location] }),
      ...(fixes === undefined ? {} : { fixes }),
    };
  });
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "kubecompat", version: tool.version, rules } },
        results,
        properties: { server: tool.server },
      },
    ],
  };
}
