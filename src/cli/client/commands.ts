/**
 * The three commands: each turns its arguments into one REST request (scan:
 * one per file), sends it, prints the answer in the chosen format and picks
 * the exit code. No rule is evaluated here; whether a plan is supported is
 * whatever the server answers.
 */
import { ServerRefusedError, type KubecompatApi } from "./api.js";
import { asScanAnswer, asUpgradePlanAnswer, asValidationAnswer, hasError, type ManifestFinding, type ScanAnswer } from "./answers.js";
import { flagValue, type CommandLine, type OutputFormat } from "./command-line.js";
import { EXIT_FINDINGS, EXIT_OK, ServerAnswerError, UsageError } from "./errors.js";
import {
  scanMarkdown,
  scanText,
  upgradePlanMarkdown,
  upgradePlanText,
  validationMarkdown,
  validationText,
  type FileFinding,
  type TextStyle,
} from "./format.js";
import { STDIN, labelOf, manifestFiles, parseKubectlOutput, type InputReader } from "./inputs.js";
import { parsePlanFile, type PlanFile } from "./plan-file.js";

export interface CliContext {
  readonly api: KubecompatApi;
  readonly output: OutputFormat;
  readonly style: TextStyle;
  readonly inputs: InputReader;
  readonly write: (text: string) => void;
}

/** What a check or plan is asked about: a plan file, or kubectl's view of a running cluster. */
type ClusterInput =
  | { readonly kind: "plan-file"; readonly plan: PlanFile }
  | { readonly kind: "kubectl"; readonly kubectlVersion?: unknown; readonly nodes?: unknown };

async function clusterInput(command: "check" | "plan", commandLine: CommandLine, context: CliContext): Promise<ClusterInput> {
  const [planPath, ...extra] = commandLine.positionals;
  const versionPath = flagValue(commandLine, "kubectl-version");
  const nodesPath = flagValue(commandLine, "kubectl-nodes");
  const fromKubectl = versionPath !== undefined || nodesPath !== undefined;
  if (extra.length > 0) {
    throw new UsageError(`kubecompat ${command} takes one plan file, but got ${[planPath, ...extra].map((word) => `"${word}"`).join(", ")}`, command);
  }
  if (planPath !== undefined && fromKubectl) {
    throw new UsageError(`give either a plan file or --kubectl-version/--kubectl-nodes, not both (got plan file "${planPath}")`, command);
  }
  if (planPath === undefined && !fromKubectl) {
    throw new UsageError(
      `kubecompat ${command} needs a plan file (kubecompat ${command} cluster.yaml) or kubectl's output (--kubectl-version FILE and/or --kubectl-nodes FILE)`,
      command,
    );
  }
  if (versionPath === STDIN && nodesPath === STDIN) {
    throw new UsageError("stdin (-) can be read once, but is given for both --kubectl-version and --kubectl-nodes; save one of them to a file", command);
  }
  if (planPath !== undefined) {
    const text = await context.inputs.read(planPath, "plan file");
    return { kind: "plan-file", plan: parsePlanFile(labelOf(planPath), text) };
  }
  const kubectlVersion =
    versionPath === undefined
      ? undefined
      : parseKubectlOutput(labelOf(versionPath), await context.inputs.read(versionPath, "--kubectl-version"), "version");
  const nodes =
    nodesPath === undefined ? undefined : parseKubectlOutput(labelOf(nodesPath), await context.inputs.read(nodesPath, "--kubectl-nodes"), "nodes");
  return { kind: "kubectl", ...(kubectlVersion === undefined ? {} : { kubectlVersion }), ...(nodes === undefined ? {} : { nodes }) };
}

function requiredTarget(command: "plan" | "scan", commandLine: CommandLine): string {
  const to = flagValue(commandLine, "to");
  if (to === undefined) throw new UsageError(`kubecompat ${command} needs the target version: --to VERSION (e.g. --to 1.30)`, command);
  return to;
}

/** Adds only the options that are set, so the server applies its own defaults to the rest. */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * Sends one request; a refusal is re-raised with the server's details, and
 * a field such as `components[3].version` is pointed back at its line in the
 * plan file.
 */
async function ask(context: CliContext, route: string, body: unknown, about: { plan?: PlanFile; file?: string } = {}): Promise<unknown> {
  try {
    return await context.api.post(route, body);
  } catch (error) {
    if (!(error instanceof ServerRefusedError)) throw error;
    const { serverError } = error;
    // A refused target version is not the file's fault; anything else (bad YAML, too large) is.
    const aboutTarget = serverError.details?.every((detail) => detail.field === "targetVersion") ?? false;
    const prefix = about.file === undefined || aboutTarget ? "" : `${about.file}: `;
    const hints = (serverError.details ?? []).map((detail) => {
      const where = locate(about.plan, detail.field ?? detail.message);
      const field = detail.field === undefined ? "" : `${detail.field}${where}: `;
      return detail.message === serverError.message ? `field: ${detail.field ?? "?"}${where}` : `${field}${detail.message}`;
    });
    if (hints.length === 0) {
      const where = locate(about.plan, serverError.message);
      if (where !== "") hints.push(`see${where}`);
    }
    throw new ServerAnswerError(`${prefix}${error.message}`, hints);
  }
}

