/**
 * Turns what tools already have at hand into a cluster plan: the JSON of
 * `kubectl version -o json` (server version → kube-apiserver, client version
 * → kubectl) and of `kubectl get nodes -o json` (each node's kubelet,
 * kube-proxy and container runtime, grouped into instances by its node-pool
 * label), and of `kubectl get deployments,daemonsets -A -o json` (add-ons,
 * recognised by their images). Only reads the fields it needs and says
 * precisely what is missing; images it cannot place are said, not dropped.
 */
import { InputError } from "../core/errors.js";
import type { AddonRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { finding, type Finding } from "./findings.js";
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

const CONTROL_PLANE_LABELS = [
  "node-role.kubernetes.io/control-plane",
  "node-role.kubernetes.io/master",
];

export const MAX_NODES = 5000;

export interface KubectlInputs {
  readonly kubectlVersion?: unknown;
  readonly nodes?: unknown;
  /** The JSON of `kubectl get deployments,daemonsets -A -o json` (StatefulSets too). */
  readonly workloads?: unknown;
}

/** At most this many workloads are read from one input. */
export const MAX_WORKLOADS = 20_000;

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * The plan the inputs show. `notes` receives what could not be placed (images
 * of no known add-on, an add-on whose version cannot be read from its workload).
 */
export function planFromKubectl(
  snapshot: KbSnapshot,
  inputs: KubectlInputs,
  notes: Finding[] = [],
): ComponentVersionInput[] {
  if (
    inputs.kubectlVersion === undefined &&
    inputs.nodes === undefined &&
    inputs.workloads === undefined
  ) {
    throw new InputError(
      "give kubectlVersion (the output of `kubectl version -o json`), nodes (of `kubectl get nodes -o json`), workloads (of `kubectl get deployments,daemonsets -A -o json`), or several",
      "kubectlVersion",
    );
  }
  const plan: ComponentVersionInput[] = [];
  if (inputs.kubectlVersion !== undefined) plan.push(...fromVersion(inputs.kubectlVersion));
  if (inputs.nodes !== undefined) plan.push(...fromNodes(snapshot, inputs.nodes));
  if (inputs.workloads !== undefined)
    plan.push(...addonsFromWorkloads(snapshot, inputs.workloads, notes));
  return plan;
}

/** An image reference split: repository (registry and path, docker.io made explicit) and tag. */
export function splitImage(image: string): {
  readonly repository: string;
  readonly tag: string | null;
} {
  const bare = image.trim().replace(/@sha256:[0-9a-f]+$/i, "");
  const slash = bare.lastIndexOf("/");
  const colon = bare.lastIndexOf(":");
  const [name, tag] = colon > slash ? [bare.slice(0, colon), bare.slice(colon + 1)] : [bare, null];
  const first = name.split("/")[0]!;
  // A first segment without a dot, a colon or "localhost" is a Docker Hub path (calico/node → docker.io/calico/node).
  const hosted =
    name.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  const repository = hosted ? name : `docker.io/${name.includes("/") ? name : `library/${name}`}`;
  return { repository: repository.toLowerCase(), tag };
}

function imagePattern(repository: string): RegExp {
  const escaped = repository.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/<[a-z]+>/g, "[^/.]+");
  return new RegExp(`^${escaped}$`);
}

const imagePatterns = new WeakMap<
  readonly AddonRecord[],
  ReadonlyArray<{ readonly addon: AddonRecord; readonly pattern: RegExp }>
>();

/** The add-on whose image repository this is, if any (the patterns compiled once per list). */
export function addonOfImage(snapshot: KbSnapshot, repository: string): AddonRecord | undefined {
  const patterns = perList(imagePatterns, snapshot.addons, (list) =>
    list.flatMap((addon) =>
      addon.images.map((image) => ({ addon, pattern: imagePattern(image.toLowerCase()) })),
    ),
  );
  return patterns.find((candidate) => candidate.pattern.test(repository))?.addon;
}

/**
 * Add-ons recognised by the images of Deployments, DaemonSets and
 * StatefulSets. One entry per add-on and version (instance: the namespace
 * when one add-on runs at several versions). Images of no known add-on are
 * one INFO note listing them; so is an add-on whose version its image tag
 * does not carry (then its `versionFromLabel` label is read).
 */
