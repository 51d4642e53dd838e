/**
 * The plain text people paste: `kubectl get nodes` (default and -o wide) and
 * `kubectl version` (the 1.28+ form and the older version.Info form), read on
 * REST, in chat and by the CLI. No cluster runs here: the texts are written
 * as kubectl prints them (tabwriter columns, OS-IMAGE with spaces).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { answer as chatAnswer } from "../src/chatops/commands.js";
import { planFromKubectl, versionFromText } from "../src/domain/kubectl-inputs.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kubecompat } from "./support/cli-process.js";
import {
  startListeningRuntime,
  startSnapshotRuntime,
  type SnapshotRuntime,
} from "./support/runtime.js";
import { kbSnapshot } from "./support/snapshot.js";

const NODES = `NAME     STATUS   ROLES           AGE    VERSION
cp-1     Ready    control-plane   412d   v1.30.4
cp-2     Ready    control-plane   412d   v1.30.4
work-1   Ready    <none>          88d    v1.27.9
work-2   Ready    <none>          88d    v1.26.15
`;

const NODES_WIDE = `NAME     STATUS   ROLES           AGE    VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME
cp-1     Ready    control-plane   412d   v1.30.4   10.0.0.11     <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.7.13
work-1   Ready    <none>          88d    v1.29.6   10.0.1.21     <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.6.20
`;

const VERSION = `Client Version: v1.30.2
Kustomize Version: v5.0.4-0.20230601165947-6ce0bf390ce3
Server Version: v1.30.4
`;

const OLD_VERSION = `Client Version: version.Info{Major:"1", Minor:"26", GitVersion:"v1.26.3", GitCommit:"9e644106593f3f4aa98f8a84b23db5fa378900bd", GitTreeState:"clean", BuildDate:"2023-03-15T13:40:17Z", GoVersion:"go1.19.7", Compiler:"gc", Platform:"linux/amd64"}
Kustomize Version: v4.5.7
Server Version: version.Info{Major:"1", Minor:"26", GitVersion:"v1.26.4-eks-0a21954", GitCommit:"4a3479673cb6d9b63f1c69a67b57de30a4d9b781", GitTreeState:"clean", BuildDate:"2023-04-15T00:33:09Z", GoVersion:"go1.19.8", Compiler:"gc", Platform:"linux/amd64"}
`;

let snapshot: KbSnapshot;
let runtime: SnapshotRuntime;
before(async () => {
  snapshot = await kbSnapshot();
  runtime = await startSnapshotRuntime();
});
after(async () => {
  await runtime.close();
});

describe("kubectl's text", () => {
  it("reads `kubectl version` in both forms", () => {
    assert.deepEqual(versionFromText(VERSION), {
      clientVersion: { gitVersion: "v1.30.2" },
      serverVersion: { gitVersion: "v1.30.4" },
    });
    assert.deepEqual(versionFromText(OLD_VERSION), {
      clientVersion: { gitVersion: "v1.26.3" },
      serverVersion: { gitVersion: "v1.26.4-eks-0a21954" },
    });
    assert.throws(() => versionFromText("hello"), /expected the text `kubectl version` prints/);
  });

  it("reads `kubectl get nodes` and -o wide (aligned or not), grouping control plane and workers", () => {
    assert.deepEqual(planFromKubectl(snapshot, { nodes: NODES }), [
      { component: "kubelet", version: "v1.30.4", instance: "control-plane" },
      { component: "kubelet", version: "v1.27.9", instance: "workers:v1.27.9" },
      { component: "kubelet", version: "v1.26.15", instance: "workers:v1.26.15" },
    ]);
    assert.deepEqual(planFromKubectl(snapshot, { nodes: NODES_WIDE }), [
      { component: "kubelet", version: "v1.30.4", instance: "control-plane" },
      { component: "containerd", version: "1.7.13", instance: "control-plane" },
      { component: "kubelet", version: "v1.29.6", instance: "workers" },
      { component: "containerd", version: "1.6.20", instance: "workers" },
    ]);
    // Pasted into chat, the columns lose their alignment: still read by words (OS-IMAGE holds spaces, the runtime is last).
    assert.deepEqual(
      planFromKubectl(snapshot, { nodes: NODES_WIDE.replace(/ +/g, " ") }),
      planFromKubectl(snapshot, { nodes: NODES_WIDE }),
    );
    assert.throws(
      () => planFromKubectl(snapshot, { nodes: "NAME STATUS\nx Ready\n" }),
      /starting with the header NAME STATUS ROLES AGE VERSION/,
    );
    assert.throws(
      () =>
        planFromKubectl(snapshot, {
          nodes: "NAME STATUS ROLES AGE VERSION\nn1 Ready <none> 1d banana\n",
        }),
      /nodes \(row 1\) VERSION "banana" is not a Kubernetes version/,
    );
  });

  it("is judged on POST /api/v1/validate/from-kubectl", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/validate/from-kubectl")
      .send({ kubectlVersion: VERSION, nodes: NODES, asOf: "2025-01-10" })
      .expect(200);
    const findings = (
      response.body as { findings: Array<{ code: string; instance: string | null }> }
    ).findings;
    assert.ok(
      findings.some(
        (entry) =>
          entry.code === "SKEW_KUBELET_TOO_OLD_FOR_APISERVER" &&
          entry.instance === "workers:v1.26.15",
      ),
      JSON.stringify(findings),
    );
    assert.ok(
      !findings.some(
        (entry) => entry.instance === "workers:v1.27.9" && entry.code.startsWith("SKEW_"),
      ),
      "n-3 is allowed upstream",
    );
  });

  it("is judged by GraphQL's validateFromKubectl and planUpgradeFromKubectl as by REST", async () => {
    const rest = (
      await request(runtime.app)
        .post("/api/v1/validate/from-kubectl")
        .send({ kubectlVersion: VERSION, nodes: NODES_WIDE, asOf: "2025-01-10" })
        .expect(200)
    ).body as { findings: unknown[]; status: string };
    const query = `query($kubectl: KubectlOutputsInput!) {
      validateFromKubectl(kubectl: $kubectl, asOf: "2025-01-10") { status findings { code severity component instance message } }
      planUpgradeFromKubectl(kubectl: $kubectl, targetVersion: "1.31") { ok steps { component instance fromVersion toVersion } }
    }`;
    const answer = (
      await request(runtime.app)
        .post("/graphql")
        .send({ query, variables: { kubectl: { versionText: VERSION, nodesText: NODES_WIDE } } })
        .expect(200)
    ).body as {
      data: {
        validateFromKubectl: { status: string; findings: Array<Record<string, unknown>> };
        planUpgradeFromKubectl: {
          steps: Array<{ component: string; instance: string | null; toVersion: string }>;
        };
      };
    };
    const pick = (findings: ReadonlyArray<Record<string, unknown>>) =>
      findings.map(({ code, severity, component, instance, message }) => ({
        code,
        severity,
        component,
        instance,
        message,
      }));
    assert.equal(answer.data.validateFromKubectl.status, rest.status);
    assert.deepEqual(
      pick(answer.data.validateFromKubectl.findings),
      pick(rest.findings as Array<Record<string, unknown>>),
    );
    assert.ok(
      answer.data.validateFromKubectl.findings.some(
        (entry) => entry.component === "containerd" && entry.instance === "workers",
      ),
      "the -o wide runtime column is read",
    );
    const steps = answer.data.planUpgradeFromKubectl.steps.map(
      (step) =>
        `${step.component}@${step.instance ?? ""}->${step.toVersion.split(".").slice(0, 2).join(".")}`,
    );
    assert.ok(steps.includes("kube-apiserver@->1.31"), steps.join(", "));
    const both = (
      await request(runtime.app)
        .post("/graphql")
        .send({
          query,
          variables: {
            kubectl: {
              versionText: VERSION,
              version: { serverVersion: { gitVersion: "v1.30.4" } },
            },
          },
        })
    ).body as { errors: Array<{ message: string; extensions: { code: string } }> };
    assert.equal(both.errors[0]?.extensions.code, "BAD_USER_INPUT");
    assert.match(
      both.errors[0].message,
      /kubectl\.version and kubectl\.versionText are the same output; give one of them/,
    );
  });

  it("is read in chat when pasted after `check`", () => {
    const reply = chatAnswer(
      snapshot,
      `check asof=2025-01-10\n\`\`\`\n${VERSION}${NODES}\`\`\``,
    ).text;
    assert.match(reply, /kubelet@workers:v1\.26\.15/);
    assert.match(reply, /too old|TOO_OLD/i);
    assert.match(
      chatAnswer(snapshot, "check\nsome words").text,
      /paste the output of `kubectl version` and\/or `kubectl get nodes`/,
    );
  });

  describe("the CLI", () => {
    let listening: { url: string; close(): Promise<void> } | undefined;
    before(async () => {
      listening = await startListeningRuntime({ inMemory: true });
    });
    after(async () => {
      await listening?.close();
    });

    it("takes the text files kubectl wrote", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-text-"));
      fs.writeFileSync(path.join(dir, "version.txt"), VERSION);
      fs.writeFileSync(path.join(dir, "nodes.txt"), NODES_WIDE);
      const run = await kubecompat(
        [
          "check",
          "--kubectl-version",
          path.join(dir, "version.txt"),
          "--kubectl-nodes",
          path.join(dir, "nodes.txt"),
          "--as-of",
          "2025-01-10",
          "-o",
          "json",
        ],
        { env: { KUBECOMPAT_URL: listening!.url } },
      );
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const answer = JSON.parse(run.stdout) as {
        findings: Array<{ component: string | null; instance: string | null }>;
      };
      assert.ok(
        answer.findings.every(
          (entry) =>
            entry.instance === null || ["control-plane", "workers"].includes(entry.instance),
        ),
        run.stdout,
      );
    });
  });
});
