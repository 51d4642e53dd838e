/**
 * Brings up what the service needs before it can answer: a database (the
 * operator's, or an embedded one), its migrations, the reviewed knowledge
 * base imported from kb/, and the first snapshot. Shared by `npm start` and
 * the command-line tools so they all start the same way.
 */
import type { Config } from "./core/config.js";
import { createDatabase, type Database } from "./db/client.js";
import {
  connectToRunningEmbedded,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from "./db/embedded-postgres.js";
import { migrate } from "./db/migrator.js";
import { importKbDirectory } from "./services/import.js";
import { KnowledgeBase } from "./services/knowledge-base.js";
import { KbSync } from "./services/sync.js";
import type { Logger } from "./core/logger.js";

export interface Runtime {
  readonly db: Database;
  readonly kb: KnowledgeBase;
  readonly sync: KbSync;
  readonly databaseUrl: string;
  stop(): Promise<void>;
}

export async function openDatabase(
  config: Config,
  logger: Logger,
  options: { shareRunning?: boolean } = {},
): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.database.kind === "external") return { url: config.database.url };
  if (options.shareRunning) {
    const running = await connectToRunningEmbedded({
      dataDir: config.database.dataDir,
      port: config.database.port,
      database: "kubecompat",
    });
    if (running !== undefined) {
      logger.info(
        { port: config.database.port },
        "using the embedded PostgreSQL of the running service",
      );
      return { url: running.url, embedded: running };
    }
  }
  logger.info(
    { dataDir: config.database.dataDir, port: config.database.port },
    "DATABASE_URL is unset: starting embedded PostgreSQL",
  );
  const embedded = await startEmbeddedPostgres({
    dataDir: config.database.dataDir,
    port: config.database.port,
    anotherPortIfBusy: !config.database.portGiven,
    database: "kubecompat",
    log: (message) =>
      message.startsWith("the postgres OS user cannot reach") ||
      message.includes("the embedded PostgreSQL uses port")
        ? logger.warn(message)
        : logger.debug({ postgres: message.trim() }, "embedded postgres"),
  });
  return { url: embedded.url, embedded };
}

export async function startRuntime(
  config: Config,
  logger: Logger,
  options: { importKb?: boolean } = {},
): Promise<Runtime> {
  const { url, embedded } = await openDatabase(config, logger);
  let db: Database | undefined;
  try {
    const migrations = await migrate(url);
    logger.info(
      { applied: migrations.applied, alreadyApplied: migrations.alreadyApplied.length },
      "database migrated",
    );
    db = createDatabase(url, config.database.poolSize, logger);
    if (options.importKb ?? config.kb.importOnStart) {
      const result = await importKbDirectory(db, config.kb.dir);
      logger.info(
        {
          changed: result.changed,
          revision: result.revision,
          changes: result.changes.length,
          keptRuntimeEdits: result.keptRuntime,
          conflicts: result.conflicts.length,
          resolvedConflicts: result.resolved,
        },
        result.directoryUnchanged
          ? "knowledge base: kb/ unchanged since its last import"
          : result.changed
            ? "knowledge base: kb/ merged"
            : "knowledge base: kb/ merged, nothing to change",
      );
      for (const conflict of result.conflicts) {
        logger.warn(
          {
            entity: conflict.entity,
            key: conflict.key,
            kb: conflict.kb,
            database: conflict.database,
          },
          "knowledge-base conflict: kb/ and a run-time edit changed this record differently; the database's value is kept until an edit or an import resolves it",
        );
      }
    }
    const kb = new KnowledgeBase(db);
    const snapshot = await kb.refresh();
    logger.info(
      { revision: snapshot.revision, counts: snapshot.counts() },
      "knowledge base loaded",
    );
    const sync = new KbSync(kb, url, logger, { pollMs: config.kb.pollMs });
    await sync.start();
    const database = db;
    return {
      db: database,
      kb,
      sync,
      databaseUrl: url,
      async stop() {
        try {
          await sync.stop();
          await database.$disconnect();
        } finally {
          // Whatever failed above, an embedded PostgreSQL must not outlive the service.
          await embedded?.stop();
        }
      },
    };
  } catch (error) {
    await db?.$disconnect().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}
