/**
 * Holds the snapshot that queries answer from. `refresh` reads the database
 * and swaps in a new snapshot atomically (a single reference assignment);
 * readers that already hold the old one finish with it undisturbed.
 */
import { readKnowledgeBase, readRevision } from "../db/kb-store.js";
import type { Database } from "../db/client.js";
import { UnavailableError } from "../errors.js";
import { KbSnapshot } from "./snapshot.js";

export class KnowledgeBase {
  private snapshot: KbSnapshot | undefined;

  constructor(private readonly db: Database) {}

  /** The current snapshot; UnavailableError until the first load finished. */
  current(): KbSnapshot {
    if (this.snapshot === undefined) throw new UnavailableError("the knowledge base is not loaded yet; retry in a moment");
    return this.snapshot;
  }

  get loaded(): boolean {
    return this.snapshot !== undefined;
  }

  /** Loads the database's knowledge base when its revision differs from ours. */
  async refresh(): Promise<KbSnapshot> {
    if (this.snapshot !== undefined && (await readRevision(this.db)) === this.snapshot.revision) return this.snapshot;
    const stored = await readKnowledgeBase(this.db);
    const next = new KbSnapshot(stored.bundle, { revision: stored.revision, lastImportAt: stored.lastImportAt });
    if (this.snapshot === undefined || next.revision >= this.snapshot.revision) this.snapshot = next;
    return this.snapshot;
  }
}
