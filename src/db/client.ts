/**
 * The one Prisma client module: builds the client on the pg driver adapter
 * (Prisma 7 needs no native query engine that way) and wires its warnings
 * and errors to our logger. Only the store modules under src/db/ use it.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client.js";
import type { Logger } from "../logger.js";

export type Database = InstanceType<typeof PrismaClient>;

export function createDatabase(url: string, poolSize: number, logger: Logger): Database {
  const adapter = new PrismaPg({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  const client = new PrismaClient({
    adapter,
    log: [
      { level: "warn", emit: "event" },
      { level: "error", emit: "event" },
    ],
  });
  client.$on("warn", (event) => logger.warn({ prisma: event.message }, "prisma warning"));
  client.$on("error", (event) => logger.error({ prisma: event.message }, "prisma error"));
  return client;
}
