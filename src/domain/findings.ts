/**
 * What the domain core reports. Expected outcomes (an invalid plan, a
 * removed API) are findings, not exceptions; only malformed input throws.
 * Codes are stable identifiers that bots branch on; FINDING_CODES documents
 * every one of them (the GraphQL schema docs list them too).
 */

export type Severity = "ERROR" | "WARNING" | "INFO";

export interface Finding {
  readonly code: string;
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
const NOT_JUDGED_CODES = new Set(["NO_APISERVER_IN_PLAN"]);

export function verdictOf(findings: readonly Pick<Finding, "code" | "severity">[]): Verdict {
  if (findings.some((entry) => entry.severity === "ERROR")) return "UNSUPPORTED";
  if (findings.some((entry) => NOT_JUDGED_CODES.has(entry.code))) return "NOT_JUDGED";
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

export const FINDING_CODES = {
  SKEW_APISERVER_HA_SPREAD: "kube-apiserver instances are more than the allowed minors apart.",
  SKEW_COMPONENT_NEWER_THAN_APISERVER:
    "Used as SKEW_<COMPONENT>_NEWER_THAN_APISERVER (e.g. SKEW_KUBELET_NEWER_THAN_APISERVER): the component is newer than the oldest kube-apiserver allows.",
  SKEW_COMPONENT_TOO_OLD_FOR_APISERVER:
    "Used as SKEW_<COMPONENT>_TOO_OLD_FOR_APISERVER (e.g. SKEW_KUBELET_TOO_OLD_FOR_APISERVER): the component is further behind the kube-apiserver than the rule in force allows.",
  SKEW_KUBE_PROXY_NEWER_THAN_KUBELET: "kube-proxy is newer than the kubelet on the same instance allows.",
  SKEW_KUBE_PROXY_OLDER_THAN_KUBELET: "kube-proxy is older than the kubelet on the same instance allows.",
  NO_APISERVER_IN_PLAN: "The plan names no kube-apiserver, so skew against it was not checked.",
  RUNTIME_DOCKERSHIM_REMOVED: "Docker Engine without cri-dockerd under a kubelet that no longer has dockershim.",
  RUNTIME_VERSION_TOO_OLD: "The container runtime (or etcd) is older than the kubelet (or kube-apiserver) requires.",
  RUNTIME_BELOW_RECOMMENDED: "The container runtime is older than the versions its project lists for this Kubernetes minor.",
  RUNTIME_MINOR_MISMATCH: "CRI-O's minor differs from the kubelet's; CRI-O minors track Kubernetes minors.",
  RUNTIME_UNSUPPORTED: "The component version is no longer supported by this Kubernetes minor.",
  RUNTIME_SUPPORT_ENDING: "Support for this runtime version is ending in a coming Kubernetes minor.",
  RUNTIME_NOT_CHECKED: "The runtime could not be matched to a kubelet (no kubelet on its instance), so its requirements were not checked; the message names the nearest instance.",
  KUBE_PROXY_NOT_CHECKED: "kube-proxy could not be matched to a kubelet (no kubelet on its instance), so its skew against the kubelet was not checked.",
  RELEASE_END_OF_LIFE: "The Kubernetes minor is past its end of life on the asOf date.",
  RELEASE_MAINTENANCE_MODE: "The Kubernetes minor is past the end of standard support (maintenance mode) on the asOf date.",
  VERSION_UNKNOWN_NEWER: "The version is newer than any release the knowledge base knows; it was not checked against release data.",
  VERSION_OLDER_THAN_KB: "The version is older than the oldest release the knowledge base covers.",
  VERSION_PRERELEASE: "A pre-release version (alpha, beta, rc) is not meant for production.",
  DOWNGRADE_NOT_SUPPORTED: "The target is older than the running control plane; Kubernetes does not support control-plane downgrades.",
  PLAN_CURRENT_STATE_INVALID: "The current cluster does not validate; fix its ERROR findings before planning an upgrade.",
  PLAN_BLOCKED: "The upgrade cannot continue without a change the planner cannot make (e.g. replacing Docker Engine).",
  PLAN_NOTHING_TO_DO: "Every component is already at the target minor.",
  API_REMOVED_IN_UPGRADE: "An API version served by the current control plane stops being served on the way to the target.",
  RUNTIME_REQUIREMENT_IN_UPGRADE: "A runtime requirement starts to apply on the way to the target.",
  ETCD_VERSION_UNVERIFIED: "The knowledge base has no etcd version for a minor on the way; check etcd against the release notes.",
  RECOMMENDATION: "Advice for the upgrade (headroom, leader election, draining).",
  ROLLBACK_NOT_A_DOWNGRADE: "The rollback version is not older than the running one.",
  ROLLBACK_CONTROL_PLANE_UNSUPPORTED: "Control-plane components cannot be rolled back to an older minor.",
  ROLLBACK_MULTIPLE_MINORS: "The rollback goes back more than one minor.",
  ROLLBACK_TRAP: "After the rollback the component would be out of skew with the control plane that has moved on.",
  ROLLBACK_UNSUPPORTED_ETCD_MINOR: "etcd minor downgrades need etcd's own downgrade procedure.",
  TARGET_UNKNOWN: "The upgrade target is newer than any release the knowledge base knows; no plan is made.",
  TARGET_END_OF_LIFE: "The upgrade target is past its end of life on the date of the plan; the message names the oldest supported minor.",
  API_NOT_JUDGED: "Objects of an API group/version the knowledge base knows nothing of (a custom resource's); one INFO per group/version with the count.",
  DOCUMENT_UNREADABLE: "A document of the scanned input is not valid YAML; it was skipped and the scan says complete: false.",
  KNOWLEDGE_EDGE: "The question is about a Kubernetes minor beyond what a kind of knowledge covers (kb/coverage.yaml); that part was not judged.",
  RUNTIME_END_OF_LIFE: "The container runtime's own release line is past its end of life on the asOf date (its project's release table).",
  CGROUP_V1_UNSUPPORTED: "The kubelet does not start on a cgroup v1 node by default from 1.35 (failCgroupV1 defaults to true).",
  CGROUP_V1_DEPRECATED: "cgroup v1 is deprecated or in maintenance mode for this component; move the nodes to cgroup v2.",
} as const;

export function skewCode(component: string, problem: "NEWER_THAN_APISERVER" | "TOO_OLD_FOR_APISERVER"): string {
  return `SKEW_${component.toUpperCase().replaceAll("-", "_")}_${problem}`;
}

export function finding(
  fields: Pick<Finding, "code" | "severity" | "message"> & Partial<Omit<Finding, "code" | "severity" | "message">>,
): Finding {
  return {
    code: fields.code,
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
    .sort((a, b) => SEVERITY_ORDER[a.entry.severity] - SEVERITY_ORDER[b.entry.severity] || a.index - b.index)
    .map(({ entry }) => entry);
  const status = verdictOf(sorted);
  return { ok: isOk(status), status, kbRevision, findings: sorted };
}
