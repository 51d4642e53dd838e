/**
 * Applies a conversion's steps (kb/api-conversions.yaml) to an object as plain values: the object as the
 * replacement API wants it, what changed (for the answer), what is lost, and where each moved value came from
 * (so the text rewrite can keep the moved values' own quoting and comments). Pure; the object given is not
 * touched. The text itself is rewritten by yaml-rewrite.ts from the result.
 */
import type { ApiConversionRecord, ConversionStep } from "../knowledge/records.js";
import { isPlainMap, type PlainMap } from "./manifest-values.js";

/** A path in the object: keys of maps and indexes of lists. */
export type FieldPath = ReadonlyArray<string | number>;

export type FieldChangeAction = "API_VERSION" | "MOVED" | "SET" | "ADDED" | "DROPPED" | "REPLACED";

/** One change made in an object. */
export interface FieldChange {
  readonly action: FieldChangeAction;
  /** Where, as written in the input: `spec.rules[0].http.paths[0].backend.serviceName`. */
  readonly field: string;
  /** Where a moved field went; null otherwise. */
  readonly to: string | null;
  /** The value set, added or dropped; null for moves. */
  readonly value: unknown;
  /** Why (the step's note), or null. */
  readonly note: string | null;
  /** What is lost; null when nothing is. */
  readonly lossy: string | null;
}

/** A key renamed in place: the text keeps the value as written and changes the key only. */
export interface KeyRename {
  readonly at: FieldPath;
  readonly from: string;
  readonly to: string;
}

export interface ConvertedObject {
  readonly value: PlainMap;
  readonly changes: readonly FieldChange[];
  readonly renames: readonly KeyRename[];
  /** Values that moved: the new path's prefix and the old one (in the input), newest first. */
  readonly origins: ReadonlyArray<{ readonly now: FieldPath; readonly was: FieldPath }>;
  /** Why the conversion cannot be applied to this object (a step's destination already taken ...); empty when it can. */
  readonly problems: readonly string[];
}

interface Segment {
  readonly key: string;
  readonly each: boolean;
}

/** `spec.rules[].http` → spec, rules (each), http; `topology["kubernetes.io/zone"]` → topology, kubernetes.io/zone. */
export function parseConversionPath(path: string): Segment[] {
  const segments: Segment[] = [];
  const pattern = /(?:^|\.)?(?:([A-Za-z][A-Za-z0-9]*)(\[\])?|\["([^"\]]+)"\])/gy;
  for (let match = pattern.exec(path); match !== null; match = pattern.exec(path)) {
    if (match[0] === "") break;
    segments.push({ key: match[1] ?? match[3]!, each: match[2] !== undefined });
  }
  return segments;
}

export function describePath(path: FieldPath): string {
  return path
    .map((part, index) =>
      typeof part === "number"
        ? `[${part}]`
        : /^[A-Za-z][A-Za-z0-9]*$/.test(part)
          ? `${index === 0 ? "" : "."}${part}`
          : `["${part}"]`,
    )
    .join("");
}

/** The object converted by the record's steps, with its new apiVersion. */
export function convertObject(
  object: PlainMap,
  conversion: ApiConversionRecord,
  opaque: (value: unknown) => boolean = () => false,
): ConvertedObject {
  const state: ConversionState = {
    opaque,
    root: structuredClone<PlainMap>(object),
    changes: [],
    renames: [],
    origins: [],
    problems: [],
  };
  state.root.apiVersion = conversion.toApiVersion;
  state.changes.push(change("API_VERSION", ["apiVersion"], { value: conversion.toApiVersion }));
  for (const step of conversion.steps) applyStep(state, step);
  const { root, changes, renames, origins, problems } = state;
  return { value: root, changes, renames, origins, problems };
}

