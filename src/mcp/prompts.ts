/**
 * The prompts an agent's user picks from: each says which tools to call,
 * in which order and with what, and how to report what could not be judged.
 */
import {
  ErrorCode,
  McpError,
  type GetPromptResult,
  type Prompt,
} from "@modelcontextprotocol/sdk/types.js";

export const PROMPTS: Prompt[] = [
  {
    name: "plan_cluster_upgrade",
    title: "Plan the upgrade of this cluster",
    description:
      "Validate a cluster as it runs, plan its upgrade to a target minor, and check what the upgrade breaks.",
    arguments: [
      {
        name: "cluster",
        description:
          "The cluster: its components and versions (kube-apiserver 1.31.4, kubelet 1.30.2 on pool-a, containerd 1.7.20 ...), or the output of kubectl version -o json and kubectl get nodes -o json.",
        required: true,
      },
      { name: "target", description: 'The target minor, e.g. "1.33" or "latest".', required: true },
      {
        name: "platform",
        description: "eks, gke, aks, or upstream (self-managed).",
        required: false,
      },
    ],
  },
  {
    name: "check_manifests",
    title: "Check these manifests for a target",
    description:
      "Find the objects whose API a target minor no longer serves, with their replacements, and what else changes on the way.",
    arguments: [
      { name: "manifests", description: "The YAML or JSON of the manifests.", required: true },
      { name: "target", description: 'The target minor, e.g. "1.33".', required: true },
      { name: "from", description: "The minor the cluster runs now.", required: false },
    ],
  },
];

function planText(args: Record<string, string>): string {
  const platform = args.platform ? ` on ${args.platform} (pass platform: "${args.platform}")` : "";
  return [
    `Plan the upgrade of this cluster to Kubernetes ${args.target}${platform}.`,
    "",
    "Cluster:",
    args.cluster ?? "",
    "",
    "Steps:",
    "1. Call validate_cluster with the components and versions (or validate_from_kubectl with kubectl's JSON) to learn where the cluster stands today.",
    `2. Call plan_upgrade (or plan_upgrade_from_kubectl) with current.components and targetVersion "${args.target}": report its status, the blocking findings and the steps in order.`,
    `3. Call release_status for the current minor and for ${args.target}, and upgrade_impact from the current minor to ${args.target} for behaviour changes beyond apiVersions.`,
    "4. If the user has manifests or Helm releases, call scan_manifests or scan_cluster for the target (fix_manifests rewrites manifests' removed APIs).",
    "5. For each control-plane step, call check_rollback on the state after it if the user needs a way back.",
    'Report every finding whose check is COVERAGE or whose status is NOT_JUDGED as not judged: never call the upgrade safe where kubecompat could not judge. Ask for detail: "full" only when the summary\'s counts show findings you must explain.',
  ].join("\n");
}

function manifestsText(args: Record<string, string>): string {
  const from = args.from ? ` from ${args.from}` : "";
  return [
    `Check these manifests for an upgrade${from} to Kubernetes ${args.target}.`,
    "",
    "Manifests:",
    args.manifests ?? "",
    "",
    "Steps:",
    `1. Call scan_manifests with manifests (the text above), targetVersion "${args.target}"${args.from ? ` and fromVersion "${args.from}"` : ""}: list each object whose API is removed, with its replacement apiVersion.`,
    args.from
      ? `2. Call upgrade_impact from ${args.from} to ${args.target} for the behaviour changes that apply to these objects.`
      : "2. Ask which minor the cluster runs now if the user wants the changes on the way (upgrade_impact).",
    `3. If objects use removed APIs and the user wants them rewritten, call fix_manifests with the same manifests and targetVersion${args.from ? ` and fromVersion "${args.from}"` : ""}: show its diff, each NOT_FIXED object with its reason, and what any lossy conversion loses (pass allowLossy: true only when the user accepts that); its after.status says what is still wrong.`,
    "Objects kubecompat could not read or judge (DOCUMENT_UNREADABLE, API_NOT_JUDGED) must be named as unchecked, not as clean.",
  ].join("\n");
}

export function promptMessages(name: string, args: Record<string, string>): GetPromptResult {
  const prompt = PROMPTS.find((candidate) => candidate.name === name);
  if (prompt === undefined)
    throw new McpError(
      ErrorCode.InvalidParams,
      `unknown prompt ${JSON.stringify(name)}; the prompts are ${PROMPTS.map((known) => known.name).join(", ")}`,
    );
  const missing = (prompt.arguments ?? []).filter(
    (argument) => argument.required === true && !args[argument.name]?.trim(),
  );
  if (missing.length > 0)
    throw new McpError(
      ErrorCode.InvalidParams,
      `prompt ${name} needs ${missing.map((argument) => argument.name).join(", ")}`,
    );
  const text = name === "plan_cluster_upgrade" ? planText(args) : manifestsText(args);
  return {
    description: prompt.description,
    messages: [{ role: "user", content: { type: "text", text } }],
  };
}
