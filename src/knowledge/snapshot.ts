/**
 * An immutable, in-memory copy of the knowledge base at one revision, with
 * the indexes every query needs. The domain core reads only this; a change
 * to the data is published as a whole new snapshot, never by mutation.
 */
import { compareMinors } from "../core/versions.js";
import { type ApiRemovalRecord, type ComponentRecord, type FlagChangeRecord, type ProxyModeRecord, type EntityName, type KbBundle, type KbConflictRecord, type LinkRecord, type PortRecord, type ProfileRecord, type RecommendationRecord, type ReleaseRecord, type RuntimeRequirementRecord, type SkewRuleRecord, type UpgradeDependencyRecord, type RuntimeReleaseRecord, type HostRequirementRecord, type CoverageRecord, type ApiGroupVersionRecord, type ReferenceRecord, type RollbackPolicyRecord, type BehaviourChangeRecord, type FeatureGateRecord, type ConfigurationApiRecord, type ControllerRecord, type NetworkFlowRecord, type FieldRuleRecord, type AddonRecord, type AddonApiRecord, type PlatformRecord } from "./records.js";
import { ENTITY_NAMES, isBuiltIn } from "./registry.js";
import { upgradeOrder } from "./upgrade-order.js";

export interface SnapshotMeta {
  readonly revision: number;
  readonly lastImportAt: Date | null;
  /** Open conflicts between kb/ and run-time edits (none when not given). */
  readonly conflicts?: readonly KbConflictRecord[];
}

export class KbSnapshot implements KbBundle {
  readonly revision: number;
  readonly lastImportAt: string | null;
  readonly loadedAt: string;
  readonly conflicts: readonly KbConflictRecord[];

  readonly components: readonly ComponentRecord[];
  readonly ports: readonly PortRecord[];
  readonly links: readonly LinkRecord[];
  readonly profiles: readonly ProfileRecord[];
  readonly skewRules: readonly SkewRuleRecord[];
  readonly apiRemovals: readonly ApiRemovalRecord[];
  readonly releases: readonly ReleaseRecord[];
  readonly upgradeDependencies: readonly UpgradeDependencyRecord[];
  readonly runtimeRequirements: readonly RuntimeRequirementRecord[];
  readonly recommendations: readonly RecommendationRecord[];
  readonly flagChanges: readonly FlagChangeRecord[];
  readonly proxyModes: readonly ProxyModeRecord[];
  readonly runtimeReleases: readonly RuntimeReleaseRecord[];
  readonly hostRequirements: readonly HostRequirementRecord[];
  readonly coverage: readonly CoverageRecord[];
  readonly apiGroupVersions: readonly ApiGroupVersionRecord[];
  readonly references: readonly ReferenceRecord[];
  readonly rollbackPolicies: readonly RollbackPolicyRecord[];
  readonly behaviourChanges: readonly BehaviourChangeRecord[];
  readonly featureGates: readonly FeatureGateRecord[];
  readonly configurationApis: readonly ConfigurationApiRecord[];
  readonly controllers: readonly ControllerRecord[];
  readonly networkFlows: readonly NetworkFlowRecord[];
  readonly fieldRules: readonly FieldRuleRecord[];
  readonly addons: readonly AddonRecord[];
  readonly addonApis: readonly AddonApiRecord[];
  readonly platforms: readonly PlatformRecord[];

  /**
   * Every component in the order kb/upgrade-order.yaml puts them (a topological sort of its edges, ties in
   * kb/components.yaml order). A bundle with a cycle never becomes a snapshot: validation refuses it first.
   */
  readonly upgradeOrder: readonly string[];

  private readonly componentIndex: ReadonlyMap<string, ComponentRecord>;
  private readonly releaseIndex: ReadonlyMap<string, ReleaseRecord>;
  private readonly profileIndex: ReadonlyMap<string, ProfileRecord>;

