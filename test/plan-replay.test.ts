/**
 * Plans that end supported: every plan the suite asks for (the clusters of the plan, verdict, chat and
 * CLI tests, plus the EKS example) is replayed on two days, its steps applied to the cluster, and the
 * final state validated. It must have no ERROR, and every WARNING left must be one the plan could not
 * have avoided: the target release itself past its end of life or not released yet, or a runtime whose own table lists no
 * live release line for the target. Anything else (a runtime left below its table, a runtime left on a
 * dead line although a live one is listed, a kubelet left behind) fails with the plan and the warning.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lastSupportedDay } from "../src/domain/node-checks.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kbSnapshot, plan } from "./support/snapshot.js";

/** [cluster, target] as the suite's other tests plan them. */
const PLANS: ReadonlyArray<readonly [string, string]> = [
  [
    "apiserver=v1.29.6-eks-1234 kcm=v1.29.6-eks-1234 kubelet@ng-a=v1.27.9-eks-5678 kube-proxy@ng-a=v1.27.9-eks-5678 containerd@ng-a=1.6.20",
    "1.31",
  ],
  ["apiserver=1.25 kubelet@a=1.25 containerd@a=1.5.18", "1.26"],
  ["apiserver=1.27 kcm=1.27 kubelet=1.27", "1.28"],
  ["apiserver=1.29", "latest"],
  ["apiserver=1.30 kcm=1.30 kubelet@a=1.27 kubelet@b=1.30 kubectl=1.30", "1.31"],
  ["apiserver=1.30 kubelet=1.25", "1.31"],
  ["apiserver=1.30 kubelet=1.30", "1.30"],
  ["apiserver=1.36 kcm=1.36 kubelet=1.36 containerd=2.3.0", "1.37"],
  ["apiserver=1.37 kcm=1.37 kubelet=1.37", "1.38"],
  [
    "apiserver=1.28 kcm=1.28 scheduler=1.28 kubelet@pool-a=1.26 containerd@pool-a=1.6.8 kube-proxy@pool-a=1.26 kubelet@pool-b=1.28 containerd@pool-b=1.7.2",
    "1.32",
  ],
  ["apiserver=1.24 kcm=1.24 kubelet=1.24 containerd=1.5.9", "1.29"],
  ["apiserver=1.30 kcm=1.30 kubelet@a=1.30 crio@a=1.30.2", "1.33"],
  ["apiserver=1.31 kcm=1.31 etcd=3.5.9 kubelet=1.31 containerd=1.7.24", "1.35"],
  ["apiserver=1.33 kcm=1.33 kubelet=1.33 containerd=1.7.24", "oldest-supported"],
];

const DAYS = ["2024-10-01", "2026-12-01"] as const;

interface Entry {
  component: string;
  version: string;
  instance?: string;
}

function finalState(
  snapshot: KbSnapshot,
  cluster: readonly Entry[],
  steps: ReadonlyArray<{ component: string; instance: string | null; toVersion: string }>,
): Entry[] {
  return cluster.map((entry) => {
    const name = snapshot.findComponent(entry.component)?.name ?? entry.component;
    const last = [...steps]
      .reverse()
      .find((step) => step.component === name && step.instance === (entry.instance ?? null));
    return last === undefined ? entry : { ...entry, version: last.toVersion };
  });
}

