/**
 * What runs in a cluster (issue 17, inputs from a live cluster). No cluster
 * runs here: the inputs are built in the formats the commands print. Helm 3
 * release Secrets are encoded as Helm stores them (release JSON, gzip,
 * base64, and the Secret's own base64), ConfigMap releases with one base64
 * less; the metrics are Prometheus text as `kubectl get --raw /metrics`
 * prints it; the audit log is audit.k8s.io/v1 Event JSON lines.
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { scanCluster } from "../src/domain/cluster-evidence.js";
import { readHelmReleases } from "../src/domain/helm-releases.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";
import { kbSnapshot } from "./support/snapshot.js";

let snapshot: KbSnapshot;
let runtime: SnapshotRuntime;
before(async () => {
  snapshot = await kbSnapshot();
  runtime = await startSnapshotRuntime();
});
after(async () => {
  await runtime.close();
});

const pdb = (apiVersion: string) => `---
# Source: shop/templates/pdb.yaml
apiVersion: ${apiVersion}
kind: PodDisruptionBudget
metadata:
  name: shop
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: shop}
---
# Source: shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  ports: [{port: 80}]
`;

function release(
  name: string,
  namespace: string,
  revision: number,
  status: string,
  manifest: string,
) {
  return {
    name,
    namespace,
    version: revision,
    info: {
      status,
      first_deployed: "2024-02-01T10:00:00Z",
      last_deployed: "2024-05-01T10:00:00Z",
      description: "Upgrade complete",
    },
    chart: {
      metadata: { apiVersion: "v2", name: "shop", version: "1.4.2", appVersion: "2.0.1" },
      templates: [],
      values: {},
    },
    config: { replicas: 2 },
    manifest,
  };
}

function secret(body: ReturnType<typeof release>) {
  const helmEncoded = gzipSync(Buffer.from(JSON.stringify(body))).toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "helm.sh/release.v1",
    metadata: {
      name: `sh.helm.release.v1.${body.name}.v${body.version}`,
      namespace: body.namespace,
      labels: {
        name: body.name,
        owner: "helm",
        status: body.info.status,
        version: String(body.version),
      },
      resourceVersion: "4411",
    },
    data: { release: Buffer.from(helmEncoded).toString("base64") },
  };
}

function configMap(body: ReturnType<typeof release>) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `${body.name}.v${body.version}`,
      namespace: body.namespace,
      labels: {
        NAME: body.name,
        OWNER: "TILLER",
        STATUS: body.info.status,
        VERSION: String(body.version),
      },
    },
    data: { release: gzipSync(Buffer.from(JSON.stringify(body))).toString("base64") },
  };
}

const helmSecrets = {
  apiVersion: "v1",
  kind: "List",
  metadata: { resourceVersion: "" },
  items: [
    secret(release("shop", "shop", 2, "superseded", pdb("policy/v1beta1"))),
    secret(release("shop", "shop", 3, "deployed", pdb("policy/v1beta1"))),
    secret(release("blog", "web", 1, "deployed", pdb("policy/v1"))),
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "sh.helm.release.v1.broken.v1", namespace: "web" },
      data: { release: "bm90IGd6aXA=" },
    },
  ],
};

const metrics = `# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.
# TYPE apiserver_requested_deprecated_apis gauge
apiserver_requested_deprecated_apis{group="batch",removed_release="1.25",resource="cronjobs",subresource="",version="v1beta1"} 1
apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1
# HELP apiserver_request_total [STABLE] Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1234
`;

const auditEvent = (user: string, agent: string, id: number) =>
  JSON.stringify({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: `7d4f0c7e-1b2a-4c3d-9e8f-00000000000${id}`,
    stage: "ResponseComplete",
    requestURI: "/apis/batch/v1beta1/namespaces/jobs/cronjobs",
    verb: "list",
    user: { username: user, groups: ["system:authenticated"] },
    sourceIPs: ["10.0.3.14"],
    userAgent: agent,
    objectRef: {
      resource: "cronjobs",
      namespace: "jobs",
      apiGroup: "batch",
      apiVersion: "v1beta1",
    },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: "2024-06-01T08:00:00.000000Z",
    stageTimestamp: "2024-06-01T08:00:00.004000Z",
    annotations: {
      "authorization.k8s.io/decision": "allow",
      "k8s.io/deprecated": "true",
      "k8s.io/removed-release": "1.25",
    },
  });

const auditLog = [
  auditEvent("system:serviceaccount:jobs:cron-operator", "cron-operator/v0.9.1 (linux/amd64)", 1),
  auditEvent("system:serviceaccount:jobs:cron-operator", "cron-operator/v0.9.1 (linux/amd64)", 2),
  auditEvent("alice@example.com", "kubectl/v1.24.3 (linux/amd64) kubernetes/aef86a9", 3),
  JSON.stringify({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    verb: "get",
    objectRef: { resource: "pods", apiVersion: "v1" },
    annotations: {},
  }),
  "{not json",
].join("\n");

const objects = {
  apiVersion: "v1",
  kind: "List",
  items: [
    {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: {
        name: "api",
        namespace: "shop",
        annotations: {
          "kubectl.kubernetes.io/last-applied-configuration":
            JSON.stringify({
              apiVersion: "policy/v1beta1",
              kind: "PodDisruptionBudget",
              metadata: { name: "api", namespace: "shop" },
              spec: { minAvailable: 1 },
            }) + "\n",
        },
      },
      spec: { minAvailable: 1 },
    },
    {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "web", namespace: "shop" },
      spec: { minAvailable: 1 },
    },
  ],
};

describe("Helm releases", () => {
  it("decodes Secrets and ConfigMaps, keeps each release's newest revision and names the skipped ones", () => {
    const releases = readHelmReleases(helmSecrets);
    assert.deepEqual(
      releases.map((entry) => [
        entry.namespace,
        entry.name,
        entry.revision,
        entry.skippedRevisions,
        entry.chart,
        entry.chartVersion,
      ]),
      [
        ["shop", "shop", 3, [2], "shop", "1.4.2"],
        ["web", "blog", 1, [], "shop", "1.4.2"],
      ],
    );
    const fromConfigMaps = readHelmReleases({
      items: [configMap(release("legacy", "ops", 7, "deployed", pdb("policy/v1beta1")))],
    });
    assert.equal(fromConfigMaps[0]?.revision, 7);
    assert.match(fromConfigMaps[0].manifest, /policy\/v1beta1/);
  });

  it("blocks a release whose stored manifest uses an API removed at the target, and says how to repair its record", () => {
    const report = scanCluster(snapshot, { helmReleases: helmSecrets }, "1.25");
    const blocked = report.findings.filter(
      (entry) => entry.evidence === "HELM_RELEASE" && entry.severity === "ERROR",
    );
    assert.equal(blocked.length, 1, JSON.stringify(report.findings));
    assert.deepEqual(blocked[0]!.release, {
      name: "shop",
      namespace: "shop",
      chart: "shop",
      chartVersion: "1.4.2",
      revision: 3,
    });
    assert.match(blocked[0]!.message, /next `helm upgrade` of the release fails/);
    assert.match(blocked[0]!.message, /helm mapkubeapis shop --namespace shop/);
    assert.equal(blocked[0]!.replacement, "policy/v1");
    assert.ok(
      report.notes.some(
        (note) =>
          note.code === "DOCUMENT_UNREADABLE" &&
          /web\/sh\.helm\.release\.v1\.broken\.v1/.test(note.message),
      ),
      "the unreadable record is said",
    );
    assert.equal(report.status, "UNSUPPORTED");
    // Before the removal, the same release is only deprecated.
    const early = scanCluster(snapshot, { helmReleases: helmSecrets }, "1.24");
    assert.ok(early.findings.every((entry) => entry.severity !== "ERROR"));
  });
});

describe("objects, metrics and audit events", () => {
  it("judges objects by their last-applied apiVersion, not the served one, and says which could not be judged", () => {
    const report = scanCluster(snapshot, { objects }, "1.25");
    assert.deepEqual(
      report.findings.map((entry) => [entry.evidence, entry.code, entry.apiVersion, entry.name]),
      [["LAST_APPLIED", "API_REMOVED", "policy/v1beta1", "api"]],
    );
    assert.match(
      report.findings[0]!.message,
      /as last applied; the cluster serves it as policy\/v1/,
    );
    assert.ok(
      report.notes.some((note) => /1 object carries no last-applied annotation/.test(note.message)),
    );
  });

  it("reads apiserver_requested_deprecated_apis from the metrics text", () => {
    const report = scanCluster(snapshot, { metrics }, "1.29");
    assert.deepEqual(
      report.findings.map((entry) => [
        entry.evidence,
        entry.code,
        entry.severity,
        entry.apiVersion,
        entry.kind,
        entry.removedIn,
      ]),
      [
        [
          "REQUEST_METRIC",
          "DEPRECATED_API_REQUESTED",
          "ERROR",
          "batch/v1beta1",
          "cronjobs",
          "1.25",
        ],
        [
          "REQUEST_METRIC",
          "DEPRECATED_API_REQUESTED",
          "WARNING",
          "flowcontrol.apiserver.k8s.io/v1beta3",
          "flowschemas",
          "1.32",
        ],
      ],
    );
    assert.equal(report.findings[0]!.replacement, "batch/v1");
    assert.ok(
      scanCluster(snapshot, { metrics: "# nothing here\n" }, "1.29").notes.some((note) =>
        /no apiserver_requested_deprecated_apis series/.test(note.message),
      ),
    );
  });

  it("names who calls a deprecated API, from the audit log", () => {
    const report = scanCluster(snapshot, { auditLog }, "1.25");
    assert.equal(report.findings.length, 1);
    const [called] = report.findings;
    assert.equal(called!.evidence, "AUDIT_EVENT");
    assert.equal(called!.severity, "ERROR");
    assert.deepEqual(called!.callers, [
      {
        user: "system:serviceaccount:jobs:cron-operator",
        userAgent: "cron-operator/v0.9.1 (linux/amd64)",
        requests: 2,
      },
      {
        user: "alice@example.com",
        userAgent: "kubectl/v1.24.3 (linux/amd64) kubernetes/aef86a9",
        requests: 1,
      },
    ]);
    assert.match(
      called!.message,
      /^3 requests for cronjobs of batch\/v1beta1 \(removed in 1\.25\), which fail at 1\.25/,
    );
    assert.ok(
      report.notes.some((note) => /1 line of the audit log is not JSON/.test(note.message)),
    );
  });

  it("refuses a request with nothing to scan, and inputs of the wrong shape, naming the field", () => {
    assert.throws(() => scanCluster(snapshot, {}, "1.29"), /give helmReleases/);
    assert.throws(
      () => scanCluster(snapshot, { helmReleases: { kind: "Secret" } }, "1.29"),
      /helmReleases must be the JSON of `kubectl get secrets -A -l owner=helm -o json`/,
    );
    assert.throws(
      () => scanCluster(snapshot, { metrics: { text: 1 } }, "1.29"),
      /metrics must be the text of `kubectl get --raw \/metrics`/,
    );
  });
});

describe("on REST and GraphQL", () => {
  it("POST /api/v1/scan/cluster answers every input at once", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/scan/cluster")
      .send({ targetVersion: "1.25", helmReleases: helmSecrets, objects, metrics, auditLog })
      .expect(200);
    const body = response.body as {
      status: string;
      findings: Array<{ evidence: string }>;
      releases: unknown[];
    };
    assert.equal(body.status, "UNSUPPORTED");
    assert.deepEqual([...new Set(body.findings.map((entry) => entry.evidence))].sort(), [
      "AUDIT_EVENT",
      "HELM_RELEASE",
      "LAST_APPLIED",
      "REQUEST_METRIC",
    ]);
    assert.equal(body.releases.length, 2);
    await request(runtime.app)
      .post("/api/v1/scan/cluster")
      .send({ targetVersion: "1.25", helm: {} })
      .expect(400, /helm/);
  });

  it("scanCluster over GraphQL", async () => {
    const query = `query($metrics: String, $helm: JSONObject) { scanCluster(targetVersion: "1.25", metrics: $metrics, helmReleases: $helm) { status releases { name revision skippedRevisions } findings { evidence code release { name revision } callers { user } } } }`;
    const body = (
      await request(runtime.app)
        .post("/graphql")
        .send({ query, variables: { metrics, helm: helmSecrets } })
        .expect(200)
    ).body as {
      data?: {
        scanCluster: {
          status: string;
          releases: Array<{ name: string; skippedRevisions: number[] }>;
          findings: Array<{ evidence: string; release: { name: string } | null }>;
        };
      };
      errors?: unknown;
    };
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    assert.equal(body.data!.scanCluster.status, "UNSUPPORTED");
    assert.deepEqual(
      body.data!.scanCluster.releases.find((entry) => entry.name === "shop")?.skippedRevisions,
      [2],
    );
    assert.ok(
      body.data!.scanCluster.findings.some(
        (entry) => entry.evidence === "HELM_RELEASE" && entry.release?.name === "shop",
      ),
    );
  });
});

describe("in chat", () => {
  it("judges metrics or audit lines pasted after `scan to`, instead of manifests", async () => {
    const { answer } = await import("../src/chatops/commands.js");
    const fromMetrics = answer(snapshot, `scan to 1.29\n\`\`\`\n${metrics}\`\`\``).text;
    assert.match(fromMetrics, /What runs breaks at 1\.29/);
    assert.match(fromMetrics, /\[REQUEST_METRIC\] clients requested cronjobs of batch\/v1beta1/);
    const fromAudit = answer(
      snapshot,
      `scan to 1.25\n${auditLog.split("\n").slice(0, 3).join("\n")}`,
    ).text;
    assert.match(fromAudit, /\[AUDIT_EVENT\] 3 requests for cronjobs of batch\/v1beta1/);
    assert.match(fromAudit, /system:serviceaccount:jobs:cron-operator/);
    // Objects from the cluster are judged by the apiVersion they were applied with, and say so.
    const fromObjects = answer(
      snapshot,
      `scan to 1.25\n\`\`\`\n${JSON.stringify(objects, null, 4)}\n\`\`\``,
    ).text;
    assert.match(fromObjects, /\[LAST_APPLIED\]/);
    assert.match(fromObjects, /as last applied; the cluster serves it as policy\/v1/);
    // Manifests still go to the manifest scan.
    assert.match(
      answer(
        snapshot,
        "scan to 1.25\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: x}\n",
      ).text,
      /Removed APIs at 1\.25/,
    );
  });
});
