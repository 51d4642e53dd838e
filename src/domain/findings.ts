/**
 * What the domain core reports. Expected outcomes (an invalid plan, a
 * removed API) are findings, not exceptions; only malformed input throws.
 * Codes are stable identifiers that bots branch on; FINDING_CODES documents
 * every one of them with its check (the SDL and OpenAPI descriptions are generated from it).
 */
import { CONTENT_FINDING_CODES } from "./finding-contents.js";
import { VERSION_FINDING_CODES } from "./finding-versions.js";

export type Severity = "ERROR" | "WARNING" | "INFO";

export interface Finding {
  readonly code: FindingCode;
  /** What kind of check found it (from the code): rules and faces ask this, never the code's spelling. */
  readonly check: FindingCheck;
  readonly severity: Severity;
  readonly component: string | null;
  readonly instance: string | null;
  readonly message: string;
  readonly sourceUrl: string | null;
  /** The knowledge-base record behind the finding (a skew rule id, a requirement id), when there is one. */
  readonly ruleId: string | null;
}

/**
 * What a report means, as people read it: SUPPORTED (no ERROR, no WARNING),
 * SUPPORTED_WITH_WARNINGS, UNSUPPORTED (any ERROR), or NOT_JUDGED (the
 * question could not be checked, e.g. no control plane named). A version
 * past its end of life is a WARNING, so it is never plain SUPPORTED.
 */
export type Verdict = "SUPPORTED" | "SUPPORTED_WITH_WARNINGS" | "UNSUPPORTED" | "NOT_JUDGED";

/** Findings that mean the question itself was not judged (nothing was checked against a control plane). */
const NOT_JUDGED_CODES: ReadonlySet<FindingCode> = new Set<FindingCode>([
  "NO_APISERVER_IN_PLAN",
  "NOTHING_JUDGED",
]);

/**
 * UNSUPPORTED on any ERROR, except when nothing at all was judged (NOTHING_JUDGED: the ERRORs then are about
 * the input, such as unreadable documents, not about compatibility); NOT_JUDGED when nothing, or nothing
 * against a control plane, was checked; then the warnings.
 */
export function verdictOf(
  findings: readonly { readonly code: string; readonly severity: Severity }[],
): Verdict {
  if (findings.some((entry) => entry.code === "NOTHING_JUDGED")) return "NOT_JUDGED";
  if (findings.some((entry) => entry.severity === "ERROR")) return "UNSUPPORTED";
  if (findings.some((entry) => NOT_JUDGED_CODES.has(entry.code as FindingCode)))
    return "NOT_JUDGED";
  if (findings.some((entry) => entry.severity === "WARNING")) return "SUPPORTED_WITH_WARNINGS";
  return "SUPPORTED";
}

/** `ok` as it always was for clients, now true only for the two supported verdicts. */
export function isOk(status: Verdict): boolean {
  return status === "SUPPORTED" || status === "SUPPORTED_WITH_WARNINGS";
}

export interface ValidationReport {
  readonly ok: boolean;
  readonly status: Verdict;
  readonly kbRevision: number;
  readonly findings: readonly Finding[];
}

/**
 * The structured kind of a finding, so that a rule, a face or a bot can ask what was checked without matching
 * code strings. The SDL's FindingCheck enum is generated from this table (npm run codegen).
 */
