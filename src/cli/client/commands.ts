/**
 * What the commands of `kubecompat` share: the context they run in, asking
 * the server (POST and GET) with a refusal turned into the CLI's error and
 * pointed back at the line of the file at fault, the reports for CI systems,
 * and the usage checks several commands make. The commands are grouped by
 * what they ask: plan-commands.ts (check, plan), scan-command.ts,
 * node-pool-command.ts, impact-command.ts, network-commands.ts (flows,
 * firewall) and cluster-commands.ts (collect, scan-cluster). No rule is
 * evaluated here; whether a plan is supported is whatever the server answers.
 */
import { ServerRefusedError, type KubecompatApi } from "./api.js";
import { flagValue, type CommandLine, type OutputFormat } from "./command-line.js";
import { ServerAnswerError, UsageError } from "./errors.js";
import { githubAnnotations, junitReport } from "./ci-formats.js";
import { sarifLog, type SarifFinding } from "./sarif.js";
import type { TextStyle } from "./format.js";
import { labelOf, type InputReader } from "./inputs.js";
import type { PlanFile } from "./plan-file.js";

export interface CliContext {
  readonly api: KubecompatApi;
  readonly output: OutputFormat;
  readonly style: TextStyle;
  readonly inputs: InputReader;
  readonly write: (text: string) => void;
  /** Where to say what happened when stdout carries something else (fix --write -); stdout when absent. */
  readonly warn?: (text: string) => void;
  /** The CLI's own version (SARIF names the tool's). */
  readonly version?: string;
}

export function requiredTarget(command: "plan" | "scan" | "fix", commandLine: CommandLine): string {
  const to = flagValue(commandLine, "to");
  if (to === undefined)
    throw new UsageError(
      `kubecompat ${command} needs the target version: --to VERSION (e.g. --to 1.30)`,
      command,
    );
  return to;
}

/** Adds only the options that are set, so the server applies its own defaults to the rest. */
export function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

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

/**
 * Sends one request; a refusal is re-raised with the server's details, and
 * a field such as `components[3].version` is pointed back at its line in the
 * plan file (or at its key in a node-pool file). Every command that posts
 * a question asks through here.
 */
export async function ask(
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

export function noPositionals(commandLine: CommandLine, command: "impact" | "flows"): void {
  if (commandLine.positionals.length > 0)
    throw new UsageError(
      `kubecompat ${command} takes no file, but got "${commandLine.positionals[0]}"`,
      command,
    );
}

/** Reads from the server (GET) and turns its refusal into the CLI's error. */
export async function read(
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

/** Files are sent a few at a time: faster over a network, still gentle on the server. */
export const FILES_IN_FLIGHT = 4;

/**
 * Each file's question, FILES_IN_FLIGHT at a time: the file read and sent on its own (so findings name it),
 * the answers in the files' order.
 */
export async function askPerFile<T>(
  files: readonly string[],
  context: CliContext,
  ask: (file: string, label: string, text: string, index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const index = next;
      next += 1;
      const file = files[index]!;
      const text = await context.inputs.read(file, "manifest file");
      results[index] = await ask(file, labelOf(file), text, index);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(FILES_IN_FLIGHT, files.length) }, () => worker()),
  );
  return results;
}
