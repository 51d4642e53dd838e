/**
 * `kubecompat fix --to VERSION [--from VERSION] [--allow-lossy] [--write] PATH...`: objects of APIs the target
 * removes, rewritten to their replacements by the server (POST /api/v1/fix, one request per file). Without
 * --write it prints each file's diff; with --write it writes each changed file in place, through a temporary
 * file in the same folder renamed over it, so a file is either as it was or wholly rewritten, and a file with
 * nothing to change is never touched. Stdin cannot be written back: with --write its rewritten text goes to
 * stdout and the report to stderr. A chart's folder is fixed template by template (its templates are read
 * with their actions covered: a conversion that needs what an action renders to is refused, with the line).
 */
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { asFixAnswer } from "./answers.js";
import { flagValue, type CommandLine } from "./command-line.js";
import { ask, askPerFile, ciReport, defined, requiredTarget, type CliContext } from "./commands.js";
import { EXIT_FINDINGS, EXIT_OK, InputFileError, UsageError } from "./errors.js";
import {
  fixCounts,
  fixFindings,
  fixJson,
  fixMarkdown,
  fixText,
  type FixedFile,
} from "./fix-format.js";
import { STDIN, manifestFiles } from "./inputs.js";
import { isChartFolder, isPackagedChart } from "./chart-files.js";

const ROUTE = "/api/v1/fix";

interface FixQuestion {
  readonly targetVersion: string;
  readonly fromVersion: string | undefined;
  readonly allowLossy: boolean;
}

export async function fix(commandLine: CommandLine, context: CliContext): Promise<number> {
  const targetVersion = requiredTarget("fix", commandLine);
  const write = commandLine.flags.has("write");
  checkFixPaths(commandLine.positionals, write, context);
  const files = await manifestFiles(commandLine.positionals);
  const templates = await Promise.all(files.map((file) => inChartTemplates(file)));
  const question: FixQuestion = {
    targetVersion,
    fromVersion: flagValue(commandLine, "from"),
    allowLossy: commandLine.flags.has("allow-lossy"),
  };
  const answered = await fixFiles(files, templates, context, question);
  const results: FixedFile[] = [];
  for (const [index, result] of answered.entries()) {
    const given = files[index]!;
    const written = write && result.answer.changed;
    if (written && given !== STDIN) await replaceFile(given, result.answer.manifests);
    results.push({ ...result, written });
  }
  if (write && files[0] === STDIN) {
    // The rewritten text alone on stdout, so it can be redirected to a file; what happened, on stderr.
    context.write(results[0]!.answer.manifests);
    (context.warn ?? context.write)(fixText(results, { write, style: context.style }));
  } else writeFixReport(context, results, write);
  const { notFixed, changedFiles } = fixCounts(results);
  return notFixed > 0 || changedFiles > 0 ? EXIT_FINDINGS : EXIT_OK;
}

function checkFixPaths(positionals: readonly string[], write: boolean, context: CliContext): void {
  if (positionals.length === 0)
    throw new UsageError(
      "kubecompat fix needs what to fix: files, folders, or - for stdin (e.g. kubecompat fix --to 1.25 manifests/)",
      "fix",
    );
  const packaged = positionals.find((given) => isPackagedChart(given));
  if (packaged !== undefined)
    throw new UsageError(
      `${packaged} is a packaged chart, which fix cannot write back: unpack it (tar xzf ${packaged}, or helm pull --untar) and fix the chart's folder`,
      "fix",
    );
  const stdin = positionals.filter((given) => given === STDIN).length;
  if (stdin > 1) throw new UsageError("stdin (-) can be read once; give - at most once", "fix");
  if (write && stdin > 0 && (positionals.length > 1 || context.output !== "text"))
    throw new UsageError(
      "stdin (-) cannot be written back: with --write, its rewritten text goes to stdout, so give - alone and no --output (or leave out --write for the diff)",
      "fix",
    );
}

/** Sends each file on its own, a few at a time; the answers keep the files' order. */
function fixFiles(
  files: readonly string[],
  templates: readonly boolean[],
  context: CliContext,
  question: FixQuestion,
): Promise<Array<Omit<FixedFile, "written">>> {
  return askPerFile(files, context, async (_file, label, manifests, index) => {
    const raw = await ask(
      context,
      ROUTE,
      defined({
        manifests,
        targetVersion: question.targetVersion,
        fromVersion: question.fromVersion,
        allowLossy: question.allowLossy ? true : undefined,
        fileName: label,
        template: templates[index] === true ? true : undefined,
      }),
      { file: label },
    );
    return { file: label, answer: asFixAnswer(raw, context.api.server, ROUTE) };
  });
}

/**
 * Whether a file is a Helm template: under a `templates` folder whose parent holds Chart.yaml (a chart's, or
 * a subchart's under charts/). Its objects are read with the template's actions covered.
 */
async function inChartTemplates(file: string): Promise<boolean> {
  if (file === STDIN) return false;
  for (let folder = path.dirname(path.resolve(file)); ; folder = path.dirname(folder)) {
    if (path.basename(folder) === "templates" && (await isChartFolder(path.dirname(folder))))
      return true;
    if (path.dirname(folder) === folder) return false;
  }
}

/**
 * The file's text replaced by `text`: written to a temporary file beside it (a link is followed to the file
 * it names), with the file's permissions, then renamed over it, so a failure never leaves it half written.
 */
async function replaceFile(file: string, text: string): Promise<void> {
  let target: string;
  let mode: number;
  try {
    target = await fs.realpath(file);
    mode = (await fs.stat(target)).mode & 0o7777;
  } catch (error) {
    throw new InputFileError(`cannot write ${file}: ${(error as Error).message}`);
  }
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.kubecompat-fix-${crypto.randomBytes(4).toString("hex")}`,
  );
  try {
    await fs.writeFile(temporary, text, { encoding: "utf8", mode, flag: "wx" });
    await fs.chmod(temporary, mode); // the umask narrowed the mode given on creation
    await fs.rename(temporary, target);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw new InputFileError(`cannot write ${file}: ${(error as Error).message}`);
  }
}

function writeFixReport(context: CliContext, results: readonly FixedFile[], write: boolean): void {
  if (context.output === "sarif" || context.output === "junit" || context.output === "github") {
    const target = results[0]?.answer.targetVersion ?? "";
    context.write(ciReport(fixFindings(results), context, `kubecompat fix --to ${target}`));
  } else if (context.output === "json") context.write(fixJson(results));
  else if (context.output === "markdown") context.write(fixMarkdown(results));
  else context.write(fixText(results, { write, style: context.style }));
}
