/**
 * The finding codes about versions: what a cluster runs (skew, runtimes, releases and their ends of life,
 * etcd, add-on and platform support) and the plans and rollbacks between versions. One half of the catalogue
 * FINDING_CODES (findings.ts) is made of; the other is finding-contents.ts.
 */
import type { FindingCodeEntry } from "./findings.js";

export const VERSION_FINDING_CODES = {
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
  KNOWLEDGE_EDGE: {
    check: "COVERAGE",
    description:
      "The question is about a Kubernetes minor beyond what a kind of knowledge covers (kb/coverage.yaml); that part was not judged.",
  },
  KNOWLEDGE_STALE: {
    check: "COVERAGE",
    description:
      "The question is about a Kubernetes minor the calendar says is out (its release date has passed, or the cadence of a minor every few months says it is overdue) but whose facts of a kind of knowledge are not loaded from released sources (kb/coverage.yaml); the message names the kind, the minors missing and since when. It replaces KNOWLEDGE_EDGE for that kind and minor.",
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
  NODE_POOL_NOT_AN_UPGRADE: {
    check: "PLAN",
    description:
      "The pool's target is not newer than its current version; use the rollback check to go back.",
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
  BEHAVIOUR_CHANGE_IN_UPGRADE: {
    check: "ADVICE",
    description:
      "A behaviour change lands on the way to the target; the finding names it and what to do before the upgrade.",
  },
} as const satisfies Readonly<Record<string, FindingCodeEntry>>;
