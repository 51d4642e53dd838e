/**
 * The shapes of the server's answers, as far as the CLI reads them, and a
 * light check that an answer has them: a server of another version (or not
 * a kubecompat server at all) is reported as such, rather than crashing the
 * formatter. The JSON output is always the answer as received, untouched.
 *
 * The shapes are the domain's own report types (the REST routes send them as
 * they are), seen as JSON by `Received`, with the fields the domain added
 * after the CLI first read an answer made optional by `AddedLater`: the CLI
 * still reads the answers of servers that old (for check, plan, scan and
 * nodepool, those of the CLI's first release, commit 151db06, 2026-11-29).
 * A field added to a report the CLI reads must be named there, or the CLI
 * would take for granted what an older server does not send.
 */
import type { Finding as DomainFinding, ValidationReport } from "../../domain/findings.js";
import type { ClusterScanReport } from "../../domain/cluster-evidence.js";
import type { FlowList } from "../../domain/firewall.js";
import type { UpgradeImpact } from "../../domain/impact.js";
import type { NodePoolReport } from "../../domain/node-pool.js";
import type {
  ChangeFinding as DomainChangeFinding,
  ManifestFinding as DomainManifestFinding,
  ManifestScanReport,
} from "../../domain/scan.js";
import type { UpgradePlan, UpgradeStep as DomainUpgradeStep } from "../../domain/upgrade.js";
import type { ManifestFixReport } from "../../domain/manifest-fix.js";
import type { ApiRemovalRecord } from "../../knowledge/records.js";
import { ServerAnswerError } from "./errors.js";

/**
 * A domain type as the CLI receives it, in JSON: read-only, a Date as its ISO string, and every
 * string-literal union (a code, a severity, a status, an action) widened to string, since a newer server may
 * send a value this CLI does not know yet, which it shows rather than rejects.
 */
export type Received<T> = T extends string
  ? string
  : T extends number | boolean | null | undefined
    ? T
    : T extends Date
      ? string
      : T extends readonly (infer Item)[]
        ? readonly Received<Item>[]
        : { readonly [Field in keyof T]: Received<T[Field]> };

/**
 * An answer whose fields `Added` came after the CLI first read it: a server of that time sends none of them,
 * so the CLI must read each as possibly absent.
 */
export type AddedLater<T, Added extends keyof T> = Omit<T, Added> & {
  readonly [Field in Added]?: T[Field];
};

/** `T` with the fields of `Nested` read as the CLI's own types (their later fields optional in turn). */
type Reading<T, Nested extends { readonly [Field in keyof T]?: unknown }> = Omit<T, keyof Nested> &
  Nested;

/** "ERROR", "WARNING" or "INFO" today; kept a string so a newer server's severity is shown, not rejected. */
export type Severity = string;

/** A finding of validate, upgrade-plan and the node-pool checks, and a note of a scan. */
export type Finding = AddedLater<Received<DomainFinding>, "check">;

export type ValidationAnswer = AddedLater<
  Reading<Received<ValidationReport>, { readonly findings: readonly Finding[] }>,
  "status"
>;

/** `action` and `featureGates` came with MIGRATE_CGROUP_V2 and REMOVE_FEATURE_GATES, `undo` after them. */
export type UpgradeStep = AddedLater<
  Received<DomainUpgradeStep>,
  "action" | "featureGates" | "undo"
>;

export type ApiRemoval = AddedLater<Received<ApiRemovalRecord>, "introducedIn" | "servedByDefault">;

export type UpgradePlanAnswer = AddedLater<
  Reading<
    Received<UpgradePlan>,
    {
      readonly findings: readonly Finding[];
      readonly steps: readonly UpgradeStep[];
      readonly apiRemovals: readonly ApiRemoval[];
    }
  >,
  "status" | "hops"
>;

export type ManifestFinding = AddedLater<Received<DomainManifestFinding>, "phase">;

/** Came with the scan's changeFindings, all its fields at once. */
export type ChangeFinding = Received<DomainChangeFinding>;

export type ScanAnswer = AddedLater<
  Reading<
    Received<ManifestScanReport>,
    {
      readonly findings: readonly ManifestFinding[];
      readonly notes: readonly Finding[];
      readonly changeFindings: readonly ChangeFinding[];
    }
  >,
  "status" | "notes" | "changeFindings" | "complete"
>;

/** What the scan's table shows of a finding: what manifest and change findings both say. */
export type ScanRow = Pick<
  ManifestFinding,
  | "code"
  | "severity"
  | "apiVersion"
  | "kind"
  | "name"
  | "namespace"
  | "documentIndex"
  | "line"
  | "source"
  | "removedIn"
  | "deprecatedIn"
  | "replacement"
  | "message"
  | "sourceUrl"
>;

/** A change finding in the shape of the scan's table rows (changesIn standing for removedIn). */
export function asManifestFinding(change: ChangeFinding): ScanRow {
  return {
    code: change.code,
    severity: change.severity,
    apiVersion: change.apiVersion,
    kind: change.kind,
    name: change.name,
    namespace: change.namespace,
    documentIndex: change.documentIndex,
    line: change.line,
    source: change.source,
    removedIn: change.changesIn ?? "",
    deprecatedIn: null,
    replacement: change.replacement,
    message: change.message,
    sourceUrl: change.sourceUrl,
  };
}

