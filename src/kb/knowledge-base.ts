/**
 * Holds the snapshot that queries answer from. `refresh` reads the database
 * and swaps in a new snapshot atomically (a single reference assignment);
 * readers that already hold the old one finish with it undisturbed.
 */
import { readKnowledgeBase, readRevision } from "../db/kb-store.js";
import type { Database } from "../db/client.js";
import { UnavailableError } from "../errors.js";
import { ENTITY_NAMES, recordKey, type EntityName, type KbBundle } from "./records.js";
import { KbSnapshot } from "./snapshot.js";

function bundleOf(snapshot: KbSnapshot): KbBundle {
  return Object.fromEntries(ENTITY_NAMES.map((entity) => [entity, snapshot[entity]])) as unknown as KbBundle;
}

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

  /**
   * Loads the database's knowledge base when its revision differs from ours.
   * Calls that overlap share one load, and a call that arrives while a load
   * runs is answered by the next one (which starts after it), so a burst of
   * edits costs a few loads rather than one each, and nobody is answered
   * from a load that began before their call.
   */
  refresh(): Promise<KbSnapshot> {
    if (this.running === undefined) {
      this.running = this.load().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running.catch(() => undefined).then(() => {
      this.queued = undefined;
      return this.refresh();
    });
    return this.queued;
  }

  /**
   * Publishes an edit this instance just committed. When the snapshot is
   * the revision right before it, the edit is applied to it in memory (no
   * read of the database: edits are numbered one by one under the write
   * lock, so nothing else can lie between); otherwise the snapshot is
   * reloaded as `publish` does.
   */
  async publishEdit(edit: { readonly entity: EntityName; readonly key: string; readonly record: object | null; readonly kbRevision: number; readonly replayed?: boolean }): Promise<void> {
    const current = this.snapshot;
    if (current !== undefined && edit.replayed !== true && current.revision === edit.kbRevision - 1) {
      const others = (current[edit.entity] as readonly object[]).filter((record) => recordKey(edit.entity, record as never) !== edit.key);
      const bundle = { ...bundleOf(current), [edit.entity]: edit.record === null ? others : [...others, edit.record] };
      this.snapshot = new KbSnapshot(bundle, {
        revision: edit.kbRevision,
        lastImportAt: current.lastImportAt === null ? null : new Date(current.lastImportAt),
        conflicts: current.conflicts.filter((conflict) => !(conflict.entity === edit.entity && conflict.key === edit.key)),
      });
      return;
    }
    await this.publish(edit.kbRevision);
  }

  /**
   * Brings this snapshot up to at least `revision` (a write this instance
   * just committed) before the write is answered. A failure here does not
   * fail the write: it is logged by the caller's sync, which retries.
   */
  async publish(revision: number): Promise<void> {
    if (this.snapshot !== undefined && this.snapshot.revision >= revision) return;
    try {
      await this.refresh();
    } catch (error) {
      this.onPublishFailed(error);
    }
  }

  /** Told when a snapshot could not be brought up to a committed write (the sync retries it). */
  onPublishFailed: (error: unknown) => void = () => undefined;

  private running: Promise<KbSnapshot> | undefined;
  private queued: Promise<KbSnapshot> | undefined;

  private async load(): Promise<KbSnapshot> {
    if (this.snapshot !== undefined && (await readRevision(this.db)) === this.snapshot.revision) return this.snapshot;
    const stored = await readKnowledgeBase(this.db);
    const next = new KbSnapshot(stored.bundle, { revision: stored.revision, lastImportAt: stored.lastImportAt, conflicts: stored.conflicts });
    if (this.snapshot === undefined || next.revision >= this.snapshot.revision) this.snapshot = next;
    return this.snapshot;
  }
}
