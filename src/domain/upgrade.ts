/**
 * planUpgrade: the ordered steps that take every component of a cluster to
 * a target minor without ever leaving the supported combinations. The
 * control plane moves one minor at a time (etcd first, then each
 * kube-apiserver, then the controllers); node pools move only when the next
 * control-plane step would leave them out of skew, and then straight to the
 * newest minor allowed at that point, so each pool is touched as few times
 * as possible; a pool's container runtime moves before its kubelet. Every
 * state after a step is judged by the same code as validateCluster; a step
 * that would break the cluster is never emitted (the plan stops with
 * PLAN_BLOCKED instead).
 */
import { InputError } from "../core/errors.js";
import type { ApiRemovalRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { resolveProfile } from "./catalog.js";
import { parseClusterPlan, type ClusterPlan } from "./cluster-plan.js";
import { readKubernetesVersion } from "./version-reader.js";
import type { ImpactRelease } from "./impact.js";
import { finding, report, type Finding, type Verdict } from "./findings.js";
import { judgePlan, onPlatform, parseAsOf } from "./validate.js";
import { minorIndex, type KubernetesVersion } from "../core/versions.js";
import { Blocked, minorWords, PlanInProgress, type UpgradeStep } from "./upgrade-in-progress.js";
import { moveControllersToTarget, moveControlPlaneToTarget } from "./upgrade-control-plane.js";
import { nodesFollowToTarget } from "./upgrade-nodes.js";
import {
  apiRemovalsCrossed,
  dedupeFindings,
  findingsNow,
  findingsOfTheWay,
  hopChanges,
  refusalOf,
} from "./upgrade-findings.js";

export type { StepAction, UpgradeStep } from "./upgrade-in-progress.js";

export interface UpgradePlan {
  readonly ok: boolean;
  readonly status: Verdict;
  readonly kbRevision: number;
  readonly targetVersion: string;
  readonly steps: readonly UpgradeStep[];
  readonly apiRemovals: readonly ApiRemovalRecord[];
  /** Per control-plane minor crossed, what it changes beyond apiVersions (behaviour changes, configuration files, feature gates). */
  readonly hops: readonly ImpactRelease[];
  readonly findings: readonly Finding[];
}

/**
 * How many minors one plan may cross. The planner moves the control plane
 * one minor at a time and judges the cluster after every step, so a target
 * such as 1.9999 would take millions of steps; no real upgrade crosses more
 * than a handful (the knowledge base covers 1.19 onward).
 */
export const MAX_UPGRADE_MINORS = 30;

/** What planUpgrade was asked, read and checked: the cluster, the day, the target and where the control plane is. */
interface UpgradeRequest {
  readonly asOf: string;
  readonly plan: ClusterPlan;
  readonly profile: string;
  readonly target: KubernetesVersion;
  /** Minor indexes (major * 1000 + minor): the target's, and the oldest and newest kube-apiserver's today. */
  readonly targetMinor: number;
  readonly startMinor: number;
  readonly newestMinor: number;
}

export function planUpgrade(
  snapshot: KbSnapshot,
  current: unknown,
  targetVersion: string,
  options: UpgradeOptions = {},
): UpgradePlan {
  const request = readRequest(snapshot, current, targetVersion, options);
  const { asOf, plan, profile } = request;
  // The cluster as it is, judged as validate judges it: a plan that is refused ends where it started, so it
  // says what validate says of that state; one that is made starts from it.
  const now = judgePlan(snapshot, plan, profile, asOf);
  const refused = refusalOf(snapshot, now, request);
  if (refused !== undefined)
    return planOf(
      snapshot,
      request,
      [],
      [refused, ...now.filter((entry) => entry.severity !== "INFO")],
    );

  const planner = new PlanInProgress(snapshot, plan, profile, asOf, request.target);
  const findings: Finding[] = findingsNow(now);
  findings.push(...takeSteps(planner));
  findings.push(...planner.notes);
  if (planner.steps.length === 0 && findings.every((entry) => entry.severity !== "ERROR")) {
    findings.push(
      finding({
        code: "PLAN_NOTHING_TO_DO",
        severity: "INFO",
        message: `every component is already at ${minorWords(request.targetMinor)}`,
      }),
    );
  }
  const removals = apiRemovalsCrossed(snapshot, request.startMinor, request.targetMinor);
  findings.push(...findingsOfTheWay(snapshot, plan, request, removals));
  // What still holds at the end (end of life, unknown versions, errors) is the plan's verdict too: validate's findings of the final state.
  const end = judgePlan(snapshot, planner.state, profile, asOf).filter(
    (entry) => entry.severity !== "INFO",
  );
  findings.push(...end);
  // Errors a state on the way has that the plan goes through rather than stops at: a platform's end of support
  // (a WARNING: the platform may upgrade on its own meanwhile), an add-on between the hop and its own move (INFO:
  // the plan's next steps move it). One the end state has too stays the end state's (dedupeFindings).
  for (const passing of planner.onTheWay) {
    findings.push({
      ...passing,
      severity: passing.check === "PLATFORM" ? "WARNING" : "INFO",
      message: `on the way: ${passing.message}`,
    });
  }
  return planOf(snapshot, request, planner.steps, dedupeFindings(findings), removals);
}

interface UpgradeOptions {
  profile?: string | null | undefined;
  /** The day the plan is judged on (YYYY-MM-DD); today when absent. Release and runtime ends of life are read on it. */
  asOf?: string | null | undefined;
  /** The managed platform (eks, gke, aks); recognised from the versions when not given. */
  platform?: string | null | undefined;
}

/** The request read and checked: malformed input, or a target no upgrade can reach, raises InputError. */
function readRequest(
  snapshot: KbSnapshot,
  current: unknown,
  targetVersion: string,
  options: UpgradeOptions,
): UpgradeRequest {
  const asOf = parseAsOf(options.asOf);
  const plan = onPlatform(
    snapshot,
    parseClusterPlan(snapshot, current, "current.components", asOf),
    options.platform,
  );
  const profile = resolveProfile(snapshot, options.profile ?? undefined);
  const target = readKubernetesVersion(snapshot, targetVersion, "targetVersion", asOf);
  const targetMinor = minorIndex(target);
  const apiservers = plan.entries.filter((entry) => entry.component === "kube-apiserver");
  if (apiservers.length === 0) {
    throw new InputError(
      "current.components must include kube-apiserver: the upgrade is planned from the control plane's version",
      "current.components",
    );
  }
  const startMinor = Math.min(...apiservers.map((entry) => minorIndex(entry.kubernetes!)));
  const newestMinor = Math.max(...apiservers.map((entry) => minorIndex(entry.kubernetes!)));
  const targetText = `${target.major}.${target.minor}`;
  const startMajor = Math.floor(startMinor / 1000);
  if (target.major !== startMajor) {
    throw new InputError(
      `targetVersion ${targetText} is another major version than the control plane (${minorWords(startMinor)}); Kubernetes has no upgrade path across major versions`,
      "targetVersion",
    );
  }
  if (targetMinor - startMinor > MAX_UPGRADE_MINORS) {
    throw new InputError(
      `targetVersion ${targetText} is ${targetMinor - startMinor} minors past the control plane (${minorWords(startMinor)}); a plan crosses at most ${MAX_UPGRADE_MINORS} minors`,
      "targetVersion",
    );
  }
  return { asOf, plan, profile, target, targetMinor, startMinor, newestMinor };
}

/**
 * The steps, in order: the control plane one minor at a time (with what each hop needs moved first), then the
 * nodes and clients, then the controllers still behind. A step that would break the cluster stops the plan:
 * what is returned then is PLAN_BLOCKED and the findings that block it.
 */
function takeSteps(planner: PlanInProgress): Finding[] {
  try {
    moveControlPlaneToTarget(planner);
    nodesFollowToTarget(planner);
    moveControllersToTarget(planner);
    return [];
  } catch (error) {
    if (!(error instanceof Blocked)) throw error;
    return [
      finding({
        code: "PLAN_BLOCKED",
        severity: "ERROR",
        message: error.message,
        sourceUrl: planner.snapshot.reference("skew-policy"),
      }),
      ...error.blocking,
    ];
  }
}

/** The plan as answered: its verdict from its findings, and what each hop changes when the plan moves forward. */
function planOf(
  snapshot: KbSnapshot,
  { startMinor, targetMinor }: UpgradeRequest,
  steps: UpgradeStep[],
  findings: Finding[],
  removals: readonly ApiRemovalRecord[] = [],
): UpgradePlan {
  const judged = report(snapshot.revision, findings);
  // What each hop changes, for every plan that moves the control plane forward to a release the knowledge base knows.
  const known =
    snapshot.newestRelease === undefined ||
    targetMinor <= minorIndex(snapshot.newestRelease.version);
  const hops =
    targetMinor > startMinor && known
      ? hopChanges(snapshot, Math.floor(startMinor / 1000), startMinor % 1000, targetMinor % 1000)
      : [];
  return {
    ok: judged.ok,
    status: judged.status,
    kbRevision: snapshot.revision,
    targetVersion: minorWords(targetMinor),
    steps,
    apiRemovals: removals,
    hops,
    findings: judged.findings,
  };
}
