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

export function crossCheckBundle(bundle: KbBundle): KbIssue[] {
  const issues: KbIssue[] = [];
  const at = (entity: keyof KbBundle, index: number, field: string, message: string): void => {
    const record = bundle[entity][index];
    issues.push({
      file: ENTITIES[entity].file,
      entry: `${entity}[${index}]`,
      key: record === undefined ? undefined : recordKey(entity, record),
      field,
      message,
    });
  };

  for (const entity of ENTITY_NAMES) {
    const seen = new Map<string, number>();
    bundle[entity].forEach((record, index) => {
      const key = recordKey(entity, record);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, index);
      else at(entity, index, "(key)", `duplicates ${entity}[${first}]: "${key}" must be unique`);
    });
  }

  const components = new Set(bundle.components.map((component) => component.name));
  const names = new Map<string, string>();
  for (const component of bundle.components) names.set(component.name.toLowerCase(), component.name);
  bundle.components.forEach((component, index) => {
    for (const alias of component.aliases) {
      const owner = names.get(alias.toLowerCase());
      if (owner !== undefined && owner !== component.name) {
        at("components", index, "aliases", `alias "${alias}" already names ${owner} (aliases are case-insensitive)`);
      } else if (owner === component.name) {
        at("components", index, "aliases", `alias "${alias}" repeats this component's name or another alias`);
      } else {
        names.set(alias.toLowerCase(), component.name);
      }
    }
  });

  const needComponent = (entity: keyof KbBundle, index: number, field: string, name: string | null): void => {
    if (name !== null && !components.has(name)) {
      at(entity, index, field, `names unknown component "${name}"; known: ${[...components].join(", ")}`);
    }
  };
  bundle.ports.forEach((port, index) => needComponent("ports", index, "component", port.component));
  bundle.links.forEach((link, index) => {
    needComponent("links", index, "from", link.from);
    needComponent("links", index, "to", link.to);
  });
  bundle.skewRules.forEach((rule, index) => needComponent("skewRules", index, "component", rule.component));
  bundle.upgradeDependencies.forEach((dependency, index) => {
    needComponent("upgradeDependencies", index, "before", dependency.before);
    needComponent("upgradeDependencies", index, "after", dependency.after);
  });
  const ordered = upgradeOrder(bundle.components, bundle.upgradeDependencies);
  if (!ordered.ok) {
    issues.push({ file: ENTITIES.upgradeDependencies.file, message: `the upgrade order has a cycle, so no component on it can go first: ${ordered.cycle.join(" → ")}; remove or turn one of these edges` });
  }
  bundle.runtimeRequirements.forEach((requirement, index) => {
    needComponent("runtimeRequirements", index, "component", requirement.component);
    needComponent("runtimeRequirements", index, "requires", requirement.requires);
  });
  bundle.flagChanges.forEach((change, index) => needComponent("flagChanges", index, "component", change.component));
  bundle.runtimeReleases.forEach((release, index) => needComponent("runtimeReleases", index, "component", release.component));
  bundle.hostRequirements.forEach((fact, index) => needComponent("hostRequirements", index, "component", fact.component));
  bundle.behaviourChanges.forEach((change, index) => change.components.forEach((name, position) => needComponent("behaviourChanges", index, `components.${position}`, name)));
  bundle.featureGates.forEach((gate, index) => gate.components.forEach((name, position) => needComponent("featureGates", index, `components.${position}`, name)));
  bundle.configurationApis.forEach((api, index) => needComponent("configurationApis", index, "component", api.component));
  bundle.controllers.forEach((controller, index) => needComponent("controllers", index, "component", controller.component));
  const behaviourChangeIds = new Set(bundle.behaviourChanges.map((change) => change.id));
  bundle.controllers.forEach((controller, index) =>
    controller.behaviourChanges.forEach((id, position) => {
      if (!behaviourChangeIds.has(id)) at("controllers", index, `behaviourChanges.${position}`, `names behaviour change "${id}", which kb/behaviour-changes.yaml does not have`);
    }),
  );
  bundle.fieldRules.forEach((rule, index) => {
    if (!behaviourChangeIds.has(rule.behaviourChange)) at("fieldRules", index, "behaviourChange", `names behaviour change "${rule.behaviourChange}", which kb/behaviour-changes.yaml does not have`);
  });
  bundle.rollbackPolicies.forEach((policy, index) => policy.components.forEach((name, position) => needComponent("rollbackPolicies", index, `components.${position}`, name)));
  issues.push(...coverageIssues(bundle));
  bundle.recommendations.forEach((recommendation, index) =>
    recommendation.components.forEach((name, position) =>
      needComponent("recommendations", index, `components.${position}`, name),
    ),
  );

  const profiles = new Map(bundle.profiles.map((profile) => [profile.name, profile]));
  bundle.profiles.forEach((profile, index) => {
    if (profile.extends !== null && !profiles.has(profile.extends)) {
      at("profiles", index, "extends", `names unknown profile "${profile.extends}"`);
      return;
    }
    const chain = new Set([profile.name]);
    for (let parent = profile.extends; parent !== null; parent = profiles.get(parent)?.extends ?? null) {
      if (chain.has(parent)) {
        at("profiles", index, "extends", `profiles extend each other in a cycle: ${[...chain, parent].join(" -> ")}`);
        break;
      }
      chain.add(parent);
    }
  });
  if (!profiles.has("upstream")) {
    issues.push({ file: ENTITIES.profiles.file, message: 'must define the default profile "upstream"' });
  }
  bundle.skewRules.forEach((rule, index) => {
    if (!profiles.has(rule.profile)) {
      at("skewRules", index, "profile", `names unknown profile "${rule.profile}"; known: ${[...profiles.keys()].join(", ")}`);
    }
  });

  // Two rules of one profile for the same component and reference must not
  // both apply to one control-plane minor: the answer would depend on order.
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
      at("skewRules", index, "appliesFrom", `overlaps skewRules[${clash}] (${bundle.skewRules[clash]?.id}) for the same profile, component and reference`);
    }
  });
  return issues;
}

/**
 * A coverage claim must be backed: some record of that kind reaches the
 * claimed minor (a removal, a release, a requirement starting there), or
 * its source was read on or after the day that minor was released.
 */
function coverageIssues(bundle: KbBundle): KbIssue[] {
  const issues: KbIssue[] = [];
  const releaseDate = new Map(bundle.releases.map((release) => [release.version, release.releaseDate]));
  bundle.coverage.forEach((claim, index) => {
    const where = { file: ENTITIES.coverage.file, entry: `coverage[${index}]`, key: recordKey("coverage", claim) };
    if (!(ENTITY_NAMES as readonly string[]).includes(claim.knowledge) || claim.knowledge === "coverage") {
      issues.push({ ...where, field: "knowledge", message: `names no kind of knowledge; use one of ${ENTITY_NAMES.filter((entity) => entity !== "coverage").join(", ")}` });
      return;
    }
    const claimed = minorNumber(claim.throughMinor, 0);
    const reached = newestMinorMentioned(bundle[claim.knowledge as keyof KbBundle]);
    const released = releaseDate.get(claim.throughMinor);
    const readAfterRelease = claim.sourceDate !== null && released !== undefined && claim.sourceDate >= released;
    if (reached < claimed && !readAfterRelease) {
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

function rangesOverlap(fromA: string | null, untilA: string | null, fromB: string | null, untilB: string | null): boolean {
  return (
    minorNumber(fromA, -Infinity) <= minorNumber(untilB, Infinity) &&
    minorNumber(fromB, -Infinity) <= minorNumber(untilA, Infinity)
  );
}
