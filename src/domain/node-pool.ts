/**
 * Node-pool upgrade and rollback checks: a pool is upgraded as one unit (a
 * node-pool chart: kubelet version, flags and config file, kube-proxy mode,
 * container runtime), and what breaks is what the design notes' node-pool
 * chapter (2.4-2.5) names: kubelet flags or config fields the new version no
 * longer accepts, a kube-proxy mode that is not available, a runtime the
 * kubelet cannot use, a chart whose kubeVersion excludes the target, skew
 * with the control plane, and on the way back the rollback trap. Pure: the
 * facts come from the snapshot (flagChanges, proxyModes, runtime
 * requirements, skew rules), the cluster-level rules from judgePlan.
 */
import {
  compareComponentVersions,
  formatVersion,
  minorIndex,
  minorOf,
  type KubernetesVersion,
} from "../core/versions.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { resolveProfile } from "./catalog.js";
import { finding, report, type Finding, type Verdict } from "./findings.js";
import { checkConfiguration } from "./kubelet-configuration-checks.js";
import { checkChart, checkProxyMode, clusterFindings } from "./node-pool-checks.js";
import { parsePool, type NodePool } from "./node-pool-spec.js";
import { nodePoolSteps, type NodePoolStep } from "./node-pool-steps.js";
import { parseAsOf } from "./validate.js";
import { readKubernetesVersion } from "./version-reader.js";

// The request's pieces, exported here too so a face imports the node-pool check from one module.
export {
  parseFlags,
  parseKubeletConfig,
  type KubeletConfigFacts,
  type NodePoolSpecInput,
} from "./node-pool-spec.js";
export type { NodePoolStep } from "./node-pool-steps.js";

export interface NodePoolReport {
  readonly ok: boolean;
  readonly status: Verdict;
  readonly kbRevision: number;
  readonly pool: string;
  readonly findings: readonly Finding[];
  readonly steps: readonly NodePoolStep[];
}

export interface NodePoolRequest {
  readonly controlPlaneVersion: string;
  readonly from: unknown;
  readonly to: unknown;
  readonly profile?: string | null | undefined;
  /** The day the pool is judged on (YYYY-MM-DD); today when absent. */
  readonly asOf?: string | null | undefined;
  /** The managed platform (eks, gke, aks, upstream); recognised from the versions when absent. */
  readonly platform?: string | null | undefined;
}
export function checkNodePoolUpgrade(
  snapshot: KbSnapshot,
  request: NodePoolRequest,
): NodePoolReport {
  const asOf = parseAsOf(request.asOf);
  const controlPlane = readKubernetesVersion(
    snapshot,
    request.controlPlaneVersion,
    "controlPlaneVersion",
    asOf,
  );
  const profile = resolveProfile(snapshot, request.profile ?? undefined);
  const from = parsePool(snapshot, request.from, "from");
  const to = parsePool(snapshot, request.to, "to");
  const findings: Finding[] = [];
  if (minorIndex(to.kubelet) < minorIndex(from.kubelet)) {
    findings.push(
      finding({
        code: "NODE_POOL_NOT_AN_UPGRADE",
        severity: "WARNING",
        component: "kubelet",
        instance: to.name,
        message: `kubelet goes from ${formatVersion(from.kubelet)} back to ${formatVersion(to.kubelet)}; check it as a rollback (checkNodePoolRollback)`,
      }),
    );
  }
  findings.push(...checkConfiguration(snapshot, to, "upgrade", asOf));
  findings.push(...checkProxyMode(snapshot, to, from));
  findings.push(...checkChart(snapshot, to, controlPlane));
  findings.push(
    ...clusterFindings(snapshot, to, controlPlane, { profile, asOf, platform: request.platform }),
  );
  const judged = report(snapshot.revision, findings);
  return {
    ok: judged.ok,
    status: judged.status,
    kbRevision: snapshot.revision,
    pool: to.name,
    findings: judged.findings,
    steps: nodePoolSteps(from, to, "upgrade"),
  };
}

