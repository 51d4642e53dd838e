/**
 * Field-level scan rules (kb/field-rules.yaml): a behaviour change that breaks an object through one of its
 * fields or annotations (Service.spec.externalIPs, a gitRepo volume, a toleration of the old master taint)
 * rather than through its apiVersion. The rules are data; this file only walks a path through an object
 * as the manifest reader gives it (plain values, aliases and merge keys already resolved), or through the
 * pods its workload templates, and says where a rule matches. Pure.
 */
import type { FieldRuleRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { groupedBy, perList } from "../knowledge/lists.js";
import { compareMinors } from "../core/versions.js";
import { isPlainMap, type PlainMap } from "./manifest-reader.js";

/** Where a kind keeps the pod it creates: its own root (Pod), or the template under these fields. */
const POD_TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  Pod: [],
  PodTemplate: ["template"],
  Deployment: ["spec", "template"],
  StatefulSet: ["spec", "template"],
  DaemonSet: ["spec", "template"],
  ReplicaSet: ["spec", "template"],
  ReplicationController: ["spec", "template"],
  Job: ["spec", "template"],
  CronJob: ["spec", "jobTemplate", "spec", "template"],
};

/** The kinds whose pods POD rules read. */
export const POD_CARRIERS: readonly string[] = Object.keys(POD_TEMPLATE_PATHS);

export interface FieldRuleHit {
  readonly rule: FieldRuleRecord;
  /** The path as found, with list positions: spec.template.spec.volumes[2].gitRepo, or an annotation key. */
  readonly at: string;
  /** The value or key that matched, when the rule compares one. */
  readonly matched: string | null;
}

const rulesByKind = new WeakMap<
  readonly FieldRuleRecord[],
  ReadonlyMap<string, readonly FieldRuleRecord[]>
>();

/** The rules that read objects of each kind, grouped once per list. */
function rulesFor(snapshot: KbSnapshot, kind: string): readonly FieldRuleRecord[] {
  return (
    perList(rulesByKind, snapshot.fieldRules, (list) =>
      groupedBy(list, (rule) => (rule.scope === "POD" ? POD_CARRIERS : rule.kinds)),
    ).get(kind) ?? []
  );
}

/** Every rule that matches the object, with where. */
export function fieldRuleHits(
  snapshot: KbSnapshot,
  kind: string,
  object: PlainMap,
): FieldRuleHit[] {
  const rules = rulesFor(snapshot, kind);
  if (rules.length === 0) return [];
  const hits: FieldRuleHit[] = [];
  const pod = podOf(kind, object);
  for (const rule of rules) {
    const root = rule.scope === "POD" ? pod : { node: object, prefix: "" };
    if (root === null) continue;
    walk(root.node, segmentsOf(rule), 0, root.prefix, (node, at) => {
      const hit = judge(rule, node, at);
      if (hit !== null) hits.push(hit);
    });
  }
  return hits;
}

/** The pod a workload templates (the object itself for a Pod), and the path to it; null when it has none. */
function podOf(kind: string, object: PlainMap): { node: PlainMap; prefix: string } | null {
  let node: unknown = object;
  let prefix = "";
  for (const name of POD_TEMPLATE_PATHS[kind] ?? []) {
    node = isPlainMap(node) ? node[name] : undefined;
    prefix += `${name}.`;
  }
  return isPlainMap(node) ? { node, prefix } : null;
}

interface Segment {
  readonly name: string;
  readonly list: boolean;
}

const ruleSegments = new WeakMap<FieldRuleRecord, readonly Segment[]>();

/** A rule's path split once (records are immutable): `spec.volumes[].gitRepo`. */
function segmentsOf(rule: FieldRuleRecord): readonly Segment[] {
  let segments = ruleSegments.get(rule);
  if (segments === undefined) {
    segments = rule.path
      .split(".")
      .map((segment) =>
        segment.endsWith("[]")
          ? { name: segment.slice(0, -2), list: true }
          : { name: segment, list: false },
      );
    ruleSegments.set(rule, segments);
  }
  return segments;
}

/** Calls `found` with every value at the path (each item of a list segment), and where it is. */
function walk(
  node: unknown,
  segments: readonly Segment[],
  position: number,
  at: string,
  found: (node: unknown, at: string) => void,
): void {
  if (position === segments.length) {
    found(node, at.endsWith(".") ? at.slice(0, -1) : at);
    return;
  }
  if (!isPlainMap(node)) return;
  const { name, list } = segments[position]!;
  if (!Object.hasOwn(node, name)) return;
  const value = node[name];
  if (value === undefined) return;
  if (!list) {
    walk(value, segments, position + 1, `${at}${name}.`, found);
    return;
  }
  if (!Array.isArray(value)) return;
  for (let index = 0; index < value.length; index += 1)
    walk(value[index], segments, position + 1, `${at}${name}[${index}].`, found);
}

function judge(rule: FieldRuleRecord, node: unknown, at: string): FieldRuleHit | null {
  if (rule.keys.length > 0) {
    if (!isPlainMap(node)) return null;
    for (const key of Object.keys(node)) {
      const matches = rule.keys.some((wanted) =>
        wanted.endsWith("*") ? key.startsWith(wanted.slice(0, -1)) : key === wanted,
      );
      if (matches) return { rule, at: `${at}["${key}"]`, matched: key };
    }
    return null;
  }
  if (rule.equals.length > 0) {
    if (!["string", "number", "boolean"].includes(typeof node)) return null;
    const text = String(node);
    return rule.equals.includes(text) ? { rule, at, matched: text } : null;
  }
  return isSet(node) ? { rule, at, matched: null } : null;
}

/** Set: present and not null, and not an empty list, map or string. */
function isSet(node: unknown): boolean {
  if (node === undefined || node === null) return false;
  if (typeof node === "string") return node !== "";
  if (Array.isArray(node)) return node.length > 0;
  if (isPlainMap(node)) return Object.keys(node).length > 0;
  return true;
}

/** The rule's severity at a target minor, or INFO when the target is before its first entry (the change is coming). */
export function severityAt(
  rule: FieldRuleRecord,
  target: string,
): {
  readonly severity: "ERROR" | "WARNING" | "INFO";
  readonly from: string;
  readonly scheduled: boolean;
} {
  let current: { severity: "ERROR" | "WARNING" | "INFO"; from: string } | null = null;
  for (const entry of rule.severities) if (compareMinors(entry.from, target) <= 0) current = entry;
  if (current === null)
    return { severity: "INFO", from: rule.severities[0]!.from, scheduled: true };
  return { ...current, scheduled: false };
}