interface ConversionState {
  /** A value whose content is not known (a template's action): a step whose condition reads it cannot apply. */
  readonly opaque: (value: unknown) => boolean;
  root: PlainMap;
  changes: FieldChange[];
  renames: KeyRename[];
  origins: Array<{ now: FieldPath; was: FieldPath }>;
  problems: string[];
}

function change(
  action: FieldChangeAction,
  path: FieldPath,
  rest: { to?: FieldPath; value?: unknown; note?: string | undefined; lossy?: string | null },
): FieldChange {
  return {
    action,
    field: describePath(path),
    to: rest.to === undefined ? null : describePath(rest.to),
    value: rest.value ?? null,
    note: rest.note ?? null,
    lossy: rest.lossy ?? null,
  };
}

/** Each map the step's `at` paths reach, with its path; the object itself when `at` is empty. */
function places(root: PlainMap, at: readonly string[]): Array<{ map: PlainMap; path: FieldPath }> {
  if (at.length === 0) return [{ map: root, path: [] }];
  const found: Array<{ map: PlainMap; path: FieldPath }> = [];
  for (const path of at) {
    let reached: Array<{ value: unknown; path: FieldPath }> = [{ value: root, path: [] }];
    for (const segment of parseConversionPath(path)) {
      const next: Array<{ value: unknown; path: FieldPath }> = [];
      for (const { value, path: here } of reached) {
        if (!isPlainMap(value) || !(segment.key in value)) continue;
        const child = value[segment.key];
        const childPath = [...here, segment.key];
        if (!segment.each) next.push({ value: child, path: childPath });
        else if (Array.isArray(child))
          child.forEach((item, index) => next.push({ value: item, path: [...childPath, index] }));
      }
      reached = next;
    }
    for (const { value, path: here } of reached)
      if (isPlainMap(value)) found.push({ map: value, path: here });
  }
  return found;
}

/** The map holding the path's last key, and that key; null when a map on the way is missing. */
function holder(map: PlainMap, keys: readonly string[]): { map: PlainMap; key: string } | null {
  let current = map;
  for (const key of keys.slice(0, -1)) {
    const next = current[key];
    if (!isPlainMap(next)) return null;
    current = next;
  }
  return { map: current, key: keys[keys.length - 1]! };
}

function isEmpty(value: unknown): boolean {
  return (
    value === null ||
    value === undefined ||
    (Array.isArray(value) && value.length === 0) ||
    (isPlainMap(value) && Object.keys(value).length === 0)
  );
}

function applyStep(state: ConversionState, step: ConversionStep): void {
  for (const place of places(state.root, step.at)) {
    if ("move" in step) moveField(state, place, step);
    else if ("default" in step) defaultField(state, place, step);
    else if ("drop" in step) dropField(state, place, step);
    else replaceField(state, place, step);
  }
}

type Place = { map: PlainMap; path: FieldPath };
type MoveStep = Extract<ConversionStep, { move: string }>;

