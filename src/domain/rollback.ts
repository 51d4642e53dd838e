/**
 * checkRollback: can this component go back to an older version, with the
 * rest of the cluster as it is now? It must be a downgrade the component
 * supports, and the cluster afterwards must still validate. The classic trap
 * (design notes, node-pool chapter 2.4): a node pool rolled back from 1.29
 * to 1.28 after the control plane has meanwhile reached a version the old
 * kubelet may not run under.
 */
import { InputError } from "../core/errors.js";
import type { ComponentRecord, RollbackPolicyRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { resolveComponent, resolveProfile } from "./catalog.js";
import {
  label,
  parseClusterPlan,
  readPlannedComponent,
  withFactsOf,
  type ClusterPlan,
  type PlannedComponent,
} from "./cluster-plan.js";
import { finding, report, type Finding, type ValidationReport } from "./findings.js";
import { platformRollback } from "./platform-rollback.js";
import { controlPlaneMinor, judgePlan, onPlatform, parseAsOf } from "./validate.js";
import {
  compareComponentVersions,
  compareVersions,
  minorIndex,
  minorOf,
} from "../core/versions.js";

export interface RollbackRequest {
  readonly current: unknown;
  readonly component: string;
  readonly instance?: string | null | undefined;
  readonly toVersion: string;
  readonly profile?: string | null | undefined;
  /** The day the rollback is judged on (YYYY-MM-DD); today when absent. */
  readonly asOf?: string | null | undefined;
  /** The managed platform (eks, gke, aks); recognised from the versions when not given. */
  readonly platform?: string | null | undefined;
  /** The day the control plane reached its current minor (YYYY-MM-DD): a platform's rollback window counts from it. */
  readonly upgradedOn?: string | null | undefined;
}

/** The finding of a rollback beyond what its policy allows: the code says which kind of policy it is. */
function rollbackFinding(
  policy: RollbackPolicyRecord,
  who: string,
  entry: PlannedComponent,
  toVersion: string,
  minorsBack: number,
): Finding {
  const base = {
    component: entry.component,
    instance: entry.instance,
    sourceUrl: policy.sourceUrl,
    ruleId: policy.id,
  };
  switch (policy.minorDowngrade) {
    case "UNSUPPORTED":
    case "PLATFORM_ROLLBACK":
      return finding({
        ...base,
        code: "ROLLBACK_CONTROL_PLANE_UNSUPPORTED",
        severity: "ERROR",
        message: `${who} cannot go back from ${entry.version} to ${toVersion}: ${policy.summary}`,
      });
    case "REPLACE_NODES":
      return finding({
        ...base,
        code: "ROLLBACK_MULTIPLE_MINORS",
        severity: "WARNING",
        message: `${who} would go back ${minorsBack} minors (${entry.version} to ${toVersion}): ${policy.summary}`,
      });
    case "OWN_PROCEDURE":
      return finding({
        ...base,
        code: "ROLLBACK_UNSUPPORTED_ETCD_MINOR",
        severity: "WARNING",
        message: `${who} ${entry.version} to ${toVersion} crosses a minor: ${policy.summary}`,
      });
  }
}

export function checkRollback(snapshot: KbSnapshot, request: RollbackRequest): ValidationReport {
  const asOf = parseAsOf(request.asOf);
  const plan = onPlatform(
    snapshot,
    parseClusterPlan(snapshot, request.current, "current.components", asOf),
    request.platform,
  );
  const profile = resolveProfile(snapshot, request.profile ?? undefined);
  const component = resolveComponent(snapshot, request.component, "component");
  const entry = entryToRollBack(plan, component, request.instance);
  // Going back changes the version, not the nodes or the gates the component is started with.
  const rolledBack = withFactsOf(
    readPlannedComponent(snapshot, component, entry.instance, request.toVersion, "toVersion", asOf),
    entry,
  );
  const rollback: Rollback = { plan, entry, rolledBack, asOf, who: label(entry) };
  const notDowngrade = notADowngrade(rollback);
  if (notDowngrade !== null) return report(snapshot.revision, [notDowngrade]);
  const { findings, after } = rollbackByPolicy(snapshot, component, rollback, request.upgradedOn);
  findings.push(...clusterAfterRollback(snapshot, rollback, after, profile));
  return report(snapshot.revision, findings);
}

/** One rollback being judged: the cluster as it runs, the entry going back, and that entry afterwards. */
interface Rollback {
  readonly plan: ClusterPlan;
  readonly entry: PlannedComponent;
  readonly rolledBack: PlannedComponent;
  readonly asOf: string;
  /** The entry as findings name it. */
  readonly who: string;
}

/** The running entry to roll back: the component's only one, or the instance the request names. */
function entryToRollBack(
  plan: ClusterPlan,
  component: ComponentRecord,
  requestedInstance: string | null | undefined,
): PlannedComponent {
  const candidates = plan.entries.filter((entry) => entry.component === component.name);
  if (candidates.length === 0) {
    throw new InputError(
      `current.components has no ${component.name} to roll back; add it with its running version`,
      "component",
    );
  }
  const instance = requestedInstance?.trim() || null;
  let entry = candidates.find((candidate) => candidate.instance === instance);
  if (entry === undefined && instance === null && candidates.length === 1) entry = candidates[0];
  if (entry === undefined) {
    const known = candidates.map((candidate) => candidate.instance ?? "(none)").join(", ");
    throw new InputError(
      instance === null
        ? `${component.name} runs as several instances (${known}); say which one to roll back with instance`
        : `current.components has no ${component.name} with instance "${instance}"; its instances are ${known}`,
      "instance",
    );
  }
  return entry;
}

/** The finding when the version to go to is the running one or newer: then nothing else is judged. */
function notADowngrade({ entry, rolledBack, who }: Rollback): Finding | null {
  const comparison =
    entry.kubernetes !== null
      ? compareVersions(rolledBack.kubernetes!, entry.kubernetes)
      : compareComponentVersions(rolledBack.release!, entry.release!);
  if (comparison < 0) return null;
  return finding({
    code: "ROLLBACK_NOT_A_DOWNGRADE",
    severity: comparison === 0 ? "INFO" : "ERROR",
    component: entry.component,
    instance: entry.instance,
    message:
      comparison === 0
        ? `${who} already runs ${entry.version}; there is nothing to roll back`
        : `${rolledBack.version} is newer than the running ${who} ${entry.version}; a rollback goes to an older version (plan an upgrade instead)`,
  });
}

/**
 * What the component's rollback policy says of going this far back, and the cluster afterwards (a platform that
 * takes the control plane back may take more with it).
 */
function rollbackByPolicy(
  snapshot: KbSnapshot,
  component: ComponentRecord,
  { plan, entry, rolledBack, asOf, who }: Rollback,
  upgradedOn: string | null | undefined,
): { findings: Finding[]; after: ClusterPlan } {
  const findings: Finding[] = [];
  // What going back means for this kind of component (on its platform, the platform's own): kb/rollback-policies.yaml.
  const policy = snapshot.rollbackPolicy(
    component,
    plan.platform?.name ?? null,
    entry.kubernetes === null ? null : minorOf(entry.kubernetes),
  );
  const minorsBack =
    entry.kubernetes !== null && rolledBack.kubernetes !== null
      ? minorIndex(entry.kubernetes) - minorIndex(rolledBack.kubernetes)
      : entry.release !== null && rolledBack.release !== null
        ? (entry.release.major - rolledBack.release.major) * 1000 +
          (entry.release.minor - rolledBack.release.minor)
        : 0;
  let after: ClusterPlan = {
    ...plan,
    entries: plan.entries.map((candidate) => (candidate === entry ? rolledBack : candidate)),
  };
  if (
    policy?.minorDowngrade === "PLATFORM_ROLLBACK" &&
    plan.platform !== undefined &&
    minorsBack > 0
  ) {
    const taken = platformRollback(
      snapshot,
      policy,
      plan.platform,
      plan,
      entry,
      rolledBack,
      asOf,
      upgradedOn,
    );
    findings.push(...taken.findings);
    after = taken.after;
  } else if (policy !== undefined && minorsBack > policy.maxMinorsBack) {
    findings.push(rollbackFinding(policy, who, entry, rolledBack.version, minorsBack));
  }
  return { findings, after };
}

/**
 * The cluster after the rollback, validated: the classic trap (the rolled-back entry out of skew with a control
 * plane that has moved on) first, then every other error, then the rolled-back entry's own warnings.
 */
function clusterAfterRollback(
  snapshot: KbSnapshot,
  { entry, rolledBack, asOf, who }: Rollback,
  after: ClusterPlan,
  profile: string,
): Finding[] {
  const findings: Finding[] = [];
  const problems = judgePlan(snapshot, after, profile, asOf);
  const errors = problems.filter((problem) => problem.severity === "ERROR");
  const trapped = errors.filter(
    (problem) =>
      problem.component === entry.component &&
      problem.instance === entry.instance &&
      problem.check === "SKEW",
  );
  if (trapped.length > 0) {
    findings.push(
      finding({
        code: "ROLLBACK_TRAP",
        severity: "ERROR",
        component: entry.component,
        instance: entry.instance,
        message: `rolling ${who} back to ${rolledBack.version} would leave it out of skew with the control plane, which runs ${controlPlaneMinor(after) ?? "a newer minor"} now: ${trapped[0]!.message} The rolled-back nodes would fail to register or run unsupported.`,
        sourceUrl: trapped[0]!.sourceUrl,
        ruleId: trapped[0]!.ruleId,
      }),
    );
  }
  findings.push(...errors.filter((problem) => !trapped.includes(problem)));
  findings.push(
    ...problems.filter(
      (problem) =>
        problem.severity !== "ERROR" &&
        problem.component === entry.component &&
        problem.instance === entry.instance,
    ),
  );
  return findings;
}
