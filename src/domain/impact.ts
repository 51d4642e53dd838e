/**
 * Upgrade impact: what changes between two Kubernetes minors beyond apiVersions (those are listApiRemovals
 * and scanManifests): the behaviour changes, the configuration-file versions deprecated or no longer read,
 * and the feature gates removed, deprecated, locked or turned on or off by default, each in the minor it
 * lands in, grouped by release and by area. Pure.
 */
import { InputError } from "../core/errors.js";
import { compareMinors } from "../core/versions.js";
import {
  BEHAVIOUR_AREAS,
  type BehaviourArea,
  type BehaviourChangeRecord,
  type ConfigurationApiRecord,
  type FeatureGateRecord,
} from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { type Finding } from "./findings.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import { parseAsOf } from "./days.js";
import { readMinor } from "./version-reader.js";

export type ImpactSubject = "BEHAVIOUR_CHANGE" | "CONFIGURATION_API" | "FEATURE_GATE";
export type ImpactChange =
  | "REMOVED"
  | "DEPRECATED"
  | "DISABLED_BY_DEFAULT"
  | "DEFAULT_CHANGED"
  | "BEHAVIOUR_CHANGED"
  | "ENABLED_BY_DEFAULT"
  | "LOCKED";

/** One change crossed on the way, in the minor it lands in. */
export interface ImpactItem {
  readonly subject: ImpactSubject;
  /** The record's key: a behaviour change's id, "Kind apiVersion", a gate's name. */
  readonly id: string;
  readonly kubernetesVersion: string;
  readonly change: ImpactChange;
  readonly areas: readonly BehaviourArea[];
  readonly components: readonly string[];
  readonly title: string;
  readonly whatHappens: string;
  readonly beforeUpgrade: string;
  /** How to tell whether the cluster is affected: SCAN_RULE, FLAG, FEATURE_GATE, CONFIG_FIELD, METRIC or ASK, with detail. */
  readonly detection: { readonly method: string; readonly detail: string };
  readonly sourceUrl: string;
}

export interface ImpactRelease {
  readonly kubernetesVersion: string;
  readonly changes: readonly ImpactItem[];
}

export interface ImpactArea {
  readonly area: BehaviourArea;
  readonly changes: readonly ImpactItem[];
}

export interface UpgradeImpact {
  readonly fromVersion: string;
  readonly toVersion: string;
  /** The areas asked about; empty: all. */
  readonly areas: readonly BehaviourArea[];
  readonly kbRevision: number;
  /** Every minor crossed (fromVersion excluded, toVersion included), oldest first, with what lands in it; minors with nothing are listed too. */
  readonly releases: readonly ImpactRelease[];
  /** The same changes by area (a change of several areas appears under each); areas without changes are left out. */
  readonly byArea: readonly ImpactArea[];
  readonly count: number;
  /** Where the knowledge ends before toVersion, and what an area filter left out (feature gates have no area). */
  readonly notes: readonly Finding[];
}

/** Parses `tenant-isolation,security` (or a list) into known areas; an unknown one is an InputError listing them. */
export function parseAreas(
  input: readonly string[] | string | null | undefined,
  field = "area",
): BehaviourArea[] {
  if (input === undefined || input === null) return [];
  const words = (
    typeof input === "string"
      ? input.split(",")
      : input.flatMap((entry) => String(entry).split(","))
  )
    .map((word) => word.trim().toLowerCase())
    .filter((word) => word !== "");
  const areas: BehaviourArea[] = [];
  for (const word of words) {
    const area = BEHAVIOUR_AREAS.find(
      (candidate) =>
        candidate === word || candidate.replace("-", "") === word.replace(/[-_ ]/g, ""),
    );
    if (area === undefined)
      throw new InputError(
        `${field} "${word.slice(0, 40)}" is not an area; use one of ${BEHAVIOUR_AREAS.join(", ")}`,
        field,
      );
    if (!areas.includes(area)) areas.push(area);
  }
  return areas;
}

