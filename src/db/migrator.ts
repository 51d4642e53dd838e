/**
 * Applies the Prisma-format migrations under prisma/migrations/ and records
 * them in Prisma's own `_prisma_migrations` table, so `prisma migrate status`
 * and `prisma migrate deploy` agree with us wherever Prisma's schema engine
 * is available. (It cannot be downloaded on our build machines; see
 * prisma/schema.prisma.) Each migration runs in one transaction together with
 * its bookkeeping row, under an advisory lock so that replicas starting at
 * the same time apply it once. Connecting is bounded (CONNECT_TIMEOUT_MS),
 * so a database that is not there fails the start with a message naming
 * where it was looked for, instead of a hang.
 */
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../prisma/migrations",
);

// Any constant works; it only has to be the same for every replica.
const MIGRATION_LOCK_ID = 72_707_368;

/** How long connecting (TCP, TLS, authentication) may take before the start fails. */
export const CONNECT_TIMEOUT_MS = 10_000;

export interface Migration {
  readonly name: string;
  readonly sql: string;
  /** Prisma's checksum: SHA-256 of migration.sql, hex. */
  readonly checksum: string;
}

export interface MigrationResult {
  readonly applied: readonly string[];
  readonly alreadyApplied: readonly string[];
}

export async function readMigrations(directory = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await fs.readdir(directory, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory() && /^\d{14}_[a-z0-9_]+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await fs.readFile(path.join(directory, name, "migration.sql"), "utf8");
      return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

export async function migrate(
  databaseUrl: string,
  directory = MIGRATIONS_DIR,
): Promise<MigrationResult> {
  const migrations = await readMigrations(directory);
  const client = await connect(databaseUrl);
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum"            VARCHAR(64) NOT NULL,
      "finished_at"         TIMESTAMPTZ,
      "migration_name"      VARCHAR(255) NOT NULL,
      "logs"                TEXT,
      "rolled_back_at"      TIMESTAMPTZ,
      "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const recorded = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      rolled_back_at: Date | null;
    }>(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`);
    const done = new Map(
      recorded.rows
        .filter((row) => row.finished_at !== null && row.rolled_back_at === null)
        .map((row) => [row.migration_name, row]),
    );
    const failed = recorded.rows.filter(
      (row) => row.finished_at === null && row.rolled_back_at === null,
    );
    if (failed.length > 0) {
      throw new Error(
        `migration ${failed.map((row) => row.migration_name).join(", ")} failed earlier and was not rolled back; ` +
          "repair the database and mark it rolled back (prisma migrate resolve --rolled-back) before starting again",
      );
    }
    const known = new Set(migrations.map((migration) => migration.name));
    const unknown = [...done.keys()].filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new Error(
        `the database has migrations this build does not know (${unknown.join(", ")}); it was migrated by a newer kubecompat`,
      );
    }

    const applied: string[] = [];
    const alreadyApplied: string[] = [];
    for (const migration of migrations) {
      const row = done.get(migration.name);
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new Error(
            `migration ${migration.name} was changed after it was applied (checksum ${row.checksum} in the database, ${migration.checksum} on disk); add a new migration instead of editing an applied one`,
          );
        }
        alreadyApplied.push(migration.name);
        continue;
      }
      await client.query("BEGIN");
      try {
        const id = crypto.randomUUID();
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query(
          `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
          [id],
        );
        await client.query("COMMIT");
        applied.push(migration.name);
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(
          `migration ${migration.name} failed and was rolled back: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    return { applied, alreadyApplied };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

/** Where a connection URL points, without its credentials: `host:port/database`. */
export function describeDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const host = url.hostname || url.searchParams.get("host") || "localhost";
    return `${host}:${url.port || "5432"}${url.pathname.length > 1 ? url.pathname : ""}`;
  } catch {
    return "the server in DATABASE_URL";
  }
}

/** libpq's connect_timeout (seconds) when DATABASE_URL sets it, as psql would honour it; else CONNECT_TIMEOUT_MS. */
export function connectTimeoutMs(databaseUrl: string): number {
  try {
    const seconds = Number(new URL(databaseUrl).searchParams.get("connect_timeout") ?? Number.NaN);
    // libpq: zero or negative waits forever, and anything below 2 s counts as 2 s; a start-up must not hang, so 0 keeps the default.
    return Number.isFinite(seconds) && seconds > 0
      ? Math.max(2, Math.floor(seconds)) * 1000
      : CONNECT_TIMEOUT_MS;
  } catch {
    return CONNECT_TIMEOUT_MS;
  }
}

async function connect(databaseUrl: string): Promise<pg.Client> {
  const timeoutMs = connectTimeoutMs(databaseUrl);
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: timeoutMs,
  });
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    const { code, message, errors } = error as {
      code?: unknown;
      message?: unknown;
      errors?: Array<{ message?: unknown }>;
    };
    // Connecting to "localhost" tries every address and fails with an AggregateError without a message of its own.
    const inner = errors?.[0]?.message;
    const text =
      typeof message === "string" && message !== ""
        ? message
        : typeof inner === "string"
          ? inner
          : String(error);
    const reason =
      text === "timeout expired"
        ? `no answer within ${timeoutMs / 1000} s`
        : typeof code === "string" && !text.includes(code)
          ? `${code}: ${text}`
          : text;
    throw new Error(
      `cannot connect to PostgreSQL at ${describeDatabaseUrl(databaseUrl)} (${reason}); check DATABASE_URL and that the server is running and reachable`,
      { cause: error },
    );
  }
}
