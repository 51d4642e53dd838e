/**
 * `npx tsx bench/fleet.ts` (or BENCH_ONLY=fleet npm run bench): how long the fleet takes to judge itself
 * again. N clusters (BENCH_FLEET_CLUSTERS, default 200; a third on EKS 1.32) are registered in a fresh
 * database (DATABASE_URL's server, else an embedded PostgreSQL), then one knowledge edit turns the EKS 1.32
 * ones red: the pass that follows (judge every cluster, write what changed, queue the deliveries) is timed,
 * and so is a pass where nothing changed (a new day), against the same judgements made in process without
 * the database (validate and the upgrade plan only): the ratio is what storing and comparing cost.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import request from "supertest";
import { createApp } from "../src/app.js";
import { DEFAULT_FLEET_CONFIG } from "../src/core/fleet-config.js";
import { createLogger } from "../src/core/logger.js";
import { generateSecret, hashSecret, secretPrefix } from "../src/core/tokens.js";
import { createDatabase } from "../src/db/client.js";
import { startEmbeddedPostgres } from "../src/db/embedded-postgres.js";
import { migrate } from "../src/db/migrator.js";
import { insertToken } from "../src/db/token-store.js";
import { judgeFleetCluster } from "../src/domain/fleet.js";
import { startFleet } from "../src/fleet-runtime.js";
import { Authenticator } from "../src/services/authenticator.js";
import { Curator } from "../src/services/curation.js";
import { importKbDirectory } from "../src/services/import.js";
import { KnowledgeBase } from "../src/services/knowledge-base.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLUSTERS = Number(process.env.BENCH_FLEET_CLUSTERS ?? 200);
const VERSIONS = ["v1.32.9-eks-113cf36", "v1.34.2-eks-b1b1f8b", "v1.35.1-eks-3025e55"];
const ENVIRONMENTS = ["dev", "staging", "prod"];

function registration(index: number) {
  const version = VERSIONS[index % VERSIONS.length]!;
  return {
    name: `c-${index}`,
    environment: ENVIRONMENTS[index % ENVIRONMENTS.length]!,
    owner: `team-${index % 7}`,
    labels: { shard: String(index % 10) },
    source: "components",
    state: {
      platform: "eks",
      components: [
        { component: "kube-apiserver", version },
        { component: "kubelet", version, instance: "pool-a" },
        { component: "kubelet", version, instance: "pool-b" },
      ],
    },
  };
}

async function databaseUrl(): Promise<{ url: string; stop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL;
  const server =
    base === undefined
      ? await startEmbeddedPostgres({
          dataDir: path.join(os.tmpdir(), `kubecompat-bench-fleet-${process.pid}`),
          port: 54329,
          anotherPortIfBusy: true,
          database: "postgres",
        })
      : undefined;
  const admin = base ?? server!.url;
  const name = `kc_bench_fleet_${process.pid}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async stop() {
      const drop = new pg.Client({ connectionString: admin });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await drop.end();
      await server?.stop();
    },
  };
}

const elapsed = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;

export async function fleetBench(): Promise<string> {
  const logger = createLogger("silent");
  const database = await databaseUrl();
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    await migrate(database.url);
    const db = createDatabase(database.url, 4, logger);
    await importKbDirectory(db, path.join(ROOT, "kb"));
    const secret = generateSecret();
    await insertToken(
      db,
      {
        name: "bench",
        role: "editor",
        secretHash: hashSecret(secret),
        prefix: secretPrefix(secret),
      },
      { name: "bench", role: "admin" },
    );
    const kb = new KnowledgeBase(db);
    await kb.refresh();
    let day = "2026-12-06";
    const runtime = await startFleet({
      db,
      kb,
      databaseUrl: database.url,
      config: DEFAULT_FLEET_CONFIG,
      logger,
      clock: () => day,
      dayCheckMs: 3_600_000,
    });
    const fleet = runtime.fleet;
    const app = await createApp({
      kb,
      logger,
      isDatabaseReachable: () => Promise.resolve(true),
      curator: new Curator(db, kb),
      authenticator: new Authenticator(db, logger),
      fleet,
    });
    const port = (receiver.address() as AddressInfo).port;
    await fleet.alerts.subscribe({
      kind: "webhook",
      url: `http://127.0.0.1:${port}/hook`,
      secret: "bench-secret-of-enough-length",
      filters: {},
      createdBy: "bench",
    });

    let started = process.hrtime.bigint();
    for (let index = 0; index < CLUSTERS; index += 1) await fleet.register(registration(index));
    const registerMs = elapsed(started);

    // The same judgements in process, without the database: the floor of a pass.
    const snapshot = kb.current();
    started = process.hrtime.bigint();
    for (let index = 0; index < CLUSTERS; index += 1)
      judgeFleetCluster(snapshot, registration(index), registration(index).state, {
        asOf: day,
        waivers: [],
        policy: DEFAULT_FLEET_CONFIG,
      });
    const inProcessMs = elapsed(started);

    day = "2026-12-07";
    started = process.hrtime.bigint();
    await fleet.trigger();
    const quietPassMs = elapsed(started);

    const list = await request(app).get("/api/v1/platforms").expect(200);
    const items = (
      list.body as { items: Array<{ name: string; releases: Array<{ minor: string }> }> }
    ).items;
    const eks = items.find((item) => item.name === "eks")!;
    const releases = eks.releases.map((row) =>
      row.minor === "1.32" ? { ...row, endOfExtendedSupport: "2026-12-01" } : row,
    );
    await fleet.settled();
    started = process.hrtime.bigint();
    await request(app)
      .put("/api/v1/platforms/eks")
      .set("Authorization", `Bearer ${secret}`)
      .send({ ...eks, releases })
      .expect(200);
    await fleet.trigger();
    await fleet.settled();
    const editPassMs = elapsed(started);
    const events = (await fleet.events({ limit: 500 })).length;
    const deliveredBy = process.hrtime.bigint();
    while (received < events && elapsed(deliveredBy) < 60_000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const deliveryMs = elapsed(started);

    await runtime.stop();
    await db.$disconnect();
    const per = (ms: number) => (ms / CLUSTERS).toFixed(2);
    return [
      `Fleet (${CLUSTERS} clusters, node ${process.version}):`,
      "| measure | total ms | ms per cluster | vs in-process judging |",
      "|---|---:|---:|---:|",
      `| judging in process (validate + plan + deadlines, no database) | ${inProcessMs.toFixed(0)} | ${per(inProcessMs)} | 1.0x |`,
      `| registering one by one over the service | ${registerMs.toFixed(0)} | ${per(registerMs)} | ${(registerMs / inProcessMs).toFixed(1)}x |`,
      `| a pass where nothing changed (a new day) | ${quietPassMs.toFixed(0)} | ${per(quietPassMs)} | ${(quietPassMs / inProcessMs).toFixed(1)}x |`,
      `| one edit: its pass, ${events} events written and queued | ${editPassMs.toFixed(0)} | ${per(editPassMs)} | ${(editPassMs / inProcessMs).toFixed(1)}x |`,
      `| ... until the ${received} deliveries were received | ${deliveryMs.toFixed(0)} | | |`,
    ].join("\n");
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
    await database.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.stdout.write(`${await fleetBench()}\n`);
