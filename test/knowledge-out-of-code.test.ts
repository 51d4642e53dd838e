/**
 * Knowledge out of code: what the rules know about rollbacks, kube-proxy modes, runtimes that track
 * Kubernetes minors, runtime names and their sources comes from kb/, so editing a copy of kb/ changes the
 * answer, and no URL is written in src/domain. (The upgrade order has its own test, upgrade-order.test.ts.)
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { parseDocument } from "yaml";
import { planFromKubectl } from "../src/domain/kubectl-inputs.js";
import { checkNodePoolRollback, checkNodePoolUpgrade } from "../src/domain/node-pool.js";
import { checkRollback } from "../src/domain/rollback.js";
import { InputError } from "../src/core/errors.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import { KB_DIR, REPO_ROOT } from "./support/runtime.js";
import { kbSnapshot, plan } from "./support/snapshot.js";

const copies: string[] = [];
after(async () => {
  await Promise.all(copies.map((directory) => fs.rm(directory, { recursive: true, force: true })));
});

/** A snapshot of a copy of kb/ whose `file` (its top-level list under `key`) went through `edit`. */
async function editedKb(
  file: string,
  key: string,
  edit: (records: Array<Record<string, unknown>>) => Array<Record<string, unknown>>,
): Promise<KbSnapshot> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-knowledge-"));
  copies.push(directory);
  await fs.cp(KB_DIR, directory, { recursive: true });
  const location = path.join(directory, file);
  const document = parseDocument(await fs.readFile(location, "utf8"));
  document.set(
    key,
    document.createNode(edit(document.toJS()[key] as Array<Record<string, unknown>>)),
  );
  await fs.writeFile(location, document.toString());
  return new KbSnapshot(await loadKbDirectory(directory), { revision: 1, lastImportAt: null });
}

async function sourceFiles(directory: string): Promise<string[]> {
  const entries = await fs.readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe("knowledge lives in kb/, not in src/", () => {
  it("no URL is written in src/domain; every source the rules cite by id is in kb/references.yaml", async () => {
    const snapshot = await kbSnapshot();
    const cited = new Set<string>();
    for (const file of await sourceFiles(path.join(REPO_ROOT, "src", "domain"))) {
      const text = await fs.readFile(file, "utf8");
      const literals = [...text.matchAll(/["'`](https?:\/\/[^"'`\s]+)/g)].map((match) => match[1]);
      assert.deepEqual(
        literals,
        [],
        `${path.relative(REPO_ROOT, file)} writes a URL; put it in kb/references.yaml (or on the record it comes from)`,
      );
      for (const match of text.matchAll(/\.reference\("([a-z0-9-]+)"\)/g)) cited.add(match[1]!);
    }
    assert.ok(cited.size >= 5, `found ${cited.size} cited ids`);
    for (const id of cited)
      assert.ok(snapshot.reference(id) !== null, `kb/references.yaml has no ${id}`);
  });

  it("rollback policies: a node pool allowed two minors back no longer warns at two", async () => {
    const reviewed = await kbSnapshot();
    const request = {
      current: plan("apiserver=1.30 kubelet@a=1.30"),
      component: "kubelet",
      instance: "a",
      toVersion: "1.28",
    };
    assert.ok(
      checkRollback(reviewed, request).findings.some(
        (finding) =>
          finding.code === "ROLLBACK_MULTIPLE_MINORS" &&
          finding.ruleId === "nodes-back-on-new-nodes",
      ),
    );
    const relaxed = await editedKb("rollback-policies.yaml", "rollbackPolicies", (records) =>
      records.map((record) =>
        record.id === "nodes-back-on-new-nodes" ? { ...record, maxMinorsBack: 2 } : record,
      ),
    );
    assert.ok(
      !checkRollback(relaxed, request).findings.some(
        (finding) => finding.code === "ROLLBACK_MULTIPLE_MINORS",
      ),
    );
    // And the control plane's policy is what refuses its minor downgrade.
    const controlPlane = checkRollback(reviewed, {
      current: plan("apiserver=1.30 kubelet=1.29"),
      component: "apiserver",
      toVersion: "1.29",
    });
    assert.equal(
      controlPlane.findings.find((finding) => finding.code === "ROLLBACK_CONTROL_PLANE_UNSUPPORTED")
        ?.ruleId,
      "control-plane-no-minor-downgrade",
    );
  });

  it("kube-proxy modes: the modes a pool may name are kb/proxy-modes.yaml's", async () => {
    const pool = (mode: string) => ({
      name: "p",
      kubeletVersion: "1.30.2",
      kubeProxyVersion: "1.30.2",
      kubeProxyMode: mode,
    });
    const reviewed = await kbSnapshot();
    assert.doesNotThrow(() =>
      checkNodePoolUpgrade(reviewed, {
        controlPlaneVersion: "1.30",
        from: pool("iptables"),
        to: pool("ipvs"),
      }),
    );
    const withoutIpvs = await editedKb("proxy-modes.yaml", "proxyModes", (records) =>
      records.filter((record) => record.mode !== "ipvs"),
    );
    assert.throws(
      () =>
        checkNodePoolUpgrade(withoutIpvs, {
          controlPlaneVersion: "1.30",
          from: pool("iptables"),
          to: pool("ipvs"),
        }),
      (error: unknown) =>
        error instanceof InputError &&
        /"ipvs" is not one of iptables, nftables, kernelspace, userspace/.test(error.message),
    );
  });

  it("a runtime that tracks Kubernetes minors is the one kb/runtime-requirements.yaml says so of", async () => {
    const request = {
      controlPlaneVersion: "1.30",
      current: { name: "p", kubeletVersion: "1.30.2", runtime: "cri-o", runtimeVersion: "1.30.2" },
      rollbackTo: {
        name: "p",
        kubeletVersion: "1.29.5",
        runtime: "cri-o",
        runtimeVersion: "1.30.2",
      },
    };
    const reviewed = await kbSnapshot();
    const found = checkNodePoolRollback(reviewed, request).findings.find(
      (finding) => finding.code === "RUNTIME_NEWER_THAN_KUBELET",
    );
    assert.equal(found?.ruleId, "crio-matches-kubernetes-minor");
    const untracked = await editedKb(
      "runtime-requirements.yaml",
      "runtimeRequirements",
      (records) => records.filter((record) => record.id !== "crio-matches-kubernetes-minor"),
    );
    assert.ok(
      !checkNodePoolRollback(untracked, request).findings.some(
        (finding) => finding.code === "RUNTIME_NEWER_THAN_KUBELET",
      ),
    );
  });

  it("runtime names in kubectl's JSON are kb/components.yaml's names and aliases", async () => {
    const nodes = {
      items: [
        {
          metadata: { name: "n" },
          status: {
            nodeInfo: { kubeletVersion: "v1.30.1", containerRuntimeVersion: "moby://24.0.7" },
          },
        },
      ],
    };
    // moby is an alias of docker-engine in kb/components.yaml.
    assert.ok(
      planFromKubectl(await kbSnapshot(), { nodes }).some(
        (entry) => entry.component === "docker-engine" && entry.version === "24.0.7",
      ),
    );
    const withoutAlias = await editedKb("components.yaml", "components", (records) =>
      records.map((record) =>
        record.name === "docker-engine"
          ? { ...record, aliases: (record.aliases as string[]).filter((alias) => alias !== "moby") }
          : record,
      ),
    );
    assert.throws(
      () => planFromKubectl(withoutAlias, { nodes }),
      (error: unknown) => error instanceof InputError && /moby:\/\/24\.0\.7/.test(error.message),
    );
  });
});
