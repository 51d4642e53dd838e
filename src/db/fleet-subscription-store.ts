/**
 * Owns the SQL of what the fleet tells and waives: subscriptions, the
 * delivery rows of the outbox (their attempts, the dead-letter list and its
 * replay) and waivers. Named statements only.
 */
import { poolOf, type Database } from "./client.js";
import { day, eventOf, type EnqueueDeliveries } from "./fleet-store.js";

export interface StoredSubscription {
  readonly id: number;
  readonly kind: string;
  readonly url: string;
  readonly secret: string | null;
  readonly filters: object;
  readonly createdBy: string | null;
  readonly createdAt: Date;
}

export interface StoredDelivery {
  readonly id: number;
  readonly eventId: number;
  readonly subscriptionId: number;
  readonly status: string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly lastAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
  readonly createdAt: Date;
}

export interface StoredWaiver {
  readonly id: number;
  readonly code: string;
  readonly clusterName: string | null;
  readonly label: string | null;
  readonly reason: string;
  readonly owner: string;
  readonly expiresOn: string;
  readonly createdBy: string | null;
  readonly createdAt: Date;
}

function waiverOf(row: {
  id: number;
  code: string;
  clusterName: string | null;
  label: string | null;
  reason: string;
  owner: string;
  expiresOn: Date;
  createdBy: string | null;
  createdAt: Date;
}): StoredWaiver {
  return { ...row, expiresOn: day(row.expiresOn) };
}

export async function createSubscription(
  db: Database,
  subscription: Omit<StoredSubscription, "id" | "createdAt">,
): Promise<StoredSubscription> {
  const row = await db.fleetSubscription.create({
    data: subscription,
  });
  return { ...row, filters: row.filters as object };
}

export async function readSubscriptions(db: Database): Promise<StoredSubscription[]> {
  const rows = await db.fleetSubscription.findMany({ orderBy: { id: "asc" } });
  return rows.map((row) => ({ ...row, filters: row.filters as object }));
}

export async function readSubscription(
  db: Database,
  id: number,
): Promise<StoredSubscription | undefined> {
  const row = await db.fleetSubscription.findUnique({ where: { id } });
  return row === null ? undefined : { ...row, filters: row.filters as object };
}

export async function deleteSubscription(db: Database, id: number): Promise<boolean> {
  const { count } = await db.fleetSubscription.deleteMany({ where: { id } });
  return count > 0;
}

/** A delivery with what it carries: the event and where it goes. */
export async function readDeliveryWork(db: Database, id: number) {
  const row = await db.fleetDelivery.findUnique({
    where: { id },
    include: {
      subscription: true,
      event: { include: { cluster: { select: { name: true } } } },
    },
  });
  if (row === null) return undefined;
  return {
    delivery: row as StoredDelivery,
    event: eventOf(row.event),
    subscription: { ...row.subscription, filters: row.subscription.filters as object },
  };
}

/** Deliveries, newest first, by status (DEAD: the dead-letter list). */
export async function readDeliveries(
  db: Database,
  query: { readonly status?: string; readonly eventId?: number; readonly limit: number },
) {
  const rows = await db.fleetDelivery.findMany({
    where: {
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.eventId === undefined ? {} : { eventId: query.eventId }),
    },
    orderBy: { id: "desc" },
    take: query.limit,
    include: {
      event: { include: { cluster: { select: { name: true } } } },
      subscription: { select: { id: true, kind: true, url: true } },
    },
  });
  return rows.map(({ event, subscription, ...delivery }) => ({
    ...delivery,
    event: eventOf(event),
    subscription,
  }));
}

/** Records one attempt: delivered, failed (to be retried), or failed for the last time (DEAD). */
export async function recordAttempt(
  db: Database,
  id: number,
  outcome:
    | { readonly delivered: true }
    | { readonly delivered: false; readonly error: string; readonly dead: boolean },
): Promise<void> {
  await db.fleetDelivery.update({
    where: { id },
    data: outcome.delivered
      ? {
          status: "DELIVERED",
          attempts: { increment: 1 },
          lastAttemptAt: new Date(),
          deliveredAt: new Date(),
          lastError: null,
        }
      : {
          status: outcome.dead ? "DEAD" : "PENDING",
          attempts: { increment: 1 },
          lastAttemptAt: new Date(),
          lastError: outcome.error.slice(0, 2000),
        },
  });
}

/**
 * Puts a dead delivery back on the queue (status PENDING) with its job, in one transaction; false when it is
 * not dead (a delivered one is not sent twice, a pending one is already queued).
 */
export async function replayDelivery(
  db: Database,
  id: number,
  enqueue: EnqueueDeliveries,
): Promise<boolean> {
  const pool = poolOf(db);
  if (pool === undefined) throw new Error("the fleet needs the database's pool");
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const updated = await client.query(
      `UPDATE "FleetDelivery" SET "status" = 'PENDING', "lastError" = NULL WHERE "id" = $1 AND "status" = 'DEAD' RETURNING "id"`,
      [id],
    );
    if (updated.rowCount === 1) await enqueue(client, [id]);
    await client.query("COMMIT");
    return updated.rowCount === 1;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export async function readDeliveryStatus(db: Database, id: number): Promise<string | undefined> {
  const row = await db.fleetDelivery.findUnique({ where: { id }, select: { status: true } });
  return row?.status;
}

export async function createWaiver(
  db: Database,
  waiver: Omit<StoredWaiver, "id" | "createdAt">,
): Promise<StoredWaiver> {
  const row = await db.fleetWaiver.create({
    data: { ...waiver, expiresOn: new Date(`${waiver.expiresOn}T00:00:00Z`) },
  });
  return waiverOf(row);
}

export async function readWaivers(db: Database): Promise<StoredWaiver[]> {
  const rows = await db.fleetWaiver.findMany({ orderBy: { id: "asc" } });
  return rows.map(waiverOf);
}

export async function deleteWaiver(db: Database, id: number): Promise<boolean> {
  const { count } = await db.fleetWaiver.deleteMany({ where: { id } });
  return count > 0;
}
