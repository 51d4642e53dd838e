import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { startTestRuntime, type TestRuntime } from "./support/runtime.js";

function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries(
      [...(match[3] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => present[key] === value))
      return Number(match[4]);
  }
  return undefined;
}

describe("/metrics", () => {
  let runtime: TestRuntime;
  before(async () => {
    runtime = await startTestRuntime();
  });
  after(async () => runtime.close());

  it("counts requests per route pattern, findings by code, GraphQL operations, and reports the snapshot", async () => {
    await request(runtime.app).get("/api/v1/releases/1.30").expect(200);
    await request(runtime.app).get("/api/v1/releases/1.29").expect(200);
    await request(runtime.app)
      .post("/api/v1/validate")
      .send({
        components: [
          { component: "apiserver", version: "1.30" },
          { component: "kubelet", version: "1.26" },
        ],
      })
      .expect(200);
    await request(runtime.app)
      .post("/graphql")
      .send({
        query: `query Check { validateCluster(plan: { components: [{ component: "apiserver", version: "1.30" }, { component: "kubelet", version: "1.26" }] }) { ok findings { code severity } } }`,
      })
      .expect(200);
    const text = (await request(runtime.app).get("/metrics").expect(200)).text;
    assert.equal(
      sample(text, "kubecompat_http_requests_total", {
        method: "GET",
        route: "/api/v1/releases/:version",
        status: "200",
      }),
      2,
    );
    assert.equal(
      sample(text, "kubecompat_findings_total", {
        code: "SKEW_KUBELET_TOO_OLD_FOR_APISERVER",
        severity: "ERROR",
      }),
      2,
    );
    assert.equal(
      sample(text, "kubecompat_graphql_operations_total", {
        operation: "Check",
        type: "query",
        outcome: "ok",
      }),
      1,
    );
    assert.equal(sample(text, "kubecompat_kb_revision"), runtime.kb.current().revision);
    assert.ok((sample(text, "kubecompat_kb_snapshot_age_seconds") ?? -1) >= 0);
    assert.ok(text.includes("kubecompat_http_request_duration_seconds_bucket"));
    assert.ok(!text.includes("Bearer"), "no secrets");
  });

  it("returns the request id it was given, or a new one", async () => {
    const given = await request(runtime.app)
      .get("/healthz")
      .set("X-Request-Id", "ci-run-42.step-3")
      .expect(200);
    assert.equal(given.headers["x-request-id"], "ci-run-42.step-3");
    const invented = await request(runtime.app)
      .get("/healthz")
      .set("X-Request-Id", "bad id with spaces; and $ymbols")
      .expect(200);
    assert.match(invented.headers["x-request-id"] ?? "", /^[0-9a-f-]{36}$/);
  });
});
