/**
 * The summary form of every answer (issue 38, "answers sized for their reader"): a chat bot or an agent with a
 * token budget cannot read a 150 KB plan, so each answer can be said in a few KB: its status, what blocks it
 * (the ERROR findings), what could not be judged, the steps as one line each, and counts of the rest, with how to
 * ask for the whole. Pure and shared by every face (GraphQL's detail: SUMMARY, REST's and MCP's "detail":
 * "summary"), so they cannot summarise differently.
 *
 * Nothing that says an answer is incomplete is ever dropped: every finding of the COVERAGE check (NOT_JUDGED,
 * KNOWLEDGE_EDGE, KNOWLEDGE_STALE, API_NOT_JUDGED, DOCUMENT_UNREADABLE ...) is shown or, past the cap, counted,
 * and each of their codes is shown at least once; a summary that read greener than its answer would be the
 * worst outcome.
 */
import type { ClusterScanReport } from "./cluster-evidence.js";
import type { FirewallCheck } from "./firewall.js";
import {
  FINDING_CODES,
  checkOf,
  isOk,
  type FindingCode,
  type Severity,
  type ValidationReport,
  type Verdict,
} from "./findings.js";
import type { NodePoolReport, NodePoolStep } from "./node-pool.js";
import { actionWords } from "./plan-timeline.js";
import type { ManifestScanReport } from "./scan-findings.js";
import type { UpgradePlan, UpgradeStep } from "./upgrade.js";

/** Every answer an operation gives: what summariseAnswer takes. */
export type OperationAnswer =
  | ValidationReport
  | UpgradePlan
  | ManifestScanReport
  | ClusterScanReport
  | FirewallCheck
  | NodePoolReport;

/** One finding as the summary shows it: the domain's code and message, and what it is about. */
export interface SummaryFinding {
  readonly code: string;
  readonly severity: Severity;
  /** As the domain wrote it. */
  readonly message: string;
  /** The component (and instance) a cluster finding is about; null for findings about objects. */
  readonly component: string | null;
  readonly instance: string | null;
  /** The object a scan finding is about, with where it is: `CronJob default/nightly (document 3, line 12)`; else null. */
  readonly object: string | null;
}

/** How many findings of one code the full answer has. */
export interface CodeCount {
  readonly code: string;
  readonly severity: Severity;
  readonly count: number;
}

export interface AnswerCounts {
  /** Every finding of the full answer by severity (a scan's findings, change findings and notes together). */
  readonly findings: { readonly ERROR: number; readonly WARNING: number; readonly INFO: number };
  /** Every code of the full answer with its severity and count, ERROR first then by count: nothing goes uncounted. */
  readonly byCode: readonly CodeCount[];
  /** Steps of a plan or a node-pool change; null for answers without steps. */
  readonly steps: number | null;
  /** Objects and documents a manifest scan read; null for other answers. */
  readonly objects: number | null;
  readonly documents: number | null;
  /** Network flows a firewall check judged; null for other answers. */
  readonly flows: number | null;
}

/** The summary form of an answer; JSON as it is. */
export interface AnswerSummary {
  readonly detail: "summary";
  /** The full answer's, unchanged. */
  readonly status: Verdict;
  readonly ok: boolean;
  readonly kbRevision: number;
  /** The target minor of a plan or a scan; null for other answers. */
  readonly targetVersion: string | null;
  /** False when anything could not be judged (see notJudged): the answer then covers less than was asked. */
  readonly allJudged: boolean;
  /** The ERROR findings, which make the status UNSUPPORTED; at most MAX_SHOWN, every code among them at least once. */
  readonly blocking: readonly SummaryFinding[];
  /** ERROR findings not shown in blocking (counted in counts.byCode). */
  readonly blockingNotShown: number;
  /** What could not be judged (findings of the COVERAGE check, any severity), capped as blocking is. */
  readonly notJudged: readonly SummaryFinding[];
  readonly notJudgedNotShown: number;
  /** One line per step of a plan or a node-pool change, in order; null for answers without steps. */
  readonly steps: readonly string[] | null;
  readonly counts: AnswerCounts;
  /** How to ask for every finding and step. */
  readonly full: string;
}

/** Findings shown per list: enough to act on, few enough for a token budget (a scan can have 10 000). */
export const MAX_SHOWN = 20;