function moveField(state: ConversionState, place: Place, step: MoveStep): void {
  const fromKeys = parseConversionPath(step.move).map((segment) => segment.key);
  const toKeys = parseConversionPath(step.to).map((segment) => segment.key);
  const source = holder(place.map, fromKeys);
  if (source === null || !(source.key in source.map)) return;
  const value = source.map[source.key];
  if (step.when !== undefined && !unknowable(state, place, fromKeys, value)) return;
  if (step.when === "integer" && !Number.isInteger(value)) return;
  if (step.when === "string" && typeof value !== "string") return;
  const fromPath = [...place.path, ...fromKeys];
  const toPath = [...place.path, ...toKeys];
  const taken = holder(place.map, toKeys);
  if (taken !== null && taken.key in taken.map) {
    if (step.whenTaken === "drop-if-equal") {
      if (!sameValue(taken.map[taken.key], value)) return;
      delete source.map[source.key];
      state.changes.push(
        change("DROPPED", fromPath, {
          value,
          note: `${describePath(toPath)} already says the same`,
        }),
      );
      return;
    }
    state.problems.push(
      `${describePath(fromPath)} would move to ${describePath(toPath)}, which the object already has`,
    );
    return;
  }
  // A move within one map (spec.backend → spec.defaultBackend) is a rename: the text keeps the value as written.
  const sameHolder =
    fromKeys.length === toKeys.length &&
    fromKeys.slice(0, -1).every((key, index) => toKeys[index] === key);
  // The new field takes the old one's place among its siblings, so the text reads in the same order.
  const entries = Object.entries(source.map);
  const position = entries.findIndex(([key]) => key === source.key);
  // A new field of the place goes where the field it came from starts (topology.x → nodeName: topology's place).
  const topPosition =
    fromKeys.length === 1 ? position : Object.keys(place.map).indexOf(fromKeys[0]!);
  delete source.map[source.key];
  if (sameHolder) {
    replaceEntries(source.map, entries, position, [[toKeys[toKeys.length - 1]!, value]]);
    state.renames.push({
      at: [...place.path, ...fromKeys.slice(0, -1)],
      from: source.key,
      to: toKeys[toKeys.length - 1]!,
    });
  } else if (
    !placeValue(state, place, toKeys, value, { topPosition, last: "end", overwrite: false })
  ) {
    return;
  }
  state.origins.unshift({ now: toPath, was: originOf(state, fromPath) });
  state.changes.push(change("MOVED", fromPath, { to: toPath, note: step.note }));
  for (const [field, fixed] of Object.entries(step.set ?? {})) {
    const keys = parseConversionPath(field).map((segment) => segment.key);
    const target = holder(place.map, keys);
    if (target !== null && target.map[target.key] === fixed) continue;
    // A type beside a value (target.type) reads first, as the API documents and kubectl print it.
    if (
      placeValue(state, place, keys, fixed, { topPosition: null, last: "start", overwrite: true })
    )
      state.changes.push(change("SET", [...place.path, ...keys], { value: fixed }));
  }
}

/** Where placeValue puts what it adds: the place's new first map, and the new last key. */
interface Placement {
  /** Among the place's fields, where a new first map goes (the moved field's place); last when null. */
  readonly topPosition: number | null;
  /** A new last key: at the end of its map, at its start, or right after a sibling (at the start without it). */
  readonly last: "end" | "start" | { readonly after: string };
  /** Whether an existing last key is overwritten. */
  readonly overwrite: boolean;
}

/**
 * Puts a value at keys under the place, making the maps on the way. False when the last key is there and may
 * not be overwritten, or (with a problem) when a field on the way is not a map.
 */
function placeValue(
  state: ConversionState,
  place: Place,
  keys: readonly string[],
  value: unknown,
  placement: Placement,
): boolean {
  let current = place.map;
  for (const [index, key] of keys.entries()) {
    if (index === keys.length - 1) {
      if (key in current) {
        if (!placement.overwrite) return false;
        current[key] = value;
      } else {
        const entries = Object.entries(current);
        const { last } = placement;
        const after = typeof last === "object" ? entries.findIndex(([k]) => k === last.after) : -1;
        const at = last === "end" ? entries.length : after + 1;
        replaceEntries(current, entries, at, [[key, value]], 0);
      }
      return true;
    }
    if (!(key in current)) {
      if (index === 0 && placement.topPosition !== null)
        replaceEntries(current, Object.entries(current), placement.topPosition, [[key, {}]], 0);
      else current[key] = {};
    }
    const next = current[key];
    if (!isPlainMap(next)) {
      state.problems.push(
        `${describePath([...place.path, ...keys.slice(0, index + 1)])} is not a map, so ${describePath([...place.path, ...keys])} cannot be set`,
      );
      return false;
    }
    current = next;
  }
  return false;
}

