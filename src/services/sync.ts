/**
 * Keeps this instance's snapshot in step with the database, which is what
 * keeps replicas coherent: a NOTIFY on commit of an edit or import triggers a
 * refresh at once, and a periodic revision check covers notifications missed
 * while disconnected. The check doubles as this instance's view of whether
 * the database is reachable, so answers can say when they may be stale.
 * Losing the listener's connection triggers a check at once (so an outage
 * is noticed without waiting for the poll), and the first check that
 * succeeds again reconnects the listener without waiting for its pause.
 */
import { KB_CHANGED_CHANNEL } from "../db/kb-write-lock.js";
import { ChangeListener } from "../db/listener.js";
import type { Logger } from "../core/logger.js";
import type { KnowledgeBase } from "./knowledge-base.js";

export interface SyncOptions {
  /** How often the revision is checked when no notification comes. */
  readonly pollMs: number;
  /**
   * How often the database is tried while it does not answer, so that this
   * instance is current (and stops saying its answers may be stale) within
   * a fraction of a second of the database's return. Default 250 ms.
   */
  readonly outagePollMs?: number;
}

export class KbSync {
  private readonly listener: ChangeListener;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private reachable = true;
  private lastContact = Date.now();
  private outageStarted = 0;
  private outageTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly kb: KnowledgeBase,
    databaseUrl: string,
    private readonly logger: Logger,
    private readonly options: SyncOptions = { pollMs: 5_000 },
  ) {
    this.listener = new ChangeListener(
      databaseUrl,
      KB_CHANGED_CHANNEL,
      (payload) => this.notified(payload),
      logger,
      () => this.trigger(),
    );
    // A write committed here but not yet loaded into the snapshot: load it as soon as the database answers.
    kb.onPublishFailed = (error) => {
      this.logger.warn(
        { err: error },
        "a committed edit is not in this instance's snapshot yet: loading it when the database answers",
      );
      this.trigger();
    };
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.listener.start();
    this.timer = setInterval(() => this.trigger(), this.options.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.outageTimer);
    await this.listener.stop();
    await this.refreshing;
  }

  /** False while the last contact with the database failed: answers come from the last snapshot. */
  get databaseReachable(): boolean {
    return this.reachable;
  }

  /** Whether the change listener is connected (LISTENing) right now. */
  get listening(): boolean {
    return this.listener.listening;
  }

  /** Milliseconds since the database last answered. */
  get sinceLastContactMs(): number {
    return Date.now() - this.lastContact;
  }

  /** While the database is away: try again shortly (once; each failed try schedules the next). */
  private scheduleOutageCheck(): void {
    if (this.stopped || this.outageTimer !== undefined) return;
    this.outageTimer = setTimeout(() => {
      this.outageTimer = undefined;
      this.trigger();
    }, this.options.outagePollMs ?? 250);
    this.outageTimer.unref();
  }

  /**
   * A NOTIFY names the revision committed. This instance's own edits are in
   * its snapshot before they are answered, so their notifications (and any
   * other for a revision already held) need no load; anything else, or a
   * (re)connection (no payload), checks the database. A notification that
   * comes while this instance commits may be that commit's own, ahead of its
   * answer: it is judged once the commit is published.
   */
  private notified(payload: string | undefined): void {
    const revision = payload === undefined ? Number.NaN : Number(payload);
    if (!Number.isInteger(revision)) {
      this.trigger();
      return;
    }
    this.kb.whenPublished(() => {
      if (this.kb.loaded && revision <= this.kb.current().revision) return;
      this.trigger();
    });
  }

  /** Refreshes now; overlapping triggers collapse into one more refresh after the running one. */
  trigger(): void {
    if (this.stopped) return;
    if (this.refreshing !== undefined) {
      this.again = true;
      return;
    }
    this.refreshing = this.kb
      .refresh()
      .then((snapshot) => {
        this.lastContact = Date.now();
        if (this.reachable) return;
        this.reachable = true;
        clearTimeout(this.outageTimer);
        this.outageTimer = undefined;
        this.logger.info(
          { revision: snapshot.revision, outageMs: Date.now() - this.outageStarted },
          "database reachable again",
        );
        // Back after an outage: listen again now rather than after the listener's pause.
        this.listener.reconnectNow();
      })
      .catch((error: unknown) => {
        if (this.reachable) {
          this.outageStarted = Date.now();
          this.logger.warn(
            { err: error },
            "database unreachable: answering from the last snapshot",
          );
        }
        this.reachable = false;
        this.scheduleOutageCheck();
      })
      .finally(() => {
        this.refreshing = undefined;
        if (this.again) {
          this.again = false;
          this.trigger();
        }
      });
  }
}
