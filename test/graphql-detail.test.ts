/**
 * GraphQL's detail argument over HTTP (issue 38): FULL (the default) sends the answer as it always was, SUMMARY
 * sends the domain's summary of the full answer with the lists trimmed to what it shows; the verdict is the
 * same either way.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { summariseAnswer } from "../src/domain/answer-summary.js";
import { scanManifests } from "../src/domain/scan.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

const SUMMARY_FIELDS = `summary {
  detail status ok kbRevision targetVersion allJudged
  blocking { code severity message component instance object } blockingNotShown
  notJudged { code severity message component instance object } notJudgedNotShown
  steps counts { findings { ERROR WARNING INFO } byCode { code severity count } steps objects documents flows }
  full
}`;

/** The bench's plan: an HA cluster with three pools from 1.25 to 1.30. */
const CLUSTER = [
  { component: "etcd", version: "3.5.9" },
  { component: "kube-apiserver", version: "1.25.16", instance: "cp-1" },
  { component: "kube-apiserver", version: "1.25.16", instance: "cp-2" },
  { component: "kube-controller-manager", version: "1.25.16" },
  { component: "kube-scheduler", version: "1.25.16" },
  { component: "kubelet", version: "1.25.16", instance: "pool-a" },
  { component: "kube-proxy", version: "1.25.16", instance: "pool-a" },
  { component: "containerd", version: "1.6.20", instance: "pool-a" },
  { component: "kubelet", version: "1.24.17", instance: "pool-b" },
  { component: "containerd", version: "1.6.20", instance: "pool-b" },
];
const AS_OF = "2026-12-01";

interface Summary {
  detail: string;
  status: string;
  ok: boolean;
  allJudged: boolean;
  blocking: Array<{ code: string; message: string }>;
  blockingNotShown: number;
  notJudged: Array<{ code: string; message: string }>;
  steps: string[] | null;
  counts: { findings: { ERROR: number; WARNING: number; INFO: number } };
  [field: string]: unknown;
}
interface Plan {
  detail: string;
  status: string;
  steps: Array<{ order: number }>;
  hops: Array<{ kubernetesVersion: string }>;
  findings: Array<{ code: string; message: string }>;
  summary: Summary;
}

describe("GraphQL detail: FULL and SUMMARY", () => {
  let runtime: SnapshotRuntime;
  const gql = async <T>(query: string, variables: Record<string, unknown>) => {
    const response = await request(runtime.app)
      .post("/graphql")
      .set("Content-Type", "application/json")
      .send({ query, variables })
      .expect(200);
    const body = response.body as { data?: T; errors?: unknown };
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    return { data: body.data!, bytes: response.text.length };
  };
  const planQuery = (detail: string) =>
    `query Plan($components: [ComponentVersionInput!]!, $asOf: String) {
      planUpgrade(current: { components: $components }, targetVersion: "1.30", asOf: $asOf${detail}) {
        detail status steps { order } hops { kubernetesVersion } findings { code message } ${SUMMARY_FIELDS}
      }
    }`;
  before(async () => {
    runtime = await startSnapshotRuntime();
  });
  after(async () => runtime.close());

  it("a plan: FULL by default, SUMMARY with the same verdict and summary, its lists trimmed", async () => {
    const variables = { components: CLUSTER, asOf: AS_OF };
    const byDefault = await gql<{ planUpgrade: Plan }>(planQuery(""), variables);
    const full = await gql<{ planUpgrade: Plan }>(planQuery(", detail: FULL"), variables);
    const summary = await gql<{ planUpgrade: Plan }>(planQuery(", detail: SUMMARY"), variables);
    assert.deepEqual(byDefault.data, full.data);
    const [whole, short] = [full.data.planUpgrade, summary.data.planUpgrade];
    assert.equal(whole.detail, "FULL");
    assert.equal(short.detail, "SUMMARY");
    assert.ok(whole.steps.length > 10 && whole.hops.length === 5, JSON.stringify(whole.hops));
    assert.deepEqual([short.steps, short.hops], [[], []]);
    // The summary is of the full answer either way, and is the domain's.
    assert.deepEqual(short.summary, whole.summary);
    assert.equal(short.status, whole.status);
    assert.equal(short.summary.status, whole.status);
    assert.equal(short.summary.detail, "SUMMARY");
    assert.equal(short.summary.steps!.length, whole.steps.length);
    const domain = summariseAnswer(
      planUpgrade(runtime.kb.current(), CLUSTER, "1.30", { asOf: AS_OF }),
    );
    assert.deepEqual({ ...short.summary, detail: "summary" }, JSON.parse(JSON.stringify(domain)));
    // Trimmed findings are exactly those the summary shows.
    const shown = [...short.summary.blocking, ...short.summary.notJudged].map(
      (entry) => entry.code,
    );
    assert.deepEqual(short.findings.map((entry) => entry.code).sort(), [...new Set(shown)].sort());
    assert.ok(whole.findings.length > short.findings.length);
    // Issue 38's target: a typical plan's summary under 4 KB.
    const size = JSON.stringify(short.summary).length;
    assert.ok(size < 4096, `${size} bytes`);
  });

  it("a scan of 30 removed objects: SUMMARY shows 20 and counts the rest", async () => {
    const manifests = Array.from(
      { length: 30 },
      (_, n) => `apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: job-${n}\n`,
    ).join("---\n");
    const query = (detail: string) =>
      `query Scan($manifests: String!) { scanManifests(manifests: $manifests, targetVersion: "1.30", detail: ${detail}) {
        detail status findings { code name } ${SUMMARY_FIELDS} } }`;
    type Scan = { scanManifests: Plan };
    const full = (await gql<Scan>(query("FULL"), { manifests })).data.scanManifests;
    const short = (await gql<Scan>(query("SUMMARY"), { manifests })).data.scanManifests;
    assert.equal(full.findings.length, 30);
    assert.equal(short.findings.length, 20);
    assert.deepEqual(short.findings, full.findings.slice(0, 20));
    assert.equal(short.summary.blockingNotShown, 10);
    assert.equal(short.summary.counts.findings.ERROR, 30);
    assert.equal(short.status, "UNSUPPORTED");
    assert.deepEqual(
      short.summary,
      JSON.parse(
        JSON.stringify({
          ...summariseAnswer(scanManifests(runtime.kb.current(), manifests, "1.30")),
          detail: "SUMMARY",
        }),
      ),
    );
  });

  it("a cluster without a control plane: NOT_JUDGED, and SUMMARY keeps what was not judged", async () => {
    const query = `query V($components: [ComponentVersionInput!]!) {
      validateCluster(plan: { components: $components }, detail: SUMMARY) { detail ok status findings { code message } ${SUMMARY_FIELDS} } }`;
    const { data } = await gql<{ validateCluster: Plan & { ok: boolean } }>(query, {
      components: [{ component: "kubelet", version: "1.30.2", instance: "pool-a" }],
    });
    const answer = data.validateCluster;
    assert.equal(answer.status, "NOT_JUDGED");
    assert.equal(answer.summary.ok, false);
    assert.equal(answer.summary.allJudged, false);
    assert.ok(answer.summary.notJudged.some((entry) => entry.code === "NO_APISERVER_IN_PLAN"));
    assert.ok(answer.findings.some((entry) => entry.code === "NO_APISERVER_IN_PLAN"));
    assert.equal(answer.summary.steps, null);
  });
});
