/**
 * The fleet's delivery queue: pg-boss (10.x, the line that runs on Node 20)
 * over the same PostgreSQL, in its own schema. A delivery's job is inserted
 * in the transaction that writes the event and its delivery rows
 * (`enqueueIn`), so a committed event always has its jobs and a rolled-back
 * one has none; pg-boss hands each job to one worker among all replicas
 * (SKIP LOCKED), retries it with exponential backoff, and keeps it across
 * restarts. The delivery rows (src/db/fleet-store.ts) say what happened to
 * each: the dead-letter list is theirs, so it can be read and replayed.
 */
import PgBoss from "pg-boss";
import type pg from "pg";
import type { Logger } from "../core/logger.js";

export const DELIVERY_QUEUE = "fleet-delivery";

export interface DeliveryJob {
  readonly deliveryId: number;
}

export interface OutboxOptions {
  /** Retries after the first attempt. */
  readonly retries: number;
  readonly retryDelaySeconds: number;
  /** How long one attempt may run before pg-boss counts it as failed and retries it. */
  readonly attemptTimeoutSeconds: number;
}

/** An attempt as the worker sees it: the delivery, and whether a failure now is the last one. */
export interface Attempt {
  readonly deliveryId: number;
  /** 1 for the first attempt. */
  readonly number: number;
  readonly last: boolean;
}

export class DeliveryOutbox {
  private readonly boss: PgBoss;
  private started = false;
  private workerId: string | undefined;

  constructor(
    url: string,
    private readonly options: OutboxOptions,
    private readonly logger: Logger,
  ) {
    this.boss = new PgBoss({
      connectionString: url,
      schema: "pgboss",
      max: 3,
      application_name: "kubecompat-fleet",
    });
    this.boss.on("error", (error: Error) =>
      this.logger.warn({ err: error }, "delivery queue error; pg-boss retries by itself"),
    );
  }

  /** Creates (or migrates) pg-boss's schema and the queue; replicas starting together wait for each other. */
  async start(): Promise<void> {
    if (this.started) return;
    await this.boss.start();
    this.started = true;
    await this.boss.createQueue(DELIVERY_QUEUE, {
      name: DELIVERY_QUEUE,
      retryLimit: this.options.retries,
      retryDelay: this.options.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: this.options.attemptTimeoutSeconds,
    });
  }

  /**
   * Inserts one job per delivery with the caller's connection, inside its transaction (pg-boss's insert takes
   * a `db` to run on): committed or rolled back with the event.
   */
  readonly enqueueIn = async (client: pg.PoolClient, deliveryIds: readonly number[]) => {
    await this.boss.insert(
      deliveryIds.map((deliveryId) => ({
        name: DELIVERY_QUEUE,
        data: { deliveryId } satisfies DeliveryJob,
        retryLimit: this.options.retries,
        retryDelay: this.options.retryDelaySeconds,
        retryBackoff: true,
        expireInSeconds: this.options.attemptTimeoutSeconds,
      })),
      { db: { executeSql: (text, values) => client.query(text, values) } },
    );
    // This replica's worker looks at once rather than at its next poll.
    if (this.workerId !== undefined) this.boss.notifyWorker(this.workerId);
  };

  /**
   * Works the queue: `attempt` delivers and throws to have the job retried (or, on the last attempt, records
   * the delivery as dead and returns).
   */
  async work(attempt: (job: Attempt) => Promise<void>): Promise<void> {
    this.workerId = await this.boss.work<DeliveryJob>(
      DELIVERY_QUEUE,
      { includeMetadata: true, pollingIntervalSeconds: 0.5, batchSize: 1 },
      async (jobs) => {
        for (const job of jobs) {
          await attempt({
            deliveryId: job.data.deliveryId,
            number: job.retryCount + 1,
            last: job.retryCount >= job.retryLimit,
          });
        }
      },
    );
  }

  /** Stops fetching, lets running attempts finish (up to `timeoutMs`), closes pg-boss's connections. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({ graceful: true, wait: true, timeout: timeoutMs });
  }
}
