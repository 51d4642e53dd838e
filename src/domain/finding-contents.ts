/**
 * The finding codes about what a cluster holds and is configured with: scanned manifests and objects, the APIs
 * clients call, node pools' flags and configuration files, feature gates, fields, firewall flows, add-on APIs
 * and custom resources. One half of the catalogue FINDING_CODES (findings.ts) is made of; the other is
 * finding-versions.ts.
 */
import type { FindingCodeEntry } from "./findings.js";

export const CONTENT_FINDING_CODES = {
  NOTHING_JUDGED: {
    check: "COVERAGE",
    description:
      "Nothing in the input could be judged (a scan with no Kubernetes object of an API the knowledge base knows: empty input, every document unreadable, no apiVersion and kind; a cluster scan whose evidence holds no release object, no last-applied object, no apiserver metric and no audit event); the answer is NOT_JUDGED, never green.",
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
  CHART_KUBE_VERSION_EXCLUDES_TARGET: {
    check: "CHART",
    description:
      "A scanned chart's kubeVersion constraint admits no patch of the target: helm install and helm upgrade refuse the chart (for a subchart, whose constraint helm does not check, a WARNING).",
  },
  CHART_KUBE_VERSION_EXCLUDES_PATCHES: {
    check: "CHART",
    description:
      "A scanned chart's kubeVersion constraint admits only some patches of the target: helm refuses the chart on the others.",
  },
  CHART_KUBE_VERSION_REFUSES_VENDOR_VERSIONS: {
    check: "CHART",
    description:
      "A scanned chart's kubeVersion constraint admits the target's patches but not as managed platforms report them (v1.29.3-eks-..., -gke.): its bounds lack the -0 pre-release part Helm's semver needs.",
  },
  CHART_KUBE_VERSION_INVALID: {
    check: "CHART",
    description:
      "A scanned chart's kubeVersion is not a semver constraint Helm can read; helm refuses to install the chart.",
  },
  CHART_API_VERSION_V1: {
    check: "CHART",
    description:
      "A scanned chart is in Helm 2's format (Chart.yaml apiVersion v1): Helm 3 and 4 still install it; move it to v2.",
  },
  CHART_API_VERSION_UNKNOWN: {
    check: "CHART",
    description:
      "A scanned chart's Chart.yaml has no apiVersion (WARNING) or one that is neither v1 nor v2 (ERROR).",
  },
  CHART_DEPENDENCY_MISSING: {
    check: "COVERAGE",
    description:
      "A dependency a scanned chart lists is not among its files (charts/<name>/): its templates were not scanned.",
  },
  CHART_NOT_RENDERED: {
    check: "COVERAGE",
    description:
      "A chart was scanned without rendering (no helm): its templates' objects were judged by apiVersion and kind only, not by their fields; the answer says complete: false.",
  },
  TEMPLATE_NOT_READ: {
    check: "COVERAGE",
    description:
      "A document of a chart's templates whose apiVersion or kind is templated (or made entirely by template actions) could not be read without rendering; one per document, with its file and line.",
  },
  CHART_KUBE_VERSION: {
    check: "NODE",
    description:
      "The node-pool chart's kubeVersion constraint does not admit the target version; helm refuses the upgrade.",
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
} as const satisfies Readonly<Record<string, FindingCodeEntry>>;
