/**
 * A real question for every POST operation of REST (the edits and the import excepted), keyed by its
 * route: the answers of every face are compared on these (test/carried-answers.test.ts, test/mcp.test.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./runtime.js";

const fixture = (name: string): unknown =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "test/fixtures", name), "utf8"));
const node = (name: string, version: string) => ({
  metadata: { name, labels: { "kubernetes.io/os": "linux" } },
  status: {
    nodeInfo: {
      kubeletVersion: version,
      kubeProxyVersion: version,
      containerRuntimeVersion: "containerd://1.7.11",
      osImage: "Ubuntu 22.04.4 LTS",
      kernelVersion: "5.15.0-105-generic",
    },
  },
});
export const plan = {
  components: [
    { component: "kube-apiserver", version: "1.30.2" },
    { component: "kube-controller-manager", version: "1.30.2" },
    { component: "kubelet", version: "1.26.5", instance: "pool-a" },
    { component: "kube-proxy", version: "1.26.5", instance: "pool-a" },
    { component: "containerd", version: "1.7.11", instance: "pool-a" },
  ],
  asOf: "2026-06-01",
};
const cronJob =
  "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n---\napiVersion: snapshot.storage.k8s.io/v1beta1\nkind: VolumeSnapshot\nmetadata:\n  name: s\n";
const metrics = [
  "# TYPE apiserver_requested_deprecated_apis gauge",
  'apiserver_requested_deprecated_apis{group="batch",removed_release="1.25",resource="cronjobs",subresource="",version="v1beta1"} 1',
  "",
].join("\n");

/** A question for every POST operation the OpenAPI document lists (the edits and the import excepted). */
export const OPERATIONS: Readonly<Record<string, unknown>> = {
  "/api/v1/validate": plan,
  "/api/v1/validate/from-kubectl": {
    kubectlVersion: fixture("kubectl/version.json"),
    nodes: fixture("kubectl/nodes-eks.json"),
    asOf: "2026-06-01",
  },
  "/api/v1/upgrade-plan": {
    current: { components: plan.components },
    targetVersion: "1.32",
    asOf: "2026-06-01",
  },
  "/api/v1/upgrade-plan/from-kubectl": {
    kubectlVersion: { serverVersion: { gitVersion: "v1.29.6" } },
    nodes: { items: [node("n1", "v1.29.6")] },
    targetVersion: "1.31",
    asOf: "2026-06-01",
    platform: "upstream",
  },
  "/api/v1/rollback-check": {
    current: { components: plan.components },
    component: "kube-apiserver",
    toVersion: "1.29.6",
  },
  "/api/v1/node-pool/upgrade-check": {
    controlPlaneVersion: "1.27",
    from: {
      name: "pool-a",
      kubeletVersion: "1.26.4",
      kubeProxyVersion: "1.26.4",
      kubeProxyMode: "ipvs",
      runtime: "containerd",
      runtimeVersion: "1.6.20",
      kubeletFlags: ["--container-runtime=remote"],
    },
    to: {
      name: "pool-a",
      kubeletVersion: "1.27.2",
      kubeProxyVersion: "1.27.2",
      kubeProxyMode: "ipvs",
      runtime: "containerd",
      runtimeVersion: "1.6.20",
      chartKubeVersion: ">=1.27.0-0 <1.30.0-0",
    },
  },
  "/api/v1/node-pool/rollback-check": {
    controlPlaneVersion: "1.30",
    profile: "strict",
    current: { name: "gpu", kubeletVersion: "1.29.4" },
    rollbackTo: { name: "gpu", kubeletVersion: "1.28.9" },
  },
  "/api/v1/scan": { manifests: cronJob, targetVersion: "1.29", fromVersion: "1.24" },
  "/api/v1/scan/chart": {
    files: {
      "Chart.yaml": 'apiVersion: v2\nname: web\nversion: 1.0.0\nkubeVersion: ">=1.19.0"\n',
      "templates/cronjob.yaml": cronJob,
    },
    targetVersion: "1.29",
    fromVersion: "1.24",
  },
  "/api/v1/fix": {
    manifests: cronJob,
    targetVersion: "1.25",
    fromVersion: "1.21",
    fileName: "jobs.yaml",
  },
  "/api/v1/scan/cluster": {
    targetVersion: "1.25",
    metrics,
    objects: fixture("manifests/kubectl-get-json.json"),
  },
  "/api/v1/firewall/check": { allowed: "workers -> control-plane tcp/6443\n", version: "1.31" },
};
