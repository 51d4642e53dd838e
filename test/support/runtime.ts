/** A fully started kubecompat (own database, migrated, kb/ imported) for integration tests. */
import path from "node:path";
import type { LargeRequestLimits } from "../../src/http/large-requests.js";
import { fileURLToPath } from "node:url";
import type { Express } from "express";
import { createApp } from "../../src/app.js";
import { Authenticator } from "../../src/services/authenticator.js";
import { Curator } from "../../src/services/curation.js";
import { RefreshLedger } from "../../src/services/refresh-state.js";
import { ProposalReview } from "../../src/services/proposals.js";
import type { Config } from "../../src/core/config.js";
import { createDatabase, type Database } from "../../src/db/client.js";
import { pingDatabase } from "../../src/db/health.js";
import { migrate, readMigrations } from "../../src/db/migrator.js";
import { importKbDirectory } from "../../src/services/import.js";
import { loadKbDirectory, readKbFiles } from "../../src/knowledge/load.js";
import { FixedKnowledgeBase, KnowledgeBase } from "../../src/services/knowledge-base.js";
import { generateSecret, hashSecret, secretPrefix, type Role } from "../../src/core/tokens.js";
import { insertToken } from "../../src/db/token-store.js";
import { createLogger } from "../../src/core/logger.js";
import { DEFAULT_FLEET_CONFIG } from "../../src/core/fleet-config.js";
import { startFleet } from "../../src/fleet-runtime.js";
import { createPreparedDatabase, createTestDatabase, type TestDatabase } from "./database.js";

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
  options: {
    importKb?: boolean;
    kbDir?: string;
    chatops?: Config["chatops"];
    requireAuthForReads?: boolean;
    largeRequests?: LargeRequestLimits;
    /** With the fleet (its pg-boss queue, worker and watch), so every documented route is mounted. */
    fleet?: boolean;
  } = {},
): Promise<TestRuntime> {
  const logger = createLogger("silent");
  const importKb = options.importKb ?? true;
  const kbDir = options.kbDir ?? KB_DIR;
  // Migrated with kb/ imported is how most files start: copied from this run's template when there is one.
  const prepared = importKb
    ? await createPreparedDatabase(await importedKbKey(kbDir), (url) => prepareImported(url, kbDir))
    : undefined;
  const database = prepared ?? (await createTestDatabase());
  if (prepared === undefined) await migrate(database.url);
  const db = createDatabase(database.url, 4, logger);
  if (importKb && prepared === undefined) await importKbDirectory(db, kbDir);
  const kb = new KnowledgeBase(db);
  await kb.refresh();
  const curator = new Curator(db, kb);
  const fleet =
    options.fleet === true
      ? await startFleet({
          db,
          kb,
          databaseUrl: database.url,
          config: DEFAULT_FLEET_CONFIG,
          logger,
        })
      : undefined;
  const app = await createApp({
    kb,
    isDatabaseReachable: () => pingDatabase(db),
    logger,
    chatops: options.chatops,
    curator,
    proposals: new ProposalReview(db, curator),
    refreshLedger: new RefreshLedger(db),
    authenticator: new Authenticator(db, logger),
    requireAuthForReads: options.requireAuthForReads,
    largeRequests: options.largeRequests,
    fleet: fleet?.fleet,
  });
  return {
    database,
    db,
    kb,
    app,
    async close() {
      await fleet?.stop();
      await db.$disconnect();
      await database.drop();
    },
  };
}

/** What a database migrated with `kbDir` imported depends on: the directory (the import records it), its files and the migrations. */
async function importedKbKey(kbDir: string): Promise<string> {
  const files = await readKbFiles(kbDir);
  const migrations = await readMigrations();
  return JSON.stringify({
    kbDir,
    files,
    migrations: migrations.map((migration) => migration.checksum),
  });
}

async function prepareImported(url: string, kbDir: string): Promise<void> {
  await migrate(url);
  const db = createDatabase(url, 2, createLogger("silent"));
  try {
    await importKbDirectory(db, kbDir);
  } finally {
    await db.$disconnect();
  }
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

export interface SnapshotRuntimeOptions {
  /** A kb/ directory other than the reviewed one (e.g. test/fixtures/kb-synthetic). */
  readonly kbDir?: string;
  readonly chatops?: Config["chatops"];
  readonly largeRequests?: LargeRequestLimits;
  /** Reads let in per pass of the event loop (src/http/read-turns.ts); the app's default unless given. */
  readonly readsPerTurn?: number;
}

// One load of a kb/ directory per test file: the snapshot is immutable, so every runtime of the file can share it.
const bundles = new Map<string, ReturnType<typeof loadKbDirectory>>();

export async function startSnapshotRuntime(
  options: SnapshotRuntimeOptions = {},
): Promise<SnapshotRuntime> {
  const kbDir = options.kbDir ?? KB_DIR;
  let bundle = bundles.get(kbDir);
  if (bundle === undefined) bundles.set(kbDir, (bundle = loadKbDirectory(kbDir)));
  const kb = FixedKnowledgeBase.fromBundle(await bundle);
  const app = await createApp({
    kb,
    isDatabaseReachable: () => Promise.resolve(true),
    logger: createLogger("silent"),
    chatops: options.chatops,
    largeRequests: options.largeRequests,
    readsPerTurn: options.readsPerTurn,
  });
  return { app, kb, close: () => Promise.resolve() };
}

/** Creates a token directly in the test database and returns its secret. */
export async function createTestToken(
  runtime: { readonly db: Database },
  name: string,
  role: Role,
): Promise<string> {
  const secret = generateSecret();
  await insertToken(
    runtime.db,
    { name, role, secretHash: hashSecret(secret), prefix: secretPrefix(secret) },
    { name: "test", role: "admin" },
  );
  return secret;
}

/** A runtime served on a loopback port. */
export interface Listening<R extends SnapshotRuntime = TestRuntime> {
  readonly runtime: R;
  readonly url: string;
  close(): Promise<void>;
}

/** A TestRuntime listening on a free loopback port, for clients that need a URL (the CLI). */
export function startListeningRuntime(
  options: { readonly inMemory: true } & SnapshotRuntimeOptions,
): Promise<{ runtime: SnapshotRuntime; url: string; close(): Promise<void> }>;
export function startListeningRuntime(): Promise<{
  runtime: TestRuntime;
  url: string;
  close(): Promise<void>;
}>;
export async function startListeningRuntime(
  options: { readonly inMemory?: boolean } & SnapshotRuntimeOptions = {},
): Promise<{ runtime: TestRuntime | SnapshotRuntime; url: string; close(): Promise<void> }> {
  const { default: http } = await import("node:http");
  const runtime =
    options.inMemory === true ? await startSnapshotRuntime(options) : await startTestRuntime();
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
