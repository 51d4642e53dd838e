/**
 * A managed platform's own control-plane rollback (kb/rollback-policies.yaml, minorDowngrade
 * PLATFORM_ROLLBACK): EKS takes a control plane back one minor within days of an in-place upgrade,
 * GKE during a rollback-safe upgrade's soak. Upstream Kubernetes has no minor downgrade; on such a
 * platform the platform's rule applies. The answer says whether the platform can take the control
 * plane back, until when, and what the knowledge base sees still standing in the way: objects stored
 * in API versions the older minor does not serve, an etcd minor that moved with the upgrade, feature
 * gates locked on at the newer minor that were off before. The conditions the platform states but
 * that no input shows are told, not judged.
 */
import { InputError } from "../core/errors.js";
import { minorIndex, minorOf, parseComponentVersion } from "../core/versions.js";
import type { PlatformRecord, RollbackPolicyRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { withFactsOf, type ClusterPlan, type PlannedComponent } from "./cluster-plan.js";
import { parseAsOf } from "./days.js";
import { stageAt } from "./feature-gates.js";
import { finding, type Finding } from "./findings.js";

export interface PlatformRollback {
  readonly findings: readonly Finding[];
  /** The cluster once the platform has taken its control plane back (every control-plane component of the newer minor). */
  readonly after: ClusterPlan;
}

const DAY_MS = 86_400_000;

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export function platformRollback(
  snapshot: KbSnapshot,
  policy: RollbackPolicyRecord,
  platform: PlatformRecord,
  plan: ClusterPlan,
  entry: PlannedComponent,
  rolledBack: PlannedComponent,
  asOf: string,
  upgradedOnText: string | null | undefined,
): PlatformRollback {
  const from = minorOf(entry.kubernetes!);
  const to = minorOf(rolledBack.kubernetes!);
  const minorsBack = minorIndex(from) - minorIndex(to);
  const at = {
    component: entry.component,
    instance: entry.instance,
    sourceUrl: policy.sourceUrl,
    ruleId: policy.id,
  };
  const name = platform.displayName;
  // The platform moves the whole control plane back, not one binary of it.
  const moves = (candidate: PlannedComponent) =>
    policy.categories.includes(candidate.category as never) &&
    candidate.kubernetes !== null &&
    minorOf(candidate.kubernetes) === from;
  const after: ClusterPlan = {
    ...plan,
    entries: plan.entries.map((candidate) =>
      candidate === entry
        ? rolledBack
        : moves(candidate)
          ? withFactsOf(
              {
                ...rolledBack,
                component: candidate.component,
                category: candidate.category,
                instance: candidate.instance,
              },
              candidate,
            )
          : candidate,
    ),
  };
  if (minorsBack > policy.maxMinorsBack) {
    const back = policy.maxMinorsBack === 1 ? "one minor" : `${policy.maxMinorsBack} minors`;
    return {
      after,
      findings: [
        finding({
          ...at,
          code: "ROLLBACK_CONTROL_PLANE_UNSUPPORTED",
          severity: "ERROR",
          message: `${name} takes a control plane back ${back} only; ${from} to ${to} is ${minorsBack} minors: ${policy.summary}`,
        }),
      ],
    };
  }
  const findings: Finding[] = [window(policy, name, from, to, asOf, upgradedOnText, at)];
  const stored = storedVersions(snapshot, from, to);
  if (stored !== undefined)
    findings.push(
      finding({ ...at, ...stored, code: "ROLLBACK_STORED_VERSIONS", severity: "WARNING" }),
    );
  const etcd = etcdMinor(snapshot, plan, to);
  if (etcd !== undefined)
    findings.push(finding({ ...at, ...etcd, code: "ROLLBACK_ETCD_MINOR", severity: "WARNING" }));
  const gates = gatesLockedOn(snapshot, from, to);
  if (gates !== undefined)
    findings.push(
      finding({ ...at, ...gates, code: "ROLLBACK_GATES_LOCKED_ON", severity: "WARNING" }),
    );
  return { after, findings };
}

/** Whether the platform's window is open on asOf, and until when; unknown (said) when the day of the upgrade is not given. */
function window(
  policy: RollbackPolicyRecord,
  name: string,
  from: string,
  to: string,
  asOf: string,
  upgradedOnText: string | null | undefined,
  at: { component: string; instance: string | null; sourceUrl: string; ruleId: string },
): Finding {
  const days = policy.windowDays;
  const conditions =
    policy.conditions.length === 0
      ? ""
      : ` The platform also requires: ${policy.conditions.join("; ")}.`;
  const upgradedOn =
    upgradedOnText === undefined || upgradedOnText === null || upgradedOnText.trim() === ""
      ? null
      : parseAsOf(upgradedOnText, "upgradedOn");
  if (upgradedOn !== null && upgradedOn > asOf)
    throw new InputError(
      `upgradedOn ${upgradedOn} is after the day judged (${asOf}); give the day the control plane reached ${from}`,
      "upgradedOn",
    );
  if (days === null) {
    // The platform sets the window per upgrade (GKE's soak): the day of the upgrade does not tell whether it is open.
    return finding({
      ...at,
      code: "ROLLBACK_WINDOW_UNKNOWN",
      severity: "WARNING",
      message: `${name} can take the control plane back from ${from} to ${to} only within a window it sets for each upgrade: ${policy.summary} Whether that window is still open was not judged.${conditions}`,
    });
  }
  if (upgradedOn === null) {
    return finding({
      ...at,
      code: "ROLLBACK_WINDOW_UNKNOWN",
      severity: "WARNING",
      message: `${name} can take the control plane back from ${from} to ${to} only within ${days} days of the upgrade to ${from}; the day of that upgrade was not given (upgradedOn), so whether the window is still open was not judged.${conditions}`,
    });
  }
  const closes = addDays(upgradedOn, days);
  if (asOf > closes) {
    return finding({
      ...at,
      code: "ROLLBACK_WINDOW_CLOSED",
      severity: "ERROR",
      message: `${name} took the control plane back only until ${closes} (${days} days after the upgrade to ${from} on ${upgradedOn}); on ${asOf} it can no longer go back to ${to}: ${policy.summary}`,
    });
  }
  return finding({
    ...at,
    code: "PLATFORM_ROLLBACK_AVAILABLE",
    severity: "INFO",
    message: `${name} can take the control plane back from ${from} to ${to} until ${closes} (${days} days after the upgrade on ${upgradedOn}): ${policy.summary}${conditions}`,
  });
}

type Said = { readonly message: string; readonly sourceUrl?: string };

/** Kinds first served at the newer minor: objects stored in them are not served by the older one. */
function storedVersions(snapshot: KbSnapshot, from: string, to: string): Said | undefined {
  const first = snapshot.apiRemovals.filter(
    (api) =>
      api.introducedIn !== null &&
      minorIndex(api.introducedIn) > minorIndex(to) &&
      minorIndex(api.introducedIn) <= minorIndex(from),
  );
  if (first.length === 0) return undefined;
  const kinds = first.map((api) => `${api.kind} ${api.apiVersion}`).join(", ");
  return {
    message: `${kinds} ${first.length === 1 ? "is" : "are"} first served in ${from}: objects stored in ${first.length === 1 ? "it" : "them"} are not served by ${to}. Delete them, or move them to a version ${to} serves (and check CRDs' status.storedVersions), before going back.`,
    sourceUrl: first[0]!.sourceUrl,
  };
}

/** etcd moved to a minor newer than the older Kubernetes minor ships: etcd does not go back by itself. */
function etcdMinor(snapshot: KbSnapshot, plan: ClusterPlan, to: string): Said | undefined {
  const shipped = snapshot.findRelease(to)?.etcdVersion ?? null;
  if (shipped === null) return undefined;
  const line = (version: string) => {
    const parsed = parseComponentVersion(version.replace(/-\d+$/, ""));
    return parsed.major * 1000 + parsed.minor;
  };
  const newer = plan.entries.filter(
    (candidate) =>
      candidate.component === "etcd" &&
      candidate.release !== null &&
      line(candidate.version) > line(shipped),
  );
  if (newer.length === 0) return undefined;
  return {
    message: `etcd runs ${newer.map((member) => member.version).join(", ")}, a newer minor than the ${shipped} Kubernetes ${to} ships with: the control plane going back does not take etcd back; etcd crosses a minor downwards only with its own downgrade procedure.`,
    sourceUrl: snapshot.findRelease(to)?.etcdSourceUrl ?? undefined,
  };
}

/** Gates locked on at the newer minor that were off (or absent) at the older one: what was done with them on may not go back. */
function gatesLockedOn(snapshot: KbSnapshot, from: string, to: string): Said | undefined {
  const gates = snapshot.featureGates.filter((gate) => {
    const now = stageAt(gate, from);
    if (now === undefined || !now.locked || !now.defaultValue) return false;
    const before = stageAt(gate, to);
    return before === undefined || !before.defaultValue;
  });
  if (gates.length === 0) return undefined;
  return {
    message: `${gates.map((gate) => gate.name).join(", ")} ${gates.length === 1 ? "is" : "are"} locked on in ${from} and off by default in ${to}: what the cluster stored or changed with ${gates.length === 1 ? "it" : "them"} on may not be served the same after going back.`,
    sourceUrl: gates[0]!.sourceUrl,
  };
}

/**
 * For a plan's control-plane hop from `from` to `to`: the last point at which it can be undone, and how. On a
 * platform that takes control planes back, within its window; elsewhere only before the step (no minor downgrade).
 */
export function howToUndoHop(
  snapshot: KbSnapshot,
  platform: PlatformRecord | undefined,
  from: string,
  to: string,
): string {
  const policy = snapshot.rollbackPolicy(
    { name: "kube-apiserver", category: "apiserver" },
    platform?.name ?? null,
    to,
  );
  if (policy?.minorDowngrade === "PLATFORM_ROLLBACK" && platform !== undefined) {
    return policy.windowDays === null
      ? `${platform.displayName} can take this hop back to ${from} only within the window it sets for the upgrade (${policy.conditions[0] ?? policy.summary}); after that, ${to} cannot go back`
      : `${platform.displayName} can take this hop back to ${from} within ${policy.windowDays} days of it (ask rollback-check with upgradedOn: the day of this step); after that, ${to} cannot go back`;
  }
  const where = platform === undefined ? "" : ` on ${platform.displayName}`;
  const back =
    platform === undefined
      ? `restoring the etcd backup taken just before it (take one)`
      : `a new cluster on ${from}`;
  return `no control-plane minor downgrade${where}: the last point to stay on ${from} is before this step; after it, only ${back} goes back`;
}
