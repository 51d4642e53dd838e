/**
 * The fleet from the command line: `kubecompat register NAME` (a cluster's
 * state, from a plan file, kubectl's outputs or a collect bundle, also piped
 * in: `kubecompat collect | kubecompat register NAME --env prod --owner me`),
 * `kubecompat fleet` (every cluster with its verdict and deadlines), and the
 * baseline mode of `kubecompat check --baseline NAME[@SNAPSHOT]`: only what
 * is new since a snapshot the fleet keeps. Registering needs an editor's
 * token in KUBECOMPAT_TOKEN.
 */
import { flagValue, failOn, type CommandLine } from "./command-line.js";
import { ask, defined, read, type CliContext } from "./commands.js";
import { EXIT_FINDINGS, EXIT_OK, UsageError } from "./errors.js";
import { STDIN } from "./inputs.js";
import { clusterInput, type ClusterInput } from "./plan-commands.js";

interface Finding {
  readonly code: string;
  readonly severity: string;
  readonly message: string;
  readonly component: string | null;
  readonly instance: string | null;
}

interface ClusterView {
  readonly name: string;
  readonly environment: string;
  readonly owner: string;
  readonly daysLeft: number | null;
  readonly daysToStart: number | null;
  readonly judgement: {
    readonly status: string;
    readonly judgedStatus: string;
    readonly controlPlane: string | null;
    readonly platform: string | null;
    readonly deadline: string | null;
    readonly blocking: readonly Finding[];
    readonly startBy: { readonly latestStart: string } | null;
    readonly upgrade: { readonly targetVersion: string; readonly hops: number } | null;
  } | null;
}

/** The state fields of a request, from a plan file or kubectl's outputs. */
function stateBody(input: ClusterInput, commandLine: CommandLine) {
  const plan = input.kind === "plan-file" ? input.plan : undefined;
  const common = {
    platform: flagValue(commandLine, "platform") ?? plan?.platform,
    profile: flagValue(commandLine, "profile") ?? plan?.profile,
  };
  return input.kind === "plan-file"
    ? defined({ components: input.plan.components, ...common })
    : defined({
        kubectlVersion: input.kubectlVersion,
        nodes: input.nodes,
        workloads: input.workloads,
        ...common,
      });
}

function requiredFlag(commandLine: CommandLine, name: string, example: string): string {
  const value = flagValue(commandLine, name);
  if (value === undefined)
    throw new UsageError(
      `kubecompat register needs --${name} (e.g. --${name} ${example})`,
      "register",
    );
  return value;
}

/** "team=payments,region=eu" as labels; a pair without "=" is refused. */
function labelsOf(
  text: string | undefined,
  command: "register" | "subscribe" = "register",
): Record<string, string> {
  if (text === undefined) return {};
  const labels: Record<string, string> = {};
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0)
      throw new UsageError(
        `--labels takes key=value pairs separated by commas (got "${pair}")`,
        command,
      );
    labels[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return labels;
}

export async function register(commandLine: CommandLine, context: CliContext): Promise<number> {
  const [name, ...rest] = commandLine.positionals;
  if (name === undefined)
    throw new UsageError(
      "kubecompat register needs the cluster's name: kubecompat register NAME",
      "register",
    );
  const givesState =
    rest.length > 0 ||
    ["bundle", "kubectl-version", "kubectl-nodes", "kubectl-workloads"].some((flag) =>
      commandLine.flags.has(flag),
    );
  // Nothing named: the bundle is read from stdin (kubecompat collect | kubecompat register NAME).
  const flags = new Map(commandLine.flags);
  if (!givesState) flags.set("bundle", STDIN);
  const input = await clusterInput(
    "register",
    { ...commandLine, positionals: rest, flags },
    context,
  );
  const body = {
    name,
    environment: requiredFlag(commandLine, "env", "prod"),
    owner: requiredFlag(commandLine, "owner", "team-payments"),
    labels: labelsOf(flagValue(commandLine, "labels")),
    ...stateBody(input, commandLine),
  };
  const raw = (await ask(
    context,
    "/api/v1/clusters",
    body,
    input.kind === "plan-file" ? { plan: input.plan } : {},
  )) as {
    item: ClusterView;
  };
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else context.write(`registered ${name}\n${fleetTable([raw.item])}`);
  return EXIT_OK;
}

function cell(value: string | number | null | undefined): string {
  return value === null || value === undefined ? "-" : String(value);
}

