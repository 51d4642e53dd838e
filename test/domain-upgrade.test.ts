import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { planUpgrade, type UpgradePlan } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import { minorIndex } from "../src/core/versions.js";
import { InputError } from "../src/core/errors.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kbSnapshot, plan } from "./support/snapshot.js";

type Entry = { component: string; version: string; instance?: string };

const CANONICAL: Record<string, string> = {
  apiserver: "kube-apiserver",
  kcm: "kube-controller-manager",
  scheduler: "kube-scheduler",
  ccm: "cloud-controller-manager",
  docker: "docker-engine",
  crio: "cri-o",
};
const canonical = (entries: Entry[]): Entry[] =>
  entries.map((entry) => ({ ...entry, component: CANONICAL[entry.component] ?? entry.component }));

/**
 * Replays a plan: applies each order group to the state and validates the
 * result with validateCluster itself. Returns the states after each group.
 */
function replay(
  snapshot: KbSnapshot,
  start: Entry[],
  result: UpgradePlan,
  profile?: string,
): Entry[][] {
  let state = canonical(start);
  const states: Entry[][] = [];
  const orders = [...new Set(result.steps.map((step) => step.order))];
  assert.deepEqual(
    orders,
    orders.map((_, index) => index + 1),
    "orders are 1, 2, 3, ...",
  );
  for (const order of orders) {
    for (const step of result.steps.filter((candidate) => candidate.order === order)) {
      const index = state.findIndex(
        (entry) => entry.component === step.component && (entry.instance ?? null) === step.instance,
      );
      assert.ok(
        index >= 0,
        `step ${order} names ${step.component}@${step.instance}, which is not in the cluster`,
      );
      assert.equal(
        state[index]!.version.replace(/^v/, ""),
        step.fromVersion.replace(/^v/, ""),
        `step ${order} starts where the cluster is`,
      );
      state = state.map((entry, position) =>
        position === index ? { ...entry, version: step.toVersion } : entry,
      );
    }
    const verdict = validateCluster(snapshot, state, { profile, asOf: "2026-11-29" });
    assert.ok(
      verdict.ok,
      `state after step ${order} is invalid: ${verdict.findings
        .filter((f) => f.severity === "ERROR")
        .map((f) => f.message)
        .join(" | ")}`,
    );
    states.push(state);
  }
  return states;
}

const minor = (version: string): number => minorIndex(version);

