/**
 * Knowledge that is right at its boundaries and says where it ends:
 * - cgroup v1: maintenance mode from 1.31 (INFO), a 1.35+ kubelet does not
 *   start on it (ERROR) unless failCgroupV1 is false (WARNING), on validate
 *   (REST, GraphQL), node pools (from the KubeletConfiguration) and the CLI;
 * - a container runtime past its own end of life on asOf (containerd 1.6 a
 *   day, 1.7 only a month) is a WARNING;
 * - the lifecycle-marker removals of 1.33-1.40 are listed with their sources
 *   and found by a scan at their removal release;
 * - coverage is served on REST, GraphQL and chat, and a question beyond it
 *   gets KNOWLEDGE_EDGE (validate, plan, scan, node pools, chat, CLI);
 * - a coverage claim the records do not back is refused.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { parseCommand, runCommand } from "../src/chatops/commands.js";
import { checkNodePoolUpgrade } from "../src/domain/node-pool.js";
import { scanManifests } from "../src/domain/scan.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { crossCheckBundle } from "../src/knowledge/validate.js";
import { kubecompat } from "./support/cli-process.js";
import { startListeningRuntime, type Listening, type SnapshotRuntime } from "./support/runtime.js";
import { kbSnapshot, plan } from "./support/snapshot.js";
import { syntheticSnapshot } from "./support/synthetic-kb.js";

const AS_OF = "2026-11-29";

function codes(snapshot: KbSnapshot, components: unknown[], asOf = AS_OF): string[] {
  return validateCluster(snapshot, components, { asOf })
    .findings.filter(
      (finding) => !finding.code.startsWith("RELEASE_") && finding.code !== "RUNTIME_END_OF_LIFE",
    )
    .map((finding) => `${finding.severity} ${finding.code}`)
    .sort();
}

describe("cgroup v1 nodes", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  const kubelet = (version: string, node: { cgroupVersion?: string; failCgroupV1?: boolean }) => [
    { component: "kube-apiserver", version },
    { component: "kubelet", version, instance: "pool-a", ...node },
  ];
  const cases: Array<
    [string, string, { cgroupVersion?: string; failCgroupV1?: boolean }, string[]]
  > = [
    ["1.30 on cgroup v1: nothing yet", "1.30", { cgroupVersion: "v1" }, []],
    [
      "1.31 on cgroup v1: maintenance mode",
      "1.31",
      { cgroupVersion: "v1" },
      ["INFO CGROUP_V1_DEPRECATED"],
    ],
    [
      "1.34 on cgroup v1: still maintenance mode",
      "1.34",
      { cgroupVersion: "v1" },
      ["INFO CGROUP_V1_DEPRECATED"],
    ],
    [
      "1.35 on cgroup v1: does not start",
      "1.35",
      { cgroupVersion: "v1" },
      ["ERROR CGROUP_V1_UNSUPPORTED"],
    ],
    [
      "1.35 on cgroup v1 with failCgroupV1: true",
      "1.35",
      { cgroupVersion: "v1", failCgroupV1: true },
      ["ERROR CGROUP_V1_UNSUPPORTED"],
    ],
    [
      "1.35 on cgroup v1 with failCgroupV1: false",
      "1.35",
      { cgroupVersion: "v1", failCgroupV1: false },
      ["WARNING CGROUP_V1_DEPRECATED"],
    ],
    [
      "1.36 on cgroup v1 with failCgroupV1: false",
      "1.36",
      { cgroupVersion: "v1", failCgroupV1: false },
      ["WARNING CGROUP_V1_DEPRECATED"],
    ],
    ["1.35 on cgroup v2", "1.35", { cgroupVersion: "v2" }, []],
    ["1.35, cgroup not said", "1.35", {}, []],
  ];
  for (const [name, version, node, expected] of cases) {
    it(name, () => {
      assert.deepEqual(codes(snapshot, kubelet(version, node)), expected);
    });
  }

  it("warns about containerd 2.2 on cgroup v1, which containerd itself deprecated", () => {
    const components = [
      ...kubelet("1.34", { cgroupVersion: "v1" }),
      { component: "containerd", version: "2.2.0", instance: "pool-a" },
    ];
    assert.ok(codes(snapshot, components).includes("WARNING CGROUP_V1_DEPRECATED"));
    const older = [
      ...kubelet("1.34", { cgroupVersion: "v1" }),
      { component: "containerd", version: "2.1.5", instance: "pool-a" },
    ];
    assert.deepEqual(codes(snapshot, older), ["INFO CGROUP_V1_DEPRECATED"]);
  });

  it("refuses cgroup facts on a component that is not a kubelet, and values that are not v1 or v2", () => {
    assert.throws(
      () =>
        validateCluster(snapshot, [
          { component: "kube-apiserver", version: "1.35", cgroupVersion: "v1" },
        ]),
      /put them on the kubelet entry/,
    );
    assert.throws(
      () =>
        validateCluster(snapshot, [{ component: "kubelet", version: "1.35", cgroupVersion: "v3" }]),
      /must be v1 or v2/,
    );
  });

  it("reads failCgroupV1 from a node pool's KubeletConfiguration", () => {
    const pool = (kubeletConfig?: string) => ({
      kubeletVersion: "1.35.0",
      cgroupVersion: "v1",
      ...(kubeletConfig === undefined ? {} : { kubeletConfig }),
    });
    const check = (kubeletConfig?: string) =>
      checkNodePoolUpgrade(snapshot, {
        controlPlaneVersion: "1.35",
        from: { kubeletVersion: "1.34.2", cgroupVersion: "v1" },
        to: pool(kubeletConfig),
      });
    const refused = check();
    assert.equal(refused.ok, false);
    assert.ok(
      refused.findings.some(
        (finding) => finding.code === "CGROUP_V1_UNSUPPORTED" && finding.severity === "ERROR",
      ),
    );
    const allowed = check(
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfailCgroupV1: false\n",
    );
    assert.equal(allowed.ok, true, JSON.stringify(allowed.findings));
    assert.ok(
      allowed.findings.some(
        (finding) => finding.code === "CGROUP_V1_DEPRECATED" && finding.severity === "WARNING",
      ),
    );
  });
});

describe("a runtime past its own end of life", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });
  const eol = (runtime: string, asOf: string) =>
    validateCluster(snapshot, plan(`apiserver=1.33 kubelet=1.33 containerd=${runtime}`), {
      asOf,
    }).findings.filter((finding) => finding.code === "RUNTIME_END_OF_LIFE");

  it("containerd 1.6 ends on its day (2025-08-23)", () => {
    assert.equal(eol("1.6.39", "2025-08-23").length, 0);
    const [finding] = eol("1.6.39", "2025-08-24");
    assert.equal(finding?.severity, "WARNING");
    assert.match(finding?.message ?? "", /containerd 1\.6 reached its end of life on 2025-08-23/);
  });

  it("containerd 1.7, given only as a month (September 2026), is supported through the month's last day", () => {
    assert.equal(eol("1.7.28", "2026-09-30").length, 0);
    assert.match(
      eol("1.7.28", "2026-10-01")[0]?.message ?? "",
      /2026-09-30 \(the project gives only the month, 2026-09\)/,
    );
  });

  it("a supported line raises nothing", () => {
    assert.equal(eol("2.3.0", AS_OF).length, 0);
  });
});

// Rules of where the knowledge ends, on the synthetic kb (test/fixtures/kb-synthetic: removals through 1.53,
// skew rules through 1.54, the containerd table through 1.53, flags through 1.52, releases 1.50-1.54), so
// that they do not move each time kb/ learns a newer minor.
describe("where the knowledge ends, in the domain (synthetic kb)", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await syntheticSnapshot();
  });
  const edge = <F extends { code: string }>(findings: readonly F[]): F[] =>
    findings.filter((finding) => finding.code === "KNOWLEDGE_EDGE");
  const asOf = "2032-09-01";

  it("scans: removals are known through the covered minor; the next one says so, naming the source and its revision", () => {
    const manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";
    assert.deepEqual(scanManifests(snapshot, manifest, "1.53").notes, []);
    const [note] = scanManifests(snapshot, manifest, "1.54").notes;
    assert.equal(note?.code, "KNOWLEDGE_EDGE");
    assert.equal(note?.severity, "WARNING");
    assert.match(
      note?.message ?? "",
      /only through Kubernetes 1\.53 \(synthetic removals list, read at 5e5e5e5e/,
    );
  });

  it("validate: each kind is judged through its own coverage (skew rules through 1.54, the containerd table through 1.53)", () => {
    assert.deepEqual(
      edge(
        validateCluster(snapshot, plan("apiserver=1.54 kubelet=1.53 containerd=3.3.0"), { asOf })
          .findings,
      ),
      [],
    );
    // 1.54 is out on asOf (released 2032-08-18): the containerd table that ends at 1.53 is stale, not at an edge.
    const beyond = validateCluster(snapshot, plan("apiserver=1.54 kubelet=1.54 containerd=3.3.0"), {
      asOf,
    }).findings;
    assert.deepEqual(edge(beyond), []);
    assert.deepEqual(
      beyond
        .filter((finding) => finding.code === "KNOWLEDGE_STALE")
        .map((finding) => finding.ruleId),
      ["coverage:runtimeRequirements"],
    );
    const newer = validateCluster(snapshot, plan("apiserver=1.55 kubelet=1.55"), { asOf }).findings;
    assert.deepEqual(
      edge(newer).map((finding) => finding.ruleId),
      ["coverage:skewRules"],
    );
  });

  it("plans: a target beyond the runtime (and removal) knowledge says so; one beyond the known releases is refused", () => {
    const result = planUpgrade(
      snapshot,
      plan("apiserver=1.53 kcm=1.53 kubelet=1.53 containerd=3.3.0"),
      "1.54",
    );
    assert.deepEqual(
      edge(result.findings)
        .map((finding) => finding.ruleId)
        .sort(),
      ["coverage:apiRemovals", "coverage:runtimeRequirements"],
    );
    const beyond = planUpgrade(snapshot, plan("apiserver=1.54 kcm=1.54 kubelet=1.54"), "1.55");
    assert.equal(beyond.findings[0]?.code, "TARGET_UNKNOWN");
  });

  it("node pools: flags beyond the flag knowledge say so", () => {
    const result = checkNodePoolUpgrade(snapshot, {
      controlPlaneVersion: "1.53",
      from: { kubeletVersion: "1.52.1", kubeletFlags: ["--max-pods=110"] },
      to: { kubeletVersion: "1.53.1", kubeletFlags: ["--max-pods=110"] },
    });
    assert.deepEqual(
      edge(result.findings).map((finding) => finding.ruleId),
      ["coverage:flagChanges"],
    );
    const within = checkNodePoolUpgrade(snapshot, {
      controlPlaneVersion: "1.52",
      from: { kubeletVersion: "1.51.1", kubeletFlags: ["--max-pods=110"] },
      to: { kubeletVersion: "1.52.1", kubeletFlags: ["--max-pods=110"] },
    });
    assert.deepEqual(edge(within.findings), []);
  });

  it("refuses a coverage claim that no record backs", () => {
    const bundle = {
      ...snapshot,
      coverage: [
        ...snapshot.coverage,
        {
          knowledge: "releases",
          throughMinor: "1.60",
          stage: "RELEASED" as const,
          source: "wishful thinking",
          sourceRevision: null,
          sourceDate: null,
          sourceUrl: "https://example.org/x",
          notes: null,
          minorCadenceMonths: null,
        },
      ],
    };
    const issues = crossCheckBundle(bundle);
    assert.equal(issues.length, 1, JSON.stringify(issues));
    assert.equal(issues[0]?.field, "throughMinor");
    assert.match(issues[0]?.message ?? "", /no releases record reaches it \(newest: 1\.54\)/);
    assert.deepEqual(crossCheckBundle(snapshot), []);
  });

  it("the reviewed kb/ backs every coverage claim it makes", async () => {
    assert.deepEqual(crossCheckBundle(await kbSnapshot()), []);
  });
});

describe("where the knowledge ends, on every face", () => {
  let runtime: SnapshotRuntime;
  let serverUrl: string;
  let listening: Listening<SnapshotRuntime> | undefined;
  before(async () => {
    listening = await startListeningRuntime({ inMemory: true });
    ({ runtime, url: serverUrl } = listening);
  });
  after(async () => {
    await listening?.close();
  });

  it("lists the lifecycle-marker removals of 1.33-1.40 with their sources, and a scan at the removal finds one", async () => {
    const response = await request(runtime.app)
      .get("/api/v1/api-removals?from=1.32&to=1.40")
      .expect(200);
    const items = response.body.items as Array<{
      apiVersion: string;
      kind: string;
      removedIn: string;
      sourceUrl: string;
      servedByDefault: boolean | null;
    }>;
    const byRelease = new Map<string, number>();
    for (const item of items)
      byRelease.set(item.removedIn, (byRelease.get(item.removedIn) ?? 0) + 1);
    for (const minor of ["1.33", "1.34", "1.37", "1.38", "1.39", "1.40"])
      assert.ok(
        (byRelease.get(minor) ?? 0) > 0,
        `no removal in ${minor}: ${JSON.stringify([...byRelease])}`,
      );
    const markers = items.filter((item) =>
      item.sourceUrl.startsWith("https://github.com/kubernetes/api/blob/"),
    );
    assert.ok(markers.length >= 35, `${markers.length} marker-sourced removals`);
    assert.ok(
      markers.every((item) =>
        /\/blob\/[0-9a-f]{40}\/[a-z0-9]+\/v[0-9a-z]+\/(zz_generated\.prerelease-lifecycle|types)\.go$/.test(
          item.sourceUrl,
        ),
      ),
      "each names the commit and the file",
    );
    assert.ok(markers.every((item) => item.servedByDefault === false));
    const cidr = items.find(
      (item) => item.apiVersion === "networking.k8s.io/v1beta1" && item.kind === "ServiceCIDR",
    );
    assert.equal(cidr?.removedIn, "1.37");

    const manifest =
      "apiVersion: networking.k8s.io/v1beta1\nkind: ServiceCIDR\nmetadata:\n  name: extra\nspec:\n  cidrs: [10.96.0.0/16]\n";
    const before = await request(runtime.app)
      .post("/api/v1/scan")
      .send({ manifests: manifest, targetVersion: "1.36" })
      .expect(200);
    assert.notEqual(before.body.findings[0]?.code, "API_REMOVED");
    const at = await request(runtime.app)
      .post("/api/v1/scan")
      .send({ manifests: manifest, targetVersion: "1.37" })
      .expect(200);
    assert.equal(at.body.findings[0]?.code, "API_REMOVED");
    assert.equal(at.body.findings[0]?.severity, "ERROR");
  });

  it("serves coverage on REST, GraphQL and chat", async () => {
    const list = await request(runtime.app).get("/api/v1/coverage").expect(200);
    const markers = (
      list.body.items as Array<{ knowledge: string; throughMinor: string; sourceDate: string }>
    ).find((item) => item.knowledge === "apiRemovals" && item.throughMinor === "1.40");
    assert.equal(markers?.sourceDate, "2026-07-24");
    const summary = await request(runtime.app).get("/api/v1/kb").expect(200);
    assert.deepEqual(
      summary.body.coverage.map((item: { knowledge: string }) => item.knowledge).sort(),
      list.body.items.map((item: { knowledge: string }) => item.knowledge).sort(),
    );
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query:
          "{ knowledgeBase { coverage { knowledge throughMinor source sourceRevision sourceDate } } coverage { knowledge } }",
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.ok(
      graphql.body.data.knowledgeBase.coverage.some(
        (item: { knowledge: string; throughMinor: string }) =>
          item.knowledge === "releases" && item.throughMinor === "1.37",
      ),
    );
    const parsed = parseCommand("coverage");
    assert.ok(parsed.ok);
    const reply = runCommand(runtime.kb.current(), parsed.command);
    assert.match(
      reply.text,
      /apiRemovals:\*\* through 1\.36 from kubernetes\/api lifecycle markers at release tags @ /,
    );
    assert.match(
      reply.text,
      /apiRemovals:\*\* through 1\.40 \(pre-release\) from kubernetes\/api lifecycle markers at master and v0\.37\.0-beta\.0 @ 10b39a39/,
    );
  });

  it("says KNOWLEDGE_EDGE on REST, GraphQL, chat and the CLI", async () => {
    const rest = await request(runtime.app)
      .post("/api/v1/scan")
      .send({
        manifests: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
        targetVersion: "1.41",
      })
      .expect(200);
    assert.equal(rest.body.notes[0]?.code, "KNOWLEDGE_EDGE");
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query: `{ scanManifests(manifests: "apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: a\\n", targetVersion: "1.41") { notes { code severity message } } validateCluster(plan: { components: [{ component: "apiserver", version: "1.38" }] }, asOf: "2026-12-04") { findings { code } } }`,
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.equal(graphql.body.data.scanManifests.notes[0].code, "KNOWLEDGE_EDGE");
    assert.ok(
      graphql.body.data.validateCluster.findings.some(
        (finding: { code: string }) => finding.code === "KNOWLEDGE_EDGE",
      ),
    );
    const parsed = parseCommand("check apiserver=1.38 kubelet=1.38 asof=2026-12-04");
    assert.ok(parsed.ok);
    assert.match(runCommand(runtime.kb.current(), parsed.command).text, /KNOWLEDGE_EDGE/);

    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-edge-"));
    const file = path.join(directory, "cm.yaml");
    fs.writeFileSync(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n");
    const cli = await kubecompat(["--server", serverUrl, "scan", "--to", "1.41", file]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /WARNING\s+KNOWLEDGE_EDGE/);
    const planFile = path.join(directory, "plan.yaml");
    fs.writeFileSync(
      planFile,
      "components:\n  - { component: kube-apiserver, version: 1.35 }\n  - { component: kubelet, version: 1.35, instance: pool-a, cgroupVersion: v1 }\n",
    );
    const check = await kubecompat(["--server", serverUrl, "check", planFile]);
    assert.equal(check.code, 1, check.stdout + check.stderr);
    assert.match(check.stdout, /CGROUP_V1_UNSUPPORTED/);
    fs.writeFileSync(
      planFile,
      "components:\n  - { component: kube-apiserver, version: 1.35 }\n  - { component: kubelet, version: 1.35, instance: pool-a, cgroupVersion: v1, failCgroupV1: false }\n",
    );
    const allowed = await kubecompat(["--server", serverUrl, "check", planFile]);
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
    assert.match(allowed.stdout, /CGROUP_V1_DEPRECATED/);
  });

  it("takes cgroupVersion and failCgroupV1 on REST and GraphQL validate", async () => {
    const components = [
      { component: "kube-apiserver", version: "1.35" },
      { component: "kubelet", version: "1.35", instance: "pool-a", cgroupVersion: "v1" },
    ];
    const rest = await request(runtime.app)
      .post("/api/v1/validate")
      .send({ components, asOf: AS_OF })
      .expect(200);
    assert.equal(rest.body.ok, false);
    assert.ok(
      rest.body.findings.some(
        (finding: { code: string }) => finding.code === "CGROUP_V1_UNSUPPORTED",
      ),
    );
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query:
          'query($plan: ClusterPlanInput!) { validateCluster(plan: $plan, asOf: "2026-11-29") { ok findings { code severity } } }',
        variables: {
          plan: { components: [components[0], { ...components[1], failCgroupV1: false }] },
        },
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.equal(graphql.body.data.validateCluster.ok, true);
    assert.ok(
      graphql.body.data.validateCluster.findings.some(
        (finding: { code: string; severity: string }) =>
          finding.code === "CGROUP_V1_DEPRECATED" && finding.severity === "WARNING",
      ),
    );
  });
});
