/**
 * The scheduled refresh (KB_REFRESH_INTERVAL): reads each configured
 * upstream source, derives what differs from the database's knowledge base
 * and files it as proposals for a reviewer, then says so once (a log line,
 * the webhook, the source checks behind the metrics and coverage's
 * lastChecked). One replica at a time (an advisory lock; a replica that
 * finds every source read within the interval leaves it), one source at a
 * time, and a source that fails is recorded as failed without touching what
 * the others filed. Nothing is applied: approving stays a person's decision.
 */
import type { RefreshConfig, RefreshSourceConfig } from "../core/refresh-config.js";
import type { Logger } from "../core/logger.js";
import type { Database } from "../db/client.js";
import { readKnowledgeBase } from "../db/kb-read.js";
import { countOpenProposals } from "../db/proposal-store.js";
import { readSourceChecks, recordSourceCheck, withRefreshLock } from "../db/source-checks.js";
import { DeriveInputError } from "./derive/errors.js";
import { GitFailure } from "./kb-derive-files.js";
import { databaseReader, fileSections } from "./kb-derive-propose.js";
import { DERIVATIONS } from "./refresh-derivations.js";
import { refreshMessage, sendWebhook } from "./refresh-message.js";
import { UpstreamFailure } from "./upstream-copies.js";

/** What one source gave in one refresh. */
export interface SourceOutcome {
  readonly source: string;
  readonly url: string;
  readonly ok: boolean;
  readonly revision: string | null;
  readonly filed: number;
  readonly known: number;
  /** What failed (null when it succeeded). */
  readonly message: string | null;
}

export interface RefreshReport {
  readonly startedAt: Date;
  /** Why nothing was read: another replica holds the lock, or every source was read within the interval. */
  readonly skipped: "another replica is refreshing" | "every source was read recently" | null;
  readonly sources: readonly SourceOutcome[];
  readonly proposalsOpen: number | null;
}

export interface RefreshDependencies {
  readonly db: Database;
  readonly databaseUrl: string;
  readonly config: RefreshConfig;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** A failure of the source itself (unreachable, refused, not in the expected shape), said in its own words. */
function isSourceFailure(error: unknown): error is Error {
  return (
    error instanceof UpstreamFailure ||
    error instanceof DeriveInputError ||
    error instanceof GitFailure
  );
}

/** What the report says of a failure; anything but the source's own is a bug, logged with its stack too. */
function failureMessage(error: unknown): string {
  if (isSourceFailure(error)) return error.message;
  return `unexpected error: ${(error as Error).message ?? String(error)}`;
}

export class KbRefresh {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RefreshReport> | undefined;
  private readonly stopping = new AbortController();

  constructor(private readonly deps: RefreshDependencies) {}

  /** Refreshes every `config.intervalMs` (the first after `firstDelayMs`); nothing when the interval is off. */
  start(firstDelayMs = 60_000): void {
    const interval = this.deps.config.intervalMs;
    if (interval === null) return;
    const next = (delay: number) => {
      this.timer = setTimeout(() => {
        void this.runOnce()
          .catch((error: unknown) =>
            this.deps.logger.error({ err: error }, "knowledge refresh failed"),
          )
          .finally(() => {
            if (!this.stopping.signal.aborted) next(interval);
          });
      }, delay);
      this.timer.unref();
    };
    next(firstDelayMs);
  }

  /** Stops the timer and any refresh under way (its git commands and downloads are aborted). */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.stopping.abort();
    await this.running?.catch(() => undefined);
  }

