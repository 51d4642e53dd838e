/**
 * The one Prisma client module: builds the client on the pg driver adapter
 * (Prisma 7 needs no native query engine that way) and wires its warnings
 * and errors to our logger. Only the store modules under src/db/ use it.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/client.js";
import type { Logger } from "../core/logger.js";

export type Database = InstanceType<typeof PrismaClient>;

export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
  readonly max: number;
}

const pools = new WeakMap<Database, pg.Pool>();

/** Connections of a client's pool, for /metrics. */
export function poolStats(db: Database): PoolStats | undefined {
  const pool = pools.get(db);
  return pool === undefined
    ? undefined
    : {
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: pool.options.max ?? 0,
      };
}

/** The pg pool under a client: the one-round-trip edit commit (src/db/kb-group-commit.ts) talks to it directly. */
export function poolOf(db: Database): pg.Pool | undefined {
  return pools.get(db);
}

/** How long a query waits for a connection (a new one connecting, or a busy pool's) before it fails. */
export const POOL_CONNECT_TIMEOUT_MS = 15_000;

export function createDatabase(
  url: string,
  poolSize: number,
  logger: Logger,
  options: { readonly connectTimeoutMs?: number } = {},
): Database {
  // Our own pool (rather than letting the adapter make one) so its state can be observed.
  // Writes queue on one lock, so a burst of them may wait a while for a connection.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? POOL_CONNECT_TIMEOUT_MS,
  });
  pool.on("error", (error) => logger.warn({ err: error }, "idle database connection failed"));
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  const client = new PrismaClient({
    adapter,
    log: [
      { level: "warn", emit: "event" },
      { level: "error", emit: "event" },
    ],
  });
  client.$on("warn", (event) => logger.warn({ prisma: event.message }, "prisma warning"));
  // A database outage is reported once by the sync loop; per-query connection errors would flood the log.
  client.$on("error", (event) =>
    /can't reach database|connection|timed out|ECONNREFUSED|terminat/i.test(event.message)
      ? logger.debug({ prisma: event.message }, "prisma connection error")
      : logger.error({ prisma: event.message }, "prisma error"),
  );
  pools.set(client, pool);
  return client;
}
