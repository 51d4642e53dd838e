/**
 * The entity registry: every kind of knowledge is one row here, and every face derives from it. A row
 * names the kb/ file, the record schema and natural key, the REST collection (/api/v1/<collection>),
 * the record's type name (SDL and OpenAPI), the GraphQL enum value (null: not on GraphQL), the store mapping (a Prisma model and its
 * column names, or none: the generic KbDocument table), a key example for the docs, and whether the
 * kind depends on the Kubernetes minor (then kb/coverage.yaml must say where it ends).
 *
 * A new kind of knowledge: its record schema in records.ts, a row here, its file under kb/, and (for a
 * table of its own) a Prisma model and migration, and (for GraphQL) its SDL type and enum value. Tests
 * check that the SDL and the codegen mappers agree with this table.
 */
import type { z } from "zod";
import {
  apiGroupVersionRecord,
  apiRemovalRecord,
  behaviourChangeRecord,
  configurationApiRecord,
  controllerRecord,
  featureGateRecord,
  fieldRuleRecord,
  addonRecord,
  addonApiRecord,
  platformRecord,
  type AddonRecord,
  type AddonApiRecord,
  type PlatformRecord,
  networkFlowRecord,
  componentRecord,
  coverageRecord,
  flagChangeRecord,
  hostRequirementRecord,
  linkRecord,
  portRecord,
  profileRecord,
  referenceRecord,
  rollbackPolicyRecord,
  proxyModeRecord,
  recommendationRecord,
  releaseRecord,
  runtimeReleaseRecord,
  runtimeRequirementRecord,
  skewRuleRecord,
  upgradeDependencyRecord,
  type ApiGroupVersionRecord,
  type ApiRemovalRecord,
  type BehaviourChangeRecord,
  type ConfigurationApiRecord,
  type ControllerRecord,
  type FeatureGateRecord,
  type FieldRuleRecord,
  type NetworkFlowRecord,
  type ComponentRecord,
  type CoverageRecord,
  type EntityName,
  type FlagChangeRecord,
  type HostRequirementRecord,
  type KbBundle,
  type LinkRecord,
  type PortRecord,
  type ProfileRecord,
  type ReferenceRecord,
  type RollbackPolicyRecord,
  type ProxyModeRecord,
  type RecommendationRecord,
  type ReleaseRecord,
  type RuntimeReleaseRecord,
  type RuntimeRequirementRecord,
  type SkewRuleRecord,
  type UpgradeDependencyRecord,
} from "./records.js";

