/**
 * One cluster of the fleet judged on a day at a knowledge-base revision, and
 * what a team must hear when that judgement changes. The judgement is the
 * service's one judgement (validate and the upgrade plan, the same functions
 * REST and every face call), with the fleet's own readings on top: waivers
 * that hold a finding out of the verdict until they expire, the end of
 * support on the calendar that governs the cluster, and the latest day its
 * upgrade must start (src/domain/fleet-deadlines.ts).
 */
import { createHash } from "node:crypto";
import { InputError } from "../core/errors.js";
import type { EnvironmentPolicy } from "../core/fleet-config.js";
import { compareMinors, minorIndex } from "../core/versions.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { kubernetesEntries, parseClusterPlan, type ClusterPlan } from "./cluster-plan.js";
import { daysBetween } from "./days.js";
import { latestStart, supportEnd, type StartBy, type SupportEnd } from "./fleet-deadlines.js";
import { verdictOf, type Finding, type Verdict } from "./findings.js";
import { planFromKubectl, platformOfNodes, type KubectlInputs } from "./kubectl-inputs.js";
import { planUpgradeFromKubectl, validateFromKubectl } from "./from-kubectl.js";
import { newestReleasedOn } from "./release-status.js";
import { planUpgrade } from "./upgrade.js";
import { controlPlaneMinor, onPlatform, validateCluster } from "./validate.js";

/** A cluster's state as submitted: components as validate takes them, or what kubectl printed. */
export interface ClusterState extends KubectlInputs {
  readonly components?: readonly unknown[];
  readonly platform?: string | null;
  readonly profile?: string | null;
}

