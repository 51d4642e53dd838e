/**
 * `kubecompat --offline` answers from the kb/ shipped with the package, without a server, and gives the
 * server's answers: every command below runs twice, once against a server over the test database (kb/
 * imported as `npm start` imports it) and once offline, and the two outputs must be the same apart from the
 * knowledge base's revision number (the database's counter, which an offline run has no equivalent of).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startOfflineServer } from "../src/offline.js";
import { kubecompat, type Run } from "./support/cli-process.js";
import { startListeningRuntime } from "./support/runtime.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures");
const at = (...parts: string[]): string => path.join(FIXTURES, ...parts);

/** The shared fixtures, as the other CLI tests use them; each yields findings (exit 1) or a clean answer. */
const QUESTIONS: ReadonlyArray<{ readonly name: string; readonly args: readonly string[] }> = [
  { name: "check a plan file", args: ["check", at("plans", "ha-three-pools.json"), "-o", "json"] },
  { name: "check a plan file, as text", args: ["check", at("cli", "out-of-skew.yaml")] },
  {
    name: "plan an upgrade",
    args: ["plan", at("plans", "strict-node-pools.json"), "--to", "1.32", "-o", "json"],
  },
  {
    name: "plan from kubectl outputs",
    args: [
      "plan",
      "--kubectl-version",
      at("kubectl", "version.json"),
      "--kubectl-nodes",
      at("kubectl", "nodes-eks.json"),
      "--to",
      "latest",
      "-o",
      "json",
    ],
  },
  {
    name: "check kubectl outputs with workloads",
    args: [
      "check",
      "--kubectl-version",
      at("kubectl", "version.json"),
      "--kubectl-nodes",
      at("kubectl", "nodes-gke.json"),
      "--kubectl-workloads",
      at("addons", "workloads.json"),
      "-o",
      "json",
    ],
  },
  {
    name: "scan manifests",
    args: [
      "scan",
      "--to",
      "1.29",
      at("manifests", "helm-template-shop.yaml"),
      at("manifests", "kubectl-get-json.json"),
      "-o",
      "json",
    ],
  },
  {
    name: "scan manifests as SARIF",
    args: ["scan", "--to", "1.25", at("manifests", "gitops-prod-concatenated.yaml"), "-o", "sarif"],
  },
  {
    name: "fix manifests (the diff; nothing is written)",
    args: ["fix", "--to", "1.22", at("fix", "ingress-extensions-v1beta1.yaml")],
  },
  {
    name: "fix manifests as SARIF with fixes",
    args: ["fix", "--to", "1.25", at("fix", "endpointslice-v1beta1.yaml"), "-o", "sarif"],
  },
  {
    name: "scan what runs in a cluster",
    args: [
      "scan-cluster",
      "--to",
      "1.25",
      "--helm",
      at("kubectl-replay", "helm-secrets.json"),
      "--metrics",
      at("kubectl-replay", "metrics.txt"),
      "-o",
      "json",
    ],
  },
  {
    name: "check a node-pool upgrade",
    args: [
      "nodepool",
      at("node-pools", "pool-1.29.yaml"),
      at("node-pools", "pool-1.30-stale-flags.yaml"),
      "--control-plane",
      "1.30",
      "-o",
      "json",
    ],
  },
  {
    name: "list what changes between minors",
    args: ["impact", "--from", "1.28", "--to", "1.31", "-o", "markdown"],
  },
  { name: "refuse an unknown component", args: ["check", at("cli", "unknown-component.yaml")] },
];

/**
 * The revision is the database's counter, and the server's name is its URL or "offline": everything else must
 * match. JSON is compared parsed, since PostgreSQL's jsonb keeps a record's nested keys in its own order.
 */
function comparable(run: Run): { code: number | null; stdout: unknown; stderr: string } {
  const neutral = (text: string): string =>
    text
      .replace(/"kbRevision": ?\d+/g, '"kbRevision": 0')
      .replace(/knowledge base revision \d+/g, "knowledge base revision N")
      .replace(/"server": "[^"]*"/g, '"server": "SERVER"')
      .replace(/http:\/\/127\.0\.0\.1:\d+|offline \(the kb\/ of kubecompat [^)]*\)/g, "SERVER");
  const stdout = neutral(run.stdout);
  let parsed: unknown = stdout;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    // text, markdown: compared as written
  }
  return { code: run.code, stdout: parsed, stderr: neutral(run.stderr) };
}

describe("kubecompat --offline", () => {
  let listening: { url: string; close(): Promise<void> } | undefined;
  before(async () => {
    listening = await startListeningRuntime();
  });
  after(async () => {
    await listening?.close();
  });

  for (const question of QUESTIONS) {
    it(`gives the server's answer: ${question.name}`, async () => {
      const env = { NO_COLOR: "1" };
      const [served, offline] = await Promise.all([
        kubecompat(["--server", listening!.url, ...question.args], { env }),
        kubecompat(["--offline", ...question.args], { env }),
      ]);
      assert.notEqual(served.code, null, "the served run finished");
      assert.ok(
        served.stdout.length > 0 || served.stderr.length > 0,
        "the served run answered something",
      );
      assert.deepEqual(comparable(offline), comparable(served));
    });
  }

  it("answers when no server is reachable at all, and says which knowledge base it used", async () => {
    const run = await kubecompat(["--offline", "check", at("cli", "out-of-skew.yaml")], {
      env: { KUBECOMPAT_URL: "http://127.0.0.1:9", NO_COLOR: "1" },
    });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /SKEW_/);
  });

  it("is refused together with --server, which would ask something else", async () => {
    const run = await kubecompat([
      "--offline",
      "--server",
      "http://127.0.0.1:9",
      "check",
      at("cli", "cluster.yaml"),
    ]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--offline answers without a server; leave out --server/);
  });

  it("refuses a knowledge base that does not validate, naming the bad record", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-offline-kb-"));
    fs.writeFileSync(
      path.join(dir, "components.yaml"),
      "components:\n  - name: kube-apiserver\n    category: nonsense\n",
    );
    await assert.rejects(startOfflineServer(dir), /components/);
  });
});
