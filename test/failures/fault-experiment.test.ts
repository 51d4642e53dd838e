/**
 * The fault experiment of issue 11 ("Nothing curated is ever lost") as a
 * test, against real PostgreSQL processes that the test starts and kills.
 *
 * 1. Two instances on a PostgreSQL of the test's own: A polls every 200 ms,
 *    B once a minute (within the test it learns of changes only through
 *    LISTEN/NOTIFY). A bounded stream of edits (creates of new
 *    recommendations, each with its own Idempotency-Key, over REST on both
 *    and over GraphQL on A) and reads (REST and GraphQL, on both) runs for
 *    about 12 s; in its middle PostgreSQL is killed with SIGKILL, stays
 *    down 3 s, and is started again on the same data directory (crash
 *    recovery). Every answer is recorded. Then: no 500 ever; every refusal
 *    is 503 UNAVAILABLE with a numeric Retry-After; reads kept answering
 *    200, marked stale, during the outage; both instances are ready and
 *    not stale again after the restart; every refused edit, retried with
 *    its Idempotency-Key, ends 201 (replayed exactly when it had in fact
 *    committed), never a 409 or a duplicate; every acknowledged edit is in
 *    the database with exactly one audit entry, and no audit entry names a
 *    record that is not there; an edit on A after the recovery reaches B
 *    within 3 s.
 * 2. SIGTERM under load on the real server process: GraphQL scans of large
 *    manifests (two running, more waiting for a large-request slot),
 *    GraphQL validateCluster queries and REST and GraphQL edits are in
 *    flight when the signal comes. None of those that reached the server
 *    is answered 500 (as Apollo did when it stopped on the signal itself)
 *    or cut off; every acknowledged edit is in the database.
 *
 * The figures of each run go out as diagnostics, one line each.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import { after, before, describe, it, type TestContext } from "node:test";
import pg from "pg";
import request from "supertest";
import { createDatabase } from "../../src/db/client.js";
import { freePort } from "../../src/db/embedded-postgres.js";
import { migrate } from "../../src/db/migrator.js";
import { importKbDirectory } from "../../src/services/import.js";
import { createLogger } from "../../src/core/logger.js";
import { startCrashablePostgres, type CrashablePostgres } from "../support/crashable-postgres.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { eventually, sleep } from "../support/eventually.js";
import { startInstance, type Instance } from "../support/instance.js";
import { KB_DIR, createTestToken } from "../support/runtime.js";
import { spawnServer, waitUntilReady, type ServerProcess } from "../support/server-process.js";

const STALE = "x-kubecompat-stale";
const RUN = crypto.randomBytes(3).toString("hex");
const EDITOR = "fault-editor";

// The stream: the kill comes after KILL_AFTER_MS, the restart OUTAGE_MS later; it goes on AFTER_RECOVERY_MS once both are ready.
const KILL_AFTER_MS = 4_000;
const OUTAGE_MS = 3_000;
const AFTER_RECOVERY_MS = 2_500;
// Bounded counts (the write limit is 120 a minute per token and instance; retries and the convergence edit come on top).
const MAX_WRITES_PER_WRITER = 40;
const MAX_READS_PER_READER = 400;
// Each writer starts one edit every so often, whatever the answers (refusals come fast): about 100 edits in all.
const WRITE_EVERY_MS: Readonly<Record<string, number>> = {
  "A rest": 350,
  "B rest": 350,
  "A graphql": 600,
};
const READ_PAUSE_MS = 30;
// Hang detectors, not timing requirements.
const REQUEST_TIMEOUT_MS = 20_000;
const CONVERGE_WITHIN_MS = 3_000;

const VALIDATE = {
  components: [
    { component: "apiserver", version: "1.30" },
    { component: "kubelet", version: "1.26", instance: "pool-b" },
  ],
};
const GQL_VALIDATE = `query($plan: ClusterPlanInput!) { validateCluster(plan: $plan) { ok kbRevision findings { code } } }`;
const GQL_SUMMARY = `{ knowledgeBase { revision } recommendations { id } }`;
const GQL_CREATE = `mutation($record: JSONObject!, $key: String) {
  createRecord(entity: RECOMMENDATIONS, record: $record, idempotencyKey: $key) { key kbRevision replayed record } }`;

type Face = "rest" | "graphql";
type InstanceName = "A" | "B";

/** One answer (or the lack of one) the stream recorded. */
interface Answer {
  readonly kind: "read" | "write";
  readonly face: Face;
  readonly instance: InstanceName;
  readonly label: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status?: number;
  /** 2xx, and over GraphQL data without errors. */
  readonly ok: boolean;
  readonly retryAfter?: string;
  readonly stale: boolean;
  /** REST error.code, or GraphQL errors[0].extensions.code. */
  readonly code?: string;
  readonly replayed: boolean;
  /** No answer at all (timeout, reset). */
  readonly error?: string;
  readonly body: string;
}

interface Write {
  readonly id: string;
  readonly idempotencyKey: string;
  readonly instance: InstanceName;
  readonly face: Face;
  readonly record: Record<string, unknown>;
  readonly first: Answer;
  retry?: Answer;
  /** Whether the database had it before the retry. */
  committedBeforeRetry?: boolean;
}

