/**
 * The node pools' and clients' steps of an upgrade plan: a pool moves only when the next control-plane minor
 * would leave it out of skew (or its platform wants nodes level first), and then straight to the newest minor
 * allowed, so it is touched as few times as possible; its runtime and its cgroup version move before its
 * kubelet, kube-proxy with or after it. kubectl, on operators' machines, is advice.
 */
import { minorIndex } from "../core/versions.js";
import { plannedComponent, type PlannedComponent } from "./cluster-plan.js";
import { checkKubeletCgroup } from "./node-checks.js";
import { minorWords, type PlanInProgress } from "./upgrade-in-progress.js";
import { prepareRuntimeFor } from "./upgrade-runtimes.js";

/**
 * Once the control plane is at the target, nodes and clients follow in the order kb/upgrade-order.yaml gives:
 * each pool (its runtime before its kubelet), kube-proxy after the kubelets of its nodes, then kubectl.
 */
export function nodesFollowToTarget(plan: PlanInProgress): void {
  for (const component of plan.snapshot.upgradeOrder) {
    if (component === "kubelet") {
      for (const kubelet of plan.kubernetes("kubelet")) {
        if (minorIndex(kubelet.kubernetes!) < plan.targetMinor)
          moveNode(plan, kubelet, plan.targetMinor, "nodes follow the control plane to the target");
      }
    } else if (component === "kube-proxy") {
      for (const proxy of plan.kubernetes("kube-proxy")) {
        if (minorIndex(proxy.kubernetes!) < plan.targetMinor) {
          plan.step(
            [{ entry: proxy, to: plan.versionFor(plan.targetMinor) }],
            "kube-proxy after the kubelets of its nodes",
          );
        }
      }
    } else if (component === "kubectl") {
      for (const kubectl of plan.kubernetes("kubectl")) {
        if (minorIndex(kubectl.kubernetes!) < plan.targetMinor) {
          plan.step(
            [{ entry: kubectl, to: plan.versionFor(plan.targetMinor) }],
            "advice, not a cluster change: kubectl on operators' machines and in CI to the control plane's minor",
          );
        }
      }
    }
  }
}

/** Moves every pool that the next control-plane minor would leave out of skew, to the newest minor allowed now. */
export function prepareNodesFor(plan: PlanInProgress, next: number): void {
  const oldestApiserver = Math.min(
    ...plan.kubernetes("kube-apiserver").map((entry) => minorIndex(entry.kubernetes!)),
  );
  const preview = plan.withChanges(
    plan.kubernetes("kube-apiserver").map((entry) => ({
      entry,
      to: minorWords(Math.max(next, minorIndex(entry.kubernetes!))),
    })),
  );
  const troubled = new Set(
    plan
      .errorsOf(preview)
      .filter((error) => error.component === "kubelet" || error.component === "kube-proxy")
      .map((error) => error.instance ?? ""),
  );
  // A platform that refuses a control-plane update while nodes are older (EKS) has every pool brought level first.
  const platform = plan.state.platform;
  const levelling = platform?.rules.find((rule) => rule.plan === "NODES_MATCH_CONTROL_PLANE");
  const levellingWhy =
    platform === undefined || levelling === undefined
      ? undefined
      : `${platform.displayName} updates the control plane to ${minorWords(next)} only once the nodes are on its minor, ${minorWords(oldestApiserver)} (${levelling.id}: ${levelling.sourceUrl})`;
  for (const kubelet of plan.kubernetes("kubelet")) {
    if (minorIndex(kubelet.kubernetes!) >= oldestApiserver) continue;
    if (troubled.has(kubelet.instance ?? "")) {
      moveNode(
        plan,
        kubelet,
        oldestApiserver,
        `must move before kube-apiserver reaches ${minorWords(next)}; goes to ${minorWords(oldestApiserver)}, the newest minor allowed now, so the pool is touched as few times as possible`,
      );
    } else if (levellingWhy !== undefined) {
      moveNode(plan, kubelet, oldestApiserver, levellingWhy);
    }
  }
  for (const proxy of plan.kubernetes("kube-proxy")) {
    if (troubled.has(proxy.instance ?? "") && minorIndex(proxy.kubernetes!) < oldestApiserver) {
      plan.step(
        [{ entry: proxy, to: plan.versionFor(oldestApiserver) }],
        `must move before kube-apiserver reaches ${minorWords(next)}`,
      );
    }
  }
}

