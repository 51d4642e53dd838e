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
 * answer (`fillRevision`). A judge that decided by the revision would tell
 * apart the view and the snapshot: test/snapshot-reads.test.ts compares
 * their answers to every kind of question.
 */
import { randomInt } from "node:crypto";
import type { KbSnapshot } from "./snapshot.js";

/**
 * What the view gives as the revision: a ten-digit integer drawn when the process starts, so no question and
 * no record can hold it but by a one-in-a-billion chance (and a question that does is not judged through a
 * view). Below 2^31, as GraphQL's Int must be.
 */
export const REVISION_STAND_IN: number = 2 ** 30 + randomInt(2 ** 30 - 1);
const STAND_IN_TEXT = String(REVISION_STAND_IN);

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

/**
 * A view of `snapshot` that notes every part read through it. Methods and getters of the snapshot run
 * with the view as `this`, so what they read is noted too. The view is made over an empty object of the
 * snapshot's class, not over the frozen snapshot itself: a proxy of a frozen object must give each
 * property's own value, and the revision's must differ.
 */
export function watched(snapshot: KbSnapshot): WatchedSnapshot {
  const parts = new Map<string, unknown>();
  let whole = false;
  const own = (property: string | symbol): property is string => typeof property === "string" && Object.hasOwn(snapshot, property);
  const view = new Proxy(Object.create(Object.getPrototypeOf(snapshot) as object) as KbSnapshot, {
    get(_target, property, receiver) {
      if (property === "revision") return REVISION_STAND_IN;
      if (!own(property)) return Reflect.get(snapshot, property, receiver) as unknown;
      const value = (snapshot as unknown as Record<string, unknown>)[property];
      parts.set(property, value);
      return value;
    },
    has(_target, property) {
      if (typeof property === "string") parts.set(property, (snapshot as unknown as Record<string, unknown>)[property]);
      return property in snapshot;
    },
    ownKeys() {
      whole = true;
      return Reflect.ownKeys(snapshot);
    },
    getOwnPropertyDescriptor(_target, property) {
      whole = true;
      const descriptor = Reflect.getOwnPropertyDescriptor(snapshot, property);
      // The target is empty and extensible: a property it lacks may only be reported as configurable.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true, ...(property === "revision" ? { value: REVISION_STAND_IN } : {}) };
    },
    set() {
      return false;
    },
    defineProperty() {
      return false;
    },
    deleteProperty() {
      return false;
    },
  });
  return { view, reads: () => ({ parts: new Map(parts), whole }) };
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
  if (typeof value === "string") return fillRevision(value, revision) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let filled: unknown[] | undefined;
    value.forEach((item: unknown, index) => {
      const made = fillRevisionIn(item, revision);
      if (made !== item) (filled ??= [...value])[index] = made;
    });
    return (filled ?? value) as T;
  }
  let filled: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const made = fillRevisionIn(item, revision);
    if (made !== item) (filled ??= { ...(value as Record<string, unknown>) })[key] = made;
  }
  return (filled ?? value) as T;
}
