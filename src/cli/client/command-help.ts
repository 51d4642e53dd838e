/**
 * The help texts of `kubecompat`: the top-level help and each command's, with
 * usage lines, summary, examples and exit codes. Flag lines are written from
 * the flag table (command-flags.ts), so every accepted flag is documented.
 */
import {
  COMMANDS,
  COMMAND_FLAGS,
  GLOBAL_FLAGS,
  type CommandName,
  type FlagSpec,
} from "./command-flags.js";

const COMMAND_HELP: Readonly<
  Record<
    CommandName,
    {
      line: string;
      usage: readonly string[];
      summary: string;
      examples: readonly string[];
      /** The command's own exit codes, where they are not a verdict's (EXIT_CODES). */
      exitCodes?: readonly string[];
    }
  >
> = {
  check: {
    line: "is this combination of versions supported?",
    usage: [
      "kubecompat check PLAN_FILE [--platform NAME] [--profile NAME] [--as-of YYYY-MM-DD]",
      "kubecompat check [--kubectl-version FILE] [--kubectl-nodes FILE] [--kubectl-workloads FILE] [--platform NAME] [--profile NAME] [--as-of YYYY-MM-DD]",
      "kubecompat check (PLAN_FILE | --bundle FILE | --kubectl-* FILE) --baseline NAME[@SNAPSHOT]",
    ],
    summary:
      "Is this combination of component versions supported? Sends a plan file (or what kubectl reports about a\n" +
      "running cluster) to POST /api/v1/validate and lists the findings. PLAN_FILE may be - (stdin).",
    examples: [
      "kubecompat check cluster.yaml",
      "kubecompat check cluster.yaml --profile strict --output markdown",
      "kubectl get nodes -o json | kubecompat check --kubectl-version <(kubectl version -o json) --kubectl-nodes -",
      "kubecompat collect | kubecompat check --bundle - --baseline pay-prod   # CI: only what is new since the fleet's snapshot",
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
    usage: [
      "kubecompat scan --to VERSION PATH...",
      "kubecompat scan --to VERSION CHART [--helm PATH | --no-helm] [--values FILE]... [--set K=V]...",
    ],
    summary:
      "Which objects use API versions removed or deprecated at the target version? Each PATH is a file, a\n" +
      "folder (searched recursively for *.yaml, *.yml and *.json, in sorted order; folders starting with a dot\n" +
      "are skipped) or - for stdin. Each file is sent on its own to POST /api/v1/scan, so findings name it.\n" +
      "A Helm chart (a folder with Chart.yaml, or a packaged .tgz) is scanned on its own: rendered locally with\n" +
      "helm template --kube-version VERSION (--helm PATH, else helm on PATH) and sent with its files to\n" +
      "POST /api/v1/scan/chart, so each finding is at its template file and line (templates/ingress.yaml:3).\n" +
      "Without helm (or with --no-helm) the templates are read directly: apiVersion and kind only, and the\n" +
      "answer says the reading was partial. helm failing to render is exit 2 with helm's error.\n" +
      "A folder with a kustomization (kustomization.yaml) is built with kubectl kustomize (--kubectl PATH,\n" +
      "else $KUBECTL, else kubectl on PATH) and each finding shown at the base or overlay file of its object.",
    examples: [
      "kubecompat scan --to 1.29 manifests/",
      "kubecompat scan --to 1.29 ./charts/shop --values prod-values.yaml",
      "kubecompat scan --to 1.29 --no-helm shop-1.4.2.tgz -o sarif > kubecompat.sarif",
      "kubecompat scan --to 1.29 deploy/overlays/prod",
      "helm template shop ./chart | kubecompat scan --to 1.29 -",
    ],
  },
  fix: {
    line: "rewrite objects of API versions a target removes to their replacements",
    usage: ["kubecompat fix --to VERSION [--from VERSION] [--allow-lossy] [--write] PATH..."],
    summary:
      "Rewrites each object whose API version the target no longer serves to its replacement, converting the\n" +
      "fields that changed; comments, order and quoting elsewhere stay. Each file is sent on its own to\n" +
      "POST /api/v1/fix. Without --write, prints each file's diff; with --write, writes each changed file in\n" +
      "place (never an unchanged one; for - the new text goes to stdout). Objects left as they are are listed\n" +
      "with the reason, lossy conversions (only with --allow-lossy) with what they lose.",
    examples: [
      "kubecompat fix --to 1.25 manifests/",
      "kubecompat fix --to 1.25 --write manifests/",
      "kubecompat fix --to 1.22 --output sarif ingress.yaml > fix.sarif",
      "helm template shop ./chart | kubecompat fix --to 1.25 --write - > fixed.yaml",
    ],
    exitCodes: [
      "Exit codes (--fail-on does not apply):",
      "  0  nothing to change, and no object left unfixed",
      "  1  a file changed (with --write) or would change, or an object is left unfixed",
      "  2  the question could not be asked: wrong usage, a missing or invalid file, the server unreachable or refusing the request",
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
  mcp: {
    line: "serve the service's MCP tools over stdio, for an AI agent that starts kubecompat itself",
    usage: ["kubecompat mcp [--server URL | --offline]"],
    summary:
      "Speaks the Model Context Protocol on stdin/stdout and relays every message to the server's /mcp endpoint\n" +
      "(--server, else $KUBECOMPAT_URL; with --offline, a server started in this process over the shipped kb/).\n" +
      "$KUBECOMPAT_TOKEN is sent as the bearer token where the server requires one.",
    examples: [
      "kubecompat mcp --offline",
      "KUBECOMPAT_URL=https://kubecompat.example.com KUBECOMPAT_TOKEN=... kubecompat mcp",
    ],
  },
  register: {
    line: "register a cluster (or a new state of it) in the server's fleet",
    usage: [
      "kubecompat register NAME --env ENV --owner OWNER [--labels k=v,...] [PLAN_FILE | --bundle FILE | --kubectl-* FILE] [--platform NAME]",
    ],
    summary:
      "Keeps the cluster's state in the fleet (POST /api/v1/clusters): it is judged now and again whenever the\n" +
      "knowledge base changes or a day passes, and subscriptions hear of what changes. With no plan file or\n" +
      "kubectl files, a collect bundle is read from stdin. Needs an editor's token in $KUBECOMPAT_TOKEN.",
    examples: [
      "kubecompat collect --context prod | kubecompat register pay-prod --env prod --owner team-pay --labels team=payments",
      "kubecompat register pay-dev cluster.yaml --env dev --owner team-pay",
    ],
  },
  fleet: {
    line: "every registered cluster with its verdict, last day of support and start-by date",
    usage: ["kubecompat fleet [--env ENV] [--owner OWNER] [--label k=v]"],
    summary:
      "Lists the fleet (GET /api/v1/clusters) by environment in rollout order: verdict (and what waivers hold\n" +
      "out), minor and platform, last day of standard support and days left, the day the upgrade must start.\n" +
      "Exits 1 when a cluster is UNSUPPORTED or not judged (--fail-on warning: also with warnings).",
    examples: ["kubecompat fleet --env prod", "kubecompat fleet --label team=payments -o json"],
  },
  subscribe: {
    line: "tell a webhook or a Slack channel about the fleet's events",
    usage: [
      "kubecompat subscribe URL [--slack] [--secret S] [--env E,...] [--owner O,...] [--labels k=v,...] [--min-severity LEVEL]",
    ],
    summary:
      "Subscribes URL to the fleet's events (POST /api/v1/subscriptions): changed verdicts, new blocking findings,\n" +
      "deadlines near, waivers expired. A webhook gets JSON signed with HMAC-SHA256 (x-kubecompat-signature);\n" +
      "failed deliveries are retried, then listed as dead (GET /api/v1/deliveries?status=DEAD). Editor's token.",
    examples: [
      "kubecompat subscribe https://hooks.slack.com/services/T/B/X --slack --env prod --min-severity warning",
      "kubecompat subscribe https://alerts.example.com/kubecompat --labels team=payments",
    ],
  },
  waive: {
    line: "accept a finding for a while: it leaves the verdict until the waiver expires",
    usage: [
      "kubecompat waive CODE (--cluster NAME | --label K=V) --until YYYY-MM-DD --reason TEXT --owner WHO",
    ],
    summary:
      "Waives a finding code for one cluster or every cluster with a label (POST /api/v1/waivers). The fleet is\n" +
      "judged again at once; when the waiver expires, the finding counts again and subscribers are told.",
    examples: [
      'kubecompat waive PLATFORM_EXTENDED_SUPPORT --cluster pay-prod --until 2027-01-31 --reason "upgrade booked for January" --owner jane@example.com',
    ],
  },
  deliveries: {
    line: "what became of the fleet's events: delivered, pending, or dead after their retries",
    usage: ["kubecompat deliveries [--status dead|pending|delivered]"],
    summary:
      "Lists deliveries newest first (GET /api/v1/deliveries), each with its event, subscription, attempts\n" +
      "and last error. Exits 1 while any listed delivery is dead. Editor's token.",
    examples: ["kubecompat deliveries --status dead"],
  },
  replay: {
    line: "put a dead delivery back on the queue",
    usage: ["kubecompat replay ID"],
    summary:
      "Replays a dead delivery (POST /api/v1/deliveries/ID/replay); a delivered or pending one is refused\n" +
      "(it is not sent twice). Editor's token.",
    examples: ["kubecompat replay 42"],
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
    ...(help.exitCodes ?? EXIT_CODES),
    "",
  ].join("\n");
}
