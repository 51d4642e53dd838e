/**
 * One judgement for plans and validate, by generation (issue 33): over generated clusters (every input field:
 * HA control planes, controllers, pools with kubelet, kube-proxy, runtime, cgroup version, failCgroupV1 and
 * feature gates, etcd members, kubectl, add-ons, platform, profile, asOf, targets), every plan is replayed
 * step by step and every state it passes through is judged by validateCluster itself:
 *
 *  - an ERROR of any state the plan passes through is named by the plan (same code, component and instance);
 *    unless the plan is UNSUPPORTED, only the ones it goes through on purpose (a platform's calendar, an
 *    add-on between a hop and its own move);
 *  - every WARNING and ERROR of validate on the final state is in the plan with the same severity, so the
 *    plan's verdict is never better than validate's verdict on the state it ends in;
 *  - a plan's verdict is that of its findings.
 *
 * The generators are in test/support/cluster-generators.ts (fixed seed; KUBECOMPAT_PROPERTY_RUNS for more).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import fc from "fast-check";
import { InputError } from "../src/core/errors.js";
import type { ComponentVersionInput } from "../src/domain/cluster-plan.js";
import { verdictOf, type Finding, type Verdict } from "../src/domain/findings.js";
import { planUpgrade, type UpgradePlan } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import {
  clusterQuestion,
  platformOf,
  propertyRuns,
  PROPERTY_SEED,
  type ClusterQuestion,
} from "./support/cluster-generators.js";
import { kbSnapshot } from "./support/snapshot.js";

const RANK: Record<Verdict, number> = {
  SUPPORTED: 0,
  SUPPORTED_WITH_WARNINGS: 1,
  NOT_JUDGED: 2,
  UNSUPPORTED: 3,
};
/** Calendar findings are one per minor (the row is the rule), naming whichever components a state has at it. */
const CALENDAR = new Set([
  "PLATFORM_END_OF_SUPPORT",
  "PLATFORM_EXTENDED_SUPPORT",
  "PLATFORM_VERSION_UNKNOWN",
  "VERSION_NOT_YET_RELEASED",
  "RELEASE_END_OF_LIFE",
  "RELEASE_MAINTENANCE_MODE",
]);
const key = (finding: Pick<Finding, "code" | "component" | "instance" | "ruleId">): string =>
  CALENDAR.has(finding.code) && finding.ruleId !== null
    ? `${finding.code}|${finding.ruleId}`
    : `${finding.code}|${finding.component}|${finding.instance}`;

/** The cluster after each order of steps, as the input's components (what a person would send to validate). */
export function replay(
  snapshot: KbSnapshot,
  start: readonly ComponentVersionInput[],
  plan: UpgradePlan,
): ComponentVersionInput[][] {
  let state = start.map((entry) => ({
    ...entry,
    component:
      snapshot.findComponent(entry.component)?.name ??
      snapshot.addons.find((addon) => addon.name === entry.component)?.name ??
      entry.component,
  }));
  const states: ComponentVersionInput[][] = [];
  for (const order of [...new Set(plan.steps.map((step) => step.order))]) {
    for (const step of plan.steps.filter((candidate) => candidate.order === order)) {
      const index = state.findIndex(
        (entry) => entry.component === step.component && (entry.instance ?? null) === step.instance,
      );
      assert.ok(
        index >= 0,
        `step ${order} names ${step.component}@${step.instance}, which is not in the cluster`,
      );
      const entry = state[index]!;
      const moved: ComponentVersionInput =
        step.action === "MIGRATE_CGROUP_V2"
          ? { ...entry, cgroupVersion: "v2" }
          : step.action === "REMOVE_FEATURE_GATES"
            ? { ...entry, featureGates: step.featureGates ?? "" }
            : { ...entry, version: step.toVersion };
      state = state.map((candidate, position) => (position === index ? moved : candidate));
    }
    states.push(state);
  }
  return states;
}

interface Outcome {
  /** Every code validate gave on the generated clusters as they are: the rules the generators reach. */
  codes: Set<string>;
  wholeWayRuntimes: number;
  planned: number;
  refused: number;
  steps: number;
  blocked: number;
  cgroupSteps: number;
  gateSteps: number;
  etcdWaypoints: number;
}

