/**
 * `kubecompat scan --to VERSION PATH...`: manifests using API versions
 * removed or deprecated at a target. Each file is sent on its own (a few at a
 * time), so findings name it; the answers are then read as one report, in
 * text, Markdown, JSON or a CI format.
 */
import {
  asManifestFinding,
  asScanAnswer,
  fails,
  scanStatus,
  type ScanAnswer,
  type ScanRow,
} from "./answers.js";
import { failOn, flagValue, type CommandLine } from "./command-line.js";
import { ask, askPerFile, ciReport, defined, requiredTarget, type CliContext } from "./commands.js";
import { EXIT_FINDINGS, EXIT_OK, UsageError } from "./errors.js";
import { scanMarkdown, scanText, type FileFinding } from "./scan-format.js";
import { STDIN, manifestFiles } from "./inputs.js";
import { isChart, scanChart } from "./chart-scan-command.js";
import { isKustomization, scanKustomization } from "./kustomize-command.js";

/** The server's answer for one file, under the label findings name it by. */
interface ScannedFile {
  readonly file: string;
  readonly answer: ScanAnswer;
}

type ScanNote = NonNullable<ScanAnswer["notes"]>[number];

export async function scan(
  commandLine: CommandLine,
  context: CliContext,
  environment: { readonly kubectl?: string | undefined } = {},
): Promise<number> {
  const targetVersion = requiredTarget("scan", commandLine);
  checkScanPaths(commandLine.positionals);
  const [only, ...others] = commandLine.positionals;
  if (only !== undefined && only !== STDIN && (await isKustomization(only))) {
    if (others.length > 0)
      throw new UsageError(
        `scan a kustomization on its own: ${only} holds a kustomization; give it as the only path`,
        "scan",
      );
    const built = await scanKustomization(
      commandLine,
      context,
      only,
      targetVersion,
      environment.kubectl,
    );
    const results = [{ file: only, answer: built.answer }];
    const notes = scanNotes(results);
    const status = scanStatus([built.answer.status]);
    writeScanReport(context, results, { findings: built.findings, notes, status });
    return fails({ status, findings: [...built.findings, ...notes] }, failOn(commandLine))
      ? EXIT_FINDINGS
      : EXIT_OK;
  }
  const charts = await chartsAmong(commandLine.positionals);
  if (charts.length > 0) {
    if (commandLine.positionals.length > 1)
      throw new UsageError(
        `scan a chart on its own: ${charts[0]} is a Helm chart; give it as the only path`,
        "scan",
      );
    return scanChart(commandLine, context, charts[0]!, targetVersion);
  }
  const files = await manifestFiles(commandLine.positionals);
  const results = await scanFiles(files, context, {
    targetVersion,
    fromVersion: flagValue(commandLine, "from"),
  });
  const findings = scanFindings(results);
  const notes = scanNotes(results);
  const status = scanStatus(results.map(({ answer }) => answer.status));
  writeScanReport(context, results, { findings, notes, status });
  return fails({ status, findings: [...findings, ...notes] }, failOn(commandLine))
    ? EXIT_FINDINGS
    : EXIT_OK;
}

async function chartsAmong(positionals: readonly string[]): Promise<string[]> {
  const charts: string[] = [];
  for (const given of positionals)
    if (given !== STDIN && (await isChart(given))) charts.push(given);
  return charts;
}

function checkScanPaths(positionals: readonly string[]): void {
  if (positionals.length === 0) {
    throw new UsageError(
      "kubecompat scan needs what to scan: files, folders, or - for stdin (e.g. kubecompat scan --to 1.29 manifests/)",
      "scan",
    );
  }
  if (positionals.filter((given) => given === STDIN).length > 1) {
    throw new UsageError("stdin (-) can be read once; give - at most once", "scan");
  }
}

/** Sends each file on its own, a few at a time; the answers keep the files' order. */
function scanFiles(
  files: readonly string[],
  context: CliContext,
  question: { readonly targetVersion: string; readonly fromVersion: string | undefined },
): Promise<ScannedFile[]> {
  const route = "/api/v1/scan";
  return askPerFile(files, context, async (_file, label, manifests) => {
    const raw = await ask(
      context,
      route,
      defined({
        manifests,
        targetVersion: question.targetVersion,
        fromVersion: question.fromVersion,
      }),
      { file: label },
    );
    return { file: label, answer: asScanAnswer(raw, context.api.server, route) };
  });
}

// Fields, annotations and configuration files a change touches are findings too, in the same table.
function scanFindings(results: readonly ScannedFile[]): FileFinding[] {
  return results.flatMap(({ file, answer }) =>
    [...answer.findings, ...(answer.changeFindings ?? []).map(asManifestFinding)]
      .sort((a, b) => a.documentIndex - b.documentIndex || a.line - b.line)
      .map((finding: ScanRow) => ({ file, ...finding })),
  );
}

// About each file as a whole (unreadable documents, APIs not judged); the same note of every file (where the knowledge ends) once.
function scanNotes(results: readonly ScannedFile[]): ScanNote[] {
  return results
    .flatMap(({ file, answer }) =>
      (answer.notes ?? []).map((note) => ({
        ...note,
        message:
          note.code === "KNOWLEDGE_EDGE" || note.code === "KNOWLEDGE_STALE"
            ? note.message
            : `${file}: ${note.message}`,
      })),
    )
    .filter(
      (note, index, all) =>
        all.findIndex((other) => other.code === note.code && other.message === note.message) ===
        index,
    );
}

function writeScanReport(
  context: CliContext,
  results: readonly ScannedFile[],
  report: {
    readonly findings: readonly FileFinding[];
    readonly notes: readonly ScanNote[];
    readonly status: string;
  },
): void {
  const { findings, notes, status } = report;
  const first = results[0]!.answer;
  if (context.output === "sarif" || context.output === "junit" || context.output === "github") {
    const located = [
      ...findings.map((entry) => ({
        code: entry.code,
        severity: entry.severity,
        message: entry.message,
        sourceUrl: entry.sourceUrl,
        file: entry.file,
        line: entry.line,
      })),
      ...notes.map((note) => ({
        code: note.code,
        severity: note.severity,
        message: note.message,
        sourceUrl: note.sourceUrl ?? null,
      })),
    ];
    context.write(ciReport(located, context, `kubecompat scan --to ${first.targetVersion}`));
  } else if (context.output === "json") {
    const json = {
      targetVersion: first.targetVersion,
      status,
      notes,
      files: results.map(({ file, answer }) => ({
        file,
        findings: answer.findings,
        changeFindings: answer.changeFindings ?? [],
      })),
    };
    context.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    const summary = {
      targetVersion: first.targetVersion,
      status,
      kbRevision: typeof first.kbRevision === "number" ? first.kbRevision : null,
      files: results.length,
      documentsScanned: results.reduce(
        (sum, { answer }) => sum + (answer.documentsScanned ?? 0),
        0,
      ),
      objectsScanned: results.reduce((sum, { answer }) => sum + (answer.objectsScanned ?? 0), 0),
      findings,
      notes,
    };
    context.write(
      context.output === "markdown" ? scanMarkdown(summary) : scanText(summary, context.style),
    );
  }
}