/** Rewrites a map's entries with `inserted` at `position` of the old entries, `removed` of them dropped there. */
function replaceEntries(
  map: PlainMap,
  entries: Array<[string, unknown]>,
  position: number,
  inserted: Array<[string, unknown]>,
  removed = 1,
): void {
  for (const key of Object.keys(map)) delete map[key];
  const kept = [...entries];
  kept.splice(position, removed, ...inserted);
  for (const [key, value] of kept) map[key] = value;
}

/** Where a path of the converted object was in the input, through the moves made before. */
export function originOf(converted: Pick<ConvertedObject, "origins">, path: FieldPath): FieldPath {
  for (const { now, was } of converted.origins)
    if (now.length <= path.length && now.every((part, index) => path[index] === part))
      return [...was, ...path.slice(now.length)];
  return path;
}

function defaultField(
  state: ConversionState,
  place: Place,
  step: Extract<ConversionStep, { default: string }>,
): void {
  const keys = parseConversionPath(step.default).map((segment) => segment.key);
  const target = holder(place.map, keys);
  if (target !== null && target.key in target.map) return;
  const last = step.after === undefined ? "end" : { after: step.after };
  if (placeValue(state, place, keys, step.value, { topPosition: null, last, overwrite: false }))
    state.changes.push(
      change("ADDED", [...place.path, ...keys], { value: step.value, note: step.note }),
    );
}

function dropField(
  state: ConversionState,
  place: Place,
  step: Extract<ConversionStep, { drop: string }>,
): void {
  const keys = parseConversionPath(step.drop).map((segment) => segment.key);
  const target = holder(place.map, keys);
  if (target === null || !(target.key in target.map)) return;
  const value = target.map[target.key];
  if (step.whenEquals !== undefined && !unknowable(state, place, keys, value)) return;
  if (step.whenEquals !== undefined && value !== step.whenEquals) return;
  delete target.map[target.key];
  const lossy = step.lossy !== undefined && !isEmpty(value) ? step.lossy : null;
  state.changes.push(
    change("DROPPED", [...place.path, ...keys], { value, note: step.note, lossy }),
  );
}

function replaceField(
  state: ConversionState,
  place: Place,
  step: Extract<ConversionStep, { replace: string }>,
): void {
  const keys = parseConversionPath(step.replace).map((segment) => segment.key);
  const target = holder(place.map, keys);
  if (target === null || !(target.key in target.map)) return;
  const value = target.map[target.key];
  if (!unknowable(state, place, keys, value)) return;
  const applies =
    step.whenEmptyMap === true
      ? isPlainMap(value) && Object.keys(value).length === 0
      : value === step.whenEquals;
  if (!applies) return;
  if (step.unlessPresent !== undefined) {
    const unless = holder(
      state.root,
      parseConversionPath(step.unlessPresent).map((segment) => segment.key),
    );
    if (unless !== null && unless.key in unless.map) return;
  }
  target.map[target.key] = structuredClone(step.with);
  state.changes.push(
    change("REPLACED", [...place.path, ...keys], { value: step.with, note: step.note }),
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Two conversions one after the other (v1beta1 → v1beta2 → v1), as one: paths of the second traced to the input. */
export function followedBy(first: ConvertedObject, next: ConvertedObject): ConvertedObject {
  return {
    value: next.value,
    changes: [...first.changes, ...next.changes],
    renames: [...next.renames, ...first.renames],
    origins: [
      ...next.origins.map(({ now, was }) => ({ now, was: originOf(first, was) })),
      ...first.origins,
    ],
    problems: [...first.problems, ...next.problems],
  };
}

/** True when the step may read the value; an opaque one is a problem (the step's condition cannot be judged). */
function unknowable(
  state: ConversionState,
  place: Place,
  keys: readonly string[],
  value: unknown,
): boolean {
  if (!state.opaque(value)) return true;
  const problem = `${describePath([...place.path, ...keys])} is templated: what it renders to decides how it converts`;
  if (!state.problems.includes(problem)) state.problems.push(problem);
  return false;
}
