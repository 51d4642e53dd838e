/**
 * The kinds of knowledge kubecompat ships with: one row each, in import order (referenced kinds first).
 * Everything that lists the kinds derives from these rows: KbBundle and EntityName (below), KbSnapshot's
 * fields (snapshot.ts), the registry's machinery (registry.ts), the REST collections, the GraphQL list
 * queries (scripts/kind-lists.ts writes their SDL) and the store. A row's fields are described on
 * EntityDefinition (registry.ts).
 */
import {
  addonApiRecord,
  addonRecord,
  apiGroupVersionRecord,
  apiRemovalRecord,
  behaviourChangeRecord,
  componentRecord,
  configurationApiRecord,
  controllerRecord,
  coverageRecord,
  featureGateRecord,
  fieldRuleRecord,
  flagChangeRecord,
  hostRequirementRecord,
  linkRecord,
  networkFlowRecord,
  platformRecord,
  portRecord,
  profileRecord,
  proxyModeRecord,
  recommendationRecord,
  referenceRecord,
  releaseRecord,
  rollbackPolicyRecord,
  runtimeReleaseRecord,
  runtimeRequirementRecord,
  skewRuleRecord,
  upgradeDependencyRecord,
} from "./records.js";
import { apiConversionRecord } from "./conversion-records.js";
import type { EntityDefinition } from "./registry.js";

/** A row, typed by its schema's records, so that KbBundle can be read off the rows. */
function kind<R>(definition: EntityDefinition<R>): EntityDefinition<R> {
  return definition;
}

const RELATIVE_TO = {
  "kube-apiserver": "KUBE_APISERVER",
  "kube-apiserver-peers": "KUBE_APISERVER_PEERS",
  kubelet: "KUBELET",
};

