/**
 * Rules that span records: natural keys are unique, every reference names a
 * record that exists, aliases resolve to exactly one component, profiles do
 * not extend in a cycle, the upgrade order has no cycle, and the skew rules of one profile, component and
 * reference do not overlap in the versions they apply to.
 */
import type { KbIssue } from "../core/errors.js";
import { type KbBundle } from "./records.js";
import { ENTITIES, ENTITY_NAMES, recordKey } from "./registry.js";
import { upgradeOrder } from "./upgrade-order.js";
import { derived, keyIndexOf } from "./lists.js";

/**
 * Every rule over the whole bundle, in parts. Each part reads some kinds'
 * lists and is remembered for exactly those lists (by identity, frozen lists
 * only): an edit changes one kind, a snapshot after it reuses every other
 * kind's list, so checking an edit re-runs only the parts that read the kind
 * it changed. A part whose findings are each about one record of a list is
 * carried over from the list it was made from (lists.ts) and re-judged for
 * the one record that changed. The answer is the same as checking
 * everything again.
 */
export function crossCheckBundle(bundle: KbBundle): KbIssue[] {
  const issues: KbIssue[] = [];
  let known: ReadonlySet<string> | undefined;
  const components = (): ReadonlySet<string> =>
    (known ??= new Set(bundle.components.map((component) => component.name)));
  /** One part: its issues, from memory when it was checked on these very lists. */
  const part = (
    name: string,
    lists: ReadonlyArray<readonly object[]>,
    check: (report: Report) => void,
  ): void => {
    issues.push(
      ...remembered(name, lists, () => {
        const found: KbIssue[] = [];
        check(reporter(bundle, found, components));
        return found;
      }),
    );
  };

  /** A part whose findings are each about one record of `entity`'s list, judged on that record and the `context` lists alone. */
  const perRecord = <E extends keyof KbBundle>(
    name: string,
    context: ReadonlyArray<readonly object[]>,
    entity: E,
    check: (record: KbBundle[E][number], index: number, report: Report) => void,
  ): void => {
    issues.push(
      ...rememberedPerRecord(name, context, bundle[entity], (list, index) => {
        const found: KbIssue[] = [];
        // The list judged may be one this bundle's was made from (lists.ts): its records name the issues.
        check(
          list[index] as KbBundle[E][number],
          index,
          reporter(bundle, found, components, { entity, list }),
        );
        return found;
      }),
    );
  };

  for (const entity of ENTITY_NAMES) {
    // As many keys as records: none comes twice (the index is carried over from the list before an edit).
    if (keyIndexOf(entity, bundle[entity]).size === bundle[entity].length) continue;
    part(`keys of ${entity}`, [bundle[entity]], ({ at }) => {
      const seen = new Map<string, number>();
      bundle[entity].forEach((record, index) => {
        const key = recordKey(entity, record);
        const first = seen.get(key);
        if (first === undefined) seen.set(key, index);
        else at(entity, index, "(key)", `duplicates ${entity}[${first}]: "${key}" must be unique`);
      });
    });
  }

  part("aliases", [bundle.components], ({ at }) => {
    const names = new Map<string, string>();
    for (const component of bundle.components)
      names.set(component.name.toLowerCase(), component.name);
    bundle.components.forEach((component, index) => {
      for (const alias of component.aliases) {
        const owner = names.get(alias.toLowerCase());
        if (owner !== undefined && owner !== component.name) {
          at(
            "components",
            index,
            "aliases",
            `alias "${alias}" already names ${owner} (aliases are case-insensitive)`,
          );
        } else if (owner === component.name) {
          at(
            "components",
            index,
            "aliases",
            `alias "${alias}" repeats this component's name or another alias`,
          );
        } else {
          names.set(alias.toLowerCase(), component.name);
        }
      }
    });
  });

  /** A part checking that the components a kind names exist. */
  const namesComponents = <E extends keyof KbBundle>(
    entity: E,
    fields: (record: KbBundle[E][number]) => ReadonlyArray<readonly [string, string | null]>,
  ): void =>
    perRecord(
      `components named by ${entity}`,
      [bundle.components],
      entity,
      (record, index, { needComponent }) => {
        for (const [field, name] of fields(record)) needComponent(entity, index, field, name);
      },
    );
  const each = (field: string, names: readonly string[]): Array<readonly [string, string]> =>
    names.map((name, position) => [`${field}.${position}`, name] as const);

  namesComponents("ports", (port) => [["component", port.component]]);
  namesComponents("links", (link) => [
    ["from", link.from],
    ["to", link.to],
  ]);
  namesComponents("skewRules", (rule) => [["component", rule.component]]);
  namesComponents("upgradeDependencies", (dependency) => [
    ["before", dependency.before],
    ["after", dependency.after],
  ]);
  part("upgrade order", [bundle.components, bundle.upgradeDependencies], ({ add }) => {
    const ordered = upgradeOrder(bundle.components, bundle.upgradeDependencies);
    if (!ordered.ok) {
      add({
        file: ENTITIES.upgradeDependencies.file,
        message: `the upgrade order has a cycle, so no component on it can go first: ${ordered.cycle.join(" → ")}; remove or turn one of these edges`,
      });
    }
  });
  namesComponents("runtimeRequirements", (requirement) => [
    ["component", requirement.component],
    ["requires", requirement.requires],
  ]);
  namesComponents("flagChanges", (change) => [["component", change.component]]);
  namesComponents("runtimeReleases", (release) => [["component", release.component]]);
  namesComponents("hostRequirements", (fact) => [["component", fact.component]]);
  namesComponents("behaviourChanges", (change) => each("components", change.components));
  namesComponents("featureGates", (gate) => each("components", gate.components));
  namesComponents("configurationApis", (api) => [["component", api.component]]);
  namesComponents("controllers", (controller) => [["component", controller.component]]);
  let changeIds: ReadonlySet<string> | undefined;
  const behaviourChangeIds = (): ReadonlySet<string> =>
    (changeIds ??= new Set(bundle.behaviourChanges.map((change) => change.id)));
  perRecord(
    "behaviour changes named by controllers",
    [bundle.behaviourChanges],
    "controllers",
    (controller, index, { at }) =>
      controller.behaviourChanges.forEach((id, position) => {
        if (!behaviourChangeIds().has(id))
          at(
            "controllers",
            index,
            `behaviourChanges.${position}`,
            `names behaviour change "${id}", which kb/behaviour-changes.yaml does not have`,
          );
      }),
  );
  perRecord(
    "behaviour changes named by fieldRules",
    [bundle.behaviourChanges],
    "fieldRules",
    (rule, index, { at }) => {
      if (!behaviourChangeIds().has(rule.behaviourChange))
        at(
          "fieldRules",
          index,
          "behaviourChange",
          `names behaviour change "${rule.behaviourChange}", which kb/behaviour-changes.yaml does not have`,
        );
    },
  );
  namesComponents("rollbackPolicies", (policy) => each("components", policy.components));
  perRecord(
    "platforms named by rollbackPolicies",
    [bundle.platforms],
    "rollbackPolicies",
    (policy, index, { at }) => {
      if (
        policy.platform !== null &&
        !bundle.platforms.some((platform) => platform.name === policy.platform)
      ) {
        at(
          "rollbackPolicies",
          index,
          "platform",
          `names platform "${policy.platform}", which kb/platforms.yaml does not have; known: ${bundle.platforms.map((platform) => platform.name).join(", ")}`,
        );
      }
    },
  );
  perRecord(
    "platforms named by runtimeRequirements",
    [bundle.platforms],
    "runtimeRequirements",
    (requirement, index, { at }) => {
      if (
        requirement.platform !== null &&
        !bundle.platforms.some((platform) => platform.name === requirement.platform)
      ) {
        at(
          "runtimeRequirements",
          index,
          "platform",
          `names platform "${requirement.platform}", which kb/platforms.yaml does not have; known: ${bundle.platforms.map((platform) => platform.name).join(", ")}`,
        );
      }
    },
  );
  // A claim reads the kind it claims: the lists are the claims, the releases, and each claimed kind's.
  const claimed = [...new Set(bundle.coverage.map((claim) => claim.knowledge))].flatMap(
    (knowledge) => (isClaimable(knowledge) ? [bundle[knowledge]] : []),
  );
  part("coverage", [bundle.coverage, bundle.releases, ...claimed], ({ add }) =>
    coverageIssues(bundle).forEach(add),
  );
  namesComponents("recommendations", (recommendation) =>
    each("components", recommendation.components),
  );

  part("profiles", [bundle.profiles], ({ at, add }) => {
    const profiles = new Map(bundle.profiles.map((profile) => [profile.name, profile]));
    bundle.profiles.forEach((profile, index) => {
      if (profile.extends !== null && !profiles.has(profile.extends)) {
        at("profiles", index, "extends", `names unknown profile "${profile.extends}"`);
        return;
      }
      const chain = new Set([profile.name]);
      for (
        let parent = profile.extends;
        parent !== null;
        parent = profiles.get(parent)?.extends ?? null
      ) {
        if (chain.has(parent)) {
          at(
            "profiles",
            index,
            "extends",
            `profiles extend each other in a cycle: ${[...chain, parent].join(" -> ")}`,
          );
          break;
        }
        chain.add(parent);
      }
    });
    if (!profiles.has("upstream")) {
      add({ file: ENTITIES.profiles.file, message: 'must define the default profile "upstream"' });
    }
  });
  let profileNames: ReadonlySet<string> | undefined;
  perRecord(
    "profiles named by skewRules",
    [bundle.profiles],
    "skewRules",
    (rule, index, { at }) => {
      const profiles = (profileNames ??= new Set(bundle.profiles.map((profile) => profile.name)));
      if (!profiles.has(rule.profile)) {
        at(
          "skewRules",
          index,
          "profile",
          `names unknown profile "${rule.profile}"; known: ${[...profiles].join(", ")}`,
        );
      }
    },
  );

  // Two rules of one profile for the same component and reference must not
  // both apply to one control-plane minor: the answer would depend on order.
  part("overlapping skewRules", [bundle.skewRules], ({ at }) => {
    bundle.skewRules.forEach((rule, index) => {
      const clash = bundle.skewRules.findIndex(
        (other, otherIndex) =>
          otherIndex < index &&
          other.profile === rule.profile &&
          other.component === rule.component &&
          other.relativeTo === rule.relativeTo &&
          rangesOverlap(other.appliesFrom, other.appliesUntil, rule.appliesFrom, rule.appliesUntil),
      );
      if (clash >= 0) {
        at(
          "skewRules",
          index,
          "appliesFrom",
          `overlaps skewRules[${clash}] (${bundle.skewRules[clash]?.id}) for the same profile, component and reference`,
        );
      }
    });
  });
  return issues;
}

