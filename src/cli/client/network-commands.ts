/**
 * `kubecompat flows` and `kubecompat firewall`: the network flows a firewall
 * between node roles must allow (or them as firewall rules), and which of
 * them an allowed-flows list lacks.
 */
import { asValidationAnswer, fails, type FlowsAnswer } from "./answers.js";
import { failOn, flagValue, type CommandLine } from "./command-line.js";
import { ask, defined, noPositionals, read, type CliContext } from "./commands.js";
import { EXIT_FINDINGS, EXIT_OK, ServerAnswerError, UsageError } from "./errors.js";
import { validationMarkdown, validationText } from "./format.js";
import { labelOf } from "./inputs.js";

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
