/**
 * The commands: each turns its arguments into one REST request (scan: one
 * per file), sends it, prints the answer in the chosen format and picks
 * the exit code. No rule is evaluated here; whether a plan is supported is
 * whatever the server answers.
 */
import path from "node:path";
import { ServerRefusedError, type KubecompatApi } from "./api.js";
import {
  asManifestFinding,
  asNodePoolAnswer,
  asScanAnswer,
  asUpgradePlanAnswer,
  asValidationAnswer,
  fails,
  scanStatus,
  type FlowsAnswer,
  type ImpactAnswer,
  type ScanAnswer,
  type ScanRow,
} from "./answers.js";
import { failOn, flagValue, type CommandLine, type OutputFormat } from "./command-line.js";
import { EXIT_FINDINGS, EXIT_OK, ServerAnswerError, UsageError } from "./errors.js";
import { parseBundle } from "./inputs.js";
import { githubAnnotations, junitReport } from "./ci-formats.js";
import { sarifLog, type SarifFinding } from "./sarif.js";
import {
  nodePoolMarkdown,
  nodePoolText,
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
import { parseNodePoolFile, type NodePoolFile, type NodePoolSpec } from "./node-pool-file.js";
import { parsePlanFile, type PlanFile } from "./plan-file.js";

export interface CliContext {
  readonly api: KubecompatApi;
  readonly output: OutputFormat;
  readonly style: TextStyle;
  readonly inputs: InputReader;
  readonly write: (text: string) => void;
  /** The CLI's own version (SARIF names the tool's). */
  readonly version?: string;
}

/** What a check or plan is asked about: a plan file, or kubectl's view of a running cluster. */
type ClusterInput =
  | { readonly kind: "plan-file"; readonly plan: PlanFile }
  | {
      readonly kind: "kubectl";
      readonly kubectlVersion?: unknown;
      readonly nodes?: unknown;
      readonly workloads?: unknown;
    };

async function clusterInput(
  command: "check" | "plan",
  commandLine: CommandLine,
  context: CliContext,
): Promise<ClusterInput> {
  const [planPath, ...extra] = commandLine.positionals;
  const versionPath = flagValue(commandLine, "kubectl-version");
  const nodesPath = flagValue(commandLine, "kubectl-nodes");
  const workloadsPath = flagValue(commandLine, "kubectl-workloads");
  const bundlePath = flagValue(commandLine, "bundle");
  if (bundlePath !== undefined) {
    if (
      planPath !== undefined ||
      versionPath !== undefined ||
      nodesPath !== undefined ||
      workloadsPath !== undefined
    ) {
      throw new UsageError(
        `give either --bundle or a plan file / --kubectl-* files, not both`,
        command,
      );
    }
    const bundle = parseBundle(bundlePath, await context.inputs.read(bundlePath, "--bundle"));
    return {
      kind: "kubectl",
      kubectlVersion: bundle.kubectlVersion,
      nodes: bundle.nodes,
      workloads: bundle.workloads,
    };
  }
  const fromKubectl =
    versionPath !== undefined || nodesPath !== undefined || workloadsPath !== undefined;
  if (extra.length > 0) {
    throw new UsageError(
      `kubecompat ${command} takes one plan file, but got ${[planPath, ...extra].map((word) => `"${word}"`).join(", ")}`,
      command,
    );
  }
  if (planPath !== undefined && fromKubectl) {
    throw new UsageError(
      `give either a plan file or --kubectl-version/--kubectl-nodes, not both (got plan file "${planPath}")`,
      command,
    );
  }
  if (planPath === undefined && !fromKubectl) {
    throw new UsageError(
      `kubecompat ${command} needs a plan file (kubecompat ${command} cluster.yaml) or kubectl's output (--kubectl-version FILE, --kubectl-nodes FILE, --kubectl-workloads FILE)`,
      command,
    );
  }
  if ([versionPath, nodesPath, workloadsPath].filter((path) => path === STDIN).length > 1) {
    throw new UsageError(
      "stdin (-) can be read once, but is given for more than one of --kubectl-version, --kubectl-nodes and --kubectl-workloads; save the others to files",
      command,
    );
  }
  if (planPath !== undefined) {
    const text = await context.inputs.read(planPath, "plan file");
    return { kind: "plan-file", plan: parsePlanFile(labelOf(planPath), text) };
  }
  const kubectlVersion =
    versionPath === undefined
      ? undefined
      : parseKubectlOutput(
          labelOf(versionPath),
          await context.inputs.read(versionPath, "--kubectl-version"),
          "version",
        );
  const nodes =
    nodesPath === undefined
      ? undefined
      : parseKubectlOutput(
          labelOf(nodesPath),
          await context.inputs.read(nodesPath, "--kubectl-nodes"),
          "nodes",
        );
  const workloads =
    workloadsPath === undefined
      ? undefined
      : parseKubectlOutput(
          labelOf(workloadsPath),
          await context.inputs.read(workloadsPath, "--kubectl-workloads"),
          "workloads",
        );
  return {
    kind: "kubectl",
    ...(kubectlVersion === undefined ? {} : { kubectlVersion }),
    ...(nodes === undefined ? {} : { nodes }),
    ...(workloads === undefined ? {} : { workloads }),
  };
}

function requiredTarget(command: "plan" | "scan", commandLine: CommandLine): string {
  const to = flagValue(commandLine, "to");
  if (to === undefined)
    throw new UsageError(
      `kubecompat ${command} needs the target version: --to VERSION (e.g. --to 1.30)`,
      command,
    );
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
/** Findings as SARIF, JUnit XML or GitHub annotations (the outputs for CI systems). */
export function ciReport(
  findings: readonly SarifFinding[],
  context: CliContext,
  name: string,
): string {
  if (context.output === "junit") return junitReport(findings, name);
  if (context.output === "github") return githubAnnotations(findings);
  return `${JSON.stringify(sarifLog(findings, { version: context.version ?? "unknown", server: context.api.server }), null, 2)}\n`;
}

/** Asks the server (POST) and turns its errors into the CLI's; for the commands in other files. */
export function askServer(context: CliContext, route: string, body: unknown): Promise<unknown> {
  return ask(context, route, body);
}

async function ask(
  context: CliContext,
  route: string,
  body: unknown,
  about: { plan?: PlanFile; file?: string; locate?: (text: string) => string } = {},
): Promise<unknown> {
  try {
    return await context.api.post(route, body);
  } catch (error) {
    if (!(error instanceof ServerRefusedError)) throw error;
    const { serverError } = error;
    // A refused target version is not the file's fault; anything else (bad YAML, too large) is.
    const aboutTarget =
      serverError.details?.every((detail) => detail.field === "targetVersion") ?? false;
    const prefix = about.file === undefined || aboutTarget ? "" : `${about.file}: `;
    const where = (text: string): string =>
      about.locate ? about.locate(text) : locate(about.plan, text);
    const hints = (serverError.details ?? []).map((detail) => {
      const at = where(detail.field ?? detail.message);
      const field = detail.field === undefined ? "" : `${detail.field}${at}: `;
      return detail.message === serverError.message
        ? `field: ${detail.field ?? "?"}${at}`
        : `${field}${detail.message}`;
    });
    if (hints.length === 0) {
      const at = where(serverError.message);
      if (at !== "") hints.push(`see${at}`);
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
  const platform = flagValue(commandLine, "platform") ?? plan?.platform;
  const route = input.kind === "plan-file" ? "/api/v1/validate" : "/api/v1/validate/from-kubectl";
  const body =
    input.kind === "plan-file"
      ? defined({ components: input.plan.components, profile, asOf, platform })
      : defined({
          kubectlVersion: input.kubectlVersion,
          nodes: input.nodes,
          workloads: input.workloads,
          profile,
          asOf,
          platform,
        });
  const raw = await ask(context, route, body, plan === undefined ? {} : { plan });
  const answer = asValidationAnswer(raw, context.api.server, route);
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else if (context.output === "markdown") context.write(validationMarkdown(answer, profile));
  else context.write(validationText(answer, profile, context.style));
  return fails(answer, failOn(commandLine)) ? EXIT_FINDINGS : EXIT_OK;
}

export async function plan(commandLine: CommandLine, context: CliContext): Promise<number> {
  const targetVersion = requiredTarget("plan", commandLine);
  const input = await clusterInput("plan", commandLine, context);
  const planFile = input.kind === "plan-file" ? input.plan : undefined;
  // The file's (or the flags') profile, day and platform are the plan's as they are the check's: one question, one answer.
  const profile = flagValue(commandLine, "profile") ?? planFile?.profile;
  const asOf = flagValue(commandLine, "as-of") ?? planFile?.asOf;
  const platform = flagValue(commandLine, "platform") ?? planFile?.platform;
  const route =
    input.kind === "plan-file" ? "/api/v1/upgrade-plan" : "/api/v1/upgrade-plan/from-kubectl";
  const body =
    input.kind === "plan-file"
      ? defined({
          current: { components: input.plan.components },
          targetVersion,
          profile,
          asOf,
          platform,
        })
      : defined({
          kubectlVersion: input.kubectlVersion,
          nodes: input.nodes,
          workloads: input.workloads,
          targetVersion,
          profile,
          asOf,
          platform,
        });
  const raw = await ask(context, route, body, planFile === undefined ? {} : { plan: planFile });
  const answer = asUpgradePlanAnswer(raw, context.api.server, route);
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else if (context.output === "markdown") context.write(upgradePlanMarkdown(answer, profile));
  else context.write(upgradePlanText(answer, profile, context.style));
  return fails(answer, failOn(commandLine)) ? EXIT_FINDINGS : EXIT_OK;
}

/** Files are scanned a few at a time: faster over a network, still gentle on the server. */
const SCAN_CONCURRENCY = 4;

export async function scan(commandLine: CommandLine, context: CliContext): Promise<number> {
  const targetVersion = requiredTarget("scan", commandLine);
  if (commandLine.positionals.length === 0) {
    throw new UsageError(
      "kubecompat scan needs what to scan: files, folders, or - for stdin (e.g. kubecompat scan --to 1.29 manifests/)",
      "scan",
    );
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
      const raw = await ask(
        context,
        route,
        defined({ manifests, targetVersion, fromVersion: flagValue(commandLine, "from") }),
        { file: label },
      );
      results[index] = { file: label, answer: asScanAnswer(raw, context.api.server, route) };
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(SCAN_CONCURRENCY, files.length) }, () => worker()),
  );

  // Fields, annotations and configuration files a change touches are findings too, in the same table.
  const findings: FileFinding[] = results.flatMap(({ file, answer }) =>
    [...answer.findings, ...(answer.changeFindings ?? []).map(asManifestFinding)]
      .sort((a, b) => a.documentIndex - b.documentIndex || a.line - b.line)
      .map((finding: ScanRow) => ({ file, ...finding })),
  );
  // About each file as a whole (unreadable documents, APIs not judged); the same note of every file (where the knowledge ends) once.
  const notes = results
    .flatMap(({ file, answer }) =>
      (answer.notes ?? []).map((note) => ({
        ...note,
        message: note.code === "KNOWLEDGE_EDGE" ? note.message : `${file}: ${note.message}`,
      })),
    )
    .filter(
      (note, index, all) =>
        all.findIndex((other) => other.code === note.code && other.message === note.message) ===
        index,
    );
  const first = results[0]!.answer;
  const status = scanStatus(results.map(({ answer }) => answer.status));
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
    const report = {
      targetVersion: first.targetVersion,
      status,
      notes,
      files: results.map(({ file, answer }) => ({
        file,
        findings: answer.findings,
        changeFindings: answer.changeFindings ?? [],
      })),
    };
    context.write(`${JSON.stringify(report, null, 2)}\n`);
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
  return fails({ status, findings: [...findings, ...notes] }, failOn(commandLine))
    ? EXIT_FINDINGS
    : EXIT_OK;
}

/** Reads a node-pool file and, when it names one, its KubeletConfiguration file (relative to the node-pool file). */
async function nodePoolInput(
  file: string,
  role: string,
  context: CliContext,
): Promise<{ file: NodePoolFile; spec: NodePoolSpec }> {
  const label = labelOf(file);
  const parsed = parseNodePoolFile(label, await context.inputs.read(file, role));
  if (parsed.kubeletConfigFile === undefined) return { file: parsed, spec: parsed.spec };
  const base = file === STDIN ? process.cwd() : path.dirname(path.resolve(file));
  const configPath = path.resolve(base, parsed.kubeletConfigFile.path);
  const kubeletConfig = await context.inputs.read(
    configPath,
    `kubeletConfigFile (${label}:${parsed.kubeletConfigFile.line})`,
  );
  return { file: parsed, spec: { ...parsed.spec, kubeletConfig } };
}

/** `to.kubeProxyMode` (or `rollbackTo.kubeletFlags[2]`) → ` (pool-1.30.yaml:7)`, the line of that key in its file. */
function nodePoolLocator(sides: Readonly<Record<string, NodePoolFile>>): (text: string) => string {
  return (text) => {
    const match = /(?:^|[^A-Za-z.])(from|to|current|rollbackTo)\.([A-Za-z]+)/.exec(text);
    const file = match ? sides[match[1]!] : undefined;
    if (match === null || file === undefined) return "";
    const line = file.lines[match[2]!];
    return line === undefined || line === 0 ? ` (${file.name})` : ` (${file.name}:${line})`;
  };
}

export async function nodepool(commandLine: CommandLine, context: CliContext): Promise<number> {
  const rollback = commandLine.flags.has("rollback");
  const controlPlaneVersion = flagValue(commandLine, "control-plane");
  const [fromPath, toPath, ...extra] = commandLine.positionals;
  const roles = rollback
    ? (["current node-pool file (FROM)", "rollback node-pool file (TO)"] as const)
    : (["node-pool file FROM", "node-pool file TO"] as const);
  if (fromPath === undefined || toPath === undefined || extra.length > 0) {
    const given =
      commandLine.positionals.length === 0
        ? "none"
        : commandLine.positionals.map((word) => `"${word}"`).join(", ");
    throw new UsageError(
      `kubecompat nodepool takes two node-pool files, the pool ${rollback ? "as it runs and the spec to go back to" : "before and after"} (got ${given}); e.g. kubecompat nodepool pool-1.29.yaml pool-1.30.yaml --control-plane 1.30`,
      "nodepool",
    );
  }
  if (controlPlaneVersion === undefined) {
    throw new UsageError(
      "kubecompat nodepool needs the control plane's version: --control-plane VERSION (e.g. --control-plane 1.30)",
      "nodepool",
    );
  }
  if (fromPath === STDIN && toPath === STDIN)
    throw new UsageError(
      "stdin (-) can be read once, but is given for both node-pool files; save one of them to a file",
      "nodepool",
    );
  const from = await nodePoolInput(fromPath, roles[0], context);
  const to = await nodePoolInput(toPath, roles[1], context);
  const profile = flagValue(commandLine, "profile");
  const asOf = flagValue(commandLine, "as-of");
  const platform = flagValue(commandLine, "platform");
  const route = rollback ? "/api/v1/node-pool/rollback-check" : "/api/v1/node-pool/upgrade-check";
  const body = rollback
    ? defined({
        controlPlaneVersion,
        current: from.spec,
        rollbackTo: to.spec,
        profile,
        asOf,
        platform,
      })
    : defined({ controlPlaneVersion, from: from.spec, to: to.spec, profile, asOf, platform });
  const sides: Record<string, NodePoolFile> = rollback
    ? { current: from.file, rollbackTo: to.file }
    : { from: from.file, to: to.file };
  const raw = await ask(context, route, body, { locate: nodePoolLocator(sides) });
  const answer = asNodePoolAnswer(raw, context.api.server, route);
  const question = { rollback, controlPlaneVersion, profile };
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else if (context.output === "markdown") context.write(nodePoolMarkdown(answer, question));
  else context.write(nodePoolText(answer, question, context.style));
  return fails(answer, failOn(commandLine)) ? EXIT_FINDINGS : EXIT_OK;
}

/** Flags that must be given, named in the message when they are not. */
function required(
  commandLine: CommandLine,
  command: "impact",
  name: string,
  example: string,
): string {
  const value = flagValue(commandLine, name);
  if (value === undefined)
    throw new UsageError(
      `kubecompat ${command} needs --${name} (e.g. --${name} ${example})`,
      command,
    );
  return value;
}

function noPositionals(commandLine: CommandLine, command: "impact" | "flows"): void {
  if (commandLine.positionals.length > 0)
    throw new UsageError(
      `kubecompat ${command} takes no file, but got "${commandLine.positionals[0]}"`,
      command,
    );
}

async function read(
  context: CliContext,
  route: string,
  query: Record<string, string | undefined>,
): Promise<unknown> {
  try {
    return await context.api.get(route, query);
  } catch (error) {
    if (!(error instanceof ServerRefusedError)) throw error;
    throw new ServerAnswerError(
      error.message,
      (error.serverError.details ?? [])
        .filter((detail) => detail.message !== error.serverError.message)
        .map((detail) => detail.message),
    );
  }
}

function isImpact(answer: unknown): answer is ImpactAnswer {
  return (
    answer !== null &&
    typeof answer === "object" &&
    Array.isArray((answer as { releases?: unknown }).releases) &&
    typeof (answer as { count?: unknown }).count === "number"
  );
}

/** `kubecompat impact --from 1.24 --to 1.29 [--area tenant-isolation]`: what changes beyond apiVersions, per release. */
export async function impact(commandLine: CommandLine, context: CliContext): Promise<number> {
  noPositionals(commandLine, "impact");
  const route = "/api/v1/upgrade-impact";
  const answer = await read(context, route, {
    from: required(commandLine, "impact", "from", "1.24"),
    to: required(commandLine, "impact", "to", "1.29"),
    area: flagValue(commandLine, "area"),
  });
  if (!isImpact(answer))
    throw new ServerAnswerError(
      `${context.api.server} answered GET ${route} with something that is not an upgrade impact; is it a kubecompat server of this version?`,
      [],
    );
  if (context.output === "json") {
    context.write(`${JSON.stringify(answer, null, 2)}\n`);
    return EXIT_OK;
  }
  const lines: string[] = [];
  for (const release of answer.releases) {
    if (release.changes.length === 0) continue;
    lines.push(
      context.output === "markdown"
        ? `### ${release.kubernetesVersion}\n`
        : `${release.kubernetesVersion}:`,
    );
    for (const change of release.changes) {
      lines.push(
        context.output === "markdown"
          ? `- **${change.change.toLowerCase().replaceAll("_", " ")}** ${change.title}: ${change.beforeUpgrade} ([source](${change.sourceUrl}))`
          : `  ${change.change.padEnd(19)} ${change.title}\n  ${" ".repeat(19)} ${change.beforeUpgrade}`,
      );
    }
    lines.push("");
  }
  for (const note of answer.notes) lines.push(`${note.severity} ${note.code}: ${note.message}`);
  lines.push(
    `${answer.count} change${answer.count === 1 ? "" : "s"} from ${answer.fromVersion} to ${answer.toVersion}`,
  );
  context.write(`${lines.join("\n")}\n`);
  return EXIT_OK;
}

type Flow = FlowsAnswer["flows"][number];

/** `kubecompat flows [--from ROLE] [--to ROLE] [--cni NAME] [--rules FORMAT]`: the flows, or them as firewall rules. */
export async function flows(commandLine: CommandLine, context: CliContext): Promise<number> {
  noPositionals(commandLine, "flows");
  const query = {
    from: flagValue(commandLine, "from"),
    to: flagValue(commandLine, "to"),
    cni: flagValue(commandLine, "cni"),
    version: flagValue(commandLine, "at"),
  };
  const format = flagValue(commandLine, "rules");
  if (format !== undefined) {
    const answer = await read(context, "/api/v1/firewall-rules", {
      ...query,
      format,
      cidrs: flagValue(commandLine, "cidrs"),
    });
    const rules = (answer as { rules?: unknown } | null)?.rules;
    if (typeof rules !== "string")
      throw new ServerAnswerError(
        `${context.api.server} answered GET /api/v1/firewall-rules without rules; is it a kubecompat server of this version?`,
        [],
      );
    context.write(rules);
    return EXIT_OK;
  }
  if (flagValue(commandLine, "cidrs") !== undefined)
    throw new UsageError("--cidrs goes with --rules (the address ranges of the rules)", "flows");
  const answer = await read(context, "/api/v1/flows", query);
  const list = (answer as { flows?: unknown } | null)?.flows;
  if (!Array.isArray(list))
    throw new ServerAnswerError(
      `${context.api.server} answered GET /api/v1/flows without flows; is it a kubecompat server of this version?`,
      [],
    );
  if (context.output === "json") {
    context.write(`${JSON.stringify(answer, null, 2)}\n`);
    return EXIT_OK;
  }
  const end = (side: Flow["from"]): string =>
    `${side.role.toLowerCase().replace("_", "-")}${side.component === null ? "" : `/${side.component}`}`;
  const lines = (list as readonly Flow[]).map((flow) => {
    const port =
      flow.port === null
        ? ""
        : `/${flow.endPort === null ? flow.port : `${flow.port}-${flow.endPort}`}`;
    return `${`${flow.protocol.toLowerCase()}${port}`.padEnd(16)} ${end(flow.from)} -> ${end(flow.to)}  ${flow.need.toLowerCase()}${flow.cni === null ? "" : ` [${flow.cni}]`}  ${flow.id}`;
  });
  const notes = ((answer as Partial<FlowsAnswer>).notes ?? []).map(
    (note) => `${note.severity} ${note.code}: ${note.message}`,
  );
  context.write(
    `${[...lines, ...notes, `${list.length} flow${list.length === 1 ? "" : "s"}`].join("\n")}\n`,
  );
  return EXIT_OK;
}

/** `kubecompat firewall ALLOWED_FILE [--cni NAME] [--at VERSION]`: which needed flows the list lacks. */
export async function firewall(commandLine: CommandLine, context: CliContext): Promise<number> {
  const [file, ...extra] = commandLine.positionals;
  if (file === undefined || extra.length > 0)
    throw new UsageError(
      "kubecompat firewall takes one allowed-flows file (or - for stdin), one flow per line: workers -> control-plane tcp/6443",
      "firewall",
    );
  const allowed = await context.inputs.read(file, "allowed-flows file");
  const route = "/api/v1/firewall/check";
  const raw = await ask(
    context,
    route,
    defined({ allowed, cni: flagValue(commandLine, "cni"), version: flagValue(commandLine, "at") }),
    { file: labelOf(file) },
  );
  const answer = asValidationAnswer(raw, context.api.server, route);
  context.write(
    context.output === "json"
      ? `${JSON.stringify(raw, null, 2)}\n`
      : context.output === "markdown"
        ? validationMarkdown(answer, undefined)
        : validationText(answer, undefined, context.style),
  );
  return fails(answer, failOn(commandLine)) ? EXIT_FINDINGS : EXIT_OK;
}