interface Report {
  /** An issue of the bundle as a whole. */
  readonly add: (issue: KbIssue) => void;
  /** An issue of one record, named by its place and key. */
  readonly at: (entity: keyof KbBundle, index: number, field: string, message: string) => void;
  /** An issue when `name` (null: none named) is no component of the bundle. */
  readonly needComponent: (
    entity: keyof KbBundle,
    index: number,
    field: string,
    name: string | null,
  ) => void;
}

function reporter(
  bundle: KbBundle,
  issues: KbIssue[],
  components: () => ReadonlySet<string>,
  judged?: { readonly entity: keyof KbBundle; readonly list: readonly object[] },
): Report {
  const at: Report["at"] = (entity, index, field, message) => {
    const record = (entity === judged?.entity ? judged.list : bundle[entity])[index] as
      | KbBundle[typeof entity][number]
      | undefined;
    issues.push({
      file: ENTITIES[entity].file,
      entry: `${entity}[${index}]`,
      key: record === undefined ? undefined : recordKey(entity, record),
      field,
      message,
    });
  };
  return {
    add: (issue) => issues.push(issue),
    at,
    needComponent: (entity, index, field, name) => {
      if (name !== null && !components().has(name))
        at(
          entity,
          index,
          field,
          `names unknown component "${name}"; known: ${[...components()].join(", ")}`,
        );
    },
  };
}

