/**
 * Platform rollbacks (issue 34, item 8): EKS takes a control plane back one minor within its window
 * (kb/rollback-policies.yaml), upstream and AKS take none. checkRollback on a platform says whether,
 * until when, and what still blocks it; plans name, for every control-plane hop, the last point it can
 * be undone. Asked in the domain and over REST and GraphQL alike (one judgement).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { checkRollback } from "../src/domain/rollback.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { InputError } from "../src/core/errors.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kbSnapshot } from "./support/snapshot.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

const AS_OF = "2026-12-04";
const EKS_135 = [
  { component: "kube-apiserver", version: "v1.35.2-eks-3a1b2c4" },
  { component: "kube-controller-manager", version: "v1.35.2-eks-3a1b2c4" },
  { component: "kube-scheduler", version: "v1.35.2-eks-3a1b2c4" },
  { component: "kubelet", instance: "ng-1", version: "v1.34.3-eks-3a1b2c4" },
];

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

describe("platform rollbacks", () => {
  let snapshot: KbSnapshot;
  let runtime: SnapshotRuntime;
  let windowDays: number;
  before(async () => {
    snapshot = await kbSnapshot();
    runtime = await startSnapshotRuntime();
    const policy = snapshot.rollbackPolicies.find(
      (candidate) =>
        candidate.platform === "eks" && candidate.minorDowngrade === "PLATFORM_ROLLBACK",
    );
    assert.ok(policy, "kb/rollback-policies.yaml has EKS's control-plane rollback");
    windowDays = policy.windowDays!;
  });
  after(async () => runtime.close());

  const rollback = (extra: Record<string, unknown>, current: unknown[] = EKS_135) =>
    checkRollback(snapshot, {
      current,
      component: "kube-apiserver",
      toVersion: "1.34.3",
      asOf: AS_OF,
      ...extra,
    });
  const codes = (result: { findings: readonly { code: string; severity: string }[] }) =>
    result.findings.map((finding) => `${finding.severity} ${finding.code}`);

  it("within EKS's window: the platform takes the whole control plane back, until the day the window closes", () => {
    const upgradedOn = addDays(AS_OF, -2);
    const result = rollback({ upgradedOn });
    const available = result.findings.find(
      (finding) => finding.code === "PLATFORM_ROLLBACK_AVAILABLE",
    );
    assert.ok(available, codes(result).join(", "));
    assert.match(available.message, new RegExp(`until ${addDays(upgradedOn, windowDays)}`));
    assert.match(
      available.message,
      /Amazon EKS can take the control plane back from 1\.35 to 1\.34/,
    );
    // The controllers go back with kube-apiserver: no skew error between them.
    assert.deepEqual(
      result.findings
        .filter((finding) => finding.severity === "ERROR")
        .map((finding) => finding.code),
      [],
    );
    assert.equal(result.ok, true);
  });

  it("the last day of the window is still open; the day after is closed", () => {
    const lastDay = rollback({ upgradedOn: addDays(AS_OF, -windowDays) });
    assert.ok(
      codes(lastDay).includes("INFO PLATFORM_ROLLBACK_AVAILABLE"),
      codes(lastDay).join(", "),
    );
    const closed = rollback({ upgradedOn: addDays(AS_OF, -windowDays - 1) });
    assert.equal(closed.ok, false);
    const finding = closed.findings.find(
      (candidate) => candidate.code === "ROLLBACK_WINDOW_CLOSED",
    );
    assert.ok(finding, codes(closed).join(", "));
    assert.equal(finding.severity, "ERROR");
    assert.match(finding.message, new RegExp(`only until ${addDays(AS_OF, -1)}`));
  });

  it("without the day of the upgrade the window is said not judged, never passed", () => {
    const result = rollback({});
    assert.ok(codes(result).includes("WARNING ROLLBACK_WINDOW_UNKNOWN"), codes(result).join(", "));
    assert.equal(result.status, "SUPPORTED_WITH_WARNINGS");
  });

  it("EKS goes back one minor only; AKS and upstream take no control plane back", () => {
    const twoBack = checkRollback(snapshot, {
      current: EKS_135,
      component: "kube-apiserver",
      toVersion: "1.33.5",
      asOf: AS_OF,
      upgradedOn: AS_OF,
    });
    const refused = twoBack.findings.find(
      (finding) => finding.code === "ROLLBACK_CONTROL_PLANE_UNSUPPORTED",
    );
    assert.ok(refused, codes(twoBack).join(", "));
    assert.match(refused.message, /one minor only/);
    const plain = [
      { component: "kube-apiserver", version: "1.35.2" },
      { component: "kubelet", instance: "pool", version: "1.34.3" },
    ];
    for (const platform of ["aks", "upstream"]) {
      const result = checkRollback(snapshot, {
        current: plain,
        component: "kube-apiserver",
        toVersion: "1.34.3",
        asOf: AS_OF,
        platform,
        upgradedOn: AS_OF,
      });
      assert.ok(
        codes(result).includes("ERROR ROLLBACK_CONTROL_PLANE_UNSUPPORTED"),
        `${platform}: ${codes(result).join(", ")}`,
      );
      assert.ok(
        !codes(result).some((code) => code.endsWith("PLATFORM_ROLLBACK_AVAILABLE")),
        platform,
      );
    }
  });

  it("GKE from 1.33: a two-step upgrade's soak may take it back, a window set per upgrade and so not judged; before 1.33 GKE takes none", () => {
    const policy = snapshot.rollbackPolicies.find((candidate) => candidate.platform === "gke")!;
    assert.equal(policy.windowDays, null);
    const gke = (version: string) => [
      { component: "kube-apiserver", version: `v${version}-gke.1200` },
      {
        component: "kubelet",
        instance: "pool",
        version: `v${version.replace(/^1\.(\d+)/, (_, minor: string) => `1.${Number(minor) - 1}`)}-gke.1200`,
      },
    ];
    // fromMinor: the first minor a control plane can be taken back from (1.34: two-step upgrades start on 1.33).
    const from = policy.fromMinor!;
    const minor = (offset: number) => `1.${Number(from.split(".")[1]) + offset}`;
    const soak = checkRollback(snapshot, {
      current: gke(`${from}.3`),
      component: "kube-apiserver",
      toVersion: `${minor(-1)}.5`,
      asOf: AS_OF,
      upgradedOn: AS_OF,
    });
    const unknown = soak.findings.find((finding) => finding.code === "ROLLBACK_WINDOW_UNKNOWN");
    assert.ok(unknown, codes(soak).join(", "));
    assert.match(
      unknown.message,
      /Google Kubernetes Engine can take the control plane back .* only within a window it sets for each upgrade/,
    );
    assert.match(unknown.message, /controlPlaneUpgradeRollbackEndTime/);
    assert.ok(
      !codes(soak).some(
        (code) =>
          code.endsWith("PLATFORM_ROLLBACK_AVAILABLE") || code.endsWith("ROLLBACK_WINDOW_CLOSED"),
      ),
    );
    const older = checkRollback(snapshot, {
      current: gke(`${minor(-1)}.3`),
      component: "kube-apiserver",
      toVersion: `${minor(-2)}.5`,
      asOf: AS_OF,
    });
    assert.ok(
      codes(older).includes("ERROR ROLLBACK_CONTROL_PLANE_UNSUPPORTED"),
      codes(older).join(", "),
    );
    const plan = planUpgrade(
      snapshot,
      gke(`${minor(-1)}.3`).map((entry) =>
        entry.component === "kubelet" ? { ...entry, version: `v${minor(-1)}.3-gke.1200` } : entry,
      ),
      from,
      { asOf: AS_OF },
    );
    const hop = plan.steps.find((step) => step.component === "kube-apiserver");
    assert.match(
      hop?.undo ?? "",
      new RegExp(
        `Google Kubernetes Engine can take this hop back to ${minor(-1).replace(".", "\\.")} only within the window it sets for the upgrade`,
      ),
    );
  });

  it("nodes newer than the older control plane block it (EKS rolls nodes back first)", () => {
    const current = EKS_135.map((entry) =>
      entry.component === "kubelet" ? { ...entry, version: "v1.35.2-eks-3a1b2c4" } : entry,
    );
    const result = rollback({ upgradedOn: AS_OF }, current);
    assert.equal(result.ok, false);
    assert.ok(
      result.findings.some(
        (finding) =>
          finding.severity === "ERROR" && finding.check === "SKEW" && finding.instance === "ng-1",
      ),
      codes(result).join(", "),
    );
  });

  it("names the kinds first served at the newer minor (objects stored in them are not served after going back)", () => {
    const first = snapshot.apiRemovals.filter((api) => api.introducedIn === "1.35");
    const result = rollback({ upgradedOn: AS_OF });
    const stored = result.findings.find((finding) => finding.code === "ROLLBACK_STORED_VERSIONS");
    if (first.length === 0) {
      assert.equal(stored, undefined);
      return;
    }
    assert.ok(stored, codes(result).join(", "));
    for (const api of first)
      assert.ok(stored.message.includes(`${api.kind} ${api.apiVersion}`), api.kind);
  });

  it("refuses an upgrade day after the day judged, naming the field", () => {
    assert.throws(
      () => rollback({ upgradedOn: addDays(AS_OF, 1) }),
      (error: unknown) =>
        error instanceof InputError &&
        error.field === "upgradedOn" &&
        /after the day judged/.test(error.message),
    );
    assert.throws(
      () => rollback({ upgradedOn: "last week" }),
      (error: unknown) => error instanceof InputError && error.field === "upgradedOn",
    );
  });

  it("REST and GraphQL give the same answer as the domain", async () => {
    const upgradedOn = addDays(AS_OF, -3);
    const expected = rollback({ upgradedOn });
    const rest = await request(runtime.app)
      .post("/api/v1/rollback-check")
      .send({
        current: { components: EKS_135 },
        component: "kube-apiserver",
        toVersion: "1.34.3",
        asOf: AS_OF,
        upgradedOn,
      })
      .expect(200);
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query: `query($current: ClusterPlanInput!, $upgradedOn: String) { checkRollback(current: $current, component: "kube-apiserver", toVersion: "1.34.3", asOf: "${AS_OF}", upgradedOn: $upgradedOn) { ok status findings { code severity message } } }`,
        variables: { current: { components: EKS_135 }, upgradedOn },
      })
      .expect(200);
    const shape = (findings: readonly { code: string; severity: string; message: string }[]) =>
      findings.map(({ code, severity, message }) => ({ code, severity, message }));
    assert.deepEqual(shape(rest.body.findings), shape(expected.findings));
    assert.deepEqual(shape(graphql.body.data.checkRollback.findings), shape(expected.findings));
    const bad = await request(runtime.app)
      .post("/api/v1/rollback-check")
      .send({
        current: { components: EKS_135 },
        component: "kube-apiserver",
        toVersion: "1.34.3",
        asOf: AS_OF,
        upgradedOn: addDays(AS_OF, 2),
      })
      .expect(400);
    assert.match(JSON.stringify(bad.body), /upgradedOn/);
  });

  it("plans name the last point each control-plane hop can be undone, on EKS and upstream", () => {
    const onEks = planUpgrade(
      snapshot,
      EKS_135.map((entry) => ({
        ...entry,
        version: entry.version.replace("1.35.2", "1.33.5").replace("1.34.3", "1.33.5"),
      })),
      "1.35",
      { asOf: AS_OF },
    );
    const hops = onEks.steps.filter((step) => step.component === "kube-apiserver");
    assert.equal(hops.length, 2, JSON.stringify(onEks.steps));
    for (const hop of hops)
      assert.match(
        hop.undo ?? "",
        new RegExp(`Amazon EKS can take this hop back to 1\\.3[34] within ${windowDays} days`),
      );
    assert.ok(
      onEks.steps
        .filter((step) => step.component !== "kube-apiserver")
        .every((step) => step.undo === null),
    );
    const upstream = planUpgrade(
      snapshot,
      [
        { component: "kube-apiserver", version: "1.33.5" },
        { component: "kubelet", instance: "a", version: "1.33.5" },
      ],
      "1.34",
      { asOf: AS_OF },
    );
    const hop = upstream.steps.find((step) => step.component === "kube-apiserver");
    assert.match(
      hop?.undo ?? "",
      /no control-plane minor downgrade: the last point to stay on 1\.33 is before this step; after it, only restoring the etcd backup/,
    );
  });
});