export interface FleetMember {
  readonly name: string;
  readonly environment: string;
  readonly owner: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface Waiver {
  readonly id: number;
  readonly code: string;
  readonly clusterName: string | null;
  /** key=value */
  readonly label: string | null;
  readonly reason: string;
  readonly owner: string;
  readonly expiresOn: string;
}

/** A finding as the fleet keeps it: enough to say what and why, with the record and source behind it. */
export interface FindingBrief {
  readonly code: string;
  readonly severity: Finding["severity"];
  readonly component: string | null;
  readonly instance: string | null;
  readonly message: string;
  readonly sourceUrl: string | null;
  readonly ruleId: string | null;
}

export interface UpgradeOutlook {
  /** The newest minor released on the cluster's calendar on the day. */
  readonly targetVersion: string;
  /** Control-plane minors to cross (one hop each). */
  readonly hops: number;
  readonly status: Verdict | null;
  readonly blocking: readonly FindingBrief[];
  /** Why the plan could not be made (the state cannot be planned from), else null. */
  readonly problem: string | null;
}

export interface ClusterJudgement {
  readonly kbRevision: number;
  readonly asOf: string;
  /** The verdict with waived findings left out. */
  readonly status: Verdict;
  /** The verdict as the service judges the state, waivers aside. */
  readonly judgedStatus: Verdict;
  readonly blocking: readonly FindingBrief[];
  readonly warnings: number;
  readonly waived: ReadonlyArray<{ readonly finding: FindingBrief; readonly waiver: Waiver }>;
  /** Waivers that matched a finding of this cluster but have expired on the day. */
  readonly expiredWaivers: readonly Waiver[];
  readonly controlPlane: string | null;
  readonly platform: string | null;
  readonly support: SupportEnd | null;
  /**
   * The last day in standard support: upstream's date is that day, a platform's date is the first day out of it
   * (as validate reads each calendar), so on a platform it is the day before.
   */
  readonly deadline: string | null;
  /** The smallest warning threshold (days before the end of standard support) reached; -1 once it is past; null when none. */
  readonly warnedAt: number | null;
  readonly upgrade: UpgradeOutlook | null;
  readonly startBy: StartBy | null;
  /** Why the state could not be judged at this revision (it then is NOT_JUDGED), else null. */
  readonly problem: string | null;
}

export interface FleetPolicy {
  readonly environments: readonly EnvironmentPolicy[];
}

export function brief(entry: Finding): FindingBrief {
  return {
    code: entry.code,
    severity: entry.severity,
    component: entry.component,
    instance: entry.instance,
    message: entry.message,
    sourceUrl: entry.sourceUrl,
    ruleId: entry.ruleId,
  };
}

function waiverApplies(waiver: Waiver, member: FleetMember, code: string): boolean {
  if (waiver.code !== code) return false;
  if (waiver.clusterName !== null) return waiver.clusterName === member.name;
  if (waiver.label === null) return false;
  const at = waiver.label.indexOf("=");
  return member.labels[waiver.label.slice(0, at)] === waiver.label.slice(at + 1);
}

/** The cluster as a typed plan on its platform, for the minor and the calendar (the judgement itself is validate's). */
function readPlan(snapshot: KbSnapshot, state: ClusterState, asOf: string): ClusterPlan {
  const kubectl = state.components === undefined;
  const components = kubectl ? planFromKubectl(snapshot, state, []) : state.components;
  const platform = state.platform ?? (kubectl ? platformOfNodes(snapshot, state.nodes) : undefined);
  return onPlatform(snapshot, parseClusterPlan(snapshot, components, "components", asOf), platform);
}

/** The oldest kube-apiserver's minor: the one whose support ends first; else the newest Kubernetes component's. */
function clusterMinor(plan: ClusterPlan): string | null {
  const apiservers = kubernetesEntries(plan, "kube-apiserver");
  if (apiservers.length === 0) return controlPlaneMinor(plan);
  const oldest = apiservers.reduce((a, b) =>
    minorIndex(a.kubernetes) <= minorIndex(b.kubernetes) ? a : b,
  );
  return `${oldest.kubernetes.major}.${oldest.kubernetes.minor}`;
}

/** The newest minor released on the day on the cluster's calendar: the platform's where it has rows, else upstream's. */
function newestOn(snapshot: KbSnapshot, platform: string | null, asOf: string): string | null {
  const record =
    platform === null ? undefined : snapshot.platforms.find((entry) => entry.name === platform);
  const offered = (record?.releases ?? [])
    .filter((row) => row.released !== null && row.released <= asOf)
    .map((row) => row.minor)
    .filter((minor) => snapshot.findRelease(minor) !== undefined)
    .sort(compareMinors);
  return offered.at(-1) ?? newestReleasedOn(snapshot, asOf)?.version ?? null;
}

function outlook(
  snapshot: KbSnapshot,
  state: ClusterState,
  from: string | null,
  target: string,
  options: { asOf: string; profile?: string | null; platform?: string | null },
): UpgradeOutlook {
  const hops = from === null ? 0 : Math.max(0, minorIndex(target) - minorIndex(from));
  if (hops === 0) return { targetVersion: target, hops, status: null, blocking: [], problem: null };
  try {
    const plan =
      state.components === undefined
        ? planUpgradeFromKubectl(snapshot, state, target, options)
        : planUpgrade(snapshot, state.components, target, options);
    return {
      targetVersion: target,
      hops,
      status: plan.status,
      blocking: plan.findings.filter((entry) => entry.severity === "ERROR").map(brief),
      problem: null,
    };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { targetVersion: target, hops, status: null, blocking: [], problem: error.message };
  }
}

/** What validate (or validate/from-kubectl) finds of a state on `asOf`: the one judgement every face gives. */
export function stateFindings(
  snapshot: KbSnapshot,
  state: ClusterState,
  asOf: string,
): readonly Finding[] {
  const options = { asOf, profile: state.profile, platform: state.platform };
  return state.components === undefined
    ? validateFromKubectl(snapshot, state, options).findings
    : validateCluster(snapshot, state.components, options).findings;
}

/**
 * Judges a cluster's state on `asOf` with the snapshot. An input the snapshot cannot read any more (a state
 * registered under an older knowledge base) is NOT_JUDGED with the reason, never dropped.
 */
export function judgeFleetCluster(
  snapshot: KbSnapshot,
  member: FleetMember,
  state: ClusterState,
  options: {
    readonly asOf: string;
    readonly waivers: readonly Waiver[];
    readonly policy: FleetPolicy;
  },
): ClusterJudgement {
  const { asOf } = options;
  const judgeOptions = { asOf, profile: state.profile, platform: state.platform };
  let findings: readonly Finding[];
  let plan: ClusterPlan;
  try {
    findings = stateFindings(snapshot, state, asOf);
    plan = readPlan(snapshot, state, asOf);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return unjudged(snapshot, asOf, error.message);
  }
  const waived: Array<{ finding: FindingBrief; waiver: Waiver }> = [];
  const expired = new Map<number, Waiver>();
  const kept: Finding[] = [];
  for (const entry of findings) {
    const matching = options.waivers.filter((waiver) => waiverApplies(waiver, member, entry.code));
    const active = matching.find((waiver) => waiver.expiresOn >= asOf);
    for (const waiver of matching) if (waiver.expiresOn < asOf) expired.set(waiver.id, waiver);
    if (active === undefined) kept.push(entry);
    else waived.push({ finding: brief(entry), waiver: active });
  }
  const platform = plan.platform?.name ?? null;
  const minor = clusterMinor(plan);
  const support = minor === null ? null : supportEnd(snapshot, minor, platform);
  const environment = options.policy.environments.find(
    (entry) => entry.environment === member.environment,
  );
  const target = newestOn(snapshot, platform, asOf);
  const upgrade = target === null ? null : outlook(snapshot, state, minor, target, judgeOptions);
  const deadline = lastStandardDay(support);
  const startBy =
    deadline === null || upgrade === null || environment === undefined
      ? null
      : latestStart({
          deadline,
          hops: upgrade.hops,
          environment: member.environment,
          order: options.policy.environments,
          asOf,
          deadlineLabel: `the last day of standard support of ${minor} on ${support!.calendar}`,
        });
  return {
    kbRevision: snapshot.revision,
    asOf,
    status: verdictOf(kept),
    judgedStatus: verdictOf(findings),
    blocking: kept.filter((entry) => entry.severity === "ERROR").map(brief),
    warnings: kept.filter((entry) => entry.severity === "WARNING").length,
    waived,
    expiredWaivers: [...expired.values()],
    controlPlane: minor,
    platform,
    support,
    deadline,
    warnedAt: deadline === null ? null : warnedAt(daysBetween(asOf, deadline), environment),
    upgrade,
    startBy,
    problem: null,
  };
}

const DAY_MS = 86_400_000;

function lastStandardDay(support: SupportEnd | null): string | null {
  const date = support?.endOfStandardSupport ?? null;
  if (date === null || support!.calendar === "upstream") return date;
  return new Date(Date.parse(`${date}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
}

function unjudged(snapshot: KbSnapshot, asOf: string, problem: string): ClusterJudgement {
  return {
    kbRevision: snapshot.revision,
    asOf,
    status: "NOT_JUDGED",
    judgedStatus: "NOT_JUDGED",
    blocking: [],
    warnings: 0,
    waived: [],
    expiredWaivers: [],
    controlPlane: null,
    platform: null,
    support: null,
    deadline: null,
    warnedAt: null,
    upgrade: null,
    startBy: null,
    problem,
  };
}

/** The smallest threshold of the environment that `daysLeft` has reached, -1 past the day, null before any. */
function warnedAt(daysLeft: number, environment: EnvironmentPolicy | undefined): number | null {
  if (daysLeft < 0) return -1;
  const reached = (environment?.warnDays ?? []).filter((days) => daysLeft <= days);
  return reached.length === 0 ? null : Math.min(...reached);
}

/** A finding as compared between judgements: what, where, and the record behind it (not its wording). */
export const findingKey = (entry: FindingBrief): string =>
  [entry.code, entry.component ?? "", entry.instance ?? "", entry.ruleId ?? ""].join("\u0000");

/**
 * What an event is about, hashed: equal fingerprints mean nothing a team must hear changed (the day moving
 * on alone changes days left, which are counted when read, not stored).
 */
export function judgementFingerprint(judgement: ClusterJudgement): string {
  const about = {
    status: judgement.status,
    blocking: judgement.blocking.map(findingKey).sort(),
    waived: judgement.waived
      .map((entry) => `${entry.waiver.id}:${findingKey(entry.finding)}`)
      .sort(),
    expired: judgement.expiredWaivers.map((waiver) => waiver.id).sort(),
    warnedAt: judgement.warnedAt,
    support: judgement.support,
    upgrade: judgement.upgrade && {
      target: judgement.upgrade.targetVersion,
      hops: judgement.upgrade.hops,
      status: judgement.upgrade.status,
      blocking: judgement.upgrade.blocking.map(findingKey).sort(),
    },
    latestStart: judgement.startBy?.latestStart ?? null,
    problem: judgement.problem,
  };
  return createHash("sha256").update(JSON.stringify(about)).digest("hex");
}

/** Days left and days to the start date counted on the day asked, from the dates the judgement keeps. */
export function countdown(
  judgement: Pick<ClusterJudgement, "deadline" | "startBy">,
  today: string,
): { readonly daysLeft: number | null; readonly daysToStart: number | null } {
  const end = judgement.deadline;
  const start = judgement.startBy?.latestStart ?? null;
  return {
    daysLeft: end === null ? null : daysBetween(today, end),
    daysToStart: start === null ? null : daysBetween(today, start),
  };
}