describe("planUpgrade", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  it("takes an HA cluster with three pools from 1.25 to 1.30 through valid states only", () => {
    const start = plan(
      "etcd=3.5.9 apiserver@cp-1=1.25.4 apiserver@cp-2=1.25.4 apiserver@cp-3=1.25.4 kcm=1.25.4 scheduler=1.25.4 " +
        "kubelet@pool-a=1.25.4 kube-proxy@pool-a=1.25.4 containerd@pool-a=1.6.4 kubelet@pool-b=1.24.17 containerd@pool-b=1.6.4 " +
        "kubelet@pool-c=1.25.4 containerd@pool-c=1.6.20 kubectl=1.25.4",
    );
    const result = planUpgrade(snapshot, start, "1.30");
    assert.equal(result.ok, true, result.findings.map((f) => f.message).join("\n"));
    const states = replay(snapshot, start, result);
    const final = states.at(-1)!;
    for (const entry of final.filter(
      (candidate) => !["etcd", "containerd"].includes(candidate.component),
    )) {
      assert.equal(
        minor(entry.version),
        minor("1.30"),
        `${entry.component}@${entry.instance} ends at 1.30`,
      );
    }
    // The control plane never skips a minor, and every apiserver moves one instance at a time.
    const apiserverSteps = result.steps.filter((step) => step.component === "kube-apiserver");
    for (const step of apiserverSteps)
      assert.equal(minor(step.toVersion) - minor(step.fromVersion), 1, JSON.stringify(step));
    assert.equal(apiserverSteps.length, 3 * 5);
    assert.equal(new Set(apiserverSteps.map((step) => step.order)).size, apiserverSteps.length);
    // Controllers follow the apiservers of each minor.
    for (const step of result.steps.filter(
      (candidate) => candidate.component === "kube-controller-manager",
    )) {
      const lastApiserver = apiserverSteps
        .filter((candidate) => candidate.toVersion === step.toVersion)
        .at(-1)!;
      assert.ok(step.order > lastApiserver.order);
    }
    // Pools are touched as few times as possible: pool-b (1.24) must move before 1.27 and before 1.30.
    const poolTouches = (pool: string) =>
      result.steps
        .filter((step) => step.component === "kubelet" && step.instance === pool)
        .map((step) => step.toVersion);
    assert.deepEqual(
      poolTouches("pool-a").map((version) => minor(version)),
      [minor("1.28"), minor("1.30")],
    );
    assert.deepEqual(
      poolTouches("pool-b").map((version) => minor(version)),
      [minor("1.26"), minor("1.29"), minor("1.30")],
    );
    assert.deepEqual(
      poolTouches("pool-c").map((version) => minor(version)),
      [minor("1.28"), minor("1.30")],
    );
    // etcd moves before the apiserver of the minor that brings a newer etcd.
    const etcd = result.steps.find((step) => step.component === "etcd");
    assert.ok(etcd, "etcd is upgraded");
    const nextApiserver = apiserverSteps.find((step) => step.order > etcd.order)!;
    assert.equal(
      etcd.toVersion,
      snapshot
        .findRelease(`1.${minor(nextApiserver.toVersion) % 1000}`)!
        .etcdVersion!.replace(/-\d+$/, ""),
    );
    // API removals crossed: 1.25 < removedIn <= 1.30.
    assert.deepEqual([...new Set(result.apiRemovals.map((removal) => removal.removedIn))].sort(), [
      "1.26",
      "1.27",
      "1.29",
    ]);
    assert.ok(result.findings.some((finding) => finding.code === "API_REMOVED_IN_UPGRADE"));
    const recommendations = result.findings
      .filter((finding) => finding.code === "RECOMMENDATION")
      .map((finding) => finding.ruleId);
    assert.ok(
      recommendations.includes("control-plane-upgrade-headroom") &&
        recommendations.includes("leader-election-pause"),
    );
  });

  it("upgrades the runtime before the kubelet that needs it", () => {
    const start = plan(
      "apiserver=1.25 kcm=1.25 kubelet@a=1.25 containerd@a=1.5.18 kubelet@b=1.35 containerd@b=1.7.27",
    );
    // On a day of the 1.26 era (containerd 1.7 not out yet), the 1.6 line is the one listed all the way.
    const result = planUpgrade(
      snapshot,
      plan("apiserver=1.25 kubelet@a=1.25 containerd@a=1.5.18"),
      "1.26",
      { asOf: "2023-03-01" },
    );
    replay(snapshot, plan("apiserver=1.25 kubelet@a=1.25 containerd@a=1.5.18"), result);
    const runtime = result.steps.find((step) => step.component === "containerd");
    const kubelet = result.steps.find((step) => step.component === "kubelet");
    assert.equal(
      runtime?.toVersion,
      "1.6.15",
      "containerd's own 1.26 row lists 1.6.15+, not the bare CRI v1 floor 1.6.0",
    );
    assert.ok(runtime && kubelet && runtime.order < kubelet.order);
    assert.ok(
      result.findings.some(
        (finding) =>
          finding.code === "RUNTIME_REQUIREMENT_IN_UPGRADE" &&
          finding.ruleId === "containerd-cri-v1alpha2-removed",
      ),
    );
    void start;

    const to136 = plan(
      "apiserver=1.35 kcm=1.35 kubelet@a=1.35 kube-proxy@a=1.35 containerd@a=1.7.27",
    );
    const result136 = planUpgrade(snapshot, to136, "1.36", { asOf: "2026-06-01" });
    replay(snapshot, to136, result136);
    // containerd 1.x keeps working under 1.36 (the kubelet's fallback goes in 1.38), so nothing forces 2.0; but containerd's
    // own 1.36 row lists only the 2.3 and 2.2 lines, so the plan moves to the oldest of them, 2.2.0, not to the bare 2.0.0.
    const containerd = result136.steps.find((step) => step.component === "containerd");
    assert.equal(containerd?.toVersion, "2.2.0");
    // After 2026-11-06 the 2.2 line is past its own end of life: the oldest listed live line is 2.3.
    const later = planUpgrade(snapshot, to136, "1.36", { asOf: "2026-12-01" });
    assert.equal(later.steps.find((step) => step.component === "containerd")?.toVersion, "2.3.0");
    // Before 2.3 was released (2026-04-30), only 2.2 could be chosen.
    const before23 = planUpgrade(snapshot, to136, "1.36", { asOf: "2026-03-01" });
    assert.equal(
      before23.steps.find((step) => step.component === "containerd")?.toVersion,
      "2.2.0",
    );
    assert.ok(!result136.findings.some((finding) => finding.code === "RUNTIME_BELOW_RECOMMENDED"));
    assert.ok(
      !result136.findings.some((finding) => finding.severity === "ERROR"),
      JSON.stringify(result136.findings),
    );
  });

  it("moves a node's kubelet and kube-proxy together when the policy in force ties them (same minor before 1.27)", () => {
    const start = plan(
      "apiserver=1.24 kcm=1.24 kubelet@a=1.23 kube-proxy@a=1.23 containerd@a=1.6.9",
    );
    const result = planUpgrade(snapshot, start, "1.26");
    replay(snapshot, start, result);
    const together = result.steps.filter(
      (step) =>
        step.instance === "a" && (step.component === "kubelet" || step.component === "kube-proxy"),
    );
    const orders = new Set(together.map((step) => step.order));
    assert.equal(
      together.length,
      2 * orders.size,
      "every kubelet step of pool a has a kube-proxy step with the same order",
    );
  });

  it("keeps CRI-O on the kubelet's minor", () => {
    const start = plan("apiserver=1.29 kubelet@a=1.29 cri-o@a=1.29.3");
    const result = planUpgrade(snapshot, start, "1.30");
    replay(snapshot, start, result);
    const crio = result.steps.find((step) => step.component === "cri-o");
    const kubelet = result.steps.find((step) => step.component === "kubelet");
    assert.equal(crio?.toVersion, "1.30");
    assert.ok(crio && kubelet && crio.order < kubelet.order);
  });

  it("with the strict profile moves pools every minor", () => {
    const start = plan("apiserver=1.28 kubelet@a=1.28 kube-proxy@a=1.28");
    const result = planUpgrade(snapshot, start, "1.31", { profile: "strict" });
    replay(snapshot, start, result, "strict");
    const touches = result.steps
      .filter((step) => step.component === "kubelet")
      .map((step) => minor(step.toVersion));
    assert.deepEqual(touches, [minor("1.29"), minor("1.30"), minor("1.31")]);
  });

  it("refuses a target older than the control plane as an ERROR finding", () => {
    const result = planUpgrade(snapshot, plan("apiserver=1.30 kubelet=1.30"), "1.29");
    assert.equal(result.ok, false);
    assert.deepEqual(result.steps, []);
    assert.equal(result.findings[0]?.code, "DOWNGRADE_NOT_SUPPORTED");
  });

  it("says when there is nothing to do, and finishes lagging pools when the control plane is already there", () => {
    const done = planUpgrade(snapshot, plan("apiserver=1.30 kubelet=1.30"), "1.30");
    assert.equal(done.ok, true);
    assert.ok(done.findings.some((finding) => finding.code === "PLAN_NOTHING_TO_DO"));
    const lagging = plan("apiserver=1.30 kubelet@a=1.28 kube-proxy@a=1.28");
    const result = planUpgrade(snapshot, lagging, "1.30.5");
    replay(snapshot, lagging, result);
    assert.deepEqual(
      result.steps.map((step) => `${step.component} ${step.toVersion}`),
      ["kubelet 1.30.5", "kube-proxy 1.30.5"],
    );
  });

  it("blocks, without emitting an unsafe step, when Docker Engine has no cri-dockerd past 1.24", () => {
    const start = plan("apiserver=1.23 kubelet@a=1.23 docker@a=20.10.7");
    const result = planUpgrade(snapshot, start, "1.25");
    assert.equal(result.ok, false);
    replay(snapshot, start, result);
    const blocked = result.findings.find((finding) => finding.code === "PLAN_BLOCKED");
    assert.match(
      blocked?.message ?? "",
      /kubelet@a cannot move to 1\.25 with docker-engine@a.*cri-dockerd/,
    );
  });

  it("refuses to plan from a cluster that is already out of skew", () => {
    const result = planUpgrade(snapshot, plan("apiserver=1.30 kubelet=1.25"), "1.31");
    assert.equal(result.ok, false);
    assert.equal(result.findings[0]?.code, "PLAN_CURRENT_STATE_INVALID");
    assert.ok(
      result.findings.some((finding) => finding.code === "SKEW_KUBELET_TOO_OLD_FOR_APISERVER"),
    );
  });

  it("rejects a plan without kube-apiserver and a bad target as input errors", () => {
    assert.throws(
      () => planUpgrade(snapshot, plan("kubelet=1.29"), "1.30"),
      (error: unknown) => error instanceof InputError && error.field === "current.components",
    );
    assert.throws(
      () => planUpgrade(snapshot, plan("apiserver=1.29"), "newest"),
      (error: unknown) => error instanceof InputError && error.field === "targetVersion",
    );
  });
});