export const FULL_ANSWER_HINT =
  'ask again with detail: full (REST body field "detail": "full"; GraphQL argument detail: FULL) for every finding and step';

const SEVERITIES: readonly Severity[] = ["ERROR", "WARNING", "INFO"];

/** A finding of any answer, reduced to what the summary reads. */
export interface AnyFinding {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  readonly check?: string;
  readonly component?: string | null;
  readonly instance?: string | null;
  readonly kind?: string;
  readonly name?: string | null;
  readonly namespace?: string | null;
  readonly documentIndex?: number;
  readonly line?: number;
}

/** The check of any finding: its own, else its code's (scan findings carry no check). */
function checkOfAny(entry: AnyFinding): string | null {
  if (entry.check !== undefined) return entry.check;
  return entry.code in FINDING_CODES || entry.code.startsWith("SKEW_")
    ? checkOf(entry.code as FindingCode)
    : null;
}

function objectOf(entry: AnyFinding): string | null {
  if (entry.kind === undefined) return null;
  const name =
    entry.name === null || entry.name === undefined
      ? ""
      : ` ${entry.namespace == null ? "" : `${entry.namespace}/`}${entry.name}`;
  const where =
    entry.documentIndex === undefined
      ? ""
      : ` (document ${entry.documentIndex}${entry.line === undefined ? "" : `, line ${entry.line}`})`;
  return `${entry.kind}${name}${where}`;
}

function shownFinding(entry: AnyFinding): SummaryFinding {
  return {
    code: entry.code,
    severity: entry.severity,
    message: entry.message,
    component: entry.component ?? null,
    instance: entry.instance ?? null,
    object: objectOf(entry),
  };
}

/**
 * Which of the entries the summary shows (their indexes, in order): at most MAX_SHOWN, first the first entry of
 * each code (so every code is seen even when the list is capped), then the others in order until the cap.
 */
function shownIndexes(
  entries: readonly AnyFinding[],
  chosen: (entry: AnyFinding) => boolean,
): number[] {
  const candidates = entries.flatMap((entry, index) => (chosen(entry) ? [index] : []));
  if (candidates.length <= MAX_SHOWN) return candidates;
  const shown = new Set<number>();
  const codes = new Set<string>();
  for (const index of candidates) {
    if (shown.size === MAX_SHOWN) break;
    if (codes.has(entries[index]!.code)) continue;
    codes.add(entries[index]!.code);
    shown.add(index);
  }
  for (const index of candidates) {
    if (shown.size === MAX_SHOWN) break;
    shown.add(index);
  }
  return [...shown].sort((a, b) => a - b);
}

const blocks = (entry: AnyFinding): boolean => entry.severity === "ERROR";
const notJudged = (entry: AnyFinding): boolean => checkOfAny(entry) === "COVERAGE";

/**
 * Which entries of an answer's lists its summary shows (blocking or not judged), list by list, as indexes into
 * each list: for a face that trims the answer itself (GraphQL's detail: SUMMARY) to what its summary says. The
 * lists are read as one, in the order the summary reads them.
 */
export function shownInSummary(lists: readonly (readonly AnyFinding[])[]): ReadonlySet<number>[] {
  const all = lists.flat();
  const shown = new Set([...shownIndexes(all, blocks), ...shownIndexes(all, notJudged)]);
  let offset = 0;
  return lists.map((list) => {
    const start = offset;
    offset += list.length;
    return new Set(list.flatMap((_entry, index) => (shown.has(start + index) ? [index] : [])));
  });
}

function countsOf(findings: readonly AnyFinding[]): Pick<AnswerCounts, "findings" | "byCode"> {
  const bySeverity = { ERROR: 0, WARNING: 0, INFO: 0 };
  const byCode = new Map<string, { code: string; severity: Severity; count: number }>();
  for (const entry of findings) {
    bySeverity[entry.severity] += 1;
    const key = `${entry.severity} ${entry.code}`;
    const known = byCode.get(key);
    if (known === undefined)
      byCode.set(key, { code: entry.code, severity: entry.severity, count: 1 });
    else known.count += 1;
  }
  const codes = [...byCode.values()].sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      b.count - a.count ||
      a.code.localeCompare(b.code),
  );
  return { findings: bySeverity, byCode: codes };
}

