/**
 * Gives each test file its own PostgreSQL database on the server in
 * DATABASE_URL (the machine's, or the embedded one scripts/run-tests.ts
 * started), migrated with our migrator, and drops it afterwards.
 *
 * A database that many files prepare the same way (migrated, kb/ imported)
 * can be built once per run as a template and copied (CREATE DATABASE ...
 * TEMPLATE, a file copy on the server): scripts/run-tests.ts names the
 * run's templates in KUBECOMPAT_TEST_TEMPLATES and drops them at the end.
 * Without it (a file run on its own) every database is prepared afresh.
 */
import crypto from "node:crypto";
import pg from "pg";
import { parseConfig } from "../../src/core/config.js";

// eslint-disable-next-line no-restricted-syntax -- set by scripts/run-tests.ts, not the service's config
const TEMPLATE_PREFIX = process.env.KUBECOMPAT_TEST_TEMPLATES;

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

export function serverUrl(): string {
  const config = parseConfig();
  if (config.database.kind !== "external") {
    throw new Error(
      "tests need DATABASE_URL; run them with `npm test`, which starts an embedded PostgreSQL when it is unset",
    );
  }
  return config.database.url;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = serverUrl();
  const name = `kc_test_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  return testDatabase(admin, name);
}

/**
 * A database prepared by `prepare` (given an empty database's URL; it must
 * close every connection it opens), copied from this run's template for
 * `key` when scripts/run-tests.ts runs several files, so the first file
 * that asks pays for `prepare` and the others get a copy. Undefined when
 * there are no templates in this run: then prepare a database yourself.
 */
export async function createPreparedDatabase(
  key: string,
  prepare: (url: string) => Promise<void>,
): Promise<TestDatabase | undefined> {
  if (TEMPLATE_PREFIX === undefined || TEMPLATE_PREFIX === "") return undefined;
  const admin = serverUrl();
  const template = `${TEMPLATE_PREFIX}_${crypto.createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
  const name = `kc_test_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    // One builder per template across the run's files; copies one at a time (a template being built or copied must have no other session).
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [TEMPLATE_PREFIX]);
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
    if (exists.rowCount === 0) {
      const building = `${template}_b`;
      await client.query(
        `DROP DATABASE IF EXISTS ${client.escapeIdentifier(building)} WITH (FORCE)`,
      );
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(building)}`);
      await prepare(withDatabase(admin, building));
      await client.query(
        `ALTER DATABASE ${client.escapeIdentifier(building)} RENAME TO ${client.escapeIdentifier(template)}`,
      );
    }
    await client.query(
      `CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE ${client.escapeIdentifier(template)}`,
    );
  } finally {
    await client
      .query("SELECT pg_advisory_unlock(hashtext($1))", [TEMPLATE_PREFIX])
      .catch(() => undefined);
    await client.end();
  }
  return testDatabase(admin, name);
}

function testDatabase(admin: string, name: string): TestDatabase {
  return {
    url: withDatabase(admin, name),
    name,
    async drop() {
      const dropper = new pg.Client({ connectionString: admin });
      await dropper.connect();
      try {
        await dropper.query(
          `DROP DATABASE IF EXISTS ${dropper.escapeIdentifier(name)} WITH (FORCE)`,
        );
      } finally {
        await dropper.end();
      }
    },
  };
}

/** Runs one query on a database and returns its rows. */
export async function query<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
