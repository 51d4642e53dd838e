/**
 * `kubecompat check` and `kubecompat plan`: is this combination of versions
 * supported, and the upgrade steps to a target. Both ask about the same
 * cluster, given as a plan file, as kubectl's output or as a bundle, and read
 * the profile, day and platform alike (from the flags, else the plan file).
 */
import { asUpgradePlanAnswer, asValidationAnswer, fails } from "./answers.js";
import { failOn, flagValue, type CommandLine } from "./command-line.js";
import { ask, defined, requiredTarget, type CliContext } from "./commands.js";
import { EXIT_FINDINGS, EXIT_OK, UsageError } from "./errors.js";
import { validationMarkdown, validationText } from "./format.js";
import { STDIN, labelOf, parseBundle, parseKubectlOutput } from "./inputs.js";
import { parsePlanFile, type PlanFile } from "./plan-file.js";
import { upgradePlanMarkdown, upgradePlanText } from "./plan-format.js";
import { checkAgainstBaseline } from "./fleet-commands.js";

/** What a check or plan is asked about: a plan file, or kubectl's view of a running cluster. */
export type ClusterInput =
  | { readonly kind: "plan-file"; readonly plan: PlanFile }
  | {
      readonly kind: "kubectl";
      readonly kubectlVersion?: unknown;
      readonly nodes?: unknown;
      readonly workloads?: unknown;
    };

export async function clusterInput(
  command: "check" | "plan" | "register",
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
  // Each of kubectl's outputs given is read and decoded; one not given stays out of the request.
  const read = async (
    path: string | undefined,
    flag: string,
    what: Parameters<typeof parseKubectlOutput>[2],
  ) =>
    path === undefined
      ? undefined
      : parseKubectlOutput(labelOf(path), await context.inputs.read(path, flag), what);
  const kubectlVersion = await read(versionPath, "--kubectl-version", "version");
  const nodes = await read(nodesPath, "--kubectl-nodes", "nodes");
  const workloads = await read(workloadsPath, "--kubectl-workloads", "workloads");
  return {
    kind: "kubectl",
    ...(kubectlVersion === undefined ? {} : { kubectlVersion }),
    ...(nodes === undefined ? {} : { nodes }),
    ...(workloads === undefined ? {} : { workloads }),
  };
}

export async function check(commandLine: CommandLine, context: CliContext): Promise<number> {
  const input = await clusterInput("check", commandLine, context);
  const baseline = flagValue(commandLine, "baseline");
  if (baseline !== undefined) return checkAgainstBaseline(baseline, input, commandLine, context);
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