function recommendation(id: string): Record<string, unknown> {
  return {
    id,
    title: `Fault experiment record ${id}`,
    components: ["kubelet"],
    phase: "NODE_UPGRADE",
    appliesFrom: null,
    appliesUntil: null,
    text: `Written by the fault experiment (${id}); it must survive a database crash.`,
    sourceUrl: "https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/",
    notes: null,
  };
}

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

function describeAnswer(answer: Answer): string {
  return (
    `${answer.kind} ${answer.label} on ${answer.instance} at +${answer.startedAt}..${answer.endedAt} ms: ${answer.status ?? answer.error} ` +
    `retry-after=${answer.retryAfter ?? "-"} stale=${answer.stale} code=${answer.code ?? "-"} ${answer.body.slice(0, 400)}`
  );
}

function describe503s(answers: readonly Answer[]): string {
  return answers.slice(0, 5).map(describeAnswer).join("\n");
}

/** Sends one request, never throws: what came back (or did not) is the answer. */
async function send(
  origin: number,
  kind: Answer["kind"],
  face: Face,
  instance: InstanceName,
  label: string,
  test: () => request.Test,
  isOk: (response: request.Response) => boolean,
): Promise<Answer> {
  const startedAt = Date.now() - origin;
  try {
    const response = await test().timeout(REQUEST_TIMEOUT_MS);
    const body = response.body as
      | { error?: { code?: string }; errors?: Array<{ extensions?: { code?: string } }> }
      | undefined;
    const code = face === "rest" ? body?.error?.code : body?.errors?.[0]?.extensions?.code;
    const retryAfter = response.headers["retry-after"];
    return {
      kind,
      face,
      instance,
      label,
      startedAt,
      endedAt: Date.now() - origin,
      status: response.status,
      ok: response.status >= 200 && response.status < 300 && isOk(response),
      retryAfter,
      stale: response.headers[STALE] === "true",
      code,
      replayed:
        response.headers["idempotent-replayed"] === "true" ||
        (response.body as { data?: { createRecord?: { replayed?: boolean } } } | undefined)?.data
          ?.createRecord?.replayed === true,
      body: response.text ?? "",
    };
  } catch (error) {
    return {
      kind,
      face,
      instance,
      label,
      startedAt,
      endedAt: Date.now() - origin,
      ok: false,
      stale: false,
      replayed: false,
      error: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
      body: "",
    };
  }
}

const graphqlOk = (response: request.Response): boolean =>
  (response.body as { errors?: unknown }).errors === undefined &&
  (response.body as { data?: unknown }).data != null;

async function sql<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

interface Stored {
  /** recommendationId → title */
  readonly records: Map<string, string>;
  /** key → number of recommendations.create audit entries */
  readonly audits: Map<string, number>;
  /** key → number of idempotent-edit rows of the editor */
  readonly idempotent: Map<string, number>;
}

async function stored(url: string, prefix: string, actor: string): Promise<Stored> {
  const like = `${prefix}%`;
  const records = await sql<{ id: string; title: string }>(
    url,
    `SELECT "recommendationId" AS id, title FROM "Recommendation" WHERE "recommendationId" LIKE $1`,
    [like],
  );
  const audits = await sql<{ key: string; n: number }>(
    url,
    `SELECT key, count(*)::int AS n FROM "AuditEntry" WHERE action = 'recommendations.create' AND entity = 'recommendations' AND key LIKE $1 GROUP BY key`,
    [like],
  );
  const idempotent = await sql<{ id: string; n: number }>(
    url,
    `SELECT a.key AS id, count(*)::int AS n FROM "IdempotentEdit" i JOIN "AuditEntry" a ON a.id = i."auditEntryId" WHERE i.actor = $1 AND a.key LIKE $2 GROUP BY a.key`,
    [actor, like],
  );
  return {
    records: new Map(records.map((row) => [row.id, row.title])),
    audits: new Map(audits.map((row) => [row.key, row.n])),
    idempotent: new Map(idempotent.map((row) => [row.id, row.n])),
  };
}

/** Records without exactly one create audit entry, and audit entries of records that are not there. */
function halfApplied(state: Stored): string[] {
  const problems: string[] = [];
  for (const id of state.records.keys()) {
    const audits = state.audits.get(id) ?? 0;
    if (audits !== 1)
      problems.push(`${id}: stored with ${audits} recommendations.create audit entries`);
  }
  for (const [key, count] of state.audits) {
    if (!state.records.has(key))
      problems.push(`${key}: ${count} audit entries, but no such record`);
  }
  return problems;
}

