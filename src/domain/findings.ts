/**
 * What the domain core reports. Expected outcomes (an invalid plan, a
 * removed API) are findings, not exceptions; only malformed input throws.
 * Codes are stable identifiers that bots branch on; FINDING_CODES documents
 * every one of them with its check (the SDL and OpenAPI descriptions are generated from it).
 */

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
  ETCD: "etcd as a cluster: members on more than one minor, the upgrade path between etcd minors, and the number of members.",
} as const;

export type FindingCheck = keyof typeof FINDING_CHECKS;

/**
 * Every finding code, with its check and what it means: the one place codes are documented. The SDL's and
 * OpenAPI's descriptions of Finding.code are generated from it (npm run codegen). SKEW_COMPONENT_* stand for
 * the codes skewCode builds with a component's name.
 */
export const FINDING_CODES = {
  SKEW_APISERVER_HA_SPREAD: {
    check: "SKEW_PEERS",
    description: "kube-apiserver instances are more than the allowed minors apart.",
  },
  SKEW_COMPONENT_NEWER_THAN_APISERVER: {
    check: "SKEW",
    description:
      "Used as SKEW_<COMPONENT>_NEWER_THAN_APISERVER (e.g. SKEW_KUBELET_NEWER_THAN_APISERVER): the component is newer than the oldest kube-apiserver allows.",
  },
  SKEW_COMPONENT_TOO_OLD_FOR_APISERVER: {
    check: "SKEW",
    description:
      "Used as SKEW_<COMPONENT>_TOO_OLD_FOR_APISERVER (e.g. SKEW_KUBELET_TOO_OLD_FOR_APISERVER): the component is further behind the kube-apiserver than the rule in force allows.",
  },
  SKEW_KUBE_PROXY_NEWER_THAN_KUBELET: {
    check: "SKEW_KUBELET",
    description: "kube-proxy is newer than the kubelet on the same instance allows.",
  },
  SKEW_KUBE_PROXY_OLDER_THAN_KUBELET: {
    check: "SKEW_KUBELET",
    description: "kube-proxy is older than the kubelet on the same instance allows.",
  },
  NO_APISERVER_IN_PLAN: {
    check: "COVERAGE",
    description: "The plan names no kube-apiserver, so skew against it was not checked.",
  },
  NOTHING_JUDGED: {
    check: "COVERAGE",
    description:
      "Nothing in the input could be judged (a scan with no Kubernetes object of an API the knowledge base knows: empty input, every document unreadable, no apiVersion and kind; a cluster scan whose evidence holds no release object, no last-applied object, no apiserver metric and no audit event); the answer is NOT_JUDGED, never green.",
  },
  RUNTIME_DOCKERSHIM_REMOVED: {
    check: "RUNTIME",
    description: "Docker Engine without cri-dockerd under a kubelet that no longer has dockershim.",
  },
  RUNTIME_VERSION_TOO_OLD: {
    check: "RUNTIME",
    description:
      "The container runtime (or etcd) is older than the kubelet (or kube-apiserver) requires.",
  },
  RUNTIME_BELOW_RECOMMENDED: {
    check: "RUNTIME",
    description:
      "The container runtime is older than the versions its project lists for this Kubernetes minor.",
  },
  RUNTIME_MINOR_MISMATCH: {
    check: "RUNTIME",
    description: "CRI-O's minor differs from the kubelet's; CRI-O minors track Kubernetes minors.",
  },
  RUNTIME_UNSUPPORTED: {
    check: "RUNTIME",
    description: "The component version is no longer supported by this Kubernetes minor.",
  },
  RUNTIME_SUPPORT_ENDING: {
    check: "RUNTIME",
    description: "Support for this runtime version is ending in a coming Kubernetes minor.",
  },
  RUNTIME_NOT_CHECKED: {
    check: "COVERAGE",
    description:
      "The runtime could not be matched to a kubelet (no kubelet on its instance), so its requirements were not checked; the message names the nearest instance.",
  },
  KUBE_PROXY_NOT_CHECKED: {
    check: "COVERAGE",
    description:
      "kube-proxy could not be matched to a kubelet (no kubelet on its instance), so its skew against the kubelet was not checked.",
  },
  RELEASE_END_OF_LIFE: {
    check: "END_OF_LIFE",
    description: "The Kubernetes minor is past its end of life on the asOf date.",
  },
  RELEASE_MAINTENANCE_MODE: {
    check: "RELEASE",
    description:
      "The Kubernetes minor is past the end of standard support (maintenance mode) on the asOf date.",
  },
  VERSION_UNKNOWN_NEWER: {
    check: "VERSION",
    description:
      "The version is newer than any release the knowledge base knows; it was not checked against release data.",
  },
  VERSION_OLDER_THAN_KB: {
    check: "VERSION",
    description: "The version is older than the oldest release the knowledge base covers.",
  },
  VERSION_NOT_YET_RELEASED: {
    check: "VERSION",
    description:
      "The version's minor was not released yet (upstream, or on the platform) on the day asked about (asOf).",
  },
  VERSION_PRERELEASE: {
    check: "VERSION",
    description: "A pre-release version (alpha, beta, rc) is not meant for production.",
  },
  DOWNGRADE_NOT_SUPPORTED: {
    check: "PLAN",
    description:
      "The target is older than the running control plane; Kubernetes does not support control-plane downgrades.",
  },
  PLAN_CURRENT_STATE_INVALID: {
    check: "PLAN",
    description:
      "The current cluster does not validate; fix its ERROR findings before planning an upgrade.",
  },
  PLAN_BLOCKED: {
    check: "PLAN",
    description:
      "The upgrade cannot continue without a change the planner cannot make (e.g. replacing Docker Engine).",
  },
  PLAN_NOTHING_TO_DO: {
    check: "PLAN",
    description: "Every component is already at the target minor.",
  },
  API_REMOVED_IN_UPGRADE: {
    check: "API",
    description:
      "An API version served by the current control plane stops being served on the way to the target.",
  },
  RUNTIME_REQUIREMENT_IN_UPGRADE: {
    check: "RUNTIME",
    description: "A runtime requirement starts to apply on the way to the target.",
  },
  ETCD_MEMBERS_SKEWED: {
    check: "ETCD",
    description:
      "etcd members run minors that may not run together (more than one minor apart, or not the path etcd's upgrade guide allows).",
  },
  ETCD_UPGRADE_PATH: {
    check: "ETCD",
    description:
      "etcd members run the next minor beside members below the patch its upgrade guide requires before moving (3.5.32 before 3.6).",
  },
  ETCD_MIXED_VERSIONS: {
    check: "ETCD",
    description:
      "etcd members run two neighbouring minors: a rolling upgrade in progress, at the lower minor until every member moves.",
  },
  ETCD_NO_FAULT_TOLERANCE: {
    check: "ETCD",
    description: "etcd has one member: no failure is tolerated; a single member is for testing.",
  },
  ETCD_EVEN_MEMBERS: {
    check: "ETCD",
    description:
      "etcd has an even number of members: it tolerates no more failures than one member fewer would.",
  },
  ETCD_VERSION_UNVERIFIED: {
    check: "COVERAGE",
    description:
      "The knowledge base has no etcd version for a minor on the way; check etcd against the release notes.",
  },
  RECOMMENDATION: {
    check: "ADVICE",
    description: "Advice for the upgrade (headroom, leader election, draining).",
  },
  ROLLBACK_NOT_A_DOWNGRADE: {
    check: "ROLLBACK",
    description: "The rollback version is not older than the running one.",
  },
  ROLLBACK_CONTROL_PLANE_UNSUPPORTED: {
    check: "ROLLBACK",
    description: "Control-plane components cannot be rolled back to an older minor.",
  },
  ROLLBACK_MULTIPLE_MINORS: {
    check: "ROLLBACK",
    description: "The rollback goes back more than one minor.",
  },
  ROLLBACK_TRAP: {
    check: "ROLLBACK",
    description:
      "After the rollback the component would be out of skew with the control plane that has moved on.",
  },
  ROLLBACK_UNSUPPORTED_ETCD_MINOR: {
    check: "ROLLBACK",
    description: "etcd minor downgrades need etcd's own downgrade procedure.",
  },
  PLATFORM_ROLLBACK_AVAILABLE: {
    check: "ROLLBACK",
    description:
      "The managed platform can take the control plane back a minor, until the day said (EKS: within 7 days of the upgrade).",
  },
  ROLLBACK_WINDOW_CLOSED: {
    check: "ROLLBACK",
    description: "The managed platform's window for taking the control plane back has closed.",
  },
  ROLLBACK_WINDOW_UNKNOWN: {
    check: "ROLLBACK",
    description:
      "The platform takes the control plane back only within a window after the upgrade, and the day of the upgrade (upgradedOn) was not given.",
  },
  ROLLBACK_STORED_VERSIONS: {
    check: "ROLLBACK",
    description:
      "API versions first served at the newer minor: objects stored in them are not served after going back.",
  },
  ROLLBACK_ETCD_MINOR: {
    check: "ROLLBACK",
    description:
      "etcd runs a newer minor than the older Kubernetes minor ships with, and does not go back with the control plane.",
  },
  ROLLBACK_GATES_LOCKED_ON: {
    check: "ROLLBACK",
    description:
      "Feature gates locked on at the newer minor and off at the older one: what was done with them may not go back.",
  },
  TARGET_UNKNOWN: {
    check: "RELEASE",
    description:
      "The upgrade target is newer than any release the knowledge base knows; no plan is made.",
  },
  TARGET_END_OF_LIFE: {
    check: "END_OF_LIFE",
    description:
      "The upgrade target is past its end of life on the date of the plan; the message names the oldest supported minor.",
  },
  API_NOT_JUDGED: {
    check: "COVERAGE",
    description:
      "Objects of an API group/version the knowledge base knows nothing of (a custom resource's); one INFO per group/version with the count.",
  },
  DOCUMENT_UNREADABLE: {
    check: "COVERAGE",
    description:
      "A document of the scanned input is not valid YAML; it was skipped and the scan says complete: false.",
  },
  KNOWLEDGE_EDGE: {
    check: "COVERAGE",
    description:
      "The question is about a Kubernetes minor beyond what a kind of knowledge covers (kb/coverage.yaml); that part was not judged.",
  },
  RUNTIME_END_OF_LIFE: {
    check: "END_OF_LIFE",
    description:
      "The container runtime's own release line is past its end of life on the asOf date (its project's release table).",
  },
  CGROUP_V1_UNSUPPORTED: {
    check: "NODE",
    description:
      "The kubelet does not start on a cgroup v1 node by default from 1.35 (failCgroupV1 defaults to true).",
  },
  CGROUP_V1_DEPRECATED: {
    check: "NODE",
    description:
      "cgroup v1 is deprecated or in maintenance mode for this component; move the nodes to cgroup v2.",
  },
  RUNTIME_NEWER_THAN_KUBELET: {
    check: "RUNTIME",
    description:
      "CRI-O is a minor newer than the kubelet it serves; CRI-O minors track Kubernetes minors, so move the kubelet up or pick the matching CRI-O.",
  },
  API_REMOVED: {
    check: "API",
    description:
      "An object of the scanned manifests uses an API version the target no longer serves.",
  },
  API_DEPRECATED: {
    check: "API",
    description:
      "An object of the scanned manifests uses an API version deprecated at the target and scheduled for removal.",
  },
  API_REMOVAL_SCHEDULED: {
    check: "API",
    description:
      "An object of the scanned manifests uses an API version whose removal is scheduled for a later minor.",
  },
  FLAG_REMOVED: {
    check: "NODE",
    description:
      "A kubelet or kube-proxy flag the pool sets was removed by the target minor; the component refuses to start with it.",
  },
  FLAG_DEPRECATED: {
    check: "NODE",
    description:
      "A flag the pool sets is deprecated at the target minor; move it to the configuration file before it is removed.",
  },
  FLAG_UNKNOWN: {
    check: "COVERAGE",
    description: "A flag the pool sets is not in the knowledge base; it was not judged.",
  },
  CONFIG_FIELD_REMOVED: {
    check: "NODE",
    description: "A KubeletConfiguration field the pool sets was removed by the target minor.",
  },
  CONFIG_FIELD_DEPRECATED: {
    check: "NODE",
    description: "A KubeletConfiguration field the pool sets is deprecated at the target minor.",
  },
  PROXY_MODE_DEPRECATED: {
    check: "NODE",
    description: "The kube-proxy mode the pool uses is deprecated at the target minor.",
  },
  PROXY_MODE_REMOVED: {
    check: "NODE",
    description: "The kube-proxy mode the pool uses is removed at the target minor.",
  },
  PROXY_MODE_NOT_AVAILABLE: {
    check: "NODE",
    description: "The kube-proxy mode is not available on the pool's OS at the target minor.",
  },
  PROXY_MODE_NOT_GA: {
    check: "NODE",
    description:
      "The kube-proxy mode is not generally available at the target minor (alpha or beta).",
  },
  PROXY_MODE_SWITCH: {
    check: "NODE",
    description:
      "The pool changes kube-proxy mode in the upgrade; Services are reprogrammed, plan the switch.",
  },
  CHART_KUBE_VERSION: {
    check: "NODE",
    description:
      "The node-pool chart's kubeVersion constraint does not admit the target version; helm refuses the upgrade.",
  },
  NODE_POOL_NOT_AN_UPGRADE: {
    check: "PLAN",
    description:
      "The pool's target is not newer than its current version; use the rollback check to go back.",
  },
  FEATURE_GATE_REMOVED: {
    check: "FEATURE_GATE",
    description:
      "A feature gate set for a component was removed at or before its version; the component refuses to start.",
  },
  FEATURE_GATE_NOT_YET: {
    check: "FEATURE_GATE",
    description:
      "A feature gate set for a component exists only from a later minor; the component refuses to start.",
  },
  FEATURE_GATE_LOCKED: {
    check: "FEATURE_GATE",
    description:
      "A feature gate is locked to its default at the component's version and is set the other way; remove the setting.",
  },
  FEATURE_GATE_DEPRECATED: {
    check: "FEATURE_GATE",
    description: "A feature gate set for a component is deprecated at its version.",
  },
  FEATURE_GATE_UNKNOWN: {
    check: "COVERAGE",
    description: "A feature gate the knowledge base does not know; it was not judged.",
  },
  CONFIG_API_REMOVED: {
    check: "CONFIG_API",
    description:
      "A configuration file uses a version that the component of the target no longer reads; it refuses to start.",
  },
  CONFIG_API_NOT_AVAILABLE: {
    check: "CONFIG_API",
    description:
      "A configuration file uses a version that the component of the target does not read yet.",
  },
  CONFIG_API_DEPRECATED: {
    check: "CONFIG_API",
    description: "A configuration file uses a version deprecated at the target.",
  },
  CONFIG_API_REMOVAL_SCHEDULED: {
    check: "CONFIG_API",
    description: "A configuration file uses a version whose removal is scheduled after the target.",
  },
  FIELD_CHANGED: {
    check: "FIELD",
    description:
      "An object's field or annotation is broken or weakened at the target by a behaviour change (the finding names the change).",
  },
  FIELD_CHANGE_SCHEDULED: {
    check: "FIELD",
    description:
      "An object's field or annotation is touched by a behaviour change after the target.",
  },
  FLOW_NOT_ALLOWED: {
    check: "FIREWALL",
    description:
      "A network flow the cluster needs (required, or conditional on what it runs) is missing from the allowed-flows list.",
  },
  FLOW_OPTIONAL_NOT_ALLOWED: {
    check: "FIREWALL",
    description:
      "An optional network flow (a feature the cluster may use) is missing from the allowed-flows list.",
  },
  ADDON_UNSUPPORTED: {
    check: "ADDON",
    description:
      "The add-on's version does not support the control plane's minor by the project's own table, or (MATCH_MINOR) its minor differs from the control plane's.",
  },
  ADDON_UNTESTED: {
    check: "ADDON",
    description:
      "The control plane's minor is outside what the project tests or ships the add-on's version with.",
  },
  ADDON_VERSION_NOT_JUDGED: {
    check: "COVERAGE",
    description:
      "The add-on's version is in no line of its compatibility table; it was not judged.",
  },
  ADDON_BEYOND_KNOWLEDGE: {
    check: "COVERAGE",
    description:
      "The control plane's minor is newer than every minor the add-on's table gives: whether the add-on supports it is not known.",
  },
  ADDON_POLICY_ONLY: {
    check: "COVERAGE",
    description: "The add-on publishes only a policy, no table per version; the finding quotes it.",
  },
  ADDON_UNKNOWN: {
    check: "COVERAGE",
    description:
      "An add-on recognised in a cluster has no compatibility knowledge, or an image could not be placed: not judged.",
  },
  ADDON_END_OF_LIFE: {
    check: "ADDON",
    description: "The add-on's version line is past its end of life on the day judged.",
  },
  ADDON_RETIRED: {
    check: "ADDON",
    description: "The add-on's project is retired: no releases and no security fixes.",
  },
  ADDON_NO_SUPPORTED_VERSION: {
    check: "PLAN",
    description:
      "No known version of the add-on supports a minor the upgrade crosses; the plan cannot move it there.",
  },
  ADDON_API_REMOVED: {
    check: "ADDON_API",
    description:
      "An object uses an add-on API version that the named add-on version no longer serves.",
  },
  ADDON_API_DEPRECATED: {
    check: "ADDON_API",
    description: "An object uses an add-on API version that the named add-on version deprecates.",
  },
  ADDON_API_GONE_IN_RELEASE: {
    check: "ADDON_API",
    description:
      "An object uses an add-on API version that a release of the add-on stopped serving; no add-on version was given to judge it against.",
  },
  CRD_VERSION_NOT_SERVED: {
    check: "CRD",
    description:
      "An object uses a version its CustomResourceDefinition does not serve (served: false, or not listed).",
  },
  CRD_VERSION_DEPRECATED: {
    check: "CRD",
    description:
      "An object uses a version its CustomResourceDefinition marks deprecated (with its deprecationWarning).",
  },
  CRD_STORED_VERSION_DROPPED: {
    check: "CRD",
    description:
      "A CustomResourceDefinition update drops a version still in the cluster's status.storedVersions; run a storage version migration first.",
  },
  PLATFORM_EXTENDED_SUPPORT: {
    check: "PLATFORM",
    description:
      "A minor the cluster runs (control plane, node pools or clients) is past the platform's end of standard support and in extended (or long-term) support.",
  },
  PLATFORM_END_OF_SUPPORT: {
    check: "PLATFORM",
    description:
      "A minor the cluster runs is past every support the platform gives; for the control plane, the platform upgrades it on its own.",
  },
  PLATFORM_VERSION_UNKNOWN: {
    check: "COVERAGE",
    description:
      "The platform's calendar has no row for a minor the cluster runs; it was judged by upstream's calendar instead.",
  },
  PLATFORM_CHANGE_IN_UPGRADE: {
    check: "PLATFORM",
    description:
      "A platform fact (node images, runtimes, defaults) takes effect at a minor the upgrade reaches.",
  },
  DEPRECATED_API_REQUESTED: {
    check: "API",
    description:
      "The apiserver's apiserver_requested_deprecated_apis series shows clients requesting a deprecated API (an ERROR when it is removed at the target).",
  },
  DEPRECATED_API_CALLED: {
    check: "API",
    description:
      "Audit events annotated k8s.io/deprecated show who requests a deprecated API, and how often (an ERROR when it is removed at the target).",
  },
  BEHAVIOUR_CHANGE_IN_UPGRADE: {
    check: "ADVICE",
    description:
      "A behaviour change lands on the way to the target; the finding names it and what to do before the upgrade.",
  },
} as const satisfies Readonly<
  Record<string, { readonly check: FindingCheck; readonly description: string }>
>;

/** The codes a component's name goes into (skewCode). */
export type SkewCode =
  | `SKEW_${string}_NEWER_THAN_APISERVER`
  | `SKEW_${string}_TOO_OLD_FOR_APISERVER`;

export type FindingCode = keyof typeof FINDING_CODES | SkewCode;

/** The check of a code: its entry, or SKEW for the codes skewCode builds. */
export function checkOf(code: FindingCode): FindingCheck {
  return code in FINDING_CODES ? FINDING_CODES[code as keyof typeof FINDING_CODES].check : "SKEW";
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