export type NodePoolStep = NodePoolAnswer["steps"][number];

/** The answer of the node-pool upgrade and rollback checks. */
export type NodePoolAnswer = AddedLater<
  Reading<Received<NodePoolReport>, { readonly findings: readonly Finding[] }>,
  "status"
>;

/** The answer of scan-cluster; all its fields came with the command. */
export type ClusterAnswer = Received<ClusterScanReport>;

/** The answer of GET /api/v1/upgrade-impact (impact); all its fields came with the command. */
export type ImpactAnswer = Received<UpgradeImpact>;

/** The answer of GET /api/v1/flows (flows); all its fields came with the command. */
export type FlowsAnswer = Received<FlowList>;

function hasFields(
  answer: unknown,
  fields: Readonly<Record<string, "boolean" | "number" | "string" | "array">>,
): boolean {
  if (answer === null || typeof answer !== "object") return false;
  const record = answer as Record<string, unknown>;
  return Object.entries(fields).every(([field, type]) =>
    type === "array" ? Array.isArray(record[field]) : typeof record[field] === type,
  );
}

function unexpected(server: string, route: string): ServerAnswerError {
  return new ServerAnswerError(
    `${server} answered ${route} without the fields this CLI reads; is it a kubecompat server of a matching version?`,
  );
}

export function asValidationAnswer(
  answer: unknown,
  server: string,
  route: string,
): ValidationAnswer {
  if (!hasFields(answer, { ok: "boolean", findings: "array" })) throw unexpected(server, route);
  return answer as ValidationAnswer;
}

export function asUpgradePlanAnswer(
  answer: unknown,
  server: string,
  route: string,
): UpgradePlanAnswer {
  if (
    !hasFields(answer, {
      ok: "boolean",
      findings: "array",
      steps: "array",
      apiRemovals: "array",
      targetVersion: "string",
    })
  ) {
    throw unexpected(server, route);
  }
  return answer as UpgradePlanAnswer;
}

export function asNodePoolAnswer(answer: unknown, server: string, route: string): NodePoolAnswer {
  if (!hasFields(answer, { ok: "boolean", findings: "array", steps: "array", pool: "string" }))
    throw unexpected(server, route);
  return answer as NodePoolAnswer;
}

export function asScanAnswer(answer: unknown, server: string, route: string): ScanAnswer {
  if (!hasFields(answer, { targetVersion: "string", findings: "array" }))
    throw unexpected(server, route);
  return answer as ScanAnswer;
}

/** POST /api/v1/fix's answer; its scan after the fix is read as a scan's answer. */
export type FixAnswer = Reading<Received<ManifestFixReport>, { readonly after: ScanAnswer }>;

export function asFixAnswer(answer: unknown, server: string, route: string): FixAnswer {
  if (
    !hasFields(answer, {
      targetVersion: "string",
      changed: "boolean",
      manifests: "string",
      diff: "string",
      objects: "array",
    })
  )
    throw unexpected(server, route);
  return answer as FixAnswer;
}

/**
 * The exit code of a judged answer under --fail-on: error fails on an ERROR
 * or a question that could not be checked (status UNSUPPORTED or NOT_JUDGED,
 * ok false); warning also on any WARNING; eol also on anything past its end
 * of life. The exit code follows the status the server gave.
 */
export function fails(
  answer: {
    readonly ok?: boolean;
    readonly status?: string;
    readonly findings: readonly { severity: string; code: string; check?: string }[];
  },
  failOn: "error" | "warning" | "eol",
): boolean {
  if (
    answer.ok === false ||
    answer.status === "UNSUPPORTED" ||
    answer.status === "NOT_JUDGED" ||
    hasError(answer.findings)
  )
    return true;
  if (failOn === "warning")
    return answer.findings.some((finding) => finding.severity === "WARNING");
  if (failOn === "eol") return answer.findings.some((finding) => finding.check === "END_OF_LIFE");
  return false;
}

/**
 * The verdict of several files' scans as one: NOT_JUDGED only when no file could be judged (a values file
 * among manifests is said by its own NOTHING_JUDGED warning), else the worst of the others.
 */
export function scanStatus(statuses: readonly (string | undefined)[]): string {
  // An older server sends no status: its findings still decide the exit code (fails).
  const known = statuses.map((status) => status ?? "SUPPORTED");
  const judged = known.filter((status) => status !== "NOT_JUDGED");
  if (judged.length === 0) return "NOT_JUDGED";
  if (judged.includes("UNSUPPORTED")) return "UNSUPPORTED";
  if (judged.length < known.length || judged.some((status) => status !== "SUPPORTED"))
    return "SUPPORTED_WITH_WARNINGS";
  return "SUPPORTED";
}

export function hasError(findings: readonly { severity: string }[]): boolean {
  return findings.some((finding) => finding.severity === "ERROR");
}