function isClaimable(knowledge: string): knowledge is keyof KbBundle {
  return (ENTITY_NAMES as readonly string[]).includes(knowledge) && knowledge !== "coverage";
}

/** What each part found, per part, for the lists it read (the first list's entry holds the few latest sets of the others). */
const rememberedParts = new Map<
  string,
  WeakMap<
    readonly object[],
    Array<{ readonly rest: ReadonlyArray<readonly object[]>; readonly found: unknown }>
  >
>();
const REMEMBERED_PER_LIST = 4;

/** What a part found for exactly these lists, if it was remembered. */
function recall<T>(part: string, lists: ReadonlyArray<readonly object[]>): T | undefined {
  const [first, ...rest] = lists;
  const entries = rememberedParts.get(part)?.get(first!) ?? [];
  return entries.find(
    (entry) =>
      entry.rest.length === rest.length && entry.rest.every((list, index) => list === rest[index]),
  )?.found as T | undefined;
}

/** Remembers what a part found for these lists (frozen lists only: one that can still change could hold other records next time). */
function remember<T>(part: string, lists: ReadonlyArray<readonly object[]>, found: T): T {
  if (!lists.every((list) => Object.isFrozen(list))) return found;
  const [first, ...rest] = lists;
  let byFirst = rememberedParts.get(part);
  if (byFirst === undefined) rememberedParts.set(part, (byFirst = new WeakMap()));
  byFirst.set(
    first!,
    [{ rest, found }, ...(byFirst.get(first!) ?? [])].slice(0, REMEMBERED_PER_LIST),
  );
  return found;
}

