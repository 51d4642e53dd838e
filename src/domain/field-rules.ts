/**
 * Field-level scan rules (kb/field-rules.yaml): a behaviour change that breaks an object through one of its
 * fields or annotations (Service.spec.externalIPs, a gitRepo volume, a toleration of the old master taint)
 * rather than through its apiVersion. The rules are data; this file only walks a path through the YAML
 * node tree of an object (or of the pods its workload templates) and says where a rule matches. Pure.
 */
import { isMap, isScalar, isSeq, type Alias, type Node, type YAMLMap } from "yaml";
import type { FieldRuleRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { compareMinors } from "../core/versions.js";
import { field, resolved } from "./manifest-reader.js";

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

const rulesByKind = new WeakMap<KbSnapshot, ReadonlyMap<string, readonly FieldRuleRecord[]>>();

/** The rules that read objects of each kind, built once per (immutable) snapshot. */
function rulesFor(snapshot: KbSnapshot, kind: string): readonly FieldRuleRecord[] {
  let index = rulesByKind.get(snapshot);
  if (index === undefined) {
    const built = new Map<string, FieldRuleRecord[]>();
    for (const rule of snapshot.fieldRules) {
      for (const kind of rule.scope === "POD" ? POD_CARRIERS : rule.kinds) built.set(kind, [...(built.get(kind) ?? []), rule]);
    }
    index = built;
    rulesByKind.set(snapshot, index);
  }
  return index.get(kind) ?? [];
}

/** Every rule that matches the object, with where. */
export function fieldRuleHits(snapshot: KbSnapshot, kind: string, object: YAMLMap, aliases: ReadonlyMap<Alias, Node>): FieldRuleHit[] {
  const hits: FieldRuleHit[] = [];
  for (const rule of rulesFor(snapshot, kind)) {
    let root: unknown = object;
    let prefix = "";
    if (rule.scope === "POD") {
      for (const name of POD_TEMPLATE_PATHS[kind] ?? []) {
        root = isMap(root) ? field(root, name, aliases) : undefined;
        prefix += `${name}.`;
      }
      if (!isMap(root)) continue;
    }
    for (const found of walk(root, rule.path.split("."), prefix, aliases)) {
      const hit = judge(rule, found.node, found.at, aliases);
      if (hit !== null) hits.push(hit);
    }
  }
  return hits;
}

function* walk(node: unknown, segments: readonly string[], at: string, aliases: ReadonlyMap<Alias, Node>): Generator<{ node: unknown; at: string }> {
  if (segments.length === 0) {
    yield { node, at: at.replace(/\.$/, "") };
    return;
  }
  if (!isMap(node)) return;
  const [segment, ...rest] = segments as [string, ...string[]];
  const list = segment.endsWith("[]");
  const name = list ? segment.slice(0, -2) : segment;
  const value = field(node, name, aliases);
  if (value === undefined) return;
  if (!list) {
    yield* walk(value, rest, `${at}${name}.`, aliases);
    return;
  }
  if (!isSeq(value)) return;
  let position = 0;
  for (const item of value.items) {
    yield* walk(resolved(item, aliases), rest, `${at}${name}[${position}].`, aliases);
    position += 1;
  }
}

function judge(rule: FieldRuleRecord, node: unknown, at: string, aliases: ReadonlyMap<Alias, Node>): FieldRuleHit | null {
  if (rule.keys.length > 0) {
    if (!isMap(node)) return null;
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : null;
      if (key === null) continue;
      const matches = rule.keys.some((wanted) => (wanted.endsWith("*") ? key.startsWith(wanted.slice(0, -1)) : key === wanted));
      if (matches) return { rule, at: `${at}["${key}"]`, matched: key };
    }
    return null;
  }
  const value = resolved(node, aliases);
  if (rule.equals.length > 0) {
    if (!isScalar(value) || !["string", "number", "boolean"].includes(typeof value.value)) return null;
    const text = String(value.value);
    return rule.equals.includes(text) ? { rule, at, matched: text } : null;
  }
  return isSet(value) ? { rule, at, matched: null } : null;
}

/** Set: present and not null, and not an empty list, map or string. */
function isSet(node: unknown): boolean {
  if (node === undefined || node === null) return false;
  if (isScalar(node)) return node.value !== null && node.value !== "";
  if (isSeq(node) || isMap(node)) return node.items.length > 0;
  return true;
}

/** The rule's severity at a target minor, or INFO when the target is before its first entry (the change is coming). */
export function severityAt(rule: FieldRuleRecord, target: string): { readonly severity: "ERROR" | "WARNING" | "INFO"; readonly from: string; readonly scheduled: boolean } {
  let current: { severity: "ERROR" | "WARNING" | "INFO"; from: string } | null = null;
  for (const entry of rule.severities) if (compareMinors(entry.from, target) <= 0) current = entry;
  if (current === null) return { severity: "INFO", from: rule.severities[0]!.from, scheduled: true };
  return { ...current, scheduled: false };
}
