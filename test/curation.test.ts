import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { parse } from "yaml";
import { query } from "./support/database.js";
import { createTestToken, startTestRuntime, type TestRuntime } from "./support/runtime.js";

const CRONJOB = encodeURIComponent("batch/v1beta1 CronJob");

describe("curating the knowledge base", () => {
  let runtime: TestRuntime;
  let reader: string;
  let editor: string;
  let admin: string;
  const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

  before(async () => {
    runtime = await startTestRuntime();
    reader = await createTestToken(runtime, "reader-bot", "reader");
    editor = await createTestToken(runtime, "editor-bot", "editor");
    admin = await createTestToken(runtime, "admin-bot", "admin");
  });
  after(async () => runtime.close());

  async function current(key = "batch/v1beta1 CronJob") {
    const list = await request(runtime.app).get("/api/v1/api-removals").expect(200);
    const item = list.body.items.find(
      (entry: { apiVersion: string; kind: string }) => `${entry.apiVersion} ${entry.kind}` === key,
    );
    return { item, kbRevision: list.body.kbRevision as number };
  }

  it("refuses edits without a token (401), with a bad token (401) and with a reader token (403)", async () => {
    const { item } = await current();
    const body = { ...item, notes: "edited" };
    const none = await request(runtime.app)
      .put(`/api/v1/api-removals/${CRONJOB}`)
      .send(body)
      .expect(401);
    assert.equal(none.body.error.code, "UNAUTHENTICATED");
    const bad = await request(runtime.app)
      .put(`/api/v1/api-removals/${CRONJOB}`)
      .set(bearer("kc_" + "x".repeat(43)))
      .send(body)
      .expect(401);
    assert.match(bad.body.error.message, /unknown/);
    const malformed = await request(runtime.app)
      .put(`/api/v1/api-removals/${CRONJOB}`)
      .set("Authorization", "Token abc")
      .send(body)
      .expect(401);
    assert.match(malformed.body.error.message, /Bearer/);
    const weak = await request(runtime.app)
      .put(`/api/v1/api-removals/${CRONJOB}`)
      .set(bearer(reader))
      .send(body)
      .expect(403);
    assert.equal(weak.body.error.code, "FORBIDDEN");
    assert.match(weak.body.error.message, /needs the editor role; token "reader-bot" has reader/);
    const audit = await request(runtime.app).get("/api/v1/audit").set(bearer(editor)).expect(403);
    assert.equal(audit.body.error.code, "FORBIDDEN");
  });

  it("updates a record with the revision it read; the change is visible at once and audited", async () => {
    const { item, kbRevision } = await current();
    assert.equal(item.revision, 1);
    const updated = await request(runtime.app)
      .put(`/api/v1/api-removals/${CRONJOB}`)
      .set(bearer(editor))
      .send({ ...item, notes: "Move to batch/v1; spec.jobTemplate is unchanged." })
      .expect(200);
    assert.equal(updated.body.item.revision, 2);
    assert.equal(updated.body.kbRevision, kbRevision + 1);
    const after = await current();
    assert.equal(after.item.notes, "Move to batch/v1; spec.jobTemplate is unchanged.");
    assert.equal(after.item.revision, 2);
    assert.equal(after.kbRevision, kbRevision + 1);
    const audit = await request(runtime.app)
      .get(`/api/v1/audit?entity=apiRemovals&key=${CRONJOB}`)
      .set(bearer(admin))
      .expect(200);
    const entry = audit.body.items[0];
    assert.deepEqual(
      [entry.actor, entry.actorRole, entry.action, entry.kbRevision],
      ["editor-bot", "editor", "apiRemovals.update", kbRevision + 1],
    );
    assert.equal(entry.before.notes, item.notes);
    assert.equal(entry.after.notes, "Move to batch/v1; spec.jobTemplate is unchanged.");
  });

  it("rejects a stale revision with 409 naming the current one", async () => {
    const { item } = await current();
    const stale = await request(runtime.app)
      .put(`/api/v1/api-removals/${CRONJOB}`)
      .set(bearer(editor))
      .send({ ...item, revision: 1, notes: "late" })
      .expect(409);
    assert.equal(stale.body.error.code, "CONFLICT");
    assert.match(stale.body.error.message, new RegExp(`is at revision ${item.revision}, not 1`));
    const missing = await request(runtime.app)
      .put(`/api/v1/api-removals/${CRONJOB}`)
      .set(bearer(editor))
      .send({ ...item, revision: undefined })
      .expect(400);
    assert.equal(missing.body.error.details[0].field, "revision");
  });

  it("accepts exactly one of 50 concurrent conflicting edits, and the database and audit trail agree", async () => {
    const key = "policy/v1beta1 PodDisruptionBudget";
    const { item } = await current(key);
    const auditBefore = await query<{ count: string }>(
      runtime.database.url,
      `SELECT count(*) FROM "AuditEntry" WHERE key = $1`,
      [key],
    );
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        request(runtime.app)
          .put(`/api/v1/api-removals/${encodeURIComponent(key)}`)
          .set(bearer(editor))
          .send({ ...item, notes: `concurrent edit ${index}` }),
      ),
    );
    const accepted = responses.filter((response) => response.status === 200);
    const conflicts = responses.filter((response) => response.status === 409);
    // On a loaded machine a request may also give up waiting for a connection (503): refused, not lost.
    const unavailable = responses.filter((response) => response.status === 503);
    assert.equal(accepted.length, 1, responses.map((response) => response.status).join(","));
    assert.equal(
      conflicts.length + unavailable.length,
      49,
      responses.map((response) => response.status).join(","),
    );
    assert.ok(conflicts.length >= 40, `${conflicts.length} conflicts`);
    for (const conflict of conflicts)
      assert.match(
        conflict.body.error.message,
        new RegExp(`is at revision ${item.revision + 1}, not ${item.revision}`),
      );
    const winner = accepted[0]!.body.item.notes as string;
    const rows = await query<{ notes: string; revision: number }>(
      runtime.database.url,
      `SELECT notes, revision FROM "ApiRemoval" WHERE "apiVersion" = 'policy/v1beta1' AND kind = 'PodDisruptionBudget'`,
    );
    assert.deepEqual(rows, [{ notes: winner, revision: item.revision + 1 }]);
    const audit = await query<{ after: { notes: string } }>(
      runtime.database.url,
      `SELECT after FROM "AuditEntry" WHERE key = $1 ORDER BY id`,
      [key],
    );
    assert.equal(audit.length, Number(auditBefore[0]!.count) + 1);
    assert.equal(audit.at(-1)!.after.notes, winner);
  });

  it("creates and retires records, keeping references intact", async () => {
    const created = await request(runtime.app)
      .post("/api/v1/api-removals")
      .set(bearer(editor))
      .send({
        apiVersion: "example.k8s.io/v1beta1",
        group: "example.k8s.io",
        version: "v1beta1",
        kind: "Widget",
        removedIn: "1.40",
        replacement: "example.k8s.io/v1",
        sourceUrl: "https://kubernetes.io/docs/reference/using-api/deprecation-guide/",
      })
      .expect(201);
    assert.equal(created.body.item.revision, 1);
    assert.equal(created.body.item.deprecatedIn, null);
    const duplicate = await request(runtime.app)
      .post("/api/v1/api-removals")
      .set(bearer(editor))
      .send(created.body.item)
      .expect(409);
    assert.match(duplicate.body.error.message, /exists already/);
    const key = encodeURIComponent("example.k8s.io/v1beta1 Widget");
    await request(runtime.app)
      .delete(`/api/v1/api-removals/${key}?revision=1`)
      .set(bearer(editor))
      .expect(200);
    assert.equal((await current("example.k8s.io/v1beta1 Widget")).item, undefined);
    await request(runtime.app)
      .delete(`/api/v1/api-removals/${key}?revision=1`)
      .set(bearer(editor))
      .expect(404);

    // kubelet is referenced by ports, links, skew rules...: it cannot be retired.
    const kubelet = (await request(runtime.app).get("/api/v1/components/kubelet").expect(200)).body;
    const refused = await request(runtime.app)
      .delete(`/api/v1/components/kubelet?revision=${kubelet.revision}`)
      .set(bearer(editor))
      .expect(400);
    assert.match(refused.body.error.message, /names unknown component "kubelet"/);
  });

  it("names every invalid field of a record", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/ports")
      .set(bearer(editor))
      .send({
        component: "kubelet",
        port: 70000,
        protocol: "SCTP",
        nodeRole: "WORKER",
        direction: "INBOUND",
        purpose: "x",
        usedBy: "y",
        sourceUrl: "http://insecure",
      })
      .expect(400);
    const fields = response.body.error.details
      .map((detail: { field: string }) => detail.field)
      .sort();
    assert.deepEqual(fields, ["record.port", "record.protocol", "record.sourceUrl"]);
  });

  it("exports kb/ YAML and Pluto's versions.yaml, and imports a bundle all or nothing", async () => {
    const exported = await request(runtime.app).get("/api/v1/kb/export").expect(200);
    assert.match(exported.headers["content-type"] ?? "", /yaml/);
    const same = await request(runtime.app)
      .post("/api/v1/kb/import")
      .set(bearer(admin))
      .set("Content-Type", "application/yaml")
      .send(exported.text)
      .expect(200);
    assert.equal(same.body.changed, false);

    const edited = exported.text.replace(
      'purpose: "Kubernetes API server"',
      'purpose: "Kubernetes API server (imported)"',
    );
    const applied = await request(runtime.app)
      .post("/api/v1/kb/import")
      .set(bearer(admin))
      .set("Content-Type", "application/yaml")
      .send(edited)
      .expect(200);
    assert.deepEqual(applied.body.changes, [
      {
        entity: "ports",
        key: "kube-apiserver 6443/TCP CONTROL_PLANE",
        action: "update",
        fields: ["purpose"],
      },
    ]);

    const before = await request(runtime.app).get("/api/v1/kb").expect(200);
    const broken = edited
      .replace('removedIn: "1.25"', 'removedIn: "soon"')
      .replace("port: 6443", "port: -1");
    const refused = await request(runtime.app)
      .post("/api/v1/kb/import")
      .set(bearer(admin))
      .set("Content-Type", "application/yaml")
      .send(broken)
      .expect(422);
    assert.equal(refused.body.error.code, "KB_INVALID");
    assert.ok(refused.body.error.details.length >= 2, "every invalid record is reported");
    const afterRefusal = await request(runtime.app).get("/api/v1/kb").expect(200);
    assert.equal(afterRefusal.body.revision, before.body.revision);
    await request(runtime.app)
      .post("/api/v1/kb/import")
      .set(bearer(editor))
      .set("Content-Type", "application/yaml")
      .send(edited)
      .expect(403);

    const pluto = parse(
      (await request(runtime.app).get("/api/v1/kb/export/pluto").expect(200)).text,
    ) as {
      "deprecated-versions": Array<Record<string, string>>;
    };
    const removals = (await request(runtime.app).get("/api/v1/api-removals").expect(200)).body
      .items;
    assert.equal(pluto["deprecated-versions"].length, removals.length);
    const cronJob = pluto["deprecated-versions"].find(
      (entry) => entry.version === "batch/v1beta1" && entry.kind === "CronJob",
    );
    assert.deepEqual(cronJob, {
      version: "batch/v1beta1",
      kind: "CronJob",
      "deprecated-in": "v1.21.0",
      "removed-in": "v1.25.0",
      "replacement-api": "batch/v1",
      "replacement-available-in": "v1.21.0",
      component: "k8s",
    });
  });

  it("edits through GraphQL with the same rules and codes", async () => {
    const gql = (query: string, variables: Record<string, unknown>, secret?: string) => {
      const call = request(runtime.app).post("/graphql");
      if (secret) call.set(bearer(secret));
      return call.send({ query, variables }).expect(200);
    };
    const mutation = `mutation($key: String!, $revision: Int!, $record: JSONObject!) {
      updateRecord(entity: RELEASES, key: $key, revision: $revision, record: $record) { key kbRevision record retired } }`;
    const release = (await request(runtime.app).get("/api/v1/releases/1.30").expect(200)).body;
    const { revision, kbRevision: _kbRevision, ...record } = release;
    const variables = {
      key: "1.30",
      revision,
      record: { ...record, disagreement: "checked by test" },
    };
    const anonymous = await gql(mutation, variables);
    assert.equal(anonymous.body.errors[0].extensions.code, "UNAUTHENTICATED");
    const weak = await gql(mutation, variables, reader);
    assert.equal(weak.body.errors[0].extensions.code, "FORBIDDEN");
    const done = await gql(mutation, variables, editor);
    assert.equal(done.body.errors, undefined);
    assert.equal(done.body.data.updateRecord.record.revision, revision + 1);
    const conflict = await gql(mutation, variables, editor);
    assert.equal(conflict.body.errors[0].extensions.code, "CONFLICT");
    const audit = await gql(
      `{ auditLog(entity: "releases", limit: 1) { actor action key after } }`,
      {},
      admin,
    );
    assert.deepEqual(
      [
        audit.body.data.auditLog[0].actor,
        audit.body.data.auditLog[0].action,
        audit.body.data.auditLog[0].key,
      ],
      ["editor-bot", "releases.update", "1.30"],
    );
  });

  it("requires a reader token for reads when configured", async () => {
    const closed = await startTestRuntime({ requireAuthForReads: true });
    try {
      const secret = await createTestToken(closed, "reader", "reader");
      const refused = await request(closed.app).get("/api/v1/releases").expect(401);
      assert.equal(refused.body.error.code, "UNAUTHENTICATED");
      await request(closed.app).get("/api/v1/releases").set(bearer(secret)).expect(200);
      const graphql = await request(closed.app)
        .post("/graphql")
        .send({ query: "{ releases { version } }" })
        .expect(401);
      assert.equal(graphql.body.errors[0].extensions.code, "UNAUTHENTICATED");
      await request(closed.app).get("/healthz").expect(200);
    } finally {
      await closed.close();
    }
  });
});
