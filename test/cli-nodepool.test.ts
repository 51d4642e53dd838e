/**
 * `kubecompat nodepool FROM TO --control-plane V [--rollback]` end to end:
 * the real executable against a real kubecompat server on a port, behind a
 * recording proxy that keeps the exact request bodies. Node-pool files are
 * the realistic specs of test/fixtures/node-pools/ (a pasted kubeadm
 * ExecStart line, a KubeletConfiguration file next to them).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import {
  cellsOf,
  close,
  closedPort,
  kubecompat,
  listen,
  recordingProxy,
  tableAt,
  type RecordedRequest,
  type Run,
} from "./support/cli-process.js";
import { REPO_ROOT, startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

const POOLS = path.join(REPO_ROOT, "test", "fixtures", "node-pools");
const pool = (name: string): string => path.join(POOLS, name);
const KUBELET_CONFIG = fs.readFileSync(pool("kubelet-config.yaml"), "utf8");

// What the CLI must send for pool-1.29.yaml and pool-1.30.yaml: every value as written, the
// ExecStart block as YAML's literal block gives it, the kubeletConfigFile's text as kubeletConfig.
const POOL_1_29 = {
  name: "pool-a",
  kubeletVersion: "1.29.4",
  kubeletFlags: [
    "ExecStart=/usr/bin/kubelet \\",
    "  --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \\",
    "  --kubeconfig=/etc/kubernetes/kubelet.conf \\",
    "  --config=/var/lib/kubelet/config.yaml \\",
    "  --container-runtime-endpoint=unix:///run/containerd/containerd.sock \\",
    "  --node-ip=10.0.12.7 \\",
    "  --pod-infra-container-image=registry.k8s.io/pause:3.9",
    "",
  ].join("\n"),
  kubeletConfig: KUBELET_CONFIG,
  kubeProxyVersion: "1.29.4",
  kubeProxyMode: "ipvs",
  os: "linux",
  runtime: "containerd",
  runtimeVersion: "1.7.2",
  chartKubeVersion: ">=1.27.0-0 <1.32.0-0",
};
const POOL_1_30 = {
  name: "pool-a",
  kubeletVersion: "1.30.1",
  kubeletFlags: [
    "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
    "--kubeconfig=/etc/kubernetes/kubelet.conf",
    "--config=/var/lib/kubelet/config.yaml",
    "--container-runtime-endpoint=unix:///run/containerd/containerd.sock",
    "--node-ip=10.0.12.7",
  ],
  kubeletConfig: KUBELET_CONFIG,
  kubeProxyVersion: "1.30.1",
  kubeProxyMode: "nftables",
  os: "linux",
  runtime: "containerd",
  runtimeVersion: "2.0.1",
  chartKubeVersion: ">=1.28.0-0 <1.33.0-0",
};

const UPGRADE = "/api/v1/node-pool/upgrade-check";
const ROLLBACK = "/api/v1/node-pool/rollback-check";

interface Answer {
  ok: boolean;
  pool: string;
  findings: {
    code: string;
    severity: string;
    component: string | null;
    instance: string | null;
    message: string;
    ruleId: string | null;
  }[];
  steps: {
    order: number;
    action: string;
    component: string | null;
    fromVersion: string | null;
    toVersion: string | null;
    note: string;
  }[];
}

describe("kubecompat nodepool", () => {
  let runtime: SnapshotRuntime;
  let server: http.Server;
  let serverUrl: string;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;

  /** The request the CLI makes, made directly, to compare answers with. */
  async function ask(route: string, body: unknown): Promise<{ status: number; body: Answer }> {
    const response = await fetch(`${serverUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  }

  async function recordedRun(
    args: readonly string[],
    options: { stdin?: string; cwd?: string } = {},
  ): Promise<{ run: Run; requests: RecordedRequest[] }> {
    proxy.recorded.length = 0;
    const run = await kubecompat(["--server", proxy.url, ...args], options);
    return { run, requests: [...proxy.recorded] };
  }

  before(async () => {
    runtime = await startSnapshotRuntime();
    server = http.createServer(runtime.app);
    serverUrl = await listen(server);
    proxy = await recordingProxy(serverUrl);
  });

  after(async () => {
    await proxy.close();
    await close(server);
    await runtime.close();
  });

  describe("upgrade check", () => {
    it("exits 0 for pool-1.29 → pool-1.30 under 1.30, sends both specs as written, and --output json is the server's answer", async () => {
      const { run, requests } = await recordedRun([
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30.yaml"),
        "--control-plane",
        "1.30",
        "--output",
        "json",
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      const body = { controlPlaneVersion: "1.30", from: POOL_1_29, to: POOL_1_30 };
      assert.deepEqual(requests, [{ method: "POST", path: UPGRADE, body }]);
      const direct = await ask(UPGRADE, body);
      assert.equal(direct.status, 200);
      assert.deepEqual(JSON.parse(run.stdout), direct.body);
      assert.equal(direct.body.ok, true);
      assert.ok(
        direct.body.findings.some((finding) => finding.severity === "WARNING"),
        "nftables is not GA in 1.30: a warning, not an error",
      );
    });

    it("prints the findings table like check, then the steps, then the verdict", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30.yaml"),
        "--control-plane",
        "1.30",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const direct = (
        await ask(UPGRADE, { controlPlaneVersion: "1.30", from: POOL_1_29, to: POOL_1_30 })
      ).body;
      const lines = run.stdout.split("\n");
      assert.ok(
        !run.stdout.includes(`${String.fromCharCode(27)}[`),
        "no colours when stdout is not a terminal",
      );
      const findings = cellsOf(tableAt(run.stdout, 0), [
        "SEVERITY",
        "CODE",
        "COMPONENT",
        "MESSAGE",
      ]);
      assert.deepEqual(
        findings.map(([severity, code, component, message]) => [
          severity,
          code,
          component,
          message!.replace(/ \[\d+\]$/, ""),
        ]),
        direct.findings.map((finding) => [
          finding.severity,
          finding.code,
          finding.component === null
            ? "-"
            : finding.instance === null
              ? finding.component
              : `${finding.component}@${finding.instance}`,
          finding.message,
        ]),
      );
      const title = lines.indexOf("Steps to upgrade pool-a");
      assert.ok(title > findings.length, run.stdout);
      const steps = cellsOf(tableAt(run.stdout, title + 1), [
        "ORDER",
        "ACTION",
        "COMPONENT",
        "FROM",
        "TO",
        "NOTE",
      ]);
      assert.deepEqual(
        steps,
        direct.steps.map((step) => [
          String(step.order),
          step.action,
          step.component ?? "-",
          step.fromVersion ?? "-",
          step.toVersion ?? "-",
          step.note,
        ]),
      );
      assert.deepEqual(
        steps.map((row) => row[1]),
        ["drain", "runtime", "kubelet-configuration", "kubelet", "kube-proxy", "uncordon"],
      );
      assert.match(run.stdout, /^ {2}\[1\] https:\/\//m, "the sources are listed");
      assert.match(
        lines.at(-2)!,
        /^UPGRADE (?:SUPPORTED WITH WARNINGS|END OF LIFE): pool-a under control plane 1\.30, 6 steps, \d+ warnings?, \d+ info \(knowledge base revision \d+\)$/,
      );
    });

    it("exits 1 when the pool would go before the control plane (--control-plane 1.29)", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30.yaml"),
        "--control-plane",
        "1.29",
      ]);
      assert.equal(run.code, 1, run.stderr);
      const rows = cellsOf(tableAt(run.stdout, 0), ["SEVERITY", "CODE", "COMPONENT", "MESSAGE"]);
      assert.deepEqual(rows[0]!.slice(0, 3), [
        "ERROR",
        "SKEW_KUBELET_NEWER_THAN_APISERVER",
        "kubelet@pool-a",
      ]);
      assert.match(
        run.stdout,
        /^UPGRADE NOT SUPPORTED: pool-a under control plane 1\.29, 6 steps, 2 errors/m,
      );
    });

    it("exits 1 for a 1.30 spec that still carries the 1.23 drop-in's removed flags", async () => {
      const { run, requests } = await recordedRun([
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30-stale-flags.yaml"),
        "--control-plane",
        "1.30",
        "-o",
        "json",
      ]);
      assert.equal(run.code, 1, run.stderr);
      const sent = requests[0]!.body as { to: { kubeletFlags: string; chartKubeVersion?: string } };
      assert.match(
        sent.to.kubeletFlags,
        /^ExecStart=\/usr\/bin\/kubelet \\\n {2}--bootstrap-kubeconfig=/,
      );
      assert.equal(sent.to.chartKubeVersion, undefined, "keys not in the file are not sent");
      const answer = JSON.parse(run.stdout) as Answer;
      assert.equal(answer.ok, false);
      assert.deepEqual(
        answer.findings
          .filter((finding) => finding.code === "FLAG_REMOVED")
          .map((finding) => finding.ruleId)
          .sort(),
        ["kubelet-containerruntime", "kubelet-networkplugin"],
      );
    });

    it("sends an inline kubeletConfig mapping as its YAML text, and gets the answer the kubeletConfigFile form gets", async () => {
      const inline = await recordedRun([
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30-inline-config.yaml"),
        "--control-plane",
        "1.30",
        "-o",
        "json",
      ]);
      assert.equal(inline.run.code, 0, inline.run.stderr);
      const sent = (inline.requests[0]!.body as { to: { kubeletConfig: string } }).to.kubeletConfig;
      assert.match(
        sent,
        /^apiVersion: kubelet\.config\.k8s\.io\/v1beta1\nkind: KubeletConfiguration\n/,
      );
      assert.deepEqual(parseYaml(sent), parseYaml(KUBELET_CONFIG));
      const fromFile = await kubecompat([
        "--server",
        serverUrl,
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30.yaml"),
        "--control-plane",
        "1.30",
        "-o",
        "json",
      ]);
      assert.deepEqual(JSON.parse(inline.run.stdout), JSON.parse(fromFile.stdout));
    });

    it("reads a node-pool file from stdin (-), its kubeletConfigFile relative to the working directory", async () => {
      const piped = await recordedRun(
        ["nodepool", "-", "pool-1.30.yaml", "--control-plane", "1.30", "-o", "json"],
        {
          stdin: fs.readFileSync(pool("pool-1.29.yaml"), "utf8"),
          cwd: POOLS,
        },
      );
      assert.equal(piped.run.code, 0, piped.run.stderr);
      assert.deepEqual(
        piped.requests.map((request) => request.body),
        [{ controlPlaneVersion: "1.30", from: POOL_1_29, to: POOL_1_30 }],
      );
    });

    it("--output markdown is a findings table and a steps table for a pull-request comment", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30-stale-flags.yaml"),
        "--control-plane",
        "1.30",
        "-o",
        "markdown",
      ]);
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stdout.split("\n");
      assert.match(
        lines[0]!,
        /^### ❌ kubecompat nodepool upgrade of pool-a under control plane 1\.30: not supported \(6 steps, 2 errors, /,
      );
      const findings = lines.indexOf("| Severity | Code | Component | Message |");
      assert.ok(findings > 0, run.stdout);
      assert.match(
        lines[findings + 2]!,
        /^\| ❌ ERROR \| `FLAG_REMOVED` \| `kubelet@pool-a` \| flag --container-runtime was removed .*\(\[source\]\(https:\/\/.*\)\) \|$/,
      );
      const steps = lines.indexOf("| Order | Action | Component | From | To | Note |");
      assert.ok(steps > findings, run.stdout);
      assert.equal(
        lines[steps + 3],
        "| 2 | runtime | `containerd` | `1.7.2` | `2.0.1` | the runtime first: the new kubelet needs it |",
      );
    });
  });

  describe("--rollback", () => {
    it("posts FROM as current and TO as rollbackTo; the upstream profile lets 1.30 → 1.29 under a 1.31 control plane through", async () => {
      const { run, requests } = await recordedRun([
        "nodepool",
        pool("pool-1.30.yaml"),
        pool("pool-1.29.yaml"),
        "--control-plane",
        "1.31",
        "--rollback",
        "-o",
        "json",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const body = { controlPlaneVersion: "1.31", current: POOL_1_30, rollbackTo: POOL_1_29 };
      assert.deepEqual(requests, [{ method: "POST", path: ROLLBACK, body }]);
      const direct = await ask(ROLLBACK, body);
      assert.equal(direct.status, 200);
      assert.deepEqual(JSON.parse(run.stdout), direct.body);
      assert.deepEqual(
        direct.body.steps.map((step) => step.action),
        ["drain", "kubelet-configuration", "kubelet", "runtime", "kube-proxy", "uncordon"],
        "on the way back the runtime follows the kubelet",
      );
    });

    it("exits 1 with the rollback trap under --profile strict", async () => {
      const { run, requests } = await recordedRun([
        "nodepool",
        "--rollback",
        pool("pool-1.30.yaml"),
        pool("pool-1.29.yaml"),
        "--control-plane",
        "1.31",
        "--profile",
        "strict",
      ]);
      assert.equal(run.code, 1, run.stderr);
      assert.equal((requests[0]!.body as { profile?: string }).profile, "strict");
      const rows = cellsOf(tableAt(run.stdout, 0), ["SEVERITY", "CODE", "COMPONENT", "MESSAGE"]);
      assert.deepEqual(rows[0]!.slice(0, 3), ["ERROR", "ROLLBACK_TRAP", "kubelet@pool-a"]);
      assert.match(
        rows[0]![3]!,
        /^rolling pool-a back to kubelet 1\.29\.4 would leave its nodes unable to join the 1\.31 control plane/,
      );
      assert.ok(run.stdout.split("\n").includes("Steps to roll pool-a back"), run.stdout);
      assert.match(
        run.stdout,
        /^ROLLBACK NOT SUPPORTED: pool-a under control plane 1\.31, 6 steps, 2 errors, .*profile strict\)$/m,
      );
    });
  });

  describe("failures exit 2 and say what to fix", () => {
    it("no --control-plane, nothing sent", async () => {
      const { run, requests } = await recordedRun([
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30.yaml"),
      ]);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(
        run.stderr,
        /kubecompat nodepool needs the control plane's version: --control-plane VERSION/,
      );
      assert.match(run.stderr, /Run kubecompat nodepool --help for usage\./);
      assert.deepEqual(requests, []);
    });

    it("one file, or three", async () => {
      for (const files of [
        [pool("pool-1.29.yaml")],
        [pool("pool-1.29.yaml"), pool("pool-1.30.yaml"), pool("pool-1.30.yaml")],
      ]) {
        const { run, requests } = await recordedRun([
          "nodepool",
          ...files,
          "--control-plane",
          "1.30",
        ]);
        assert.equal(run.code, 2, files.join(" "));
        assert.match(run.stderr, /kubecompat nodepool takes two node-pool files/);
        assert.deepEqual(requests, []);
      }
    });

    it("a flag nodepool does not take", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30.yaml"),
        "--to",
        "1.30",
      ]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /unknown flag --to for kubecompat nodepool/);
    });

    it("a misspelt key is refused with its line and the key meant, before anything is sent", async () => {
      const { run, requests } = await recordedRun([
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-misspelt-key.yaml"),
        "--control-plane",
        "1.30",
      ]);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /pool-misspelt-key\.yaml:3: unknown key "kubeProxyMod" \(did you mean kubeProxyMode\?\)/,
      );
      assert.deepEqual(requests, []);
    });

    it("a kubeletConfigFile that does not exist names the file and line that point at it", async () => {
      const { run, requests } = await recordedRun([
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-missing-config-file.yaml"),
        "--control-plane",
        "1.30",
      ]);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /cannot read kubeletConfigFile \(.*pool-missing-config-file\.yaml:3\) .*configs\/kubelet-config-1\.30\.yaml: no such file or directory/,
      );
      assert.deepEqual(requests, []);
    });

    it("files that are not node-pool specs", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-nodepool-"));
      try {
        const cases: Array<[string, string, RegExp]> = [
          [
            "no-kubelet.yaml",
            "name: pool-a\nkubeProxyMode: ipvs\n",
            /no-kubelet\.yaml:1: no kubeletVersion/,
          ],
          [
            "both-configs.yaml",
            "kubeletVersion: 1.30.1\nkubeletConfig: |\n  kind: KubeletConfiguration\nkubeletConfigFile: kubelet-config.yaml\n",
            /both-configs\.yaml:4: give either kubeletConfig \(inline\) or kubeletConfigFile/,
          ],
          [
            "flags-map.yaml",
            "kubeletVersion: 1.30.1\nkubeletFlags:\n  max-pods: 110\n",
            /flags-map\.yaml:3: kubeletFlags must be a list of flags/,
          ],
          ["list.yaml", "- kubeletVersion: 1.30.1\n", /list\.yaml:1: the top level must be a map/],
          [
            "broken.yaml",
            "kubeletVersion: 1.30.1\nkubeletFlags: [--max-pods=110\n",
            /broken\.yaml:\d+: not valid YAML: /,
          ],
        ];
        for (const [name, text, message] of cases) {
          fs.writeFileSync(path.join(dir, name), text);
          const { run, requests } = await recordedRun([
            "nodepool",
            pool("pool-1.29.yaml"),
            path.join(dir, name),
            "--control-plane",
            "1.30",
          ]);
          assert.equal(run.code, 2, name);
          assert.match(run.stderr, message, name);
          assert.deepEqual(requests, [], name);
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("a 400 from the server: its message, and the line of the file to fix", async () => {
      const { run, requests } = await recordedRun([
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-bad-proxy-mode.yaml"),
        "--control-plane",
        "1.30",
      ]);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.equal(requests.length, 1);
      assert.match(
        run.stderr,
        /answered 400 BAD_USER_INPUT: to\.kubeProxyMode "ebpf" is not one of iptables, ipvs, nftables/,
      );
      assert.match(run.stderr, /to\.kubeProxyMode \(.*pool-bad-proxy-mode\.yaml:5\)/);
      const rollback = await kubecompat([
        "--server",
        serverUrl,
        "nodepool",
        "--rollback",
        pool("pool-bad-proxy-mode.yaml"),
        pool("pool-1.29.yaml"),
        "--control-plane",
        "1.30",
      ]);
      assert.equal(rollback.code, 2);
      assert.match(rollback.stderr, /current\.kubeProxyMode \(.*pool-bad-proxy-mode\.yaml:5\)/);
    });

    it("an unreachable server", async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const run = await kubecompat([
        "--server",
        url,
        "nodepool",
        pool("pool-1.29.yaml"),
        pool("pool-1.30.yaml"),
        "--control-plane",
        "1.30",
      ]);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /cannot reach the kubecompat server at .* \(ECONNREFUSED\)/);
    });
  });

  it("--help describes the command and the node-pool file", async () => {
    const help = await kubecompat(["nodepool", "--help"]);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /kubecompat nodepool FROM_FILE TO_FILE --control-plane VERSION \[--platform NAME\] \[--profile NAME\] \[--as-of YYYY-MM-DD\] \[--rollback\]/,
    );
    assert.match(help.stdout, /kubeletConfigFile \(its path, relative to the node-pool file\)/);
    const top = await kubecompat(["--help"]);
    assert.match(top.stdout, /^ {2}nodepool +can a node pool be upgraded/m);
  });
});
