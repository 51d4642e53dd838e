/**
 * The command line of `kubecompat`: which commands and flags exist, how argv
 * is split into them, and the help texts. Mistakes are UsageErrors (exit 2)
 * that name the offending word and, when it is a near miss, the word meant;
 * a flag the command does not take is refused rather than ignored, so a typo
 * never silently changes the question asked.
 */
import { editDistance } from "../../domain/names.js";
import { UsageError } from "./errors.js";

export { editDistance };

export const COMMANDS = [
  "check",
  "plan",
  "scan",
  "nodepool",
  "impact",
  "flows",
  "firewall",
  "collect",
  "scan-cluster",
] as const;
export type CommandName = (typeof COMMANDS)[number];

export const OUTPUT_FORMATS = ["text", "json", "markdown", "sarif", "junit", "github"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const DEFAULT_SERVER = "http://localhost:4000";

interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  /** Placeholder shown in help for flags that take a value; null for switches. */
  readonly value: string | null;
  readonly description: string;
}

const GLOBAL_FLAGS: readonly FlagSpec[] = [
  {
    name: "server",
    value: "URL",
    description: `kubecompat server (default: $KUBECOMPAT_URL, else ${DEFAULT_SERVER})`,
  },
  {
    name: "offline",
    value: null,
    description:
      "answer from the knowledge base shipped with this package (its kb/), without a server; the answers are the server's for the same kb/",
  },
  {
    name: "output",
    short: "o",
    value: "FORMAT",
    description:
      "text (default), json (the server's answer), markdown (a table for a PR comment) sarif (SARIF 2.1.0 for code scanning), junit (a test report) or github (Actions annotations); the last three for scan and scan-cluster",
  },
  {
    name: "fail-on",
    value: "LEVEL",
    description:
      "exit 1 on: error (default: an ERROR, or a question that could not be checked), warning (also any WARNING) or eol (also anything past its end of life)",
  },
  {
    name: "help",
    short: "h",
    value: null,
    description: "show help (kubecompat COMMAND --help for a command)",
  },
  { name: "version", value: null, description: "print the CLI's version" },
];

const PROFILE: FlagSpec = {
  name: "profile",
  value: "NAME",
  description: "policy profile: upstream (the server's default) or strict",
};
const KUBECTL_VERSION: FlagSpec = {
  name: "kubectl-version",
  value: "FILE",
  description: "output of `kubectl version -o json` (- reads stdin)",
};
const KUBECTL_NODES: FlagSpec = {
  name: "kubectl-nodes",
  value: "FILE",
  description: "output of `kubectl get nodes -o json` (- reads stdin)",
};

const KUBECTL_WORKLOADS: FlagSpec = {
  name: "kubectl-workloads",
  value: "FILE",
  description:
    "output of `kubectl get deployments,daemonsets -A -o json`: add-ons are recognised by their images (- reads stdin)",
};
const BUNDLE: FlagSpec = {
  name: "bundle",
  value: "FILE",
  description: "a bundle written by kubecompat collect: its kubectl version, nodes and workloads",
};
const PLATFORM: FlagSpec = {
  name: "platform",
  value: "NAME",
  description:
    "managed platform: eks, gke or aks (recognised from -eks-/-gke. versions and node labels when left out)",
};

const AS_OF: FlagSpec = {
  name: "as-of",
  value: "YYYY-MM-DD",
  description:
    "judge end of life and support on this day instead of today (overrides the plan file's asOf)",
};

