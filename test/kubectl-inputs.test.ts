import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { planFromKubectl } from "../src/domain/kubectl-inputs.js";
import { InputError } from "../src/core/errors.js";
import { REPO_ROOT } from "./support/runtime.js";
import { kbSnapshot } from "./support/snapshot.js";

const snapshot = await kbSnapshot();

const fixture = (name: string): unknown =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "test/fixtures/kubectl", name), "utf8"));
const render = (plan: ReturnType<typeof planFromKubectl>) =>
  plan
    .map(
      (entry) => `${entry.component}${entry.instance ? `@${entry.instance}` : ""}=${entry.version}`,
    )
    .sort();

describe("reading kubectl's JSON", () => {
  it("names runtimes by the knowledge base's components and aliases (docker:// is docker-engine)", () => {
    const node = (runtime: string) => ({
      metadata: { name: "n" },
      status: { nodeInfo: { kubeletVersion: "v1.23.17", containerRuntimeVersion: runtime } },
    });
    assert.deepEqual(
      render(planFromKubectl(snapshot, { nodes: { items: [node("docker://20.10.24")] } })),
      ["docker-engine@n=20.10.24", "kubelet@n=v1.23.17"],
    );
    assert.deepEqual(
      render(planFromKubectl(snapshot, { nodes: { items: [node("cri-o://1.23.5")] } })),
      ["cri-o@n=1.23.5", "kubelet@n=v1.23.17"],
    );
  });

  it("takes the server version as kube-apiserver and the client as kubectl", () => {
    const plan = planFromKubectl(snapshot, { kubectlVersion: fixture("version.json") });
    assert.deepEqual(render(plan), ["kube-apiserver=v1.29.4-eks-036c24b", "kubectl=v1.29.3"]);
  });

  it("groups EKS nodes by node group, with kubelet, kube-proxy and runtime", () => {
    const nodes = fixture("nodes-eks.json") as {
      items: Array<{ status: { nodeInfo: Record<string, string> } }>;
    };
    const plan = planFromKubectl(snapshot, { nodes });
    const groups = new Set(plan.map((entry) => entry.instance));
    assert.deepEqual([...groups].sort(), ["ng-batch", "ng-general"]);
    assert.ok(render(plan).includes("kubelet@ng-general=v1.28.8-eks-ae9a62a"));
    assert.ok(render(plan).includes("containerd@ng-batch=1.7.11"));
    assert.equal(
      plan.filter((entry) => entry.component === "kubelet").length,
      2,
      "one kubelet per pool, not per node",
    );
  });

  it("groups GKE nodes by node pool", () => {
    const plan = planFromKubectl(snapshot, { nodes: fixture("nodes-gke.json") });
    assert.deepEqual([...new Set(plan.map((entry) => entry.instance))].sort(), [
      "batch-pool",
      "default-pool",
    ]);
  });

  it("splits a pool whose nodes run different versions, and falls back to the node name", () => {
    const node = (name: string, labels: Record<string, string>, kubelet: string) => ({
      metadata: { name, labels },
      status: {
        nodeInfo: {
          kubeletVersion: kubelet,
          kubeProxyVersion: "",
          containerRuntimeVersion: "cri-o://1.29.1",
        },
      },
    });
    const plan = planFromKubectl(snapshot, {
      nodes: {
        items: [
          node("a", { "kubernetes.azure.com/agentpool": "sys" }, "v1.29.2"),
          node("b", { "kubernetes.azure.com/agentpool": "sys" }, "v1.28.9"),
          node("cp", { "node-role.kubernetes.io/control-plane": "" }, "v1.29.2"),
          node("lonely-node", {}, "v1.29.2"),
        ],
      },
    });
    assert.deepEqual(render(plan), [
      "cri-o@control-plane=1.29.1",
      "cri-o@lonely-node=1.29.1",
      "cri-o@sys:v1.28.9=1.29.1",
      "cri-o@sys:v1.29.2=1.29.1",
      "kubelet@control-plane=v1.29.2",
      "kubelet@lonely-node=v1.29.2",
      "kubelet@sys:v1.28.9=v1.28.9",
      "kubelet@sys:v1.29.2=v1.29.2",
    ]);
  });

  const bad: Array<[string, Parameters<typeof planFromKubectl>[1], string]> = [
    ["nothing", {}, "kubectlVersion"],
    [
      "a client-only version",
      { kubectlVersion: { clientVersion: { gitVersion: "v1.30.0" } } },
      "kubectlVersion.serverVersion.gitVersion",
    ],
    ["nodes without items", { nodes: { kind: "Node" } }, "nodes.items"],
    [
      "a node without kubeletVersion",
      { nodes: { items: [{ metadata: { name: "x" }, status: {} }] } },
      "nodes.items[0].status.nodeInfo.kubeletVersion",
    ],
    // A runtime scheme the knowledge base does not know is said, not dropped: the runtime would otherwise go unjudged.
    [
      "a runtime the knowledge base does not know",
      {
        nodes: {
          items: [
            {
              metadata: { name: "x" },
              status: {
                nodeInfo: { kubeletVersion: "v1.30.1", containerRuntimeVersion: "frakti://1.2.3" },
              },
            },
          ],
        },
      },
      "nodes.items[0].status.nodeInfo.containerRuntimeVersion",
    ],
  ];
  for (const [name, input, field] of bad) {
    it(`rejects ${name} naming ${field}`, () => {
      assert.throws(
        () => planFromKubectl(snapshot, input),
        (error: unknown) => error instanceof InputError && error.field === field,
      );
    });
  }
});
