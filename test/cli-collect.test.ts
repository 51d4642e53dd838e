/**
 * `kubecompat collect` and `kubecompat scan-cluster`. No cluster can run here, so collect runs with KUBECTL
 * pointing at test/fixtures/kubectl-replay/kubectl.mjs, which replays recorded outputs of the real kubectl
 * commands (files in kubectl's formats) and refuses CRDs the way kubectl does for a user without access;
 * the Helm tests write a stand-in of their own that prints the release Secrets they build.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";
import { parseAllDocuments } from "yaml";
import { BIN, kubecompat, recordingProxy } from "./support/cli-process.js";
import { startListeningRuntime } from "./support/runtime.js";

const REPLAY = path.join(import.meta.dirname, "fixtures", "kubectl-replay", "kubectl.mjs");

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's and Helm's JSON, read field by field in assertions
type Json = Record<string, any>;

/** A Helm 3 release Secret as `kubectl get secrets -o json` prints it: data.release is base64 of base64 of gzip of the release JSON. */
function helmReleaseSecret(release: Json, extraMetadata: Json = {}): Json {
  const helmEncoded = gzipSync(JSON.stringify(release)).toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "helm.sh/release.v1",
    metadata: {
      name: `sh.helm.release.v1.${release.name}.v${release.version}`,
      namespace: release.namespace,
      labels: {
        name: release.name,
        owner: "helm",
        status: release.info.status,
        version: String(release.version),
      },
      ...extraMetadata,
    },
    data: { release: Buffer.from(helmEncoded).toString("base64") },
  };
}

/** The release a Secret holds, decoded the way Helm (and the server) reads it. */
function decodeRelease(secret: Json): Json {
  const helmEncoded = Buffer.from(secret.data.release as string, "base64").toString("latin1");
  return JSON.parse(gunzipSync(Buffer.from(helmEncoded, "base64")).toString("utf8")) as Json;
}

