/**
 * A kind's list of records after one edit, made from the list before it, and
 * what is known of a list because of how it was made. An edit changes one
 * record of one kind; a list that remembers "the list before me, with this
 * record appended (or replaced)" lets whatever was derived from the list
 * before (its index of keys, the cross-check's findings) be carried over and
 * adjusted for that one record, instead of walking every record again. With
 * edits arriving at tens a second over thousands of records, those walks
 * were most of an edit's cost.
 *
 * Lists made here are frozen and never change; what is derived from them is
 * kept beside them (weakly, so it goes when they go).
 */
import type { EntityName } from "./records.js";
import { recordKey } from "./registry.js";

/** One change that made a list from another: a record appended at the end, or the record at `index` replaced. */
export interface Derivation {
  /** The list the change was made to (for a change after others, the list before all of them). */
  readonly from: readonly object[];
  readonly change: "append" | "replace";
  /** The position of the appended or replaced record. */
  readonly index: number;
}

/** How a list was made: the changes, in order, that make it from `from`. */
export interface Derivations {
  readonly from: readonly object[];
  readonly changes: ReadonlyArray<Omit<Derivation, "from">>;
}

/**
 * How each list was made. The list it was made from is held weakly: a strong
 * link would keep every list a kind ever had alive (each snapshot's list
 * holding the one before), tens of megabytes an hour at tens of edits a
 * second. What is derived from a list is worked out while the list before is
 * still in use (an edit is judged on the snapshot it was made from), so a
 * link that is gone only means building afresh.
 *
 * A list made from one that is not settled (not a snapshot's: a step within
 * a group of edits) is linked to the settled list that one was made from,
 * with both changes, and, until it is settled itself, to the step before it
 * (so that what was derived for that step is carried over by one change, not
 * all of them again). Once the group's last list is a snapshot's, nothing
 * holds the group's steps. (A young-generation collection treats a WeakRef
 * as a strong link; a chain through every step kept them all alive until the
 * next full collection, copied into the old space on the way: most of what
 * an edit left there.)
 */
const derivations = new WeakMap<
  readonly object[],
  {
    readonly from: WeakRef<readonly object[]>;
    readonly changes: Derivations["changes"];
    previous: readonly object[] | undefined;
  }
>();

/** The lists snapshots hold (snapshot.ts settles them): what is derived from them is kept for what comes after. */
const settled = new WeakSet<readonly unknown[]>();

/** Marks a list as a snapshot's: lists made from it are linked to it, and it lets go of the steps it was made through. */
export function settle(list: readonly unknown[]): void {
  settled.add(list);
  const derivation = derivations.get(list as readonly object[]);
  if (derivation !== undefined) derivation.previous = undefined;
}

export function isSettled(list: readonly unknown[]): boolean {
  return settled.has(list);
}

/** At most this many changes are linked to one settled list; past it a list is linked to the one it was made from. */
const MOST_CHANGES = 100;

function link(
  made: readonly object[],
  list: readonly object[],
  change: Derivation["change"],
  index: number,
): void {
  const before = settled.has(list) ? undefined : derivationOf(list);
  // Linked past `list` only when the change names a record the settled list has or an earlier change appended,
  // and no earlier change touched: then every change still names its record where the list now has it.
  const linkable =
    before !== undefined &&
    before.changes.length < MOST_CHANGES &&
    !before.changes.some((earlier) => earlier.index === index) &&
    (change === "append" || index < before.from.length);
  if (linkable) {
    derivations.set(made, {
      from: new WeakRef(before.from),
      changes: [...before.changes, { change, index }],
      previous: list,
    });
  } else {
    derivations.set(made, {
      from: new WeakRef(list),
      changes: [{ change, index }],
      previous: undefined,
    });
  }
}

/** The list with `record` appended (frozen). */
export function withAppended<T extends object>(list: readonly T[], record: T): readonly T[] {
  // concat copies the elements in one go into an array of the final length; a spread goes through the iterator
  // and grows its array as it goes (about three times the list's size allocated, for thousands of records).
  const made = Object.freeze(list.concat([record]));
  link(made, list, "append", list.length);
  return made;
}

/** The list with the record at `index` replaced by `record` (frozen). */
export function withReplaced<T extends object>(
  list: readonly T[],
  index: number,
  record: T,
): readonly T[] {
  const made = Object.freeze(
    list.map((candidate, position) => (position === index ? record : candidate)),
  );
  link(made, list, "replace", index);
  return made;
}

/** The list without the record at `index` (frozen; every later record moves, so nothing is carried over). */
export function withRemoved<T extends object>(list: readonly T[], index: number): readonly T[] {
  return Object.freeze(list.slice(0, index).concat(list.slice(index + 1)));
}

/**
 * The nearest list this one was made from that is still about, and the changes from it: the step before it
 * within a group of edits being judged, else the settled list it was linked to.
 */
function madeFrom(list: readonly object[]): Derivations | undefined {
  const derivation = derivations.get(list);
  if (derivation?.previous !== undefined)
    return { from: derivation.previous, changes: derivation.changes.slice(-1) };
  return derivationOf(list);
}

/** How the list was made from the settled list it was linked to (or the one it was made from), when it was made here and that one is still about. */
export function derivationOf(list: readonly object[]): Derivations | undefined {
  const derivation = derivations.get(list);
  const from = derivation?.from.deref();
  return derivation === undefined || from === undefined
    ? undefined
    : { from, changes: derivation.changes };
}

/**
 * What is made from one list (an index, a grouping, compiled patterns), made
 * once per list and kept beside it. Keyed by the list rather than the
 * snapshot: a snapshot after an edit of another kind reuses the list, and
 * what was made from it with it.
 */
