/**
 * Facts about nodes rather than versions: a kubelet on cgroup v1 (the
 * hostRequirements of kb/host-requirements.yaml: maintenance mode from 1.31,
 * not starting by default from 1.35 unless failCgroupV1 is false), a runtime
 * on cgroup v1 that its own project deprecated, and a runtime whose own
 * release line is past its end of life (kb/runtime-releases.yaml).
 */
import type { HostRequirementRecord, RuntimeReleaseRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { groupedBy, perList } from "../knowledge/lists.js";
import { label, type NodeFacts, type PlannedComponent } from "./cluster-plan.js";
import { finding, type Finding } from "./findings.js";
import { compareMinors, type ComponentVersion, type KubernetesVersion } from "../core/versions.js";

/** The fact in force for a kubelet minor: the newest one that starts at or before it. */
function kubeletFactAt(snapshot: KbSnapshot, minor: string): HostRequirementRecord | undefined {
  return snapshot.hostRequirements
    .filter(
      (fact) =>
        fact.component === "kubelet" &&
        fact.subject === "CGROUP_V1" &&
        fact.kubernetesFrom !== null &&
        compareMinors(fact.kubernetesFrom, minor) <= 0,
    )
    .reduce<
      HostRequirementRecord | undefined
    >((newest, fact) => (newest === undefined || compareMinors(fact.kubernetesFrom!, newest.kubernetesFrom!) > 0 ? fact : newest), undefined);
}

/** A kubelet whose nodes run cgroup v1. `failCgroupV1` is what its KubeletConfiguration says (null: not said). */
export function checkKubeletCgroup(
  snapshot: KbSnapshot,
  kubelet: {
    readonly component: string;
    readonly instance: string | null;
    readonly version: string;
    readonly kubernetes: KubernetesVersion;
  },
  node: NodeFacts,
): Finding[] {
  if (node.cgroupVersion !== "v1") return [];
  const minor = `${kubelet.kubernetes.major}.${kubelet.kubernetes.minor}`;
  const fact = kubeletFactAt(snapshot, minor);
  if (fact === undefined) return [];
  const where = {
    component: kubelet.component,
    instance: kubelet.instance,
    sourceUrl: fact.sourceUrl,
    ruleId: fact.id,
  };
  const who = `${label(kubelet)} ${kubelet.version} on cgroup v1 nodes`;
  if (fact.status === "FAILS_BY_DEFAULT" || fact.status === "REMOVED") {
    const overridden =
      fact.status === "FAILS_BY_DEFAULT" &&
      fact.overrideConfigField === "failCgroupV1" &&
      node.failCgroupV1 === (fact.overrideValue === "false" ? false : true);
    if (overridden) {
      return [
        finding({
          ...where,
          code: "CGROUP_V1_DEPRECATED",
          severity: "WARNING",
          message: `${who}: starts only because its KubeletConfiguration sets ${fact.overrideConfigField}: ${fact.overrideValue}. ${fact.summary} Move the nodes to cgroup v2${fact.removalNotBefore === null ? "" : ` before the support is removed (not before ${fact.removalNotBefore})`}.`,
        }),
      ];
    }
    return [
      finding({
        ...where,
        code: "CGROUP_V1_UNSUPPORTED",
        severity: "ERROR",
        message: `${who}: ${fact.summary} Move the nodes to cgroup v2${fact.overrideConfigField === null ? "" : `, or set ${fact.overrideConfigField}: ${fact.overrideValue} in the KubeletConfiguration (and skip kubeadm's SystemVerification preflight check) for the time being`}.`,
      }),
    ];
  }
  return [
    finding({
      ...where,
      code: "CGROUP_V1_DEPRECATED",
      severity: fact.status === "MAINTENANCE_MODE" ? "INFO" : "WARNING",
      message: `${who}: ${fact.summary}`,
    }),
  ];
}

/** A runtime on cgroup v1 nodes whose own project deprecated cgroup v1 from its release line. */
export function checkRuntimeCgroup(
  snapshot: KbSnapshot,
  runtime: PlannedComponent,
  node: NodeFacts,
): Finding[] {
  if (node.cgroupVersion !== "v1" || runtime.release === null) return [];
  const release = runtime.release;
  return snapshot.hostRequirements
    .filter(
      (fact) =>
        fact.component === runtime.component &&
        fact.subject === "CGROUP_V1" &&
        fact.componentLineFrom !== null &&
        !lineBefore(release, fact.componentLineFrom),
    )
    .map((fact) =>
      finding({
        code: "CGROUP_V1_DEPRECATED",
        severity: "WARNING",
        component: runtime.component,
        instance: runtime.instance,
        sourceUrl: fact.sourceUrl,
        ruleId: fact.id,
        message: `${label(runtime)} ${runtime.version} on cgroup v1 nodes: ${fact.summary}`,
      }),
    );
}

function lineBefore(release: ComponentVersion, line: string): boolean {
  const [major, minor] = line.split(".").map(Number) as [number, number];
  return release.major < major || (release.major === major && release.minor < minor);
}

/** The last day a release line is supported: its end of life, or the last day of its end-of-life month. */
export function lastSupportedDay(release: RuntimeReleaseRecord): string | null {
  if (release.endOfLife !== null) return release.endOfLife;
  if (release.endOfLifeMonth === null) return null;
  // Records are immutable: the month's last day is worked out once per record (the planner asks at every step).
  let day = lastDays.get(release);
  if (day === undefined) {
    const [year, month] = release.endOfLifeMonth.split("-").map(Number) as [number, number];
    day = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    lastDays.set(release, day);
  }
  return day;
}

const lastDays = new WeakMap<RuntimeReleaseRecord, string>();
const releaseLines = new WeakMap<
  readonly RuntimeReleaseRecord[],
  ReadonlyMap<string, readonly RuntimeReleaseRecord[]>
>();

/** A runtime's release lines, grouped once per list. */
function linesOf(snapshot: KbSnapshot, component: string): readonly RuntimeReleaseRecord[] {
  return (
    perList(releaseLines, snapshot.runtimeReleases, (list) =>
      groupedBy(list, (release) => [release.component]),
    ).get(component) ?? []
  );
}

/** A runtime whose own release line is past its end of life on `asOf`. */
export function checkRuntimeEndOfLife(
  snapshot: KbSnapshot,
  runtime: PlannedComponent,
  asOf: string,
): Finding[] {
  if (runtime.release === null) return [];
  const line = `${runtime.release.major}.${runtime.release.minor}`;
  const lines = linesOf(snapshot, runtime.component);
  const release = lines.find((candidate) => candidate.line === line);
  if (release === undefined) return [];
  const lastDay = lastSupportedDay(release);
  if (lastDay === null || asOf <= lastDay) return [];
  const newer = lines
    .filter(
      (candidate) => (lastSupportedDay(candidate) ?? "9999-12-31") >= asOf && !candidate.tentative,
    )
    .map((candidate) => candidate.line);
  return [
    finding({
      code: "RUNTIME_END_OF_LIFE",
      severity: "WARNING",
      component: runtime.component,
      instance: runtime.instance,
      sourceUrl: release.sourceUrl,
      ruleId: `${release.component} ${release.line}`,
      message:
        `${label(runtime)} ${runtime.version}: ${runtime.component} ${line} reached its end of life on ${lastDay}${release.endOfLifeMonth !== null ? ` (the project gives only the month, ${release.endOfLifeMonth})` : ""}; it gets no more fixes. ${newer.length > 0 ? `Supported lines on ${asOf}: ${newer.join(", ")}.` : ""}`.trim(),
    }),
  ];
}
