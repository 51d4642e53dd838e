/**
 * `kubecompat collect` and `kubecompat scan-cluster`. No cluster can run here, so collect runs with KUBECTL
 * pointing at test/fixtures/kubectl-replay/kubectl.mjs, which replays recorded outputs of the real kubectl
 * commands (files in kubectl's formats) and refuses CRDs the way kubectl does for a user without access.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { kubecompat } from "./support/cli-process.js";
import { startListeningRuntime } from "./support/runtime.js";

const REPLAY = path.join(import.meta.dirname, "fixtures", "kubectl-replay", "kubectl.mjs");

describe("kubecompat collect and scan-cluster", () => {
  let listening: { url: string; close(): Promise<void> } | undefined;
  let dir: string;
  before(async () => {
    listening = await startListeningRuntime({ inMemory: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-collect-"));
  });
  after(async () => {
    await listening?.close();
  });

  it("gathers a bundle with the user's kubectl and context, naming what it could not collect", async () => {
    const log = path.join(dir, "argv.log");
    const bundlePath = path.join(dir, "bundle.json");
    const run = await kubecompat(["collect", "--context", "prod-eu", "--output-file", bundlePath], { env: { KUBECTL: REPLAY, KUBECTL_REPLAY_LOG: log } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /kubectl --context prod-eu get crd -o json failed: Error from server \(Forbidden\)/);
    const calls = fs.readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as string[]);
    assert.ok(calls.every((argv) => argv[0] === "--context" && argv[1] === "prod-eu"), "every call uses the context");
    assert.equal(calls.length, 6);
    const bundle = JSON.parse(fs.readFileSync(bundlePath, "utf8")) as Record<string, unknown>;
    assert.equal(bundle.kind, "KubecompatClusterBundle");
    assert.equal(bundle.context, "prod-eu");
    assert.equal((bundle.helmReleases as { items: unknown[] }).items.length, 2);
    assert.match(bundle.metrics as string, /apiserver_requested_deprecated_apis/);
    assert.equal(bundle.crds, undefined);
    assert.equal((bundle.errors as unknown[]).length, 1);
    assert.equal(fs.statSync(bundlePath).mode & 0o777, 0o600, "the bundle holds Helm release records: only its owner reads it");
    const missing = await kubecompat(["collect"], { env: { KUBECTL: path.join(dir, "no-such-kubectl") } });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /kubectl was not found .*set KUBECTL to its path/);
  });

  it("scans the bundle's Helm releases and metrics, and checks its nodes and workloads", async () => {
    const env = { KUBECOMPAT_URL: listening!.url, NO_COLOR: "1" };
    const bundlePath = path.join(dir, "bundle.json");
    const scan = await kubecompat(["scan-cluster", "--bundle", bundlePath, "--to", "1.25", "-o", "json"], { env });
    assert.equal(scan.code, 1, scan.stderr);
    const answer = JSON.parse(scan.stdout) as { findings: Array<{ evidence: string; code: string; severity: string; release: { revision: number } | null }>; releases: Array<{ revision: number; skippedRevisions: number[] }> };
    assert.deepEqual(answer.releases.map((release) => [release.revision, release.skippedRevisions]), [[5, [4]]]);
    assert.deepEqual(
      answer.findings.map((entry) => `${entry.evidence} ${entry.code} ${entry.severity}`).sort(),
      ["HELM_RELEASE API_REMOVED ERROR", "HELM_RELEASE API_REMOVED ERROR", "REQUEST_METRIC DEPRECATED_API_REQUESTED ERROR"],
    );
    const text = await kubecompat(["scan-cluster", "--bundle", bundlePath, "--to", "1.25"], { env });
    assert.match(text.stdout, /HELM_RELEASE +API_REMOVED +release shop\/shop r5: PodDisruptionBudget shop/);
    const check = await kubecompat(["check", "--bundle", bundlePath, "--platform", "upstream", "-o", "json"], { env });
    const checked = JSON.parse(check.stdout) as { findings: Array<{ code: string; component: string | null }> };
    assert.ok(checked.findings.some((entry) => entry.code === "ADDON_UNSUPPORTED" && entry.component === "cluster-autoscaler"), check.stdout.slice(0, 2000));
    const nothing = await kubecompat(["scan-cluster", "--to", "1.25"], { env });
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /needs something to scan: --bundle FILE/);
    fs.writeFileSync(path.join(dir, "not-a-bundle.json"), "{}");
    const wrong = await kubecompat(["scan-cluster", "--bundle", path.join(dir, "not-a-bundle.json"), "--to", "1.25"], { env });
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /is not a bundle written by `kubecompat collect`/);
  });
});
