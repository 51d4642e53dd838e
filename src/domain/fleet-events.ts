/**
 * What a team must hear when a cluster's judgement changes (events), and
 * which subscriptions hear it. Pure: the service stores and delivers them.
 */
import { daysBetween } from "./days.js";
import type { Finding, Verdict } from "./findings.js";
import { findingKey, type ClusterJudgement, type FindingBrief, type FleetMember } from "./fleet.js";

/** Why a judgement was made again: the knowledge changed, the cluster's state, the day, or waivers. */
export interface JudgementCause {
  readonly kind: "knowledge" | "snapshot" | "calendar" | "waiver";
  readonly kbRevision: { readonly from: number; readonly to: number };
  readonly asOf: { readonly from: string; readonly to: string };
  /** The knowledge-base records edited between the two revisions (from the audit trail), newest first. */
  readonly knowledgeChanges: ReadonlyArray<{
    readonly revision: number | null;
    readonly entity: string | null;
    readonly key: string | null;
    readonly action: string;
    readonly actor: string;
  }>;
}

export type FleetEventKind =
  | "VERDICT_CHANGED"
  | "BLOCKING_FINDING"
  | "DEADLINE_NEAR"
  | "WAIVER_EXPIRED";

export interface FleetEventDraft {
  readonly kind: FleetEventKind;
  readonly severity: Finding["severity"];
  readonly summary: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

const VERDICT_SEVERITY: Readonly<Record<Verdict, Finding["severity"]>> = {
  UNSUPPORTED: "ERROR",
  NOT_JUDGED: "WARNING",
  SUPPORTED_WITH_WARNINGS: "WARNING",
  SUPPORTED: "INFO",
};

function causeWords(cause: JudgementCause): string {
  switch (cause.kind) {
    case "knowledge":
      return `knowledge-base revision ${cause.kbRevision.from} → ${cause.kbRevision.to}`;
    case "snapshot":
      return "a new state of the cluster was submitted";
    case "calendar":
      return `the day moved from ${cause.asOf.from} to ${cause.asOf.to}`;
    case "waiver":
      return "a waiver changed";
  }
}

function codes(findings: readonly FindingBrief[]): string {
  const unique = [...new Set(findings.map((entry) => entry.code))];
  return (
    unique.slice(0, 3).join(", ") + (unique.length > 3 ? ` and ${unique.length - 3} more` : "")
  );
}

/**
 * The events between a cluster's previous judgement and its new one. At most one about the verdict (a changed
 * verdict, or new blocking findings under the same one), one when a deadline threshold is crossed, one when
 * waivers expired. Each carries the findings with their records and sources, and the cause.
 */
export function eventsBetween(
  member: FleetMember,
  previous: ClusterJudgement,
  next: ClusterJudgement,
  cause: JudgementCause,
): FleetEventDraft[] {
  const events: FleetEventDraft[] = [];
  const before = new Set(previous.blocking.map(findingKey));
  const after = new Set(next.blocking.map(findingKey));
  const added = next.blocking.filter((entry) => !before.has(findingKey(entry)));
  const resolved = previous.blocking.filter((entry) => !after.has(findingKey(entry)));
  const why = causeWords(cause);
  const common = {
    cluster: member.name,
    environment: member.environment,
    owner: member.owner,
    cause,
  };
  if (next.status !== previous.status) {
    events.push({
      kind: "VERDICT_CHANGED",
      severity: VERDICT_SEVERITY[next.status],
      summary: `${member.name}: ${previous.status} → ${next.status}${added.length > 0 ? ` (${codes(added)})` : ""} after ${why}`,
      detail: {
        ...common,
        from: previous.status,
        to: next.status,
        added,
        resolved,
        problem: next.problem,
      },
    });
  } else if (added.length > 0) {
    events.push({
      kind: "BLOCKING_FINDING",
      severity: "ERROR",
      summary: `${member.name}: ${added.length} new blocking finding${added.length === 1 ? "" : "s"} (${codes(added)}) after ${why}`,
      detail: { ...common, status: next.status, added, resolved },
    });
  }
  const crossed =
    next.warnedAt !== null && (previous.warnedAt === null || next.warnedAt < previous.warnedAt);
  if (crossed && next.support !== null && next.deadline !== null) {
    const end = next.deadline;
    const left = daysBetween(next.asOf, end);
    events.push({
      kind: "DEADLINE_NEAR",
      severity: left < 0 ? "ERROR" : "WARNING",
      summary:
        left < 0
          ? `${member.name}: ${next.controlPlane} is out of standard support since ${end} was its last day (${next.support.calendar})`
          : `${member.name}: ${next.controlPlane}'s last day of standard support is ${end} (${next.support.calendar}), in ${left} day${left === 1 ? "" : "s"}${next.startBy === null ? "" : `; start the upgrade by ${next.startBy.latestStart}`}`,
      detail: {
        ...common,
        threshold: next.warnedAt,
        daysLeft: left,
        support: next.support,
        startBy: next.startBy,
        dayCrossed: { from: previous.asOf, to: next.asOf },
      },
    });
  }
  const wasExpired = new Set(previous.expiredWaivers.map((waiver) => waiver.id));
  const newlyExpired = next.expiredWaivers.filter((waiver) => !wasExpired.has(waiver.id));
  if (newlyExpired.length > 0) {
    events.push({
      kind: "WAIVER_EXPIRED",
      severity: "WARNING",
      summary: `${member.name}: waiver${newlyExpired.length === 1 ? "" : "s"} for ${[...new Set(newlyExpired.map((waiver) => waiver.code))].join(", ")} expired (${newlyExpired.map((waiver) => waiver.expiresOn).join(", ")})`,
      detail: { ...common, waivers: newlyExpired },
    });
  }
  return events;
}

/** What a subscription selects: every listed field must match (an empty or absent field matches all). */
export interface SubscriptionFilters {
  readonly environments?: readonly string[];
  readonly owners?: readonly string[];
  /** Every label given must be on the cluster with that value. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The lowest severity delivered (default INFO: everything). */
  readonly minSeverity?: Finding["severity"];
}

const SEVERITY_RANK: Readonly<Record<Finding["severity"], number>> = {
  INFO: 0,
  WARNING: 1,
  ERROR: 2,
};

export function subscriptionWants(
  filters: SubscriptionFilters,
  member: FleetMember,
  severity: Finding["severity"],
): boolean {
  if (filters.environments?.length && !filters.environments.includes(member.environment))
    return false;
  if (filters.owners?.length && !filters.owners.includes(member.owner)) return false;
  for (const [key, value] of Object.entries(filters.labels ?? {}))
    if (member.labels[key] !== value) return false;
  return SEVERITY_RANK[severity] >= SEVERITY_RANK[filters.minSeverity ?? "INFO"];
}
