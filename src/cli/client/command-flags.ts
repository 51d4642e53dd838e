/**
 * The commands of `kubecompat` and the flags each takes: one table read both
 * by the argv parser (command-line.ts), which refuses a flag the command does
 * not take, and by the help texts (command-help.ts), so what is accepted and
 * what is documented cannot drift apart.
 */
export const COMMANDS = [
  "check",
  "plan",
  "scan",
  "fix",
  "nodepool",
  "impact",
  "flows",
  "firewall",
  "collect",
  "scan-cluster",
  "mcp",
  "register",
  "fleet",
  "subscribe",
  "waive",
  "deliveries",
  "replay",
] as const;
export type CommandName = (typeof COMMANDS)[number];

export const DEFAULT_SERVER = "http://localhost:4000";

export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  /** Placeholder shown in help for flags that take a value; null for switches. */
  readonly value: string | null;
  readonly description: string;
  /** May be given more than once (its values are read with flagValues). */
  readonly repeatable?: boolean;
}

export const GLOBAL_FLAGS: readonly FlagSpec[] = [
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
      "text (default), json (the server's answer), markdown (a table for a PR comment) sarif (SARIF 2.1.0 for code scanning), junit (a test report) or github (Actions annotations); the last three for scan, scan-cluster and fix",
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

export const COMMAND_FLAGS: Readonly<Record<CommandName, readonly FlagSpec[]>> = {
  check: [
    PROFILE,
    AS_OF,
    KUBECTL_VERSION,
    KUBECTL_NODES,
    KUBECTL_WORKLOADS,
    BUNDLE,
    PLATFORM,
    {
      name: "baseline",
      value: "NAME[@SNAPSHOT]",
      description:
        "report only what is new since a snapshot of a registered cluster (its newest, or the one with that id); exit 1 on a new ERROR",
    },
  ],
  register: [
    {
      name: "env",
      value: "ENV",
      description: "the cluster's environment (dev, staging, prod ...; required)",
    },
    {
      name: "owner",
      value: "OWNER",
      description: "the team or person who answers for it (required)",
    },
    {
      name: "labels",
      value: "K=V,...",
      description: "labels to select on, e.g. team=payments,region=eu",
    },
    PROFILE,
    KUBECTL_VERSION,
    KUBECTL_NODES,
    KUBECTL_WORKLOADS,
    BUNDLE,
    PLATFORM,
  ],
  subscribe: [
    {
      name: "slack",
      value: null,
      description:
        "URL is a Slack incoming webhook (a message, unsigned) rather than a signed webhook",
    },
    {
      name: "secret",
      value: "SECRET",
      description:
        "the webhook's signing secret (16+ characters); one is made and shown once when left out",
    },
    { name: "env", value: "ENV,...", description: "only events of clusters in these environments" },
    { name: "owner", value: "OWNER,...", description: "only events of these owners' clusters" },
    {
      name: "labels",
      value: "K=V,...",
      description: "only events of clusters with all these labels",
    },
    {
      name: "min-severity",
      value: "LEVEL",
      description: "the lowest severity told: info (default), warning or error",
    },
  ],
  waive: [
    { name: "cluster", value: "NAME", description: "the cluster it applies to (or --label)" },
    { name: "label", value: "K=V", description: "every cluster with this label (or --cluster)" },
    { name: "until", value: "YYYY-MM-DD", description: "the last day it applies (required)" },
    {
      name: "reason",
      value: "TEXT",
      description: "why the finding is accepted for now (required)",
    },
    { name: "owner", value: "WHO", description: "who answers for the waiver (required)" },
  ],
  deliveries: [
    {
      name: "status",
      value: "STATUS",
      description:
        "only deliveries in this state: dead (the dead-letter list), pending or delivered",
    },
  ],
  replay: [],
  fleet: [
    { name: "env", value: "ENV", description: "only this environment's clusters" },
    { name: "owner", value: "OWNER", description: "only this owner's clusters" },
    { name: "label", value: "K=V", description: "only clusters with this label" },
  ],
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
    {
      name: "helm",
      value: "PATH",
      description:
        "for a chart (a folder with Chart.yaml, or a .tgz): the helm that renders it with helm template --kube-version (default: helm on PATH)",
    },
    {
      name: "no-helm",
      value: null,
      description:
        "for a chart: read its templates without rendering (apiVersion and kind only; the answer says it is partial)",
    },
    {
      name: "values",
      short: "f",
      value: "FILE",
      repeatable: true,
      description: "for a chart: a values file helm renders with (repeatable)",
    },
    {
      name: "set",
      value: "KEY=VALUE",
      repeatable: true,
      description: "for a chart: a value helm renders with (repeatable)",
    },
    {
      name: "kubectl",
      value: "PATH",
      description:
        "for a kustomization (a folder with kustomization.yaml): the kubectl that builds it with kubectl kustomize (default: $KUBECTL, else kubectl on PATH)",
    },
  ],
  fix: [
    {
      name: "to",
      value: "VERSION",
      description: "target Kubernetes version, e.g. 1.25 (required)",
    },
    {
      name: "from",
      value: "VERSION",
      description:
        "the version the cluster runs now: an object whose replacement is not served there yet is left as it is",
    },
    {
      name: "allow-lossy",
      value: null,
      description:
        "also apply conversions that lose information (what is lost is printed either way)",
    },
    {
      name: "write",
      value: null,
      description:
        "write each changed file in place (never an unchanged one); without it, print the diffs",
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
  mcp: [],
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