const COMMAND_FLAGS: Readonly<Record<CommandName, readonly FlagSpec[]>> = {
  check: [PROFILE, AS_OF, KUBECTL_VERSION, KUBECTL_NODES, KUBECTL_WORKLOADS, BUNDLE, PLATFORM],
  plan: [
    {
      name: "to",
      value: "VERSION",
      description: "target Kubernetes version, e.g. 1.30 (required)",
    },
    PROFILE,
    AS_OF,
    KUBECTL_VERSION,
    KUBECTL_NODES,
    KUBECTL_WORKLOADS,
    BUNDLE,
    PLATFORM,
  ],
  scan: [
    {
      name: "to",
      value: "VERSION",
      description: "target Kubernetes version, e.g. 1.29 (required)",
    },
    {
      name: "from",
      value: "VERSION",
      description:
        "the version the cluster runs now: findings say whether they are already removed there or break within the upgrade",
    },
  ],
  impact: [
    { name: "from", value: "VERSION", description: "the minor the cluster runs (required)" },
    { name: "to", value: "VERSION", description: "the minor to upgrade to (required)" },
    {
      name: "area",
      value: "AREAS",
      description:
        "only these areas, comma-separated: tenant-isolation, security, networking, storage, scheduling, node, observability",
    },
  ],
  flows: [
    { name: "from", value: "ROLE", description: "source role: control-plane, workers or external" },
    { name: "to", value: "ROLE", description: "destination role" },
    {
      name: "cni",
      value: "NAME",
      description: "the cluster's CNI (calico, cilium, flannel): its flows are added",
    },
    {
      name: "at",
      value: "VERSION",
      description: "only flows that apply to this Kubernetes version",
    },
    {
      name: "rules",
      value: "FORMAT",
      description: "print firewall rules instead of a list: nftables, iptables or json",
    },
    {
      name: "cidrs",
      value: "RANGES",
      description:
        "address ranges per role for --rules, e.g. control-plane=10.0.0.0/24;workers=10.1.0.0/16",
    },
  ],
  firewall: [
    {
      name: "cni",
      value: "NAME",
      description: "the cluster's CNI (calico, cilium, flannel): its flows are checked too",
    },
    {
      name: "at",
      value: "VERSION",
      description: "the Kubernetes version the cluster runs or upgrades to",
    },
  ],
  collect: [
    {
      name: "context",
      value: "NAME",
      description:
        "the kubeconfig context to collect from (kubectl --context); the current one when left out",
    },
    {
      name: "output-file",
      value: "FILE",
      description:
        "write the bundle there (mode 0600: it holds Helm release records) instead of stdout",
    },
  ],
  "scan-cluster": [
    {
      name: "to",
      value: "VERSION",
      description: "target Kubernetes version, e.g. 1.29 (required)",
    },
    {
      name: "bundle",
      value: "FILE",
      description:
        "a bundle written by kubecompat collect (its Helm releases and metrics are scanned)",
    },
    {
      name: "helm",
      value: "FILE",
      description: "output of `kubectl get secrets -A -l owner=helm -o json`",
    },
    {
      name: "objects",
      value: "FILE",
      description:
        "output of `kubectl get <kinds> -A -o json` (judged by their last-applied apiVersion)",
    },
    { name: "metrics", value: "FILE", description: "output of `kubectl get --raw /metrics`" },
    { name: "audit-log", value: "FILE", description: "the apiserver's audit log (JSON lines)" },
  ],
  nodepool: [
    {
      name: "control-plane",
      value: "VERSION",
      description: "the control plane's (kube-apiserver's) version, e.g. 1.30 (required)",
    },
    PROFILE,
    AS_OF,
    PLATFORM,
    {
      name: "rollback",
      value: null,
      description: "check going back from FROM (running now) to TO (older) instead of an upgrade",
    },
  ],
};

export interface CommandLine {
  /** null when only global flags were given (`kubecompat --version`). */
  readonly command: CommandName | "help" | null;
  readonly positionals: readonly string[];
  /** Flag name (long form, without dashes) to its value; switches map to true. */
  readonly flags: ReadonlyMap<string, string | true>;
}

