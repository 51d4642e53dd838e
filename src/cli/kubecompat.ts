/**
 * `kubecompat`, the command-line client of the REST API (bin/kubecompat.js
 * runs it through src/cli.ts). A thin client: it reads files, calls HTTP,
 * formats the answer and picks the exit code; every rule lives in the server.
 * With --offline the server is one started in this process over the shipped
 * kb/ (src/offline.ts, handed in as `startOffline`), so there is still one
 * place where answers are made. This module wires argv, the environment and
 * stdio to the commands in src/cli/client/.
 *
 *   kubecompat check PLAN_FILE [--profile NAME] [--as-of YYYY-MM-DD]     POST /api/v1/validate
 *   kubecompat check --kubectl-version FILE --kubectl-nodes FILE [...]   POST /api/v1/validate/from-kubectl
 *   kubecompat plan PLAN_FILE --to VERSION [--profile NAME]              POST /api/v1/upgrade-plan
 *   kubecompat plan --kubectl-version FILE --kubectl-nodes FILE --to V   POST /api/v1/upgrade-plan/from-kubectl
 *   kubecompat scan --to VERSION PATH...                                 POST /api/v1/scan, once per file
 *   kubecompat fix --to VERSION [--allow-lossy] [--write] PATH...        POST /api/v1/fix, once per file
 *   kubecompat nodepool FROM TO --control-plane V [--profile NAME]       POST /api/v1/node-pool/upgrade-check
 *   kubecompat nodepool FROM TO --control-plane V --rollback [...]       POST /api/v1/node-pool/rollback-check
 *                                                                        (FROM as current, TO as rollbackTo)
 *   kubecompat impact --from V --to V [--area AREAS]                     GET /api/v1/upgrade-impact
 *   kubecompat flows [--from R] [--to R] [--cni N] [--rules FORMAT]      GET /api/v1/flows (or /firewall-rules)
 *   kubecompat firewall ALLOWED_FILE [--cni N] [--at V]                  POST /api/v1/firewall/check
 *   kubecompat collect [--context NAME] [--output-file FILE]             runs the user's kubectl; no request
 *   kubecompat scan-cluster --to V [--bundle F] [--helm F] [--metrics F] POST /api/v1/scan/cluster
 *   kubecompat register NAME --env E --owner O [PLAN_FILE | --bundle F]  POST /api/v1/clusters (stdin: a bundle)
 *   kubecompat fleet [--env E] [--owner O] [--label K=V]                 GET /api/v1/clusters
 *   kubecompat subscribe URL [--slack] [--env E,...] [--min-severity L]  POST /api/v1/subscriptions
 *   kubecompat waive CODE --cluster NAME --until DAY --reason R --owner O POST /api/v1/waivers
 *   kubecompat deliveries [--status dead] / kubecompat replay ID         GET /api/v1/deliveries, POST .../replay
 *   kubecompat check ... --baseline NAME[@SNAPSHOT]                      POST /api/v1/clusters/NAME/baseline-check
 *
 * Server: --server URL, else $KUBECOMPAT_URL, else http://localhost:4000;
 * --offline answers from the kb/ shipped with the package, without a server.
 * Output: --output text (default; colours only on a TTY without NO_COLOR) | json | markdown.
 * Exit codes: 0 no ERROR finding; 1 at least one ERROR finding; 2 the question
 * could not be asked (usage, missing or invalid file, server unreachable, 4xx/5xx).
 *
 * Plan file format
 * ----------------
 * YAML (or JSON). Top-level keys: `components` (required), `profile`, `asOf`
 * and `platform` (optional); any other key is refused, so a misspelt key is
 * never silently ignored. `components` is either a list (an entry may also
 * say `cgroupVersion`, `failCgroupV1` and `featureGates` as validate takes them):
 *
 *   components:
 *     - { component: kube-apiserver, version: 1.30.4, instance: cp-1 }
 *     - { component: kube-apiserver, version: 1.30.4, instance: cp-2 }
 *     - { component: kubelet, version: 1.29.8, instance: pool-a }
 *     - { component: containerd, version: 1.7.20, instance: pool-a }
 *     - { component: kubectl, version: 1.30.2 }
 *   profile: strict        # upstream (the server's default) or strict
 *   asOf: 2026-01-31       # judge end of life and support on this day (default today)
 *   platform: eks          # eks, gke, aks or upstream (recognised from -eks- versions when left out)
 *
 * or a map whose keys are `component` or `component@instance` and whose values
 * are versions:
 *
 *   components:
 *     kube-apiserver@cp-1: 1.30.4
 *     kube-apiserver@cp-2: 1.30.4
 *     kubelet@pool-a: 1.29.8
 *     containerd@pool-a: 1.7.20
 *     kubectl: 1.30.2
 *
 * Every value is read as text (YAML's failsafe schema): `1.30` stays "1.30",
 * never the number 1.3, so versions need no quotes. Component names and
 * aliases are those of GET /api/v1/components; versions are written as people
 * write them (1.29, v1.29.3, v1.29.3-eks-1234). The --profile and --as-of
 * flags override the file's `profile` and `asOf`, --platform its `platform`;
 * `check` and `plan` read them alike.
 *
 * Node-pool file format
 * ---------------------
 * YAML (or JSON), one map: a NodePoolSpec as POST /api/v1/node-pool/* takes
 * it. Every value is read as text, as in plan files. Keys:
 *
 *   name: pool-a                 # optional; names the pool in findings
 *   kubeletVersion: 1.30.1       # required
 *   kubeletFlags:                # optional: a list of flags...
 *     - --node-ip=10.0.12.7
 *     - --container-runtime-endpoint=unix:///run/containerd/containerd.sock
 *   # ...or one string, such as the systemd unit's ExecStart line pasted as is:
 *   # kubeletFlags: |
 *   #   ExecStart=/usr/bin/kubelet \
 *   #     --node-ip=10.0.12.7
 *   kubeletConfigFile: kubelet-config.yaml   # the KubeletConfiguration, relative to this file; sent as text
 *   # or kubeletConfig: inline, as a mapping or as text (kubeletConfig: |), not both
 *   kubeProxyVersion: 1.30.1
 *   kubeProxyMode: nftables      # iptables, ipvs, nftables; kernelspace on Windows
 *   os: linux                    # linux (default) or windows
 *   runtime: containerd          # containerd, cri-o or docker-engine
 *   runtimeVersion: 2.0.1
 *   chartKubeVersion: ">=1.27.0-0 <1.32.0-0"   # the node-pool chart's Helm kubeVersion
 *
 * Unknown keys are refused (exit 2). `kubecompat nodepool FROM TO` checks
 * FROM → TO as an upgrade; with --rollback, FROM is the pool as it runs and
 * TO the older spec to go back to.
 */
