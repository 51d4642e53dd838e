/**
 * GraphQL's `detail` argument (schema.graphql, enum Detail): every operation's answer keeps its type, gains
 * `detail` (which form it is in) and `summary` (the domain's summariseAnswer, always of the full answer), and
 * with SUMMARY its lists are trimmed to what the summary shows. The judgement is the same either way: only what
 * is sent differs.
 */
import {
  shownInSummary,
  summariseAnswer,
  type AnswerSummary,
  type OperationAnswer,
} from "../domain/answer-summary.js";
import type { ChartScanReport } from "../domain/chart-scan.js";
import type { ClusterScanReport } from "../domain/cluster-evidence.js";
import type { FirewallCheck } from "../domain/firewall.js";
import type { ValidationReport } from "../domain/findings.js";
import type { NodePoolReport } from "../domain/node-pool.js";
import type { ManifestScanReport } from "../domain/scan.js";
import type { ManifestFixReport } from "../domain/manifest-fix.js";
import type { UpgradePlan } from "../domain/upgrade.js";

export type Detail = "FULL" | "SUMMARY";

/** An answer as GraphQL sends it: the summary is made when asked for (FULL), or before trimming (SUMMARY). */
export type Answered<T> = T & { readonly detail: Detail; readonly summary?: AnswerSummary };

export type ValidationReportAnswer = Answered<ValidationReport>;
export type UpgradePlanAnswer = Answered<UpgradePlan>;
export type ManifestScanAnswer = Answered<ManifestScanReport>;
export type ChartScanAnswer = Answered<ChartScanReport>;
export type ClusterScanAnswer = Answered<ClusterScanReport>;
export type FirewallCheckAnswer = Answered<FirewallCheck>;
export type NodePoolAnswer = Answered<NodePoolReport>;
/** fixManifests' answer: its scan after the fix is a scan answer like any other (always FULL). */
export type FixAnswer = Omit<ManifestFixReport, "after"> & { readonly after: ManifestScanAnswer };

const kept = <T>(list: readonly T[], shown: ReadonlySet<number> | undefined): T[] =>
  list.filter((_entry, index) => shown?.has(index) === true);

/** The answer's lists cut to what its summary shows; steps, hops, removals and releases are the summary's lines. */
function trimmed<T extends OperationAnswer>(answer: T): T {
  if ("changeFindings" in answer) {
    const shown = shownInSummary([answer.notes, answer.findings, answer.changeFindings]);
    return {
      ...answer,
      notes: kept(answer.notes, shown[0]),
      findings: kept(answer.findings, shown[1]),
      changeFindings: kept(answer.changeFindings, shown[2]),
    };
  }
  if ("releases" in answer) {
    const shown = shownInSummary([answer.notes, answer.findings]);
    return {
      ...answer,
      notes: kept(answer.notes, shown[0]),
      findings: kept(answer.findings, shown[1]),
      releases: [],
    };
  }
  const findings = kept(answer.findings, shownInSummary([answer.findings])[0]);
  if ("hops" in answer) return { ...answer, findings, steps: [], hops: [], apiRemovals: [] };
  if ("pool" in answer) return { ...answer, findings, steps: [] };
  return { ...answer, findings };
}

/** The answer in the form asked for (FULL when the argument is absent or null). */
export function inDetail<T extends OperationAnswer>(
  answer: T,
  detail: Detail | null | undefined,
): Answered<T> {
  if (detail !== "SUMMARY") return { ...answer, detail: "FULL" };
  return { ...trimmed(answer), detail: "SUMMARY", summary: summariseAnswer(answer) };
}

/** The summary field: made once from the full answer (SUMMARY), else from the answer itself. */
export function summaryOf(answer: Answered<OperationAnswer>): AnswerSummary {
  return answer.summary ?? summariseAnswer(answer);
}