export function upgradeImpact(
  snapshot: KbSnapshot,
  fromVersion: string,
  toVersion: string,
  options: {
    readonly areas?: readonly string[] | string | null;
    /** The day the knowledge's edges are judged on (a minor out by then and not loaded is stale); today when absent. */
    readonly asOf?: string | null;
  } = {},
): UpgradeImpact {
  const from = readMinor(snapshot, fromVersion, "fromVersion");
  const to = readMinor(snapshot, toVersion, "toVersion");
  if (compareMinors(from, to) >= 0) {
    throw new InputError(
      `fromVersion ${from} is not older than toVersion ${to}; give the minor you upgrade from and the newer one you upgrade to`,
      "fromVersion",
    );
  }
  const [fromMajor, fromMinor] = from.split(".").map(Number) as [number, number];
  const toMinor = Number(to.split(".")[1]);
  if (to.split(".")[0] !== String(fromMajor))
    throw new InputError(
      `toVersion ${to} is another major version than fromVersion ${from}`,
      "toVersion",
    );
  if (toMinor - fromMinor > 40)
    throw new InputError(
      `toVersion ${to} is ${toMinor - fromMinor} minors past fromVersion ${from}; ask about at most 40 minors`,
      "toVersion",
    );
  const areas = parseAreas(options.areas);
  const all = changesBetween(snapshot, from, to);
  const kept =
    areas.length === 0
      ? all
      : all.filter((item) => item.areas.some((area) => areas.includes(area)));

  const releases: ImpactRelease[] = [];
  for (let minor = fromMinor + 1; minor <= toMinor; minor += 1) {
    const version = `${fromMajor}.${minor}`;
    releases.push({
      kubernetesVersion: version,
      changes: kept.filter((item) => item.kubernetesVersion === version),
    });
  }
  const byArea = BEHAVIOUR_AREAS.filter((area) => areas.length === 0 || areas.includes(area))
    .map((area) => ({ area, changes: kept.filter((item) => item.areas.includes(area)) }))
    .filter((group) => group.changes.length > 0);

  const notes: Finding[] = impactEdges(snapshot, from, to, parseAsOf(options.asOf));
  const withoutArea = all.filter((item) => item.areas.length === 0).length;
  if (areas.length > 0 && withoutArea > 0) {
    notes.push({
      code: "KNOWLEDGE_EDGE",
      check: "COVERAGE",
      severity: "INFO",
      component: null,
      instance: null,
      ruleId: "impact:no-area",
      sourceUrl: null,
      message: `${withoutArea} change${withoutArea === 1 ? "" : "s"} on the way (feature gates, configuration files) ${withoutArea === 1 ? "has" : "have"} no area and ${withoutArea === 1 ? "was" : "were"} left out by the area filter; ask without an area to see ${withoutArea === 1 ? "it" : "them"}`,
    });
  }
  return {
    fromVersion: from,
    toVersion: to,
    areas,
    kbRevision: snapshot.revision,
    releases,
    byArea,
    count: kept.length,
    notes,
  };
}

/** Where the knowledge of what changes between two minors ends before `to`: the same notes for upgrade-impact and for a plan's hops. */
export function impactEdges(
  snapshot: KbSnapshot,
  from: string,
  to: string,
  asOf: string,
): Finding[] {
  return (["behaviourChanges", "configurationApis", "featureGates"] as const)
    .map((knowledge) =>
      knowledgeEdge(snapshot, knowledge, to, `the impact of ${from} → ${to}`, asOf),
    )
    .filter((edge): edge is Finding => edge !== undefined);
}

/** Every change landing in a minor after `from`, up to and including `to`, in minor order. */
export function changesBetween(snapshot: KbSnapshot, from: string, to: string): ImpactItem[] {
  return allChanges(snapshot).filter(
    (item) =>
      compareMinors(from, item.kubernetesVersion) < 0 &&
      compareMinors(item.kubernetesVersion, to) <= 0,
  );
}

// Every plan asks for its hops' changes: the items of three lists are built and ordered once (remembered for
// the lists, which snapshots after edits of other kinds share).
const changesOfLists = new WeakMap<
  KbSnapshot["behaviourChanges"],
  WeakMap<
    KbSnapshot["configurationApis"],
    WeakMap<KbSnapshot["featureGates"], readonly ImpactItem[]>
  >
>();

/** Every change the snapshot knows, by minor, then behaviour changes, configuration files and feature gates, then id. */
function allChanges(snapshot: KbSnapshot): readonly ImpactItem[] {
  const { behaviourChanges, configurationApis, featureGates } = snapshot;
  const byConfiguration = perList(
    changesOfLists,
    behaviourChanges,
    () =>
      new WeakMap<
        KbSnapshot["configurationApis"],
        WeakMap<KbSnapshot["featureGates"], readonly ImpactItem[]>
      >(),
  );
  const byGates = perList(
    byConfiguration,
    configurationApis,
    () => new WeakMap<KbSnapshot["featureGates"], readonly ImpactItem[]>(),
  );
  return perList(byGates, featureGates, () => {
    const order: Record<ImpactSubject, number> = {
      BEHAVIOUR_CHANGE: 0,
      CONFIGURATION_API: 1,
      FEATURE_GATE: 2,
    };
    return [
      ...behaviourChanges.map(behaviourItem),
      ...configurationApis.flatMap((record) => configurationItems(record)),
      ...featureGates.flatMap((gate) => gateItems(gate)),
    ].sort(
      (a, b) =>
        compareMinors(a.kubernetesVersion, b.kubernetesVersion) ||
        order[a.subject] - order[b.subject] ||
        a.id.localeCompare(b.id),
    );
  });
}

