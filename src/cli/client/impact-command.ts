/**
 * `kubecompat impact`: what changes between two minors beyond apiVersions
 * (behaviour, configuration-file versions, feature gates), per release, as
 * GET /api/v1/upgrade-impact answers it.
 */
import type { ImpactAnswer } from "./answers.js";
import { flagValue, type CommandLine } from "./command-line.js";
import { noPositionals, read, type CliContext } from "./commands.js";
import { EXIT_OK, ServerAnswerError, UsageError } from "./errors.js";

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