function addonsFromWorkloads(
  snapshot: KbSnapshot,
  input: unknown,
  notes: Finding[],
): ComponentVersionInput[] {
  const items = object(input)?.items;
  if (!Array.isArray(items)) {
    throw new InputError(
      "workloads must be the JSON of `kubectl get deployments,daemonsets -A -o json` (a List with items)",
      "workloads.items",
    );
  }
  if (items.length > MAX_WORKLOADS)
    throw new InputError(
      `workloads has ${items.length} items; at most ${MAX_WORKLOADS} are accepted`,
      "workloads.items",
    );
  const found = new Map<string, { addon: AddonRecord; version: string; namespaces: Set<string> }>();
  const unplaced = new Set<string>();
  const unversioned = new Set<string>();
  items.forEach((item, index) => {
    const workload = object(item);
    const kind = text(workload?.kind);
    if (kind !== "Deployment" && kind !== "DaemonSet" && kind !== "StatefulSet") return;
    const metadata = object(workload?.metadata);
    const namespace = text(metadata?.namespace) ?? "default";
    const labels = object(metadata?.labels) ?? {};
    const pod = object(object(object(workload?.spec)?.template)?.spec);
    const listOf = (value: unknown): unknown[] =>
      Array.isArray(value) ? (value as unknown[]) : [];
    const containers = [...listOf(pod?.containers), ...listOf(pod?.initContainers)];
    if (containers.length === 0) {
      throw new InputError(
        `workloads.items[${index}].spec.template.spec.containers is missing (${kind} ${text(metadata?.name) ?? index}); pass the unmodified JSON of \`kubectl get deployments,daemonsets -A -o json\``,
        `workloads.items[${index}]`,
      );
    }
    for (const container of containers) {
      const image = text(object(container)?.image);
      if (image === undefined) continue;
      const { repository, tag } = splitImage(image);
      const addon = addonOfImage(snapshot, repository);
      if (addon === undefined) {
        unplaced.add(repository);
        continue;
      }
      const version =
        addon.versionFromLabel === null ? tag : (text(labels[addon.versionFromLabel]) ?? null);
      if (version === null || !/^v?\d+\.\d+/.test(version)) {
        unversioned.add(
          `${addon.name} (${addon.versionFromLabel === null ? `image ${repository} has no version tag` : `label ${addon.versionFromLabel} missing on ${kind} ${namespace}/${text(metadata?.name) ?? index}`})`,
        );
        continue;
      }
      const key = `${addon.name}\u0000${version}`;
      const seen = found.get(key) ?? { addon, version, namespaces: new Set<string>() };
      seen.namespaces.add(namespace);
      found.set(key, seen);
    }
  });
  const versionsPerAddon = new Map<string, number>();
  for (const { addon } of found.values())
    versionsPerAddon.set(addon.name, (versionsPerAddon.get(addon.name) ?? 0) + 1);
  const plan: ComponentVersionInput[] = [];
  for (const { addon, version, namespaces } of found.values()) {
    const several = (versionsPerAddon.get(addon.name) ?? 1) > 1;
    if (!several) plan.push({ component: addon.name, version });
    else
      for (const namespace of namespaces)
        plan.push({
          component: addon.name,
          version,
          instance: sanitiseInstance(`${namespace}:${version}`),
        });
  }
  if (unversioned.size > 0) {
    notes.push(
      finding({
        code: "ADDON_UNKNOWN",
        severity: "INFO",
        message: `add-ons recognised but not judged, their version could not be read: ${[...unversioned].sort().join("; ")}`,
      }),
    );
  }
  if (unplaced.size > 0) {
    const list = [...unplaced].sort();
    notes.push(
      finding({
        code: "ADDON_UNKNOWN",
        severity: "INFO",
        message: `${list.length} image${list.length === 1 ? "" : "s"} of no add-on the knowledge base knows, not judged: ${list.slice(0, 40).join(", ")}${list.length > 40 ? `, and ${list.length - 40} more` : ""}`,
      }),
    );
  }
  return plan;
}

/**
 * The text `kubectl version` prints: `Client Version: v1.30.2` / `Server Version: v1.30.4-eks-…` (1.28 and
 * later), or the older `Server Version: version.Info{Major:"1", …, GitVersion:"v1.27.3", …}`.
 */