export function parseCommandLine(argv: readonly string[]): CommandLine {
  let command: CommandName | "help" | null = null;
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  let flagsEnded = false;

  for (let index = 0; index < argv.length; index += 1) {
    const token = argv[index]!;
    if (flagsEnded || token === "-" || !token.startsWith("-")) {
      if (command === null) command = commandNamed(token);
      else positionals.push(token);
      continue;
    }
    if (token === "--") {
      flagsEnded = true;
      continue;
    }
    const { spec, inlineValue } = flagOf(token, command);
    if (flags.has(spec.name))
      throw new UsageError(`--${spec.name} is given twice; give it once`, commandOrNull(command));
    if (spec.value === null) {
      if (inlineValue !== undefined)
        throw new UsageError(
          `--${spec.name} takes no value (got "${inlineValue}")`,
          commandOrNull(command),
        );
      flags.set(spec.name, true);
      continue;
    }
    let value = inlineValue;
    if (value === undefined) {
      const next = argv[index + 1];
      // "-" is a value (stdin); any other dash word is the next flag, so the value is missing.
      if (next === undefined || (next.startsWith("-") && next !== "-")) {
        throw new UsageError(
          `--${spec.name} needs a value: --${spec.name} ${spec.value}`,
          commandOrNull(command),
        );
      }
      value = next;
      index += 1;
    }
    flags.set(spec.name, value);
  }

  // Flags before the command are checked once the command is known: `kubecompat --to 1.30 check` is refused too.
  if (command !== null && command !== "help") {
    const allowed = new Set([...GLOBAL_FLAGS, ...COMMAND_FLAGS[command]].map((spec) => spec.name));
    for (const name of flags.keys()) {
      if (!allowed.has(name))
        throw new UsageError(`kubecompat ${command} takes no --${name}`, command);
    }
  } else {
    const commandOnly = [...flags.keys()].find(
      (name) => !GLOBAL_FLAGS.some((spec) => spec.name === name),
    );
    if (
      commandOnly !== undefined &&
      command === null &&
      !flags.has("help") &&
      !flags.has("version")
    ) {
      throw new UsageError(
        `--${commandOnly} belongs to a command; name one: ${COMMANDS.join(", ")}`,
        null,
      );
    }
  }
  return { command, positionals, flags };
}

function commandOrNull(command: CommandName | "help" | null): CommandName | null {
  return command === null || command === "help" ? null : command;
}

function commandNamed(word: string): CommandName | "help" {
  if (word === "help") return "help";
  if ((COMMANDS as readonly string[]).includes(word)) return word as CommandName;
  const meant = nearest(word, [...COMMANDS]);
  throw new UsageError(
    `unknown command "${word}"${meant ? `; did you mean ${meant}?` : ""} Commands: ${COMMANDS.join(", ")}`,
    null,
  );
}

function flagOf(
  token: string,
  command: CommandName | "help" | null,
): { spec: FlagSpec; inlineValue: string | undefined } {
  const known =
    command === null || command === "help"
      ? allFlags()
      : [...GLOBAL_FLAGS, ...COMMAND_FLAGS[command]];
  if (token.startsWith("--")) {
    const equals = token.indexOf("=");
    const name = equals === -1 ? token.slice(2) : token.slice(2, equals);
    const inlineValue = equals === -1 ? undefined : token.slice(equals + 1);
    const spec = known.find((candidate) => candidate.name === name);
    if (spec) return { spec, inlineValue };
    const meant = nearest(
      name,
      known.map((candidate) => candidate.name),
    );
    const owner = command === null || command === "help" ? "kubecompat" : `kubecompat ${command}`;
    throw new UsageError(
      `unknown flag --${name} for ${owner}${meant ? `; did you mean --${meant}?` : ""}`,
      commandOrNull(command),
    );
  }
  const spec = known.find(
    (candidate) => candidate.short !== undefined && `-${candidate.short}` === token,
  );
  if (spec) return { spec, inlineValue: undefined };
  throw new UsageError(
    `unknown flag ${token}; flags are written --name (short forms: -o, -h)`,
    commandOrNull(command),
  );
}

function allFlags(): FlagSpec[] {
  const byName = new Map<string, FlagSpec>();
  for (const spec of [...GLOBAL_FLAGS, ...Object.values(COMMAND_FLAGS).flat()])
    byName.set(spec.name, spec);
  return [...byName.values()];
}

/** The candidate within two edits of `word` (or having it as a prefix), for "did you mean". */
function nearest(word: string, candidates: readonly string[]): string | null {
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance =
      candidate.startsWith(word) && word.length >= 2 ? 1 : editDistance(word, candidate);
    if (distance <= 2 && (best === null || distance < best.distance))
      best = { candidate, distance };
  }
  return best?.candidate ?? null;
}