/** One line per cluster: where it stands, its verdict, its deadlines and what blocks it. */
export function fleetTable(clusters: readonly ClusterView[]): string {
  const header = [
    "ENV",
    "CLUSTER",
    "VERDICT",
    "MINOR",
    "PLATFORM",
    "LAST DAY",
    "DAYS",
    "START BY",
    "BLOCKING",
  ];
  const rows = clusters.map((cluster) => {
    const judgement = cluster.judgement;
    const status =
      judgement === null
        ? "-"
        : judgement.status === judgement.judgedStatus
          ? judgement.status
          : `${judgement.status} (waived: ${judgement.judgedStatus})`;
    const start = judgement?.startBy ?? null;
    return [
      cluster.environment,
      cluster.name,
      status,
      cell(judgement?.controlPlane),
      cell(judgement?.platform),
      cell(judgement?.deadline),
      cell(cluster.daysLeft),
      start === null || (judgement?.upgrade?.hops ?? 0) === 0
        ? "-"
        : `${start.latestStart}${(cluster.daysToStart ?? 0) < 0 ? " (overdue)" : ""}`,
      judgement === null || judgement.blocking.length === 0
        ? "-"
        : [...new Set(judgement.blocking.map((entry) => entry.code))].join(","),
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  return [header, ...rows]
    .map((row) =>
      row
        .map((value, column) => value.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")
    .concat("\n");
}

export async function fleet(commandLine: CommandLine, context: CliContext): Promise<number> {
  if (commandLine.positionals.length > 0)
    throw new UsageError(
      `kubecompat fleet takes no arguments (got "${commandLine.positionals[0]}")`,
      "fleet",
    );
  const raw = (await read(context, "/api/v1/clusters", {
    environment: flagValue(commandLine, "env"),
    owner: flagValue(commandLine, "owner"),
    label: flagValue(commandLine, "label"),
  })) as { items: ClusterView[] };
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else
    context.write(
      raw.items.length === 0
        ? "no cluster is registered (kubecompat register NAME)\n"
        : fleetTable(raw.items),
    );
  const level = failOn(commandLine);
  const failing = raw.items.some(
    (cluster) =>
      cluster.judgement?.status === "UNSUPPORTED" ||
      cluster.judgement?.status === "NOT_JUDGED" ||
      (level !== "error" && cluster.judgement?.status === "SUPPORTED_WITH_WARNINGS"),
  );
  return failing ? EXIT_FINDINGS : EXIT_OK;
}

/** `check --baseline NAME[@SNAPSHOT]`: the state compared with a snapshot the fleet keeps. */
export async function checkAgainstBaseline(
  baseline: string,
  input: ClusterInput,
  commandLine: CommandLine,
  context: CliContext,
): Promise<number> {
  const match = /^([a-z0-9][a-z0-9.-]*)(?:@(\d+))?$/.exec(baseline);
  if (match === null)
    throw new UsageError(
      `--baseline takes a registered cluster's name, optionally with a snapshot id: pay-prod or pay-prod@12 (got "${baseline}")`,
      "check",
    );
  const body = {
    ...stateBody(input, commandLine),
    ...(match[2] === undefined ? {} : { baseline: Number(match[2]) }),
  };
  const route = `/api/v1/clusters/${match[1]}/baseline-check`;
  const raw = (await ask(
    context,
    route,
    body,
    input.kind === "plan-file" ? { plan: input.plan } : {},
  )) as {
    status: string;
    baselineStatus: string;
    added: Finding[];
    resolved: Finding[];
    unchanged: number;
    baseline: { snapshot: number; takenAt: string };
  };
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else {
    const line = (entry: Finding) =>
      `  ${entry.severity} ${entry.code}${entry.component === null ? "" : ` (${entry.component}${entry.instance === null ? "" : `@${entry.instance}`})`}: ${entry.message}\n`;
    context.write(
      `${match[1]} against snapshot ${raw.baseline.snapshot} (${raw.baseline.takenAt.slice(0, 10)}): ${raw.baselineStatus} → ${raw.status}\n` +
        `${raw.added.length} new, ${raw.resolved.length} resolved, ${raw.unchanged} unchanged (accepted by the baseline)\n` +
        (raw.added.length > 0 ? `new:\n${raw.added.map(line).join("")}` : "") +
        (raw.resolved.length > 0 ? `resolved:\n${raw.resolved.map(line).join("")}` : ""),
    );
  }
  const level = failOn(commandLine);
  return raw.added.some((entry) => entry.severity === "ERROR" || level !== "error")
    ? EXIT_FINDINGS
    : EXIT_OK;
}

/** "environments=prod,staging" style filters of `subscribe` into the API's filters. */
function listFlag(commandLine: CommandLine, name: string): string[] | undefined {
  const value = flagValue(commandLine, name);
  return value === undefined
    ? undefined
    : value
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "");
}

/** `kubecompat subscribe URL [--slack] [--env E,...] [--owner O,...] [--labels k=v,...] [--min-severity S]`. */
export async function subscribe(commandLine: CommandLine, context: CliContext): Promise<number> {
  const [url, ...rest] = commandLine.positionals;
  if (url === undefined || rest.length > 0)
    throw new UsageError(
      "kubecompat subscribe takes one URL: the webhook (or, with --slack, the Slack incoming webhook) to tell",
      "subscribe",
    );
  const labels = flagValue(commandLine, "labels");
  const filters = defined({
    environments: listFlag(commandLine, "env"),
    owners: listFlag(commandLine, "owner"),
    labels: labels === undefined ? undefined : labelsOf(labels, "subscribe"),
    minSeverity: flagValue(commandLine, "min-severity")?.toUpperCase(),
  });
  const raw = (await ask(context, "/api/v1/subscriptions", {
    kind: commandLine.flags.has("slack") ? "slack" : "webhook",
    url,
    ...defined({ secret: flagValue(commandLine, "secret") }),
    filters,
  })) as { item: { id: number; kind: string; secret: string | null } };
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else
    context.write(
      `subscription ${raw.item.id} (${raw.item.kind}) to ${url}\n` +
        (raw.item.secret === null
          ? ""
          : `signing secret (shown once; the receiver checks x-kubecompat-signature with it): ${raw.item.secret}\n`),
    );
  return EXIT_OK;
}

/** `kubecompat waive CODE (--cluster NAME | --label K=V) --until DAY --reason TEXT --owner WHO`. */
export async function waive(commandLine: CommandLine, context: CliContext): Promise<number> {
  const [code, ...rest] = commandLine.positionals;
  if (code === undefined || rest.length > 0)
    throw new UsageError(
      "kubecompat waive takes one finding code, e.g. kubecompat waive PLATFORM_EXTENDED_SUPPORT --cluster pay-prod ...",
      "waive",
    );
  const needed = (name: string, example: string) => {
    const value = flagValue(commandLine, name);
    if (value === undefined)
      throw new UsageError(`kubecompat waive needs --${name} (e.g. --${name} ${example})`, "waive");
    return value;
  };
  const raw = (await ask(
    context,
    "/api/v1/waivers",
    defined({
      code,
      cluster: flagValue(commandLine, "cluster"),
      label: flagValue(commandLine, "label"),
      expiresOn: needed("until", "2027-03-31"),
      reason: needed("reason", '"moving to 1.33 this sprint"'),
      owner: needed("owner", "jane@example.com"),
    }),
  )) as { item: { id: number; code: string; expiresOn: string } };
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else
    context.write(`waiver ${raw.item.id}: ${raw.item.code} waived until ${raw.item.expiresOn}\n`);
  return EXIT_OK;
}

interface DeliveryRow {
  readonly id: number;
  readonly status: string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly event: { readonly cluster: string; readonly kind: string; readonly summary: string };
  readonly subscription: { readonly id: number; readonly kind: string; readonly url: string };
}

/** `kubecompat deliveries [--status dead|pending|delivered]`: what became of the fleet's events, newest first. */
export async function deliveries(commandLine: CommandLine, context: CliContext): Promise<number> {
  if (commandLine.positionals.length > 0)
    throw new UsageError(
      `kubecompat deliveries takes no arguments (got "${commandLine.positionals[0]}")`,
      "deliveries",
    );
  const raw = (await read(context, "/api/v1/deliveries", {
    status: flagValue(commandLine, "status")?.toUpperCase(),
  })) as { items: DeliveryRow[] };
  if (context.output === "json") context.write(`${JSON.stringify(raw, null, 2)}\n`);
  else if (raw.items.length === 0) context.write("no delivery\n");
  else
    context.write(
      raw.items
        .map(
          (row) =>
            `${row.id}  ${row.status}  ${row.attempts} attempt${row.attempts === 1 ? "" : "s"}  subscription ${row.subscription.id} (${row.subscription.kind}, ${new URL(row.subscription.url).host})  ${row.event.summary}${row.lastError === null ? "" : `\n    last error: ${row.lastError}`}\n`,
        )
        .join(""),
    );
  // The dead-letter list in a pipeline: exit 1 while anything is dead.
  return raw.items.some((row) => row.status === "DEAD") ? EXIT_FINDINGS : EXIT_OK;
}

/** `kubecompat replay ID`: a dead delivery back on the queue. */
export async function replay(commandLine: CommandLine, context: CliContext): Promise<number> {
  const [id, ...rest] = commandLine.positionals;
  if (id === undefined || rest.length > 0 || !/^\d+$/.test(id))
    throw new UsageError(
      "kubecompat replay takes one delivery id (kubecompat deliveries --status dead lists them)",
      "replay",
    );
  await ask(context, `/api/v1/deliveries/${id}/replay`, {});
  context.write(`delivery ${id} is queued again\n`);
  return EXIT_OK;
}
