/**
 * Which parts of a snapshot an answer was made from, so that the answer can
 * be handed out again under a later snapshot that holds the very same parts.
 *
 * A snapshot after an edit shares every list the edit did not touch (and the
 * indexes made from them) with the snapshot before it (snapshot.ts, lists.ts).
 * A question judged through `watched(snapshot).view` leaves behind the parts
 * it read, each with the value it saw; a later snapshot in which each of
 * those parts is the same value (`===`: the same list, the same index) would
 * give the same answer, because every judge is a pure function of the
 * snapshot and its question. So a validate answer survives an edit of a
 * recommendation, and a scan answer does not survive an edit of an API
 * removal.
 *
 * The revision is the one part every answer reads and every snapshot
 * changes: answers only stamp it (kbRevision), they never decide by it. The
 * view therefore gives a stand-in for it, a number nobody can guess that
 * belongs to this process alone, and the face writes the revision of the
 * snapshot in force where the stand-in ended up, every time it sends the
 * answer (REST cuts its bytes at STAND_IN_TEXT, GraphQL uses
 * `fillRevisionIn`). A judge that decided by the revision would tell apart
 * the view and the snapshot: test/carried-answers.test.ts compares their
 * answers to every kind of question.
 */
import { randomInt } from "node:crypto";
import type { KbSnapshot } from "./snapshot.js";

/**
 * What the view gives as the revision: a ten-digit integer drawn when the process starts, so no question and
 * no record can hold it but by a one-in-a-billion chance (and a question that does is not judged through a
 * view). Below 2^31, as GraphQL's Int must be.
 */
export const REVISION_STAND_IN: number = 2 ** 30 + randomInt(2 ** 30 - 1);
/** The stand-in as text: where an answer made through a view names the revision. */
export const STAND_IN_TEXT = String(REVISION_STAND_IN);

export interface SnapshotReads {
  /** Each part read, with the value it had then. */
  readonly parts: ReadonlyMap<string, unknown>;
  /**
   * Read in a way no list of parts can follow (its keys listed, its properties described): the answer
   * belongs to that snapshot alone.
   */
  readonly whole: boolean;
}

export interface WatchedSnapshot {
  /** The snapshot as judges see it: the same answers, but for the revision, which is REVISION_STAND_IN. */
  readonly view: KbSnapshot;
  /** What the view has been read for so far. */
  readonly reads: () => SnapshotReads;
}

/** A snapshot's own properties in a fixed order, with their values once read, made once per snapshot. */
interface OwnProperties {
  readonly names: readonly PropertyKey[];
  readonly at: ReadonlyMap<PropertyKey, number>;
  /** UNREAD until read through a view: a value is read where the judge reads it, not before. */
  readonly values: unknown[];
}

const UNREAD = Symbol("unread");

/** What a view knows: its snapshot's own properties and which of them have been read (by position). */
interface ViewState {
  readonly snapshot: KbSnapshot;
  readonly own: OwnProperties;
  readonly read: Uint8Array;
  whole: boolean;
}

const STATE = Symbol("view state");
type ViewTarget = KbSnapshot & { [STATE]: ViewState };

const ownOfSnapshot = new WeakMap<KbSnapshot, OwnProperties>();

function ownOf(snapshot: KbSnapshot): OwnProperties {
  let own = ownOfSnapshot.get(snapshot);
  if (own === undefined) {
    const names = Reflect.ownKeys(snapshot);
    own = {
      names,
      at: new Map(names.map((name, index) => [name, index])),
      values: names.map(() => UNREAD),
    };
    ownOfSnapshot.set(snapshot, own);
  }
  return own;
}

/** The own property at `index` of the view's snapshot, noted as read. */
function noteRead(state: ViewState, index: number): unknown {
  let value = state.own.values[index];
  if (value === UNREAD)
    state.own.values[index] = value = (state.snapshot as unknown as Record<PropertyKey, unknown>)[
      state.own.names[index]!
    ];
  state.read[index] = 1;
  return value;
}

