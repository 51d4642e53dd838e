/**
 * Gives each test file its own PostgreSQL database on the server in
 * DATABASE_URL (the machine's, or the embedded one scripts/run-tests.ts
 * started), migrated with our migrator, and drops it afterwards.
 */
import crypto from "node:crypto";
import pg from "pg";
import { parseConfig } from "../../src/core/config.js";

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

export function serverUrl(): string {
  const config = parseConfig();
  if (config.database.kind !== "external") {
    throw new Error("tests need DATABASE_URL; run them with `npm test`, which starts an embedded PostgreSQL when it is unset");
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
  return {
    url: withDatabase(admin, name),
    name,
    async drop() {
      const dropper = new pg.Client({ connectionString: admin });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${dropper.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** Runs one query on a database and returns its rows. */
export async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
