import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

interface GraphQLResponse<T = Record<string, unknown>> {
  data?: T;
  errors?: Array<{ message: string; extensions?: { code?: string; field?: string } }>;
}

describe("GraphQL API", () => {
  let runtime: SnapshotRuntime;
  const gql = async <T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<GraphQLResponse<T>> => {
    const response = await request(runtime.app)
      .post("/graphql")
      .set("Content-Type", "application/json")
      .send({ query, variables });
    assert.ok(
      response.status === 200 || response.status === 400,
      `status ${response.status}: ${response.text.slice(0, 300)}`,
    );
    return response.body as GraphQLResponse<T>;
  };
  before(async () => {
    runtime = await startSnapshotRuntime();
  });
  after(async () => runtime.close());

  it("knowledgeBase, components, component and ports", async () => {
    const result = await gql<{
      knowledgeBase: {
        revision: number;
        newestRelease: string;
        counts: Array<{ entity: string; count: number }>;
      };
      components: Array<{ name: string; plane: string }>;
      component: { name: string; ports: Array<{ port: number; endPort: number | null }> };
      ports: Array<{ component: string; port: number }>;
    }>(`{
      knowledgeBase { revision newestRelease counts { entity count } }
      components(plane: DATA) { name plane }
      component(name: "API Server") { name ports { port endPort } }
      ports(component: "etcd") { component port }
    }`);
    assert.equal(result.errors, undefined);
    const data = result.data!;
    assert.equal(data.knowledgeBase.revision, 1);
    assert.equal(
      data.knowledgeBase.counts.find((count) => count.entity === "apiRemovals")?.count,
      runtime.kb.current().apiRemovals.length,
    );
    assert.ok(
      data.components.every((component) => component.plane === "DATA") &&
        data.components.some((component) => component.name === "kubelet"),
    );
    assert.equal(data.component.name, "kube-apiserver");
    assert.deepEqual(data.component.ports, [{ port: 6443, endPort: null }]);
    assert.deepEqual(data.ports, [{ component: "etcd", port: 2379 }]);
  });

  it("skewRules, apiRemovals, releases, release, profiles and links", async () => {
    const result = await gql<{
      skewRules: Array<{ id: string; condition: { componentOlderThan: string } | null }>;
      apiRemovals: Array<{ removedIn: string }>;
      releases: Array<{ version: string }>;
      release: { version: string; endOfLife: string };
      missing: null;
      profiles: Array<{ name: string; extends: string | null }>;
      links: Array<{ from: string; to: string; minTlsVersion: string | null }>;
      upgradeOrder: Array<{ before: string; after: string }>;
    }>(`{
      skewRules(kubernetesVersion: "1.28", profile: "upstream") { id condition { componentOlderThan } }
      apiRemovals(fromVersion: "1.25", toVersion: "1.29") { removedIn }
      releases { version }
      release(version: "v1.30.2") { version endOfLife }
      missing: release(version: "1.99") { version }
      profiles { name extends }
      links { from to minTlsVersion }
      upgradeOrder { before after }
    }`);
    assert.equal(result.errors, undefined);
    const data = result.data!;
    assert.ok(
      data.skewRules.some(
        (rule) =>
          rule.id === "upstream-kubelet-vs-apiserver-n3" &&
          rule.condition?.componentOlderThan === "1.25",
      ),
    );
    assert.deepEqual(
      [...new Set(data.apiRemovals.map((removal) => removal.removedIn))],
      ["1.26", "1.27", "1.29"],
    );
    assert.equal(data.releases[0]?.version, "1.19");
    assert.equal(data.release.version, "1.30");
    assert.equal(data.release.endOfLife, runtime.kb.current().findRelease("1.30")?.endOfLife);
    assert.equal(data.missing, null);
    assert.deepEqual(data.profiles, [
      { name: "strict", extends: "upstream" },
      { name: "upstream", extends: null },
    ]);
    assert.ok(
      data.links.some(
        (link) =>
          link.from === "kube-apiserver" && link.to === "etcd" && link.minTlsVersion === "1.2",
      ),
    );
    assert.ok(
      data.upgradeOrder.some((edge) => edge.before === "etcd" && edge.after === "kube-apiserver"),
    );
  });

  it("validateCluster answers a bad plan with ok=false and cited findings", async () => {
    const result = await gql<{
      validateCluster: {
        ok: boolean;
        kbRevision: number;
        findings: Array<{
          code: string;
          severity: string;
          instance: string | null;
          sourceUrl: string | null;
        }>;
      };
    }>(
      `query Validate($plan: ClusterPlanInput!) { validateCluster(plan: $plan, asOf: "2026-11-29") { ok kbRevision findings { code severity component instance message sourceUrl } } }`,
      {
        plan: {
          components: [
            { component: "apiserver", version: "1.30" },
            { component: "kubelet", version: "1.26", instance: "pool-b" },
          ],
        },
      },
    );
    assert.equal(result.errors, undefined);
    const report = result.data!.validateCluster;
    assert.equal(report.ok, false);
    assert.equal(report.kbRevision, 1);
    const skew = report.findings.find(
      (finding) => finding.code === "SKEW_KUBELET_TOO_OLD_FOR_APISERVER",
    );
    assert.deepEqual(
      [skew?.severity, skew?.instance, skew?.sourceUrl],
      ["ERROR", "pool-b", "https://kubernetes.io/releases/version-skew-policy/#kubelet"],
    );
  });

  it("planUpgrade returns ordered steps and the API removals crossed", async () => {
    const result = await gql<{
      planUpgrade: {
        ok: boolean;
        targetVersion: string;
        steps: Array<{ order: number; component: string; toVersion: string }>;
        apiRemovals: Array<{ removedIn: string }>;
      };
    }>(
      `{ planUpgrade(current: { components: [{ component: "apiserver", version: "1.28" }, { component: "kubelet", version: "1.28", instance: "a" }] }, targetVersion: "1.30") {
          ok targetVersion steps { order component instance fromVersion toVersion note } apiRemovals { removedIn } findings { code } } }`,
    );
    assert.equal(result.errors, undefined);
    const upgrade = result.data!.planUpgrade;
    assert.equal(upgrade.ok, true);
    assert.equal(upgrade.targetVersion, "1.30");
    assert.deepEqual(
      upgrade.steps.map((step) => step.component),
      ["kube-apiserver", "kube-apiserver", "kubelet"],
    );
    assert.deepEqual(
      upgrade.steps.map((step) => step.order),
      [1, 2, 3],
    );
    assert.deepEqual(
      [...new Set(upgrade.apiRemovals.map((removal) => removal.removedIn))],
      ["1.29"],
    );
  });

  it("checkRollback reports the rollback trap", async () => {
    const result = await gql<{ checkRollback: { ok: boolean; findings: Array<{ code: string }> } }>(
      `{ checkRollback(current: { components: [{ component: "kube-apiserver", version: "1.30" }, { component: "kubelet", version: "1.29", instance: "pool-a" }] },
          component: "kubelet", instance: "pool-a", toVersion: "1.28", profile: "strict") { ok findings { code } } }`,
    );
    assert.equal(result.errors, undefined);
    assert.equal(result.data!.checkRollback.ok, false);
    assert.equal(result.data!.checkRollback.findings[0]?.code, "ROLLBACK_TRAP");
  });

  it("scanManifests finds removed APIs with their line", async () => {
    const manifests =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ok\n---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n  namespace: ops\n";
    const result = await gql<{
      scanManifests: {
        targetVersion: string;
        findings: Array<{
          code: string;
          kind: string;
          name: string;
          namespace: string;
          documentIndex: number;
          line: number;
          replacement: string;
        }>;
      };
    }>(
      `query Scan($manifests: String!) { scanManifests(manifests: $manifests, targetVersion: "v1.25.3") { targetVersion findings { code kind name namespace documentIndex line replacement } } }`,
      { manifests },
    );
    assert.equal(result.errors, undefined);
    assert.equal(result.data!.scanManifests.targetVersion, "1.25");
    assert.deepEqual(result.data!.scanManifests.findings, [
      {
        code: "API_REMOVED",
        kind: "CronJob",
        name: "nightly",
        namespace: "ops",
        documentIndex: 1,
        line: 6,
        replacement: "batch/v1",
      },
    ]);
  });

  const badInputs: Array<[string, string, string, RegExp]> = [
    [
      "an unparseable version",
      `{ validateCluster(plan: { components: [{ component: "apiserver", version: "newest" }] }) { ok } }`,
      "plan.components[0].version",
      /is not a Kubernetes version/,
    ],
    [
      "an unknown component",
      `{ validateCluster(plan: { components: [{ component: "flux-capacitor", version: "1.30" }] }) { ok } }`,
      "plan.components[0].component",
      /unknown component "flux-capacitor"; valid names are/,
    ],
    [
      "an unknown profile",
      `{ planUpgrade(current: { components: [{ component: "apiserver", version: "1.29" }] }, targetVersion: "1.30", profile: "yolo") { ok } }`,
      "profile",
      /unknown profile "yolo"/,
    ],
    [
      "a bad target",
      `{ planUpgrade(current: { components: [{ component: "apiserver", version: "1.29" }] }, targetVersion: "soon") { ok } }`,
      "targetVersion",
      /targetVersion "soon"/,
    ],
    [
      "a bad filter",
      `{ apiRemovals(fromVersion: "1.29", toVersion: "1.25") { kind } }`,
      "from",
      /is newer than to/,
    ],
  ];
  for (const [name, query, field, message] of badInputs) {
    it(`answers ${name} with BAD_USER_INPUT naming ${field}`, async () => {
      const result = await gql(query);
      assert.equal(result.errors?.length, 1);
      const [error] = result.errors;
      assert.equal(error?.extensions?.code, "BAD_USER_INPUT");
      assert.equal(error?.extensions?.field, field);
      assert.match(error.message, message);
      assert.ok(!JSON.stringify(result).includes("    at "), "no stack trace leaks");
    });
  }

  it("reports document errors with GraphQL's own codes", async () => {
    const result = await gql(`{ validateCluster { ok } }`);
    assert.equal(result.errors?.[0]?.extensions?.code, "GRAPHQL_VALIDATION_FAILED");
    const syntax = await gql(`{ knowledgeBase { revision `);
    assert.equal(syntax.errors?.[0]?.extensions?.code, "GRAPHQL_PARSE_FAILED");
  });

  it("serves introspection with the schema's documentation", async () => {
    const result = await gql<{
      __type: { description: string; fields: Array<{ name: string; description: string | null }> };
    }>(`{ __type(name: "Query") { description fields { name description } } }`);
    const fields = result.data!.__type.fields;
    for (const name of [
      "knowledgeBase",
      "components",
      "component",
      "ports",
      "links",
      "skewRules",
      "apiRemovals",
      "releases",
      "release",
      "profiles",
      "validateCluster",
      "planUpgrade",
      "checkRollback",
      "scanManifests",
    ]) {
      const field = fields.find((candidate) => candidate.name === name);
      assert.ok(field?.description && field.description.length > 10, `${name} is documented`);
    }
  });

  it("serves the playground page to browsers at /graphql and /playground", async () => {
    const page = await request(runtime.app).get("/graphql").set("Accept", "text/html").expect(200);
    assert.match(page.headers["content-type"] ?? "", /text\/html/);
    assert.match(page.text, /kubecompat GraphQL/);
    assert.ok(!/<script[^>]+src="https?:\/\//.test(page.text), "no script from another host");
    await request(runtime.app).get("/playground").expect(200);
  });
});
