/**
 * How the knowledge base's cross-check runs its parts: each part's issues are reported against the bundle
 * (a record named by its place and key), and remembered for exactly the lists the part read, so that
 * checking an edit re-runs only the parts that read the kind it changed (see crossCheckBundle).
 */
import type { KbIssue } from "../core/errors.js";
import { type KbBundle } from "./records.js";
import { ENTITIES, recordKey } from "./registry.js";
import { derived } from "./lists.js";

/** What the named checks of crossCheckBundle work with: the bundle, its issues so far, and the ways to run a part. */
export interface CrossCheck {
  readonly bundle: KbBundle;
  readonly issues: KbIssue[];
  /** One part: its issues, from memory when it was checked on these very lists. */
  readonly part: (
    name: string,
    lists: ReadonlyArray<readonly object[]>,
    check: (report: Report) => void,
  ) => void;
  /** A part whose findings are each about one record of `entity`'s list, judged on that record and the `context` lists alone. */
  readonly perRecord: <E extends keyof KbBundle>(
    name: string,
    context: ReadonlyArray<readonly object[]>,
    entity: E,
    check: (record: KbBundle[E][number], index: number, report: Report) => void,
  ) => void;
}

/** The cross-check of one bundle, its issues empty until its parts run. */
export function crossCheck(bundle: KbBundle): CrossCheck {
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
  return { bundle, issues, part, perRecord };
}

export interface Report {
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

export function reporter(
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
