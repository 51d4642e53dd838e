/**
 * The baseline mode of CI: a cluster's new state judged against a snapshot
 * it was accepted at, reporting only what is new.
 */
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { verdictOf, type Finding, type Verdict } from "./findings.js";
import { brief, findingKey, stateFindings, type ClusterState, type FindingBrief } from "./fleet.js";

/** What a state has that its baseline had not, and what it no longer has: ERRORs and WARNINGs, by finding. */
export interface BaselineComparison {
  readonly status: Verdict;
  readonly baselineStatus: Verdict;
  readonly added: readonly FindingBrief[];
  readonly resolved: readonly FindingBrief[];
  /** Findings in both, counted (not listed: the baseline accepted them). */
  readonly unchanged: number;
}

/**
 * A new state judged against a baseline state, both with the same snapshot on the same day, so a finding is
 * new only because the cluster changed, never because the knowledge did.
 */
export function compareWithBaseline(
  snapshot: KbSnapshot,
  baseline: ClusterState,
  state: ClusterState,
  asOf: string,
): BaselineComparison {
  const judged = (findings: readonly Finding[]) =>
    findings.filter((entry) => entry.severity !== "INFO").map(brief);
  const now = stateFindings(snapshot, state, asOf);
  const then = stateFindings(snapshot, baseline, asOf);
  const before = new Set(judged(then).map(findingKey));
  const after = new Set(judged(now).map(findingKey));
  return {
    status: verdictOf(now),
    baselineStatus: verdictOf(then),
    added: judged(now).filter((entry) => !before.has(findingKey(entry))),
    resolved: judged(then).filter((entry) => !after.has(findingKey(entry))),
    unchanged: judged(now).filter((entry) => before.has(findingKey(entry))).length,
  };
}
