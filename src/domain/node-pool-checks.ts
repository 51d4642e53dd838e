/**
 * What a node pool meets around its kubelet: kube-proxy's mode at its version
 * and OS (kb/proxy-modes.yaml), the node-pool chart's Helm kubeVersion against
 * the kubelet and the control plane, and the pool placed in a minimal cluster
 * so skew, runtime, release and platform rules are validate's own, not a copy.
 */
import semver from "semver";
import { formatVersion, minorIndex, minorOf, type KubernetesVersion } from "../core/versions.js";
import type { ProxyModeRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { plannedComponent, type PlannedComponent } from "./cluster-plan.js";
import { finding, type Finding } from "./findings.js";
import { atOrBefore, type NodePool } from "./node-pool-spec.js";
import { judgePlan, onPlatform } from "./validate.js";

/** Where and when a pool is judged: the cluster's profile, day and platform, as validate takes them. */
export interface PoolContext {
  readonly profile: string;
  readonly asOf: string;
  readonly platform: string | null | undefined;
}

/** The pool's kube-proxy mode at its kube-proxy version (its kubelet's when absent), and a switch of mode. */
export function checkProxyMode(
  snapshot: KbSnapshot,
  pool: NodePool,
  previous: NodePool | null,
): Finding[] {
  if (pool.proxyMode === null) return [];
  const version = pool.kubeProxy ?? pool.kubelet;
  const record: ProxyModeRecord | undefined = snapshot.proxyModes.find(
    (candidate) => candidate.mode === pool.proxyMode && candidate.os === pool.os,
  );
  const base = { component: "kube-proxy", instance: pool.name };
  const at = formatVersion(version);
  if (record === undefined) {
    return [
      finding({
        ...base,
        code: "PROXY_MODE_NOT_AVAILABLE",
        severity: "ERROR",
        message: `kube-proxy has no ${pool.proxyMode} mode on ${pool.os}`,
        sourceUrl: snapshot.reference("virtual-ips"),
      }),
    ];
  }
  const findings: Finding[] = [];
  const cite = { ...base, sourceUrl: record.sourceUrl, ruleId: `${record.mode}/${record.os}` };
  if (atOrBefore(record.removedIn, version)) {
    findings.push(
      finding({
        ...cite,
        code: "PROXY_MODE_REMOVED",
        severity: "ERROR",
        message: `kube-proxy ${at} has no ${record.mode} mode on ${record.os}: it was removed in ${record.removedIn}; kube-proxy will not start with it.`,
      }),
    );
  } else if (
    record.availableFrom !== null &&
    minorIndex(record.availableFrom) > minorIndex(version)
  ) {
    findings.push(
      finding({
        ...cite,
        code: "PROXY_MODE_NOT_AVAILABLE",
        severity: "ERROR",
        message: `kube-proxy ${at} has no ${record.mode} mode yet: it arrives in ${record.availableFrom}.`,
      }),
    );
  } else {
    if (record.stableFrom !== null && minorIndex(record.stableFrom) > minorIndex(version)) {
      findings.push(
        finding({
          ...cite,
          code: "PROXY_MODE_NOT_GA",
          severity: "WARNING",
          message: `${record.mode} mode is not generally available in ${minorOf(version)} (GA in ${record.stableFrom})${record.featureGate ? `; it needs the ${record.featureGate} feature gate` : ""}.`,
        }),
      );
    }
    if (atOrBefore(record.deprecatedIn, version)) {
      findings.push(
        finding({
          ...cite,
          code: "PROXY_MODE_DEPRECATED",
          severity: "WARNING",
          message: `${record.mode} mode is deprecated since ${record.deprecatedIn}${record.removedIn ? ` and removed in ${record.removedIn}` : ""}; plan a move to another mode.`,
        }),
      );
    }
  }
  if (previous?.proxyMode && previous.proxyMode !== pool.proxyMode) {
    findings.push(
      finding({
        ...base,
        code: "PROXY_MODE_SWITCH",
        severity: "INFO",
        message: `kube-proxy moves from ${previous.proxyMode} to ${pool.proxyMode}: the old mode's rules stay on the node until cleaned up (kube-proxy --cleanup, or reboot the node); switch on drained nodes and check Services afterwards.`,
        sourceUrl: snapshot.reference("virtual-ips"),
      }),
    );
  }
  return findings;
}
/** The node-pool chart's kubeVersion constraint, as Helm applies it, against the kubelet and the control plane. */
export function checkChart(
  snapshot: KbSnapshot,
  pool: NodePool,
  controlPlane: KubernetesVersion,
): Finding[] {
  if (pool.chartKubeVersion === null) return [];
  const findings: Finding[] = [];
  const range = pool.chartKubeVersion;
  // Helm compares kubeVersion with full versions; a bare minor is read as its .0 patch.
  const satisfied = (version: KubernetesVersion) =>
    semver.satisfies(
      `${version.major}.${version.minor}.${version.patch ?? 0}${version.prerelease ? `-${version.prerelease}` : ""}`,
      range,
      { includePrerelease: true },
    );
  if (!satisfied(pool.kubelet)) {
    findings.push(
      finding({
        code: "CHART_KUBE_VERSION",
        severity: "ERROR",
        component: "kubelet",
        instance: pool.name,
        message: `the node-pool chart's kubeVersion "${range}" does not admit kubelet ${formatVersion(pool.kubelet)}`,
        sourceUrl: snapshot.reference("helm-kube-version"),
      }),
    );
  }
  if (!satisfied(controlPlane)) {
    findings.push(
      finding({
        code: "CHART_KUBE_VERSION",
        severity: "ERROR",
        component: "kube-apiserver",
        instance: pool.name,
        message: `the node-pool chart's kubeVersion "${range}" does not admit the control plane ${formatVersion(controlPlane)}; Helm checks it against the cluster's version and refuses to install`,
        sourceUrl: snapshot.reference("helm-kube-version"),
      }),
    );
  }
  return findings;
}

/** The pool inside a minimal cluster, judged by the same rules as validateCluster. */
export function clusterFindings(
  snapshot: KbSnapshot,
  pool: NodePool,
  controlPlane: KubernetesVersion,
  { profile, asOf, platform }: PoolContext,
): Finding[] {
  const component = (name: string) => snapshot.findComponent(name)!;
  const entries: PlannedComponent[] = [
    plannedComponent(
      component("kube-apiserver"),
      null,
      formatVersion(controlPlane),
      "controlPlaneVersion",
    ),
    {
      ...plannedComponent(
        component("kubelet"),
        pool.name,
        formatVersion(pool.kubelet),
        "kubeletVersion",
      ),
      node: pool.node,
    },
  ];
  if (pool.kubeProxy !== null)
    entries.push(
      plannedComponent(
        component("kube-proxy"),
        pool.name,
        formatVersion(pool.kubeProxy),
        "kubeProxyVersion",
      ),
    );
  if (pool.runtime !== null) entries.push(pool.runtime);
  // The pool on its platform's calendar (named, or recognised from its versions), on the day asked about.
  const plan = onPlatform(snapshot, { entries }, platform);
  // Release dates of the control plane alone are not this check's business; the pool's, and the pool's with it, are.
  return judgePlan(snapshot, plan, profile, asOf).filter(
    (entry) =>
      !(
        entry.component === "kube-apiserver" &&
        (entry.check === "RELEASE" ||
          entry.check === "END_OF_LIFE" ||
          entry.check === "PLATFORM" ||
          entry.check === "VERSION")
      ),
  );
}
