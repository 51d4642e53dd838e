/**
 * Brings up the fleet next to the service: the delivery queue (pg-boss, in
 * its own schema of the same database), this instance's delivery worker, and
 * the FleetService that judges the fleet on every new knowledge-base revision
 * and every new day. Every replica runs all three: pg-boss gives each job to
 * one worker, and each judgement is written once (src/services/fleet.ts).
 */
import type { FleetConfig } from "./core/fleet-config.js";
import type { Logger } from "./core/logger.js";
import type { Database } from "./db/client.js";
import { DeliveryOutbox } from "./db/fleet-outbox.js";
import { FleetDelivery } from "./services/fleet-delivery.js";
import { FleetService } from "./services/fleet.js";
import type { KnowledgeBase } from "./services/knowledge-base.js";

export interface FleetRuntime {
  readonly fleet: FleetService;
  readonly outbox: DeliveryOutbox;
  stop(): Promise<void>;
}

export async function startFleet(options: {
  readonly db: Database;
  readonly kb: KnowledgeBase;
  readonly databaseUrl: string;
  readonly config: FleetConfig;
  readonly logger: Logger;
  /** Today, YYYY-MM-DD (tests move it). */
  readonly clock?: () => string;
  /** How often the day is looked at (default a minute). */
  readonly dayCheckMs?: number;
}): Promise<FleetRuntime> {
  const { config, logger } = options;
  const outbox = new DeliveryOutbox(
    options.databaseUrl,
    {
      retries: config.deliveryRetries,
      retryDelaySeconds: config.deliveryRetryDelaySeconds,
      // pg-boss counts an attempt as failed when it runs past this: the receiver's timeout and a margin.
      attemptTimeoutSeconds: Math.ceil(config.deliveryTimeoutMs / 1000) + 30,
    },
    logger,
  );
  await outbox.start();
  const fleet = new FleetService({
    db: options.db,
    kb: options.kb,
    config,
    enqueue: outbox.enqueueIn,
    logger,
    clock: options.clock,
  });
  if (config.deliver) {
    const delivery = new FleetDelivery(options.db, config.deliveryTimeoutMs, logger);
    await outbox.work(delivery.attempt);
  }
  fleet.start(options.dayCheckMs);
  return {
    fleet,
    outbox,
    async stop() {
      await fleet.stop();
      await outbox.stop();
    },
  };
}
