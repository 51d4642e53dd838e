/**
 * The runtime requirements over a plan: what each kubelet's minor asks of
 * the container runtime on its instance (and each kube-apiserver's of etcd):
 * a shim, a minimum or recommended version, a matching minor, support that
 * is ending. Also the warning for a runtime or kube-proxy that has no
 * kubelet on its instance to be judged against.
 */
import type { RuntimeRequirementRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { groupedBy, perList } from "../knowledge/lists.js";
import {
  kubernetesEntries,
  label,
  type ClusterPlan,
  type PlannedComponent,
  type VersionedEntry,
} from "./cluster-plan.js";
import { finding, type Finding } from "./findings.js";
import { nearestName } from "./names.js";
import {
  compareComponentVersions,
  minorIndex,
  parseComponentVersion,
  type ComponentVersion,
} from "../core/versions.js";

/**
 * Lookups over one plan, built once per judgement: a plan may hold a
 * thousand entries and the planner judges one after every step, so nothing
 * here may cost a scan of the plan per entry.
 */
interface RuntimeIndex {
  readonly kubelets: readonly VersionedEntry[];
  readonly kubeletsByInstance: ReadonlyMap<string | null, VersionedEntry[]>;
  /** Instances (not null) that have an entry of the category. */
  readonly instancesByCategory: ReadonlyMap<string, ReadonlySet<string>>;
  /** `component@instance` → entry (instance empty when null). */
  readonly byComponentInstance: ReadonlyMap<string, PlannedComponent>;
}

function runtimeIndex(plan: ClusterPlan): RuntimeIndex {
  const kubelets = kubernetesEntries(plan, "kubelet");
  const kubeletsByInstance = new Map<string | null, VersionedEntry[]>();
  for (const kubelet of kubelets) {
    const list = kubeletsByInstance.get(kubelet.instance);
    if (list === undefined) kubeletsByInstance.set(kubelet.instance, [kubelet]);
    else list.push(kubelet);
  }
  const instancesByCategory = new Map<string, Set<string>>();
  const byComponentInstance = new Map<string, PlannedComponent>();
  for (const entry of plan.entries) {
    const key = `${entry.component}@${entry.instance ?? ""}`;
    if (!byComponentInstance.has(key)) byComponentInstance.set(key, entry);
    if (entry.instance === null) continue;
    const instances = instancesByCategory.get(entry.category);
    if (instances === undefined) instancesByCategory.set(entry.category, new Set([entry.instance]));
    else instances.add(entry.instance);
  }
  return { kubelets, kubeletsByInstance, instancesByCategory, byComponentInstance };
}

/** Which kubelets a runtime serves: same instance; a runtime without instance serves kubelets that have no runtime of their own. */
function kubeletsServedBy(
  index: RuntimeIndex,
  runtime: PlannedComponent,
): readonly VersionedEntry[] {
  const sameInstance = index.kubeletsByInstance.get(runtime.instance) ?? [];
  if (sameInstance.length > 0 || runtime.instance !== null) return sameInstance;
  const withOwnRuntime = index.instancesByCategory.get(runtime.category);
  return index.kubelets.filter(
    (kubelet) =>
      kubelet.instance === null ||
      withOwnRuntime === undefined ||
      !withOwnRuntime.has(kubelet.instance),
  );
}

const requirementIndexes = new WeakMap<
  readonly RuntimeRequirementRecord[],
  ReadonlyMap<string, readonly RuntimeRequirementRecord[]>
>();

/**
 * The requirements in force on a platform: upstream's, and the platform's own where it has stricter ones
 * (a platform's rule applies on that platform). Kept once per list and platform (the planner asks at every step).
 */
export function requirementsOn(
  snapshot: KbSnapshot,
  platform: string | null,
): readonly RuntimeRequirementRecord[] {
  const byPlatform = perList(
    requirementsByPlatform,
    snapshot.runtimeRequirements,
    () => new Map<string | null, readonly RuntimeRequirementRecord[]>(),
  );
  let list = byPlatform.get(platform);
  if (list === undefined) {
    list = snapshot.runtimeRequirements.filter(
      (requirement) => requirement.platform === null || requirement.platform === platform,
    );
    byPlatform.set(platform, list);
  }
  return list;
}

const requirementsByPlatform = new WeakMap<
  readonly RuntimeRequirementRecord[],
  Map<string | null, readonly RuntimeRequirementRecord[]>
>();

/** A runtime's requirements on the plan's platform, grouped once per list (the planner judges every step). */
function requirementsOf(
  snapshot: KbSnapshot,
  component: string,
  platform: string | null,
): readonly RuntimeRequirementRecord[] {
  return (
    perList(requirementIndexes, requirementsOn(snapshot, platform), (list) =>
      groupedBy(list, (requirement) => [requirement.component]),
    ).get(component) ?? []
  );
}

export function checkRuntimes(snapshot: KbSnapshot, plan: ClusterPlan): Finding[] {
  const findings: Finding[] = [];
  const apiservers = kubernetesEntries(plan, "kube-apiserver");
  const index = runtimeIndex(plan);
  for (const runtime of plan.entries) {
    if (runtime.release === null) continue;
    const requirements = requirementsOf(snapshot, runtime.component, plan.platform?.name ?? null);
    if (requirements.length === 0) continue;
    // etcd serves the apiservers; container runtimes serve kubelets.
    const consumers =
      runtime.category === "datastore" ? apiservers : kubeletsServedBy(index, runtime);
    if (consumers.length === 0) {
      if (runtime.category !== "datastore" && index.kubelets.length > 0) {
        findings.push(unpaired(runtime, "its requirements", index.kubelets));
      }
      continue;
    }
    for (const consumer of consumers) {
      findings.push(...checkRuntimeFor(index, runtime, consumer, requirements));
    }
  }
  return findings;
}

/**
 * A runtime or kube-proxy on an instance that has no kubelet: what could not
 * be checked is a WARNING (a typo in an instance name must not turn a plan
 * green), with the nearest kubelet instance as the likely meaning.
 */
export function unpaired(
  entry: PlannedComponent,
  what: string,
  kubelets: readonly PlannedComponent[],
): Finding {
  const names = kubelets
    .map((kubelet) => kubelet.instance)
    .filter((name): name is string => name !== null);
  const meant = entry.instance === null ? null : nearestName(entry.instance, names, 3);
  return finding({
    code: entry.category === "network-proxy" ? "KUBE_PROXY_NOT_CHECKED" : "RUNTIME_NOT_CHECKED",
    severity: "WARNING",
    component: entry.component,
    instance: entry.instance,
    message: `${label(entry)} ${entry.version} has no kubelet on the same instance, so ${what} ${what.endsWith("s") ? "were" : "was"} not checked${meant === null ? `; give it the instance name of its kubelet (${names.length > 0 ? names.join(", ") : "the kubelets have no instance name"})` : `: did you mean ${meant}?`}`,
  });
}

/**
 * The version a recommendation table asks of this runtime: its own release
 * line's floor when the table lists that line, else the lowest floor (a line
 * older than all listed is below it; a newer one passes it).
 */
function recommendedFloor(
  recommendation: RuntimeRequirementRecord,
  release: ComponentVersion,
): string | null {
  const sameLine = recommendation.lineMinVersions.find((floor) => {
    const version = parseComponentVersion(floor);
    return version.major === release.major && version.minor === release.minor;
  });
  return sameLine ?? recommendation.minVersion;
}

function checkRuntimeFor(
  index: RuntimeIndex,
  runtime: PlannedComponent,
  consumer: VersionedEntry,
  requirements: readonly RuntimeRequirementRecord[],
): Finding[] {
  const release = runtime.release!;
  const atMinor = minorIndex(consumer.kubernetes);
  const inForce = requirements.filter(
    (requirement) => minorIndex(requirement.kubernetesFrom) <= atMinor,
  );
  const judged: RuntimeUnderConsumer = {
    index,
    runtime,
    release,
    consumer,
    consumerWords: `${label(consumer)} ${consumer.version}`,
  };
  const findings = inForce.flatMap((requirement) => {
    const unmet = requirementFinding(judged, requirement);
    return unmet === null ? [] : [unmet];
  });
  // Once a requirement fails (an error), a recommendation or a notice that support is ending adds nothing.
  if (findings.some((entry) => entry.severity === "ERROR")) return findings;
  const belowRecommendation = recommendationFinding(judged, inForce);
  if (belowRecommendation !== null) findings.push(belowRecommendation);
  findings.push(...supportEndingFindings(judged, inForce));
  return findings;
}

/** One runtime judged against one consumer (a kubelet, or a kube-apiserver for etcd), and how findings name the consumer. */
interface RuntimeUnderConsumer {
  readonly index: RuntimeIndex;
  readonly runtime: PlannedComponent;
  readonly release: ComponentVersion;
  readonly consumer: VersionedEntry;
  readonly consumerWords: string;
}

/** Below the requirement's minimum version. */
function below(release: ComponentVersion, requirement: RuntimeRequirementRecord): boolean {
  return (
    requirement.minVersion !== null &&
    compareComponentVersions(release, parseComponentVersion(requirement.minVersion)) < 0
  );
}

/** What every finding of a requirement carries: the runtime it is about and the rule with its source. */
function base(runtime: PlannedComponent, requirement: RuntimeRequirementRecord) {
  return {
    component: runtime.component,
    instance: runtime.instance,
    sourceUrl: requirement.sourceUrl,
    ruleId: requirement.id,
  };
}

/** A requirement in force that the runtime does not meet: a shim, a minimum version, support, a matching minor. */
function requirementFinding(
  { index, runtime, release, consumer, consumerWords }: RuntimeUnderConsumer,
  requirement: RuntimeRequirementRecord,
): Finding | null {
  switch (requirement.kind) {
    case "REQUIRES_SHIM": {
      const shim =
        index.byComponentInstance.get(`${requirement.requires}@${runtime.instance ?? ""}`) ??
        index.byComponentInstance.get(`${requirement.requires}@`);
      if (shim === undefined) {
        return finding({
          ...base(runtime, requirement),
          code: "RUNTIME_DOCKERSHIM_REMOVED",
          severity: "ERROR",
          message: `${label(runtime)} ${runtime.version} cannot serve ${consumerWords}: from Kubernetes ${requirement.kubernetesFrom} the kubelet needs ${requirement.requires} in front of it. Add ${requirement.requires} to ${runtime.instance ?? "the nodes"} or move to containerd or CRI-O.`,
        });
      }
      break;
    }
    case "MIN_VERSION":
      if (below(release, requirement)) {
        return finding({
          ...base(runtime, requirement),
          code:
            runtime.category === "datastore" ? "RUNTIME_UNSUPPORTED" : "RUNTIME_VERSION_TOO_OLD",
          severity: "ERROR",
          message: `${label(runtime)} ${runtime.version} is too old for ${consumerWords}: from Kubernetes ${requirement.kubernetesFrom}${requirement.platform === null ? "" : ` on ${requirement.platform.toUpperCase()} (the platform's own rule: ${requirement.summary})`}, ${runtime.component} ${requirement.minVersion} or newer is required. Upgrade ${runtime.component} before the kubelet.`,
        });
      }
      break;
    case "UNSUPPORTED":
      if (requirement.minVersion === null || below(release, requirement)) {
        return finding({
          ...base(runtime, requirement),
          code: "RUNTIME_UNSUPPORTED",
          severity: "ERROR",
          message: `${label(runtime)} ${runtime.version} is not supported with ${consumerWords}: ${requirement.summary}`,
        });
      }
      break;
    case "MATCH_KUBERNETES_MINOR":
      if (
        release.major !== consumer.kubernetes.major ||
        release.minor !== consumer.kubernetes.minor
      ) {
        return finding({
          ...base(runtime, requirement),
          code: "RUNTIME_MINOR_MISMATCH",
          severity: "WARNING",
          message: `${label(runtime)} ${runtime.version} runs under ${consumerWords}; ${runtime.component} ${release.major}.${release.minor} is made for Kubernetes ${release.major}.${release.minor}. Use ${runtime.component} ${consumer.kubernetes.major}.${consumer.kubernetes.minor}.`,
        });
      }
      break;
    case "RECOMMENDED_MIN_VERSION":
    case "SUPPORT_ENDING":
      break;
  }
  return null;
}

/** The runtime below the version its project recommends for the consumer's minor. */
function recommendationFinding(
  { runtime, release }: RuntimeUnderConsumer,
  inForce: readonly RuntimeRequirementRecord[],
): Finding | null {
  // Only the newest recommendation table row at or below this minor applies.
  const recommendation = inForce
    .filter((requirement) => requirement.kind === "RECOMMENDED_MIN_VERSION")
    .reduce<
      RuntimeRequirementRecord | undefined
    >((a, b) => (a === undefined || minorIndex(b.kubernetesFrom) > minorIndex(a.kubernetesFrom) ? b : a), undefined);
  const floor = recommendation === undefined ? null : recommendedFloor(recommendation, release);
  if (
    recommendation !== undefined &&
    floor !== null &&
    compareComponentVersions(release, parseComponentVersion(floor)) < 0
  ) {
    const floorVersion = parseComponentVersion(floor);
    const ownLine = floorVersion.major === release.major && floorVersion.minor === release.minor;
    const line = ownLine
      ? ` on the ${release.major}.${release.minor} line`
      : recommendation.lineMinVersions.length > 0
        ? `; the ${release.major}.${release.minor} line is not listed`
        : "";
    return finding({
      ...base(runtime, recommendation),
      code: "RUNTIME_BELOW_RECOMMENDED",
      severity: "WARNING",
      message: `${label(runtime)} ${runtime.version} is older than ${runtime.component} lists for Kubernetes ${recommendation.kubernetesFrom} (${floor} or newer${line}): ${recommendation.summary}`,
    });
  }
  return null;
}

/** Notices that support for the runtime is ending, unless a later requirement already holds. */
function supportEndingFindings(
  { runtime, release, consumerWords }: RuntimeUnderConsumer,
  inForce: readonly RuntimeRequirementRecord[],
): Finding[] {
  const findings: Finding[] = [];
  // A "support is ending" notice is moot once a later requirement of the same runtime is in force.
  for (const ending of inForce.filter((requirement) => requirement.kind === "SUPPORT_ENDING")) {
    const superseded = inForce.some(
      (other) =>
        other.kind !== "SUPPORT_ENDING" &&
        other.kind !== "RECOMMENDED_MIN_VERSION" &&
        minorIndex(other.kubernetesFrom) > minorIndex(ending.kubernetesFrom),
    );
    if (!superseded && (ending.minVersion === null || below(release, ending))) {
      findings.push(
        finding({
          ...base(runtime, ending),
          code: "RUNTIME_SUPPORT_ENDING",
          severity: "WARNING",
          message: `${label(runtime)} ${runtime.version} with ${consumerWords}: ${ending.summary}`,
        }),
      );
    }
  }
  return findings;
}