/** Why a warning left in the final state could not have been avoided, or null when it could. */
function unavoidable(
  snapshot: KbSnapshot,
  code: string,
  component: string | null,
  targetMinor: string,
  asOf: string,
): string | null {
  const release = snapshot.releases.find((candidate) => candidate.version === targetMinor);
  const targetDead = release?.endOfLife != null && release.endOfLife < asOf;
  if ((code === "TARGET_END_OF_LIFE" || code === "RELEASE_END_OF_LIFE") && targetDead)
    return `the target ${targetMinor} is past its end of life on ${asOf}`;
  if (code === "KNOWLEDGE_EDGE" || code === "KNOWLEDGE_STALE")
    return "the knowledge base ends before the target (stale: the target is out but not loaded): no plan can judge past it";
  if (code === "VERSION_NOT_YET_RELEASED" && release !== undefined && release.releaseDate > asOf)
    return `the target ${targetMinor} was not released yet on ${asOf}`;
  if ((code === "RUNTIME_END_OF_LIFE" || code === "RUNTIME_SUPPORT_ENDING") && component !== null) {
    const endingFloor = snapshot.runtimeRequirements
      .filter(
        (row) =>
          row.component === component &&
          row.kind === "SUPPORT_ENDING" &&
          row.minVersion !== null &&
          Number(row.kubernetesFrom.split(".")[1]) <= Number(targetMinor.split(".")[1]),
      )
      .map((row) => Number(row.minVersion!.split(".")[0]));
    const target = Number(targetMinor.split(".")[1]);
    const rows = snapshot.runtimeRequirements.filter(
      (row) =>
        row.component === component &&
        row.kind === "RECOMMENDED_MIN_VERSION" &&
        Number(row.kubernetesFrom.split(".")[1]) <= target,
    );
    const row = rows.sort(
      (a, b) => Number(b.kubernetesFrom.split(".")[1]) - Number(a.kubernetesFrom.split(".")[1]),
    )[0];
    const listed =
      row === undefined
        ? []
        : row.lineMinVersions.length > 0
          ? row.lineMinVersions
          : row.minVersion === null
            ? []
            : [row.minVersion];
    const live = listed.filter((floor) => {
      const line = floor.split(".").slice(0, 2).join(".");
      if (endingFloor.some((major) => Number(line.split(".")[0]) < major)) return false;
      const known = snapshot.runtimeReleases.find(
        (candidate) => candidate.component === component && candidate.line === line,
      );
      const lastDay = known === undefined ? null : lastSupportedDay(known);
      return (
        (lastDay === null || asOf <= lastDay) &&
        (known?.releaseDate == null || known.releaseDate <= asOf)
      );
    });
    if (live.length === 0)
      return `${component}'s table lists no live line whose support is not ending for ${targetMinor} on ${asOf}`;
  }
  return null;
}

describe("every plan in the suite ends supported", () => {
  for (const [text, target] of PLANS) {
    for (const asOf of DAYS) {
      it(`${text} → ${target} on ${asOf}`, async () => {
        const snapshot = await kbSnapshot();
        const cluster = plan(text);
        const result = planUpgrade(snapshot, cluster, target, { asOf });
        // A refused plan has no final state: its refusal is tested where it is asked for.
        if (!result.ok) {
          assert.ok(
            result.findings.some((finding) => finding.severity === "ERROR"),
            "a refusal says why",
          );
          return;
        }
        const targetMinor = result.targetVersion;
        const final = finalState(snapshot, cluster, result.steps);
        const verdict = validateCluster(snapshot, final, { asOf });
        const errors = verdict.findings.filter((finding) => finding.severity === "ERROR");
        assert.deepEqual(
          errors.map((finding) => finding.message),
          [],
          `final state ${JSON.stringify(final)}`,
        );
        for (const warning of verdict.findings.filter(
          (finding) => finding.severity === "WARNING",
        )) {
          assert.ok(
            unavoidable(snapshot, warning.code, warning.component, targetMinor, asOf) !== null,
            `the plan could have avoided ${warning.code}: ${warning.message}\nfinal state ${JSON.stringify(final)}\nsteps ${result.steps.map((step) => `${step.component}${step.instance === null ? "" : `@${step.instance}`} ${step.fromVersion}→${step.toVersion}`).join(", ")}`,
          );
        }
        // The plan's own warnings are the final state's: it does not hide one the cluster will have.
        for (const code of new Set(
          verdict.findings
            .filter((finding) => finding.severity === "WARNING")
            .map((finding) => finding.code),
        )) {
          assert.ok(
            result.findings.some((finding) => finding.code === code),
            `the plan does not say ${code}, which its final state has`,
          );
        }
      });
    }
  }
});