/** A part's issues for these lists, checked again only when one of them is new. */
function remembered(
  part: string,
  lists: ReadonlyArray<readonly object[]>,
  check: () => KbIssue[],
): readonly KbIssue[] {
  return recall<readonly KbIssue[]>(part, lists) ?? remember(part, lists, check());
}

/** A per-record part's findings, with the position of the record each is about, in order of position. */
type Found = ReadonlyArray<{ readonly index: number; readonly issue: KbIssue }>;

/**
 * A per-record part's issues for `list` (with the context lists). When the
 * list was made from another by one edit and the part is remembered for that
 * one, its findings are carried over: those of a replaced record dropped,
 * the changed record judged, and put in its place.
 */
function rememberedPerRecord(
  part: string,
  context: ReadonlyArray<readonly object[]>,
  list: readonly object[],
  check: (list: readonly object[], index: number) => KbIssue[],
): readonly KbIssue[] {
  const judged = (of: readonly object[], index: number): Found =>
    check(of, index).map((issue) => ({ index, issue }));
  // Keyed by the judged list first: each list has its own few entries, so the lists of one kind made one edit
  // after another never push each other out (keyed by a context list, they would share its few).
  const memo = {
    get: (of: readonly object[]) => recall<Found>(part, [of, ...context]),
    set: (of: readonly object[], found: Found) => void remember(part, [of, ...context], found),
  };
  const found = derived(
    list,
    memo,
    (of) => of.flatMap((_record, index) => judged(of, index)),
    (before, of, derivation) => {
      const kept =
        derivation.change === "append"
          ? before
          : before.filter((entry) => entry.index !== derivation.index);
      const at = kept.findIndex((entry) => entry.index > derivation.index);
      return at < 0
        ? [...kept, ...judged(of, derivation.index)]
        : [...kept.slice(0, at), ...judged(of, derivation.index), ...kept.slice(at)];
    },
  );
  return found.map((entry) => entry.issue);
}

/**
 * A coverage claim must be backed: some record of that kind reaches the
 * claimed minor (a removal, a release, a requirement starting there), or
 * its source was read on or after the day that minor was released.
 */