function behaviourItem(change: BehaviourChangeRecord): ImpactItem {
  return {
    subject: "BEHAVIOUR_CHANGE",
    id: change.id,
    kubernetesVersion: change.kubernetesVersion,
    change: change.change,
    areas: change.areas,
    components: change.components,
    title: change.title,
    whatHappens: change.whatHappens,
    beforeUpgrade: change.beforeUpgrade,
    detection: change.detection,
    sourceUrl: change.sourceUrl,
  };
}

function configurationItems(record: ConfigurationApiRecord): ImpactItem[] {
  const id = `${record.kind} ${record.apiVersion}`;
  const moveTo =
    record.replacement === null
      ? "Move the file to a version the new release reads."
      : `Move the file to ${record.replacement} (the kubeadm config migrate command does it for kubeadm's).`;
  const base = {
    subject: "CONFIGURATION_API" as const,
    id,
    areas: record.areas,
    components: [record.component],
    sourceUrl: record.sourceUrl,
  };
  const detection = {
    method: "CONFIG_FIELD",
    detail: `The apiVersion of the ${record.kind} file (${record.usedWith}); scanManifests judges such files.`,
  };
  const items: ImpactItem[] = [];
  if (record.deprecatedIn !== null && record.deprecatedIn !== record.removedIn) {
    items.push({
      ...base,
      kubernetesVersion: record.deprecatedIn,
      change: "DEPRECATED",
      title: `${record.kind} ${record.apiVersion} is deprecated`,
      whatHappens: `${record.component} still reads ${record.kind} files of ${record.apiVersion}${record.removedIn === null ? "" : ` until ${record.removedIn}`}, but the version is deprecated.`,
      beforeUpgrade: moveTo,
      detection,
    });
  }
  if (record.removedIn !== null) {
    items.push({
      ...base,
      kubernetesVersion: record.removedIn,
      change: "REMOVED",
      title: `${record.kind} ${record.apiVersion} is no longer read`,
      whatHappens: `${record.component} refuses to start with a ${record.kind} file of ${record.apiVersion} (${record.usedWith}).`,
      beforeUpgrade: moveTo,
      detection,
    });
  }
  return items;
}

function gateItems(gate: FeatureGateRecord): ImpactItem[] {
  const base = {
    subject: "FEATURE_GATE" as const,
    id: gate.name,
    areas: [] as BehaviourArea[],
    components: gate.components,
    sourceUrl: gate.sourceUrl,
  };
  const detection = {
    method: "FEATURE_GATE",
    detail: `--feature-gates or a configuration file's featureGates naming ${gate.name}; the node-pool check and validateCluster judge them.`,
  };
  const items: ImpactItem[] = [];
  gate.stages.forEach((stage, index) => {
    const previous = index === 0 ? undefined : gate.stages[index - 1];
    if (stage.stage === "DEPRECATED") {
      items.push({
        ...base,
        kubernetesVersion: stage.fromVersion,
        change: "DEPRECATED",
        title: `Feature gate ${gate.name} is deprecated`,
        whatHappens: `${gate.name} is deprecated (default ${stage.defaultValue}).`,
        beforeUpgrade: `Stop setting ${gate.name}; it goes away in a later release.`,
        detection,
      });
    } else if (stage.locked && previous?.locked !== true) {
      items.push({
        ...base,
        kubernetesVersion: stage.fromVersion,
        change: "LOCKED",
        title: `Feature gate ${gate.name} is ${stage.stage === "GA" ? "GA and " : ""}locked to ${stage.defaultValue}`,
        whatHappens: `Setting ${gate.name}=${!stage.defaultValue} makes the component refuse to start.`,
        beforeUpgrade: `Remove ${gate.name}=${!stage.defaultValue} from flags and configuration files.`,
        detection,
      });
    } else if (previous !== undefined && previous.defaultValue !== stage.defaultValue) {
      items.push({
        ...base,
        kubernetesVersion: stage.fromVersion,
        change: stage.defaultValue ? "ENABLED_BY_DEFAULT" : "DISABLED_BY_DEFAULT",
        title: `Feature gate ${gate.name} is ${stage.defaultValue ? "on" : "off"} by default (${stage.stage.toLowerCase()})`,
        whatHappens: `Without a setting, ${gate.name} is now ${stage.defaultValue ? "enabled" : "disabled"}.`,
        beforeUpgrade: `Test the new behaviour, or set ${gate.name}=${previous.defaultValue} while it can still be set.`,
        detection,
      });
    }
  });
  if (gate.removedIn !== null) {
    items.push({
      ...base,
      kubernetesVersion: gate.removedIn,
      change: "REMOVED",
      title: `Feature gate ${gate.name} is removed`,
      whatHappens: `A component started with ${gate.name} in --feature-gates or featureGates refuses to start.`,
      beforeUpgrade: `Remove ${gate.name} from every component's flags and configuration files.`,
      detection,
    });
  }
  return items;
}
