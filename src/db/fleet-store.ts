/**
 * Owns the SQL of the fleet: clusters and their submitted states, the
 * judgements kept as history, events, subscriptions, the delivery outbox and
 * waivers. Named statements only; judging and deciding what is an event is
 * src/services/fleet.ts's business (subscriptions, deliveries and waivers:
 * src/db/fleet-subscription-store.ts). A judgement, the events it causes, their
 * deliveries and the delivery jobs are written in one transaction, so an
 * event is never without its deliveries nor a delivery without its job.
 */
import type pg from "pg";
import { poolOf, type Database } from "./client.js";
import type { Prisma } from "./generated/client.js";

/** The lock key space of the fleet's per-cluster judgement writes (pg_advisory_xact_lock(FLEET_LOCK, clusterId)). */
const FLEET_LOCK = 72_707_371;

export interface ClusterFields {
  readonly name: string;
  readonly environment: string;
  readonly owner: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface StoredCluster extends ClusterFields {
  readonly id: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface StoredSnapshot {
  readonly id: number;
  readonly clusterId: number;
  readonly source: string;
  readonly state: object;
  readonly takenAt: Date;
}

export interface StoredJudgement {
  readonly id: number;
  readonly clusterId: number;
  readonly snapshotId: number;
  readonly kbRevision: number;
  readonly asOf: string;
  readonly status: string;
  readonly summary: object;
  readonly fingerprint: string;
  readonly judgedAt: Date;
}

export interface StoredEvent {
  readonly id: number;
  readonly clusterId: number;
  readonly cluster: string;
  readonly kind: string;
  readonly severity: string;
  readonly summary: string;
  readonly detail: object;
  readonly kbRevision: number;
  readonly asOf: string;
  readonly occurredAt: Date;
}

export const day = (value: Date): string => value.toISOString().slice(0, 10);

function clusterOf(row: {
  id: number;
  name: string;
  environment: string;
  owner: string;
  labels: Prisma.JsonValue;
  createdAt: Date;
  updatedAt: Date;
}): StoredCluster {
  return { ...row, labels: (row.labels ?? {}) as Record<string, string> };
}

function judgementOf(row: {
  id: number;
  clusterId: number;
  snapshotId: number;
  kbRevision: number;
  asOf: Date;
  status: string;
  summary: Prisma.JsonValue;
  fingerprint: string;
  judgedAt: Date;
}): StoredJudgement {
  return { ...row, asOf: day(row.asOf), summary: row.summary as object };
}

/** Registers a cluster or updates its fields (by name), and keeps the submitted state as its newest snapshot. */
export async function saveClusterState(
  db: Database,
  fields: ClusterFields,
  snapshot: { readonly source: string; readonly state: object },
): Promise<{ cluster: StoredCluster; snapshot: StoredSnapshot; created: boolean }> {
  return db.$transaction(async (tx) => {
    const existing = await tx.fleetCluster.findUnique({ where: { name: fields.name } });
    const data = {
      environment: fields.environment,
      owner: fields.owner,
      labels: fields.labels as Prisma.InputJsonObject,
    };
    const cluster =
      existing === null
        ? await tx.fleetCluster.create({ data: { name: fields.name, ...data } })
        : await tx.fleetCluster.update({
            where: { id: existing.id },
            data: { ...data, updatedAt: new Date() },
          });
    const stored = await tx.fleetSnapshot.create({
      data: {
        clusterId: cluster.id,
        source: snapshot.source,
        state: snapshot.state,
      },
    });
    return {
      cluster: clusterOf(cluster),
      snapshot: { ...stored, state: stored.state as object },
      created: existing === null,
    };
  });
}

/** Every cluster with its newest snapshot and newest judgement, by name. */
export async function readFleet(db: Database): Promise<
  Array<{
    cluster: StoredCluster;
    snapshot: StoredSnapshot | undefined;
    judgement: StoredJudgement | undefined;
  }>
> {
  const clusters = await db.fleetCluster.findMany({
    orderBy: { name: "asc" },
    include: {
      snapshots: { orderBy: { id: "desc" }, take: 1 },
      judgements: { orderBy: { id: "desc" }, take: 1 },
    },
  });
  return clusters.map(({ snapshots, judgements, ...cluster }) => ({
    cluster: clusterOf(cluster),
    snapshot: snapshots[0] && { ...snapshots[0], state: snapshots[0].state as object },
    judgement: judgements[0] && judgementOf(judgements[0]),
  }));
}

/** One cluster by name with its newest snapshot and judgement; undefined when no cluster has that name. */
export async function readCluster(db: Database, name: string) {
  const row = await db.fleetCluster.findUnique({
    where: { name },
    include: {
      snapshots: { orderBy: { id: "desc" }, take: 1 },
      judgements: { orderBy: { id: "desc" }, take: 1 },
    },
  });
  if (row === null) return undefined;
  const { snapshots, judgements, ...cluster } = row;
  return {
    cluster: clusterOf(cluster),
    snapshot: snapshots[0] && { ...snapshots[0], state: snapshots[0].state as object },
    judgement: judgements[0] && judgementOf(judgements[0]),
  };
}

/** A cluster's judgements, newest first: the history of its verdicts. */
export async function readJudgements(
  db: Database,
  clusterId: number,
  limit: number,
): Promise<StoredJudgement[]> {
  const rows = await db.fleetJudgement.findMany({
    where: { clusterId },
    orderBy: { id: "desc" },
    take: limit,
  });
  return rows.map(judgementOf);
}

/** A cluster's snapshots, newest first (without their states: they can be large). */
export async function readSnapshotList(db: Database, clusterId: number, limit: number) {
  return db.fleetSnapshot.findMany({
    where: { clusterId },
    orderBy: { id: "desc" },
    take: limit,
    select: { id: true, source: true, takenAt: true },
  });
}

export async function readSnapshot(
  db: Database,
  clusterId: number,
  id: number,
): Promise<StoredSnapshot | undefined> {
  const row = await db.fleetSnapshot.findFirst({ where: { clusterId, id } });
  return row === null ? undefined : { ...row, state: row.state as object };
}

export async function deleteCluster(db: Database, name: string): Promise<boolean> {
  const { count } = await db.fleetCluster.deleteMany({ where: { name } });
  return count > 0;
}

/** An event to write with the judgement that caused it, and the subscriptions it goes to. */
export interface EventToWrite {
  readonly kind: string;
  readonly severity: string;
  readonly summary: string;
  readonly detail: object;
  readonly subscriptionIds: readonly number[];
}

/** What the judgement write decided, given the cluster's newest stored judgement (read under the lock). */
export type JudgementDecision =
  | { readonly write: "none" }
  /** The newest judgement still holds: it is stamped with the newer revision and day. */
  | { readonly write: "touch" }
  | {
      readonly write: "new";
      readonly status: string;
      readonly summary: object;
      readonly fingerprint: string;
      readonly events: readonly EventToWrite[];
    };

/** Puts delivery jobs on the queue inside the caller's transaction (src/db/fleet-outbox.ts). */
export type EnqueueDeliveries = (
  client: pg.PoolClient,
  deliveryIds: readonly number[],
) => Promise<void>;

/**
 * Writes a cluster's judgement under the cluster's advisory lock: `decide` is given the newest stored
 * judgement (undefined for the first), read under the lock, so two replicas judging the same change write it
 * once. New events get one delivery per subscription and one queued job per delivery, in the same transaction.
 */
export async function writeJudgement(
  db: Database,
  at: {
    readonly clusterId: number;
    readonly snapshotId: number;
    readonly kbRevision: number;
    readonly asOf: string;
  },
  decide: (previous: StoredJudgement | undefined) => JudgementDecision,
  enqueue: EnqueueDeliveries,
): Promise<{ judgementId: number | null; eventIds: number[]; deliveryIds: number[] }> {
  const pool = poolOf(db);
  if (pool === undefined) throw new Error("the fleet needs the database's pool");
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1, $2)", [FLEET_LOCK, at.clusterId]);
    const latest = await client.query<Parameters<typeof judgementOf>[0]>(
      `SELECT "id", "clusterId", "snapshotId", "kbRevision", "asOf", "status", "summary", "fingerprint", "judgedAt"
         FROM "FleetJudgement" WHERE "clusterId" = $1 ORDER BY "id" DESC LIMIT 1`,
      [at.clusterId],
    );
    const previous = latest.rows[0] === undefined ? undefined : judgementOf(latest.rows[0]);
    const decision = decide(previous);
    const eventIds: number[] = [];
    const deliveryIds: number[] = [];
    let judgementId: number | null = previous?.id ?? null;
    if (decision.write === "touch" && previous !== undefined) {
      await client.query(
        `UPDATE "FleetJudgement" SET "kbRevision" = $2, "asOf" = $3, "snapshotId" = $4, "judgedAt" = now() WHERE "id" = $1`,
        [previous.id, at.kbRevision, at.asOf, at.snapshotId],
      );
    } else if (decision.write === "new") {
      const inserted = await client.query<{ id: number }>(
        `INSERT INTO "FleetJudgement" ("clusterId", "snapshotId", "kbRevision", "asOf", "status", "summary", "fingerprint")
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING "id"`,
        [
          at.clusterId,
          at.snapshotId,
          at.kbRevision,
          at.asOf,
          decision.status,
          JSON.stringify(decision.summary),
          decision.fingerprint,
        ],
      );
      judgementId = inserted.rows[0]!.id;
      for (const event of decision.events) {
        const row = await client.query<{ id: number }>(
          `INSERT INTO "FleetEvent" ("clusterId", "kind", "severity", "summary", "detail", "kbRevision", "asOf")
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING "id"`,
          [
            at.clusterId,
            event.kind,
            event.severity,
            event.summary,
            JSON.stringify(event.detail),
            at.kbRevision,
            at.asOf,
          ],
        );
        const eventId = row.rows[0]!.id;
        eventIds.push(eventId);
        if (event.subscriptionIds.length === 0) continue;
        const deliveries = await client.query<{ id: number }>(
          `INSERT INTO "FleetDelivery" ("eventId", "subscriptionId")
           SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING RETURNING "id"`,
          [eventId, event.subscriptionIds],
        );
        deliveryIds.push(...deliveries.rows.map((delivery) => delivery.id));
      }
      if (deliveryIds.length > 0) await enqueue(client, deliveryIds);
    }
    await client.query("COMMIT");
    return { judgementId, eventIds, deliveryIds };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export function eventOf(row: {
  id: number;
  clusterId: number;
  kind: string;
  severity: string;
  summary: string;
  detail: Prisma.JsonValue;
  kbRevision: number;
  asOf: Date;
  occurredAt: Date;
  cluster: { name: string };
}): StoredEvent {
  return {
    id: row.id,
    clusterId: row.clusterId,
    cluster: row.cluster.name,
    kind: row.kind,
    severity: row.severity,
    summary: row.summary,
    detail: row.detail as object,
    kbRevision: row.kbRevision,
    asOf: day(row.asOf),
    occurredAt: row.occurredAt,
  };
}

/** Events, newest first: of one cluster or all, before an id (paging back). */
export async function readEvents(
  db: Database,
  query: { readonly cluster?: string; readonly before?: number; readonly limit: number },
): Promise<StoredEvent[]> {
  const rows = await db.fleetEvent.findMany({
    where: {
      ...(query.cluster === undefined ? {} : { cluster: { name: query.cluster } }),
      ...(query.before === undefined ? {} : { id: { lt: query.before } }),
    },
    orderBy: { id: "desc" },
    take: query.limit,
    include: { cluster: { select: { name: true } } },
  });
  return rows.map(eventOf);
}

export async function readEvent(db: Database, id: number): Promise<StoredEvent | undefined> {
  const row = await db.fleetEvent.findUnique({
    where: { id },
    include: { cluster: { select: { name: true } } },
  });
  return row === null ? undefined : eventOf(row);
}

/** The knowledge-base edits, imports and approvals between two revisions (from the audit trail), newest first. */
export async function readKnowledgeChanges(
  db: Database,
  fromRevision: number,
  toRevision: number,
  limit: number,
) {
  const rows = await db.auditEntry.findMany({
    where: { kbRevision: { gt: fromRevision, lte: toRevision } },
    orderBy: { id: "desc" },
    take: limit,
    select: { kbRevision: true, entity: true, key: true, action: true, actor: true },
  });
  return rows.map((row) => ({
    revision: row.kbRevision,
    entity: row.entity,
    key: row.key,
    action: row.action,
    actor: row.actor,
  }));
}