function locate(plan: PlanFile | undefined, text: string): string {
  if (plan === undefined) return "";
  const match = /(?:^|[^A-Za-z])components\[(\d+)\]/.exec(text);
  const line = match ? plan.lines[Number(match[1])] : undefined;
  return line === undefined || line === 0 ? "" : ` (${plan.name}:${line})`;
}

export async function check(commandLine: CommandLine, context: CliContext): Promise<number> {
  const input = await clusterInput("check", commandLine, context);
  const plan = input.kind === "plan-file" ? input.plan : undefined;
  const profile = flagValue(commandLine, "profile") ?? plan?.profile;
  const asOf = flagValue(commandLine, "as-of") ?? plan?.asOf;
  const route = input.kind === "plan-file" ? "/api/v1/validate" : "/api/v1/validate/from-kubectl";
  const body =
    input.kind === "plan-file"
      ? defined({ components: input.plan.components, profile, asOf })
      : defined({ kubectlVersion: input.kubectlVersion, nodes: input.nodes, profile, asOf });
  const raw = await ask(context, route, body, plan === undefined ? {} : { plan });
  const answer = asValidationAnswer(raw, context.api.server, route);
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else if (context.output === "markdown") context.write(validationMarkdown(answer, profile));
  else context.write(validationText(answer, profile, context.style));
  return answer.ok && !hasError(answer.findings) ? EXIT_OK : EXIT_FINDINGS;
}

export async function plan(commandLine: CommandLine, context: CliContext): Promise<number> {
  const targetVersion = requiredTarget("plan", commandLine);
  const input = await clusterInput("plan", commandLine, context);
  const planFile = input.kind === "plan-file" ? input.plan : undefined;
  // A plan file's asOf is for `check`; the upgrade planner judges every step as of today.
  const profile = flagValue(commandLine, "profile") ?? planFile?.profile;
  const route = input.kind === "plan-file" ? "/api/v1/upgrade-plan" : "/api/v1/upgrade-plan/from-kubectl";
  const body =
    input.kind === "plan-file"
      ? defined({ current: { components: input.plan.components }, targetVersion, profile })
      : defined({ kubectlVersion: input.kubectlVersion, nodes: input.nodes, targetVersion, profile });
  const raw = await ask(context, route, body, planFile === undefined ? {} : { plan: planFile });
  const answer = asUpgradePlanAnswer(raw, context.api.server, route);
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else if (context.output === "markdown") context.write(upgradePlanMarkdown(answer, profile));
  else context.write(upgradePlanText(answer, profile, context.style));
  return answer.ok && !hasError(answer.findings) ? EXIT_OK : EXIT_FINDINGS;
}

/** Files are scanned a few at a time: faster over a network, still gentle on the server. */
const SCAN_CONCURRENCY = 4;

export async function scan(commandLine: CommandLine, context: CliContext): Promise<number> {
  const targetVersion = requiredTarget("scan", commandLine);
  if (commandLine.positionals.length === 0) {
    throw new UsageError("kubecompat scan needs what to scan: files, folders, or - for stdin (e.g. kubecompat scan --to 1.29 manifests/)", "scan");
  }
  if (commandLine.positionals.filter((given) => given === STDIN).length > 1) {
    throw new UsageError("stdin (-) can be read once; give - at most once", "scan");
  }
  const files = await manifestFiles(commandLine.positionals);
  const route = "/api/v1/scan";
  const results: { file: string; answer: ScanAnswer }[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const index = next;
      next += 1;
      const file = files[index]!;
      const label = labelOf(file);
      const manifests = await context.inputs.read(file, "manifest file");
      const raw = await ask(context, route, { manifests, targetVersion }, { file: label });
      results[index] = { file: label, answer: asScanAnswer(raw, context.api.server, route) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(SCAN_CONCURRENCY, files.length) }, () => worker()));

  const findings: FileFinding[] = results.flatMap(({ file, answer }) => answer.findings.map((finding: ManifestFinding) => ({ file, ...finding })));
  const first = results[0]!.answer;
  if (context.output === "json") {
    const report = { targetVersion: first.targetVersion, files: results.map(({ file, answer }) => ({ file, findings: answer.findings })) };
    context.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const summary = {
      targetVersion: first.targetVersion,
      kbRevision: typeof first.kbRevision === "number" ? first.kbRevision : null,
      files: results.length,
      documentsScanned: results.reduce((sum, { answer }) => sum + (answer.documentsScanned ?? 0), 0),
      objectsScanned: results.reduce((sum, { answer }) => sum + (answer.objectsScanned ?? 0), 0),
      findings,
    };
    context.write(context.output === "markdown" ? scanMarkdown(summary) : scanText(summary, context.style));
  }
  return hasError(findings) ? EXIT_FINDINGS : EXIT_OK;
}
