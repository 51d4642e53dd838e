/**
 * Knowledge current to 2026-12-04 (issue 34), as answers show it:
 * - a gate removed in 1.36 or 1.37 set in a component's --feature-gates is an ERROR at that minor
 *   (every removal the knowledge base has, generated from it, and the ones the issue names);
 * - 1.37 has its end of life; 1.38 is scheduled, and a plan or scan to it is answered with a
 *   KNOWLEDGE_EDGE that says its facts are pre-release and from when;
 * - removed APIs name their successor in scans, and say when the cluster's version does not serve it yet;
 * - AKS ends are the month's last day; EKS facts that contradict upstream say so;
 * - coverage claims say whether they were read before or after the release, and kb:check holds them to it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { scanManifests } from "../src/domain/scan.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { crossCheckBundle } from "../src/knowledge/validate.js";
import { kbSnapshot } from "./support/snapshot.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

const AS_OF = "2026-12-04";

describe("knowledge current to 2026-12-04", () => {
  let snapshot: KbSnapshot;
  let runtime: SnapshotRuntime;
  before(async () => {
    snapshot = await kbSnapshot();
    runtime = await startSnapshotRuntime();
  });
  after(async () => runtime.close());

  it("every gate removed in 1.36 or 1.37 stops the component that sets it at that minor (ERROR), and was live the minor before", () => {
    const removed = snapshot.featureGates.filter(
      (gate) => gate.removedIn === "1.36" || gate.removedIn === "1.37",
    );
    const named = [
      "HonorPVReclaimPolicy",
      "AnyVolumeDataSource",
      "RelaxedDNSSearchValidation",
      "RetryGenerateName",
      "BtreeWatchCache",
      "OrderedNamespaceDeletion",
      "StreamingCollectionEncodingToJSON",
      "StreamingCollectionEncodingToProtobuf",
      "APIServerTracing",
      "ResilientWatchCacheInitialization",
      "ConsistentListFromCache",
    ];
    for (const name of named)
      assert.ok(
        removed.some((gate) => gate.name === name),
        `${name} is removed in 1.36 or 1.37`,
      );
    assert.equal(
      snapshot.featureGates.find((gate) => gate.name === "HonorPVReclaimPolicy")?.removedIn,
      "1.36",
    );
    for (const gate of removed) {
      const minor = gate.removedIn!;
      const last = gate.stages.at(-1)!;
      const before = `1.${Number(minor.split(".")[1]) - 1}`;
      const components = (version: string) => [
        {
          component: "kube-apiserver",
          version: `${version}.1`,
          featureGates: `${gate.name}=${last.defaultValue}`,
        },
      ];
      const at = validateCluster(snapshot, components(minor), { asOf: AS_OF }).findings.filter(
        (finding) => finding.code === "FEATURE_GATE_REMOVED",
      );
      assert.equal(at.length, 1, `${gate.name} at ${minor}`);
      assert.equal(at[0]!.severity, "ERROR");
      assert.match(at[0]!.message, new RegExp(gate.name));
      const earlier = validateCluster(snapshot, components(before), {
        asOf: AS_OF,
      }).findings.filter((finding) => finding.code === "FEATURE_GATE_REMOVED");
      assert.deepEqual(earlier, [], `${gate.name} still exists at ${before}`);
    }
  });

  it("a plan to 1.37 drops a gate 1.37 removed before the hop, and a node pool at 1.37 with it is refused", () => {
    const cluster = [
      { component: "kube-apiserver", version: "1.36.4", featureGates: "RetryGenerateName=true" },
      { component: "kubelet", instance: "a", version: "1.36.4" },
    ];
    const plan = planUpgrade(snapshot, cluster, "1.37", { asOf: AS_OF });
    const drop = plan.steps.find(
      (step) => step.action === "REMOVE_FEATURE_GATES" && step.component === "kube-apiserver",
    );
    assert.ok(drop, JSON.stringify(plan.steps));
    const hop = plan.steps.find(
      (step) => step.component === "kube-apiserver" && step.toVersion.startsWith("1.37"),
    );
    assert.ok(hop !== undefined && drop.order < hop.order, "the gate goes before the hop");
    const after = validateCluster(
      snapshot,
      [
        { ...cluster[0]!, version: "1.37.1" },
        { ...cluster[1]!, version: "1.37.1" },
      ],
      { asOf: AS_OF },
    );
    assert.ok(
      after.findings.some(
        (finding) => finding.code === "FEATURE_GATE_REMOVED" && finding.severity === "ERROR",
      ),
    );
  });

  it("1.37's release status has its end of life; 1.38 is scheduled and not yet released", async () => {
    const release = await request(runtime.app)
      .get("/api/v1/releases/1.37")
      .query({ asOf: "2027-11-01" })
      .expect(200);
    assert.equal(release.body.endOfStandardSupport, "2027-08-28");
    assert.equal(release.body.endOfLife, "2027-10-28");
    assert.equal(release.body.support.status, "END_OF_LIFE");
    const next = await request(runtime.app)
      .get("/api/v1/releases/1.38")
      .query({ asOf: AS_OF })
      .expect(200);
    assert.equal(next.body.releaseDate, "2026-12-16");
    assert.equal(next.body.support.status, "NOT_YET_RELEASED");
  });

  it("a plan and a scan to 1.38 are answered, with a KNOWLEDGE_EDGE saying the facts are pre-release and from when", () => {
    const plan = planUpgrade(
      snapshot,
      [
        { component: "kube-apiserver", version: "1.37.1" },
        { component: "kubelet", instance: "a", version: "1.37.1" },
      ],
      "1.38",
      { asOf: AS_OF },
    );
    assert.ok(
      plan.steps.some(
        (step) => step.component === "kube-apiserver" && step.toVersion.startsWith("1.38"),
      ),
      JSON.stringify(plan.steps),
    );
    const edges = plan.findings.filter(
      (finding) =>
        finding.code === "KNOWLEDGE_EDGE" && /pre-release material/.test(finding.message),
    );
    assert.ok(
      edges.length > 0,
      plan.findings.map((finding) => `${finding.code}: ${finding.message}`).join("\n"),
    );
    const gates = snapshot.coverage.find(
      (claim) => claim.knowledge === "featureGates" && claim.throughMinor === "1.38",
    );
    assert.equal(gates?.stage, "PRERELEASE");
    assert.ok(
      edges.some(
        (edge) =>
          edge.message.includes(gates.sourceRevision!.slice(0, 20)) &&
          edge.message.includes("2026-12-16"),
      ),
      edges.map((edge) => edge.message).join("\n"),
    );
    const scan = scanManifests(
      snapshot,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
      "1.38",
      // Before 1.38's release day (2026-12-16): from then on the same scan is KNOWLEDGE_STALE.
      { asOf: AS_OF },
    );
    const scanEdge = scan.notes.find((note) => note.code === "KNOWLEDGE_EDGE");
    assert.match(
      scanEdge?.message ?? "",
      /only from pre-release material \(kubernetes\/api lifecycle markers at master/,
    );
  });

  it("removed APIs name their successor in scans, and say when the running version does not serve it yet", () => {
    const withSuccessor = snapshot.apiRemovals.filter((removal) => removal.replacement !== null);
    const empty = snapshot.apiRemovals.filter((removal) => removal.replacement === null);
    assert.ok(
      empty.length <= 8,
      `${empty.length} removals without a successor: ${empty.map((removal) => `${removal.apiVersion} ${removal.kind}`).join(", ")}`,
    );
    const vap = withSuccessor.find(
      (removal) =>
        removal.apiVersion === "admissionregistration.k8s.io/v1beta1" &&
        removal.kind === "ValidatingAdmissionPolicy",
    );
    assert.ok(
      vap?.replacementAvailableIn,
      "ValidatingAdmissionPolicy v1beta1 has a successor with its first minor",
    );
    const manifest = `apiVersion: ${vap.apiVersion}\nkind: ${vap.kind}\nmetadata:\n  name: demo\n`;
    const onTime = scanManifests(snapshot, manifest, vap.removedIn, {
      fromVersion: vap.replacementAvailableIn,
    });
    assert.equal(onTime.findings[0]?.replacement, vap.replacement);
    const early = `1.${Number(vap.replacementAvailableIn.split(".")[1]) - 1}`;
    const tooEarly = scanManifests(snapshot, manifest, vap.removedIn, { fromVersion: early });
    assert.match(
      tooEarly.findings[0]?.message ?? "",
      new RegExp(
        `its replacement ${vap.replacement!.replace(/\./g, "\\.")} is not served at ${early.replace(".", "\\.")}: migrate to it once the cluster runs ${vap.replacementAvailableIn.replace(".", "\\.")}`,
      ),
    );
  });

  it("AKS ends are the month's last day, and answers say how the month was read", () => {
    const aks = snapshot.platforms.find((platform) => platform.name === "aks")!;
    assert.equal(
      aks.releases.find((row) => row.minor === "1.34")?.endOfStandardSupport,
      "2026-11-30",
    );
    assert.equal(
      aks.releases.find((row) => row.minor === "1.35")?.endOfStandardSupport,
      "2027-03-31",
    );
    const answer = validateCluster(snapshot, [{ component: "kube-apiserver", version: "1.34.3" }], {
      asOf: AS_OF,
      platform: "aks",
    });
    const extended = answer.findings.find(
      (finding) =>
        finding.code === "PLATFORM_EXTENDED_SUPPORT" || finding.code === "PLATFORM_END_OF_SUPPORT",
    );
    assert.match(
      extended?.message ?? "",
      /2026-11-30 \(the platform gives the month only and means its last day\)/,
    );
  });

  it("EKS facts that contradict upstream carry the disagreement into plans", () => {
    const eks = snapshot.platforms.find((platform) => platform.name === "eks")!;
    const disputed = eks.facts.filter((fact) => fact.disagreement !== null);
    assert.deepEqual(disputed.map((fact) => fact.id).sort(), [
      "eks-1.35-last-containerd-1x",
      "eks-1.36-ipvs-removal-announced",
    ]);
    const plan = planUpgrade(
      snapshot,
      [
        { component: "kube-apiserver", version: "v1.35.2-eks-1a2b3c4" },
        { component: "kubelet", instance: "ng", version: "v1.35.2-eks-1a2b3c4" },
      ],
      "1.36",
      { asOf: AS_OF },
    );
    for (const fact of disputed) {
      const told = plan.findings.find((finding) => finding.ruleId === fact.id);
      assert.ok(told, fact.id);
      assert.match(
        told.message,
        /On Amazon EKS this statement applies; upstream Kubernetes differs: /,
      );
      assert.ok(told.message.includes(fact.disagreement!));
    }
  });

  it("EKS's own containerd rule applies on EKS (an ERROR at 1.36), upstream's elsewhere (a WARNING until 1.38)", () => {
    const rule = snapshot.runtimeRequirements.find(
      (requirement) => requirement.platform === "eks" && requirement.component === "containerd",
    );
    assert.ok(
      rule?.minVersion && rule.disagreement,
      "kb/runtime-requirements.yaml has EKS's containerd rule with its disagreement",
    );
    const cluster = (version: string) => [
      { component: "kube-apiserver", version },
      { component: "kubelet", instance: "ng", version },
      { component: "containerd", instance: "ng", version: "1.7.28" },
    ];
    const at = `${rule.kubernetesFrom}.1`;
    const onEks = validateCluster(snapshot, cluster(at), {
      asOf: AS_OF,
      platform: "eks",
    }).findings.filter(
      (finding) => finding.component === "containerd" && finding.severity === "ERROR",
    );
    assert.deepEqual(
      onEks.map((finding) => finding.ruleId),
      [rule.id],
    );
    assert.match(onEks[0]!.message, /on EKS \(the platform's own rule: /);
    for (const platform of ["upstream", "aks", "gke"]) {
      const elsewhere = validateCluster(snapshot, cluster(at), {
        asOf: AS_OF,
        platform,
      }).findings.filter((finding) => finding.component === "containerd");
      assert.ok(
        !elsewhere.some((finding) => finding.severity === "ERROR"),
        `${platform}: ${elsewhere.map((finding) => finding.code).join(", ")}`,
      );
      assert.ok(
        elsewhere.some((finding) => finding.code === "RUNTIME_SUPPORT_ENDING"),
        platform,
      );
    }
    // Below the rule's minor EKS has no such rule.
    const before = `1.${Number(rule.kubernetesFrom.split(".")[1]) - 1}.1`;
    assert.ok(
      !validateCluster(snapshot, cluster(before), { asOf: AS_OF, platform: "eks" }).findings.some(
        (finding) => finding.ruleId === rule.id,
      ),
    );
  });

  it("kb:check holds coverage claims to when their source was read", () => {
    const claim = (
      stage: "RELEASED" | "PRERELEASE",
      throughMinor: string,
      sourceDate: string | null,
    ) => ({
      knowledge: "featureGates",
      throughMinor,
      stage,
      source: `probe ${stage} ${throughMinor}`,
      sourceRevision: null,
      sourceDate,
      sourceUrl: "https://example.org/probe",
      notes: null,
      minorCadenceMonths: null,
    });
    const issues = (extra: ReturnType<typeof claim>) =>
      crossCheckBundle({ ...snapshot, coverage: [...snapshot.coverage, extra] }).filter(
        (issue) => issue.field === "stage",
      );
    const release37 = snapshot.findRelease("1.37")!.releaseDate;
    assert.match(
      issues(claim("PRERELEASE", "1.37", release37))[0]?.message ?? "",
      /on or after its release .*mark it RELEASED/,
    );
    assert.match(
      issues(claim("RELEASED", "1.37", "2026-08-01"))[0]?.message ?? "",
      /before 1\.37's release .*mark it PRERELEASE/,
    );
    assert.deepEqual(issues(claim("PRERELEASE", "1.38", "2026-09-09")), []);
    assert.deepEqual(crossCheckBundle(snapshot), []);
  });
});