/** Where the store keeps a kind's records: a Prisma model with its column names, or (model null) the generic KbDocument table. */
export interface StoreMapping {
  readonly model: string | null;
  /** record field → column, where they differ */
  readonly columns?: Readonly<Record<string, string>>;
  readonly dateFields?: readonly string[];
  readonly enumFields?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface EntityDefinition<R = unknown> {
  readonly file: string;
  readonly schema: z.ZodType<R>;
  readonly key: (record: R) => string;
  readonly keyExample: string;
  readonly versioned?: boolean;
  /** The REST collection: /api/v1/<collection> lists, and curation edits under it. */
  readonly collection: string;
  /** One line for people: the OpenAPI summary of the list, the docs. */
  readonly title: string;
  /** The name of a record's type: the SDL type and the OpenAPI schema, e.g. UpgradeDependency. */
  readonly typeName: string;
  /** The kind's value of the GraphQL enum KbEntity (curation over GraphQL); null when GraphQL does not serve the kind. */
  readonly graphqlEnum: string | null;
  readonly store: StoreMapping;
}

const RELATIVE_TO = {
  "kube-apiserver": "KUBE_APISERVER",
  "kube-apiserver-peers": "KUBE_APISERVER_PEERS",
  kubelet: "KUBELET",
};

/** Any kind's definition, whatever its record type (what registerEntity takes). */
export type AnyEntityDefinition = Omit<EntityDefinition, "schema" | "key"> & {
  readonly schema: z.ZodType;
  readonly key: (record: never) => string;
};

type Registry = { readonly [E in EntityName]: EntityDefinition<KbBundle[E][number]> };

function entity<R>(definition: EntityDefinition<R>): EntityDefinition<R> {
  return definition;
}

/** The kinds kubecompat ships with, in import order: referenced kinds first. */
const BUILT_IN: Registry = {
  components: entity<ComponentRecord>({
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
  profiles: entity<ProfileRecord>({
    file: "profiles.yaml",
    schema: profileRecord,
    key: (r) => r.name,
    keyExample: "strict",
    collection: "profiles",
    title: "Policy profiles",
    typeName: "PolicyProfile",
    graphqlEnum: "PROFILES",
    store: { model: "policyProfile" },
  }),
  ports: entity<PortRecord>({
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
  links: entity<LinkRecord>({
    file: "links.yaml",
    schema: linkRecord,
    key: (r) => `${r.from} -> ${r.to}`,
    keyExample: "kube-apiserver -> etcd",
    collection: "links",
    title: "Communication links",
    typeName: "CommunicationLink",
    graphqlEnum: "LINKS",
    store: { model: "communicationLink", columns: { from: "fromComponent", to: "toComponent" } },
  }),
  skewRules: entity<SkewRuleRecord>({
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
  apiRemovals: entity<ApiRemovalRecord>({
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
  releases: entity<ReleaseRecord>({
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
  upgradeDependencies: entity<UpgradeDependencyRecord>({
    file: "upgrade-order.yaml",
    schema: upgradeDependencyRecord,
    key: (r) => `${r.before} -> ${r.after}`,
    keyExample: "etcd -> kube-apiserver",
    collection: "upgrade-order",
    title: "Which component is upgraded before which",
    typeName: "UpgradeDependency",
    graphqlEnum: "UPGRADE_ORDER",
    store: {
      model: "upgradeDependency",
      columns: { before: "beforeComponent", after: "afterComponent" },
    },
  }),
  runtimeRequirements: entity<RuntimeRequirementRecord>({
    file: "runtime-requirements.yaml",
    versioned: true,
    schema: runtimeRequirementRecord,
    key: (r) => r.id,
    keyExample: "dockershim-removed",
    collection: "runtime-requirements",
    title: "Runtime and etcd requirements by Kubernetes minor",
    typeName: "RuntimeRequirement",
    graphqlEnum: "RUNTIME_REQUIREMENTS",
    store: {
      model: "runtimeRequirement",
      columns: { id: "requirementId", component: "componentName", requires: "requiresComponent" },
    },
  }),
  recommendations: entity<RecommendationRecord>({
    file: "recommendations.yaml",
    schema: recommendationRecord,
    key: (r) => r.id,
    keyExample: "leader-election-pause",
    collection: "recommendations",
    title: "Upgrade advice",
    typeName: "Recommendation",
    graphqlEnum: "RECOMMENDATIONS",
    store: { model: "recommendation", columns: { id: "recommendationId" } },
  }),
  flagChanges: entity<FlagChangeRecord>({
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
  proxyModes: entity<ProxyModeRecord>({
    file: "proxy-modes.yaml",
    versioned: true,
    schema: proxyModeRecord,
    key: (r) => `${r.mode}/${r.os}`,
    keyExample: "ipvs/linux",
    collection: "proxy-modes",
    title: "kube-proxy modes per OS with their lifecycle",
    typeName: "ProxyMode",
    graphqlEnum: "PROXY_MODES",
    store: { model: "proxyMode" },
  }),
  runtimeReleases: entity<RuntimeReleaseRecord>({
    file: "runtime-releases.yaml",
    versioned: true,
    schema: runtimeReleaseRecord,
    key: (r) => `${r.component} ${r.line}`,
    keyExample: "containerd 1.7",
    collection: "runtime-releases",
    title: "Container runtimes' own release lines and their end of life",
    typeName: "RuntimeRelease",
    graphqlEnum: "RUNTIME_RELEASES",
    store: {
      model: "runtimeRelease",
      dateFields: ["releaseDate", "endOfActiveSupport", "endOfLife"],
    },
  }),
  hostRequirements: entity<HostRequirementRecord>({
    file: "host-requirements.yaml",
    versioned: true,
    schema: hostRequirementRecord,
    key: (r) => r.id,
    keyExample: "kubelet-cgroup-v1-fails-by-default",
    collection: "host-requirements",
    title: "Facts about the node a component runs on (cgroup v1)",
    typeName: "HostRequirement",
    graphqlEnum: "HOST_REQUIREMENTS",
    store: { model: "hostRequirement", columns: { id: "requirementId" } },
  }),
  coverage: entity<CoverageRecord>({
    file: "coverage.yaml",
    schema: coverageRecord,
    key: (r) => `${r.knowledge} ${r.source}`,
    keyExample: "apiRemovals kubernetes/api",
    collection: "coverage",
    title:
      "Where each kind of knowledge ends: the newest Kubernetes minor it covers and the source it was read from",
    typeName: "Coverage",
    graphqlEnum: "COVERAGE",
    store: { model: "knowledgeCoverage", dateFields: ["sourceDate"] },
  }),
  apiGroupVersions: entity<ApiGroupVersionRecord>({
    file: "api-group-versions.yaml",
    schema: apiGroupVersionRecord,
    key: (r) => r.apiVersion,
    keyExample: "apps/v1",
    collection: "api-group-versions",
    title:
      "The group/versions the Kubernetes API server serves or served; a scanned object of any other is API_NOT_JUDGED",
    typeName: "ApiGroupVersion",
    graphqlEnum: "API_GROUP_VERSIONS",
    store: { model: "apiGroupVersion" },
  }),
  // The two kinds below have no table of their own: their records live in KbDocument.
  references: entity<ReferenceRecord>({
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
  rollbackPolicies: entity<RollbackPolicyRecord>({
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
  behaviourChanges: entity<BehaviourChangeRecord>({
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
    store: { model: null },
  }),
  featureGates: entity<FeatureGateRecord>({
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
  configurationApis: entity<ConfigurationApiRecord>({
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
    store: { model: null },
  }),
  controllers: entity<ControllerRecord>({
    file: "controllers.yaml",
    schema: controllerRecord,
    key: (r) => r.name,
    keyExample: "NamespaceLifecycle",
    collection: "controllers",
    title: "Controllers and admission plugins, with what they mean for tenant isolation",
    typeName: "Controller",
    graphqlEnum: null,
    store: { model: null },
  }),
  networkFlows: entity<NetworkFlowRecord>({
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
  fieldRules: entity<FieldRuleRecord>({
    file: "field-rules.yaml",
    schema: fieldRuleRecord,
    key: (r) => r.id,
    keyExample: "service-external-ips",
    collection: "field-rules",
    title:
      "Field-level scan rules: the fields and annotations a behaviour change breaks, with severity by minor",
    typeName: "FieldRule",
    graphqlEnum: null,
    store: { model: null },
  }),
  addons: entity<AddonRecord>({
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
  addonApis: entity<AddonApiRecord>({
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
  platforms: entity<PlatformRecord>({
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
    store: { model: null },
  }),
};

/** Every kind of knowledge by name. Kinds registered at run time (registerEntity) are added here too. */
export const ENTITIES: Registry = { ...BUILT_IN };

/** The names in import order; a live list, so code that iterates it at call time sees registered kinds. */
export const ENTITY_NAMES: readonly EntityName[] = Object.keys(ENTITIES) as EntityName[];

/**
 * Adds a kind of knowledge at run time: a plug-in's, or a test's throw-away kind. Its records live in the
 * generic KbDocument table unless its store names a model; it is served by the read API, curation,
 * export and import like any other. Returns a function that removes it again.
 */
export function registerEntity(name: string, definition: AnyEntityDefinition): () => void {
  if (!/^[a-z][A-Za-z0-9]{1,62}$/.test(name))
    throw new Error(`entity name "${name}" must be lowerCamelCase`);
  if (name in ENTITIES) throw new Error(`entity "${name}" is already registered`);
  for (const other of ENTITY_NAMES) {
    const known = ENTITIES[other];
    if (known.file === definition.file || known.collection === definition.collection)
      throw new Error(`entity "${name}" reuses the file or collection of ${other}`);
  }
  (ENTITIES as unknown as Record<string, AnyEntityDefinition>)[name] = definition;
  (ENTITY_NAMES as string[]).push(name);
  return () => {
    delete (ENTITIES as unknown as Record<string, unknown>)[name];
    (ENTITY_NAMES as string[]).splice((ENTITY_NAMES as string[]).indexOf(name), 1);
  };
}

/** Whether a kind ships with kubecompat (it has a typed field on KbSnapshot) rather than registered at run time. */
export function isBuiltIn(entity: string): boolean {
  return entity in BUILT_IN;
}

/** The natural key of any record of an entity. */
export function recordKey<E extends EntityName>(entity: E, record: KbBundle[E][number]): string {
  return ENTITIES[entity].key(record);
}

/** The entity of a REST collection, e.g. "upgrade-order" → upgradeDependencies. */
export function entityOfCollection(collection: string): EntityName | undefined {
  return ENTITY_NAMES.find((entity) => ENTITIES[entity].collection === collection);
}

/** The entity of a GraphQL KbEntity value, e.g. UPGRADE_ORDER → upgradeDependencies. */
export function entityOfGraphqlValue(value: string): EntityName | undefined {
  return ENTITY_NAMES.find((entity) => ENTITIES[entity].graphqlEnum === value);
}
