/** A fully started kubecompat (own database, migrated, kb/ imported) for integration tests. */
import path from "node:path";
import type { LargeRequestLimits } from "../../src/rest/large-requests.js";
import { fileURLToPath } from "node:url";
import type { Express } from "express";
import { createApp } from "../../src/app.js";
import { Authenticator } from "../../src/services/authenticator.js";
import { Curator } from "../../src/services/curation.js";
import type { Config } from "../../src/core/config.js";
import { createDatabase, type Database } from "../../src/db/client.js";
import { pingDatabase } from "../../src/db/health.js";
import { migrate } from "../../src/db/migrator.js";
import { importKbDirectory } from "../../src/services/import.js";
import { loadKbDirectory } from "../../src/knowledge/load.js";
import { FixedKnowledgeBase, KnowledgeBase } from "../../src/services/knowledge-base.js";
import { generateSecret, hashSecret, secretPrefix, type Role } from "../../src/core/tokens.js";
import { insertToken } from "../../src/db/token-store.js";
import { createLogger } from "../../src/core/logger.js";
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

export async function startTestRuntime(
  options: { importKb?: boolean; kbDir?: string; chatops?: Config["chatops"]; requireAuthForReads?: boolean; largeRequests?: LargeRequestLimits } = {},
): Promise<TestRuntime> {
  const database = await createTestDatabase();
  await migrate(database.url);
  const logger = createLogger("silent");
  const db = createDatabase(database.url, 4, logger);
  if (options.importKb ?? true) await importKbDirectory(db, options.kbDir ?? KB_DIR);
  const kb = new KnowledgeBase(db);
  await kb.refresh();
  const app = await createApp({
    kb,
    isDatabaseReachable: () => pingDatabase(db),
    logger,
    chatops: options.chatops,
    curator: new Curator(db, kb),
    authenticator: new Authenticator(db, logger),
    requireAuthForReads: options.requireAuthForReads,
    largeRequests: options.largeRequests,
  });
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

/**
 * The app over the reviewed kb/ held in memory, with no database: for face tests that check answers, not
 * storage (no curation, no tokens). It starts in a fraction of startTestRuntime's time.
 */
export interface SnapshotRuntime {
  readonly app: Express;
  readonly kb: KnowledgeBase;
  close(): Promise<void>;
}

export async function startSnapshotRuntime(): Promise<SnapshotRuntime> {
  const kb = FixedKnowledgeBase.fromBundle(await loadKbDirectory(KB_DIR));
  const app = await createApp({ kb, isDatabaseReachable: () => Promise.resolve(true), logger: createLogger("silent") });
  return { app, kb, close: () => Promise.resolve() };
}

/** Creates a token directly in the test database and returns its secret. */
export async function createTestToken(runtime: { readonly db: Database }, name: string, role: Role): Promise<string> {
  const secret = generateSecret();
  await insertToken(runtime.db, { name, role, secretHash: hashSecret(secret), prefix: secretPrefix(secret) }, { name: "test", role: "admin" });
  return secret;
}

/** A TestRuntime listening on a free loopback port, for clients that need a URL (the CLI). */
export function startListeningRuntime(options: { readonly inMemory: true }): Promise<{ runtime: SnapshotRuntime; url: string; close(): Promise<void> }>;
export function startListeningRuntime(): Promise<{ runtime: TestRuntime; url: string; close(): Promise<void> }>;
export async function startListeningRuntime(options: { readonly inMemory?: boolean } = {}): Promise<{ runtime: TestRuntime | SnapshotRuntime; url: string; close(): Promise<void> }> {
  const { default: http } = await import("node:http");
  const runtime = options.inMemory === true ? await startSnapshotRuntime() : await startTestRuntime();
  const server = http.createServer(runtime.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    runtime,
    url,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
    },
  };
}
