/**
 * `kubecompat scan --to VERSION CHART`, where CHART is a chart folder (with Chart.yaml) or a packaged chart
 * (.tgz): the chart's files go to POST /api/v1/scan/chart, with what `helm template` renders of them when a
 * helm is at hand (--helm PATH, else helm on PATH; --no-helm reads the templates directly). Findings are
 * shown at their template file and line (templates/ingress.yaml:3), in every output format.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { asManifestFinding, asScanAnswer, fails, type ScanAnswer } from "./answers.js";
import {
  chartFolderFiles,
  isChartFolder,
  isPackagedChart,
  packagedChartFiles,
  type ChartFileTexts,
} from "./chart-files.js";
import { failOn, flagValue, flagValues, type CommandLine } from "./command-line.js";
import { ask, ciReport, defined, type CliContext } from "./commands.js";
import { CliError, EXIT_FINDINGS, EXIT_OK, InputFileError } from "./errors.js";
import { scanMarkdown, scanText, type FileFinding } from "./scan-format.js";

const MAX_RENDERED = 64 * 1024 * 1024;
/** The release name charts are rendered under (names in the output derive from it). */
const RELEASE = "kubecompat";

/** A finding of the chart scan as the server places it. */
interface PlacedRow {
  readonly template?: string | null;
  readonly templateLine?: number | null;
}

interface ChartAnswer extends ScanAnswer {
  readonly chart?: { readonly name: string; readonly version: string };
  readonly rendering?: string;
  readonly unreadTemplates?: ReadonlyArray<{ template: string; templateLine: number }>;
}

/** helm's output, or the reason there is none (a kubeVersion helm refuses: the server says so too). */
type Rendering =
  | { readonly rendered: string; readonly note: null }
  | { readonly rendered: null; readonly note: string | null };

function runHelm(helm: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(helm, args, { maxBuffer: MAX_RENDERED, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(Object.assign(new Error(error.message), { code: error.code, stderr }));
    });
  });
}

/** Renders the chart with helm at the target, or says why not. */
async function render(
  commandLine: CommandLine,
  chart: string,
  targetVersion: string,
): Promise<Rendering> {
  if (commandLine.flags.get("no-helm") === true) return { rendered: null, note: null };
  const given = flagValue(commandLine, "helm");
  const helm = given ?? "helm";
  const args = ["template", RELEASE, chart, "--kube-version", targetVersion];
  for (const values of flagValues(commandLine, "values")) args.push("-f", values);
  for (const set of flagValues(commandLine, "set")) args.push("--set", set);
  try {
    return { rendered: await runHelm(helm, args), note: null };
  } catch (error) {
    const { code, stderr } = error as { code?: unknown; stderr?: string };
    if (code === "ENOENT" && given === undefined)
      return {
        rendered: null,
        note: "no helm on PATH: the templates were read directly (give --helm PATH for a complete scan)",
      };
    if (code === "ENOENT") throw new InputFileError(`--helm ${given}: no such program`);
    const said = (stderr ?? "").trim();
    // helm refuses a chart whose kubeVersion excludes the target; the scan reads its templates and says why.
    if (/chart requires kubeVersion/.test(said))
      return {
        rendered: null,
        note: `helm would not render the chart for ${targetVersion}: ${said.split("\n")[0]}`,
      };
    throw new CliError(`helm template failed for ${chart}`, said === "" ? [] : said.split("\n"));
  }
}

/** The chart's files, and the path helm renders (a packaged chart as it is, a folder as it is). */
async function chartFiles(chart: string): Promise<ChartFileTexts> {
  if (isPackagedChart(chart)) {
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(chart);
    } catch (error) {
      throw new InputFileError(`cannot read ${chart}: ${(error as Error).message}`);
    }
    return packagedChartFiles(bytes, chart);
  }
  return chartFolderFiles(chart);
}

/** Where a template is for CI systems: under the chart folder as given (inside a package, the package). */
function ciFile(chart: string, template: string): string {
  if (isPackagedChart(chart)) return chart;
  return path.normalize(path.join(chart, template)).split(path.sep).join("/");
}