function coverageIssues(bundle: KbBundle): KbIssue[] {
  const issues: KbIssue[] = [];
  const releaseDate = new Map(
    bundle.releases.map((release) => [release.version, release.releaseDate]),
  );
  bundle.coverage.forEach((claim, index) => {
    const where = {
      file: ENTITIES.coverage.file,
      entry: `coverage[${index}]`,
      key: recordKey("coverage", claim),
    };
    if (
      !(ENTITY_NAMES as readonly string[]).includes(claim.knowledge) ||
      claim.knowledge === "coverage"
    ) {
      issues.push({
        ...where,
        field: "knowledge",
        message: `names no kind of knowledge; use one of ${ENTITY_NAMES.filter((entity) => entity !== "coverage").join(", ")}`,
      });
      return;
    }
    const claimed = minorNumber(claim.throughMinor, 0);
    const reached = newestMinorMentioned(bundle[claim.knowledge as keyof KbBundle]);
    const released = releaseDate.get(claim.throughMinor);
    const readAfterRelease =
      claim.sourceDate !== null && released !== undefined && claim.sourceDate >= released;
    // A claim says truly whether what was read described the minor as released: read before the release day it is pre-release material.
    // (A minor kb/releases.yaml does not know yet, such as a removal schedule's, is pre-release by nature.)
    if (claim.stage === "PRERELEASE" && readAfterRelease) {
      issues.push({
        ...where,
        field: "stage",
        message: `claims pre-release knowledge of ${claim.throughMinor}, but the source was read on ${claim.sourceDate}, on or after its release (${released}); mark it RELEASED`,
      });
      return;
    }
    if (
      claim.stage === "RELEASED" &&
      claim.sourceDate !== null &&
      released !== undefined &&
      claim.sourceDate < released
    ) {
      issues.push({
        ...where,
        field: "stage",
        message: `claims ${claim.knowledge} through ${claim.throughMinor} as released, but the source was read on ${claim.sourceDate}, before ${claim.throughMinor}'s release (${released}); mark it PRERELEASE or claim the minor before`,
      });
      return;
    }
    if (reached < claimed && !readAfterRelease && claim.stage === "RELEASED") {
      issues.push({
        ...where,
        field: "throughMinor",
        message: `claims ${claim.knowledge} through ${claim.throughMinor}, but no ${claim.knowledge} record reaches it (newest: ${Number.isFinite(reached) ? `1.${reached}` : "none"}) and the source was not read on or after ${claim.throughMinor}'s release${released === undefined ? " (not a known release)" : ` (${released})`}`,
      });
    }
  });
  return issues;
}

// A snapshot's records never change (deep-frozen), and a snapshot after an edit reuses every record the edit did
// not touch: their answers are remembered, so checking an edit does not walk every field of the knowledge base again.
const newestMinorOfFrozen = new WeakMap<object, number>();

/** The highest Kubernetes minor written in any field of these records ("1.40" → 40). */
function newestMinorMentioned(records: readonly object[]): number {
  let newest = -Infinity;
  for (const record of records) {
    if (!Object.isFrozen(record)) {
      newest = Math.max(newest, newestMinorIn([record]));
      continue;
    }
    let mentioned = newestMinorOfFrozen.get(record);
    if (mentioned === undefined) {
      mentioned = newestMinorIn([record]);
      newestMinorOfFrozen.set(record, mentioned);
    }
    newest = Math.max(newest, mentioned);
  }
  return newest;
}

function newestMinorIn(records: readonly object[]): number {
  let newest = -Infinity;
  const visit = (value: unknown): void => {
    if (typeof value === "string") {
      const match = /^1\.(\d{1,3})$/.exec(value);
      if (match) newest = Math.max(newest, Number(match[1]));
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(visit);
  };
  records.forEach(visit);
  return newest;
}

function minorNumber(minor: string | null, open: number): number {
  return minor === null ? open : Number(minor.split(".")[1]);
}

function rangesOverlap(
  fromA: string | null,
  untilA: string | null,
  fromB: string | null,
  untilB: string | null,
): boolean {
  return (
    minorNumber(fromA, -Infinity) <= minorNumber(untilB, Infinity) &&
    minorNumber(fromB, -Infinity) <= minorNumber(untilA, Infinity)
  );
}
