/**
 * A cluster as users describe it: components with versions, optionally per
 * instance (an HA control-plane member such as `cp-1`, or a node pool such as
 * `pool-a`). Parsing resolves aliases, parses each version the way its
 * component is versioned, and rejects what cannot be judged (unknown
 * components, duplicates, absurd sizes) with an InputError naming the field.
 */
import { InputError } from "../core/errors.js";
import type { AddonRecord, ComponentRecord, PlatformRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { findAddon, parseAddonVersion } from "./addons.js";
import { resolveComponent } from "./catalog.js";
import { readKubernetesVersion } from "./version-reader.js";
import { parseFeatureGateList, type GateSetting } from "./feature-gates.js";
import {
  formatVersion,
  parseComponentVersion,
  parseKubernetesVersion,
  type ComponentVersion,
  type KubernetesVersion,
} from "../core/versions.js";

export interface ComponentVersionInput {
  readonly component: string;
  readonly version: string;
  readonly instance?: string | null | undefined;
  readonly cgroupVersion?: string | null | undefined;
  readonly failCgroupV1?: boolean | null | undefined;
  /** As --feature-gates takes them: `A=true,B=false`. */
  readonly featureGates?: string | null | undefined;
}

/** What a plan says about the nodes of a kubelet. */
export interface NodeFacts {
  readonly cgroupVersion: "v1" | "v2" | null;
  /** KubeletConfiguration failCgroupV1; null when not stated (the kubelet's default applies). */
  readonly failCgroupV1: boolean | null;
}

export interface PlannedComponent {
  /** Canonical component name (an add-on's name for an add-on). */
  readonly component: string;
  readonly category: ComponentRecord["category"] | "add-on";
  readonly instance: string | null;
  /** The version as shown back to users. */
  readonly version: string;
  /** Set for components versioned with Kubernetes (apiserver, kubelet, kubectl, ...). */
  readonly kubernetes: KubernetesVersion | null;
  /** Set for etcd, container runtimes and add-ons. */
  readonly release: ComponentVersion | null;
  /** For an add-on (ingress-nginx, cert-manager): its knowledge, judged against the control plane. */
  readonly addon?: AddonRecord;
  /** For a kubelet, what the plan says about its nodes. */
  readonly node?: NodeFacts;
  /** The feature gates the component is started with (--feature-gates). */
  readonly featureGates?: readonly GateSetting[];
}

export interface ClusterPlan {
  readonly entries: readonly PlannedComponent[];
  /** The managed platform the cluster runs on (named, or recognised from its versions); its calendar replaces upstream's. */
  readonly platform?: PlatformRecord;
}

export const MAX_PLAN_COMPONENTS = 1000;
const INSTANCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,99}$/;
const KUBERNETES_VERSIONED = new Set<ComponentRecord["category"]>([
  "apiserver",
  "controller",
  "scheduler",
  "node-agent",
  "network-proxy",
  "client",
]);

export function isKubernetesVersioned(category: ComponentRecord["category"]): boolean {
  return KUBERNETES_VERSIONED.has(category);
}

