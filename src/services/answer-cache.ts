/**
 * Answers remembered per knowledge-base snapshot. Every check and read is a
 * pure function of the snapshot, the question and (for end-of-life checks
 * without `asOf`) today's date, and CI pipelines and bots ask the same
 * question over and over; so a face may keep an answer it computed and hand
 * it out again while the snapshot it came from is current. A new snapshot
 * empties the cache (its answers may differ), so nothing is ever served
 * from an older revision than the one in force.
 *
 * Bounded by bytes, not entries (an answer may be 200 bytes or 200 KB), and
 * least recently used first out. Only successful answers are stored: an
 * error is cheap to recompute and must name the caller's own input.
 */
import { readsHold, type SnapshotReads } from "../knowledge/snapshot-reads.js";

export interface AnswerCacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly hits: number;
  readonly misses: number;
  /** Answers kept when a newer snapshot came, because it holds every part they read, since start. */
  readonly carried: number;
}

/** What the cache follows: the snapshot an answer was computed from. */
export interface Revisioned {
  readonly revision: number;
}

interface Entry<V> {
  readonly value: V;
  readonly bytes: number;
  readonly group: Group;
}

/**
 * The answers made from the same parts of the current snapshot: within one snapshot, the names of the parts
 * read say their values, so a group is judged once when a newer snapshot comes, whatever its size (a full
 * cache holds thousands of answers, and a snapshot may come 20 times a second under steady edits).
 */
interface Group {
  readonly signature: string;
  /** Absent: answers that belong to the snapshot they were kept under alone. */
  readonly reads: SnapshotReads | undefined;
  readonly keys: Set<string>;
}

/** The group of answers kept without reads, or read whole. */
const BOUND = "";

function signatureOf(reads: SnapshotReads | undefined): string {
  if (reads === undefined || reads.whole) return BOUND;
  // "\u0001" before every name: never the bound group's "", even with no part read. The parts come in the
  // snapshot's property order, so the same parts always make the same signature.
  let signature = "";
  for (const part of reads.parts.keys()) signature += `\u0001${part}`;
  return signature;
}

export class AnswerCache<V> {
  private snapshot: Revisioned | undefined;
  private readonly entries = new Map<string, Entry<V>>();
  private readonly groups = new Map<string, Group>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private carried = 0;

  /**
   * @param maxBytes budget for keys and answers together; 0 turns caching off.
   * @param maxEntryBytes larger answers (or questions) are not kept: one must not push out hundreds.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number = Math.max(1, Math.floor(maxBytes / 16)),
  ) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** The answer kept for `key` under `snapshot`, or undefined. */
  get(snapshot: Revisioned, key: string): V | undefined {
    if (!this.enabled || !this.follow(snapshot)) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    // Map keeps insertion order: moving the entry to the end makes the first one the least recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Keeps `value` (of about `valueBytes`) for `key`, computed from `snapshot`; with `reads` (what a
   * watching view of the snapshot was read for), also for later snapshots that hold the same parts.
   */
  set(
    snapshot: Revisioned,
    key: string,
    value: V,
    valueBytes: number,
    reads?: SnapshotReads,
  ): void {
    if (!this.enabled || !this.follow(snapshot)) return;
    // JavaScript strings are UTF-16: two bytes a character is what the key costs in memory.
    const bytes = key.length * 2 + valueBytes;
    if (bytes > this.maxEntryBytes) return;
    this.remove(key);
    const signature = signatureOf(reads);
    let group = this.groups.get(signature);
    if (group === undefined)
      this.groups.set(
        signature,
        (group = { signature, reads: signature === BOUND ? undefined : reads, keys: new Set() }),
      );
    group.keys.add(key);
    this.entries.set(key, { value, bytes, group });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  stats(): AnswerCacheStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      hits: this.hits,
      misses: this.misses,
      carried: this.carried,
    };
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    entry.group.keys.delete(key);
    if (entry.group.keys.size === 0) this.groups.delete(entry.group.signature);
  }

  /**
   * The moment a newer snapshot is asked about, the answers it would give
   * differently (or might: those kept without reads) are dropped, a group at
   * a time; the others stay, in their order of use. A request that began
   * before the swap still holds the older snapshot: it neither reads nor
   * stores (false), so it cannot bring old answers back.
   */
  private follow(snapshot: Revisioned): boolean {
    if (snapshot === this.snapshot) return true;
    if (this.snapshot !== undefined && snapshot.revision < this.snapshot.revision) return false;
    this.snapshot = snapshot;
    for (const group of [...this.groups.values()]) {
      if (group.reads !== undefined && readsHold(group.reads, snapshot)) {
        this.carried += group.keys.size;
        continue;
      }
      for (const key of [...group.keys]) this.remove(key);
    }
    return true;
  }
}