/** The value of a flag that takes one (switches never reach here). */
export function flagValue(commandLine: CommandLine, name: string): string | undefined {
  const value = commandLine.flags.get(name);
  return typeof value === "string" ? value : undefined;
}

export const FAIL_ON_LEVELS = ["error", "warning", "eol"] as const;
export type FailOn = (typeof FAIL_ON_LEVELS)[number];

export function failOn(commandLine: CommandLine): FailOn {
  const value = flagValue(commandLine, "fail-on") ?? "error";
  if ((FAIL_ON_LEVELS as readonly string[]).includes(value)) return value as FailOn;
  throw new UsageError(
    `--fail-on must be one of ${FAIL_ON_LEVELS.join(", ")} (got "${value}")`,
    commandOrNull(commandLine.command),
  );
}

export function outputFormat(commandLine: CommandLine): OutputFormat {
  const value = flagValue(commandLine, "output") ?? "text";
  if (
    (value === "sarif" || value === "junit" || value === "github") &&
    commandLine.command !== "scan" &&
    commandLine.command !== "scan-cluster"
  ) {
    throw new UsageError(
      `--output ${value} is for scan and scan-cluster, whose findings have places in files or in the cluster; use json or markdown here`,
      commandOrNull(commandLine.command),
    );
  }
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  if (value === "md") return "markdown";
  throw new UsageError(
    `--output must be one of ${OUTPUT_FORMATS.join(", ")} (got "${value}")`,
    commandOrNull(commandLine.command),
  );
}

// ---------------------------------------------------------------------------------------------
// Help

const COMMAND_HELP: Readonly<
  Record<
    CommandName,
    { line: string; usage: readonly string[]; summary: string; examples: readonly string[] }
  >
