import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { Kind, parse, type ObjectTypeDefinitionNode } from "graphql";
import request from "supertest";
import { AnswerCache } from "../src/services/answer-cache.js";
import { SCHEMA_PATH } from "../src/graphql/server.js";
import { DATABASE_QUERY_FIELDS, SNAPSHOT_QUERY_FIELDS } from "../src/graphql/remembered-answers.js";
import { createTestToken, startTestRuntime, type TestRuntime } from "./support/runtime.js";

const snapshot = (revision: number) => ({ revision });

describe("AnswerCache", () => {
  it("hands back what was kept for the same snapshot and key, and nothing for another key", () => {
    const cache = new AnswerCache<string>(1000);
    const s1 = snapshot(1);
    cache.set(s1, "a", "answer a", 10);
    assert.equal(cache.get(s1, "a"), "answer a");
    assert.equal(cache.get(s1, "b"), undefined);
    assert.deepEqual(cache.stats(), { entries: 1, bytes: 2 + 10, hits: 1, misses: 1, carried: 0 });
  });

  it("drops the least recently used answers to stay within its byte budget", () => {
    const cache = new AnswerCache<string>(100, 100);
    const s1 = snapshot(1);
    cache.set(s1, "a", "A", 30); // 32 bytes with its key
    cache.set(s1, "b", "B", 30);
    cache.get(s1, "a"); // a is now more recent than b
    cache.set(s1, "c", "C", 30); // 96 bytes: all fit
    cache.set(s1, "d", "D", 30); // 128 bytes: b, the least recently used, goes
    assert.equal(cache.get(s1, "b"), undefined);
    assert.deepEqual(
      ["a", "c", "d"].map((key) => cache.get(s1, key)),
      ["A", "C", "D"],
    );
    assert.ok(cache.stats().bytes <= 100);
  });

  it("does not keep an answer larger than one entry may be", () => {
    const cache = new AnswerCache<string>(1000, 100);
    cache.set(snapshot(1), "big", "x", 200);
    assert.equal(cache.get(snapshot(1), "big"), undefined);
    assert.equal(cache.stats().entries, 0);
  });

  it("forgets everything when a newer snapshot is asked about, and ignores a request still holding an older one", () => {
    const cache = new AnswerCache<string>(1000);
    const s1 = snapshot(1);
    const s2 = snapshot(2);
    cache.set(s1, "q", "from revision 1", 10);
    assert.equal(
      cache.get(s2, "q"),
      undefined,
      "an answer of revision 1 must not be served under revision 2",
    );
    // A request that began before the swap finishes with revision 1: it must not put revision-1 answers back.
    cache.set(s1, "q", "from revision 1, late", 10);
    assert.equal(cache.get(s1, "q"), undefined);
    assert.equal(cache.get(s2, "q"), undefined);
    cache.set(s2, "q", "from revision 2", 10);
    assert.equal(cache.get(s2, "q"), "from revision 2");
  });

  it("keeps nothing with a budget of 0", () => {
    const cache = new AnswerCache<string>(0);
    cache.set(snapshot(1), "q", "answer", 1);
    assert.equal(cache.enabled, false);
    assert.equal(cache.get(snapshot(1), "q"), undefined);
  });
});

describe("GraphQL answers remembered per snapshot", () => {
  it("classifies every root query field as answered from the snapshot or read from the database", () => {
    const document = parse(fs.readFileSync(SCHEMA_PATH, "utf8"));
    const query = document.definitions.find(
      (definition): definition is ObjectTypeDefinitionNode =>
        definition.kind === Kind.OBJECT_TYPE_DEFINITION && definition.name.value === "Query",
    );
    const fields = (query?.fields ?? []).map((field) => field.name.value);
    assert.ok(fields.length > 10);
    for (const field of fields) {
      assert.ok(
        SNAPSHOT_QUERY_FIELDS.has(field) !== DATABASE_QUERY_FIELDS.has(field),
        `Query.${field} must be in exactly one of SNAPSHOT_QUERY_FIELDS and DATABASE_QUERY_FIELDS (src/graphql/remembered-answers.ts)`,
      );
    }
  });
});

