/**
 * deploy/kubernetes cannot be applied here (no cluster), so the manifests
 * are parsed and checked against the app: ports, probes, environment names,
 * selectors, and that kubecompat's own scanner finds no removed API in them.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { ENVIRONMENT_VARIABLES, parseConfig } from "../src/core/config.js";
import { scanManifests } from "../src/domain/scan.js";
import { kbSnapshot } from "./support/snapshot.js";
import { REPO_ROOT } from "./support/runtime.js";

const DIR = path.join(REPO_ROOT, "deploy/kubernetes");
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed manifests, checked field by field below
type Json = Record<string, any>;

describe("Kubernetes manifests", () => {
  let objects: Json[];
  let deployment: Json;
  let container: Json;
  const byKind = (kind: string) => objects.find((object) => object.kind === kind)!;

  before(() => {
    const kustomization = parse(fs.readFileSync(path.join(DIR, "kustomization.yaml"), "utf8")) as {
      resources: string[];
    };
    objects = kustomization.resources.flatMap((file) =>
      parseAllDocuments(fs.readFileSync(path.join(DIR, file), "utf8")).map(
        (document) => document.toJS() as Json,
      ),
    );
    deployment = byKind("Deployment");
    container = deployment.spec.template.spec.containers[0];
  });

  it("runs at least two replicas, never all down during a rollout or a drain", () => {
    assert.ok(deployment.spec.replicas >= 2);
    assert.equal(deployment.spec.strategy.rollingUpdate.maxUnavailable, 0);
    const pdb = byKind("PodDisruptionBudget");
    assert.ok(pdb.spec.minAvailable >= 1 && pdb.spec.minAvailable < deployment.spec.replicas);
    const hpa = byKind("HorizontalPodAutoscaler");
    assert.ok(hpa.spec.minReplicas >= 2 && hpa.spec.maxReplicas > hpa.spec.minReplicas);
    assert.equal(hpa.spec.scaleTargetRef.name, deployment.metadata.name);
  });

  it("selects its own pods everywhere", () => {
    const labels = deployment.spec.template.metadata.labels as Record<string, string>;
    for (const object of [deployment, byKind("PodDisruptionBudget")]) {
      for (const [key, value] of Object.entries(
        object.spec.selector.matchLabels as Record<string, string>,
      ))
        assert.equal(labels[key], value, object.kind);
    }
    for (const [key, value] of Object.entries(
      byKind("Service").spec.selector as Record<string, string>,
    ))
      assert.equal(labels[key], value);
  });

  it("probes /readyz and /healthz on the port the app listens on", () => {
    const env = Object.fromEntries(
      (container.env as Json[])
        .filter((entry) => "value" in entry)
        .map((entry) => [entry.name, entry.value]),
    );
    const port = parseConfig({ ...env, DATABASE_URL: "postgresql://x@db/kubecompat" }).http.port;
    const http = (container.ports as Json[]).find((candidate) => candidate.name === "http");
    assert.equal(http?.containerPort, port);
    assert.equal(container.readinessProbe.httpGet.path, "/readyz");
    assert.equal(container.livenessProbe.httpGet.path, "/healthz");
    assert.equal(container.readinessProbe.httpGet.port, "http");
    assert.equal(byKind("Service").spec.ports[0].targetPort, "http");
    const shutdownSeconds =
      parseConfig({ ...env, DATABASE_URL: "postgresql://x@db/kubecompat" }).http.shutdownTimeoutMs /
      1000;
    assert.ok(
      deployment.spec.template.spec.terminationGracePeriodSeconds > shutdownSeconds,
      "pods drain before they are killed",
    );
  });

  it("uses only variables the config knows, secrets from the Secret, and bounded resources", () => {
    const secret = parse(fs.readFileSync(path.join(DIR, "secret.example.yaml"), "utf8")) as Json;
    for (const entry of container.env as Json[]) {
      assert.ok(
        ENVIRONMENT_VARIABLES.includes(entry.name),
        `${entry.name} is not read by src/core/config.ts`,
      );
      const ref = entry.valueFrom?.secretKeyRef;
      if (ref) {
        assert.equal(ref.name, secret.metadata.name);
        assert.ok(ref.key in secret.stringData, `${ref.key} is in the Secret`);
      }
    }
    assert.ok(
      (container.env as Json[]).some(
        (entry) => entry.name === "DATABASE_URL" && entry.valueFrom?.secretKeyRef,
      ),
      "DATABASE_URL comes from the Secret",
    );
    assert.ok(
      (container.env as Json[]).some(
        (entry) => entry.name === "SLACK_SIGNING_SECRET" && entry.valueFrom?.secretKeyRef,
      ),
    );
    for (const kind of ["requests", "limits"]) {
      assert.ok(
        container.resources[kind].cpu && container.resources[kind].memory,
        `resources.${kind}`,
      );
    }
    assert.equal(deployment.spec.template.spec.securityContext.runAsNonRoot, true);
  });

  it("passes kubecompat's own scan at the newest release it knows", async () => {
    const snapshot = await kbSnapshot();
    const text = objects.map((object) => JSON.stringify(object)).join("\n---\n");
    const report = scanManifests(snapshot, text, snapshot.newestRelease!.version);
    assert.equal(report.objectsScanned, objects.length);
    assert.deepEqual(report.findings, []);
  });
});
