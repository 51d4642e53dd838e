/**
 * One kubecompat instance as a replica runs it (its own pool, snapshot and
 * change listener), on a database the test already prepared: for tests of
 * coherence between replicas and of database outages.
 */
import type { Express } from "express";
import { createApp } from "../../src/app.js";
import { Authenticator } from "../../src/services/authenticator.js";
import { createDatabase, type Database } from "../../src/db/client.js";
import { pingDatabase } from "../../src/db/health.js";
import { Curator } from "../../src/services/curation.js";
import { KnowledgeBase } from "../../src/services/knowledge-base.js";
import { KbSync } from "../../src/services/sync.js";
import { createLogger } from "../../src/core/logger.js";

export interface Instance {
  readonly app: Express;
  readonly db: Database;
  readonly kb: KnowledgeBase;
  readonly sync: KbSync;
}

export async function startInstance(
  url: string,
  pollMs: number,
  options: { authenticator?: ConstructorParameters<typeof Authenticator>[2] } = {},
): Promise<Instance> {
  const logger = createLogger("silent");
  const db = createDatabase(url, 4, logger);
  const kb = new KnowledgeBase(db);
  await kb.refresh();
  const sync = new KbSync(kb, url, logger, { pollMs });
  await sync.start();
  const app = await createApp({
    kb,
    logger,
    isDatabaseReachable: () => pingDatabase(db),
    curator: new Curator(db, kb),
    authenticator: new Authenticator(db, logger, options.authenticator),
    freshness: sync,
  });
  return { app, db, kb, sync };
}