/** A plan's step as one line: `3. kubelet@pool-a 1.29.8 → 1.30.14`, or what it changes when not a version. */
export function upgradeStepLine(step: UpgradeStep): string {
  const who = `${step.order}. ${step.component}${step.instance === null ? "" : `@${step.instance}`}`;
  const words = actionWords(step);
  if (words === null) return `${who} ${step.fromVersion} → ${step.toVersion}`;
  return step.featureGates === null
    ? `${who}: ${words}`
    : `${who}: ${words} (→ ${step.featureGates || "none left"})`;
}

/** A node-pool step as one line: `1. drain`, `3. kubelet 1.29.8 → 1.30.4`. */
export function nodePoolStepLine(step: NodePoolStep): string {
  const who = `${step.order}. ${step.action}${step.component === null || step.component === step.action ? "" : ` ${step.component}`}`;
  if (step.fromVersion === null && step.toVersion === null) return who;
  return `${who} ${step.fromVersion ?? "?"} → ${step.toVersion ?? "?"}`;
}

interface SummaryParts {
  readonly status: Verdict;
  readonly ok?: boolean;
  readonly kbRevision: number;
  readonly targetVersion?: string;
  readonly findings: readonly AnyFinding[];
  /** False when the answer itself says a part of the input was not read (a scan's complete: false). */
  readonly complete?: boolean;
  readonly steps?: readonly string[];
  readonly objects?: number;
  readonly documents?: number;
  readonly flows?: number;
}

function summaryOf(parts: SummaryParts): AnswerSummary {
  const { findings } = parts;
  const errors = findings.filter(blocks).length;
  const uncovered = findings.filter(notJudged).length;
  const blocking = shownIndexes(findings, blocks).map((index) => shownFinding(findings[index]!));
  const unjudged = shownIndexes(findings, notJudged).map((index) => shownFinding(findings[index]!));
  return {
    detail: "summary",
    status: parts.status,
    ok: parts.ok ?? isOk(parts.status),
    kbRevision: parts.kbRevision,
    targetVersion: parts.targetVersion ?? null,
    allJudged: uncovered === 0 && parts.complete !== false && parts.status !== "NOT_JUDGED",
    blocking,
    blockingNotShown: errors - blocking.length,
    notJudged: unjudged,
    notJudgedNotShown: uncovered - unjudged.length,
    steps: parts.steps ?? null,
    counts: {
      ...countsOf(parts.findings),
      steps: parts.steps?.length ?? null,
      objects: parts.objects ?? null,
      documents: parts.documents ?? null,
      flows: parts.flows ?? null,
    },
    full: FULL_ANSWER_HINT,
  };
}

export function summariseValidation(report: ValidationReport): AnswerSummary {
  return summaryOf(report);
}

export function summarisePlan(plan: UpgradePlan): AnswerSummary {
  return summaryOf({ ...plan, steps: plan.steps.map(upgradeStepLine) });
}

export function summariseManifestScan(scan: ManifestScanReport): AnswerSummary {
  return summaryOf({
    ...scan,
    // The order verdictOf judges them in: the notes (unreadable documents, knowledge edges) lead.
    findings: [...scan.notes, ...scan.findings, ...scan.changeFindings],
    objects: scan.objectsScanned,
    documents: scan.documentsScanned,
  });
}

export function summariseClusterScan(scan: ClusterScanReport): AnswerSummary {
  return summaryOf({ ...scan, findings: [...scan.notes, ...scan.findings] });
}

export function summariseFirewall(check: FirewallCheck): AnswerSummary {
  return summaryOf({
    ...check,
    targetVersion: check.version ?? undefined,
    flows: check.flowsChecked,
  });
}

export function summariseNodePool(report: NodePoolReport): AnswerSummary {
  return summaryOf({ ...report, steps: report.steps.map(nodePoolStepLine) });
}

/** The summary of any operation's answer, told apart by the fields only its kind has. */
export function summariseAnswer(answer: OperationAnswer): AnswerSummary {
  if ("changeFindings" in answer) return summariseManifestScan(answer);
  if ("releases" in answer) return summariseClusterScan(answer);
  if ("hops" in answer) return summarisePlan(answer);
  if ("pool" in answer) return summariseNodePool(answer);
  if ("flowsChecked" in answer) return summariseFirewall(answer);
  return summariseValidation(answer);
}