function checkPlan(snapshot: KbSnapshot, question: ClusterQuestion, outcome: Outcome): void {
  try {
    for (const finding of validateCluster(snapshot, question.components, question).findings)
      outcome.codes.add(finding.code);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
  }
  let plan: UpgradePlan;
  try {
    plan = planUpgrade(snapshot, question.components, question.target, question);
  } catch (error) {
    if (error instanceof InputError) {
      outcome.refused += 1;
      return;
    }
    throw error;
  }
  outcome.planned += 1;
  outcome.steps += plan.steps.length;
  if (plan.findings.some((finding) => finding.code === "PLAN_BLOCKED")) outcome.blocked += 1;
  outcome.cgroupSteps += plan.steps.filter((step) => step.action === "MIGRATE_CGROUP_V2").length;
  outcome.gateSteps += plan.steps.filter((step) => step.action === "REMOVE_FEATURE_GATES").length;
  if (plan.steps.some((step) => step.component === "etcd" && step.note.includes("on the way to")))
    outcome.etcdWaypoints += 1;
  outcome.wholeWayRuntimes += plan.steps.filter((step) =>
    step.note.includes("moves its runtime once"),
  ).length;

  // The platform the plan judged on (named, or recognised from the input's vendor builds, which steps replace).
  const options = {
    profile: question.profile,
    asOf: question.asOf,
    platform: platformOf(snapshot, question),
  };
  const named = new Set(plan.findings.map(key));
  const states = replay(snapshot, question.components, plan);
  const asked = `plan ${JSON.stringify(question)}\nsteps ${plan.steps.map((step) => `${step.order}:${step.action}:${step.component}@${step.instance}:${step.fromVersion}->${step.toVersion}`).join(", ")}`;
  for (const [index, state] of states.entries()) {
    for (const error of validateCluster(snapshot, state, options).findings.filter(
      (finding) => finding.severity === "ERROR",
    )) {
      assert.ok(
        named.has(key(error)),
        `state after order ${index + 1} has ${error.code} (${error.message}), which the plan does not name\n${asked}`,
      );
      if (plan.status !== "UNSUPPORTED") {
        assert.ok(
          error.check === "PLATFORM" || error.check === "ADDON",
          `a ${plan.status} plan passes through ${error.code}: ${error.message}\n${asked}`,
        );
      }
    }
  }
  const final = states.at(-1) ?? question.components;
  const end = validateCluster(snapshot, final, options);
  for (const finding of end.findings.filter((entry) => entry.severity !== "INFO")) {
    assert.ok(
      plan.findings.some(
        (said) => key(said) === key(finding) && said.severity === finding.severity,
      ),
      `validate on the final state says ${finding.severity} ${finding.code} (${finding.message}); the plan does not\n${asked}`,
    );
  }
  assert.ok(
    RANK[plan.status] >= RANK[end.status],
    `the plan says ${plan.status}, validate on its final state ${end.status}\n${asked}`,
  );
  assert.equal(plan.status, verdictOf(plan.findings), asked);
}

describe("plans and validate judge alike (generated clusters)", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  it("every state a plan passes through, and its end, are judged as validate judges them", () => {
    const outcome: Outcome = {
      codes: new Set(),
      wholeWayRuntimes: 0,
      planned: 0,
      refused: 0,
      steps: 0,
      blocked: 0,
      cgroupSteps: 0,
      gateSteps: 0,
      etcdWaypoints: 0,
    };
    fc.assert(
      fc.property(clusterQuestion(snapshot), (question) => checkPlan(snapshot, question, outcome)),
      {
        seed: PROPERTY_SEED,
        numRuns: propertyRuns(250),
        endOnFailure: true,
        includeErrorInReport: true,
      },
    );
    // The generators must reach the rules, not only the parser, and the paths the issue is about.
    assert.ok(outcome.planned >= outcome.refused, JSON.stringify(outcome));
    assert.ok(outcome.steps > outcome.planned, JSON.stringify(outcome));
    assert.ok(
      outcome.blocked > 0 &&
        outcome.cgroupSteps > 0 &&
        outcome.gateSteps > 0 &&
        outcome.etcdWaypoints > 0 &&
        outcome.wholeWayRuntimes > 0,
      JSON.stringify({ ...outcome, codes: undefined }),
    );
    // Every rule issue 33 added or moved is reached by the generated clusters, so the properties above are asked of it.
    const rules = [
      ...[
        "ETCD_MEMBERS_SKEWED",
        "ETCD_UPGRADE_PATH",
        "ETCD_MIXED_VERSIONS",
        "ETCD_NO_FAULT_TOLERANCE",
        "ETCD_EVEN_MEMBERS",
        "RUNTIME_BELOW_RECOMMENDED",
        "RUNTIME_END_OF_LIFE",
      ],
      ...[
        "PLATFORM_EXTENDED_SUPPORT",
        "PLATFORM_END_OF_SUPPORT",
        "VERSION_NOT_YET_RELEASED",
        "VERSION_OLDER_THAN_KB",
        "RELEASE_END_OF_LIFE",
      ],
      ...[
        "CGROUP_V1_UNSUPPORTED",
        "CGROUP_V1_DEPRECATED",
        "FEATURE_GATE_REMOVED",
        "FEATURE_GATE_LOCKED",
        "FEATURE_GATE_NOT_YET",
      ],
    ];
    assert.deepEqual(
      rules.filter((code) => !outcome.codes.has(code)),
      [],
      "rules the generated clusters never reach",
    );
  });

  it("a typo in the target is refused as a typo in the components is", () => {
    fc.assert(
      fc.property(
        clusterQuestion(snapshot),
        fc.constantFrom("1.2", "1.3", " 1.3 ", "v1.3"),
        (question, typo) => {
          const meant = `1.${typo.trim().replace(/^v/, "").split(".")[1]}0`;
          const refusal = (call: () => unknown, field: RegExp): void =>
            assert.throws(
              call,
              (error: unknown) =>
                error instanceof InputError &&
                field.test(error.field ?? "") &&
                error.message.includes(`did you mean "${meant}"?`),
            );
          refusal(
            () => planUpgrade(snapshot, question.components, typo, question),
            /^targetVersion$/,
          );
          const broken = question.components.map((entry, index) =>
            index ===
            question.components.findIndex((candidate) => candidate.component === "kube-apiserver")
              ? { ...entry, version: typo }
              : entry,
          );
          refusal(
            () => validateCluster(snapshot, broken, question),
            /^components\[\d+\]\.version$/,
          );
          refusal(
            () => planUpgrade(snapshot, broken, question.target, question),
            /^current\.components\[\d+\]\.version$/,
          );
        },
      ),
      { seed: PROPERTY_SEED, numRuns: propertyRuns(40), includeErrorInReport: true },
    );
  });
});
