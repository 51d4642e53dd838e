/**
 * An immutable, in-memory copy of the knowledge base at one revision, with
 * the indexes every query needs. The domain core reads only this; a change
 * to the data is published as a whole new snapshot, never by mutation.
 */
import { compareMinors } from "../core/versions.js";
import type {
  ComponentRecord,
  EntityName,
  KbBundle,
  KbConflictRecord,
  ProfileRecord,
  ReleaseRecord,
  RollbackPolicyRecord,
  UpgradeDependencyRecord,
} from "./records.js";
import { ENTITY_NAMES } from "./registry.js";
import { upgradeOrder } from "./upgrade-order.js";
import { derivationOf, isSettled, perList, settle } from "./lists.js";

export interface SnapshotMeta {
  readonly revision: number;
  readonly lastImportAt: Date | null;
  /** Open conflicts between kb/ and run-time edits (none when not given). */
  readonly conflicts?: readonly KbConflictRecord[];
}

/** The order a kind's records are kept in, for the kinds that have one; the others keep kb/'s or the database's. */
type KindOrders = {
  readonly [E in EntityName]?: (a: KbBundle[E][number], b: KbBundle[E][number]) => number;
};

const byName = <T extends { name: string }>(a: T, b: T): number => a.name.localeCompare(b.name);

const ORDERS: KindOrders = {
  ports: (a, b) =>
    a.nodeRole.localeCompare(b.nodeRole) || a.port - b.port || a.protocol.localeCompare(b.protocol),
  profiles: byName,
  apiRemovals: (a, b) =>
    compareMinors(a.removedIn, b.removedIn) ||
    a.apiVersion.localeCompare(b.apiVersion) ||
    a.kind.localeCompare(b.kind),
  releases: (a, b) => compareMinors(a.version, b.version),
  runtimeRequirements: (a, b) =>
    compareMinors(a.kubernetesFrom, b.kubernetesFrom) || a.id.localeCompare(b.id),
  behaviourChanges: (a, b) =>
    compareMinors(a.kubernetesVersion, b.kubernetesVersion) || a.id.localeCompare(b.id),
  featureGates: byName,
};

/**
 * A snapshot has one list per kind, named as the registry names it (built-in-kinds.ts): the constructor sets
 * them in a loop over the registry, and this declaration (merged with the class) gives the built-in ones their
 * types, so no list of kinds is written here.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the fields are set in the constructor's loop
export interface KbSnapshot extends KbBundle {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class KbSnapshot {
  readonly revision: number;
  readonly lastImportAt: string | null;
  readonly loadedAt: string;
  readonly conflicts: readonly KbConflictRecord[];

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

    const lists = this as unknown as Record<string, readonly unknown[]>;
    const given = bundle as unknown as Readonly<Record<string, readonly unknown[] | undefined>>;
    const orders = ORDERS as Readonly<Record<string, (a: unknown, b: unknown) => number>>;
    // Every kind the registry holds, built-in or registered at run time (registerEntity): a registered kind is
    // a property of the same name, so code reading a snapshot as a bundle sees it as it sees the built-in ones.
    for (const entity of ENTITY_NAMES) lists[entity] = list(given[entity] ?? [], orders[entity]);
    this.upgradeOrder = orderOf(this.components, this.upgradeDependencies);

    this.componentIndex = perList(componentIndexes, this.components, (components) => {
      const index = new Map<string, ComponentRecord>();
      for (const component of components) {
        index.set(component.name.toLowerCase(), component);
        for (const alias of component.aliases) index.set(normaliseName(alias), component);
      }
      return index;
    });
    this.releaseIndex = perList(
      releaseIndexes,
      this.releases,
      (releases) => new Map(releases.map((release) => [release.version, release])),
    );
    this.profileIndex = perList(
      profileIndexes,
      this.profiles,
      (profiles) => new Map(profiles.map((profile) => [profile.name, profile])),
    );
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

  /**
   * The rollback policy for a component: on a platform, the platform's own (naming the component, else its
   * category) where it has one; else upstream's, the one naming it, else the one for its category.
   */
  rollbackPolicy(
    component: Pick<ComponentRecord, "name" | "category">,
    platform: string | null = null,
    minor: string | null = null,
  ): RollbackPolicyRecord | undefined {
    // A platform policy from a minor on (GKE's two-step upgrades from 1.33) holds for control planes on that minor or later.
    const holds = (policy: RollbackPolicyRecord) =>
      policy.fromMinor === null || minor === null || compareMinors(minor, policy.fromMinor) >= 0;
    const on = (owner: string | null) =>
      this.rollbackPolicies.filter((policy) => policy.platform === owner && holds(policy));
    const pick = (policies: readonly RollbackPolicyRecord[]) =>
      policies.find((policy) => policy.components.includes(component.name)) ??
      policies.find((policy) => policy.categories.includes(component.category));
    return (platform === null ? undefined : pick(on(platform))) ?? pick(on(null));
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
    return Object.fromEntries(
      ENTITY_NAMES.map((entity) => [entity, this.records(entity).length]),
    ) as Record<EntityName, number>;
  }
}

