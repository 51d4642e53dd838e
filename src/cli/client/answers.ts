/**
 * The shapes of the server's answers, as far as the CLI reads them, and a
 * light check that an answer has them: a server of another version (or not
 * a kubecompat server at all) is reported as such, rather than crashing the
 * formatter. The JSON output is always the answer as received, untouched.
 */
import { ServerAnswerError } from "./errors.js";

/** "ERROR", "WARNING" or "INFO" today; kept a string so a newer server's severity is shown, not rejected. */
export type Severity = string;

/** A finding of validate and upgrade-plan. */
export interface Finding {
  readonly code: string;
  /** What kind of check found it (FINDING_CHECKS); the CLI asks it, e.g. for --fail-on eol. */
  readonly check?: string;
  readonly severity: Severity;
  readonly component: string | null;
  readonly instance: string | null;
  readonly message: string;
  readonly sourceUrl: string | null;
  readonly ruleId?: string | null;
}

export interface ValidationAnswer {
  readonly ok: boolean;
  /** SUPPORTED, SUPPORTED_WITH_WARNINGS, UNSUPPORTED or NOT_JUDGED; absent from older servers. */
  readonly status?: string;
  readonly kbRevision: number;
  readonly findings: readonly Finding[];
}

export interface UpgradeStep {
  readonly order: number;
  /** UPGRADE, MIGRATE_CGROUP_V2 or REMOVE_FEATURE_GATES (versions unchanged for the last two); absent from older servers. */
  readonly action?: string;
  readonly component: string;
  readonly instance: string | null;
  readonly fromVersion: string;
  readonly toVersion: string;
  readonly note: string;
  /** The last point a control-plane hop can be undone (servers before this field was added send none). */
  readonly undo?: string | null;
}

export interface ApiRemoval {
  readonly apiVersion?: string;
  readonly group?: string;
  readonly version?: string;
  readonly kind: string;
  readonly removedIn: string;
  readonly replacement: string | null;
  readonly sourceUrl?: string | null;
}

export interface UpgradePlanAnswer extends ValidationAnswer {
  readonly targetVersion: string;
  readonly steps: readonly UpgradeStep[];
  readonly apiRemovals: readonly ApiRemoval[];
  /** What each control-plane minor crossed changes (absent from servers older than it). */
  readonly hops?: ReadonlyArray<{
    readonly kubernetesVersion: string;
    readonly changes: ReadonlyArray<{ readonly title: string }>;
  }>;
}

/** What every finding of a scan says about where it is, as the server sends it. */
interface ObjectFinding {
  readonly code: string;
  readonly severity: Severity;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string | null;
  readonly namespace: string | null;
  readonly documentIndex: number;
  readonly line: number;
  readonly source: string | null;
}

export interface ManifestFinding extends ObjectFinding {
  readonly removedIn: string;
  readonly deprecatedIn: string | null;
  readonly replacement: string | null;
  readonly message: string;
  readonly sourceUrl: string | null;
}

export interface ScanAnswer {
  readonly targetVersion: string;
  /** SUPPORTED, SUPPORTED_WITH_WARNINGS, UNSUPPORTED or NOT_JUDGED; absent from older servers. */
  readonly status?: string;
  readonly kbRevision: number;
  readonly documentsScanned: number;
  readonly objectsScanned: number;
  readonly findings: readonly ManifestFinding[];
  /** About the scan as a whole (KNOWLEDGE_EDGE); absent from older servers. */
  readonly notes?: readonly Finding[];
  /** Fields, annotations and configuration files a behaviour change touches; absent from older servers. */
  readonly changeFindings?: readonly ChangeFinding[];
}

export interface ChangeFinding extends ObjectFinding {
  readonly field: string | null;
  readonly changesIn: string | null;
  readonly replacement: string | null;
  readonly message: string;
  readonly sourceUrl: string | null;
}

/** A change finding in the shape of the scan's table rows (changesIn standing for removedIn). */
export function asManifestFinding(change: ChangeFinding): ManifestFinding {
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

export interface NodePoolStep {
  readonly order: number;
  readonly action: string;
  readonly component: string | null;
  readonly fromVersion: string | null;
  readonly toVersion: string | null;
  readonly note: string;
}

/** The answer of the node-pool upgrade and rollback checks. */
export interface NodePoolAnswer extends ValidationAnswer {
  readonly pool: string;
  readonly steps: readonly NodePoolStep[];
}

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