export function checkNodePoolRollback(
  snapshot: KbSnapshot,
  request: Omit<NodePoolRequest, "from" | "to"> & {
    readonly current: unknown;
    readonly rollbackTo: unknown;
  },
): NodePoolReport {
  const asOf = parseAsOf(request.asOf);
  const controlPlane = readKubernetesVersion(
    snapshot,
    request.controlPlaneVersion,
    "controlPlaneVersion",
    asOf,
  );
  const profile = resolveProfile(snapshot, request.profile ?? undefined);
  const current = parsePool(snapshot, request.current, "current");
  const target = parsePool(snapshot, request.rollbackTo, "rollbackTo");
  const findings: Finding[] = [];
  if (minorIndex(target.kubelet) > minorIndex(current.kubelet)) {
    findings.push(
      finding({
        code: "ROLLBACK_NOT_A_DOWNGRADE",
        severity: "ERROR",
        component: "kubelet",
        instance: target.name,
        message: `rollbackTo's kubelet ${formatVersion(target.kubelet)} is newer than the running ${formatVersion(current.kubelet)}; check it as an upgrade`,
      }),
    );
  }
  findings.push(...checkConfiguration(snapshot, target, "rollback", asOf));
  findings.push(...checkProxyMode(snapshot, target, current));
  findings.push(...checkChart(snapshot, target, controlPlane));
  const cluster = clusterFindings(snapshot, target, controlPlane, {
    profile,
    asOf,
    platform: request.platform,
  });
  findings.push(...cluster.map((problem) => asRollbackTrap(problem, target, controlPlane)));
  findings.push(...runtimeLeftNewer(snapshot, current, target));
  const judged = report(snapshot.revision, findings);
  return {
    ok: judged.ok,
    status: judged.status,
    kbRevision: snapshot.revision,
    pool: target.name,
    findings: judged.findings,
    steps: nodePoolSteps(current, target, "rollback"),
  };
}

/** The trap: the control plane has moved beyond what the old kubelet may join, so a kubelet skew error is the rollback's own. */
function asRollbackTrap(
  problem: Finding,
  target: NodePool,
  controlPlane: KubernetesVersion,
): Finding {
  if (problem.severity !== "ERROR" || problem.component !== "kubelet" || problem.check !== "SKEW")
    return problem;
  return finding({
    code: "ROLLBACK_TRAP",
    severity: "ERROR",
    component: "kubelet",
    instance: target.name,
    message: `rolling ${target.name} back to kubelet ${formatVersion(target.kubelet)} would leave its nodes unable to join the ${minorOf(controlPlane)} control plane: ${problem.message}`,
    sourceUrl: problem.sourceUrl,
    ruleId: problem.ruleId,
  });
}

/** A runtime upgraded with the pool but kept on the way back may be past what the old kubelet supports. */
function runtimeLeftNewer(snapshot: KbSnapshot, current: NodePool, target: NodePool): Finding[] {
  if (
    current.runtime === null ||
    target.runtime === null ||
    current.runtime.component !== target.runtime.component
  )
    return [];
  const runtime = target.runtime;
  const release = runtime.release!;
  const newer = compareComponentVersions(current.runtime.release!, release) > 0;
  // A runtime whose minors track Kubernetes minors (kb/runtime-requirements.yaml says which: CRI-O) must come back with the kubelet.
  const tracksMinors = snapshot.runtimeRequirements.find(
    (requirement) =>
      requirement.component === runtime.component &&
      requirement.kind === "MATCH_KUBERNETES_MINOR" &&
      minorIndex(requirement.kubernetesFrom) <= minorIndex(target.kubelet),
  );
  if (
    newer ||
    tracksMinors === undefined ||
    (release.minor <= target.kubelet.minor && release.major === target.kubelet.major)
  )
    return [];
  const runtimeName = snapshot.findComponent(runtime.component)?.name ?? runtime.component;
  return [
    finding({
      code: "RUNTIME_NEWER_THAN_KUBELET",
      severity: "ERROR",
      component: runtime.component,
      instance: target.name,
      message: `${runtimeName} ${runtime.version} stays while the kubelet goes back to ${formatVersion(target.kubelet)}; ${runtimeName} ${release.major}.${release.minor} is made for Kubernetes ${release.major}.${release.minor}: roll ${runtimeName} back to ${minorOf(target.kubelet)} too`,
      sourceUrl: tracksMinors.sourceUrl,
      ruleId: tracksMinors.id,
    }),
  ];
}