> = {
  check: {
    line: "is this combination of versions supported?",
    usage: [
      "kubecompat check PLAN_FILE [--platform NAME] [--profile NAME] [--as-of YYYY-MM-DD]",
      "kubecompat check [--kubectl-version FILE] [--kubectl-nodes FILE] [--kubectl-workloads FILE] [--platform NAME] [--profile NAME] [--as-of YYYY-MM-DD]",
    ],
    summary:
      "Is this combination of component versions supported? Sends a plan file (or what kubectl reports about a\n" +
      "running cluster) to POST /api/v1/validate and lists the findings. PLAN_FILE may be - (stdin).",
    examples: [
      "kubecompat check cluster.yaml",
      "kubecompat check cluster.yaml --profile strict --output markdown",
      "kubectl get nodes -o json | kubecompat check --kubectl-version <(kubectl version -o json) --kubectl-nodes -",
    ],
  },
  plan: {
    line: "the upgrade steps to a target version",
    usage: [
      "kubecompat plan PLAN_FILE --to VERSION [--platform NAME] [--profile NAME] [--as-of YYYY-MM-DD]",
      "kubecompat plan [--kubectl-version FILE] [--kubectl-nodes FILE] [--kubectl-workloads FILE] [--platform NAME] --to VERSION [--profile NAME] [--as-of YYYY-MM-DD]",
    ],
    summary:
      "The ordered upgrade steps from the versions in a plan file (or a running cluster, via kubectl) to a\n" +
      "target minor, the API removals crossed on the way, and the findings (POST /api/v1/upgrade-plan).",
    examples: [
      "kubecompat plan cluster.yaml --to 1.30",
      "kubecompat plan --kubectl-version v.json --kubectl-nodes nodes.json --to 1.30",
    ],
  },
  scan: {
    line: "manifests using API versions removed or deprecated at a target version",
    usage: ["kubecompat scan --to VERSION PATH..."],
    summary:
      "Which objects use API versions removed or deprecated at the target version? Each PATH is a file, a\n" +
      "folder (searched recursively for *.yaml, *.yml and *.json, in sorted order; folders starting with a dot\n" +
      "are skipped) or - for stdin. Each file is sent on its own to POST /api/v1/scan, so findings name it.",
    examples: [
      "kubecompat scan --to 1.29 manifests/",
      "helm template shop ./chart | kubecompat scan --to 1.29 -",
    ],
  },
  collect: {
    line: "gather what the checks need from a running cluster with your kubectl, into one bundle file",
    usage: ["kubecompat collect [--context NAME] [--output-file FILE]"],
    summary:
      "Runs your kubectl (KUBECTL, else kubectl on PATH) with your credentials to gather what the checks need into\n" +
      "one bundle: kubectl version, nodes, deployments/daemonsets/statefulsets, Helm release Secrets, CRDs and the\n" +
      "apiserver's /metrics. A command you may not run is named and left out. Nothing is sent anywhere.",
    examples: [
      "kubecompat collect --context prod --output-file prod.json",
      "kubecompat scan-cluster --bundle prod.json --to 1.30",
    ],
  },
  "scan-cluster": {
    line: "what runs in a cluster (Helm releases, objects, deprecated API requests) judged for a target version",
    usage: [
      "kubecompat scan-cluster --to VERSION [--bundle FILE] [--helm FILE] [--objects FILE] [--metrics FILE] [--audit-log FILE]",
    ],
    summary:
      "What runs in the cluster, judged for the target: the manifests Helm stored for each release (the next helm\n" +
      "upgrade reads them), objects by the apiVersion they were applied with, and the deprecated APIs clients request\n" +
      "(metrics, audit log). Each finding names its evidence. POST /api/v1/scan/cluster.",
    examples: [
      "kubecompat scan-cluster --bundle prod.json --to 1.30",
      "kubectl get --raw /metrics > m.txt && kubecompat scan-cluster --metrics m.txt --to 1.29",
    ],
  },
  impact: {
    line: "what changes between two minors beyond apiVersions",
    usage: ["kubecompat impact --from VERSION --to VERSION [--area AREAS]"],
    summary:
      "What changes between two minors beyond apiVersions: behaviour changes, configuration-file versions and\n" +
      "feature gates, by the release they land in (GET /api/v1/upgrade-impact).",
    examples: ["kubecompat impact --from 1.24 --to 1.29 --area tenant-isolation"],
  },
  flows: {
    line: "the flows a firewall between node roles must allow, or them as firewall rules",
    usage: [
      "kubecompat flows [--from ROLE] [--to ROLE] [--cni NAME] [--at VERSION] [--rules nftables|iptables|json [--cidrs RANGES]]",
    ],
    summary:
      "The network flows a firewall between node roles must allow, for Kubernetes and the CNI (GET /api/v1/flows);\n" +
      "with --rules, the same flows as an nftables file, an iptables-restore file or JSON (GET /api/v1/firewall-rules).",
    examples: [
      "kubecompat flows --from workers --to control-plane --cni calico",
      "kubecompat flows --cni cilium --rules nftables > kubecompat.nft && nft -c -f kubecompat.nft",
    ],
  },
  firewall: {
    line: "which needed flows an allowed-flows list lacks",
    usage: ["kubecompat firewall ALLOWED_FILE [--cni NAME] [--at VERSION]"],
    summary:
      "Which flows the cluster needs that the firewall does not allow (POST /api/v1/firewall/check). ALLOWED_FILE\n" +
      "(or - for stdin) has one flow per line: `workers -> control-plane tcp/6443`, `any -> workers udp/8472`.",
    examples: ["kubecompat firewall allowed.txt --cni calico --at 1.31"],
  },
  nodepool: {
    line: "can a node pool be upgraded (or rolled back) from one spec to another?",
    usage: [
      "kubecompat nodepool FROM_FILE TO_FILE --control-plane VERSION [--platform NAME] [--profile NAME] [--as-of YYYY-MM-DD] [--rollback]",
    ],
    summary:
      "Can a node pool move from one spec to another as one unit (kubelet version, flags and KubeletConfiguration,\n" +
      "kube-proxy version and mode, container runtime, the chart's kubeVersion) under the control plane? Sends both\n" +
      "node-pool files to POST /api/v1/node-pool/upgrade-check and lists the findings, then the ordered steps. With\n" +
      "--rollback, FROM is the pool as it runs and TO the older spec to go back to (POST /api/v1/node-pool/rollback-check),\n" +
      "which catches the rollback trap: a control plane that has moved on. Either file may be - (stdin).\n" +
      "\n" +
      "A node-pool file is YAML; every value is read as text, so 1.30 needs no quotes. Keys: kubeletVersion\n" +
      "(required), name, kubeletFlags (a list of flags, or one string such as a pasted systemd ExecStart line),\n" +
      "kubeletConfig (the KubeletConfiguration inline) or kubeletConfigFile (its path, relative to the node-pool file),\n" +
      "kubeProxyVersion, kubeProxyMode, os (linux or windows), runtime, runtimeVersion, chartKubeVersion. Unknown keys\n" +
      "are refused. Example:\n" +
      "  name: pool-a\n" +
      "  kubeletVersion: 1.30.1\n" +
      "  kubeletFlags: [--node-ip=10.0.12.7, --container-runtime-endpoint=unix:///run/containerd/containerd.sock]\n" +
      "  kubeletConfigFile: kubelet-config.yaml\n" +
      "  kubeProxyMode: nftables\n" +
      "  runtime: containerd\n" +
      "  runtimeVersion: 2.0.1",
    examples: [
      "kubecompat nodepool pool-1.29.yaml pool-1.30.yaml --control-plane 1.30",
      "kubecompat nodepool pool-1.30.yaml pool-1.29.yaml --control-plane 1.31 --profile strict --rollback",
    ],
  },
};

