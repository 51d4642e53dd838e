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
export interface AnswerCacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly hits: number;
  readonly misses: number;
}

/** What the cache follows: the snapshot an answer was computed from. */
export interface Revisioned {
  readonly revision: number;
}

interface Entry<V> {
  readonly value: V;
  readonly bytes: number;
}

export class AnswerCache<V> {
  private snapshot: Revisioned | undefined;
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

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

  /** Keeps `value` (of about `valueBytes`) for `key`, computed from `snapshot`. */
  set(snapshot: Revisioned, key: string, value: V, valueBytes: number): void {
    if (!this.enabled || !this.follow(snapshot)) return;
    // JavaScript strings are UTF-16: two bytes a character is what the key costs in memory.
    const bytes = key.length * 2 + valueBytes;
    if (bytes > this.maxEntryBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  stats(): AnswerCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }

  /**
   * Answers of another snapshot are dropped the moment a newer one is asked
   * about. A request that began before the swap still holds the older
   * snapshot: it neither reads nor stores (false), so it cannot bring old
   * answers back.
   */
  private follow(snapshot: Revisioned): boolean {
    if (snapshot === this.snapshot) return true;
    if (this.snapshot !== undefined && snapshot.revision < this.snapshot.revision) return false;
    this.snapshot = snapshot;
    this.entries.clear();
    this.bytes = 0;
    return true;
  }
}