export function parseClusterPlan(
  snapshot: KbSnapshot,
  input: unknown,
  field = "components",
  asOf: string = new Date().toISOString().slice(0, 10),
): ClusterPlan {
  if (!Array.isArray(input))
    throw new InputError(`${field} must be a list of {component, version, instance?}`, field);
  if (input.length === 0)
    throw new InputError(`${field} is empty; name at least one component with its version`, field);
  if (input.length > MAX_PLAN_COMPONENTS) {
    throw new InputError(
      `${field} has ${input.length} entries; at most ${MAX_PLAN_COMPONENTS} are accepted`,
      field,
    );
  }
  const seen = new Map<string, number>();
  const entries = input.map((raw: unknown, index): PlannedComponent => {
    const at = `${field}[${index}]`;
    if (raw === null || typeof raw !== "object")
      throw new InputError(`${at} must be an object {component, version, instance?}`, at);
    const { component: name, version, instance } = raw as Record<string, unknown>;
    if (typeof name !== "string")
      throw new InputError(
        `${at}.component must be a component name such as kubelet`,
        `${at}.component`,
      );
    const addon =
      snapshot.findComponent(name) === undefined ? findAddon(snapshot, name) : undefined;
    if (addon !== undefined) {
      const instanceName = parseInstance(instance, `${at}.instance`);
      const key = `${addon.name}@${instanceName ?? ""}`;
      const first = seen.get(key);
      if (first !== undefined)
        throw new InputError(
          `${at} repeats ${addon.name} from ${field}[${first}]; name each installation with its own instance`,
          `${at}.instance`,
        );
      seen.set(key, index);
      refuseNodeFields(raw as Record<string, unknown>, addon.name, at);
      return plannedAddon(addon, instanceName, version, `${at}.version`);
    }
    const component = resolveComponent(snapshot, name, `${at}.component`);
    const instanceName = parseInstance(instance, `${at}.instance`);
    const key = `${component.name}@${instanceName ?? ""}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new InputError(
        `${at} repeats ${component.name}${instanceName ? `@${instanceName}` : ""} from ${field}[${first}]; give each instance its own name`,
        `${at}.instance`,
      );
    }
    seen.set(key, index);
    const planned = readPlannedComponent(
      snapshot,
      component,
      instanceName,
      version,
      `${at}.version`,
      asOf,
    );
    const node = parseNodeFacts(raw as Record<string, unknown>, component, at);
    const gates = parseGates((raw as Record<string, unknown>).featureGates, component, at);
    return {
      ...planned,
      ...(node === undefined ? {} : { node }),
      ...(gates === undefined ? {} : { featureGates: gates }),
    };
  });
  return { entries };
}

/** An add-on entry of a plan: its version read the way the add-on's releases are named (v1.9.4, 1.9.4). */
export function plannedAddon(
  addon: AddonRecord,
  instance: string | null,
  version: unknown,
  field: string,
): PlannedComponent {
  const release = parseAddonVersion(version, field);
  return {
    component: addon.name,
    category: "add-on",
    instance,
    version: release.raw,
    kubernetes: null,
    release,
    addon,
  };
}

function refuseNodeFields(raw: Record<string, unknown>, name: string, at: string): void {
  for (const field of ["cgroupVersion", "failCgroupV1", "featureGates"]) {
    if (raw[field] !== undefined && raw[field] !== null)
      throw new InputError(
        `${at}.${field}: ${name} is an add-on; ${field} belongs on a kubelet or a Kubernetes component`,
        `${at}.${field}`,
      );
  }
}

/**
 * A component's entry from a version a person gave: Kubernetes versions through the one reader ("latest",
 * "1.30.x", "did you mean 1.30?"), runtimes and etcd by their own numbering.
 */
export function readPlannedComponent(
  snapshot: KbSnapshot,
  component: ComponentRecord,
  instance: string | null,
  version: unknown,
  field: string,
  asOf: string,
): PlannedComponent {
  const read = isKubernetesVersioned(component.category)
    ? readKubernetesVersion(snapshot, version, field, asOf).raw
    : version;
  return plannedComponent(component, instance, read, field);
}

/** A component's entry at a version the planner or the knowledge base names (already read). */
export function plannedComponent(
  component: ComponentRecord,
  instance: string | null,
  version: unknown,
  field: string,
): PlannedComponent {
  if (isKubernetesVersioned(component.category)) {
    const kubernetes = parseKubernetesVersion(version, field);
    return {
      component: component.name,
      category: component.category,
      instance,
      version: formatVersion(kubernetes),
      kubernetes,
      release: null,
    };
  }
  const release = parseComponentVersion(version, field);
  return {
    component: component.name,
    category: component.category,
    instance,
    version: release.raw,
    kubernetes: null,
    release,
  };
}

function parseNodeFacts(
  raw: Record<string, unknown>,
  component: ComponentRecord,
  at: string,
): NodeFacts | undefined {
  const { cgroupVersion, failCgroupV1 } = raw;
  if (
    (cgroupVersion === undefined || cgroupVersion === null) &&
    (failCgroupV1 === undefined || failCgroupV1 === null)
  )
    return undefined;
  if (component.category !== "node-agent") {
    throw new InputError(
      `${at}: cgroupVersion and failCgroupV1 describe a kubelet's nodes; put them on the kubelet entry, not on ${component.name}`,
      `${at}.cgroupVersion`,
    );
  }
  let version: NodeFacts["cgroupVersion"] = null;
  if (cgroupVersion !== undefined && cgroupVersion !== null) {
    const text =
      typeof cgroupVersion === "string" || typeof cgroupVersion === "number"
        ? String(cgroupVersion).trim().toLowerCase()
        : "";
    if (text === "v1" || text === "1") version = "v1";
    else if (text === "v2" || text === "2") version = "v2";
    else
      throw new InputError(
        `${at}.cgroupVersion must be v1 or v2 (stat -fc %T /sys/fs/cgroup prints cgroup2fs on v2, tmpfs on v1)`,
        `${at}.cgroupVersion`,
      );
  }
  if (failCgroupV1 !== undefined && failCgroupV1 !== null && typeof failCgroupV1 !== "boolean") {
    throw new InputError(
      `${at}.failCgroupV1 must be true or false (the KubeletConfiguration setting)`,
      `${at}.failCgroupV1`,
    );
  }
  return {
    cgroupVersion: version,
    failCgroupV1: typeof failCgroupV1 === "boolean" ? failCgroupV1 : null,
  };
}

