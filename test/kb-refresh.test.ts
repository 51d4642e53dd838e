/**
 * The scheduled refresh end to end, without the internet: it reads local git
 * repositories in the shape of kubernetes/api (tags and lifecycle markers),
 * containerd (RELEASES.md) and kubernetes/website (the feature-gate pages),
 * and a local HTTP server answering as endoflife.date's API and taking the
 * webhook; it files proposals into a real PostgreSQL, once each, and says so
 * once. A removal marker added upstream becomes one proposal that, approved
 * over REST, changes a scan's answer; a rejected one stays rejected; a
 * failing source leaves the others' proposals intact; one replica refreshes
 * at a time.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { createLogger } from "../src/core/logger.js";
import type { RefreshConfig, RefreshSourceConfig } from "../src/core/refresh-config.js";
import { readSourceChecks, withRefreshLock } from "../src/db/source-checks.js";
import { FEATURE_GATES_DIR } from "../src/upstream/derive/feature-gates.js";
import { KbRefresh } from "../src/upstream/scheduled-refresh.js";
import { freePort } from "../src/db/embedded-postgres.js";
import { spawnServer, waitUntilReady } from "./support/server-process.js";
import {
  constantsGo,
  git,
  runOperatorTool,
  releaseWidgets,
  WIDGETS,
  type TypeSpec,
} from "./support/kb-derive.js";
import {
  REPO_ROOT,
  createTestToken,
  startTestRuntime,
  type TestRuntime,
} from "./support/runtime.js";

const FIXTURES = path.join(REPO_ROOT, "test", "fixtures");

/** endoflife.date's API and a webhook, on one local server. */
async function upstreamServer() {
  const hooks: string[] = [];
  const server = http.createServer((req, res) => {
    const product = /^\/api\/([a-z-]+)\.json$/.exec(req.url ?? "")?.[1];
    const file =
      product === "kubernetes"
        ? path.join(FIXTURES, "derive", "kubernetes.json")
        : path.join(FIXTURES, "derive", "endoflife", `${product}.json`);
    if (req.method === "GET" && product !== undefined && fs.existsSync(file)) {
      res.setHeader("content-type", "application/json");
      res.end(fs.readFileSync(file));
      return;
    }
    if (req.method === "POST" && req.url === "/hook") {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        hooks.push((JSON.parse(body) as { text: string }).text);
        res.end("ok");
      });
      return;
    }
    res.statusCode = 404;
    res.end("not here");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    hooks,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the scheduled refresh, against local upstream sources", () => {
  let runtime: TestRuntime;
  let work: string;
  let apiRepo: string;
  let server: Awaited<ReturnType<typeof upstreamServer>>;
  let sources: RefreshSourceConfig[];
  let editor: string;
  const logger = createLogger("silent");

  const release = (tag: string, widgets: Readonly<Record<string, TypeSpec>>): string =>
    releaseWidgets(apiRepo, tag, widgets);

  function repository(name: string, files: Readonly<Record<string, string>>): string {
    const directory = path.join(work, name);
    fs.mkdirSync(directory, { recursive: true });
    git(directory, ["init", "-q", "-b", "main"]);
    for (const [file, from] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(directory, file)), { recursive: true });
      fs.cpSync(from, path.join(directory, file), { recursive: true });
    }
    git(directory, ["add", "-A"]);
    git(directory, ["commit", "-q", "-m", "upstream"]);
    return directory;
  }

  function refresher(overrides: Partial<RefreshConfig> = {}): KbRefresh {
    const config: RefreshConfig = {
      intervalMs: null,
      sources,
      cacheDir: path.join(work, "cache"),
      webhookUrl: `${server.base}/hook`,
      ...overrides,
    };
    return new KbRefresh({ db: runtime.db, databaseUrl: runtime.database.url, config, logger });
  }

  async function proposals(status = "all") {
    const list = await request(runtime.app)
      .get(`/api/v1/proposals?status=${status}&limit=500`)
      .expect(200);
    return list.body.items as Array<{
      id: number;
      key: string;
      entity: string;
      derivation: string;
      status: string;
      reason: string | null;
    }>;
  }

  before(async () => {
    runtime = await startTestRuntime();
    editor = await createTestToken(runtime, "reviewer", "editor");
    work = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-refresh-"));
    apiRepo = path.join(work, "api");
    fs.mkdirSync(apiRepo);
    git(apiRepo, ["init", "-q", "-b", "master"]);
    release("kubernetes-1.33.0", {});
    const containerd = repository("containerd", {
      "RELEASES.md": path.join(FIXTURES, "derive", "RELEASES.md"),
    });
    const website = repository("website", {
      [FEATURE_GATES_DIR]: path.join(FIXTURES, "feature-gates", "pages"),
      "README.md": path.join(FIXTURES, "derive", "RELEASES.md"),
    });
    const kubernetes = path.join(work, "kubernetes");
    const constants = path.join(kubernetes, "cmd", "kubeadm", "app", "constants", "constants.go");
    fs.mkdirSync(path.dirname(constants), { recursive: true });
    git(kubernetes, ["init", "-q", "-b", "master"]);
    for (const [tag, coreDns, etcd] of [
      ["v1.36.0", "1.13.1", "3.6.5-0"],
      ["v1.37.0", "1.14.2", "3.6.8-0"],
    ] as const) {
      fs.writeFileSync(
        constants,
        constantsGo(coreDns, etcd, { 35: "3.6.5-0", 36: etcd, 37: etcd }),
      );
      git(kubernetes, ["add", "-A"]);
      git(kubernetes, ["commit", "-q", "-m", `Release commit for Kubernetes ${tag}`]);
      git(kubernetes, ["tag", tag]);
    }
    server = await upstreamServer();
    sources = [
      { name: "kubernetes-api", kind: "git", url: apiRepo },
      { name: "containerd", kind: "git", url: containerd },
      { name: "kubernetes-website", kind: "git", url: website },
      { name: "kubernetes", kind: "git", url: kubernetes },
      { name: "endoflife", kind: "http", url: `${server.base}/api` },
    ];
  });
  after(async () => {
    await runtime.close();
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("reads every source, files what differs once, and says so once", async () => {
    const first = await refresher().runOnce();
    assert.equal(first.skipped, null);
    assert.deepEqual(
      first.sources.map((source) => [source.source, source.ok, source.message]),
      sources.map((source) => [source.name, true, null]),
    );
    const filed = await proposals();
    const bySource = (name: string) => first.sources.find((source) => source.source === name)!;
    // Each derivation's proposals are its own, and the report counts exactly what was stored.
    assert.equal(
      filed.length,
      first.sources.reduce((sum, source) => sum + source.filed, 0),
    );
    for (const [source, derivations] of [
      ["containerd", /^containerd-releases$/],
      ["kubernetes-website", /^feature-gates$/],
      ["kubernetes", /^kubeadm-/],
      ["endoflife", /^endoflife-/],
    ] as const) {
      assert.ok(bySource(source).filed > 0, `${source} filed nothing: ${JSON.stringify(first)}`);
      assert.equal(
        filed.filter((p) => derivations.test(p.derivation)).length,
        bySource(source).filed,
      );
    }
    // endoflife.date's products each reach their own kind: platforms, runtimes' lines, add-ons.
    assert.ok(
      filed.some((p) => p.derivation === "endoflife-platforms"),
      JSON.stringify(filed.map((p) => p.derivation)),
    );
    assert.equal(bySource("kubernetes-api").filed, 0);
    assert.equal(first.proposalsOpen, filed.length);
    assert.equal(server.hooks.length, 1);
    assert.match(
      server.hooks[0]!,
      new RegExp(`^kubecompat knowledge refresh: ${filed.length} new proposals for review`),
    );
    assert.match(server.hooks[0]!, /GET \/api\/v1\/proposals/);

    const checks = await readSourceChecks(runtime.db);
    assert.deepEqual(checks.map((check) => check.source).sort(), sources.map((s) => s.name).sort());
    const apiCheck = checks.find((check) => check.source === "kubernetes-api")!;
    assert.equal(apiCheck.revision, git(apiRepo, ["rev-parse", "HEAD"]));
    assert.deepEqual(apiCheck.entities, ["apiRemovals"]);
    assert.equal(apiCheck.lastSuccessAt?.getTime(), first.startedAt.getTime());
    assert.equal(
      checks.find((check) => check.source === "endoflife")!.revision,
      first.startedAt.toISOString().slice(0, 10),
    );

    // Read again (the copies fetched, not cloned): the same upstream changes are not filed again, and nobody is told.
    const second = await refresher().runOnce({ force: true });
    assert.equal(
      second.sources.reduce((sum, source) => sum + source.filed, 0),
      0,
    );
    assert.equal(
      second.sources.reduce((sum, source) => sum + source.known, 0),
      filed.length,
    );
    assert.equal((await proposals()).length, filed.length);
    assert.equal(server.hooks.length, 1);
  });

  it("shows a reviewer what a proposal changes, field by field, the same on REST and GraphQL", async () => {
    const update = (await proposals("open")).find((p) => p.derivation.startsWith("endoflife-"));
    assert.ok(update !== undefined);
    const rest = (await request(runtime.app).get(`/api/v1/proposals/${update.id}`).expect(200)).body
      .item as {
      action: string;
      record: Record<string, unknown>;
      changedFields: string[];
      current: Record<string, unknown> | null;
      currentRevision: number | null;
      changes: Array<{ field: string; before: unknown; after: unknown }>;
    };
    const fields = rest.action === "create" ? Object.keys(rest.record) : rest.changedFields;
    assert.deepEqual(
      rest.changes.map((change) => change.field),
      fields,
    );
    for (const change of rest.changes) {
      assert.deepEqual(change.after, rest.record[change.field] ?? null);
      assert.deepEqual(change.before, rest.current?.[change.field] ?? null);
    }
    if (rest.action === "update")
      assert.notDeepEqual(
        rest.changes.map((c) => c.before),
        rest.changes.map((c) => c.after),
      );
    const graphql = (
      await request(runtime.app)
        .post("/graphql")
        .send({ query: `{ proposal(id: "${update.id}") { current currentRevision } }` })
        .expect(200)
    ).body.data.proposal as { current: unknown; currentRevision: number | null };
    assert.deepEqual(graphql, { current: rest.current, currentRevision: rest.currentRevision });
  });

  it("files a removal marker added upstream once; approved, it changes a scan's answer", async () => {
    const commit = release("kubernetes-1.34.0", {
      Gizmo: { introduced: 30, deprecated: 33, removed: 36 },
    });
    const report = await refresher({ sources: sources.slice(0, 1) }).runOnce();
    assert.deepEqual(
      report.sources.map((s) => [s.source, s.filed, s.revision]),
      [["kubernetes-api", 1, commit]],
    );
    assert.match(
      server.hooks.at(-1)!,
      /1 new proposal for review \(kubernetes-api 1, at [0-9a-f]{40}\)/,
    );
    const gizmo = (await proposals("open")).filter((p) => p.key === `${WIDGETS}/v1alpha1 Gizmo`);
    assert.equal(gizmo.length, 1);

    const scan = async () =>
      (
        await request(runtime.app)
          .post("/api/v1/scan")
          .send({
            manifests: `apiVersion: ${WIDGETS}/v1alpha1\nkind: Gizmo\nmetadata:\n  name: spinner\n`,
            targetVersion: "1.36",
          })
          .expect(200)
      ).body as { status: string };
    assert.equal((await scan()).status, "NOT_JUDGED");
    await request(runtime.app)
      .post(`/api/v1/proposals/${gizmo[0]!.id}/approve`)
      .set({ Authorization: `Bearer ${editor}` })
      .expect(200);
    assert.equal((await scan()).status, "UNSUPPORTED");

    const again = await refresher({ sources: sources.slice(0, 1) }).runOnce({ force: true });
    assert.deepEqual(
      again.sources.map((s) => [s.filed, s.known]),
      [[0, 0]],
    );
    assert.equal(
      (await proposals()).filter((p) => p.key === `${WIDGETS}/v1alpha1 Gizmo`).length,
      1,
    );
  });

  it("keeps a rejection through the next refresh", async () => {
    release("kubernetes-1.35.0", {
      Gizmo: { introduced: 30, deprecated: 33, removed: 36 },
      Gadget: { introduced: 31, deprecated: 34, removed: 37 },
    });
    await refresher({ sources: sources.slice(0, 1) }).runOnce({ force: true });
    const [gadget] = (await proposals("open")).filter(
      (p) => p.key === `${WIDGETS}/v1alpha1 Gadget`,
    );
    assert.ok(gadget !== undefined);
    await request(runtime.app)
      .post(`/api/v1/proposals/${gadget.id}/reject`)
      .set({ Authorization: `Bearer ${editor}` })
      .send({ reason: "the test upstream is made up" })
      .expect(200);
    const again = await refresher({ sources: sources.slice(0, 1) }).runOnce({ force: true });
    assert.deepEqual(
      again.sources.map((s) => [s.filed, s.known]),
      [[0, 1]],
    );
    const now = (await proposals()).filter((p) => p.key === `${WIDGETS}/v1alpha1 Gadget`);
    assert.deepEqual(
      now.map((p) => [p.status, p.reason]),
      [["REJECTED", "the test upstream is made up"]],
    );
  });

  it("reports a failing source and files the others' proposals", async () => {
    release("kubernetes-1.36.0", {
      Gizmo: { introduced: 30, deprecated: 33, removed: 36 },
      Gadget: { introduced: 31, deprecated: 34, removed: 37 },
      Doohickey: { introduced: 32, deprecated: 35, removed: 38 },
    });
    const before = await readSourceChecks(runtime.db);
    const broken: RefreshSourceConfig[] = [
      { name: "kubernetes-api", kind: "git", url: apiRepo },
      { name: "containerd", kind: "git", url: path.join(work, "no-such-repository") },
      { name: "endoflife", kind: "http", url: `${server.base}/moved` },
    ];
    const report = await refresher({ sources: broken }).runOnce({ force: true });
    assert.deepEqual(
      report.sources.map((s) => [s.source, s.ok, s.filed]),
      [
        ["kubernetes-api", true, 1],
        ["containerd", false, 0],
        ["endoflife", false, 0],
      ],
    );
    assert.match(
      report.sources[1]!.message!,
      /^git (clone|fetch) failed: '.*no-such-repository' does not appear to be a git repository$/,
    );
    assert.equal(
      report.sources[2]!.message,
      `GET ${server.base}/moved/kubernetes.json answered 404`,
    );
    assert.equal(
      (await proposals("open")).filter((p) => p.key === `${WIDGETS}/v1alpha1 Doohickey`).length,
      1,
    );
    const hook = server.hooks.at(-1)!;
    assert.match(
      hook,
      /containerd could not be read \(.*no-such-repository\): git (clone|fetch) failed/,
    );
    assert.match(hook, /endoflife could not be read .* answered 404/);

    // A failure is recorded as such, and keeps the date and revision of the last read that worked.
    const checks = await readSourceChecks(runtime.db);
    const endoflife = checks.find((check) => check.source === "endoflife")!;
    const earlier = before.find((check) => check.source === "endoflife")!;
    assert.equal(endoflife.outcome, "failed");
    assert.equal(endoflife.lastSuccessAt?.getTime(), earlier.lastSuccessAt?.getTime());
    assert.equal(endoflife.revision, earlier.revision);
    assert.equal(endoflife.lastAttemptAt.getTime(), report.startedAt.getTime());
  });

  it("says in /metrics how many proposals are open and how each source's last refresh went", async () => {
    const text = (await request(runtime.app).get("/metrics").expect(200)).text;
    const value = (line: string) => {
      const found = text.split("\n").find((l) => l.startsWith(`${line} `));
      assert.ok(found !== undefined, `${line} is not in /metrics`);
      return Number(found.slice(line.length + 1));
    };
    assert.equal(value("kubecompat_proposals_open"), (await proposals("open")).length);
    assert.equal(value('kubecompat_kb_refresh_source_up{source="kubernetes-api"}'), 1);
    assert.equal(value('kubecompat_kb_refresh_source_up{source="containerd"}'), 0);
    assert.equal(value('kubecompat_kb_refresh_source_up{source="endoflife"}'), 0);
    const checks = await readSourceChecks(runtime.db);
    const endoflife = checks.find((check) => check.source === "endoflife")!;
    assert.equal(
      value('kubecompat_kb_refresh_last_success_timestamp_seconds{source="endoflife"}'),
      endoflife.lastSuccessAt!.getTime() / 1000,
    );
    assert.equal(
      value('kubecompat_kb_refresh_last_attempt_timestamp_seconds{source="endoflife"}'),
      endoflife.lastAttemptAt.getTime() / 1000,
    );
  });

  it("gives each coverage row the day its source was last checked, on REST and GraphQL alike", async () => {
    const checks = await readSourceChecks(runtime.db);
    const day = (source: string) =>
      checks
        .find((check) => check.source === source)!
        .lastSuccessAt!.toISOString()
        .slice(0, 10);
    const rest = (await request(runtime.app).get("/api/v1/coverage").expect(200)).body
      .items as Array<{
      knowledge: string;
      source: string;
      sourceDate: string | null;
      lastChecked: string | null;
    }>;
    const graphql = (
      await request(runtime.app)
        .post("/graphql")
        .send({ query: "{ coverage { knowledge source lastChecked } }" })
        .expect(200)
    ).body.data.coverage as Array<{
      knowledge: string;
      source: string;
      lastChecked: string | null;
    }>;
    assert.deepEqual(
      graphql.map((row) => [row.knowledge, row.source, row.lastChecked]),
      rest.map((row) => [row.knowledge, row.source, row.lastChecked]),
    );
    const read = new Map([
      ["apiRemovals", day("kubernetes-api")],
      ["featureGates", day("kubernetes-website")],
      ["runtimeRequirements", day("containerd")],
    ]);
    for (const row of rest) {
      const checked = read.get(row.knowledge);
      // A kind a source spoke about: the later of its source's date and the refresh's last good read.
      if (checked !== undefined)
        assert.equal(
          row.lastChecked,
          row.sourceDate !== null && row.sourceDate > checked ? row.sourceDate : checked,
        );
    }
    assert.ok(
      rest.some(
        (row) => row.knowledge === "apiRemovals" && row.lastChecked === day("kubernetes-api"),
      ),
    );
    // A kind no source speaks about keeps its source's date.
    const proxy = rest.find((row) => row.knowledge === "proxyModes")!;
    assert.equal(proxy.lastChecked, proxy.sourceDate);
  });

  it("runs once from the command line (npm run kb:refresh), with the service's configuration", async () => {
    const env = {
      DATABASE_URL: runtime.database.url,
      KB_SOURCE_KUBERNETES_API: apiRepo,
      KB_SOURCE_ENDOFLIFE: `${server.base}/gone`,
      KB_REFRESH_CACHE_DIR: path.join(work, "cli-cache"),
      KB_REFRESH_WEBHOOK_URL: undefined,
    };
    const one = await runOperatorTool("kb-refresh.ts", ["--source", "kubernetes-api"], env);
    assert.equal(one.code, 0, one.stderr);
    const head = git(apiRepo, ["rev-parse", "HEAD"]);
    // Gizmo, approved, is in the knowledge base now: only Gadget (rejected) and Doohickey (open) are still proposed.
    const known = (await proposals()).filter(
      (p) => p.derivation === "kubernetes-api-lifecycle" && p.status !== "APPROVED",
    );
    assert.equal(known.length, 2);
    assert.match(
      one.stdout,
      new RegExp(
        `^kubernetes-api: read at ${head}, filed 0, ${known.length} already proposed \\(or decided\\)\n`,
      ),
    );
    const failing = await runOperatorTool("kb-refresh.ts", ["--source", "endoflife"], env);
    assert.equal(failing.code, 1, failing.stderr);
    assert.match(
      failing.stdout,
      /^endoflife: FAILED \(http:.*\/gone\): GET .*\/gone\/kubernetes\.json answered 404\n/,
    );
    const wrong = await runOperatorTool("kb-refresh.ts", ["--source", "helm"], env);
    assert.equal(wrong.code, 2);
    assert.match(
      wrong.stderr,
      /--source: helm is not a source; the sources are kubernetes-api, containerd, kubernetes-website, kubernetes, endoflife/,
    );
    const off = await runOperatorTool("kb-refresh.ts", ["--source", "containerd"], {
      ...env,
      KB_SOURCE_CONTAINERD: "off",
    });
    assert.equal(off.code, 2);
    assert.match(off.stderr, /--source: containerd is configured "off"/);
  });

  it("refreshes on one replica at a time, and not again within the interval", async () => {
    const replica = refresher({ sources: sources.slice(0, 1) });
    const held = await withRefreshLock(runtime.database.url, () =>
      replica.runOnce({ force: true }),
    );
    assert.ok(held.ran);
    assert.equal(held.result.skipped, "another replica is refreshing");

    // The tests before read kubernetes-api moments ago: a daily refresh leaves it.
    const daily = refresher({ sources: sources.slice(0, 1), intervalMs: 86_400_000 });
    assert.equal((await daily.runOnce()).skipped, "every source was read recently");
    assert.equal((await daily.runOnce({ force: true })).skipped, null);
    // Another URL for the source (a mirror configured since) is not "read recently".
    const mirror = path.join(work, "api-mirror");
    git(work, ["clone", "-q", "--mirror", apiRepo, mirror]);
    const moved = refresher({
      sources: [{ name: "kubernetes-api", kind: "git", url: mirror }],
      intervalMs: 86_400_000,
    });
    assert.equal((await moved.runOnce()).skipped, null);
  });

  it("is scheduled by the service when KB_REFRESH_INTERVAL is set, and stops with it", async () => {
    const port = await freePort();
    const service = spawnServer({
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: runtime.database.url,
      LOG_LEVEL: "info",
      KB_REFRESH_INTERVAL: "24h",
      KB_SOURCE_KUBERNETES_API: apiRepo,
      KB_SOURCE_CONTAINERD: "off",
      KB_SOURCE_KUBERNETES_WEBSITE: "off",
      KB_SOURCE_KUBERNETES: "off",
      KB_SOURCE_ENDOFLIFE: `${server.base}/api`,
      KB_REFRESH_WEBHOOK_URL: `${server.base}/hook`,
    });
    try {
      await waitUntilReady(service, port, 60_000);
      // Announced once the server listens (it may answer /readyz a moment before).
      const announced = () =>
        service.logs().find((line) => String(line.msg).startsWith("knowledge refresh scheduled"));
      for (let wait = 0; wait < 100 && announced() === undefined; wait += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const scheduled = announced();
      assert.ok(scheduled !== undefined, service.stdout().slice(-3000));
      assert.equal(scheduled.intervalMs, 86_400_000);
      assert.deepEqual(scheduled.sources, [
        `kubernetes-api ${apiRepo}`,
        `endoflife ${server.base}/api`,
      ]);
      assert.equal(scheduled.webhook, new URL(server.base).host);
      service.child.kill("SIGTERM");
      assert.equal((await service.exited).code, 0, service.stderr());
    } finally {
      await service.kill();
    }
  });

  it("starts refreshing on its timer and stops", async () => {
    // An interval of 1 ms: what was read before is not "read recently".
    const timed = refresher({ sources: sources.slice(0, 1), intervalMs: 1 });
    const before = (await readSourceChecks(runtime.db)).find((c) => c.source === "kubernetes-api")!;
    timed.start(0);
    let after = before;
    for (
      let wait = 0;
      wait < 200 && after.lastAttemptAt.getTime() === before.lastAttemptAt.getTime();
      wait += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = (await readSourceChecks(runtime.db)).find((c) => c.source === "kubernetes-api")!;
    }
    await timed.stop();
    assert.ok(after.lastAttemptAt > before.lastAttemptAt, "the timer never refreshed");
  });
});