/** The kinds kubecompat ships with, in import order: referenced kinds first. */
export const BUILT_IN_KINDS = {
  components: kind({
    file: "components.yaml",
    schema: componentRecord,
    key: (r) => r.name,
    keyExample: "kube-apiserver",
    collection: "components",
    title: "Components, optionally of one plane",
    typeName: "Component",
    graphqlEnum: "COMPONENTS",
    store: { model: "component" },
  }),
  profiles: kind({
    file: "profiles.yaml",
    schema: profileRecord,
    key: (r) => r.name,
    keyExample: "strict",
    collection: "profiles",
    title: "Policy profiles",
    typeName: "PolicyProfile",
    graphqlEnum: "PROFILES",
    graphqlList: {
      field: "profiles",
      description:
        "Policy profiles: `upstream` (the official policy, default) and `strict` (n-1 node pools), plus any an organisation adds.",
    },
    store: { model: "policyProfile" },
  }),
  ports: kind({
    file: "ports.yaml",
    schema: portRecord,
    key: (r) => `${r.component} ${r.port}/${r.protocol} ${r.nodeRole}`,
    keyExample: "kube-apiserver 6443/TCP CONTROL_PLANE",
    collection: "ports",
    title: "Ports and port ranges",
    typeName: "Port",
    graphqlEnum: "PORTS",
    store: { model: "port", columns: { component: "componentName" } },
  }),
  links: kind({
    file: "links.yaml",
    schema: linkRecord,
    key: (r) => `${r.from} -> ${r.to}`,
    keyExample: "kube-apiserver -> etcd",
    collection: "links",
    title: "Communication links",
    typeName: "CommunicationLink",
    graphqlEnum: "LINKS",
    graphqlList: {
      field: "links",
      description:
        "Who talks to whom, over which protocol, with which authentication and minimum TLS version.",
    },
    store: { model: "communicationLink", columns: { from: "fromComponent", to: "toComponent" } },
  }),
  skewRules: kind({
    file: "skew-rules.yaml",
    versioned: true,
    schema: skewRuleRecord,
    key: (r) => r.id,
    keyExample: "upstream-kubelet-vs-apiserver-n3",
    collection: "skew-rules",
    title:
      "Skew rules of a profile; with kubernetesVersion only those in force at that control-plane minor",
    typeName: "SkewRule",
    graphqlEnum: "SKEW_RULES",
    store: {
      model: "skewRule",
      columns: { id: "ruleId", profile: "profileName", component: "componentName" },
      enumFields: { relativeTo: RELATIVE_TO },
    },
  }),
  apiRemovals: kind({
    file: "api-removals.yaml",
    versioned: true,
    schema: apiRemovalRecord,
    key: (r) => `${r.apiVersion} ${r.kind}`,
    keyExample: "batch/v1beta1 CronJob",
    collection: "api-removals",
    title: "API versions with from < removedIn <= to",
    typeName: "ApiRemoval",
    graphqlEnum: "API_REMOVALS",
    store: { model: "apiRemoval" },
  }),
  releases: kind({
    file: "releases.yaml",
    versioned: true,
    schema: releaseRecord,
    key: (r) => r.version,
    keyExample: "1.30",
    collection: "releases",
    title: "Kubernetes minor releases",
    typeName: "Release",
    graphqlEnum: "RELEASES",
    store: {
      model: "release",
      dateFields: ["releaseDate", "endOfStandardSupport", "endOfLife", "latestPatchDate"],
    },
  }),
  upgradeDependencies: kind({
    file: "upgrade-order.yaml",
    schema: upgradeDependencyRecord,
    key: (r) => `${r.before} -> ${r.after}`,
    keyExample: "etcd -> kube-apiserver",
    collection: "upgrade-order",
    title: "Which component is upgraded before which",
    typeName: "UpgradeDependency",
    graphqlEnum: "UPGRADE_ORDER",
    graphqlList: {
      field: "upgradeOrder",
      description: "Which component is upgraded before which.",
    },
    store: {
      model: "upgradeDependency",
      columns: { before: "beforeComponent", after: "afterComponent" },
    },
  }),
  runtimeRequirements: kind({
    file: "runtime-requirements.yaml",
    versioned: true,
    schema: runtimeRequirementRecord,
    key: (r) => r.id,
    keyExample: "dockershim-removed",
    collection: "runtime-requirements",
    title: "Runtime and etcd requirements by Kubernetes minor",
    typeName: "RuntimeRequirement",
    graphqlEnum: "RUNTIME_REQUIREMENTS",
    graphqlList: {
      field: "runtimeRequirements",
      description: "Requirements on container runtimes and etcd by Kubernetes minor.",
    },
    store: {
      model: "runtimeRequirement",
      columns: { id: "requirementId", component: "componentName", requires: "requiresComponent" },
    },
  }),
  recommendations: kind({
    file: "recommendations.yaml",
    schema: recommendationRecord,
    key: (r) => r.id,
    keyExample: "leader-election-pause",
    collection: "recommendations",
    title: "Upgrade advice",
    typeName: "Recommendation",
    graphqlEnum: "RECOMMENDATIONS",
    graphqlList: {
      field: "recommendations",
      description: "Advice for upgrades: headroom, leader election, draining, re-registration.",
    },
    store: { model: "recommendation", columns: { id: "recommendationId" } },
  }),
  flagChanges: kind({
    file: "flag-changes.yaml",
    versioned: true,
    schema: flagChangeRecord,
    key: (r) => r.id,
    keyExample: "kubelet-containerruntime",
    collection: "flag-changes",
    title:
      "Deprecated and removed flags and config fields of kubelet, kube-proxy and the control plane",
    typeName: "FlagChange",
    graphqlEnum: "FLAG_CHANGES",
    store: { model: "flagChange", columns: { id: "changeId", component: "componentName" } },
  }),
  proxyModes: kind({
    file: "proxy-modes.yaml",
    versioned: true,
    schema: proxyModeRecord,
    key: (r) => `${r.mode}/${r.os}`,
    keyExample: "ipvs/linux",
    collection: "proxy-modes",
    title: "kube-proxy modes per OS with their lifecycle",
    typeName: "ProxyMode",
    graphqlEnum: "PROXY_MODES",
    graphqlList: {
      field: "proxyModes",
      description:
        "kube-proxy modes per operating system with the versions they are available, default, deprecated and removed in.",
    },
    store: { model: "proxyMode" },
  }),
  runtimeReleases: kind({
    file: "runtime-releases.yaml",
    versioned: true,
    schema: runtimeReleaseRecord,
    key: (r) => `${r.component} ${r.line}`,
    keyExample: "containerd 1.7",
    collection: "runtime-releases",
    title: "Container runtimes' own release lines and their end of life",
    typeName: "RuntimeRelease",
    graphqlEnum: "RUNTIME_RELEASES",
    graphqlList: {
      field: "runtimeReleases",
      description:
        "Container runtimes' own release lines (containerd's RELEASES.md) with their end of life; a runtime past it gets a warning.",
    },
    store: {
      model: "runtimeRelease",
      dateFields: ["releaseDate", "endOfActiveSupport", "endOfLife"],
    },
  }),
  hostRequirements: kind({
    file: "host-requirements.yaml",
    versioned: true,
    schema: hostRequirementRecord,
    key: (r) => r.id,
    keyExample: "kubelet-cgroup-v1-fails-by-default",
    collection: "host-requirements",
    title: "Facts about the node a component runs on (cgroup v1)",
    typeName: "HostRequirement",
    graphqlEnum: "HOST_REQUIREMENTS",
    graphqlList: {
      field: "hostRequirements",
      description:
        "Facts about the node a component runs on rather than about its version: cgroup v1 in maintenance mode (1.31), failing the kubelet by default (1.35).",
    },
    store: { model: "hostRequirement", columns: { id: "requirementId" } },
  }),
  coverage: kind({
    file: "coverage.yaml",
    schema: coverageRecord,
    key: (r) => `${r.knowledge} ${r.source}`,
    keyExample: "apiRemovals kubernetes/api",
    collection: "coverage",
    title:
      "Where each kind of knowledge ends: the newest Kubernetes minor it covers and the source it was read from",
    typeName: "Coverage",
    graphqlEnum: "COVERAGE",
    graphqlList: {
      field: "coverage",
      description:
        "Where each kind of knowledge ends: the newest Kubernetes minor it covers and the source (with revision and date) it was read from. A question beyond it gets a KNOWLEDGE_EDGE warning, or KNOWLEDGE_STALE when the calendar says that minor is already out.",
    },
    store: { model: "knowledgeCoverage", dateFields: ["sourceDate"] },
  }),
  apiGroupVersions: kind({
    file: "api-group-versions.yaml",
    schema: apiGroupVersionRecord,
    key: (r) => r.apiVersion,
    keyExample: "apps/v1",
    collection: "api-group-versions",
    title:
      "The group/versions the Kubernetes API server serves or served; a scanned object of any other is API_NOT_JUDGED",
    typeName: "ApiGroupVersion",
    graphqlEnum: "API_GROUP_VERSIONS",
    graphqlList: {
      field: "apiGroupVersions",
      description:
        "The API group/versions the Kubernetes API server serves or served; a scanned object of any other (a custom resource's) is reported API_NOT_JUDGED.",
    },
    store: { model: "apiGroupVersion" },
  }),
  // The two kinds below have no table of their own: their records live in KbDocument.
  references: kind({
    file: "references.yaml",
    schema: referenceRecord,
    key: (r) => r.id,
    keyExample: "skew-policy",
    collection: "references",
    title: "Primary sources the rules cite where no record of their own carries one",
    typeName: "Reference",
    graphqlEnum: null,
    store: { model: null },
  }),
  rollbackPolicies: kind({
    file: "rollback-policies.yaml",
    schema: rollbackPolicyRecord,
    key: (r) => r.id,
    keyExample: "control-plane-no-minor-downgrade",
    collection: "rollback-policies",
    title: "What going back to an older version means for each kind of component",
    typeName: "RollbackPolicy",
    graphqlEnum: null,
    store: { model: null },
  }),
  behaviourChanges: kind({
    file: "behaviour-changes.yaml",
    versioned: true,
    schema: behaviourChangeRecord,
    key: (r) => r.id,
    keyExample: "pod-security-policy-removed",
    collection: "behaviour-changes",
    title:
      "Changes per Kubernetes minor that break or weaken a cluster on upgrade although no apiVersion goes away",
    typeName: "BehaviourChange",
    graphqlEnum: null,
    graphqlList: {
      field: "behaviourChanges",
      description:
        "Changes per Kubernetes minor that break or weaken a cluster on upgrade although no apiVersion goes away (PodSecurityPolicy's removal, token Secrets no longer created, in-tree volume plugins removed ...).",
    },
    store: { model: null },
  }),
  featureGates: kind({
    file: "feature-gates.yaml",
    versioned: true,
    schema: featureGateRecord,
    key: (r) => r.name,
    keyExample: "DynamicKubeletConfig",
    collection: "feature-gates",
    title: "Feature gates with their stages, defaults and the minor they were removed in",
    typeName: "FeatureGate",
    graphqlEnum: null,
    store: { model: null },
  }),
  configurationApis: kind({
    file: "configuration-apis.yaml",
    versioned: true,
    schema: configurationApiRecord,
    key: (r) => `${r.kind} ${r.apiVersion}`,
    keyExample: "KubeSchedulerConfiguration kubescheduler.config.k8s.io/v1beta3",
    collection: "configuration-apis",
    title:
      "Versions of configuration-file APIs (kubelet, scheduler, kube-proxy, kubeadm, audit, admission, encryption)",
    typeName: "ConfigurationApi",
    graphqlEnum: null,
    graphqlList: {
      field: "configurationApis",
      description:
        "Versions of configuration-file APIs (KubeletConfiguration, KubeSchedulerConfiguration, kubeadm's, audit Policy, AdmissionConfiguration, EncryptionConfiguration ...) with the minors they were introduced, deprecated and removed in.",
    },
    store: { model: null },
  }),
  controllers: kind({
    file: "controllers.yaml",
    schema: controllerRecord,
    key: (r) => r.name,
    keyExample: "NamespaceLifecycle",
    collection: "controllers",
    title: "Controllers and admission plugins, with what they mean for tenant isolation",
    typeName: "Controller",
    graphqlEnum: null,
    graphqlList: {
      field: "controllers",
      description:
        "Controllers of kube-controller-manager and admission plugins of kube-apiserver, with what each means for tenant isolation.",
    },
    store: { model: null },
  }),
  networkFlows: kind({
    file: "network-flows.yaml",
    schema: networkFlowRecord,
    key: (r) => r.id,
    keyExample: "workers-to-apiserver",
    collection: "network-flows",
    title: "Network flows between node roles a firewall must allow, for Kubernetes and common CNIs",
    typeName: "NetworkFlow",
    graphqlEnum: null,
    store: { model: null },
  }),
  fieldRules: kind({
    file: "field-rules.yaml",
    schema: fieldRuleRecord,
    key: (r) => r.id,
    keyExample: "service-external-ips",
    collection: "field-rules",
    title:
      "Field-level scan rules: the fields and annotations a behaviour change breaks, with severity by minor",
    typeName: "FieldRule",
    graphqlEnum: null,
    graphqlList: {
      field: "fieldRules",
      description:
        "Field-level scan rules: the fields and annotations a behaviour change breaks, with the severity from each minor.",
    },
    store: { model: null },
  }),
  apiConversions: kind({
    file: "api-conversions.yaml",
    schema: apiConversionRecord,
    key: (r) => `${r.fromApiVersion} ${r.kind} -> ${r.toApiVersion}`,
    keyExample: "extensions/v1beta1 Ingress -> networking.k8s.io/v1",
    collection: "api-conversions",
    title:
      "Conversions of objects from a removed apiVersion to its replacement: the fields that move, get a default or are lost",
    typeName: "ApiConversion",
    graphqlEnum: null,
    graphqlList: {
      field: "apiConversions",
      description:
        "How `fix` rewrites an object of a removed apiVersion to its replacement: the fields that move, get a default or are lost (kb/api-conversions.yaml).",
    },
    store: { model: null },
  }),
  addons: kind({
    file: "addons.yaml",
    versioned: true,
    schema: addonRecord,
    key: (r) => r.name,
    keyExample: "ingress-nginx",
    collection: "addons",
    title:
      "Add-ons with the Kubernetes minors each version line supports, by the project's own table or policy",
    typeName: "Addon",
    graphqlEnum: null,
    store: { model: null },
  }),
  addonApis: kind({
    file: "addon-apis.yaml",
    schema: addonApiRecord,
    key: (r) => `${r.apiVersion} ${r.kinds.join(",")}`,
    keyExample: "cert-manager.io/v1alpha2 Certificate,CertificateRequest,Issuer,ClusterIssuer",
    collection: "addon-apis",
    title:
      "Add-ons' CRD API versions with the add-on releases that deprecated them and stopped serving them",
    typeName: "AddonApi",
    graphqlEnum: null,
    store: { model: null },
  }),
  platforms: kind({
    file: "platforms.yaml",
    versioned: true,
    schema: platformRecord,
    key: (r) => r.name,
    keyExample: "eks",
    collection: "platforms",
    title:
      "Managed platforms (EKS, GKE, AKS): their calendars, their rules where they differ from upstream, and what breaks upgrades on them",
    typeName: "Platform",
    graphqlEnum: null,
    graphqlList: {
      field: "platforms",
      description:
        "Managed platforms (EKS, GKE, AKS): calendars, rules where they differ from upstream, and facts that break upgrades (kb/platforms.yaml).",
    },
    store: { model: null },
  }),
} as const;

/** The record type a row's schema validates. */
type RecordOf<D> = D extends EntityDefinition<infer R> ? R : never;

/** The whole knowledge base as plain records, one list per built-in kind: what kb/ holds and what the database stores. */
export type KbBundle = {
  readonly [E in keyof typeof BUILT_IN_KINDS]: readonly RecordOf<(typeof BUILT_IN_KINDS)[E]>[];
};

/** The name of a built-in kind, e.g. upgradeDependencies. */
export type EntityName = keyof KbBundle;
