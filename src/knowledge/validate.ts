/**
 * Rules that span records: natural keys are unique, every reference names a
 * record that exists, aliases resolve to exactly one component, profiles do
 * not extend in a cycle, the upgrade order has no cycle, and the skew rules of one profile, component and
 * reference do not overlap in the versions they apply to.
 *
 * Each kind of cross-check is a named check below, run as parts of the bundle's check (cross-check-parts.ts
 * runs and remembers them); coverage claims are checked in coverage-check.ts.
 */
import type { KbIssue } from "../core/errors.js";
import { type KbBundle } from "./records.js";
import { ENTITIES, ENTITY_NAMES, recordKey } from "./registry.js";
import { upgradeOrder } from "./upgrade-order.js";
import { keyIndexOf } from "./lists.js";
import { crossCheck, type CrossCheck } from "./cross-check-parts.js";
import { coverageIsBacked, minorNumber } from "./coverage-check.js";

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
  const check = crossCheck(bundle);
  // The parts report in this order, and so do the issues.
  uniqueKeys(check);
  uniqueAliases(check);
  componentsNamedByClusterRecords(check);
  upgradeOrderHasNoCycle(check);
  componentsNamedByComponentFacts(check);
  behaviourChangesNamedExist(check);
  conversionsNameRemovals(check);
  namesComponents(check, "rollbackPolicies", (policy) => each("components", policy.components));
  platformsNamedExist(check);
  coverageIsBacked(check);
  namesComponents(check, "recommendations", (recommendation) =>
    each("components", recommendation.components),
  );
  profilesResolve(check);
  profilesNamedBySkewRulesExist(check);
  skewRulesDoNotOverlap(check);
  return check.issues;
}

/** No kind holds two records with one natural key. */
function uniqueKeys({ bundle, part }: CrossCheck): void {
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
}

/** An alias names one component only, and never repeats its own component's name. */
function uniqueAliases({ bundle, part }: CrossCheck): void {
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
}

/** A part checking that the components a kind names exist. */
function namesComponents<E extends keyof KbBundle>(
  { bundle, perRecord }: CrossCheck,
  entity: E,
  fields: (record: KbBundle[E][number]) => ReadonlyArray<readonly [string, string | null]>,
): void {
  perRecord(
    `components named by ${entity}`,
    [bundle.components],
    entity,
    (record, index, { needComponent }) => {
      for (const [field, name] of fields(record)) needComponent(entity, index, field, name);
    },
  );
}

const each = (field: string, names: readonly string[]): Array<readonly [string, string]> =>
  names.map((name, position) => [`${field}.${position}`, name] as const);

/** The components that ports, links, skew rules and the upgrade order name exist. */
function componentsNamedByClusterRecords(check: CrossCheck): void {
  namesComponents(check, "ports", (port) => [["component", port.component]]);
  namesComponents(check, "links", (link) => [
    ["from", link.from],
    ["to", link.to],
  ]);
  namesComponents(check, "skewRules", (rule) => [["component", rule.component]]);
  namesComponents(check, "upgradeDependencies", (dependency) => [
    ["before", dependency.before],
    ["after", dependency.after],
  ]);
}

/** The upgrade order can be followed: no component has to go before itself. */
function upgradeOrderHasNoCycle({ bundle, part }: CrossCheck): void {
  part("upgrade order", [bundle.components, bundle.upgradeDependencies], ({ add }) => {
    const ordered = upgradeOrder(bundle.components, bundle.upgradeDependencies);
    if (!ordered.ok) {
      add({
        file: ENTITIES.upgradeDependencies.file,
        message: `the upgrade order has a cycle, so no component on it can go first: ${ordered.cycle.join(" → ")}; remove or turn one of these edges`,
      });
    }
  });
}

/** The components that facts about components (runtimes, flags, hosts, behaviour changes, gates, configuration files, controllers) name exist. */
function componentsNamedByComponentFacts(check: CrossCheck): void {
  namesComponents(check, "runtimeRequirements", (requirement) => [
    ["component", requirement.component],
    ["requires", requirement.requires],
  ]);
  namesComponents(check, "flagChanges", (change) => [["component", change.component]]);
  namesComponents(check, "runtimeReleases", (release) => [["component", release.component]]);
  namesComponents(check, "hostRequirements", (fact) => [["component", fact.component]]);
  namesComponents(check, "behaviourChanges", (change) => each("components", change.components));
  namesComponents(check, "featureGates", (gate) => each("components", gate.components));
  namesComponents(check, "configurationApis", (api) => [["component", api.component]]);
  namesComponents(check, "controllers", (controller) => [["component", controller.component]]);
}

/** The behaviour changes that controllers and field rules name exist. */
function behaviourChangesNamedExist({ bundle, perRecord }: CrossCheck): void {
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
}

/** A conversion starts from a removed apiVersion (kb/api-removals.yaml) and ends at that record's replacement. */
function conversionsNameRemovals({ bundle, perRecord }: CrossCheck): void {
  perRecord(
    "API removals named by apiConversions",
    [bundle.apiRemovals],
    "apiConversions",
    (conversion, index, { at }) => {
      const removal = bundle.apiRemovals.find(
        (record) =>
          record.apiVersion === conversion.fromApiVersion && record.kind === conversion.kind,
      );
      if (removal === undefined)
        at(
          "apiConversions",
          index,
          "fromApiVersion",
          `converts ${conversion.fromApiVersion} ${conversion.kind}, which kb/api-removals.yaml does not have`,
        );
      else if (removal.replacement !== conversion.toApiVersion)
        at(
          "apiConversions",
          index,
          "toApiVersion",
          `must be the replacement kb/api-removals.yaml names for ${conversion.fromApiVersion} ${conversion.kind}: ${removal.replacement ?? "none"}`,
        );
    },
  );
}

/** The platforms that rollback policies and runtime requirements name exist. */
function platformsNamedExist({ bundle, perRecord }: CrossCheck): void {
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
}

/** A profile extends a profile that exists, never in a cycle, and the default profile "upstream" exists. */
function profilesResolve({ bundle, part }: CrossCheck): void {
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
}

/** The profile each skew rule belongs to exists. */
function profilesNamedBySkewRulesExist({ bundle, perRecord }: CrossCheck): void {
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
}

// Two rules of one profile for the same component and reference must not
// both apply to one control-plane minor: the answer would depend on order.
function skewRulesDoNotOverlap({ bundle, part }: CrossCheck): void {
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
