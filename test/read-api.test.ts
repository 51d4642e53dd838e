import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { loadKbDirectory } from "../src/knowledge/load.js";
import type { KbBundle } from "../src/knowledge/records.js";
import { KB_DIR, startTestRuntime, type TestRuntime } from "./support/runtime.js";

describe("the read API", () => {
  let runtime: TestRuntime;
  let kb: KbBundle;
  before(async () => {
    runtime = await startTestRuntime();
    kb = await loadKbDirectory(KB_DIR);
  });
  after(async () => runtime.close());

  it("GET /healthz and /readyz", async () => {
    await request(runtime.app).get("/healthz").expect(200, { status: "ok" });
    const ready = await request(runtime.app).get("/readyz").expect(200);
    assert.deepEqual(ready.body, {
      status: "ready",
      database: "reachable",
      knowledgeBase: { loaded: true, revision: 1 },
    });
  });

  it("GET /api/v1/kb gives the revision and counts", async () => {
    const response = await request(runtime.app).get("/api/v1/kb").expect(200);
    assert.equal(response.body.revision, 1);
    assert.equal(response.body.kbRevision, 1);
    assert.equal(response.body.counts.apiRemovals, kb.apiRemovals.length);
    assert.equal(response.body.counts.ports, kb.ports.length);
    assert.match(response.body.lastImportAt, /^\d{4}-\d\d-\d\dT/);
  });

  it("GET /api/v1/components lists every component, filterable by plane", async () => {
    const all = await request(runtime.app).get("/api/v1/components").expect(200);
    assert.equal(all.body.kbRevision, 1);
    assert.deepEqual(
      all.body.items.map((item: { name: string }) => item.name).sort(),
      kb.components.map((component) => component.name).sort(),
    );
    const data = await request(runtime.app).get("/api/v1/components?plane=data").expect(200);
    assert.ok(data.body.items.length > 0);
    assert.ok(data.body.items.every((item: { plane: string }) => item.plane === "DATA"));
    assert.ok(data.body.items.some((item: { name: string }) => item.name === "kubelet"));
    const bad = await request(runtime.app).get("/api/v1/components?plane=brain").expect(400);
    assert.equal(bad.body.error.code, "BAD_USER_INPUT");
    assert.match(bad.body.error.message, /plane "brain" is not one of CONTROL, DATA, CLIENT/);
  });

  it("GET /api/v1/components/{name} resolves aliases case-insensitively", async () => {
    for (const name of ["kube-apiserver", "apiserver", "API Server", "APISERVER"]) {
      const response = await request(runtime.app)
        .get(`/api/v1/components/${encodeURIComponent(name)}`)
        .expect(200);
      assert.equal(response.body.name, "kube-apiserver", name);
      assert.match(response.body.sourceUrl, /^https:\/\//);
    }
    const missing = await request(runtime.app)
      .get("/api/v1/components/kube-flux-capacitor")
      .expect(404);
    assert.equal(missing.body.error.code, "NOT_FOUND");
    assert.match(missing.body.error.message, /known components: .*kubelet/);
  });

  it("GET /api/v1/ports?component= filters by component or alias", async () => {
    const all = await request(runtime.app).get("/api/v1/ports").expect(200);
    assert.equal(all.body.items.length, kb.ports.length);
    const etcd = await request(runtime.app).get("/api/v1/ports?component=etcd").expect(200);
    assert.deepEqual(
      etcd.body.items.map((port: { port: number; endPort: number | null }) => [
        port.port,
        port.endPort,
      ]),
      [[2379, 2380]],
    );
    const kubelet = await request(runtime.app).get("/api/v1/ports?component=kubelet").expect(200);
    assert.ok(
      kubelet.body.items.some(
        (port: { port: number; deprecated: boolean }) => port.port === 10255 && port.deprecated,
      ),
    );
    const bad = await request(runtime.app).get("/api/v1/ports?component=bogus").expect(400);
    assert.equal(bad.body.error.details[0].field, "component");
  });

  it("GET /api/v1/skew-rules picks the rules in force at a version, per profile", async () => {
    const ids = async (url: string): Promise<string[]> =>
      ((await request(runtime.app).get(url).expect(200)).body.items as Array<{ id: string }>).map(
        (rule) => rule.id,
      );
    const at127 = await ids("/api/v1/skew-rules?kubernetesVersion=1.27");
    const at128 = await ids("/api/v1/skew-rules?kubernetesVersion=v1.28.3");
    assert.ok(
      at127.includes("upstream-kubelet-vs-apiserver-n2") &&
        !at127.includes("upstream-kubelet-vs-apiserver-n3"),
    );
    assert.ok(
      at128.includes("upstream-kubelet-vs-apiserver-n3") &&
        !at128.includes("upstream-kubelet-vs-apiserver-n2"),
    );
    assert.ok(!at128.some((id) => id.startsWith("strict-")));
    const strict = await ids("/api/v1/skew-rules?kubernetesVersion=1.30&profile=strict");
    assert.ok(
      strict.includes("strict-kubelet-vs-apiserver-n1") &&
        strict.includes("upstream-kubelet-vs-apiserver-n3"),
    );
    const history = await ids("/api/v1/skew-rules");
    assert.equal(history.length, kb.skewRules.filter((rule) => rule.profile === "upstream").length);
    const unknown = await request(runtime.app)
      .get("/api/v1/skew-rules?profile=lenient")
      .expect(400);
    assert.match(
      unknown.body.error.message,
      /unknown profile "lenient"; known profiles: strict, upstream/,
    );
    // `latest` is read wherever a version is (the one version reader); a lost zero is refused with what was meant.
    assert.deepEqual(
      await ids("/api/v1/skew-rules?kubernetesVersion=latest"),
      await ids(
        `/api/v1/skew-rules?kubernetesVersion=${kb.releases.filter((release) => release.releaseDate <= new Date().toISOString().slice(0, 10)).at(-1)!.version}`,
      ),
    );
    const badVersion = await request(runtime.app)
      .get("/api/v1/skew-rules?kubernetesVersion=1.3")
      .expect(400);
    assert.equal(badVersion.body.error.details[0].field, "kubernetesVersion");
    assert.match(badVersion.body.error.message, /did you mean "1\.30"\?/);
  });

  it("GET /api/v1/api-removals?from=&to= returns from < removedIn <= to", async () => {
    const removedIn = async (url: string): Promise<string[]> => {
      const items = (await request(runtime.app).get(url).expect(200)).body.items as Array<{
        removedIn: string;
      }>;
      return [...new Set(items.map((item) => item.removedIn))];
    };
    assert.deepEqual(await removedIn("/api/v1/api-removals?from=1.25&to=1.29"), [
      "1.26",
      "1.27",
      "1.29",
    ]);
    assert.deepEqual(await removedIn("/api/v1/api-removals?from=1.24&to=1.25"), ["1.25"]);
    assert.deepEqual(await removedIn("/api/v1/api-removals?from=1.25&to=1.25"), []);
    const all = await request(runtime.app).get("/api/v1/api-removals").expect(200);
    assert.equal(all.body.items.length, kb.apiRemovals.length);
    const cronJob = all.body.items.find(
      (item: { apiVersion: string; kind: string }) =>
        item.apiVersion === "batch/v1beta1" && item.kind === "CronJob",
    );
    assert.deepEqual(
      {
        removedIn: cronJob.removedIn,
        replacement: cronJob.replacement,
        sourceUrl: cronJob.sourceUrl,
      },
      {
        removedIn: "1.25",
        replacement: "batch/v1",
        sourceUrl: "https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-25",
      },
    );
    const reversed = await request(runtime.app)
      .get("/api/v1/api-removals?from=1.29&to=1.25")
      .expect(400);
    assert.match(reversed.body.error.message, /from \(1\.29\) is newer than to \(1\.25\)/);
    await request(runtime.app).get("/api/v1/api-removals?from=soon").expect(400);
  });

  it("GET /api/v1/releases and /releases/{version}", async () => {
    const all = await request(runtime.app).get("/api/v1/releases").expect(200);
    assert.deepEqual(
      all.body.items.map((release: { version: string }) => release.version),
      [...kb.releases]
        .map((release) => release.version)
        .sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1])),
    );
    const one = await request(runtime.app).get("/api/v1/releases/v1.30.2").expect(200);
    const expected = kb.releases.find((release) => release.version === "1.30");
    assert.equal(one.body.version, "1.30");
    assert.equal(one.body.releaseDate, expected?.releaseDate);
    assert.equal(one.body.endOfLife, expected?.endOfLife);
    const missing = await request(runtime.app).get("/api/v1/releases/1.99").expect(404);
    assert.match(missing.body.error.message, /no release 1\.99; it knows 1\.19 to 1\.\d+/);
    await request(runtime.app).get("/api/v1/releases/..%2F..%2Fetc%2Fpasswd").expect(400);
  });

  it("answers 304 when the client already has this revision", async () => {
    const first = await request(runtime.app).get("/api/v1/api-removals").expect(200);
    assert.equal(first.headers.etag, 'W/"kb-1"');
    await request(runtime.app)
      .get("/api/v1/api-removals")
      .set("If-None-Match", 'W/"kb-1"')
      .expect(304);
    await request(runtime.app)
      .get("/api/v1/api-removals")
      .set("If-None-Match", 'W/"kb-0"')
      .expect(200);
  });

  it("refuses unknown and repeated query parameters, and unknown routes, with JSON errors", async () => {
    const typo = await request(runtime.app).get("/api/v1/api-removals?form=1.25").expect(400);
    assert.match(
      typo.body.error.message,
      /unknown query parameter "form"; this route accepts from, to/,
    );
    const repeated = await request(runtime.app)
      .get("/api/v1/api-removals?from=1.25&from=1.26")
      .expect(400);
    assert.equal(repeated.body.error.code, "BAD_USER_INPUT");
    const missing = await request(runtime.app).get("/api/v1/nothing-here").expect(404);
    assert.equal(missing.body.error.code, "NOT_FOUND");
    assert.equal(typeof missing.headers["x-request-id"], "string");
  });
});