export function perList<T, V>(
  memo: WeakMap<readonly T[], V>,
  list: readonly T[],
  make: (list: readonly T[]) => V,
): V {
  let made = memo.get(list);
  if (made === undefined) memo.set(list, (made = make(list)));
  return made;
}

/** The records of a list under each of their keys, in list order (a record may come under several keys). */
export function groupedBy<T>(
  list: readonly T[],
  keysOf: (record: T) => readonly string[],
): ReadonlyMap<string, readonly T[]> {
  const groups = new Map<string, T[]>();
  for (const record of list) {
    for (const key of keysOf(record)) {
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [record]);
      else group.push(record);
    }
  }
  return groups;
}

/** How far back `derived` follows lists made from lists before it looks no further and builds afresh. */
const FURTHEST_BACK = 16;

/**
 * A value derived from a list (an index, a check's findings), carried over
 * from the lists it was made from: the nearest one whose value `memo` holds
 * is adjusted forward, one edit at a time, remembering each step (a
 * snapshot's list is made from the last snapshot's, which may itself never
 * have been asked about). `adjust` may decline (undefined): that list's value
 * is built afresh. With no value within reach, the oldest list is built.
 */
export function derived<V>(
  list: readonly object[],
  memo: {
    get(list: readonly object[]): V | undefined;
    set(list: readonly object[], value: V): void;
  },
  build: (list: readonly object[]) => V,
  adjust: (before: V, list: readonly object[], derivation: Derivation) => V | undefined,
): V {
  // The lists back to the nearest one with a value, each with how it was made (found once, on the way back).
  const chain: Array<{
    readonly list: readonly object[];
    readonly derivation: Derivations | undefined;
  }> = [];
  let value: V | undefined;
  for (
    let current: readonly object[] | undefined = list;
    current !== undefined && chain.length < FURTHEST_BACK;
  ) {
    value = memo.get(current);
    if (value !== undefined) break;
    const derivation = madeFrom(current);
    chain.push({ list: current, derivation });
    current = derivation?.from;
  }
  // The value before, adjusted for each change in turn, on the list as it is now (for a change after others,
  // its record is where the list now has it); undefined when there is nothing to adjust or a change declines.
  const carried = (
    before: V | undefined,
    current: readonly object[],
    derivation: Derivations | undefined,
  ): V | undefined => {
    if (before === undefined || derivation === undefined) return undefined;
    let adjusted: V | undefined = before;
    for (const { change, index } of derivation.changes) {
      adjusted = adjust(adjusted, current, { from: derivation.from, change, index });
      if (adjusted === undefined) return undefined;
    }
    return adjusted;
  };
  for (const { list: current, derivation } of chain.reverse()) {
    value = carried(value, current, derivation) ?? build(current);
    memo.set(current, value);
  }
  return value!;
}

/**
 * Each key of a list and the position of the first record with it. An
 * appended record goes into a small layer of its own over the index of the
 * list before (so an edit does not copy thousands of entries); the layers are
 * folded into one map once they grow past a few dozen.
 */
export class KeyIndex {
  private constructor(
    private readonly base: ReadonlyMap<string, number>,
    private readonly added: ReadonlyMap<string, number>,
  ) {}

  static of(entries: ReadonlyMap<string, number>): KeyIndex {
    return new KeyIndex(entries, new Map());
  }

  get(key: string): number | undefined {
    return this.added.get(key) ?? this.base.get(key);
  }

  has(key: string): boolean {
    return this.added.has(key) || this.base.has(key);
  }

  /** How many keys (a key of the layer is never one of the base). */
  get size(): number {
    return this.base.size + this.added.size;
  }

  /** This index with a key that is not in it yet. */
  with(key: string, position: number): KeyIndex {
    const added = new Map(this.added).set(key, position);
    if (added.size <= FOLD_AFTER) return new KeyIndex(this.base, added);
    return KeyIndex.of(new Map([...this.base, ...added]));
  }

  entries(): Array<[string, number]> {
    return [...this.base, ...this.added];
  }
}

const FOLD_AFTER = 64;

const keyIndexes = new WeakMap<readonly object[], KeyIndex>();

/**
 * A kind's list's index of keys. Fewer keys than records means some key
 * comes twice. Remembered for frozen lists; a list made from one whose index
 * is known gets that index adjusted for the one record.
 */
export function keyIndexOf(entity: EntityName, list: readonly object[]): KeyIndex {
  return derived(
    list,
    keyIndexMemo,
    (of) => builtKeyIndex(entity, of),
    (before, of, derivation) => carriedKeyIndex(entity, before, of, derivation),
  );
}

const keyIndexMemo = {
  get: (of: readonly object[]) => keyIndexes.get(of),
  set: (of: readonly object[], index: KeyIndex) => {
    if (Object.isFrozen(of)) keyIndexes.set(of, index);
  },
};

function builtKeyIndex(entity: EntityName, list: readonly object[]): KeyIndex {
  const index = new Map<string, number>();
  list.forEach((record, position) => {
    const key = recordKey(entity, record as never);
    if (!index.has(key)) index.set(key, position);
  });
  return KeyIndex.of(index);
}

/** The index of the list it was made from, adjusted for the one record; undefined when it cannot simply be adjusted. */
function carriedKeyIndex(
  entity: EntityName,
  before: KeyIndex,
  list: readonly object[],
  derivation: Derivation,
): KeyIndex | undefined {
  const key = recordKey(entity, list[derivation.index] as never);
  if (derivation.change === "append")
    return before.has(key) ? undefined : before.with(key, derivation.index);
  // A replaced record that keeps its key (as an update must) leaves every position as it was.
  return key === recordKey(entity, derivation.from[derivation.index] as never) ? before : undefined;
}