  /** One refresh now; `force` reads every source even when it was read within the interval. */
  runOnce(options: { force?: boolean } = {}): Promise<RefreshReport> {
    this.running ??= this.refresh(options.force ?? false).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async refresh(force: boolean): Promise<RefreshReport> {
    const startedAt = (this.deps.now ?? (() => new Date()))();
    const locked = await withRefreshLock(this.deps.databaseUrl, async () => {
      if (!force && (await this.readRecently(startedAt))) return null;
      const sources: SourceOutcome[] = [];
      for (const source of this.deps.config.sources) {
        if (this.stopping.signal.aborted) break;
        sources.push(await this.readSource(source, startedAt));
      }
      return sources;
    });
    if (!locked.ran) return this.skip(startedAt, "another replica is refreshing");
    if (locked.result === null) return this.skip(startedAt, "every source was read recently");
    const report: RefreshReport = {
      startedAt,
      skipped: null,
      sources: locked.result,
      proposalsOpen: await countOpenProposals(this.deps.db),
    };
    await this.sayOnce(report);
    return report;
  }

  private skip(startedAt: Date, why: NonNullable<RefreshReport["skipped"]>): RefreshReport {
    this.deps.logger.info({ skipped: why }, `knowledge refresh: skipped (${why})`);
    return { startedAt, skipped: why, sources: [], proposalsOpen: null };
  }

  /** Another replica read every configured source within (most of) the interval. */
  private async readRecently(now: Date): Promise<boolean> {
    const interval = this.deps.config.intervalMs;
    if (interval === null) return false;
    const checks = new Map((await readSourceChecks(this.deps.db)).map((c) => [c.source, c]));
    return this.deps.config.sources.every((source) => {
      const check = checks.get(source.name);
      return (
        check !== undefined &&
        check.url === source.url &&
        now.getTime() - check.lastAttemptAt.getTime() < interval * 0.9
      );
    });
  }

  /** Reads one source against the knowledge base as it is now (an approval in between is taken into account). */
  private async readSource(source: RefreshSourceConfig, startedAt: Date): Promise<SourceOutcome> {
    const derivation = DERIVATIONS[source.name];
    const today = startedAt.toISOString().slice(0, 10);
    let outcome: SourceOutcome;
    try {
      const { bundle, revision } = await readKnowledgeBase(this.deps.db);
      const reading = await derivation.read(
        source,
        this.deps.config.cacheDir,
        databaseReader(bundle, revision),
        this.stopping.signal,
        today,
      );
      const { filed, known } = await fileSections(this.deps.db, reading.sections, bundle);
      outcome = {
        ...this.named(source),
        ok: true,
        revision: reading.revision,
        filed,
        known,
        message: null,
      };
    } catch (error) {
      if (!isSourceFailure(error))
        this.deps.logger.error(
          { err: error, source: source.name },
          "knowledge refresh: a source failed unexpectedly",
        );
      outcome = {
        ...this.named(source),
        ok: false,
        revision: null,
        filed: 0,
        known: 0,
        message: failureMessage(error),
      };
    }
    await recordSourceCheck(this.deps.db, {
      source: source.name,
      url: source.url,
      lastAttemptAt: startedAt,
      outcome: outcome.ok ? "ok" : "failed",
      message: outcome.message,
      revision: outcome.revision,
      entities: derivation.entities,
      filed: outcome.filed,
      known: outcome.known,
    });
    return outcome;
  }

  private named(source: RefreshSourceConfig) {
    return { source: source.name, url: source.url };
  }

  /** One log line always; one webhook message when something was filed or a source failed. */
  private async sayOnce(report: RefreshReport): Promise<void> {
    const filed = report.sources.reduce((sum, source) => sum + source.filed, 0);
    const failed = report.sources.filter((source) => !source.ok);
    const message = refreshMessage(report);
    const log = {
      filed,
      failed: failed.map((s) => s.source),
      proposalsOpen: report.proposalsOpen,
      sources: report.sources,
    };
    if (failed.length > 0) this.deps.logger.warn(log, message);
    else this.deps.logger.info(log, message);
    const webhook = this.deps.config.webhookUrl;
    if (webhook === null || (filed === 0 && failed.length === 0)) return;
    const problem = await sendWebhook(webhook, message);
    if (problem !== null)
      this.deps.logger.warn(
        { webhook: new URL(webhook).host, problem },
        "knowledge refresh: the webhook was not told",
      );
  }
}
