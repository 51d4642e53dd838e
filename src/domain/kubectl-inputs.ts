/**
 * Turns what tools already have at hand into a cluster plan: the JSON of
 * `kubectl version -o json` (server version → kube-apiserver, client version
 * → kubectl) and of `kubectl get nodes -o json` (each node's kubelet,
 * kube-proxy and container runtime, grouped into instances by its node-pool
 * label). Only reads the fields it needs and says precisely what is missing.
 */
import { InputError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import type { ComponentVersionInput } from "./cluster-plan.js";
import { parseComponentVersion, parseKubernetesVersion } from "../core/versions.js";

/** Labels that name a node pool, most specific first; the instance type is only a fallback. */
export const NODE_POOL_LABELS = [
  "eks.amazonaws.com/nodegroup",
  "cloud.google.com/gke-nodepool",
  "kubernetes.azure.com/agentpool",
  "karpenter.sh/nodepool",
  "node.kubernetes.io/instance-type",
] as const;

const CONTROL_PLANE_LABELS = ["node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"];


export const MAX_NODES = 5000;

export interface KubectlInputs {
  readonly kubectlVersion?: unknown;
  readonly nodes?: unknown;
}

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export function planFromKubectl(snapshot: KbSnapshot, inputs: KubectlInputs): ComponentVersionInput[] {
  if (inputs.kubectlVersion === undefined && inputs.nodes === undefined) {
    throw new InputError("give kubectlVersion (the output of `kubectl version -o json`), nodes (of `kubectl get nodes -o json`), or both", "kubectlVersion");
  }
  const plan: ComponentVersionInput[] = [];
  if (inputs.kubectlVersion !== undefined) plan.push(...fromVersion(inputs.kubectlVersion));
  if (inputs.nodes !== undefined) plan.push(...fromNodes(snapshot, inputs.nodes));
  return plan;
}

function fromVersion(input: unknown): ComponentVersionInput[] {
  const root = object(input);
  const server = text(object(root?.serverVersion)?.gitVersion);
  if (server === undefined) {
    throw new InputError(
      "kubectlVersion.serverVersion.gitVersion is missing; pass the JSON of `kubectl version -o json` run against the cluster (not `--client`)",
      "kubectlVersion.serverVersion.gitVersion",
    );
  }
  // Checked here so that a bad version names the field it came from, not the plan built from it.
  parseKubernetesVersion(server, "kubectlVersion.serverVersion.gitVersion");
  const plan: ComponentVersionInput[] = [{ component: "kube-apiserver", version: server }];
  const client = text(object(root?.clientVersion)?.gitVersion);
  if (client !== undefined) {
    parseKubernetesVersion(client, "kubectlVersion.clientVersion.gitVersion");
    plan.push({ component: "kubectl", version: client });
  }
  return plan;
}

interface NodeVersions {
  readonly name: string;
  readonly pool: string;
  readonly kubelet: string;
  readonly kubeProxy: string | undefined;
  readonly runtime: { readonly component: string; readonly version: string } | undefined;
}

function fromNodes(snapshot: KbSnapshot, input: unknown): ComponentVersionInput[] {
  const items = object(input)?.items;
  if (!Array.isArray(items)) {
    throw new InputError("nodes must be the JSON of `kubectl get nodes -o json` (a List with items)", "nodes.items");
  }
  if (items.length > MAX_NODES) throw new InputError(`nodes has ${items.length} items; at most ${MAX_NODES} are accepted`, "nodes.items");
  const nodes = items.map((item, index) => readNode(snapshot, item, index));

  // A pool whose nodes run different versions (mid-upgrade) becomes one instance per version.
  const groups = new Map<string, NodeVersions[]>();
  for (const node of nodes) {
    const key = `${node.pool}\u0000${node.kubelet}\u0000${node.kubeProxy ?? ""}\u0000${node.runtime?.component ?? ""}\u0000${node.runtime?.version ?? ""}`;
    const members = groups.get(key);
    if (members === undefined) groups.set(key, [node]);
    else members.push(node);
  }
  const variantsPerPool = new Map<string, number>();
  for (const members of groups.values()) variantsPerPool.set(members[0]!.pool, (variantsPerPool.get(members[0]!.pool) ?? 0) + 1);

  const plan: ComponentVersionInput[] = [];
  for (const members of groups.values()) {
    const first = members[0]!;
    // `pool:v1.28.5+k3s1` must still be an instance name: at most 100 characters, no `+`.
    const instance =
      (variantsPerPool.get(first.pool) ?? 1) > 1 ? sanitiseInstance(`${first.pool.slice(0, 99 - first.kubelet.length)}:${first.kubelet}`) : first.pool;
    plan.push({ component: "kubelet", version: first.kubelet, instance });
    if (first.kubeProxy !== undefined) plan.push({ component: "kube-proxy", version: first.kubeProxy, instance });
    if (first.runtime !== undefined) plan.push({ component: first.runtime.component, version: first.runtime.version, instance });
  }
  return plan;
}

function readNode(snapshot: KbSnapshot, item: unknown, index: number): NodeVersions {
  const at = `nodes.items[${index}]`;
  const node = object(item);
  const metadata = object(node?.metadata);
  const labels = object(metadata?.labels) ?? {};
  const name = text(metadata?.name) ?? `node-${index}`;
  const info = object(object(node?.status)?.nodeInfo);
  const kubelet = text(info?.kubeletVersion);
  if (kubelet === undefined) {
    throw new InputError(`${at}.status.nodeInfo.kubeletVersion is missing (node ${name}); pass the unmodified JSON of \`kubectl get nodes -o json\``, `${at}.status.nodeInfo.kubeletVersion`);
  }
  let pool: string | undefined;
  if (CONTROL_PLANE_LABELS.some((label) => label in labels)) pool = "control-plane";
  for (const label of NODE_POOL_LABELS) {
    if (pool !== undefined) break;
    pool = text(labels[label]);
  }
  parseKubernetesVersion(kubelet, `${at}.status.nodeInfo.kubeletVersion`);
  const kubeProxy = text(info?.kubeProxyVersion);
  if (kubeProxy !== undefined) parseKubernetesVersion(kubeProxy, `${at}.status.nodeInfo.kubeProxyVersion`);
  const runtimeText = text(info?.containerRuntimeVersion);
  let runtime: NodeVersions["runtime"];
  if (runtimeText !== undefined) {
    const match = /^([a-z0-9-]+):\/\/(.+)$/.exec(runtimeText);
    // The scheme names the runtime (containerd://, cri-o://, docker://): a component name or alias in kb/components.yaml.
    const named = match ? snapshot.findComponent(match[1]!) : undefined;
    if (match && named?.category !== "container-runtime") {
      const known = snapshot.components.filter((component) => component.category === "container-runtime").map((component) => component.name);
      throw new InputError(
        `${at}.status.nodeInfo.containerRuntimeVersion "${runtimeText.slice(0, 80)}" (node ${name}) names a runtime the knowledge base does not know; it knows ${known.join(", ")}`,
        `${at}.status.nodeInfo.containerRuntimeVersion`,
      );
    }
    const component = named?.name;
    if (match && component) {
      parseComponentVersion(match[2]!, `${at}.status.nodeInfo.containerRuntimeVersion`);
      runtime = { component, version: match[2]! };
    }
  }
  return { name, pool: sanitiseInstance(pool ?? name), kubelet, kubeProxy, runtime };
}

/** Pool labels are label values (≤ 63 characters of [A-Za-z0-9._-]), already valid instance names. */
function sanitiseInstance(name: string): string {
  return name.replace(/[^A-Za-z0-9._:@/-]/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 100) || "node";
}