import { readFileSync } from "node:fs";
import { KubecompatApi } from "./client/api.js";
import type { CliContext } from "./client/commands.js";
import { check, plan } from "./client/plan-commands.js";
import { scan } from "./client/scan-command.js";
import { fix } from "./client/fix-command.js";
import { nodepool } from "./client/node-pool-command.js";
import { impact } from "./client/impact-command.js";
import { firewall, flows } from "./client/network-commands.js";
import { collect, scanCluster } from "./client/cluster-commands.js";
import { deliveries, fleet, register, replay, subscribe, waive } from "./client/fleet-commands.js";
import { COMMANDS, DEFAULT_SERVER, type CommandName } from "./client/command-flags.js";
import { commandHelp, topLevelHelp } from "./client/command-help.js";
import {
  flagValue,
  outputFormat,
  parseCommandLine,
  type CommandLine,
} from "./client/command-line.js";
import { CliError, EXIT_FAILURE, EXIT_OK, OfflineError, UsageError } from "./client/errors.js";
import { InputReader } from "./client/inputs.js";
import { relayMcp } from "./mcp-bridge.js";

// The CLI's own environment, not the service's config.
const environment = process.env; // eslint-disable-line no-restricted-syntax
const {
  KUBECOMPAT_URL: serverFromEnvironment,
  NO_COLOR: noColour,
  KUBECTL: kubectlFromEnvironment,
  KUBECOMPAT_TOKEN: tokenFromEnvironment,
} = environment;

// Two levels up both from src/cli/ (run by bin/ through tsx) and from dist/cli/ (compiled).
const CLI_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

const RUN: Readonly<
  Record<CommandName, (commandLine: CommandLine, context: CliContext) => Promise<number>>
> = {
  check,
  plan,
  scan: (commandLine, context) => scan(commandLine, context, { kubectl: kubectlFromEnvironment }),
  fix,
  nodepool,
  impact,
  flows,
  firewall,
  collect: (commandLine, context) =>
    collect(commandLine, context, { kubectl: kubectlFromEnvironment }),
  "scan-cluster": scanCluster,
  register,
  fleet,
  subscribe,
  waive,
  deliveries,
  replay,
  // Relays MCP between stdio and the server's /mcp until the agent closes stdin.
  mcp: async (_commandLine, context) => {
    await relayMcp({
      server: context.api.base,
      token: tokenFromEnvironment,
      userAgent: `kubecompat-cli/${CLI_VERSION}`,
    });
    return EXIT_OK;
  },
};

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    process.stderr.write("kubecompat: reading from stdin (end with Ctrl-D)\n");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

