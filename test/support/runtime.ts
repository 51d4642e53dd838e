/** A fully started kubecompat (own database, migrated, kb/ imported) for integration tests. */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Express } from "express";
import { createApp } from "../../src/app.js";
import type { Config } from "../../src/config.js";
import { createDatabase, type Database } from "../../src/db/client.js";
import { pingDatabase } from "../../src/db/health.js";
import { migrate } from "../../src/db/migrator.js";
import { importKbDirectory } from "../../src/kb/import.js";
import { KnowledgeBase } from "../../src/kb/knowledge-base.js";
import { createLogger } from "../../src/logger.js";
import { createTestDatabase, type TestDatabase } from "./database.js";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const KB_DIR = path.join(REPO_ROOT, "kb");

export interface TestRuntime {
  readonly database: TestDatabase;
  readonly db: Database;
  readonly kb: KnowledgeBase;
  readonly app: Express;
  close(): Promise<void>;
}

export async function startTestRuntime(options: { importKb?: boolean; chatops?: Config["chatops"] } = {}): Promise<TestRuntime> {
  const database = await createTestDatabase();
  await migrate(database.url);
  const logger = createLogger("silent");
  const db = createDatabase(database.url, 4, logger);
  if (options.importKb ?? true) await importKbDirectory(db, KB_DIR);
  const kb = new KnowledgeBase(db);
  await kb.refresh();
  const app = await createApp({ kb, isDatabaseReachable: () => pingDatabase(db), logger, chatops: options.chatops });
  return {
    database,
    db,
    kb,
    app,
    async close() {
      await db.$disconnect();
      await database.drop();
    },
  };
}
