/**
 * Holds the snapshot that queries answer from. `refresh` reads the database
 * and swaps in a new snapshot atomically (a single reference assignment);
 * readers that already hold the old one finish with it undisturbed.
 */
import { readKnowledgeBase, readRevision } from "../db/kb-read.js";
import type { Database } from "../db/client.js";
import { UnavailableError } from "../core/errors.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { ENTITY_NAMES } from "../knowledge/registry.js";
import { keyIndexOf, withAppended, withRemoved, withReplaced } from "../knowledge/lists.js";
import { KbSnapshot } from "../knowledge/snapshot.js";

function bundleOf(snapshot: KbSnapshot): KbBundle {
  return Object.fromEntries(
    ENTITY_NAMES.map((entity) => [entity, snapshot.records(entity)]),
  ) as unknown as KbBundle;
}

/**
 * The records of a kind with one record changed as the database orders them
 * (by row): an updated record keeps its place, a created one comes last, a
 * retired one (null) goes.
 */
function withRecord(
  records: readonly object[],
  entity: EntityName,
  key: string,
  record: object | null,
): readonly object[] {
  const index = keyIndexOf(entity, records).get(key);
  if (index === undefined) return record === null ? records : withAppended(records, record);
  return record === null ? withRemoved(records, index) : withReplaced(records, index, record);
}

export class KnowledgeBase {
  private snapshot: KbSnapshot | undefined;

  constructor(private readonly db: Database) {}

  /** The current snapshot; UnavailableError until the first load finished. */
  current(): KbSnapshot {
    if (this.snapshot === undefined)
      throw new UnavailableError("the knowledge base is not loaded yet; retry in a moment");
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
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.refresh();
      });
    return this.queued;
  }

  /**
   * Publishes edits this instance just committed. When the snapshot is the
   * revision right before them, they are applied to it in memory (no read of
   * the database: edits are numbered one by one under the write lock, so
   * nothing else can lie between), taking the lists the group was judged on
   * (`lists`) where it has them; otherwise the snapshot is reloaded as
   * `publish` does.
   */
  async publishEdits(
    edits: ReadonlyArray<{
      readonly entity: EntityName;
      readonly key: string;
      readonly record: object | null;
      readonly kbRevision: number;
      readonly replayed?: boolean;
    }>,
    lists: Readonly<Partial<Record<EntityName, readonly object[]>>> = {},
  ): Promise<void> {
    const applied = edits.filter((edit) => edit.replayed !== true);
    if (applied.length === 0) return;
    const current = this.snapshot;
    const first = applied[0]!.kbRevision;
    const newest = applied[applied.length - 1]!.kbRevision;
    // Consecutive revisions, starting right after this snapshot: nothing else can lie between them.
    const consecutive = applied.every((edit, index) => edit.kbRevision === first + index);
    if (current !== undefined && consecutive && current.revision === first - 1) {
      const bundle = bundleOf(current) as unknown as Record<EntityName, readonly object[]>;
      for (const edit of applied) {
        if (lists[edit.entity] === undefined)
          bundle[edit.entity] = withRecord(bundle[edit.entity], edit.entity, edit.key, edit.record);
      }
      for (const [entity, list] of Object.entries(lists) as Array<[EntityName, readonly object[]]>)
        bundle[entity] = list;
      const touched = new Set(applied.map((edit) => `${edit.entity}\u0000${edit.key}`));
      this.swap(
        new KbSnapshot(bundle as unknown as KbBundle, {
          revision: newest,
          lastImportAt: current.lastImportAt === null ? null : new Date(current.lastImportAt),
          conflicts: current.conflicts.filter(
            (conflict) => !touched.has(`${conflict.entity}\u0000${conflict.key}`),
          ),
        }),
      );
      return;
    }
    await this.publish(newest);
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

  /**
   * This instance is committing edits (from before they are sent until they
   * are published). The notification of its own commit may come before the
   * commit's answer: `whenPublished` holds such a check until then, when the
   * snapshot has the edits and the notification needs no load.
   */
  beginWrite(): void {
    this.writing += 1;
  }

  endWrite(): void {
    this.writing = Math.max(0, this.writing - 1);
    if (this.writing > 0) return;
    for (const check of this.afterWrites.splice(0)) check();
  }

  /** Runs `check` now, or once the edits this instance is committing are published. */
  whenPublished(check: () => void): void {
    if (this.writing === 0) check();
    else this.afterWrites.push(check);
  }

  private writing = 0;
  private readonly afterWrites: Array<() => void> = [];

  /** Told when a snapshot could not be brought up to a committed write (the sync retries it). */
  onPublishFailed: (error: unknown) => void = () => undefined;

  private running: Promise<KbSnapshot> | undefined;
  private queued: Promise<KbSnapshot> | undefined;

  private async load(): Promise<KbSnapshot> {
    if (this.snapshot !== undefined && (await readRevision(this.db)) === this.snapshot.revision)
      return this.snapshot;
    const stored = await readKnowledgeBase(this.db);
    const next = new KbSnapshot(stored.bundle, {
      revision: stored.revision,
      lastImportAt: stored.lastImportAt,
      conflicts: stored.conflicts,
    });
    if (this.snapshot === undefined || next.revision >= this.snapshot.revision) this.swap(next);
    return this.snapshot!;
  }

  private readonly watchers = new Set<(snapshot: KbSnapshot) => void>();

  /**
   * Calls `watcher` with every snapshot of a new revision this instance swaps in (after an edit, an import, an
   * approval, or a change another replica announced); returns the call that stops it.
   */
  watch(watcher: (snapshot: KbSnapshot) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private swap(next: KbSnapshot): void {
    const changed = this.snapshot?.revision !== next.revision;
    this.snapshot = next;
    if (changed) for (const watcher of this.watchers) watcher(next);
  }
}

/**
 * A knowledge base that serves one snapshot and never touches a database: kb/ read from files, for a
 * read-only instance, a CI job's in-process answers, and the tests of the faces that do not test storage.
 * Edits need the database: build the app without a curator with it.
 */
export class FixedKnowledgeBase extends KnowledgeBase {
  constructor(private readonly fixed: KbSnapshot) {
    super(undefined as never);
  }

  /**
   * The knowledge base of a bundle read from kb/, as a first import would store it: revision 1, and every
   * record at revision 1 (the revision an edit sends back).
   */
  static fromBundle(bundle: KbBundle): FixedKnowledgeBase {
    const stamped = Object.fromEntries(
      ENTITY_NAMES.map((entity) => [
        entity,
        (bundle[entity] as readonly object[]).map((record) => ({ revision: 1, ...record })),
      ]),
    );
    return new FixedKnowledgeBase(
      new KbSnapshot(stamped as unknown as KbBundle, { revision: 1, lastImportAt: null }),
    );
  }

  override current(): KbSnapshot {
    return this.fixed;
  }

  override get loaded(): boolean {
    return true;
  }

  override refresh(): Promise<KbSnapshot> {
    return Promise.resolve(this.fixed);
  }
}
