/**
 * kubecompat with its fleet, as a replica runs it (own pool, snapshot, change
 * listener, delivery worker and fleet watch) on a database the test prepared,
 * with a clock the test moves; and a local webhook receiver in the real
 * shape: it checks each delivery's HMAC signature and counts what it got.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { createApp } from "../../src/app.js";
import type { Config } from "../../src/core/config.js";
import { DEFAULT_FLEET_CONFIG, type FleetConfig } from "../../src/core/fleet-config.js";
import { createLogger } from "../../src/core/logger.js";
import { createDatabase, type Database } from "../../src/db/client.js";
import { pingDatabase } from "../../src/db/health.js";
import { startFleet, type FleetRuntime } from "../../src/fleet-runtime.js";
import { Authenticator } from "../../src/services/authenticator.js";
import { Curator } from "../../src/services/curation.js";
import { signature } from "../../src/services/fleet-delivery.js";
import { KnowledgeBase } from "../../src/services/knowledge-base.js";
import { KbSync } from "../../src/services/sync.js";
import { migrate } from "../../src/db/migrator.js";
import { importKbDirectory } from "../../src/services/import.js";
import type { Role } from "../../src/core/tokens.js";
import request from "supertest";
import { createTestDatabase, type TestDatabase } from "./database.js";
import { KB_DIR, createTestToken } from "./runtime.js";

export interface FleetInstance {
  readonly app: Express;
  readonly db: Database;
  readonly kb: KnowledgeBase;
  readonly fleet: FleetRuntime;
  close(): Promise<void>;
}

/** Fast retries for tests: 2 retries, 1 s apart then 2 s. */
export const TEST_FLEET_CONFIG: FleetConfig = {
  ...DEFAULT_FLEET_CONFIG,
  deliveryRetries: 2,
  deliveryRetryDelaySeconds: 1,
  deliveryTimeoutMs: 2_000,
};

export async function startFleetInstance(
  url: string,
  options: {
    clock: () => string;
    config?: Partial<FleetConfig>;
    /** The chat endpoints' secrets and reviewers, and their budget (test/chatops-fleet.test.ts). */
    chatops?: Config["chatops"];
    rateLimits?: Config["rateLimits"];
  },
): Promise<FleetInstance> {
  const logger = createLogger("silent");
  const db = createDatabase(url, 4, logger);
  const kb = new KnowledgeBase(db);
  await kb.refresh();
  const sync = new KbSync(kb, url, logger, { pollMs: 500 });
  await sync.start();
  const fleet = await startFleet({
    db,
    kb,
    databaseUrl: url,
    config: { ...TEST_FLEET_CONFIG, ...options.config },
    logger,
    clock: options.clock,
    dayCheckMs: 200,
  });
  const app = await createApp({
    kb,
    logger,
    isDatabaseReachable: () => pingDatabase(db),
    curator: new Curator(db, kb),
    authenticator: new Authenticator(db, logger),
    freshness: sync,
    fleet: fleet.fleet,
    chatops: options.chatops,
    rateLimits: options.rateLimits,
  });
  return {
    app,
    db,
    kb,
    fleet,
    async close() {
      await fleet.stop();
      await sync.stop();
      await db.$disconnect();
    },
  };
}

export interface ReceivedDelivery {
  readonly path: string;
  readonly delivery: string;
  readonly signed: boolean;
  readonly validSignature: boolean;
  readonly body: {
    delivery?: number;
    event?: { kind: string; cluster: string; severity: string };
    text?: string;
  };
}

/** A webhook receiver on a loopback port: `fail` makes it answer 500 (and count the attempt). */
export interface Receiver {
  readonly url: string;
  readonly received: ReceivedDelivery[];
  readonly attempts: number;
  fail: boolean;
  close(): Promise<void>;
}

/** `secret` may be read when a delivery comes: a subscription that makes its own secret tells it later. */
export async function startReceiver(secret: string | (() => string)): Promise<Receiver> {
  const secretNow = typeof secret === "string" ? () => secret : secret;
  const received: ReceivedDelivery[] = [];
  let attempts = 0;
  const state = { fail: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      attempts += 1;
      if (state.fail) {
        res.writeHead(500).end("receiver down");
        return;
      }
      const body = Buffer.concat(chunks).toString("utf8");
      const timestamp = Number(req.headers["x-kubecompat-timestamp"]);
      const given = req.headers["x-kubecompat-signature"];
      received.push({
        path: req.url ?? "/",
        delivery: String(req.headers["x-kubecompat-delivery"]),
        signed: given !== undefined,
        // What a receiver does: recompute over timestamp.body and refuse a stale timestamp.
        validSignature:
          given === signature(secretNow(), timestamp, body) &&
          Math.abs(Date.now() / 1000 - timestamp) < 300,
        body: JSON.parse(body) as ReceivedDelivery["body"],
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    get attempts() {
      return attempts;
    },
    get fail() {
      return state.fail;
    },
    set fail(value: boolean) {
      state.fail = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A database for a fleet test: migrated, kb/ imported, and one token per name given (name → role). */
export async function createFleetDatabase<Name extends string>(
  roles: Readonly<Record<Name, Role>>,
): Promise<{ database: TestDatabase; tokens: Record<Name, string> }> {
  const database = await createTestDatabase();
  await migrate(database.url);
  const seed = createDatabase(database.url, 2, createLogger("silent"));
  try {
    await importKbDirectory(seed, KB_DIR);
    const tokens = {} as Record<Name, string>;
    for (const [name, role] of Object.entries(roles) as Array<[Name, Role]>)
      tokens[name] = await createTestToken({ db: seed }, name, role);
    return { database, tokens };
  } finally {
    await seed.$disconnect();
  }
}

/** EKS moves a minor's dates: an edit of the knowledge base like any other (an editor's PUT); answers its revision. */
export async function editEksRow(
  app: Express,
  editor: string,
  minor: string,
  change: Readonly<Record<string, string>>,
): Promise<number> {
  const list = await request(app).get("/api/v1/platforms").expect(200);
  const items = (
    list.body as { items: Array<{ name: string; releases: Array<{ minor: string }> }> }
  ).items;
  const eks = items.find((item) => item.name === "eks")!;
  const releases = eks.releases.map((row) => (row.minor === minor ? { ...row, ...change } : row));
  const answer = await request(app)
    .put("/api/v1/platforms/eks")
    .set("Authorization", `Bearer ${editor}`)
    .send({ ...eks, releases })
    .expect(200);
  return (answer.body as { kbRevision: number }).kbRevision;
}
