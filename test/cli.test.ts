/**
 * The `kubecompat` CLI end to end: the real executable (node bin/kubecompat.js)
 * in a child process against a real kubecompat server listening on a port.
 * A recording proxy in front of the server captures the exact request bodies,
 * so tests can check what the CLI sends (versions as the strings written,
 * kubectl's JSON untouched) as well as what it prints and its exit code.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  BIN,
  close,
  closedPort,
  kubecompat,
  listen,
  runExecutable,
  type Run,
} from "./support/cli-process.js";
import { REPO_ROOT, startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

const CLI_FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "cli");
const KUBECTL_FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "kubectl");
const ESC = String.fromCharCode(27);
/** The start of an ANSI colour code. */
const ANSI = `${ESC}[`;
function fixture(name: string): string {
  return path.join(CLI_FIXTURES, name);
}

function kubectlFixture(name: string): string {
  return path.join(KUBECTL_FIXTURES, name);
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/** The lines of the first table in text output (up to the first blank line). */
function tableLines(stdout: string): string[] {
  return stdout.split("\n").slice(0, stdout.split("\n").indexOf(""));
}

/**
 * Splits table rows at the header's column starts and checks that every
 * column starts exactly there (a space before it, text at it): the table is
 * aligned only if cells land under their headers.
 */
function cellsOf(lines: readonly string[], headers: readonly string[]): string[][] {
  const [header, ...rows] = lines;
  assert.ok(header !== undefined, "a header line");
  const starts = headers.map((name) => header.indexOf(name));
  assert.ok(
    starts.every((start, index) => start >= 0 && (index === 0 || start > starts[index - 1]!)),
    `headers ${headers.join(", ")} in order: ${header}`,
  );
  return rows.map((row) => {
    for (const start of starts.slice(1)) {
      assert.equal(row[start - 1], " ", `a gap before column ${start} in: ${row}`);
      assert.notEqual(row[start], " ", `a cell starts at column ${start} in: ${row}`);
    }
    return starts.map((start, index) => row.slice(start, starts[index + 1] ?? row.length).trim());
  });
}

// The plan of test/fixtures/cli/cluster.yaml and cluster-map.yaml, as the CLI must send it.
const CLUSTER_COMPONENTS = [
  { component: "etcd", version: "3.5.15" },
  { component: "kube-apiserver", version: "1.30.4", instance: "cp-1" },
  { component: "kube-apiserver", version: "1.30.4", instance: "cp-2" },
  { component: "kube-controller-manager", version: "1.30.4" },
  { component: "kube-scheduler", version: "1.30.4" },
  { component: "kubelet", version: "1.30.4", instance: "pool-a" },
  { component: "kube-proxy", version: "1.30.4", instance: "pool-a" },
  { component: "containerd", version: "1.7.20", instance: "pool-a" },
  { component: "kubelet", version: "1.29.8", instance: "pool-b" },
  { component: "kube-proxy", version: "1.29.8", instance: "pool-b" },
  { component: "containerd", version: "1.7.20", instance: "pool-b" },
  { component: "kubectl", version: "1.30" },
];

describe("the kubecompat CLI", () => {
  let runtime: SnapshotRuntime;
  let server: http.Server;
  let serverUrl: string;
  let proxy: http.Server;
  let proxyUrl: string;
  const recorded: { method: string; path: string; body: unknown }[] = [];

  /** The same request the CLI makes, made directly, to compare answers with. */
  async function ask(route: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${serverUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  /** Runs the CLI through the recording proxy and returns the requests it made. */
  async function recordedRun(
    args: readonly string[],
    options: { stdin?: string } = {},
  ): Promise<{ run: Run; requests: typeof recorded }> {
    recorded.length = 0;
    const run = await kubecompat(["--server", proxyUrl, ...args], options);
    return { run, requests: [...recorded] };
  }

  before(async () => {
    runtime = await startSnapshotRuntime();
    server = http.createServer(runtime.app);
    serverUrl = await listen(server);
    // Forwards to the real server and keeps each request body.
    proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        recorded.push({ method: req.method ?? "", path: req.url ?? "", body: JSON.parse(text) });
        fetch(`${serverUrl}${req.url ?? ""}`, {
          method: req.method,
          headers: { "content-type": req.headers["content-type"] ?? "" },
          body: text,
        })
          .then(async (answer) => {
            res.writeHead(answer.status, {
              "content-type": answer.headers.get("content-type") ?? "application/json",
            });
            res.end(await answer.text());
          })
          .catch((error: unknown) => {
            res.writeHead(502).end(String(error));
          });
      });
    });
    proxyUrl = await listen(proxy);
  });

  after(async () => {
    await close(proxy);
    await close(server);
    await runtime.close();
  });

  describe("check with a plan file", () => {
    it("exits 0 for a supported plan and prints an aligned table without colours when stdout is not a TTY", async () => {
      const run = await kubecompat(["--server", serverUrl, "check", fixture("cluster.yaml")]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      assert.ok(!run.stdout.includes(ANSI), run.stdout);
      const answer = (
        await ask("/api/v1/validate", { components: CLUSTER_COMPONENTS, asOf: "2025-01-15" })
      ).body as {
        ok: boolean;
        findings: {
          severity: string;
          code: string;
          component: string | null;
          instance: string | null;
          message: string;
        }[];
      };
      assert.equal(answer.ok, true);
      assert.ok(
        answer.findings.length > 0,
        "the fixture has at least one (non-error) finding to show",
      );
      const rows = cellsOf(tableLines(run.stdout), ["SEVERITY", "CODE", "COMPONENT", "MESSAGE"]);
      assert.deepEqual(
        rows.map(([severity, code, component, message]) => [
          severity,
          code,
          component,
          message!.replace(/ \[\d+\]$/, ""),
        ]),
        answer.findings.map((finding) => [
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
      assert.match(run.stdout, /^SUPPORTED: /m);
      assert.match(run.stdout, /^ {2}\[1\] https:\/\//m, "the sources are listed under the table");
    });

    it("exits 1 for an out-of-skew plan and lists the ERROR findings first", async () => {
      const run = await kubecompat(["--server", serverUrl, "check", fixture("out-of-skew.yaml")]);
      assert.equal(run.code, 1, run.stderr);
      assert.ok(!run.stdout.includes(ANSI), run.stdout);
      const rows = cellsOf(tableLines(run.stdout), ["SEVERITY", "CODE", "COMPONENT", "MESSAGE"]);
      assert.deepEqual(
        rows.slice(0, 2).map((row) => row.slice(0, 3)),
        [
          ["ERROR", "SKEW_KUBELET_TOO_OLD_FOR_APISERVER", "kubelet@pool-legacy"],
          ["ERROR", "SKEW_KUBE_PROXY_TOO_OLD_FOR_APISERVER", "kube-proxy@pool-legacy"],
        ],
      );
      assert.match(run.stdout, /^NOT SUPPORTED: 2 errors/m);
    });

    it('--output json prints the server\'s answer, and sends versions exactly as written (1.30 stays "1.30")', async () => {
      const { run, requests } = await recordedRun([
        "check",
        fixture("cluster.yaml"),
        "--output",
        "json",
        "--profile",
        "strict",
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(requests, [
        {
          method: "POST",
          path: "/api/v1/validate",
          body: { components: CLUSTER_COMPONENTS, profile: "strict", asOf: "2025-01-15" },
        },
      ]);
      const direct = await ask("/api/v1/validate", {
        components: CLUSTER_COMPONENTS,
        profile: "strict",
        asOf: "2025-01-15",
      });
      assert.equal(direct.status, 200);
      assert.deepEqual(JSON.parse(run.stdout), direct.body);
    });

    it("the map form of a plan file asks exactly what the list form asks", async () => {
      const list = await recordedRun(["check", fixture("cluster.yaml"), "-o", "json"]);
      const map = await recordedRun(["check", fixture("cluster-map.yaml"), "-o", "json"]);
      assert.equal(map.run.code, 0, map.run.stderr);
      assert.deepEqual(map.requests, list.requests);
      assert.deepEqual(JSON.parse(map.run.stdout), JSON.parse(list.run.stdout));
      const outOfSkew = await kubecompat([
        "--server",
        serverUrl,
        "check",
        fixture("out-of-skew.yaml"),
        "-o",
        "json",
      ]);
      assert.notDeepEqual(
        JSON.parse(outOfSkew.stdout),
        JSON.parse(map.run.stdout),
        "different plans give different answers",
      );
    });

    it("--as-of and --profile override the plan file's asOf and profile", async () => {
      const { run, requests } = await recordedRun([
        "check",
        fixture("out-of-skew.yaml"),
        "--as-of",
        "2023-01-31",
        "-o",
        "json",
      ]);
      assert.equal(run.code, 1);
      assert.equal((requests[0]?.body as { asOf: string }).asOf, "2023-01-31");
      const answer = JSON.parse(run.stdout) as { findings: { code: string }[] };
      assert.ok(
        !answer.findings.some((finding) => finding.code === "RELEASE_END_OF_LIFE"),
        "1.25 was still supported on 2023-01-31",
      );
    });

    it("--output markdown prints a table for a pull-request comment", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "check",
        fixture("out-of-skew.yaml"),
        "--output",
        "markdown",
      ]);
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stdout.split("\n");
      assert.match(lines[0]!, /^### .*not supported/);
      const header = lines.indexOf("| Severity | Code | Component | Message |");
      assert.ok(header > 0, run.stdout);
      assert.equal(lines[header + 1], "| --- | --- | --- | --- |");
      const rows = lines.slice(header + 2).filter((line) => line.startsWith("| "));
      assert.equal(rows.length, 3);
      assert.match(
        rows[0]!,
        /^\| ❌ ERROR \| `SKEW_KUBELET_TOO_OLD_FOR_APISERVER` \| `kubelet@pool-legacy` \| .*\(\[source\]\(https:\/\/kubernetes\.io\/.*\)\) \|$/,
      );
      assert.ok(
        rows.every((row) => row.split(/(?<!\\)\|/).length === 6),
        "no unescaped pipe inside a cell",
      );
    });

    it("reads the plan from stdin with -", async () => {
      const run = await kubecompat(["--server", serverUrl, "check", "-"], {
        stdin: fs.readFileSync(fixture("out-of-skew.yaml"), "utf8"),
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /kubelet@pool-legacy/);
    });
  });

  describe("failures exit 2 and say what to fix", () => {
    it("a missing plan file", async () => {
      const run = await kubecompat(["--server", serverUrl, "check", fixture("no-such-plan.yaml")]);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(
        run.stderr,
        /cannot read plan file .*no-such-plan\.yaml: no such file or directory/,
      );
    });

    it("an unknown flag, with the flag meant", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "check",
        fixture("cluster.yaml"),
        "--profil",
        "strict",
      ]);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /unknown flag --profil for kubecompat check; did you mean --profile\?/,
      );
      assert.match(run.stderr, /Run kubecompat check --help/);
    });

    it("an unknown command, and a flag the command does not take", async () => {
      const unknown = await kubecompat(["chekc", fixture("cluster.yaml")]);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown command "chekc"; did you mean check\?/);
      const misplaced = await kubecompat([
        "--server",
        serverUrl,
        "scan",
        "--profile",
        "strict",
        "--to",
        "1.29",
        fixture("manifests"),
      ]);
      assert.equal(misplaced.code, 2);
      assert.match(misplaced.stderr, /unknown flag --profile for kubecompat scan/);
    });

    it("a missing --to for plan and scan", async () => {
      for (const command of ["plan", "scan"]) {
        const run = await kubecompat([
          "--server",
          serverUrl,
          command,
          fixture(command === "plan" ? "cluster.yaml" : "manifests"),
        ]);
        assert.equal(run.code, 2, command);
        assert.match(
          run.stderr,
          new RegExp(`kubecompat ${command} needs the target version: --to VERSION`),
        );
      }
    });

    it("a plan file that is not YAML, names the file and line", async () => {
      const run = await kubecompat(["--server", serverUrl, "check", fixture("broken.yaml")]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /broken\.yaml:5: not valid YAML: /);
    });

    it("a plan file with an unknown top-level key is refused, not ignored", async () => {
      const run = await kubecompat(["--server", serverUrl, "check", fixture("unknown-key.yaml")]);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /unknown-key\.yaml:2: unknown top-level key "component" \(did you mean components\?\); a plan file has components, profile, asOf/,
      );
    });

    it("an unreachable server: which URL, and how to get one", async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const run = await kubecompat(["--server", url, "check", fixture("cluster.yaml")]);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(
        run.stderr,
        new RegExp(
          `cannot reach the kubecompat server at ${url.replaceAll(".", "\\.")} \\(ECONNREFUSED\\)`,
        ),
      );
      assert.match(run.stderr, /npm start/);
      assert.match(run.stderr, /--server URL or the KUBECOMPAT_URL environment variable/);
    });

    it("a 400 from the server: its code and message, and the line of the plan file to fix", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "check",
        fixture("unknown-component.yaml"),
      ]);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /answered 400 BAD_USER_INPUT: unknown component "kubelett"/);
      assert.match(run.stderr, /components\[2\]\.component \(.*unknown-component\.yaml:7\)/);
    });

    it("an HTTP server that is not kubecompat", async () => {
      const impostor = http.createServer((_req, res) =>
        res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>"),
      );
      const url = await listen(impostor);
      try {
        const run = await kubecompat(["--server", url, "check", fixture("cluster.yaml")]);
        assert.equal(run.code, 2);
        assert.match(
          run.stderr,
          /answered POST \/api\/v1\/validate with 404 Not Found and no kubecompat error; is it a kubecompat server\?/,
        );
      } finally {
        await close(impostor);
      }
    });
  });

  describe("the server's address", () => {
    it("KUBECOMPAT_URL is used when --server is not given", async () => {
      const run = await kubecompat(["check", fixture("out-of-skew.yaml")], {
        env: { KUBECOMPAT_URL: serverUrl },
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /SKEW_KUBELET_TOO_OLD_FOR_APISERVER/);
      const closed = `http://127.0.0.1:${await closedPort()}`;
      const unreachable = await kubecompat(["check", fixture("out-of-skew.yaml")], {
        env: { KUBECOMPAT_URL: closed },
      });
      assert.equal(unreachable.code, 2);
      assert.match(unreachable.stderr, new RegExp(`at ${closed.replaceAll(".", "\\.")} `));
    });

    it("--server wins over KUBECOMPAT_URL", async () => {
      const closed = `http://127.0.0.1:${await closedPort()}`;
      const run = await kubecompat(["check", fixture("out-of-skew.yaml"), "--server", serverUrl], {
        env: { KUBECOMPAT_URL: closed },
      });
      assert.equal(run.code, 1, run.stderr);
    });
  });

  describe("check and plan from kubectl's JSON", () => {
    it("sends kubectl's JSON untouched to /api/v1/validate/from-kubectl and prints the server's answer", async () => {
      const kubectlVersion = readJson(kubectlFixture("version.json"));
      const nodes = readJson(kubectlFixture("nodes-eks.json"));
      const { run, requests } = await recordedRun([
        "check",
        "--kubectl-version",
        kubectlFixture("version.json"),
        "--kubectl-nodes",
        kubectlFixture("nodes-eks.json"),
        "--profile",
        "strict",
        "-o",
        "json",
      ]);
      assert.deepEqual(requests, [
        {
          method: "POST",
          path: "/api/v1/validate/from-kubectl",
          body: { kubectlVersion, nodes, profile: "strict" },
        },
      ]);
      const direct = await ask("/api/v1/validate/from-kubectl", {
        kubectlVersion,
        nodes,
        profile: "strict",
      });
      assert.equal(direct.status, 200);
      assert.deepEqual(JSON.parse(run.stdout), direct.body);
      // The strict profile allows kubelets one minor behind the 1.29 control plane; ng-batch runs 1.27.
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /"instance": "ng-batch"/);
    });

    it("the upstream profile accepts the same EKS cluster (kubelets up to three minors behind)", async () => {
      // Judged by upstream's calendar: EKS's own (its node labels show it) has 1.29 past extended support today.
      const run = await kubecompat([
        "--server",
        serverUrl,
        "check",
        "--kubectl-version",
        kubectlFixture("version.json"),
        "--kubectl-nodes",
        kubectlFixture("nodes-eks.json"),
        "--platform",
        "upstream",
      ]);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      // Accepted, but 1.27-1.29 and containerd 1.7 are past their end of life today: never a plain SUPPORTED.
      assert.match(run.stdout, /^END OF LIFE: /m);
    });

    it("either file may come alone, and - reads it from stdin", async () => {
      const nodesText = fs.readFileSync(kubectlFixture("nodes-gke.json"), "utf8");
      const { run, requests } = await recordedRun(["check", "--kubectl-nodes", "-", "-o", "json"], {
        stdin: nodesText,
      });
      // Nodes alone name no control plane: the question is not judged, which is no pass.
      assert.equal(run.code, 1, run.stderr);
      assert.equal(JSON.parse(run.stdout).status, "NOT_JUDGED");
      assert.deepEqual(requests[0]?.body, { nodes: JSON.parse(nodesText) });
      const versionOnly = await recordedRun([
        "check",
        "--kubectl-version",
        kubectlFixture("version-gke.json"),
      ]);
      assert.equal(versionOnly.run.code, 0, versionOnly.run.stderr);
      assert.deepEqual(versionOnly.requests[0]?.body, {
        kubectlVersion: readJson(kubectlFixture("version-gke.json")),
      });
    });

    it("a kubectl file given to the wrong flag is refused before anything is sent", async () => {
      const { run, requests } = await recordedRun([
        "check",
        "--kubectl-version",
        kubectlFixture("nodes-eks.json"),
      ]);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /nodes-eks\.json looks like `kubectl get nodes -o json` output; pass it with --kubectl-nodes/,
      );
      assert.deepEqual(requests, []);
    });

    it("plan --to from kubectl's JSON posts to /api/v1/upgrade-plan/from-kubectl", async () => {
      const kubectlVersion = readJson(kubectlFixture("version.json"));
      const nodes = readJson(kubectlFixture("nodes-eks.json"));
      const { run, requests } = await recordedRun([
        "plan",
        "--kubectl-version",
        kubectlFixture("version.json"),
        "--kubectl-nodes",
        kubectlFixture("nodes-eks.json"),
        "--to",
        "1.30",
        "-o",
        "json",
      ]);
      assert.deepEqual(requests, [
        {
          method: "POST",
          path: "/api/v1/upgrade-plan/from-kubectl",
          body: { kubectlVersion, nodes, targetVersion: "1.30" },
        },
      ]);
      const direct = await ask("/api/v1/upgrade-plan/from-kubectl", {
        kubectlVersion,
        nodes,
        targetVersion: "1.30",
      });
      assert.equal(direct.status, 200);
      assert.deepEqual(JSON.parse(run.stdout), direct.body);
      assert.equal(run.code, (direct.body as { ok: boolean }).ok ? 0 : 1);
    });
  });

  describe("plan with a plan file", () => {
    it("--output json equals a direct POST /api/v1/upgrade-plan", async () => {
      const { run, requests } = await recordedRun([
        "plan",
        fixture("cluster.yaml"),
        "--to",
        "1.31",
        "--profile",
        "strict",
        "-o",
        "json",
      ]);
      // The plan file's asOf is the plan's day, as it is the check's.
      const body = {
        current: { components: CLUSTER_COMPONENTS },
        targetVersion: "1.31",
        profile: "strict",
        asOf: "2025-01-15",
      };
      assert.deepEqual(requests, [{ method: "POST", path: "/api/v1/upgrade-plan", body }]);
      const direct = await ask("/api/v1/upgrade-plan", body);
      assert.equal(direct.status, 200);
      assert.deepEqual(JSON.parse(run.stdout), direct.body);
      assert.equal(run.code, 0, run.stderr);
    });

    it("text output lists the steps in an aligned table", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "plan",
        fixture("cluster.yaml"),
        "--to",
        "1.31",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const direct = (
        await ask("/api/v1/upgrade-plan", {
          current: { components: CLUSTER_COMPONENTS },
          targetVersion: "1.31",
          asOf: "2025-01-15",
        })
      ).body as {
        steps: {
          order: number;
          component: string;
          instance: string | null;
          fromVersion: string;
          toVersion: string;
          note: string;
          undo: string | null;
        }[];
      };
      const lines = run.stdout.split("\n");
      assert.equal(lines[0], "Upgrade steps to 1.31");
      // Each control-plane hop's last point of undoing, once, below the table.
      const undos = [
        ...new Set(
          direct.steps.map((step) => step.undo).filter((undo): undo is string => undo !== null),
        ),
      ];
      assert.ok(undos.length > 0);
      for (const undo of undos) assert.equal(run.stdout.split(undo).length - 1, 1, undo);
      const rows = cellsOf(tableLines(lines.slice(1).join("\n")), [
        "ORDER",
        "COMPONENT",
        "FROM",
        "TO",
        "NOTE",
      ]);
      assert.deepEqual(
        rows,
        direct.steps.map((step) => [
          String(step.order),
          step.instance ? `${step.component}@${step.instance}` : step.component,
          step.fromVersion,
          step.toVersion,
          step.note,
        ]),
      );
      assert.ok(rows.length > 0);
      assert.match(run.stdout, /^PLAN (?:SUPPORTED|SUPPORTED WITH WARNINGS): \d+ steps to 1\.31/m);
    });

    it("plan exits 1 when the current cluster is not supported", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "plan",
        fixture("out-of-skew.yaml"),
        "--to",
        "1.31",
        "-o",
        "json",
      ]);
      const answer = JSON.parse(run.stdout) as { ok: boolean; findings: { severity: string }[] };
      assert.equal(answer.ok, false);
      assert.ok(answer.findings.some((finding) => finding.severity === "ERROR"));
      assert.equal(run.code, 1);
    });
  });

  describe("scan", () => {
    const legacy = path.join("test", "fixtures", "cli", "manifests", "legacy", "batch.yaml");
    const clean = path.join("test", "fixtures", "cli", "manifests", "app.yaml");

    it("scans a folder recursively, one request per file, and names the file of each finding", async () => {
      const { run, requests } = await recordedRun([
        "scan",
        "--to",
        "1.29",
        path.join("test", "fixtures", "cli", "manifests"),
      ]);
      assert.equal(run.code, 1, run.stderr);
      // Up to four files are scanned at once, so requests may arrive in any order; the output keeps the files' order.
      const byManifest = (body: unknown) => JSON.stringify(body);
      assert.deepEqual(
        requests.map((request) => byManifest(request.body)).sort(),
        [clean, legacy]
          .map((file) =>
            byManifest({
              manifests: fs.readFileSync(path.join(REPO_ROOT, file), "utf8"),
              targetVersion: "1.29",
            }),
          )
          .sort(),
      );
      const rows = cellsOf(tableLines(run.stdout), [
        "SEVERITY",
        "CODE",
        "FILE:LINE",
        "OBJECT",
        "MESSAGE",
      ]);
      assert.deepEqual(
        rows.map((row) => row.slice(0, 4)),
        [
          ["ERROR", "API_REMOVED", `${legacy}:2`, "CronJob shop/nightly-report"],
          ["ERROR", "API_REMOVED", `${legacy}:19`, "PodSecurityPolicy restricted"],
        ],
      );
      assert.ok(!run.stdout.includes(ANSI), run.stdout);
      assert.match(
        run.stdout,
        /^NOT SUPPORTED: 2 errors; 2 files, 5 documents, 5 objects scanned for 1\.29/m,
      );
    });

    it("--output json gives each file with the server's findings for it", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "scan",
        "--to",
        "1.29",
        clean,
        legacy,
        "-o",
        "json",
      ]);
      assert.equal(run.code, 1, run.stderr);
      const answers = await Promise.all(
        [clean, legacy].map(
          async (file) =>
            (
              await ask("/api/v1/scan", {
                manifests: fs.readFileSync(path.join(REPO_ROOT, file), "utf8"),
                targetVersion: "1.29",
              })
            ).body,
        ),
      );
      assert.deepEqual(JSON.parse(run.stdout), {
        targetVersion: "1.29",
        // The files' verdicts as one: the legacy file's removed APIs make it UNSUPPORTED.
        status: "UNSUPPORTED",
        notes: [clean, legacy].flatMap((file, index) =>
          (answers[index] as { notes: Array<{ code: string; message: string }> }).notes.map(
            (note) => ({
              ...note,
              message: note.code === "KNOWLEDGE_EDGE" ? note.message : `${file}: ${note.message}`,
            }),
          ),
        ),
        files: [
          {
            file: clean,
            findings: (answers[0] as { findings: unknown[] }).findings,
            changeFindings: (answers[0] as { changeFindings: unknown[] }).changeFindings,
          },
          {
            file: legacy,
            findings: (answers[1] as { findings: unknown[] }).findings,
            changeFindings: (answers[1] as { changeFindings: unknown[] }).changeFindings,
          },
        ],
      });
      assert.equal((answers[1] as { findings: unknown[] }).findings.length, 2);
    });

    it("reads stdin for -, and exits 0 when nothing is removed", async () => {
      const piped = await kubecompat(
        ["--server", serverUrl, "scan", "--to", "1.29", "-", "-o", "json"],
        { stdin: fs.readFileSync(path.join(REPO_ROOT, legacy), "utf8") },
      );
      assert.equal(piped.code, 1, piped.stderr);
      const report = JSON.parse(piped.stdout) as {
        files: { file: string; findings: { kind: string }[] }[];
      };
      assert.deepEqual(
        report.files.map((file) => [file.file, file.findings.map((finding) => finding.kind)]),
        [["<stdin>", ["CronJob", "PodSecurityPolicy"]]],
      );
      const cleanRun = await kubecompat(["--server", serverUrl, "scan", "--to", "1.29", "-"], {
        stdin: fs.readFileSync(path.join(REPO_ROOT, clean), "utf8"),
      });
      assert.equal(cleanRun.code, 0, cleanRun.stderr);
      assert.match(
        cleanRun.stdout,
        /^SUPPORTED: no findings; 1 file, 3 documents, 3 objects scanned for 1\.29/m,
      );
    });

    it("--output markdown is a table with the file and line of each object", async () => {
      const run = await kubecompat([
        "--server",
        serverUrl,
        "scan",
        "--to",
        "1.29",
        legacy,
        "--output",
        "markdown",
      ]);
      assert.equal(run.code, 1);
      const lines = run.stdout.split("\n");
      assert.ok(
        lines.includes("| Severity | Code | File | Object | API version | Message |"),
        run.stdout,
      );
      assert.ok(
        lines.some((line) =>
          line.startsWith(
            `| ❌ ERROR | \`API_REMOVED\` | \`${legacy}:2\` | CronJob shop/nightly-report | \`batch/v1beta1\` |`,
          ),
        ),
        run.stdout,
      );
    });

    it("a missing path fails before any request", async () => {
      const { run, requests } = await recordedRun([
        "scan",
        "--to",
        "1.29",
        clean,
        "no-such-folder",
      ]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /cannot read no-such-folder: no such file or directory/);
      assert.deepEqual(requests, []);
    });
  });

  describe("help, version and colour", () => {
    it("--help and --version", async () => {
      const help = await kubecompat(["--help"]);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /kubecompat check PLAN_FILE/);
      assert.match(help.stdout, /kubecompat scan --to VERSION PATH\.\.\./);
      const checkHelp = await kubecompat(["check", "--help"]);
      assert.equal(checkHelp.code, 0);
      assert.match(checkHelp.stdout, /--kubectl-nodes FILE/);
      const version = await kubecompat(["--version"]);
      assert.equal(version.code, 0);
      const { version: packageVersion } = readJson(path.join(REPO_ROOT, "package.json")) as {
        version: string;
      };
      assert.equal(version.stdout, `kubecompat ${packageVersion}\n`);
    });

    // util-linux `script` gives the CLI a real pseudo-terminal as stdout.
    const script = "/usr/bin/script";
    const hasScript = process.platform === "linux" && fs.existsSync(script);
    it(
      "colours severities on a terminal, unless NO_COLOR is set",
      { skip: hasScript ? false : "needs util-linux script for a pseudo-terminal" },
      async () => {
        const command = (env: string): string =>
          `${env}'${process.execPath}' '${BIN}' --server ${serverUrl} check '${fixture("out-of-skew.yaml")}'`;
        const coloured = await runExecutable(script, ["-qec", command(""), "/dev/null"]);
        assert.equal(coloured.code, 1, coloured.stdout + coloured.stderr);
        assert.ok(
          coloured.stdout.includes(`${ESC}[31;1mERROR${ESC}[0m`),
          JSON.stringify(coloured.stdout.slice(0, 200)),
        );
        const plain = await runExecutable(script, ["-qec", command("NO_COLOR=1 "), "/dev/null"]);
        assert.equal(plain.code, 1);
        assert.match(plain.stdout, /SKEW_KUBELET_TOO_OLD_FOR_APISERVER/);
        assert.ok(!plain.stdout.includes(ANSI), JSON.stringify(plain.stdout.slice(0, 200)));
      },
    );
  });
});
