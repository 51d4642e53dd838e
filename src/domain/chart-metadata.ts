/**
 * A Helm chart's own metadata, from the files people keep: Chart.yaml of the chart and of each subchart under
 * charts/, and requirements.yaml of a v1 (Helm 2) chart. Checked against a target: the chart's format
 * (apiVersion v1 or v2), the kubeVersion constraints (the chart's, which helm enforces, and its subcharts',
 * which it does not), and the dependencies that are listed but not among the files.
 */
import { parseDocument } from "yaml";
import { InputError } from "../core/errors.js";
import { firstDuplicateKey } from "../core/yaml-limits.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { judgeKubeVersion } from "./chart-kube-version.js";
import { finding, type Finding } from "./findings.js";

/** The chart's files by their path relative to the chart's folder (Chart.yaml, templates/x.yaml ...). */
export type ChartFiles = Readonly<Record<string, string>>;

export const CHART_FILES_FIELD = "files";

export interface ChartSummary {
  readonly name: string;
  readonly version: string;
  /** v1 (Helm 2's format) or v2; null when Chart.yaml has none. */
  readonly apiVersion: string | null;
  readonly kubeVersion: string | null;
}

/** A chart of the files: the top chart ("") or a subchart ("charts/redis/"). */
export interface ChartOfFiles extends ChartSummary {
  /** The folder, relative to the top chart, ending in "/" ("" for the top chart). */
  readonly folder: string;
  /** The dependencies its Chart.yaml (or, for a v1 chart, requirements.yaml) lists, by name. */
  readonly dependencies: readonly string[];
}

const MAX_CHART_YAML_CHARS = 256 * 1024;

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A small YAML file of the chart as a mapping, or an InputError naming the file. */
function readYamlMap(files: ChartFiles, file: string): Record<string, unknown> {
  const text = files[file]!;
  if (text.length > MAX_CHART_YAML_CHARS)
    throw new InputError(
      `${file} is larger than ${MAX_CHART_YAML_CHARS} characters`,
      CHART_FILES_FIELD,
    );
  let value: unknown;
  try {
    const parsed = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
    if (parsed.errors.length > 0) throw parsed.errors[0]!;
    if (firstDuplicateKey(parsed) !== null) throw new Error("Map keys must be unique");
    value = parsed.toJS({ maxAliasCount: 20 });
  } catch (error) {
    throw new InputError(
      `${file} is not valid YAML: ${(error as Error).message.split("\n")[0]}`,
      CHART_FILES_FIELD,
    );
  }
  if (!isMap(value))
    throw new InputError(`${file} must be a YAML mapping (name, version ...)`, CHART_FILES_FIELD);
  return value;
}

/** A string field of Chart.yaml (numbers as YAML reads them, e.g. version: 1.0, are said as they were written). */
function textField(
  chart: Record<string, unknown>,
  file: string,
  field: string,
  required: boolean,
): string | null {
  const value = chart[field];
  if (value === undefined || value === null) {
    if (required) throw new InputError(`${file} has no ${field}`, CHART_FILES_FIELD);
    return null;
  }
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  throw new InputError(`${file}: ${field} must be a string`, CHART_FILES_FIELD);
}

function dependencyNames(list: unknown, file: string): string[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list))
    throw new InputError(`${file}: dependencies must be a list`, CHART_FILES_FIELD);
  return list.map((entry, index) => {
    if (!isMap(entry) || typeof entry.name !== "string")
      throw new InputError(`${file}: dependencies[${index}] has no name`, CHART_FILES_FIELD);
    return entry.name;
  });
}

function readChart(files: ChartFiles, folder: string): ChartOfFiles {
  const file = `${folder}Chart.yaml`;
  const chart = readYamlMap(files, file);
  const apiVersion = textField(chart, file, "apiVersion", false);
  const requirements = `${folder}requirements.yaml`;
  const listed =
    apiVersion === "v1" && files[requirements] !== undefined
      ? readYamlMap(files, requirements).dependencies
      : chart.dependencies;
  return {
    folder,
    name: textField(chart, file, "name", true)!,
    version: textField(chart, file, "version", true)!,
    apiVersion,
    kubeVersion: textField(chart, file, "kubeVersion", false),
    dependencies: dependencyNames(listed, listed === chart.dependencies ? file : requirements),
  };
}