/** One handler for every view: each view's state is on its target. A read costs a lookup and a store. */
const NOTING: ProxyHandler<ViewTarget> = {
  get(target, property, receiver) {
    if (property === "revision") return REVISION_STAND_IN;
    const state = target[STATE];
    const index = state.own.at.get(property);
    return index === undefined
      ? (Reflect.get(state.snapshot, property, receiver) as unknown)
      : noteRead(state, index);
  },
  has(target, property) {
    const state = target[STATE];
    const index = state.own.at.get(property);
    // An absent property asked for with `in` cannot be noted as a part: one that appears later would go unseen.
    if (index === undefined) state.whole = true;
    else noteRead(state, index);
    return property in state.snapshot;
  },
  ownKeys(target) {
    target[STATE].whole = true;
    return Reflect.ownKeys(target[STATE].snapshot);
  },
  getOwnPropertyDescriptor(target, property) {
    const state = target[STATE];
    state.whole = true;
    const descriptor = Reflect.getOwnPropertyDescriptor(state.snapshot, property);
    // The target is extensible and lacks the property: it may only be reported as configurable.
    return descriptor === undefined
      ? undefined
      : {
          ...descriptor,
          configurable: true,
          ...(property === "revision" ? { value: REVISION_STAND_IN } : {}),
        };
  },
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
};

/**
 * A view of `snapshot` that notes every part read through it. Methods and getters of the snapshot run
 * with the view as `this`, so what they read is noted too. The view is made over an object of the
 * snapshot's class that holds only the view's state, not over the frozen snapshot itself: a proxy of a
 * frozen object must give each property's own value, and the revision's must differ.
 */
export function watched(snapshot: KbSnapshot): WatchedSnapshot {
  const own = ownOf(snapshot);
  const state: ViewState = { snapshot, own, read: new Uint8Array(own.names.length), whole: false };
  // An ordinary (so configurable) property: a proxy must list, and may not deny, its target's others.
  const target = Object.create(Object.getPrototypeOf(snapshot) as object) as ViewTarget;
  target[STATE] = state;
  const view = new Proxy(target, NOTING);
  return {
    view,
    reads: () => {
      const parts = new Map<string, unknown>();
      state.read.forEach((read, index) => {
        const name = own.names[index]!;
        if (read === 1 && name !== "revision") {
          if (typeof name === "string") parts.set(name, own.values[index]);
          else state.whole = true;
        }
      });
      return { parts, whole: state.whole };
    },
  };
}

/** Whether an answer made from `reads` is the answer `snapshot` gives (but for the revision it stamps). */
export function readsHold(reads: SnapshotReads, snapshot: object): boolean {
  if (reads.whole) return false;
  const record = snapshot as Record<string, unknown>;
  for (const [part, value] of reads.parts) if (record[part] !== value) return false;
  return true;
}

/** Whether a question's text holds the stand-in (it cannot, but then its answer is not made through a view). */
export function holdsStandIn(text: string): boolean {
  return text.includes(STAND_IN_TEXT);
}

/** JSON text (or any text) of an answer made through a view, with the revision where the view's stand-in is. */
export function fillRevision(text: string, revision: number): string {
  return text.includes(STAND_IN_TEXT) ? text.replaceAll(STAND_IN_TEXT, String(revision)) : text;
}

/** An answer made through a view as data (GraphQL's), with the revision where the stand-in is; unchanged parts are shared. */
export function fillRevisionIn<T>(value: T, revision: number): T {
  if (value === REVISION_STAND_IN) return revision as T;
  if (typeof value === "string")
    return (value.length >= STAND_IN_TEXT.length ? fillRevision(value, revision) : value) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let filled: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const made = fillRevisionIn(item, revision);
      if (made !== item) (filled ??= [...(value as unknown[])])[index] = made;
    }
    return (filled ?? value) as T;
  }
  const record = value as Record<string, unknown>;
  let filled: Record<string, unknown> | undefined;
  for (const key in record) {
    const item = record[key];
    const made = fillRevisionIn(item, revision);
    if (made !== item) (filled ??= { ...record })[key] = made;
  }
  return (filled ?? value) as T;
}