export async function scanChart(
  commandLine: CommandLine,
  context: CliContext,
  chart: string,
  targetVersion: string,
): Promise<number> {
  const files = await chartFiles(chart);
  const rendering = await render(commandLine, chart, targetVersion);
  if (rendering.note !== null) process.stderr.write(`kubecompat: ${rendering.note}\n`);
  const route = "/api/v1/scan/chart";
  const raw = await ask(
    context,
    route,
    defined({
      files,
      rendered: rendering.rendered ?? undefined,
      targetVersion,
      fromVersion: flagValue(commandLine, "from"),
    }),
    { file: chart },
  );
  const answer = asScanAnswer(raw, context.api.server, route) as ChartAnswer;
  const placed = (row: PlacedRow & { line: number }) => ({
    file: row.template ?? chart,
    line: row.templateLine ?? row.line,
  });
  const findings: FileFinding[] = [
    ...answer.findings.map((row) => ({ ...row, ...placed(row as PlacedRow & { line: number }) })),
    ...(answer.changeFindings ?? []).map((change) => ({
      ...asManifestFinding(change),
      ...placed(change as PlacedRow & { line: number }),
    })),
  ];
  const notes = answer.notes ?? [];
  writeChartReport(context, chart, answer, findings);
  return fails({ status: answer.status, findings: [...findings, ...notes] }, failOn(commandLine))
    ? EXIT_FINDINGS
    : EXIT_OK;
}

function writeChartReport(
  context: CliContext,
  chart: string,
  answer: ChartAnswer,
  findings: readonly FileFinding[],
): void {
  const notes = answer.notes ?? [];
  if (context.output === "sarif" || context.output === "junit" || context.output === "github") {
    const unread = new Map(
      (answer.unreadTemplates ?? []).map((entry) => [
        `${entry.template}:${entry.templateLine}`,
        entry,
      ]),
    );
    const located = [
      ...findings.map((entry) => ({
        code: entry.code,
        severity: entry.severity,
        message: entry.message,
        sourceUrl: entry.sourceUrl,
        file: ciFile(chart, entry.file),
        line: entry.line,
      })),
      ...notes.map((note) => {
        const template = unread.get(note.instance ?? "");
        return {
          code: note.code,
          severity: note.severity,
          message: note.message,
          sourceUrl: note.sourceUrl ?? null,
          // Chart.yaml findings name the Chart.yaml they are about.
          file:
            template !== undefined
              ? ciFile(chart, template.template)
              : /(^|\/)Chart\.yaml$/.test(note.instance ?? "")
                ? ciFile(chart, note.instance!)
                : null,
          line: template?.templateLine ?? null,
        };
      }),
    ];
    context.write(
      ciReport(located, context, `kubecompat scan --to ${answer.targetVersion} ${chart}`),
    );
  } else if (context.output === "json") {
    context.write(`${JSON.stringify(answer, null, 2)}\n`);
  } else {
    const summary = {
      targetVersion: answer.targetVersion,
      status: answer.status ?? "NOT_JUDGED",
      kbRevision: typeof answer.kbRevision === "number" ? answer.kbRevision : null,
      files: 1,
      documentsScanned: answer.documentsScanned ?? 0,
      objectsScanned: answer.objectsScanned ?? 0,
      findings,
      notes,
    };
    const heading =
      answer.chart === undefined
        ? ""
        : `chart ${answer.chart.name} ${answer.chart.version} (${chart}), ${answer.rendering === "HELM" ? "rendered by helm" : "templates read without rendering"}\n`;
    context.write(
      context.output === "markdown"
        ? `${heading}\n${scanMarkdown(summary)}`
        : `${heading}${scanText(summary, context.style)}`,
    );
  }
}

/** Whether a positional is a chart (a folder with Chart.yaml, or a packaged .tgz). */
export async function isChart(given: string): Promise<boolean> {
  return isPackagedChart(given) || (await isChartFolder(given));
}