function metric(text: string, name: string, face: string): number {
  const line = text.split("\n").find((entry) => entry.startsWith(`${name}{face="${face}"}`));
  assert.ok(line, `${name} for ${face} in /metrics`);
  return Number(line.split(" ").at(-1));
}

describe("remembered answers over HTTP", () => {
  let runtime: TestRuntime;
  let editor: string;
  before(async () => {
    runtime = await startTestRuntime();
    editor = await createTestToken(runtime, "cache-editor", "editor");
  });
  after(async () => runtime.close());

  const plan = {
    components: [
      { component: "kube-apiserver", version: "1.30.2" },
      { component: "kubelet", version: "1.26.5" },
    ],
    asOf: "2026-06-01",
  };
  const cronJob = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n";
  const graphqlValidate = {
    query: `query Check($plan: ClusterPlanInput!) { validateCluster(plan: $plan, asOf: "2026-06-01") { ok kbRevision findings { code severity sourceUrl } } }`,
    variables: { plan: { components: plan.components } },
  };

  it("answers a repeated question from memory, byte for byte, and still counts its findings", async () => {
    const before = (await request(runtime.app).get("/metrics").expect(200)).text;
    const first = await request(runtime.app).post("/api/v1/validate").send(plan).expect(200);
    const second = await request(runtime.app).post("/api/v1/validate").send(plan).expect(200);
    assert.equal(second.text, first.text);
    assert.match(second.headers["content-type"] ?? "", /^application\/json; charset=utf-8/);
    const tooOld = first.body.findings.filter(
      (finding: { code: string }) => finding.code === "SKEW_KUBELET_TOO_OLD_FOR_APISERVER",
    ).length;
    assert.ok(tooOld > 0, "kubelet 1.26 under apiserver 1.30 is outside the skew policy");
    const afterText = (await request(runtime.app).get("/metrics").expect(200)).text;
    assert.ok(
      metric(afterText, "kubecompat_answer_cache_hits", "rest") >=
        metric(before, "kubecompat_answer_cache_hits", "rest") + 1,
    );
    const counted = (text: string) =>
      Number(
        /kubecompat_findings_total\{code="SKEW_KUBELET_TOO_OLD_FOR_APISERVER",severity="ERROR"\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    assert.equal(
      counted(afterText) - counted(before),
      2 * tooOld,
      "a remembered answer's findings count like a computed one's",
    );

    const gqlFirst = await request(runtime.app).post("/graphql").send(graphqlValidate).expect(200);
    const gqlSecond = await request(runtime.app).post("/graphql").send(graphqlValidate).expect(200);
    assert.deepEqual(gqlSecond.body, gqlFirst.body);
    assert.equal(gqlFirst.body.data.validateCluster.findings.length, first.body.findings.length);
    const last = (await request(runtime.app).get("/metrics").expect(200)).text;
    assert.ok(metric(last, "kubecompat_answer_cache_hits", "graphql") >= 1);
  });

  it("never answers from an older knowledge-base revision: an edit changes the next answer", async () => {
    const scan = { manifests: cronJob, targetVersion: "1.29" };
    const question = {
      query: `query Scan($m: String!) { scanManifests(manifests: $m, targetVersion: "1.29") { kbRevision findings { sourceUrl } } }`,
      variables: { m: cronJob },
    };
    const restBefore = await request(runtime.app).post("/api/v1/scan").send(scan).expect(200);
    await request(runtime.app).post("/api/v1/scan").send(scan).expect(200);
    const gqlBefore = await request(runtime.app).post("/graphql").send(question).expect(200);
    await request(runtime.app).post("/graphql").send(question).expect(200);
    const validateBefore = await request(runtime.app)
      .post("/api/v1/validate")
      .send(plan)
      .expect(200);

    const list = await request(runtime.app).get("/api/v1/api-removals").expect(200);
    const item = list.body.items.find(
      (entry: { apiVersion: string; kind: string }) =>
        entry.apiVersion === "batch/v1beta1" && entry.kind === "CronJob",
    );
    const movedUrl =
      "https://kubernetes.io/docs/reference/using-api/deprecation-guide/#cronjob-v125";
    assert.notEqual(restBefore.body.findings[0].sourceUrl, movedUrl);
    await request(runtime.app)
      .put(`/api/v1/api-removals/${encodeURIComponent("batch/v1beta1 CronJob")}`)
      .set("Authorization", `Bearer ${editor}`)
      .send({ ...item, sourceUrl: movedUrl })
      .expect(200);

    const restAfter = await request(runtime.app).post("/api/v1/scan").send(scan).expect(200);
    assert.equal(restAfter.body.kbRevision, restBefore.body.kbRevision + 1);
    assert.equal(restAfter.body.findings[0].sourceUrl, movedUrl);
    const gqlAfter = await request(runtime.app).post("/graphql").send(question).expect(200);
    assert.equal(
      gqlAfter.body.data.scanManifests.kbRevision,
      gqlBefore.body.data.scanManifests.kbRevision + 1,
    );
    assert.equal(gqlAfter.body.data.scanManifests.findings[0].sourceUrl, movedUrl);
    const validateAfter = await request(runtime.app)
      .post("/api/v1/validate")
      .send(plan)
      .expect(200);
    assert.equal(validateAfter.body.kbRevision, validateBefore.body.kbRevision + 1);
    const removals = await request(runtime.app).get("/api/v1/api-removals").expect(200);
    assert.equal(removals.body.kbRevision, list.body.kbRevision + 1);
  });

  it("keeps a validate answer over an edit of a recommendation it never read, with the revision in force", async () => {
    const first = await request(runtime.app).post("/api/v1/validate").send(plan).expect(200);
    const gqlFirst = await request(runtime.app).post("/graphql").send(graphqlValidate).expect(200);
    const before = (await request(runtime.app).get("/metrics").expect(200)).text;
    const created = await request(runtime.app)
      .post("/api/v1/recommendations")
      .set("Authorization", `Bearer ${editor}`)
      .send({
        id: "remembered-answers-test",
        title: "Read by no check",
        components: ["kubelet"],
        phase: "NODE_UPGRADE",
        appliesFrom: null,
        appliesUntil: null,
        text: "Added by test/remembered-answers.test.ts.",
        sourceUrl: "https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/",
        notes: null,
      })
      .expect(201);
    const revision = (created.body as { kbRevision: number }).kbRevision;
    assert.ok(revision > first.body.kbRevision);

    const second = await request(runtime.app).post("/api/v1/validate").send(plan).expect(200);
    const gqlSecond = await request(runtime.app).post("/graphql").send(graphqlValidate).expect(200);
    const afterText = (await request(runtime.app).get("/metrics").expect(200)).text;
    for (const face of ["rest", "graphql"]) {
      assert.equal(
        metric(afterText, "kubecompat_answer_cache_misses", face),
        metric(before, "kubecompat_answer_cache_misses", face),
        `${face}: not judged again`,
      );
      assert.ok(
        metric(afterText, "kubecompat_answer_cache_carried", face) >
          metric(before, "kubecompat_answer_cache_carried", face),
        `${face}: carried over`,
      );
    }
    assert.equal(second.body.kbRevision, revision);
    assert.equal(
      second.text,
      first.text.replace(`"kbRevision":${first.body.kbRevision}`, `"kbRevision":${revision}`),
    );
    assert.equal(gqlSecond.body.data.validateCluster.kbRevision, revision);
    assert.deepEqual(
      { ...gqlSecond.body.data.validateCluster, kbRevision: 0 },
      { ...gqlFirst.body.data.validateCluster, kbRevision: 0 },
    );
  });

  it("does not remember refusals: a bad question is judged again each time", async () => {
    const bad = { components: [{ component: "kube-apiserver", version: "one point thirty" }] };
    const first = await request(runtime.app).post("/api/v1/validate").send(bad).expect(400);
    const before = (await request(runtime.app).get("/metrics").expect(200)).text;
    const second = await request(runtime.app).post("/api/v1/validate").send(bad).expect(400);
    assert.deepEqual(second.body, first.body);
    const afterText = (await request(runtime.app).get("/metrics").expect(200)).text;
    assert.equal(
      metric(afterText, "kubecompat_answer_cache_hits", "rest"),
      metric(before, "kubecompat_answer_cache_hits", "rest"),
    );
    assert.equal(
      metric(afterText, "kubecompat_answer_cache_misses", "rest"),
      metric(before, "kubecompat_answer_cache_misses", "rest") + 1,
    );
  });
});