function parseGates(
  value: unknown,
  component: ComponentRecord,
  at: string,
): readonly GateSetting[] | undefined {
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === ""))
    return undefined;
  if (typeof value !== "string")
    throw new InputError(
      `${at}.featureGates must be a string such as "A=true,B=false", as --feature-gates takes it`,
      `${at}.featureGates`,
    );
  if (!isKubernetesVersioned(component.category))
    throw new InputError(
      `${at}.featureGates: ${component.name} is not a Kubernetes component with feature gates`,
      `${at}.featureGates`,
    );
  return parseFeatureGateList(value, `${component.name} --feature-gates`, `${at}.featureGates`);
}

function parseInstance(instance: unknown, field: string): string | null {
  if (instance === undefined || instance === null) return null;
  if (typeof instance !== "string")
    throw new InputError(`${field} must be a string such as "pool-a" or "cp-1"`, field);
  const trimmed = instance.trim();
  if (trimmed === "") return null;
  if (!INSTANCE_PATTERN.test(trimmed)) {
    throw new InputError(
      `${field} "${JSON.stringify(trimmed).slice(1, -1).slice(0, 60)}" is not a valid instance name; use letters, digits and . _ : @ / - (at most 100 characters)`,
      field,
    );
  }
  return trimmed;
}

export function label(entry: Pick<PlannedComponent, "component" | "instance">): string {
  return entry.instance === null ? entry.component : `${entry.component}@${entry.instance}`;
}

/** An entry at another version that keeps what the input said of it: its nodes' facts and its feature gates. */
export function withFactsOf(
  moved: PlannedComponent,
  from: Pick<PlannedComponent, "node" | "featureGates">,
): PlannedComponent {
  return {
    ...moved,
    ...(from.node === undefined ? {} : { node: from.node }),
    ...(from.featureGates === undefined ? {} : { featureGates: from.featureGates }),
  };
}

/** Entries one finding is about: the entry itself when there is one, else none named and all listed (one finding per minor, not per pool). */
export function entriesNamed(entries: readonly PlannedComponent[]): {
  component: string | null;
  instance: string | null;
  who: string;
} {
  return entries.length === 1
    ? {
        component: entries[0]!.component,
        instance: entries[0]!.instance,
        who: `${label(entries[0]!)} ${entries[0]!.version}`,
      }
    : { component: null, instance: null, who: entries.map((entry) => label(entry)).join(", ") };
}

export function entriesOf(plan: ClusterPlan, component: string): PlannedComponent[] {
  return plan.entries.filter((entry) => entry.component === component);
}

/** An entry of a component versioned with Kubernetes, its version read. */
export type VersionedEntry = PlannedComponent & { readonly kubernetes: KubernetesVersion };

export function kubernetesEntries(plan: ClusterPlan, component: string): VersionedEntry[] {
  return entriesOf(plan, component).filter(
    (entry): entry is VersionedEntry => entry.kubernetes !== null,
  );
}