export function versionFromText(text: string): {
  clientVersion?: { gitVersion: string };
  serverVersion?: { gitVersion: string };
} {
  const read = (label: string): string | undefined => {
    const line = new RegExp(`^${label} Version:\\s*(.+)$`, "m").exec(text)?.[1]?.trim();
    if (line === undefined) return undefined;
    return /GitVersion:"([^"]+)"/.exec(line)?.[1] ?? line.split(/\s+/)[0];
  };
  const client = read("Client");
  const server = read("Server");
  if (client === undefined && server === undefined) {
    throw new InputError(
      "kubectlVersion: expected the text `kubectl version` prints (Client Version: …, Server Version: …) or its JSON (`kubectl version -o json`)",
      "kubectlVersion",
    );
  }
  return {
    ...(client === undefined ? {} : { clientVersion: { gitVersion: client } }),
    ...(server === undefined ? {} : { serverVersion: { gitVersion: server } }),
  };
}

function fromVersion(given: unknown): ComponentVersionInput[] {
  const input = typeof given === "string" ? versionFromText(given) : given;
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

export interface NodeVersions {
  readonly name: string;
  readonly pool: string;
  readonly kubelet: string;
  readonly kubeProxy: string | undefined;
  readonly runtime: { readonly component: string; readonly version: string } | undefined;
}

function fromNodes(snapshot: KbSnapshot, input: unknown): ComponentVersionInput[] {
  if (typeof input === "string") return groupNodes(nodesFromText(snapshot, input));
  const items = object(input)?.items;
  if (!Array.isArray(items)) {
    throw new InputError(
      "nodes must be the JSON of `kubectl get nodes -o json` (a List with items), or the text of `kubectl get nodes` (-o wide)",
      "nodes.items",
    );
  }
  if (items.length > MAX_NODES)
    throw new InputError(
      `nodes has ${items.length} items; at most ${MAX_NODES} are accepted`,
      "nodes.items",
    );
  return groupNodes(items.map((item, index) => readNode(snapshot, item, index)));
}

/**
 * The table `kubectl get nodes` prints (NAME STATUS ROLES AGE VERSION, and with
 * -o wide ... OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME). The text has no
 * pool labels: nodes are grouped as control-plane and workers.
 */
export function nodesFromText(snapshot: KbSnapshot, text: string): NodeVersions[] {
  const lines = text
    .replace(/\r\n/g, "\n")
    .split("\n")
    .filter((line) => line.trim() !== "");
  const header = lines[0] ?? "";
  if (!/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\b/.test(header)) {
    throw new InputError(
      "nodes: expected the table `kubectl get nodes` prints, starting with the header NAME STATUS ROLES AGE VERSION (or the JSON of `kubectl get nodes -o json`)",
      "nodes",
    );
  }
  if (lines.length - 1 > MAX_NODES)
    throw new InputError(
      `nodes has ${lines.length - 1} rows; at most ${MAX_NODES} are accepted`,
      "nodes",
    );
  // Read by words, not offsets, so a table that lost its alignment (pasted into chat) still reads: the columns
  // before OS-IMAGE hold no spaces, and with -o wide CONTAINER-RUNTIME is the last word.
  const wide = /\bCONTAINER-RUNTIME\s*$/.test(header);
  return lines.slice(1).map((line, index) => {
    const at = `nodes (row ${index + 1})`;
    const words = line.trim().split(/\s+/);
    const name = words[0]!;
    const kubelet = words[4];
    if (kubelet === undefined)
      throw new InputError(
        `${at}: no VERSION in "${line.slice(0, 80)}"; paste the table as kubectl prints it`,
        "nodes",
      );
    parseKubernetesVersion(kubelet, `${at} VERSION`);
    const roles = words[2] ?? "";
    const runtimeText = wide && words.length > 7 ? words.at(-1) : undefined;
    const runtime =
      runtimeText === undefined ? undefined : readRuntime(snapshot, runtimeText, at, name);
    const controlPlane = /(^|,)(control-plane|master)(,|$)/.test(roles);
    return {
      name,
      pool: controlPlane ? "control-plane" : "workers",
      kubelet,
      kubeProxy: undefined,
      runtime,
    };
  });
}

function groupNodes(nodes: readonly NodeVersions[]): ComponentVersionInput[] {
  // A pool whose nodes run different versions (mid-upgrade) becomes one instance per version.
  const groups = new Map<string, NodeVersions[]>();
  for (const node of nodes) {
    const key = `${node.pool}\u0000${node.kubelet}\u0000${node.kubeProxy ?? ""}\u0000${node.runtime?.component ?? ""}\u0000${node.runtime?.version ?? ""}`;
    const members = groups.get(key);
    if (members === undefined) groups.set(key, [node]);
    else members.push(node);
  }
  const variantsPerPool = new Map<string, number>();
  for (const members of groups.values())
    variantsPerPool.set(members[0]!.pool, (variantsPerPool.get(members[0]!.pool) ?? 0) + 1);

  const plan: ComponentVersionInput[] = [];
  for (const members of groups.values()) {
    const first = members[0]!;
    // `pool:v1.28.5+k3s1` must still be an instance name: at most 100 characters, no `+`.
    const instance =
      (variantsPerPool.get(first.pool) ?? 1) > 1
        ? sanitiseInstance(`${first.pool.slice(0, 99 - first.kubelet.length)}:${first.kubelet}`)
        : first.pool;
    plan.push({ component: "kubelet", version: first.kubelet, instance });
    if (first.kubeProxy !== undefined)
      plan.push({ component: "kube-proxy", version: first.kubeProxy, instance });
    if (first.runtime !== undefined)
      plan.push({ component: first.runtime.component, version: first.runtime.version, instance });
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
    throw new InputError(
      `${at}.status.nodeInfo.kubeletVersion is missing (node ${name}); pass the unmodified JSON of \`kubectl get nodes -o json\``,
      `${at}.status.nodeInfo.kubeletVersion`,
    );
  }
  let pool: string | undefined;
  if (CONTROL_PLANE_LABELS.some((label) => label in labels)) pool = "control-plane";
  for (const label of NODE_POOL_LABELS) {
    if (pool !== undefined) break;
    pool = text(labels[label]);
  }
  parseKubernetesVersion(kubelet, `${at}.status.nodeInfo.kubeletVersion`);
  const kubeProxy = text(info?.kubeProxyVersion);
  if (kubeProxy !== undefined)
    parseKubernetesVersion(kubeProxy, `${at}.status.nodeInfo.kubeProxyVersion`);
  const runtimeText = text(info?.containerRuntimeVersion);
  const runtime =
    runtimeText === undefined
      ? undefined
      : readRuntime(snapshot, runtimeText, `${at}.status.nodeInfo.containerRuntimeVersion`, name);
  return { name, pool: sanitiseInstance(pool ?? name), kubelet, kubeProxy, runtime };
}

/** `containerd://1.7.13`: the scheme names the runtime (containerd://, cri-o://, docker://), a component name or alias in kb/components.yaml. */
function readRuntime(
  snapshot: KbSnapshot,
  runtimeText: string,
  field: string,
  node: string,
): NodeVersions["runtime"] {
  const match = /^([a-z0-9-]+):\/\/(.+)$/.exec(runtimeText);
  const named = match ? snapshot.findComponent(match[1]!) : undefined;
  if (match && named?.category !== "container-runtime") {
    const known = snapshot.components
      .filter((component) => component.category === "container-runtime")
      .map((component) => component.name);
    throw new InputError(
      `${field} "${runtimeText.slice(0, 80)}" (node ${node}) names a runtime the knowledge base does not know; it knows ${known.join(", ")}`,
      field,
    );
  }
  if (!match || named === undefined) return undefined;
  parseComponentVersion(match[2]!, field);
  return { component: named.name, version: match[2]! };
}

/** Pool labels are label values (≤ 63 characters of [A-Za-z0-9._-]), already valid instance names. */
function sanitiseInstance(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9._:@/-]/g, "-")
      .replace(/^[^A-Za-z0-9]+/, "")
      .slice(0, 100) || "node"
  );
}

/** The platform the nodes' labels show (eks.amazonaws.com/nodegroup, cloud.google.com/gke-nodepool ...), by name, if any. */
export function platformOfNodes(snapshot: KbSnapshot, nodes: unknown): string | undefined {
  const items = object(nodes)?.items;
  if (!Array.isArray(items)) return undefined;
  for (const item of items) {
    const labels = object(object(object(item)?.metadata)?.labels);
    if (labels === undefined) continue;
    const platform = snapshot.platforms.find((candidate) =>
      candidate.nodeLabels.some((label) => label in labels),
    );
    if (platform !== undefined) return platform.name;
  }
  return undefined;
}

/** A report with the notes of reading its inputs added (INFO: what could not be placed); its verdict is unchanged by them. */
export function withNotes<T extends { readonly findings: readonly Finding[] }>(
  judged: T,
  notes: readonly Finding[],
): T {
  return notes.length === 0 ? judged : { ...judged, findings: [...judged.findings, ...notes] };
}
