import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { scanManifests } from "../src/domain/scan.js";
import { REPO_ROOT, startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

const PLANS_DIR = path.join(REPO_ROOT, "test/fixtures/plans");
const plans = fs
  .readdirSync(PLANS_DIR)
  .filter((file) => file.endsWith(".json"))
  .sort();
const loadPlan = (file: string) =>
  JSON.parse(fs.readFileSync(path.join(PLANS_DIR, file), "utf8")) as {
    components: Array<Record<string, string>>;
    profile?: string;
    asOf?: string;
  };

const FINDING_FIELDS = "code check severity component instance message sourceUrl ruleId";

describe("REST operations", () => {
  let runtime: SnapshotRuntime;
  before(async () => {
    runtime = await startSnapshotRuntime();
  });
  after(async () => runtime.close());

  it("POST /api/v1/validate answers the GraphQL shape", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/validate")
      .send({
        components: [
          { component: "apiserver", version: "1.30" },
          { component: "kubelet", version: "1.26", instance: "pool-b" },
        ],
        asOf: "2026-11-29",
      })
      .expect(200);
    assert.deepEqual(Object.keys(response.body).sort(), ["findings", "kbRevision", "ok", "status"]);
    assert.equal(response.body.ok, false);
    assert.deepEqual(Object.keys(response.body.findings[0]).sort(), [
      "check",
      "code",
      "component",
      "instance",
      "message",
      "ruleId",
      "severity",
      "sourceUrl",
    ]);
    assert.equal(response.body.findings[0].code, "SKEW_KUBELET_TOO_OLD_FOR_APISERVER");
  });

  for (const file of plans) {
    it(`REST and GraphQL give identical findings for ${file}`, async () => {
      const plan = loadPlan(file);
      const rest = await request(runtime.app).post("/api/v1/validate").send(plan).expect(200);
      const graphql = await request(runtime.app)
        .post("/graphql")
        .send({
          query: `query($plan: ClusterPlanInput!, $profile: String, $asOf: String) { validateCluster(plan: $plan, profile: $profile, asOf: $asOf) { ok status kbRevision findings { ${FINDING_FIELDS} } } }`,
          variables: {
            plan: { components: plan.components },
            profile: plan.profile,
            asOf: plan.asOf,
          },
        })
        .expect(200);
      assert.equal(graphql.body.errors, undefined);
      assert.deepEqual(rest.body, graphql.body.data.validateCluster);
      assert.equal(rest.body.ok, file.startsWith("healthy"), "the fixtures cover both verdicts");

      const target = "1.35";
      const upgradeRest = await request(runtime.app)
        .post("/api/v1/upgrade-plan")
        .send({
          current: { components: plan.components },
          targetVersion: target,
          profile: plan.profile,
        })
        .expect(200);
      const upgradeGraphql = await request(runtime.app)
        .post("/graphql")
        .send({
          query: `query($current: ClusterPlanInput!, $profile: String) { planUpgrade(current: $current, targetVersion: "${target}", profile: $profile) {
            ok status kbRevision targetVersion steps { order component instance fromVersion toVersion note }
            apiRemovals { apiVersion group version kind introducedIn deprecatedIn removedIn replacement replacementAvailableIn servedByDefault notes sourceUrl disagreement revision }
            hops { kubernetesVersion changes { subject id kubernetesVersion change areas components title whatHappens beforeUpgrade detection { method detail } sourceUrl } }
            findings { ${FINDING_FIELDS} } } }`,
          variables: { current: { components: plan.components }, profile: plan.profile },
        })
        .expect(200);
      assert.deepEqual(upgradeRest.body, upgradeGraphql.body.data.planUpgrade);
    });
  }

  it("POST /api/v1/upgrade-plan and /rollback-check", async () => {
    const plan = await request(runtime.app)
      .post("/api/v1/upgrade-plan")
      .send({
        current: {
          components: [
            { component: "apiserver", version: "1.28" },
            { component: "kubelet", version: "1.28", instance: "a" },
          ],
        },
        targetVersion: "1.30",
      })
      .expect(200);
    assert.deepEqual(
      plan.body.steps.map((step: { component: string }) => step.component),
      ["kube-apiserver", "kube-apiserver", "kubelet"],
    );
    assert.deepEqual(
      [
        ...new Set(
          plan.body.apiRemovals.map((removal: { removedIn: string }) => removal.removedIn),
        ),
      ],
      ["1.29"],
    );
    const rollback = await request(runtime.app)
      .post("/api/v1/rollback-check")
      .send({
        current: {
          components: [
            { component: "apiserver", version: "1.30" },
            { component: "kubelet", version: "1.29", instance: "pool-a" },
          ],
        },
        component: "kubelet",
        instance: "pool-a",
        toVersion: "1.28",
        profile: "strict",
      })
      .expect(200);
    assert.equal(rollback.body.ok, false);
    assert.equal(rollback.body.findings[0].code, "ROLLBACK_TRAP");
  });

  it("POST /api/v1/scan takes JSON, or raw YAML with ?targetVersion=", async () => {
    const manifests =
      "# Source: app/templates/cron.yaml\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n";
    const json = await request(runtime.app)
      .post("/api/v1/scan")
      .send({ manifests, targetVersion: "1.25" })
      .expect(200);
    const yaml = await request(runtime.app)
      .post("/api/v1/scan?targetVersion=1.25")
      .set("Content-Type", "application/yaml")
      .send(manifests)
      .expect(200);
    assert.deepEqual(json.body, yaml.body);
    assert.equal(json.body.findings[0].code, "API_REMOVED");
    assert.equal(json.body.findings[0].source, "app/templates/cron.yaml");
    const missingTarget = await request(runtime.app)
      .post("/api/v1/scan")
      .set("Content-Type", "application/yaml")
      .send(manifests)
      .expect(400);
    assert.equal(missingTarget.body.error.details[0].field, "targetVersion");
  });

  it("writes a large scan's answer a chunk at a time, as the very text JSON.stringify gives", async () => {
    const document = (index: number) =>
      `---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: job-${index}\n  namespace: "ns-${index % 7}"\n`;
    const manifests = Array.from({ length: 2600 }, (_, index) => document(index)).join("");
    const response = await request(runtime.app)
      .post("/api/v1/scan?targetVersion=1.25")
      .set("Content-Type", "application/yaml")
      .send(manifests)
      .expect(200);
    const expected = scanManifests(runtime.kb.current(), manifests, "1.25");
    assert.equal(expected.findings.length, 2600, "more findings than one chunk holds");
    assert.equal(response.text, JSON.stringify(expected));
  });

  it("POST /api/v1/validate/from-kubectl and /upgrade-plan/from-kubectl read kubectl's JSON", async () => {
    const kubectlVersion = {
      clientVersion: { major: "1", minor: "30", gitVersion: "v1.30.2", platform: "linux/amd64" },
      kustomizeVersion: "v5.0.4-0.20230601165947-6ce0bf390ce3",
      serverVersion: {
        major: "1",
        minor: "30+",
        gitVersion: "v1.30.4-eks-a737599",
        platform: "linux/amd64",
      },
    };
    const node = (name: string, pool: string, kubelet: string, runtime: string) => ({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: {
          "eks.amazonaws.com/nodegroup": pool,
          "kubernetes.io/hostname": name,
          "node.kubernetes.io/instance-type": "m5.large",
        },
      },
      status: {
        nodeInfo: {
          kubeletVersion: kubelet,
          kubeProxyVersion: kubelet,
          containerRuntimeVersion: runtime,
          osImage: "Amazon Linux 2",
          architecture: "amd64",
        },
      },
    });
    const nodes = {
      apiVersion: "v1",
      kind: "List",
      items: [
        node("ip-10-0-1-10.ec2.internal", "general", "v1.30.4-eks-a737599", "containerd://1.7.11"),
        node("ip-10-0-1-11.ec2.internal", "general", "v1.30.4-eks-a737599", "containerd://1.7.11"),
        node("ip-10-0-2-20.ec2.internal", "legacy", "v1.26.15-eks-ae9a62a", "containerd://1.6.19"),
      ],
    };
    const validated = await request(runtime.app)
      .post("/api/v1/validate/from-kubectl")
      .send({ kubectlVersion, nodes, asOf: "2026-11-29" })
      .expect(200);
    assert.equal(validated.body.ok, false);
    const skew = validated.body.findings.filter((finding: { code: string }) =>
      finding.code.startsWith("SKEW_"),
    );
    assert.deepEqual(
      skew
        .map((finding: { code: string; instance: string }) => `${finding.code}@${finding.instance}`)
        .sort(),
      ["SKEW_KUBELET_TOO_OLD_FOR_APISERVER@legacy", "SKEW_KUBE_PROXY_TOO_OLD_FOR_APISERVER@legacy"],
    );
    const planned = await request(runtime.app)
      .post("/api/v1/upgrade-plan/from-kubectl")
      .send({
        kubectlVersion: { serverVersion: { gitVersion: "v1.29.6" } },
        nodes: { items: [node("n1", "general", "v1.29.6", "containerd://1.7.11")] },
        targetVersion: "1.30",
        asOf: "2026-06-01",
        platform: "upstream",
      })
      .expect(200);
    assert.equal(planned.body.ok, true);
    // Without "upstream", the nodes' eks.amazonaws.com/nodegroup label makes it EKS, whose 1.29 left extended support on 2026-03-23.
    const onEks = await request(runtime.app)
      .post("/api/v1/upgrade-plan/from-kubectl")
      .send({
        kubectlVersion: { serverVersion: { gitVersion: "v1.29.6" } },
        nodes: { items: [node("n1", "general", "v1.29.6", "containerd://1.7.11")] },
        targetVersion: "1.30",
        asOf: "2026-06-01",
      })
      .expect(200);
    assert.ok(
      (onEks.body.findings as Array<{ code: string }>).some(
        (finding) => finding.code === "PLATFORM_END_OF_SUPPORT",
      ),
      JSON.stringify(onEks.body.findings),
    );
    assert.deepEqual(
      planned.body.steps.map(
        (step: { component: string; instance: string | null }) =>
          `${step.component}@${step.instance}`,
      ),
      [
        "kube-apiserver@null",
        // containerd's own table lists 1.7.13+ for 1.30: the runtime moves before its kubelet.
        "containerd@general",
        "kubelet@general",
        "kube-proxy@general",
      ],
    );
    assert.equal(planned.body.steps[1].toVersion, "1.7.13");
    // After September 2026 the 1.7 line is past its own end of life: the plan of that day moves to the oldest line in its
    // project's active support that containerd's table has nothing against (2.3; 2.0 is in extended support only).
    const later = await request(runtime.app)
      .post("/api/v1/upgrade-plan/from-kubectl")
      .send({
        kubectlVersion: { serverVersion: { gitVersion: "v1.29.6" } },
        nodes: { items: [node("n1", "general", "v1.29.6", "containerd://1.7.11")] },
        targetVersion: "1.30",
        asOf: "2026-12-01",
        platform: "upstream",
      })
      .expect(200);
    assert.equal(
      later.body.steps.find((step: { component: string }) => step.component === "containerd")
        ?.toVersion,
      "2.3.0",
    );
    const badDay = await request(runtime.app)
      .post("/api/v1/upgrade-plan")
      .send({
        current: { components: [{ component: "kube-apiserver", version: "1.30" }] },
        targetVersion: "1.31",
        asOf: "2026-13-01",
      })
      .expect(400);
    assert.equal(
      badDay.body.error.details?.[0]?.field ?? badDay.body.error.field ?? "asOf",
      "asOf",
    );
    const bad = await request(runtime.app)
      .post("/api/v1/validate/from-kubectl")
      .send({ kubectlVersion: { clientVersion: { gitVersion: "v1.30.0" } } })
      .expect(400);
    assert.equal(bad.body.error.details[0].field, "kubectlVersion.serverVersion.gitVersion");
    const none = await request(runtime.app)
      .post("/api/v1/validate/from-kubectl")
      .send({})
      .expect(400);
    assert.match(none.body.error.message, /give kubectlVersion/);
  });

  const errorCases: Array<[string, () => request.Test, number, string, RegExp]> = [
    [
      "a missing field",
      () =>
        request(runtime.app)
          .post("/api/v1/validate")
          .send({ components: [{ component: "kubelet" }] }),
      400,
      "components[0].version",
      /is required/,
    ],
    [
      "an unknown field",
      () =>
        request(runtime.app).post("/api/v1/validate").send({ components: [], profle: "strict" }),
      400,
      "body",
      /unknown field "profle"/,
    ],
    [
      "a bad version",
      () =>
        request(runtime.app)
          .post("/api/v1/validate")
          .send({ components: [{ component: "kubelet", version: "x.y" }] }),
      400,
      "components[0].version",
      /is not a Kubernetes version/,
    ],
    [
      "an unknown component",
      () =>
        request(runtime.app)
          .post("/api/v1/upgrade-plan")
          .send({
            current: { components: [{ component: "kube-foo", version: "1.30" }] },
            targetVersion: "1.31",
          }),
      400,
      "current.components[0].component",
      /unknown component/,
    ],
    [
      "a wrong type",
      () =>
        request(runtime.app)
          .post("/api/v1/rollback-check")
          .send({ current: { components: [] }, component: 7, toVersion: "1.2" }),
      400,
      "component",
      /expected string/,
    ],
    [
      "malformed JSON",
      () =>
        request(runtime.app)
          .post("/api/v1/validate")
          .set("Content-Type", "application/json")
          .send('{"components": ['),
      400,
      "",
      /not valid JSON/,
    ],
  ];
  for (const [name, send, status, field, message] of errorCases) {
    it(`answers ${name} with ${status} naming ${field || "the problem"}`, async () => {
      const response = await send().expect(status);
      assert.equal(response.body.error.code, "BAD_USER_INPUT");
      assert.match(response.body.error.message, message);
      if (field) assert.equal(response.body.error.details[0].field, field);
    });
  }

  it("answers 415 for a wrong content type and 413 for a body over the limit", async () => {
    const form = await request(runtime.app)
      .post("/api/v1/validate")
      .type("form")
      .send("components=kubelet")
      .expect(415);
    assert.equal(form.body.error.code, "UNSUPPORTED_MEDIA_TYPE");
    const text = await request(runtime.app)
      .post("/api/v1/scan")
      .set("Content-Type", "text/plain")
      .send("apiVersion: v1")
      .expect(415);
    assert.equal(text.body.error.code, "UNSUPPORTED_MEDIA_TYPE");
    const huge = JSON.stringify({ manifests: "x".repeat(12 * 1024 * 1024), targetVersion: "1.30" });
    const tooLarge = await request(runtime.app)
      .post("/api/v1/scan")
      .set("Content-Type", "application/json")
      .send(huge)
      .expect(413);
    assert.equal(tooLarge.body.error.code, "PAYLOAD_TOO_LARGE");
  });

  it("answers 404 for an unknown operation and never 500 for bad input", async () => {
    await request(runtime.app).post("/api/v1/validates").send({}).expect(404);
    for (const body of [
      null,
      [],
      "text",
      42,
      { components: null },
      { components: [null] },
      { components: [{ component: "kubelet", version: "1.30", instance: 5 }] },
    ]) {
      const response = await request(runtime.app)
        .post("/api/v1/validate")
        .set("Content-Type", "application/json")
        .send(JSON.stringify(body));
      assert.ok(
        response.status >= 400 && response.status < 500,
        `${JSON.stringify(body)} → ${response.status}`,
      );
    }
  });
});
