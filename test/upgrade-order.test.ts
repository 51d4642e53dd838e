/**
 * The planner orders its steps by kb/upgrade-order.yaml, not by a list in code: edit an edge in a copy of
 * kb/ and the plan's order changes; put a cycle in it and the knowledge base is refused, naming the cycle.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { parseDocument } from "yaml";
import { planUpgrade } from "../src/domain/upgrade.js";
import { KbValidationError } from "../src/core/errors.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import { upgradeOrder } from "../src/knowledge/upgrade-order.js";
import { KB_DIR } from "./support/runtime.js";
import { plan } from "./support/snapshot.js";

const copies: string[] = [];
after(async () => {
  await Promise.all(copies.map((directory) => fs.rm(directory, { recursive: true, force: true })));
});

/** A copy of kb/ whose upgrade-order.yaml went through `edit` (a list of {before, after, ...} records). */
async function kbWithOrder(edit: (edges: Array<Record<string, unknown>>) => void): Promise<string> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-order-"));
  copies.push(directory);
  await fs.cp(KB_DIR, directory, { recursive: true });
  const file = path.join(directory, "upgrade-order.yaml");
  const document = parseDocument(await fs.readFile(file, "utf8"));
  const edges = document.toJS().upgradeDependencies as Array<Record<string, unknown>>;
  edit(edges);
  document.set("upgradeDependencies", document.createNode(edges));
  await fs.writeFile(file, document.toString());
  return directory;
}

async function snapshotOf(directory: string): Promise<KbSnapshot> {
  return new KbSnapshot(await loadKbDirectory(directory), { revision: 1, lastImportAt: null });
}

const CLUSTER = plan(
  "apiserver=1.30 kcm=1.30 scheduler=1.30 etcd=3.5.12 kubelet@a=1.30 kube-proxy@a=1.30",
);

/** The control-plane steps of the hop 1.30 → 1.31, in order (the nodes follow them). */
function firstHop(snapshot: KbSnapshot): string[] {
  const result = planUpgrade(snapshot, CLUSTER, "1.31", { asOf: "2025-06-01" });
  assert.ok(result.ok, JSON.stringify(result.findings));
  return result.steps.filter((step) => step.instance === null).map((step) => step.component);
}

describe("the upgrade order comes from kb/upgrade-order.yaml", () => {
  it("as reviewed: etcd, kube-apiserver, kube-controller-manager, kube-scheduler within a minor", async () => {
    const hop = firstHop(await snapshotOf(KB_DIR));
    assert.deepEqual(hop, ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"]);
  });

  it("an edge 'kube-scheduler before kube-controller-manager' moves the scheduler first", async () => {
    const directory = await kbWithOrder((edges) => {
      edges.push({
        before: "kube-scheduler",
        after: "kube-controller-manager",
        reason: "Test edit: the scheduler goes first.",
        sourceUrl: "https://kubernetes.io/releases/version-skew-policy/",
        notes: null,
      });
    });
    assert.deepEqual(firstHop(await snapshotOf(directory)), [
      "etcd",
      "kube-apiserver",
      "kube-scheduler",
      "kube-controller-manager",
    ]);
  });

  it("turning the etcd edge round moves etcd after kube-apiserver", async () => {
    const directory = await kbWithOrder((edges) => {
      const edge = edges.find(
        (candidate) => candidate.before === "etcd" && candidate.after === "kube-apiserver",
      )!;
      edge.before = "kube-apiserver";
      edge.after = "etcd";
    });
    const hop = firstHop(await snapshotOf(directory));
    assert.ok(hop.indexOf("kube-apiserver") < hop.indexOf("etcd"), hop.join(", "));
  });

  it("a cycle is refused, naming the components on it", async () => {
    const directory = await kbWithOrder((edges) => {
      edges.push({
        before: "kube-controller-manager",
        after: "kube-apiserver",
        reason: "Test edit: a cycle.",
        sourceUrl: "https://kubernetes.io/releases/version-skew-policy/",
        notes: null,
      });
    });
    await assert.rejects(loadKbDirectory(directory), (error: unknown) => {
      assert.ok(error instanceof KbValidationError);
      assert.match(
        error.message,
        /upgrade-order\.yaml.*the upgrade order has a cycle.*kube-apiserver → kube-controller-manager → kube-apiserver/,
      );
      return true;
    });
  });

  it("sorts topologically with ties in component order (pure)", () => {
    const components = ["a", "b", "c", "d"].map((name) => ({ name }));
    assert.deepEqual(upgradeOrder(components, [{ before: "c", after: "a" }]), {
      ok: true,
      order: ["b", "c", "a", "d"],
    });
    assert.deepEqual(upgradeOrder(components, []), { ok: true, order: ["a", "b", "c", "d"] });
    const cyclic = upgradeOrder(components, [
      { before: "a", after: "b" },
      { before: "b", after: "c" },
      { before: "c", after: "a" },
      { before: "c", after: "d" },
    ]);
    assert.equal(cyclic.ok, false);
    assert.deepEqual(!cyclic.ok && cyclic.cycle, ["a", "b", "c", "a"]);
  });
});