/** kubectl more than one minor behind the next kube-apiserver goes to the control plane's minor first (advice). */
export function prepareKubectlFor(plan: PlanInProgress, next: number): void {
  for (const kubectl of plan.kubernetes("kubectl")) {
    if (next - minorIndex(kubectl.kubernetes!) > 1) {
      const oldestApiserver = Math.min(
        ...plan.kubernetes("kube-apiserver").map((entry) => minorIndex(entry.kubernetes!)),
      );
      plan.step(
        [{ entry: kubectl, to: plan.versionFor(oldestApiserver) }],
        "advice, not a cluster change: kubectl on operators' machines and in CI stays within one minor of kube-apiserver",
      );
    }
  }
}

/** Drains and moves one pool: its runtime first when the new kubelet needs it, then kubelet (with kube-proxy where they must move together). */
export function moveNode(
  plan: PlanInProgress,
  kubelet: PlannedComponent,
  minor: number,
  why: string,
): void {
  prepareRuntimeFor(plan, kubelet, minor);
  prepareCgroupFor(plan, kubelet, minor);
  const current = plan.state.entries.find(
    (entry) => entry.component === "kubelet" && entry.instance === kubelet.instance,
  )!;
  const to = plan.versionFor(minor);
  const proxy = plan.state.entries.find(
    (entry) => entry.component === "kube-proxy" && entry.instance === kubelet.instance,
  );
  const alone = plan.withChanges([{ entry: current, to }]);
  const minors = minor - minorIndex(current.kubernetes!);
  // kubeadm upgrades a node one minor at a time in place: a bigger move is new nodes.
  const how =
    minors > 1
      ? `replace the node${kubelet.instance ? `s of ${kubelet.instance}` : "s"} with new ones (the kubelet moves ${minors} minors; in place, a node moves one minor at a time)`
      : `drain the node${kubelet.instance ? `s of ${kubelet.instance}` : "s"} first`;
  const note = `${how}; ${why}`;
  if (
    proxy !== undefined &&
    minorIndex(proxy.kubernetes!) < minor &&
    plan.errorsOf(alone, [current]).some((error) => error.component === "kube-proxy")
  ) {
    plan.step(
      [
        { entry: current, to },
        { entry: proxy, to },
      ],
      `${note}; kube-proxy moves with the kubelet (the policy in force ties them together)`,
    );
  } else {
    plan.step([{ entry: current, to }], note);
  }
}

/**
 * A pool on cgroup v1 whose kubelet would not start at `minor` (failCgroupV1, from 1.35) moves to cgroup v2
 * first: a step of its own, judged like any other, before the kubelet moves. Setting failCgroupV1: false
 * instead only postpones it (cgroup v1 support is in maintenance and its removal is planned), so the plan
 * does not choose that; the finding of the step's note says it is possible.
 */
function prepareCgroupFor(plan: PlanInProgress, kubelet: PlannedComponent, minor: number): void {
  const current = plan.state.entries.find(
    (entry) => entry.component === "kubelet" && entry.instance === kubelet.instance,
  )!;
  const node = current.node;
  if (node === undefined || node.cgroupVersion !== "v1") return;
  const moved = plannedComponent(
    plan.component("kubelet"),
    current.instance,
    plan.versionFor(minor),
    "kubelet",
  );
  const refused = checkKubeletCgroup(
    plan.snapshot,
    { ...moved, kubernetes: moved.kubernetes! },
    node,
  ).find((entry) => entry.severity === "ERROR");
  if (refused === undefined) return;
  plan.step(
    [
      {
        entry: current,
        to: current.version,
        node: { cgroupVersion: "v2", failCgroupV1: node.failCgroupV1 },
      },
    ],
    `move the node${kubelet.instance === null ? "s" : `s of ${kubelet.instance}`} to cgroup v2 (a node image or OS that mounts cgroup v2; new nodes, or a reboot with systemd.unified_cgroup_hierarchy=1) before the kubelet goes to ${minorWords(minor)}: ${refused.message}`,
    "MIGRATE_CGROUP_V2",
  );
}