export const FINDING_CHECKS = {
  SKEW: "A component's version against kube-apiserver's, under the skew rules of the profile in force.",
  SKEW_PEERS:
    "kube-apiserver instances of one cluster against each other (an HA control plane mid-upgrade).",
  SKEW_KUBELET: "kube-proxy against the kubelet on the same node pool.",
  RUNTIME:
    "A container runtime (or etcd) against what the kubelet (or kube-apiserver) of its minor requires or its project lists.",
  RELEASE:
    "The Kubernetes release calendar: maintenance mode, a target the knowledge base does not know.",
  END_OF_LIFE:
    "A Kubernetes minor or a runtime's release line past its end of life on the day asked about.",
  VERSION:
    "Whether a version is recognised: newer or older than the knowledge base, a pre-release.",
  PLAN: "The mechanics of an upgrade plan: refused, blocked, nothing to do, a downgrade.",
  ROLLBACK: "Whether a component can go back to an older version.",
  API: "The API versions manifests use, against what the target serves.",
  NODE: "Facts of a node pool: flags, configuration fields, kube-proxy mode, cgroup version, chart constraints.",
  COVERAGE:
    "What was not judged: no control plane named, an instance that matches no kubelet, an unknown API group, where the knowledge ends.",
  ADVICE: "Upgrade advice that applies to the path (headroom, leader election, draining).",
  FEATURE_GATE:
    "Feature gates a component is started with, against the gates its version has (removed, not yet there, locked, deprecated).",
  CONFIG_API:
    "The version of a configuration file (KubeletConfiguration, KubeSchedulerConfiguration ...) against what the component of the target reads.",
  FIELD:
    "Fields and annotations of objects that a behaviour change breaks or weakens (kb/field-rules.yaml).",
  FIREWALL: "Network flows between node roles against a list of what the firewall allows.",
  ADDON:
    "An add-on's version against the control plane's minor, by the add-on's own compatibility table or rule (kb/addons.yaml).",
  ADDON_API:
    "Objects of an add-on's CRD API version against the add-on release that deprecated or stopped serving it (kb/addon-apis.yaml).",
  CRD: "Objects of a custom resource against the versions its CustomResourceDefinition serves, and a CRD update against the versions the cluster has stored.",
  PLATFORM:
    "A managed platform's own calendar, rules and facts (kb/platforms.yaml), where they differ from upstream.",
  CHART:
    "A Helm chart's own metadata: its format (Chart.yaml apiVersion) and the kubeVersion constraints of it and its subcharts, against the target.",
  ETCD: "etcd as a cluster: members on more than one minor, the upgrade path between etcd minors, and the number of members.",
} as const;

export type FindingCheck = keyof typeof FINDING_CHECKS;

/** A code's entry in the catalogue: the check it belongs to, and what it means. */
export interface FindingCodeEntry {
  readonly check: FindingCheck;
  readonly description: string;
}

/**
 * Every finding code, with its check and what it means: the one place codes are documented. The SDL's and
 * OpenAPI's descriptions of Finding.code are generated from it (npm run codegen). SKEW_COMPONENT_* stand for
 * the codes skewCode builds with a component's name. The codes about versions come first, then those about
 * contents (finding-versions.ts, finding-contents.ts).
 */
export const FINDING_CODES = {
  ...VERSION_FINDING_CODES,
  ...CONTENT_FINDING_CODES,
} as const satisfies Readonly<Record<string, FindingCodeEntry>>;

/** The codes a component's name goes into (skewCode). */
export type SkewCode =
  | `SKEW_${string}_NEWER_THAN_APISERVER`
  | `SKEW_${string}_TOO_OLD_FOR_APISERVER`;

export type FindingCode = keyof typeof FINDING_CODES | SkewCode;

/** The check of a code: its entry, or SKEW for the codes skewCode builds. */
export function checkOf(code: FindingCode): FindingCheck {
  return code in FINDING_CODES ? FINDING_CODES[code as keyof typeof FINDING_CODES].check : "SKEW";
}

/** Whether `code` is one the service gives (a listed code, or a skew code of a component). */
export function isFindingCode(code: string): boolean {
  return (
    code in FINDING_CODES ||
    /^SKEW_[A-Z0-9_]+_(NEWER_THAN_APISERVER|TOO_OLD_FOR_APISERVER)$/.test(code)
  );
}

export function skewCode(
  component: string,
  problem: "NEWER_THAN_APISERVER" | "TOO_OLD_FOR_APISERVER",
): SkewCode {
  return `SKEW_${component.toUpperCase().replaceAll("-", "_")}_${problem}`;
}

export function finding(
  fields: Pick<Finding, "code" | "severity" | "message"> &
    Partial<Omit<Finding, "code" | "check" | "severity" | "message">>,
): Finding {
  return {
    code: fields.code,
    check: checkOf(fields.code),
    severity: fields.severity,
    component: fields.component ?? null,
    instance: fields.instance ?? null,
    message: fields.message,
    sourceUrl: fields.sourceUrl ?? null,
    ruleId: fields.ruleId ?? null,
  };
}

const SEVERITY_ORDER: Record<Severity, number> = { ERROR: 0, WARNING: 1, INFO: 2 };

/** Errors first, then warnings, then information; stable otherwise. */
export function report(kbRevision: number, findings: readonly Finding[]): ValidationReport {
  const sorted = findings
    .map((entry, index) => ({ entry, index }))
    .sort(
      (a, b) =>
        SEVERITY_ORDER[a.entry.severity] - SEVERITY_ORDER[b.entry.severity] || a.index - b.index,
    )
    .map(({ entry }) => entry);
  const status = verdictOf(sorted);
  return { ok: isOk(status), status, kbRevision, findings: sorted };
}