/** The top chart and every subchart among the files (charts/<sub>/Chart.yaml, at any depth). */
export function chartsOfFiles(files: ChartFiles): ChartOfFiles[] {
  if (files["Chart.yaml"] === undefined) {
    throw new InputError(
      "files must hold the chart's Chart.yaml (paths relative to the chart's folder: Chart.yaml, values.yaml, templates/...)",
      CHART_FILES_FIELD,
    );
  }
  const folders = Object.keys(files)
    .filter((file) => /^(?:charts\/[^/]+\/)*Chart\.yaml$/.test(file))
    .map((file) => file.slice(0, -"Chart.yaml".length))
    .sort((a, b) => a.length - b.length || a.localeCompare(b));
  return folders.map((folder) => readChart(files, folder));
}

/** The folder of the chart a template belongs to: the longest chart folder it is under. */
export function chartOfTemplate(
  charts: readonly ChartOfFiles[],
  file: string,
): ChartOfFiles | null {
  let found: ChartOfFiles | null = null;
  for (const chart of charts) {
    if (
      file.startsWith(`${chart.folder}templates/`) &&
      (found === null || chart.folder.length > found.folder.length)
    )
      found = chart;
  }
  return found;
}

function describe(chart: ChartOfFiles, top: ChartOfFiles): string {
  return chart === top ? `the chart ${chart.name}` : `the subchart ${chart.name} of ${top.name}`;
}

/** The chart's format: v2, or v1 (Helm 2's), or one Helm does not install. */
function judgeApiVersion(snapshot: KbSnapshot, chart: ChartOfFiles, what: string): Finding[] {
  const sourceUrl = snapshot.reference("helm-chart-api-version");
  const file = `${chart.folder}Chart.yaml`;
  if (chart.apiVersion === "v2") return [];
  if (chart.apiVersion === "v1") {
    return [
      finding({
        code: "CHART_API_VERSION_V1",
        severity: "INFO",
        instance: file,
        message: `${file} apiVersion v1: ${what} is in Helm 2's chart format; Helm 3 and Helm 4 still install v1 charts, but Helm 2 is unsupported since 2020: move it to apiVersion v2 (dependencies from requirements.yaml into Chart.yaml)`,
        sourceUrl,
      }),
    ];
  }
  return [
    finding({
      code: "CHART_API_VERSION_UNKNOWN",
      severity: chart.apiVersion === null ? "WARNING" : "ERROR",
      instance: file,
      message:
        chart.apiVersion === null
          ? `${file} has no apiVersion: ${what} should say its format (apiVersion: v2, or v1 for a Helm 2 chart)`
          : `${file} apiVersion "${chart.apiVersion}": ${what} is in a format Helm 3 does not install (v1 and v2 are the chart formats; Helm 4's charts v3 is experimental)`,
      sourceUrl,
    }),
  ];
}

/** The checks of a chart's metadata against the target: format, kubeVersion constraints, missing dependencies. */
export function judgeCharts(
  snapshot: KbSnapshot,
  charts: readonly ChartOfFiles[],
  target: string,
): Finding[] {
  const top = charts[0]!;
  const findings: Finding[] = [];
  for (const chart of charts) {
    const what = describe(chart, top);
    findings.push(...judgeApiVersion(snapshot, chart, what));
    if (chart.kubeVersion !== null) {
      const judged = judgeKubeVersion(snapshot, chart.kubeVersion, target, {
        what,
        file: `${chart.folder}Chart.yaml`,
      });
      // Helm checks the top chart's kubeVersion only; a subchart's says what its authors support.
      findings.push(
        ...(chart === top
          ? judged
          : judged.map((entry) =>
              entry.severity === "ERROR"
                ? {
                    ...entry,
                    severity: "WARNING" as const,
                    message: `${entry.message.replace(/; helm (install and helm upgrade )?refuses?.*$/, "")}; helm checks only the top chart's kubeVersion, so it installs anyway, outside what the subchart's authors support`,
                  }
                : entry,
            )),
      );
    }
    for (const dependency of chart.dependencies) {
      const folder = `${chart.folder}charts/`;
      if (charts.some((sub) => sub.name === dependency && sub.folder.startsWith(folder))) continue;
      findings.push(
        finding({
          code: "CHART_DEPENDENCY_MISSING",
          severity: "WARNING",
          instance: `${chart.folder}Chart.yaml`,
          message: `${what} depends on ${dependency}, which is not among the files (${folder}${dependency}/Chart.yaml): its templates were not scanned (run \`helm dependency build\`, or give the unpacked subchart)`,
        }),
      );
    }
  }
  return findings;
}