describe("fault experiment: PostgreSQL killed with SIGKILL under a stream of edits and reads, then restarted", () => {
  let pgServer: CrashablePostgres;
  let instances: Record<InstanceName, Instance>;
  let editor: string;
  const prefix = `fx-${RUN}-`;
  const writes: Write[] = [];
  const answers: Answer[] = [];
  const timeline = {
    killedAt: 0,
    noticedAt: 0,
    restartAt: 0,
    postgresUpAt: 0,
    aReadyAt: 0,
    recoveredAt: 0,
    end: 0,
  };
  let origin = 0;

  before(async () => {
    pgServer = await startCrashablePostgres("kubecompat_fault");
    await migrate(pgServer.url);
    const seed = createDatabase(pgServer.url, 2, createLogger("silent"));
    try {
      await importKbDirectory(seed, KB_DIR);
    } finally {
      await seed.$disconnect();
    }
    instances = {
      A: await startInstance(pgServer.url, 200),
      B: await startInstance(pgServer.url, 60_000),
    };
    editor = await createTestToken(instances.A, EDITOR, "editor");
    // What migrations and the import wrote is checkpointed: crash recovery replays only the stream's own WAL.
    await sql(pgServer.url, "CHECKPOINT");
    // Both instances see the token before the outage (during it, a token seen before is still known).
    for (const instance of Object.values(instances)) {
      await request(instance.app).get("/api/v1/kb").set(bearer(editor)).expect(200);
    }
  });

  after(async () => {
    for (const instance of Object.values(instances ?? {})) {
      await instance.sync.stop();
      await instance.db.$disconnect();
    }
    await pgServer?.destroy();
  });

  function createOn(
    instance: InstanceName,
    face: Face,
    id: string,
    idempotencyKey: string,
    record: Record<string, unknown>,
  ): Promise<Answer> {
    const { app } = instances[instance];
    if (face === "rest") {
      return send(
        origin,
        "write",
        "rest",
        instance,
        "POST /api/v1/recommendations",
        () =>
          request(app)
            .post("/api/v1/recommendations")
            .set(bearer(editor))
            .set("Idempotency-Key", idempotencyKey)
            .send(record),
        (response) =>
          response.status === 201 && (response.body as { item?: { id?: string } }).item?.id === id,
      );
    }
    return send(
      origin,
      "write",
      "graphql",
      instance,
      "POST /graphql createRecord",
      () =>
        request(app)
          .post("/graphql")
          .set(bearer(editor))
          .send({ query: GQL_CREATE, variables: { record, key: idempotencyKey } }),
      (response) =>
        graphqlOk(response) &&
        (response.body as { data: { createRecord: { key: string } } }).data.createRecord.key === id,
    );
  }

  it("keeps answering through the crash: no 500, refusals are 503 UNAVAILABLE with Retry-After, reads 200 (stale) during the outage", async (t) => {
    let stopping = false;
    origin = Date.now();

    const writer = async (instance: InstanceName, face: Face): Promise<void> => {
      const every = WRITE_EVERY_MS[`${instance} ${face}`]!;
      for (let n = 0; n < MAX_WRITES_PER_WRITER && !stopping; n += 1) {
        await sleep(Math.max(0, n * every - (Date.now() - origin)));
        if (stopping) break;
        const id = `${prefix}${instance.toLowerCase()}-${face}-${n}`;
        const idempotencyKey = crypto.randomUUID();
        const record = recommendation(id);
        const first = await createOn(instance, face, id, idempotencyKey, record);
        answers.push(first);
        writes.push({ id, idempotencyKey, instance, face, record, first });
      }
    };
    const reader = async (instance: InstanceName, face: Face): Promise<void> => {
      const { app } = instances[instance];
      for (let n = 0; n < MAX_READS_PER_READER && !stopping; n += 1) {
        let answer: Answer;
        if (face === "rest") {
          const path = n % 2 === 0 ? "/api/v1/recommendations" : "/api/v1/kb";
          answer = await send(
            origin,
            "read",
            "rest",
            instance,
            `GET ${path}`,
            () => request(app).get(path),
            (response) => response.status === 200,
          );
        } else {
          const [label, body] =
            n % 2 === 0
              ? ["POST /graphql knowledgeBase+recommendations", { query: GQL_SUMMARY }]
              : [
                  "POST /graphql validateCluster",
                  { query: GQL_VALIDATE, variables: { plan: VALIDATE } },
                ];
          answer = await send(
            origin,
            "read",
            "graphql",
            instance,
            label,
            () => request(app).post("/graphql").send(body),
            graphqlOk,
          );
        }
        answers.push(answer);
        await sleep(READ_PAUSE_MS);
      }
    };

    const streams = Promise.all([
      writer("A", "rest"),
      writer("B", "rest"),
      writer("A", "graphql"),
      reader("A", "rest"),
      reader("B", "rest"),
      reader("A", "graphql"),
      reader("B", "graphql"),
    ]);
    const since = () => Date.now() - origin;
    let crash: { pid: number; backendsLeft: number } | undefined;
    try {
      await sleep(KILL_AFTER_MS);
      timeline.killedAt = since();
      crash = await pgServer.kill();
      await eventually(
        "both instances noticed the crash (stale header on reads)",
        async () => {
          const stale = await Promise.all(
            Object.values(instances).map(
              async (instance) =>
                (await request(instance.app).get("/api/v1/kb")).headers[STALE] === "true",
            ),
          );
          return stale.every(Boolean) ? true : undefined;
        },
        { withinMs: 10_000, everyMs: 20 },
      );
      timeline.noticedAt = since();
      await sleep(Math.max(0, timeline.killedAt + OUTAGE_MS - since()));
    } finally {
      timeline.restartAt = since();
      if (!pgServer.running) await pgServer.start();
      timeline.postgresUpAt = since();
    }
    try {
      await eventually(
        "A's /readyz answers 200 again",
        async () =>
          (await request(instances.A.app).get("/readyz")).status === 200 ? true : undefined,
        {
          withinMs: 15_000,
          everyMs: 20,
        },
      );
      timeline.aReadyAt = since();
      await eventually(
        "both instances are ready and not stale again",
        async () => {
          const states = await Promise.all(
            Object.values(instances).map(async (instance) => {
              const ready = await request(instance.app).get("/readyz");
              const read = await request(instance.app).get("/api/v1/kb");
              return (
                ready.status === 200 && read.status === 200 && read.headers[STALE] === undefined
              );
            }),
          );
          return states.every(Boolean) ? true : undefined;
        },
        { withinMs: 15_000, everyMs: 20 },
      );
      timeline.recoveredAt = since();
      await sleep(AFTER_RECOVERY_MS);
    } finally {
      stopping = true;
      await streams;
      timeline.end = since();
    }
    // Counted by when each write began: begun before the kill, answered after it.
    const writesInFlightAtKill = writes.filter(
      (write) =>
        write.first.startedAt < timeline.killedAt && write.first.endedAt > timeline.killedAt,
    ).length;

    const reads = answers.filter((answer) => answer.kind === "read");
    const writeAnswers = answers.filter((answer) => answer.kind === "write");
    const refused = answers.filter((answer) => !answer.ok);
    const duringOutage = reads.filter(
      (answer) => answer.startedAt >= timeline.noticedAt && answer.endedAt <= timeline.restartAt,
    );
    const afterRecovery = answers.filter((answer) => answer.startedAt >= timeline.recoveredAt);
    const refusedWrites = writeAnswers.filter((answer) => !answer.ok);
    const slowestRefusal = Math.max(
      0,
      ...refusedWrites.map((answer) => answer.endedAt - answer.startedAt),
    );
    t.diagnostic(
      `fault stream: ${answers.length} requests in ${timeline.end} ms (${writeAnswers.length} writes, ${reads.length} reads); ` +
        `SIGKILL to postmaster ${crash?.pid} at +${timeline.killedAt} ms (${writesInFlightAtKill} writes in flight, ${crash?.backendsLeft ?? "?"} backends left after it), ` +
        `noticed by both +${timeline.noticedAt - timeline.killedAt} ms after it, restart at +${timeline.restartAt} ms (crash recovery took ${timeline.postgresUpAt - timeline.restartAt} ms)`,
    );
    t.diagnostic(
      `fault answers: ${answers.filter((answer) => answer.status === 500).length} answered 500, ${answers.filter((answer) => answer.error !== undefined).length} unanswered, ` +
        `${refusedWrites.length} writes refused with 503 (slowest refusal ${slowestRefusal} ms), ${reads.filter((answer) => !answer.ok).length} reads failed`,
    );
    t.diagnostic(
      `fault reads during the outage: ${duringOutage.length} served, ${duringOutage.filter((answer) => answer.ok && answer.status === 200).length} with 200, ` +
        `${duringOutage.filter((answer) => answer.stale).length} marked X-Kubecompat-Stale: true`,
    );
    t.diagnostic(
      `fault recovery: A ready ${timeline.aReadyAt - timeline.restartAt} ms after the restart began (${timeline.aReadyAt - timeline.postgresUpAt} ms after PostgreSQL accepted connections); ` +
        `both ready and not stale after ${timeline.recoveredAt - timeline.restartAt} ms`,
    );

    // Never a 500, never no answer.
    assert.deepEqual(
      answers
        .filter((answer) => answer.status === 500 || answer.error !== undefined)
        .map(describeAnswer),
      [],
      "requests answered 500 or not at all",
    );
    // Every refusal is the database's absence, said as such: 503 UNAVAILABLE with a numeric Retry-After.
    const badRefusals = refused.filter(
      (answer) =>
        answer.status !== 503 ||
        !/^\d+$/.test(answer.retryAfter ?? "") ||
        answer.code !== "UNAVAILABLE",
    );
    assert.deepEqual(
      badRefusals.map(describeAnswer),
      [],
      "refusals that are not 503 UNAVAILABLE with Retry-After",
    );
    // Reads never need the database.
    assert.deepEqual(
      reads.filter((answer) => !answer.ok).map(describeAnswer),
      [],
      "reads that failed",
    );
    assert.ok(
      duringOutage.length >= 20,
      `too few reads during the outage to tell anything: ${duringOutage.length}`,
    );
    assert.deepEqual(
      duringOutage.filter((answer) => answer.status !== 200 || !answer.stale).map(describeAnswer),
      [],
      "reads during the outage must answer 200 with X-Kubecompat-Stale: true",
    );
    // Before the kill and after the recovery everything succeeds, and nothing says it may be stale after it.
    assert.deepEqual(
      answers
        .filter((answer) => answer.endedAt < timeline.killedAt && !answer.ok)
        .map(describeAnswer),
      [],
      "failures before the kill",
    );
    assert.deepEqual(
      afterRecovery.filter((answer) => !answer.ok || answer.stale).map(describeAnswer),
      [],
      "failures or stale answers after the recovery",
    );
    assert.ok(
      afterRecovery.some((answer) => answer.kind === "write"),
      "no write after the recovery",
    );
    // The experiment did what it says: writes acknowledged before, refused during the outage.
    assert.ok(
      writeAnswers.filter((answer) => answer.ok && answer.endedAt < timeline.killedAt).length >= 5,
      "too few writes acknowledged before the kill",
    );
    const outageWrites = writeAnswers.filter(
      (answer) => answer.startedAt >= timeline.noticedAt && answer.endedAt <= timeline.restartAt,
    );
    assert.ok(outageWrites.length > 0, "no write during the outage");
    assert.deepEqual(
      outageWrites.filter((answer) => answer.ok).map(describeAnswer),
      [],
      "writes acknowledged while the database was down",
    );
    assert.ok(
      refusedWrites.every((answer) => answer.status === 503),
      describe503s(refusedWrites),
    );
  });

  it("refused writes retried with their Idempotency-Key after the recovery end 201 (replayed exactly when they had committed), never 409, never twice", async (t) => {
    const refused = writes.filter((write) => !write.first.ok);
    assert.ok(refused.length > 0, "no write was refused: nothing to retry");
    const before = await stored(pgServer.url, prefix, EDITOR);
    // All at once, as clients told to come back after Retry-After would.
    await Promise.all(
      refused.map(async (write) => {
        write.committedBeforeRetry = before.records.has(write.id);
        write.retry = await createOn(
          write.instance,
          write.face,
          write.id,
          write.idempotencyKey,
          write.record,
        );
        answers.push(write.retry);
      }),
    );
    const committed = refused.filter((write) => write.committedBeforeRetry === true);
    const replayed = refused.filter((write) => write.retry?.replayed === true);
    t.diagnostic(
      `fault retries: ${refused.length} refused writes retried with the same Idempotency-Key: ${refused.filter((write) => write.retry?.ok).length} acknowledged ` +
        `(${replayed.length} replayed answers, ${committed.length} had committed before their 503), ` +
        `${refused.filter((write) => write.retry?.status === 409 || write.retry?.code === "CONFLICT").length} answered 409`,
    );
    assert.deepEqual(
      refused
        .filter((write) => !write.retry?.ok)
        .map((write) => `${write.id}: ${describeAnswer(write.retry!)}`),
      [],
      "retries that did not end 201 (or the replayed answer)",
    );
    // A 503 for an edit that had committed (connection lost during COMMIT) is answered from the stored result; any other is applied now.
    assert.deepEqual(
      refused
        .filter((write) => write.retry?.replayed !== write.committedBeforeRetry)
        .map(
          (write) =>
            `${write.id}: committed ${write.committedBeforeRetry}, replayed ${write.retry?.replayed}`,
        ),
      [],
      "a retry must be replayed exactly when the first attempt had committed",
    );
    // Once more: the stored answer, not a 409 and not a second record.
    const again = await createOn(
      refused[0]!.instance,
      refused[0]!.face,
      refused[0]!.id,
      refused[0]!.idempotencyKey,
      refused[0]!.record,
    );
    assert.equal(again.ok, true, describeAnswer(again));
    assert.equal(again.replayed, true, describeAnswer(again));
  });

  it("loses no acknowledged write and half-applies none (checked with SQL); both instances serve all of them", async (t) => {
    const state = await stored(pgServer.url, prefix, EDITOR);
    const acknowledged = writes.filter((write) => write.first.ok || write.retry?.ok === true);
    const lost = acknowledged.filter((write) => state.records.get(write.id) !== write.record.title);
    const problems = halfApplied(state);
    const attempted = new Set(writes.map((write) => write.id));
    const unexpected = [...state.records.keys()].filter((id) => !attempted.has(id));
    const idempotencyProblems = [...state.records.keys()].filter(
      (id) => state.idempotent.get(id) !== 1,
    );
    t.diagnostic(
      `fault database: ${writes.length} writes attempted, ${acknowledged.length} acknowledged (${writes.filter((write) => write.first.ok).length} at once, ` +
        `${writes.filter((write) => !write.first.ok && write.retry?.ok).length} on retry), ${lost.length} lost, ${problems.length} half-applied, ` +
        `${state.records.size} records stored, ${unexpected.length} unexpected`,
    );
    assert.deepEqual(
      lost.map((write) => write.id),
      [],
      "acknowledged writes missing from the database (or stored with other content)",
    );
    assert.deepEqual(problems, [], "half-applied writes");
    assert.deepEqual(unexpected, [], "records nobody wrote");
    assert.deepEqual(
      idempotencyProblems,
      [],
      "records without exactly one stored idempotent answer",
    );
    assert.equal(acknowledged.length, writes.length, "every write ends acknowledged once retried");

    for (const [name, instance] of Object.entries(instances)) {
      let missing: string[] = [];
      await eventually(
        `instance ${name} serves every acknowledged record`,
        async () => {
          const items = (await request(instance.app).get("/api/v1/recommendations").expect(200))
            .body.items as Array<{ id: string }>;
          const served = new Set(items.map((item) => item.id));
          missing = acknowledged.filter((write) => !served.has(write.id)).map((write) => write.id);
          return missing.length === 0 ? true : undefined;
        },
        { withinMs: CONVERGE_WITHIN_MS, last: () => `missing ${missing.join(", ")}` },
      );
    }
  });

  it("an edit on A after the recovery is served by B (NOTIFY only) within 3 s", async (t) => {
    const id = `${prefix}converge`;
    const edit = await createOn("A", "rest", id, crypto.randomUUID(), recommendation(id));
    assert.equal(edit.ok, true, describeAnswer(edit));
    const kbRevision = (JSON.parse(edit.body) as { kbRevision: number }).kbRevision;
    const started = Date.now();
    let seen = -1;
    await eventually(
      "B serves the revision of A's edit",
      async () => {
        seen = (await request(instances.B.app).get("/api/v1/kb").expect(200)).body
          .revision as number;
        return seen >= kbRevision ? true : undefined;
      },
      {
        withinMs: CONVERGE_WITHIN_MS,
        everyMs: 10,
        last: () => `revision ${seen}, expected ${kbRevision}`,
      },
    );
    const convergenceMs = Date.now() - started;
    const items = (await request(instances.B.app).get("/api/v1/recommendations").expect(200)).body
      .items as Array<{ id: string }>;
    assert.ok(
      items.some((item) => item.id === id),
      "B's revision moved but it does not serve the record",
    );
    t.diagnostic(
      `fault convergence: A's edit (kb revision ${kbRevision}) served by B ${convergenceMs} ms after A acknowledged it`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// SIGTERM under load, on the real server process.

// The small requests start first; the scans SCANS_AFTER_MS later; the signal comes as soon as the scans' bodies
// are sent (and not before SIGNAL_AFTER_MS), so it finds them running or waiting however fast scans have become:
// a fixed delay after them found them already answered once the scan's fast path landed.
const SCANS_AFTER_MS = 1_200;
const SIGNAL_AFTER_MS = 1_400;
const LOAD_AFTER_SIGNAL_MS = 400;
const LARGE_SCANS = 3;
const LOOPS = 4;
const EDIT_LOOPS = 2;
const MAX_EDITS = 40;
const READY_WITHIN_MS = 60_000;
const EXIT_WITHIN_MS = 30_000;
const PROCESS_REQUEST_TIMEOUT_MS = 30_000;

const GQL_SCAN = `query($manifests: String!) { scanManifests(manifests: $manifests, targetVersion: "1.30") { documentsScanned findings { code } } }`;

/** Multi-document YAML of about `bytes` bytes: CronJobs of batch/v1beta1 (removed in 1.25), each a finding. */
function manifest(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n += 1) {
    const doc =
      `---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: job-${n}\n  namespace: team-${n % 7}\nspec:\n  schedule: "*/5 * * * *"\n` +
      `  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n            - name: main\n              image: busybox:1.36\n`;
    parts.push(doc);
    size += doc.length;
  }
  return parts.join("");
}

interface Outcome {
  readonly label: string;
  readonly kind: "scan" | "validate" | "edit";
  /** The request began before the signal (its headers went out). */
  readonly startedBeforeSignal: boolean;
  /** The whole request was handed to the OS before the signal. */
  readonly sentBeforeSignal: boolean;
  /** No answer had come when the signal was sent. */
  readonly pendingAtSignal: boolean;
  readonly status?: number;
  readonly error?: string;
  readonly ok: boolean;
  readonly text: string;
  /** From the start of the request to its answer (or failure). */
  readonly ms: number;
  readonly id?: string;
}

function post(
  agent: http.Agent | false,
  port: number,
  path: string,
  payload: unknown,
  headers: Record<string, string>,
  signalled: () => boolean,
  onSent?: () => void,
): Promise<Omit<Outcome, "label" | "kind" | "ok" | "id">> {
  const body = JSON.stringify(payload);
  const startedBeforeSignal = !signalled();
  const started = Date.now();
  return new Promise((resolve) => {
    let sentBeforeSignal = false;
    let settled = false;
    let answeredAt: boolean | undefined;
    const done = (outcome: { status?: number; error?: string; text: string }): void => {
      if (settled) return;
      settled = true;
      resolve({
        ...outcome,
        ms: Date.now() - started,
        startedBeforeSignal,
        sentBeforeSignal,
        pendingAtSignal: startedBeforeSignal && answeredAt !== false,
      });
    };
    const req = http.request(
      {
        agent,
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        headers: {
          "Content-Type": "application/json",
          "Content-Length": String(Buffer.byteLength(body)),
          ...headers,
        },
        timeout: PROCESS_REQUEST_TIMEOUT_MS,
      },
      (res) => {
        // Answered before the signal: it was not in flight when it came.
        answeredAt = signalled();
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => done({ status: res.statusCode, text }));
        res.on("error", (error: NodeJS.ErrnoException) =>
          done({
            status: res.statusCode,
            error: `response cut: ${error.code ?? error.message}`,
            text,
          }),
        );
      },
    );
    req.on("finish", () => {
      sentBeforeSignal = !signalled();
      onSent?.();
    });
    req.on("timeout", () =>
      req.destroy(new Error(`no answer within ${PROCESS_REQUEST_TIMEOUT_MS} ms`)),
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      done({ error: error.code ?? error.message, text: "" }),
    );
    req.end(body);
  });
}

/** Requests sent after the signal that got no answer because they never got in: expected, and counted apart. */
function notAccepted(outcome: Outcome): "refused" | "reset" | undefined {
  if (outcome.sentBeforeSignal || outcome.pendingAtSignal || outcome.status !== undefined)
    return undefined;
  if (outcome.error === "ECONNREFUSED") return "refused";
  if (outcome.error === "ECONNRESET" || outcome.error === "EPIPE") return "reset";
  return undefined;
}

function graphqlAnswerOk(status: number | undefined, text: string): boolean {
  if (status !== 200) return false;
  try {
    const body = JSON.parse(text) as { data?: unknown; errors?: unknown };
    return body.errors === undefined && body.data != null;
  } catch {
    return false;
  }
}

describe("SIGTERM under load: GraphQL and REST requests in flight are answered, acknowledged edits are kept", () => {
  let database: TestDatabase;

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  it("no request that reached the server is answered 500 or cut off; every acknowledged edit is in the database", async (t: TestContext) => {
    const port = await freePort();
    const server: ServerProcess = spawnServer({
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: database.url,
      LOG_LEVEL: "info",
      NODE_ENV: "test",
      // Longer than the hang detector: only a complete drain lets it exit in time.
      SHUTDOWN_TIMEOUT_MS: "60000",
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: LOOPS + EDIT_LOOPS + 1 });
    const editPrefix = `fx-${RUN}-term-`;
    try {
      await waitUntilReady(server, port, READY_WITHIN_MS);
      const db = createDatabase(database.url, 2, createLogger("silent"));
      let token: string;
      try {
        token = await createTestToken({ db }, "sigterm-editor", "editor");
      } finally {
        await db.$disconnect();
      }
      // Large (above the 1 MiB large-request threshold: two run, the others wait for a slot) and one just below it.
      const large = manifest(1_150_000);
      const medium = manifest(300_000);

      // Warm-up (first queries, first edit), so that the load is steady when the signal comes.
      const warmUp = await post(
        agent,
        port,
        "/api/v1/recommendations",
        recommendation(`${editPrefix}warm-up`),
        { Authorization: `Bearer ${token}` },
        () => false,
      );
      assert.equal(warmUp.status, 201, warmUp.text);

      let signalledAt: number | undefined = undefined;
      const signalled = () => signalledAt !== undefined;
      const outcomes: Outcome[] = [];
      const started = Date.now();
      const loadUntil = () =>
        signalledAt === undefined ? true : Date.now() - signalledAt < LOAD_AFTER_SIGNAL_MS;

      // Resolved once every scan's body has been sent.
      let scansSent: () => void = () => undefined;
      const allScansSent = new Promise<void>((resolve) => {
        let left = LARGE_SCANS + 1;
        scansSent = () => {
          left -= 1;
          if (left === 0) resolve();
        };
      });
      const scan = async (label: string, text: string): Promise<void> => {
        const outcome = await post(
          false,
          port,
          "/graphql",
          { query: GQL_SCAN, variables: { manifests: text } },
          {},
          signalled,
          scansSent,
        );
        outcomes.push({
          ...outcome,
          label,
          kind: "scan",
          ok: graphqlAnswerOk(outcome.status, outcome.text),
          text: outcome.text.slice(0, 300),
        });
      };
      const validateLoop = async (): Promise<void> => {
        while (loadUntil() && Date.now() - started < 20_000) {
          const outcome = await post(
            agent,
            port,
            "/graphql",
            { query: GQL_VALIDATE, variables: { plan: VALIDATE } },
            {},
            signalled,
          );
          outcomes.push({
            ...outcome,
            label: "POST /graphql validateCluster",
            kind: "validate",
            ok: graphqlAnswerOk(outcome.status, outcome.text),
            text: outcome.text.slice(0, 300),
          });
          if (outcome.error === "ECONNREFUSED") break;
        }
      };
      let edits = 0;
      const editLoop = async (face: Face, loop: number): Promise<void> => {
        while (loadUntil() && edits < MAX_EDITS) {
          edits += 1;
          const id = `${editPrefix}${face}-${loop}-${edits}`;
          const record = recommendation(id);
          const key = crypto.randomUUID();
          const outcome =
            face === "rest"
              ? await post(
                  agent,
                  port,
                  "/api/v1/recommendations",
                  record,
                  { Authorization: `Bearer ${token}`, "Idempotency-Key": key },
                  signalled,
                )
              : await post(
                  agent,
                  port,
                  "/graphql",
                  { query: GQL_CREATE, variables: { record, key } },
                  { Authorization: `Bearer ${token}` },
                  signalled,
                );
          const ok =
            face === "rest"
              ? outcome.status === 201
              : graphqlAnswerOk(outcome.status, outcome.text);
          outcomes.push({
            ...outcome,
            label: face === "rest" ? "POST /api/v1/recommendations" : "POST /graphql createRecord",
            kind: "edit",
            ok,
            id,
            text: outcome.text.slice(0, 300),
          });
          if (outcome.error === "ECONNREFUSED") break;
          await sleep(20);
        }
      };

      const sendScans = async (): Promise<void> => {
        await sleep(SCANS_AFTER_MS);
        await Promise.all([
          ...Array.from({ length: LARGE_SCANS }, (_, n) =>
            scan(`scanManifests ${(large.length / 1e6).toFixed(2)} MB #${n + 1}`, large),
          ),
          scan(`scanManifests ${(medium.length / 1e6).toFixed(2)} MB`, medium),
        ]);
      };
      const load = Promise.all([
        sendScans(),
        ...Array.from({ length: LOOPS }, () => validateLoop()),
        ...Array.from({ length: EDIT_LOOPS }, (_, loop) => editLoop("rest", loop)),
        editLoop("graphql", EDIT_LOOPS),
      ]);
      await Promise.all([sleep(SIGNAL_AFTER_MS), allScansSent]);
      signalledAt = Date.now();
      server.child.kill("SIGTERM");
      await load;

      const hang = new Promise<"hang">((resolve) =>
        setTimeout(() => resolve("hang"), EXIT_WITHIN_MS).unref(),
      );
      const exit = await Promise.race([server.exited, hang]);
      assert.notEqual(
        exit,
        "hang",
        `the server did not exit within ${EXIT_WITHIN_MS} ms of SIGTERM:\n${server.stdout().slice(-3000)}`,
      );
      if (exit === "hang") return;

      const scanned = outcomes.filter((outcome) => outcome.kind === "scan");
      const accepted = outcomes.filter((outcome) => notAccepted(outcome) === undefined);
      const failed = accepted.filter((outcome) => !outcome.ok);
      const mustAnswer = outcomes.filter(
        (outcome) => outcome.sentBeforeSignal || outcome.pendingAtSignal,
      );
      const graphqlInFlight = outcomes
        .filter((outcome) => outcome.kind !== "edit" || outcome.label.includes("graphql"))
        .filter((outcome) => outcome.pendingAtSignal);
      const acknowledgedEdits = outcomes.filter((outcome) => outcome.kind === "edit" && outcome.ok);
      const state = await stored(database.url, editPrefix, "sigterm-editor");
      const lost = acknowledgedEdits.filter((outcome) => !state.records.has(outcome.id!));
      const problems = halfApplied(state);
      const unanswered = outcomes.filter(
        (outcome) => outcome.kind === "edit" && !outcome.ok && state.records.has(outcome.id!),
      );
      const logs = server.logs();
      const warnings = logs.filter((line) => Number(line.level) >= 40);
      t.diagnostic(
        `SIGTERM: ${outcomes.length} requests, ${mustAnswer.length} in flight or sent before the signal (${graphqlInFlight.length} GraphQL in flight at it, ` +
          `${scanned.filter((outcome) => outcome.pendingAtSignal).length} of them scans), ${outcomes.filter((outcome) => notAccepted(outcome) === "refused").length} refused and ` +
          `${outcomes.filter((outcome) => notAccepted(outcome) === "reset").length} reset after the signal before they got in; ${failed.length} failed, ` +
          `${outcomes.filter((outcome) => outcome.status === 500).length} answered 500; exit ${exit.code} ${exit.at - signalledAt} ms after the signal`,
      );
      const editMs = outcomes
        .filter((outcome) => outcome.kind === "edit")
        .map((outcome) => outcome.ms);
      t.diagnostic(
        `SIGTERM edits (${editMs.join(", ")} ms): ${outcomes.filter((outcome) => outcome.kind === "edit" && outcome.pendingAtSignal).length} in flight at the signal, ${acknowledgedEdits.length} acknowledged, ${lost.length} lost, ${problems.length} half-applied, ${unanswered.length} applied without an answer; ` +
          `scans answered in ${scanned.map((outcome) => outcome.status ?? outcome.error).join(", ")}; ${warnings.length} warnings or errors logged`,
      );

      assert.deepEqual(
        outcomes
          .filter((outcome) => outcome.status === 500)
          .map((outcome) => `${outcome.label}: ${outcome.text}`),
        [],
        `requests answered 500:\n${server.stdout().slice(-3000)}`,
      );
      assert.deepEqual(
        failed.map(
          (outcome) =>
            `${outcome.label} (sent before the signal: ${outcome.sentBeforeSignal}, pending at it: ${outcome.pendingAtSignal}): ${outcome.status ?? outcome.error} ${outcome.text}`,
        ),
        [],
        `requests the server accepted failed or were cut off:\n${server.stdout().slice(-3000)}`,
      );
      assert.equal(scanned.length, LARGE_SCANS + 1);
      assert.ok(
        scanned.filter((outcome) => outcome.pendingAtSignal).length >= 2,
        `too few scans in flight at the signal: ${scanned.map((outcome) => `${outcome.label} pending=${outcome.pendingAtSignal}`).join(", ")}`,
      );
      assert.ok(acknowledgedEdits.length > 0, "no edit was acknowledged");
      assert.deepEqual(
        lost.map((outcome) => outcome.id),
        [],
        "acknowledged edits missing from the database",
      );
      assert.deepEqual(problems, [], "half-applied edits");
      assert.deepEqual(
        unanswered.filter((outcome) => outcome.sentBeforeSignal).map((outcome) => outcome.id),
        [],
        "edits sent before the signal that were applied but not answered",
      );
      assert.equal(
        exit.code,
        0,
        `exit code ${exit.code} (signal ${exit.signal}); stderr:\n${server.stderr()}`,
      );
      const messages = logs.map((line) => line.msg);
      assert.ok(
        messages.includes("stopped"),
        `no "stopped" in the log: ${JSON.stringify(messages.slice(-20))}`,
      );
      assert.deepEqual(
        logs.filter((line) => Number(line.level) >= 50),
        [],
        "errors logged while stopping",
      );
    } finally {
      agent.destroy();
      await server.kill();
    }
  });
});