  constructor(bundle: KbBundle, meta: SnapshotMeta) {
    this.revision = meta.revision;
    this.lastImportAt = meta.lastImportAt?.toISOString() ?? null;
    this.loadedAt = new Date().toISOString();
    this.conflicts = freezeAll(meta.conflicts ?? []);

    const byName = <T extends { name: string }>(a: T, b: T): number => a.name.localeCompare(b.name);
    this.components = freezeAll(bundle.components);
    this.ports = freezeAll(
      [...bundle.ports].sort((a, b) => a.nodeRole.localeCompare(b.nodeRole) || a.port - b.port || a.protocol.localeCompare(b.protocol)),
    );
    this.links = freezeAll(bundle.links);
    this.profiles = freezeAll([...bundle.profiles].sort(byName));
    this.skewRules = freezeAll(bundle.skewRules);
    this.apiRemovals = freezeAll(
      [...bundle.apiRemovals].sort(
        (a, b) => compareMinors(a.removedIn, b.removedIn) || a.apiVersion.localeCompare(b.apiVersion) || a.kind.localeCompare(b.kind),
      ),
    );
    this.releases = freezeAll([...bundle.releases].sort((a, b) => compareMinors(a.version, b.version)));
    this.upgradeDependencies = freezeAll(bundle.upgradeDependencies);
    const ordered = upgradeOrder(this.components, this.upgradeDependencies);
    // Validation rejects a cycle before a snapshot is built; a snapshot built around it orders by kb/components.yaml.
    this.upgradeOrder = Object.freeze(ordered.ok ? [...ordered.order] : this.components.map((component) => component.name));
    this.runtimeRequirements = freezeAll(
      [...bundle.runtimeRequirements].sort((a, b) => compareMinors(a.kubernetesFrom, b.kubernetesFrom) || a.id.localeCompare(b.id)),
    );
    this.recommendations = freezeAll(bundle.recommendations);
    this.flagChanges = freezeAll(bundle.flagChanges);
    this.proxyModes = freezeAll(bundle.proxyModes);
    this.runtimeReleases = freezeAll(bundle.runtimeReleases);
    this.hostRequirements = freezeAll(bundle.hostRequirements);
    this.coverage = freezeAll(bundle.coverage);
    this.apiGroupVersions = freezeAll(bundle.apiGroupVersions);
    this.references = freezeAll(bundle.references);
    this.rollbackPolicies = freezeAll(bundle.rollbackPolicies);
    this.behaviourChanges = freezeAll([...bundle.behaviourChanges].sort((a, b) => compareMinors(a.kubernetesVersion, b.kubernetesVersion) || a.id.localeCompare(b.id)));
    this.featureGates = freezeAll([...bundle.featureGates].sort(byName));
    this.configurationApis = freezeAll(bundle.configurationApis);
    this.controllers = freezeAll(bundle.controllers);
    this.networkFlows = freezeAll(bundle.networkFlows);
    this.fieldRules = freezeAll(bundle.fieldRules);
    this.addons = freezeAll(bundle.addons);
    this.addonApis = freezeAll(bundle.addonApis);
    this.platforms = freezeAll(bundle.platforms);

    const extra = bundle as unknown as Readonly<Record<string, readonly object[] | undefined>>;
    // Kinds registered at run time (registerEntity) have no typed field: they become properties of the same
    // name, so code reading a snapshot as a bundle sees them as it sees the built-in kinds.
    for (const entity of ENTITY_NAMES.filter((name) => !isBuiltIn(name))) {
      Object.defineProperty(this, entity, { value: freezeAll([...(extra[entity] ?? [])]), enumerable: true });
    }

    const componentIndex = new Map<string, ComponentRecord>();
    for (const component of this.components) {
      componentIndex.set(component.name.toLowerCase(), component);
      for (const alias of component.aliases) componentIndex.set(normaliseName(alias), component);
    }
    this.componentIndex = componentIndex;
    this.releaseIndex = new Map(this.releases.map((release) => [release.version, release]));
    this.profileIndex = new Map(this.profiles.map((profile) => [profile.name, profile]));
    Object.freeze(this);
  }

  /** The records of any kind of knowledge, built-in or registered, as the registry names it. */
  records<E extends EntityName>(entity: E): KbBundle[E] {
    // A registered kind is a property too (see the constructor); one unregistered since has none.
    return this[entity] ?? [];
  }

  /** The URL of a primary source the rules cite by id (kb/references.yaml); null when the knowledge base lacks it. */
  reference(id: string): string | null {
    return this.references.find((reference) => reference.id === id)?.sourceUrl ?? null;
  }

  /** The rollback policy for a component: the one naming it, else the one for its category. */
  rollbackPolicy(component: Pick<ComponentRecord, "name" | "category">): RollbackPolicyRecord | undefined {
    return (
      this.rollbackPolicies.find((policy) => policy.components.includes(component.name)) ??
      this.rollbackPolicies.find((policy) => policy.categories.includes(component.category))
    );
  }

  /** Finds a component by canonical name or alias, ignoring case and surrounding blanks. */
  findComponent(nameOrAlias: string): ComponentRecord | undefined {
    return this.componentIndex.get(normaliseName(nameOrAlias));
  }

  /** A release by minor, e.g. "1.30". */
  findRelease(minor: string): ReleaseRecord | undefined {
    return this.releaseIndex.get(minor);
  }

  findProfile(name: string): ProfileRecord | undefined {
    return this.profileIndex.get(name.trim().toLowerCase());
  }

  /** The profile and the ones it extends, the most basic first (upstream, then strict). */
  profileChain(name: string): ProfileRecord[] {
    const chain: ProfileRecord[] = [];
    for (let profile = this.findProfile(name); profile && !chain.includes(profile); ) {
      chain.unshift(profile);
      profile = profile.extends === null ? undefined : this.profileIndex.get(profile.extends);
    }
    return chain;
  }

  /** The newest minor the knowledge base knows, or undefined when it holds no release. */
  get newestRelease(): ReleaseRecord | undefined {
    return this.releases[this.releases.length - 1];
  }

  counts(): Record<EntityName, number> {
    return Object.fromEntries(ENTITY_NAMES.map((entity) => [entity, this.records(entity).length])) as Record<EntityName, number>;
  }
}

function normaliseName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, " ");
}

function freezeAll<T>(records: readonly T[]): readonly T[] {
  for (const record of records) deepFreeze(record);
  return Object.freeze([...records]);
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
