/**
 * The database goes away and comes back, for real: the test runs its own
 * PostgreSQL (so stopping it disturbs no other test file) under the full
 * app. While it is down, reads answer 200 from the in-memory snapshot and
 * say they may be stale, /readyz says not ready without hanging, writes and
 * unknown tokens get 503 UNAVAILABLE with Retry-After (never 500, never
 * 401 for a token that could not be checked), tokens seen before keep
 * reading. When it is back, everything recovers without a restart: ready
 * again, the stale header gone, writes accepted, and the change listener
 * reconnected (a replica that only learns of changes by NOTIFY sees one).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { startInstance, type Instance } from "../support/instance.js";
import { createDatabase } from "../../src/db/client.js";
import { migrate } from "../../src/db/migrator.js";
import { importKbDirectory } from "../../src/services/import.js";
import { createLogger } from "../../src/core/logger.js";
import { eventually } from "../support/eventually.js";
import { startOwnPostgres, type OwnPostgres } from "../support/own-postgres.js";
import { KB_DIR, createTestToken } from "../support/runtime.js";

const CRONJOB = "batch/v1beta1 CronJob";
const STALE = "x-kubecompat-stale";
const VALIDATE = {
  components: [
    { component: "apiserver", version: "1.30" },
    { component: "kubelet", version: "1.26", instance: "pool-b" },
  ],
};
const GQL_VALIDATE = `query($plan: ClusterPlanInput!) { validateCluster(plan: $plan) { ok kbRevision findings { code } } }`;
const GQL_UPDATE = `mutation($key: String!, $revision: Int!, $record: JSONObject!) {
  updateRecord(entity: API_REMOVALS, key: $key, revision: $revision, record: $record) { key kbRevision record } }`;
// Well-formed, never issued: only the database can say it is unknown.
const UNKNOWN_TOKEN = `kc_${"Q".repeat(43)}`;

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

async function cronJob(app: Express): Promise<Record<string, unknown>> {
  const list = await request(app).get("/api/v1/api-removals").expect(200);
  const item = (list.body.items as Array<Record<string, unknown>>).find(
    (entry) => `${String(entry.apiVersion)} ${String(entry.kind)}` === CRONJOB,
  );
  assert.ok(item, `${CRONJOB} is not in the knowledge base`);
  return item;
}

function assertUnavailable(response: request.Response, what: string): void {
  assert.equal(
    response.status,
    503,
    `${what}: expected 503, got ${response.status} ${JSON.stringify(response.body)}`,
  );
  assert.equal(response.body.error?.code, "UNAVAILABLE", what);
  assert.match(String(response.headers["retry-after"]), /^\d+$/, `${what}: no Retry-After header`);
}

describe("the database becomes unavailable and comes back", () => {
  let pg: OwnPostgres;
  let main: Instance;
  // Polls once a minute: within the test it learns of changes only through LISTEN/NOTIFY.
  let replica: Instance;
  let editor: string;
  let reader: string;

  before(async () => {
    pg = await startOwnPostgres("kubecompat_failures");
    await migrate(pg.url);
    const seed = createDatabase(pg.url, 2, createLogger("silent"));
    try {
      await importKbDirectory(seed, KB_DIR);
    } finally {
      await seed.$disconnect();
    }
    // A short token cache, so that the outage outlasts it: tokens are then known only from before the outage.
    main = await startInstance(pg.url, 200, { authenticator: { cacheMs: 100 } });
    replica = await startInstance(pg.url, 60_000, { authenticator: { cacheMs: 100 } });
    editor = await createTestToken(main, "editor-bot", "editor");
    reader = await createTestToken(main, "reader-bot", "reader");
  });

  after(async () => {
    for (const instance of [main, replica]) {
      await instance?.sync.stop();
      await instance?.db.$disconnect();
    }
    await pg?.destroy();
  });

  it("answers normally while the database is up (and sees both tokens)", async () => {
    const list = await request(main.app)
      .get("/api/v1/api-removals")
      .set(bearer(reader))
      .expect(200);
    assert.equal(list.headers[STALE], undefined);
    // Seen before the outage, the editor token is known during it: writes then get as far as the database.
    await request(main.app).get("/api/v1/kb").set(bearer(editor)).expect(200);
    const ready = await request(main.app).get("/readyz").expect(200);
    assert.equal(ready.body.database, "reachable");
    assert.equal(main.sync.listening, true);
    assert.equal(replica.sync.listening, true);
  });

  it("while it is down, reads answer 200 from memory with X-Kubecompat-Stale: true", async (t) => {
    await pg.stop();
    const stopped = Date.now();
    await eventually(
      "the main instance noticed the outage (stale header on reads)",
      async () =>
        (await request(main.app).get("/api/v1/api-removals")).headers[STALE] === "true"
          ? true
          : undefined,
      { withinMs: 10_000 },
    );
    const noticedMs = Date.now() - stopped;
    const removals = await request(main.app).get("/api/v1/api-removals").expect(200);
    assert.equal(removals.headers[STALE], "true");
    assert.ok(removals.body.items.length > 0);
    assert.match(String(removals.headers.warning), /^110 /);

    const validate = await request(main.app).post("/api/v1/validate").send(VALIDATE).expect(200);
    assert.equal(validate.headers[STALE], "true");
    assert.equal(validate.body.ok, false);
    assert.ok(
      validate.body.findings.some(
        (finding: { code: string }) => finding.code === "SKEW_KUBELET_TOO_OLD_FOR_APISERVER",
      ),
    );

    const graphql = await request(main.app)
      .post("/graphql")
      .send({ query: GQL_VALIDATE, variables: { plan: VALIDATE } })
      .expect(200);
    assert.equal(graphql.headers[STALE], "true");
    assert.equal(graphql.body.errors, undefined);
    assert.equal(graphql.body.data.validateCluster.ok, false);

    // The replica polls once a minute: only its change listener losing the connection can tell it.
    await eventually(
      "the replica noticed the outage through its change listener",
      async () =>
        (await request(replica.app).get("/api/v1/kb")).headers[STALE] === "true" ? true : undefined,
      { withinMs: 10_000 },
    );
    t.diagnostic(
      `outage noticed ${noticedMs} ms after the database stopped (main, polling every 200 ms), ${Date.now() - stopped} ms (replica, by its listener)`,
    );
  });

  it("while it is down, /readyz answers 503 not ready (database unreachable) without hanging", async () => {
    // The ping gives up after 2 s; 6 s only detects a hang.
    const ready = await request(main.app).get("/readyz").timeout(6_000);
    assert.equal(ready.status, 503);
    assert.equal(ready.body.status, "not ready");
    assert.equal(ready.body.database, "unreachable");
    assert.equal(ready.body.knowledgeBase.loaded, true);
  });

  it("while it is down, writes answer 503 UNAVAILABLE with Retry-After, never 500", async () => {
    const item = await cronJob(main.app);
    const put = await request(main.app)
      .put(`/api/v1/api-removals/${encodeURIComponent(CRONJOB)}`)
      .set(bearer(editor))
      .send({ ...item, notes: "written during the outage" })
      .timeout(15_000);
    assertUnavailable(put, "PUT /api/v1/api-removals");

    const { revision, kbRevision: _kbRevision, ...record } = item;
    const mutation = await request(main.app)
      .post("/graphql")
      .set(bearer(editor))
      .send({
        query: GQL_UPDATE,
        variables: {
          key: CRONJOB,
          revision,
          record: { ...record, notes: "written during the outage" },
        },
      })
      .timeout(15_000);
    assert.notEqual(mutation.status, 500);
    assert.equal(
      mutation.body.errors?.[0]?.extensions?.code,
      "UNAVAILABLE",
      JSON.stringify(mutation.body),
    );
    assert.equal(mutation.body.data, null);
  });

  it("while it is down, GraphQL updateRecord answers HTTP 503 with Retry-After", async () => {
    const item = await cronJob(main.app);
    const { revision, kbRevision: _kbRevision, ...record } = item;
    const mutation = await request(main.app)
      .post("/graphql")
      .set(bearer(editor))
      .send({ query: GQL_UPDATE, variables: { key: CRONJOB, revision, record } })
      .timeout(15_000);
    assert.equal(mutation.status, 503);
    assert.match(String(mutation.headers["retry-after"]), /^\d+$/);
  });

  it("while it is down, a token seen before keeps reading; an unknown one gets 503, not 401", async () => {
    const known = await request(main.app)
      .get("/api/v1/api-removals")
      .set(bearer(reader))
      .timeout(15_000);
    assert.equal(known.status, 200, JSON.stringify(known.body));
    assert.equal(known.headers[STALE], "true");

    const unknown = await request(main.app)
      .get("/api/v1/api-removals")
      .set(bearer(UNKNOWN_TOKEN))
      .timeout(15_000);
    assertUnavailable(unknown, "a read with a token the database could not check");

    // What needs no database is still decided: a malformed header is the caller's to fix.
    const malformed = await request(main.app)
      .get("/api/v1/api-removals")
      .set("Authorization", "Token abc")
      .expect(401);
    assert.equal(malformed.body.error.code, "UNAUTHENTICATED");
  });

  it("when it is back, everything recovers without a restart", async (t) => {
    await pg.start();
    const restarted = Date.now();
    await eventually(
      "/readyz answers 200 again",
      async () => ((await request(main.app).get("/readyz")).status === 200 ? true : undefined),
      {
        withinMs: 15_000,
      },
    );
    await eventually(
      "the stale header is gone",
      async () =>
        (await request(main.app).get("/api/v1/api-removals")).headers[STALE] === undefined
          ? true
          : undefined,
      { withinMs: 15_000 },
    );
    const recoveredMs = Date.now() - restarted;

    const item = await cronJob(main.app);
    const put = await request(main.app)
      .put(`/api/v1/api-removals/${encodeURIComponent(CRONJOB)}`)
      .set(bearer(editor))
      .send({ ...item, notes: "written after the outage" });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.headers[STALE], undefined);

    // The replica's listener reconnects by itself; then a change notified now reaches it (its poll is a minute away).
    await eventually(
      "the replica's change listener reconnected",
      () => (replica.sync.listening ? true : undefined),
      { withinMs: 15_000 },
    );
    const listenerMs = Date.now() - restarted;
    // Reconnected, it checks the database at once: the replica stops saying it may be stale.
    await eventually(
      "the replica's stale header is gone",
      async () =>
        (await request(replica.app).get("/api/v1/kb")).headers[STALE] === undefined
          ? true
          : undefined,
      { withinMs: 5_000 },
    );
    const edited = await cronJob(main.app);
    const { revision, kbRevision: _kbRevision, ...record } = edited;
    const mutation = await request(main.app)
      .post("/graphql")
      .set(bearer(editor))
      .send({
        query: GQL_UPDATE,
        variables: {
          key: CRONJOB,
          revision,
          record: { ...record, notes: "notified after the outage" },
        },
      })
      .expect(200);
    assert.equal(mutation.body.errors, undefined, JSON.stringify(mutation.body.errors));
    const revisionAfter = mutation.body.data.updateRecord.kbRevision as number;
    let seen = -1;
    await eventually(
      "the replica serves the change notified after the restart",
      async () => {
        seen = (await request(replica.app).get("/api/v1/kb").expect(200)).body.revision as number;
        return seen === revisionAfter ? true : undefined;
      },
      { withinMs: 3_000, last: () => `revision ${seen}, expected ${revisionAfter}` },
    );
    assert.equal((await cronJob(replica.app)).notes, "notified after the outage");
    t.diagnostic(
      `recovered ${recoveredMs} ms after the database restarted (ready, not stale); the replica listened again after ${listenerMs} ms`,
    );
  });
});