function normaliseName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, " ");
}

function freezeAll<T>(records: readonly T[]): readonly T[] {
  for (const record of records) deepFreeze(record);
  return Object.freeze([...records]);
}

/**
 * A kind's records as a snapshot holds them: frozen, in the kind's order (when it has one), and settled
 * (lists.ts). A snapshot after an edit is given the previous snapshot's lists for every kind the edit did not
 * touch: those are taken as they are (already frozen, already in order), so the new snapshot costs what
 * changed, and everything remembered for a list (indexes here, the cross-check's parts, the domain's
 * indexes) stays good for it.
 */
function list<T>(records: readonly T[], order?: (a: T, b: T) => number): readonly T[] {
  if (isSettled(records)) return records;
  // A snapshot's list with records appended or replaced by edits (lists.ts), for a kind kept in the database's
  // order: taken as it is, only the records the edits put in to freeze, so what is derived from it can be
  // carried over.
  const changed =
    order === undefined ? changedSinceSnapshot(records as readonly object[]) : undefined;
  if (changed !== undefined) {
    for (const index of changed) deepFreeze(records[index]);
    settle(records);
    return records;
  }
  const made = freezeAll(order === undefined ? records : [...records].sort(order));
  settle(made);
  return made;
}

/** The positions edits changed since the list was a snapshot's (lists.ts); undefined when it was not made from one. */
function changedSinceSnapshot(records: readonly object[]): number[] | undefined {
  const changed: number[] = [];
  for (let list = records; !isSettled(list); ) {
    const derivation = derivationOf(list);
    if (derivation === undefined || changed.length >= MAX_EDITS_SINCE_SNAPSHOT) return undefined;
    changed.push(...derivation.changes.map((change) => change.index));
    list = derivation.from;
  }
  return changed;
}

/** A group commits at most this many edits: a longer chain is not a snapshot's list after one group. */
const MAX_EDITS_SINCE_SNAPSHOT = 100;

const componentIndexes = new WeakMap<
  readonly ComponentRecord[],
  ReadonlyMap<string, ComponentRecord>
>();
const releaseIndexes = new WeakMap<readonly ReleaseRecord[], ReadonlyMap<string, ReleaseRecord>>();
const profileIndexes = new WeakMap<readonly ProfileRecord[], ReadonlyMap<string, ProfileRecord>>();
const upgradeOrders = new WeakMap<
  readonly ComponentRecord[],
  WeakMap<readonly UpgradeDependencyRecord[], readonly string[]>
>();

/** The upgrade order of these components and edges (remembered for the pair of lists). */
function orderOf(
  components: readonly ComponentRecord[],
  dependencies: readonly UpgradeDependencyRecord[],
): readonly string[] {
  const byDependencies = perList(
    upgradeOrders,
    components,
    () => new WeakMap<readonly UpgradeDependencyRecord[], readonly string[]>(),
  );
  return perList(byDependencies, dependencies, () => {
    const ordered = upgradeOrder(components, dependencies);
    // Validation rejects a cycle before a snapshot is built; a snapshot built around it orders by kb/components.yaml.
    return Object.freeze(
      ordered.ok ? [...ordered.order] : components.map((component) => component.name),
    );
  });
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