const EXIT_CODES = [
  "Exit codes:",
  "  0  supported: no ERROR finding",
  "  1  at least one ERROR finding, or nothing could be checked (status UNSUPPORTED or NOT_JUDGED)",
  "  2  the question could not be asked: wrong usage, a missing or invalid file, the server unreachable or refusing the request",
];

function flagLines(specs: readonly FlagSpec[]): string[] {
  const left = specs.map(
    (spec) =>
      `${spec.short ? `-${spec.short}, ` : "    "}--${spec.name}${spec.value ? ` ${spec.value}` : ""}`,
  );
  const width = Math.max(...left.map((text) => text.length));
  return specs.map((spec, index) => `  ${left[index]!.padEnd(width)}  ${spec.description}`);
}

/** One line per command, from the same table as each command's help: a command cannot be left out. */
function commandLines(): string[] {
  const width = Math.max(...COMMANDS.map((command) => command.length));
  return COMMANDS.map((command) => `  ${command.padEnd(width)}  ${COMMAND_HELP[command].line}`);
}

export function topLevelHelp(): string {
  return [
    "kubecompat: ask a kubecompat server whether Kubernetes versions fit together.",
    "",
    "Usage:",
    ...COMMANDS.flatMap((command) => COMMAND_HELP[command].usage.map((line) => `  ${line}`)),
    "",
    "Commands:",
    ...commandLines(),
    "",
    "Flags (every command):",
    ...flagLines(GLOBAL_FLAGS),
    "",
    "A plan file is YAML: `components:` as a list of {component, version, instance?} or as a map",
    '"component[@instance]": version, plus optional `profile:`, `asOf:` and `platform:`. Example:',
    "  components:",
    "    kube-apiserver@cp-1: 1.30.4",
    "    kubelet@pool-a: 1.29.8",
    "    containerd@pool-a: 1.7.20",
    "  profile: strict",
    "",
    "A node-pool file is YAML with kubeletVersion and optionally name, kubeletFlags, kubeletConfig or",
    "kubeletConfigFile, kubeProxyVersion, kubeProxyMode, os, runtime, runtimeVersion, chartKubeVersion",
    "(kubecompat nodepool --help).",
    "",
    ...EXIT_CODES,
    "",
    "Run kubecompat COMMAND --help for a command's flags and examples.",
    "",
  ].join("\n");
}

export function commandHelp(command: CommandName): string {
  const help = COMMAND_HELP[command];
  return [
    "Usage:",
    ...help.usage.map((line) => `  ${line}`),
    "",
    help.summary,
    "",
    "Flags:",
    ...flagLines([...COMMAND_FLAGS[command], ...GLOBAL_FLAGS]),
    "",
    "Examples:",
    ...help.examples.map((line) => `  ${line}`),
    "",
    ...EXIT_CODES,
    "",
  ].join("\n");
}