function write(text: string): void {
  process.stdout.write(text);
}

/** A server started in this process for --offline, closed when the command is done. */
export interface OfflineServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface CliServices {
  readonly startOffline: () => Promise<OfflineServer>;
}

/** Commands about the server's fleet, which --offline does not have. */
const FLEET_COMMANDS: ReadonlySet<CommandName> = new Set([
  "register",
  "fleet",
  "subscribe",
  "waive",
  "deliveries",
  "replay",
]);

/** Commands that ask no server: --offline starts none for them. */
const ASKS_NO_SERVER: ReadonlySet<CommandName> = new Set(["collect"]);

async function main(argv: readonly string[], services: CliServices): Promise<number> {
  const commandLine = parseCommandLine(argv);
  const { command } = commandLine;
  if (command === "help") {
    const [topic] = commandLine.positionals;
    if (topic === undefined) write(topLevelHelp());
    else if ((COMMANDS as readonly string[]).includes(topic))
      write(commandHelp(topic as CommandName));
    else throw new UsageError(`no help for "${topic}"; commands: ${COMMANDS.join(", ")}`, null);
    return EXIT_OK;
  }
  if (commandLine.flags.has("help")) {
    write(command === null ? topLevelHelp() : commandHelp(command));
    return EXIT_OK;
  }
  if (commandLine.flags.has("version")) {
    write(`kubecompat ${CLI_VERSION}\n`);
    return EXIT_OK;
  }
  if (command === null) throw new UsageError(`name a command: ${COMMANDS.join(", ")}`, null);

  const output = outputFormat(commandLine);
  const offline = commandLine.flags.has("offline");
  if (offline && (FLEET_COMMANDS.has(command) || commandLine.flags.has("baseline")))
    throw new UsageError(
      "the fleet lives on a server: --offline has no registered clusters; give --server URL (or KUBECOMPAT_URL)",
      command,
    );
  if (offline && commandLine.flags.has("server"))
    throw new UsageError(
      "--offline answers without a server; leave out --server (or --offline)",
      command,
    );
  let offlineServer: OfflineServer | undefined;
  if (offline && !ASKS_NO_SERVER.has(command)) {
    try {
      offlineServer = await services.startOffline();
    } catch (error) {
      throw new OfflineError(
        `--offline could not load the knowledge base shipped with the CLI: ${error instanceof Error ? error.message : String(error)}`,
        ["Reinstall the package (its kb/ directory is read), or ask a server with --server URL."],
      );
    }
  }
  const userAgent = `kubecompat-cli/${CLI_VERSION}`;
  const api =
    offlineServer === undefined
      ? new KubecompatApi(
          flagValue(commandLine, "server") ?? (serverFromEnvironment || DEFAULT_SERVER),
          userAgent,
          undefined,
          tokenFromEnvironment || undefined,
        )
      : new KubecompatApi(
          offlineServer.url,
          userAgent,
          `offline (the kb/ of kubecompat ${CLI_VERSION})`,
        );
  // https://no-color.org: any non-empty NO_COLOR turns colour off.
  const colourTerminal = process.stdout.isTTY && (noColour === undefined || noColour === "");
  const context: CliContext = {
    api,
    output,
    style: {
      colour: colourTerminal,
      width: process.stdout.isTTY ? (process.stdout.columns ?? null) : null,
    },
    inputs: new InputReader(readStdin),
    write,
    warn: (text) => process.stderr.write(text),
    version: CLI_VERSION,
  };
  try {
    return await RUN[command](commandLine, context);
  } finally {
    await offlineServer?.close();
  }
}

function report(error: unknown): number {
  if (!(error instanceof CliError)) {
    process.stderr.write(
      `kubecompat: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT_FAILURE;
  }
  const lines = [`kubecompat: ${error.message}`, ...error.hints.map((hint) => `  ${hint}`)];
  if (error instanceof UsageError)
    lines.push(
      `Run kubecompat ${error.command === null ? "--help" : `${error.command} --help`} for usage.`,
    );
  process.stderr.write(`${lines.join("\n")}\n`);
  return EXIT_FAILURE;
}

// `kubecompat ... | head` closes the pipe early: the reader's choice, not a failure worth a stack trace.
let stdoutClosed = false;
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  stdoutClosed = true;
});

/** Runs the command in process.argv and exits with its code. */
export async function runCli(services: CliServices): Promise<void> {
  const exitCode = await main(process.argv.slice(2), services).catch(report);
  // Exit explicitly once stdout has drained: fetch's keep-alive sockets would otherwise hold the process open for seconds.
  if (stdoutClosed || process.stdout.destroyed) process.exit(exitCode);
  else process.stdout.write("", () => process.exit(exitCode));
}
