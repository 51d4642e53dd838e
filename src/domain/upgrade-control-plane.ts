/**
 * The control plane's steps of an upgrade plan: etcd along its own upgrade path, each kube-apiserver one minor
 * at a time (after the nodes, clients and add-ons that minor would leave behind), then the controllers.
 */
import { parseComponentVersion, compareComponentVersions, minorIndex } from "../core/versions.js";
import { etcdWaypoints } from "./etcd-checks.js";
import { finding } from "./findings.js";
import { moveAddon, prepareAddonsFor } from "./upgrade-addons.js";
import { minorWords, type PlanInProgress } from "./upgrade-in-progress.js";
import { prepareKubectlFor, prepareNodesFor } from "./upgrade-nodes.js";

/**
 * One control-plane minor at a time, never skipping one; within each, components move in the order
 * kb/upgrade-order.yaml gives (etcd, kube-apiserver, then the controllers). Nodes that the next minor would
 * leave out of skew move just before kube-apiserver does (moveApiservers).
 */
export function moveControlPlaneToTarget(plan: PlanInProgress): void {
  const order = plan.snapshot.upgradeOrder;
  for (;;) {
    const apiserverMinors = plan
      .kubernetes("kube-apiserver")
      .map((entry) => minorIndex(entry.kubernetes!));
    const oldest = Math.min(...apiserverMinors);
    if (oldest >= plan.targetMinor) break;
    const next = oldest + 1; // never skip a minor
    for (const component of order) {
      if (component === "etcd") prepareEtcd(plan, next);
      else if (component === "kube-apiserver") moveApiservers(plan, next);
      else if (plan.isController(component)) {
        for (const controller of plan.kubernetes(component)) {
          if (minorIndex(controller.kubernetes!) < next) {
            plan.step(
              [{ entry: controller, to: plan.versionFor(next) }],
              `${component} to ${minorWords(next)} after every kube-apiserver is there`,
            );
          }
        }
      }
    }
  }
}

/** Controllers still behind once nodes and clients have followed the control plane go to the target last. */
export function moveControllersToTarget(plan: PlanInProgress): void {
  for (const component of plan.snapshot.upgradeOrder.filter((name) => plan.isController(name))) {
    for (const controller of plan.kubernetes(component)) {
      if (minorIndex(controller.kubernetes!) < plan.targetMinor) {
        plan.step(
          [{ entry: controller, to: plan.versionFor(plan.targetMinor) }],
          `${component} to the target`,
        );
      }
    }
  }
}

/** The kube-apiservers to the next minor, after the nodes and clients that minor would leave out of skew. */
function moveApiservers(plan: PlanInProgress, next: number): void {
  prepareNodesFor(plan, next);
  prepareKubectlFor(plan, next);
  const afterwards = prepareAddonsFor(plan, next);
  for (const apiserver of plan.kubernetes("kube-apiserver")) {
    if (minorIndex(apiserver.kubernetes!) < next) {
      plan.step(
        [{ entry: apiserver, to: plan.versionFor(next) }],
        `kube-apiserver to ${minorWords(next)}: one minor at a time, one instance at a time`,
      );
    }
  }
  for (const { name, to, note } of afterwards) {
    const entry = plan.state.entries.find(
      (candidate) => candidate.component === name.component && candidate.instance === name.instance,
    )!;
    moveAddon(plan, entry, to, note);
  }
}

/**
 * etcd goes first: to the version kubeadm deploys with the next minor, when the knowledge base knows it, along
 * etcd's own upgrade path (etcdWaypoints: the patch the next minor's guide asks for, then one minor at a time).
 * Each waypoint is a rolling upgrade: every member reaches it, one member at a time, before any member goes on.
 */
function prepareEtcd(plan: PlanInProgress, next: number): void {
  const members = plan.state.entries.filter(
    (entry) => entry.component === "etcd" && entry.release !== null,
  );
  if (members.length === 0) return;
  const release = plan.snapshot.findRelease(minorWords(next));
  if (release?.etcdVersion == null) {
    plan.notes.push(
      finding({
        code: "ETCD_VERSION_UNVERIFIED",
        severity: "INFO",
        component: "etcd",
        message: `the knowledge base does not know which etcd ${minorWords(next)} ships with; check the ${minorWords(next)} release notes before upgrading etcd (before kube-apiserver)`,
        sourceUrl: release?.sourceUrl ?? plan.snapshot.reference("releases"),
      }),
    );
    return;
  }
  const kubeadm = parseComponentVersion(release.etcdVersion);
  const wanted = parseComponentVersion(`${kubeadm.major}.${kubeadm.minor}.${kubeadm.patch}`);
  const oldest = members
    .map((member) => member.release!)
    .reduce((a, b) => (compareComponentVersions(b, a) < 0 ? b : a));
  if (compareComponentVersions(oldest, wanted) >= 0) return;
  for (const waypoint of etcdWaypoints(plan.snapshot, oldest, wanted)) {
    const last = compareComponentVersions(waypoint, wanted) === 0;
    const line = `${waypoint.major}.${waypoint.minor}`;
    const why = last
      ? `etcd before kube-apiserver: kubeadm deploys etcd ${release.etcdVersion} with Kubernetes ${release.version}`
      : `etcd to ${waypoint.raw} (or the newest ${line} patch) on the way to ${wanted.raw}: etcd upgrades one minor at a time, and its guide asks every member to be on this patch or newer before the next minor`;
    for (const member of plan.state.entries.filter(
      (entry) => entry.component === "etcd" && entry.release !== null,
    )) {
      if (compareComponentVersions(member.release!, waypoint) >= 0) continue;
      plan.step(
        [{ entry: member, to: waypoint.raw }],
        `${why}; one member at a time${members.length > 1 ? ", checking etcdctl endpoint health before the next" : ""}`,
      );
    }
  }
}
