/**
 * Feature gates against a component's version (kb/feature-gates.yaml). A Kubernetes component refuses to
 * start when --feature-gates (or a configuration file's featureGates) names a gate it does not know, so a
 * gate set after its removal is an ERROR, as is one set before it exists; a gate locked to its default
 * and set the other way is an ERROR too from the minor it is locked in (the feature-gate parser refuses
 * it: "cannot set feature gate X to false, feature is locked to true"); a deprecated gate is a WARNING. Pure.
 */
import { InputError } from "../core/errors.js";
import { compareMinors } from "../core/versions.js";
import type { FeatureGateRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { finding, type Finding } from "./findings.js";
import { knowledgeEdge } from "./knowledge-edge.js";

/** A gate as a user sets it, and where (a flag, a configuration file's field). */
export interface GateSetting {
  readonly name: string;
  readonly value: boolean;
  /** For the message: "--feature-gates", "KubeletConfiguration featureGates". */
  readonly origin: string;
}

const MAX_GATES = 500;

/** `A=true,B=false` as --feature-gates takes it. */
export function parseFeatureGateList(text: string, origin: string, field: string): GateSetting[] {
  const settings: GateSetting[] = [];
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length > MAX_GATES)
    throw new InputError(
      `${field} sets ${entries.length} feature gates; at most ${MAX_GATES}`,
      field,
    );
  for (const entry of entries) {
    const match = /^([A-Za-z][A-Za-z0-9]*)=(true|false)$/i.exec(entry);
    if (match === null)
      throw new InputError(
        `${field}: "${entry.slice(0, 80)}" is not a feature-gate setting such as InPlacePodVerticalScaling=true`,
        field,
      );
    settings.push({ name: match[1]!, value: match[2]!.toLowerCase() === "true", origin });
  }
  return settings;
}

/** A configuration file's featureGates mapping ({A: true}). */
export function featureGateMap(value: unknown, origin: string, field: string): GateSetting[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== "object" || Array.isArray(value))
    throw new InputError(`${field} must be a mapping of gate names to true or false`, field);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_GATES)
    throw new InputError(
      `${field} sets ${entries.length} feature gates; at most ${MAX_GATES}`,
      field,
    );
  return entries.map(([name, setting]) => {
    if (typeof setting !== "boolean")
      throw new InputError(
        `${field}.${name.slice(0, 80)} must be true or false`,
        `${field}.${name}`,
      );
    return { name, value: setting, origin };
  });
}

const gateIndexes = new WeakMap<
  readonly FeatureGateRecord[],
  ReadonlyMap<string, FeatureGateRecord>
>();

function gateIndex(snapshot: KbSnapshot): ReadonlyMap<string, FeatureGateRecord> {
  return perList(
    gateIndexes,
    snapshot.featureGates,
    (list) => new Map(list.map((gate) => [gate.name, gate])),
  );
}

/** A gate by its name, from the index every judgement of gates uses. */
export function findGate(snapshot: KbSnapshot, name: string): FeatureGateRecord | undefined {
  return gateIndex(snapshot).get(name);
}

/** The gate's stage at a minor, or undefined when the minor is outside every stage. */
export function stageAt(
  gate: FeatureGateRecord,
  minor: string,
): FeatureGateRecord["stages"][number] | undefined {
  return gate.stages.find(
    (stage) =>
      compareMinors(stage.fromVersion, minor) <= 0 &&
      (stage.toVersion === null || compareMinors(minor, stage.toVersion) <= 0),
  );
}

/** Every setting judged for `component` at Kubernetes `minor`, on `asOf` (where the knowledge of gates ends, or is stale). */
export function judgeFeatureGates(
  snapshot: KbSnapshot,
  settings: readonly GateSetting[],
  minor: string,
  where: { readonly component: string; readonly instance: string | null },
  asOf: string,
): Finding[] {
  if (settings.length === 0) return [];
  const findings: Finding[] = [];
  const gates = gateIndex(snapshot);
  const who = `${where.component}${where.instance === null ? "" : `@${where.instance}`} ${minor}`;
  for (const setting of settings) {
    const gate = gates.get(setting.name);
    const base = { component: where.component, instance: where.instance, ruleId: setting.name };
    if (gate === undefined) {
      findings.push(
        finding({
          ...base,
          code: "FEATURE_GATE_UNKNOWN",
          severity: "INFO",
          message: `${setting.origin} sets ${setting.name}, a gate the knowledge base does not know (a typo, or a gate of another component?), so it was not judged for ${who}; a component refuses to start with a gate it does not know`,
        }),
      );
      continue;
    }
    const cite = { ...base, sourceUrl: gate.sourceUrl };
    const set = `${setting.origin} sets ${setting.name}=${setting.value}`;
    if (gate.removedIn !== null && compareMinors(gate.removedIn, minor) <= 0) {
      findings.push(
        finding({
          ...cite,
          code: "FEATURE_GATE_REMOVED",
          severity: "ERROR",
          message: `${set}, a gate removed in Kubernetes ${gate.removedIn}: ${who} refuses to start with it; drop it before the upgrade.`,
        }),
      );
      continue;
    }
    const first = gate.stages[0]!;
    if (compareMinors(minor, first.fromVersion) < 0) {
      findings.push(
        finding({
          ...cite,
          code: "FEATURE_GATE_NOT_YET",
          severity: "ERROR",
          message: `${set}, a gate that exists only from Kubernetes ${first.fromVersion}: ${who} refuses to start with it.`,
        }),
      );
      continue;
    }
    const stage = stageAt(gate, minor);
    if (stage === undefined) continue;
    if (stage.locked && setting.value !== stage.defaultValue) {
      findings.push(
        finding({
          ...cite,
          code: "FEATURE_GATE_LOCKED",
          severity: "ERROR",
          message: `${set}, but at ${minor} the gate is ${stage.stage === "GA" ? "GA" : "deprecated"} and locked to ${stage.defaultValue}: the component refuses the other value; remove the setting before the upgrade.`,
        }),
      );
    } else if (stage.stage === "DEPRECATED") {
      const removal = gate.removedIn === null ? "" : ` and removed in ${gate.removedIn}`;
      findings.push(
        finding({
          ...cite,
          code: "FEATURE_GATE_DEPRECATED",
          severity: "WARNING",
          message: `${set}, a gate deprecated at ${minor}${removal}; stop relying on it.`,
        }),
      );
    }
  }
  const edge = knowledgeEdge(
    snapshot,
    "featureGates",
    minor,
    `the feature gates of ${who}`,
    asOf,
    where,
  );
  if (edge !== undefined) findings.push(edge);
  return findings;
}