/** Names in `folder` that are not `expected`: a temporary file left behind shows up here. */
function otherEntries(folder: string, expected: readonly string[]): string[] {
  return fs.readdirSync(folder).filter((name) => !expected.includes(name));
}

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
    const run = await kubecompat(["collect", "--context", "prod-eu", "--output-file", bundlePath], {
      env: { KUBECTL: REPLAY, KUBECTL_REPLAY_LOG: log },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /kubectl --context prod-eu get crd -o json failed: Error from server \(Forbidden\)/,
    );
    const calls = fs
      .readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as string[]);
    assert.ok(
      calls.every((argv) => argv[0] === "--context" && argv[1] === "prod-eu"),
      "every call uses the context",
    );
    assert.equal(calls.length, 6);
    const bundle = JSON.parse(fs.readFileSync(bundlePath, "utf8")) as Record<string, unknown>;
    assert.equal(bundle.kind, "KubecompatClusterBundle");
    assert.equal(bundle.context, "prod-eu");
    assert.equal((bundle.helmReleases as { items: unknown[] }).items.length, 2);
    assert.match(bundle.metrics as string, /apiserver_requested_deprecated_apis/);
    assert.equal(bundle.crds, undefined);
    assert.equal((bundle.errors as unknown[]).length, 1);
    assert.equal(
      fs.statSync(bundlePath).mode & 0o777,
      0o600,
      "the bundle holds Helm release records: only its owner reads it",
    );
    const missing = await kubecompat(["collect"], {
      env: { KUBECTL: path.join(dir, "no-such-kubectl") },
    });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /kubectl was not found .*set KUBECTL to its path/);
  });

  it("scans the bundle's Helm releases and metrics, and checks its nodes and workloads", async () => {
    const env = { KUBECOMPAT_URL: listening!.url, NO_COLOR: "1" };
    const bundlePath = path.join(dir, "bundle.json");
    const scan = await kubecompat(
      ["scan-cluster", "--bundle", bundlePath, "--to", "1.25", "-o", "json"],
      { env },
    );
    assert.equal(scan.code, 1, scan.stderr);
    const answer = JSON.parse(scan.stdout) as {
      findings: Array<{
        evidence: string;
        code: string;
        severity: string;
        release: { revision: number } | null;
      }>;
      releases: Array<{ revision: number; skippedRevisions: number[] }>;
    };
    assert.deepEqual(
      answer.releases.map((release) => [release.revision, release.skippedRevisions]),
      [[5, [4]]],
    );
    assert.deepEqual(
      answer.findings.map((entry) => `${entry.evidence} ${entry.code} ${entry.severity}`).sort(),
      [
        "HELM_RELEASE API_REMOVED ERROR",
        "HELM_RELEASE API_REMOVED ERROR",
        "REQUEST_METRIC DEPRECATED_API_REQUESTED ERROR",
      ],
    );
    const text = await kubecompat(["scan-cluster", "--bundle", bundlePath, "--to", "1.25"], {
      env,
    });
    assert.match(
      text.stdout,
      /HELM_RELEASE +API_REMOVED +release shop\/shop r5: PodDisruptionBudget shop/,
    );
    const check = await kubecompat(
      ["check", "--bundle", bundlePath, "--platform", "upstream", "-o", "json"],
      { env },
    );
    const checked = JSON.parse(check.stdout) as {
      findings: Array<{ code: string; component: string | null }>;
    };
    assert.ok(
      checked.findings.some(
        (entry) => entry.code === "ADDON_UNSUPPORTED" && entry.component === "cluster-autoscaler",
      ),
      check.stdout.slice(0, 2000),
    );
    const nothing = await kubecompat(["scan-cluster", "--to", "1.25"], { env });
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /needs something to scan: --bundle FILE/);
    fs.writeFileSync(path.join(dir, "not-a-bundle.json"), "{}");
    const wrong = await kubecompat(
      ["scan-cluster", "--bundle", path.join(dir, "not-a-bundle.json"), "--to", "1.25"],
      { env },
    );
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /is not a bundle written by `kubecompat collect`/);
  });

  it("--output-file replaces an existing file with a new one that only its owner reads", async () => {
    const folder = fs.mkdtempSync(path.join(dir, "replace-"));
    const bundlePath = path.join(folder, "bundle.json");
    fs.writeFileSync(bundlePath, "an older bundle\n");
    fs.chmodSync(bundlePath, 0o644);
    const before = fs.statSync(bundlePath);
    const run = await kubecompat(["collect", "--output-file", bundlePath], {
      env: { KUBECTL: REPLAY },
    });
    assert.equal(run.code, 0, run.stderr);
    const after = fs.statSync(bundlePath);
    assert.equal(after.mode & 0o777, 0o600, "an existing 0644 file does not keep its mode");
    assert.notEqual(after.ino, before.ino, "a new file was renamed over the old one");
    assert.equal(
      (JSON.parse(fs.readFileSync(bundlePath, "utf8")) as Json).kind,
      "KubecompatClusterBundle",
    );
    assert.deepEqual(otherEntries(folder, ["bundle.json"]), [], "no temporary file is left behind");
  });

  it("--output-file refuses a symbolic link (and anything not a regular file) and writes nothing", async () => {
    const folder = fs.mkdtempSync(path.join(dir, "link-"));
    const target = path.join(folder, "notes.txt");
    fs.writeFileSync(target, "the link's target\n");
    fs.chmodSync(target, 0o644);
    const link = path.join(folder, "bundle.json");
    fs.symlinkSync(target, link);
    const run = await kubecompat(["collect", "--output-file", link], { env: { KUBECTL: REPLAY } });
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /bundle\.json is a symbolic link; give the path of a regular file or a new name/,
    );
    assert.equal(
      fs.readFileSync(target, "utf8"),
      "the link's target\n",
      "the target is not overwritten",
    );
    assert.equal(fs.statSync(target).mode & 0o777, 0o644);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), "the link is not replaced either");
    assert.deepEqual(
      otherEntries(folder, ["notes.txt", "bundle.json"]),
      [],
      "no temporary file is left behind",
    );
    const folderGiven = await kubecompat(["collect", "--output-file", folder], {
      env: { KUBECTL: REPLAY },
    });
    assert.equal(folderGiven.code, 2);
    assert.match(
      folderGiven.stderr,
      /is a directory; give the path of a regular file or a new name/,
    );
  });

  it("makes standard output 0600 when the shell redirected it to a file", async () => {
    const bundlePath = path.join(dir, "redirected.json");
    const fd = fs.openSync(bundlePath, "w", 0o644);
    fs.fchmodSync(fd, 0o644);
    const stderr: string[] = [];
    const code = await new Promise<number | null>((resolve, reject) => {
      // As `kubecompat collect > redirected.json` runs it: fd 1 is the file the shell created.
      const child = spawn(process.execPath, [BIN, "collect"], {
        stdio: ["ignore", fd, "pipe"],
        // eslint-disable-next-line no-restricted-syntax -- the child CLI inherits the test's environment (PATH, HOME)
        env: { ...process.env, KUBECTL: REPLAY },
      });
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk));
      child.on("error", reject);
      child.on("close", resolve);
    });
    fs.closeSync(fd);
    assert.equal(code, 0, stderr.join(""));
    assert.equal(
      fs.statSync(bundlePath).mode & 0o777,
      0o600,
      "the bundle holds Helm release records: only its owner reads it",
    );
    assert.equal(
      (JSON.parse(fs.readFileSync(bundlePath, "utf8")) as Json).kind,
      "KubecompatClusterBundle",
    );
    assert.doesNotMatch(stderr.join(""), /warning/);
    const piped = await kubecompat(["collect"], { env: { KUBECTL: REPLAY } });
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(
      (JSON.parse(piped.stdout) as Json).kind,
      "KubecompatClusterBundle",
      "a pipe has no mode to change",
    );
    assert.doesNotMatch(piped.stderr, /warning/);
  });

  it("keeps of each Helm release only what the scan reads, and the scan finds the same", async () => {
    const password = "Pa55-hunter2-d41d8cd9";
    const encodedPassword = Buffer.from(password).toString("base64");
    const documents = {
      secret: `# Source: legacy-web/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: legacy-web-db\n  namespace: web\n  labels:\n    app: legacy-web\n  annotations:\n    checksum/password: ${password}\ntype: Opaque\ndata:\n  password: ${encodedPassword}\nstringData:\n  dsn: postgres://app:${password}@db/web\n`,
      ingress: `# Source: legacy-web/templates/ingress.yaml\napiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: legacy-web\n  namespace: web\nspec:\n  rules:\n    - host: web.example.com   # written by the chart\n      http:\n        paths:\n          - backend: {serviceName: legacy-web, servicePort: 80}\n`,
      podSecurityPolicy: `# Source: legacy-web/templates/psp.yaml\napiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: legacy-web\nspec:\n  privileged: false\n  seLinux: {rule: RunAsAny}\n`,
      deployment: `# Source: legacy-web/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: legacy-web\n  namespace: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: "registry.example.com/web:1.4"\n`,
    };
    const chartMetadata = {
      name: "legacy-web",
      version: "2.3.1",
      appVersion: "1.4",
      apiVersion: "v2",
      description: "the shop's web front",
    };
    const release = (version: number, status: string): Json => ({
      name: "legacy-web",
      namespace: "web",
      version,
      info: {
        first_deployed: "2022-01-10T09:00:00Z",
        last_deployed: `2022-0${version}-11T09:00:00Z`,
        deleted: "",
        description: "Upgrade complete",
        status,
        notes: "NOTES: log in with the chart's notes",
      },
      chart: {
        metadata: chartMetadata,
        lock: null,
        templates: [
          {
            name: "templates/secret.yaml",
            data: Buffer.from("TEMPLATE-TEXT {{ .Values.db.password }}").toString("base64"),
          },
        ],
        values: { db: { password: "CHART-DEFAULT-VALUE" } },
        schema: Buffer.from('{"title": "SCHEMA-TEXT"}').toString("base64"),
        files: [{ name: "files/init.sql", data: Buffer.from("FILE-TEXT").toString("base64") }],
      },
      config: { db: { password } },
      manifest: Object.values(documents)
        .map((document) => `---\n${document}`)
        .join(""),
      hooks: [
        {
          name: "legacy-web-migrate",
          kind: "Secret",
          path: "legacy-web/templates/hook.yaml",
          manifest:
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: HOOK-SECRET\nstringData:\n  token: HOOK-TOKEN\n",
          events: ["pre-upgrade"],
        },
      ],
    });
    const managed = {
      annotations: { "meta.helm.sh/note": "ANNOTATION-TEXT" },
      uid: "2a4c",
      managedFields: [{ manager: "helm" }],
    };
    const releases = [
      helmReleaseSecret(release(2, "superseded"), managed),
      helmReleaseSecret(release(3, "deployed"), managed),
    ];
    const broken = {
      apiVersion: "v1",
      kind: "Secret",
      type: "helm.sh/release.v1",
      metadata: { name: "sh.helm.release.v1.broken.v1", namespace: "web" },
      data: { release: Buffer.from(`not gzip at all ${password}`).toString("base64") },
    };
    const secretsPath = path.join(dir, "helm-secrets-with-values.json");
    fs.writeFileSync(
      secretsPath,
      JSON.stringify({ apiVersion: "v1", kind: "List", items: [...releases, broken] }),
    );
    const kubectl = path.join(dir, "kubectl-helm.mjs");
    fs.writeFileSync(
      kubectl,
      `#!/usr/bin/env node\nimport fs from "node:fs";\nif (process.argv.slice(2).join(" ") === "get secrets -A -l owner=helm -o json") process.stdout.write(fs.readFileSync(${JSON.stringify(secretsPath)}, "utf8"));\nelse { process.stderr.write("Error from server (Forbidden): only Secrets in this test\\n"); process.exit(1); }\n`,
      { mode: 0o755 },
    );
    const bundlePath = path.join(dir, "stripped-bundle.json");
    const run = await kubecompat(["collect", "--output-file", bundlePath], {
      env: { KUBECTL: kubectl },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /kubectl get secrets -A -l owner=helm -o json: Helm release record web\/sh\.helm\.release\.v1\.broken\.v1 was left out/,
    );

    const text = fs.readFileSync(bundlePath, "utf8");
    const bundle = JSON.parse(text) as Json;
    const items = bundle.helmReleases.items as Json[];
    assert.deepEqual(
      items.map((item) => item.metadata.name as string),
      ["sh.helm.release.v1.legacy-web.v2", "sh.helm.release.v1.legacy-web.v3"],
      "the record that cannot be decoded is left out",
    );
    assert.ok(
      (bundle.errors as Json[]).some((entry) =>
        /web\/sh\.helm\.release\.v1\.broken\.v1 was left out/.test(entry.message as string),
      ),
    );
    const decoded = items.map(decodeRelease);
    const everything = `${text}\n${JSON.stringify(decoded)}`;
    for (const kept of [
      password,
      encodedPassword,
      "CHART-DEFAULT-VALUE",
      "TEMPLATE-TEXT",
      "SCHEMA-TEXT",
      "FILE-TEXT",
      "HOOK-SECRET",
      "HOOK-TOKEN",
      "NOTES:",
      "ANNOTATION-TEXT",
      "managedFields",
    ]) {
      assert.ok(
        !everything.includes(kept),
        `${kept} is neither in the bundle nor in a release it holds`,
      );
    }
    for (const [index, item] of items.entries()) {
      const original = releases[index]!;
      assert.deepEqual(Object.keys(item).sort(), [
        "apiVersion",
        "data",
        "kind",
        "metadata",
        "type",
      ]);
      assert.deepEqual(item.metadata, {
        name: original.metadata.name,
        namespace: "web",
        labels: original.metadata.labels,
      });
      assert.equal(item.type, "helm.sh/release.v1");
      const kept = decoded[index]!;
      assert.deepEqual(Object.keys(kept).sort(), [
        "chart",
        "info",
        "manifest",
        "name",
        "namespace",
        "version",
      ]);
      assert.deepEqual(kept.chart, { metadata: chartMetadata });
      assert.deepEqual(kept.info, {
        first_deployed: "2022-01-10T09:00:00Z",
        last_deployed:
          original.metadata.labels.version === "2"
            ? "2022-02-11T09:00:00Z"
            : "2022-03-11T09:00:00Z",
        deleted: "",
        status: original.metadata.labels.status,
      });
      for (const document of [documents.ingress, documents.podSecurityPolicy, documents.deployment])
        assert.ok(
          (kept.manifest as string).includes(`---\n${document}`),
          "other documents are kept byte for byte",
        );
      const secrets = parseAllDocuments(kept.manifest as string)
        .map((document) => document.toJS() as Json)
        .filter((value) => value.kind === "Secret");
      assert.deepEqual(secrets, [
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "legacy-web-db", namespace: "web", labels: { app: "legacy-web" } },
          type: "Opaque",
        },
      ]);
    }

    // The server, given the records as kubectl printed them, finds what it finds from the bundle.
    const env = { KUBECOMPAT_URL: listening!.url, NO_COLOR: "1" };
    const response = await fetch(`${listening!.url}/api/v1/scan/cluster`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        targetVersion: "1.25",
        helmReleases: { apiVersion: "v1", kind: "List", items: releases },
      }),
    });
    assert.equal(response.status, 200);
    const unstripped = (await response.json()) as Json;
    const scan = await kubecompat(
      ["scan-cluster", "--bundle", bundlePath, "--to", "1.25", "-o", "json"],
      { env },
    );
    assert.equal(scan.code, 1, scan.stderr);
    const stripped = JSON.parse(scan.stdout) as Json;
    assert.deepEqual(
      (stripped.findings as Json[])
        .map((entry) => `${entry.code} ${entry.apiVersion} ${entry.kind}`)
        .sort(),
      ["API_REMOVED extensions/v1beta1 Ingress", "API_REMOVED policy/v1beta1 PodSecurityPolicy"],
    );
    assert.deepEqual(stripped, unstripped);

    // scan-cluster cuts records down itself when given them as kubectl printed them.
    const proxy = await recordingProxy(listening!.url);
    try {
      const raw = await kubecompat(
        ["scan-cluster", "--helm", secretsPath, "--to", "1.25", "-o", "json"],
        { env: { ...env, KUBECOMPAT_URL: proxy.url } },
      );
      assert.equal(raw.code, 1, raw.stderr);
      assert.match(
        raw.stderr,
        /Helm release record web\/sh\.helm\.release\.v1\.broken\.v1 was left out: .*\(not sent\)/,
      );
      assert.deepEqual(JSON.parse(raw.stdout), unstripped);
      const sent = proxy.recorded[0]!.body as Json;
      const sentReleases = (sent.helmReleases.items as Json[]).map(decodeRelease);
      assert.equal(sentReleases.length, 2);
      for (const kept of [password, encodedPassword, "CHART-DEFAULT-VALUE", "HOOK-TOKEN"])
        assert.ok(
          !`${JSON.stringify(sent)}${JSON.stringify(sentReleases)}`.includes(kept),
          `${kept} is not sent`,
        );
    } finally {
      await proxy.close();
    }
  });
});
