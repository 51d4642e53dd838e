/**
 * `kubecompat nodepool FROM TO`: can a node pool move from one spec to
 * another (or, with --rollback, go back) under the control plane. Reads both
 * node-pool files (and the KubeletConfiguration files they name) and points
 * a refused field back at its line in its file.
 */
import path from "node:path";
import { asNodePoolAnswer, fails } from "./answers.js";
import { failOn, flagValue, type CommandLine } from "./command-line.js";
import { ask, defined, type CliContext } from "./commands.js";
import { EXIT_FINDINGS, EXIT_OK, UsageError } from "./errors.js";
import { nodePoolMarkdown, nodePoolText } from "./node-pool-format.js";
import { STDIN, labelOf } from "./inputs.js";
import { parseNodePoolFile, type NodePoolFile, type NodePoolSpec } from "./node-pool-file.js";

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
