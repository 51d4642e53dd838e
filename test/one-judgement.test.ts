/**
 * The reproductions of issue 33, each asked on every face: REST, GraphQL, chat (the bot endpoint, as typed),
 * the CLI against the server, and the offline CLI where the item names it. Each was a green or silent answer
 * because one operation or face skipped a rule another applied; the generative tests (plan-properties,
 * faces-differential, version-typos) hold the rules together from now on, and these pin the cases found.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { stringify } from "yaml";
import type { ComponentVersionInput } from "../src/domain/cluster-plan.js";
import { compatibilityMatrix } from "../src/domain/matrix.js";
import { upgradeImpact } from "../src/domain/impact.js";
import { kubecompat } from "./support/cli-process.js";
import { startListeningRuntime, type SnapshotRuntime } from "./support/runtime.js";
import { kbSnapshot } from "./support/snapshot.js";

const BOT_TOKEN = "one-judgement-bot-token-0123456789";
const AS_OF = "2026-12-04";

interface Finding {
  readonly code: string;
  readonly severity: string;
  readonly component: string | null;
  readonly instance: string | null;
  readonly message: string;
}
interface Step {
  readonly order: number;
  readonly action: string;
  readonly component: string;
  readonly instance: string | null;
  readonly fromVersion: string;
  readonly toVersion: string;
}
interface Answer {
  readonly status: string;
  readonly findings: readonly Finding[];
  readonly steps?: readonly Step[];
}

let runtime: SnapshotRuntime;
let url: string;
let listening: { runtime: SnapshotRuntime; url: string; close(): Promise<void> } | undefined;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-one-judgement-"));
before(async () => {
  listening = await startListeningRuntime({
    inMemory: true,
    chatops: { slackSigningSecret: null, botToken: BOT_TOKEN },
  });
  ({ runtime, url } = listening);
});
after(async () => {
  await listening?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Question {
  readonly components: ComponentVersionInput[];
  readonly platform?: string;
  readonly asOf?: string;
  readonly target?: string;
}

const FIELDS = "status findings { code severity component instance message }";
const STEP_FIELDS = "steps { order action component instance fromVersion toVersion }";

function chatWords(question: Question): string {
  const words = question.components.flatMap((entry) => {
    const who = entry.instance == null ? entry.component : `${entry.component}@${entry.instance}`;
    return [
      `${who}=${entry.version}`,
      ...(entry.cgroupVersion == null ? [] : [`${who}:cgroup=${entry.cgroupVersion}`]),
      ...(entry.failCgroupV1 == null ? [] : [`${who}:failCgroupV1=${entry.failCgroupV1}`]),
      ...(entry.featureGates == null ? [] : [`${who}:gates="${entry.featureGates}"`]),
    ];
  });
  return [
    ...words,
    ...(question.platform === undefined ? [] : [`platform=${question.platform}`]),
    ...(question.asOf === undefined ? [] : [`asof=${question.asOf}`]),
  ].join(" ");
}

/** validate (no target) or plan (target) on REST, GraphQL, chat and the CLI (against the server, or --offline). */
async function everyFace(
  question: Question,
  options: { readonly offline?: boolean } = {},
): Promise<{ rest: Answer; graphql: Answer; chat: string; cli: Answer; cliExit: number | null }> {
  const plan = question.target !== undefined;
  const body = plan
    ? {
        current: { components: question.components },
        targetVersion: question.target,
        platform: question.platform,
        asOf: question.asOf,
      }
    : { components: question.components, platform: question.platform, asOf: question.asOf };
  const rest = await request(runtime.app)
    .post(plan ? "/api/v1/upgrade-plan" : "/api/v1/validate")
    .send(body)
    .expect(200);
  const query = plan
    ? `query($c: [ComponentVersionInput!]!, $t: String!, $f: String, $a: String) { answer: planUpgrade(current: { components: $c }, targetVersion: $t, platform: $f, asOf: $a) { ${FIELDS} ${STEP_FIELDS} } }`
    : `query($c: [ComponentVersionInput!]!, $f: String, $a: String) { answer: validateCluster(plan: { components: $c }, platform: $f, asOf: $a) { ${FIELDS} } }`;
  const graphql = await request(runtime.app)
    .post("/graphql")
    .send({
      query,
      variables: {
        c: question.components,
        t: question.target,
        f: question.platform,
        a: question.asOf,
      },
    })
    .expect(200);
  assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
  const chat = await request(runtime.app)
    .post("/chatops/command")
    .set("authorization", `Bearer ${BOT_TOKEN}`)
    .send({
      text: plan
        ? `plan ${chatWords(question)} to ${question.target}`
        : `check ${chatWords(question)}`,
    })
    .expect(200);
  const file = path.join(dir, `question-${Math.random().toString(36).slice(2)}.yaml`);
  fs.writeFileSync(
    file,
    stringify({
      components: question.components.map((entry) =>
        Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, String(value)])),
      ),
      ...(question.platform === undefined ? {} : { platform: question.platform }),
      ...(question.asOf === undefined ? {} : { asOf: question.asOf }),
    }),
  );
  const run = await kubecompat([
    ...(options.offline === true ? ["--offline"] : ["--server", url]),
    ...(plan ? ["plan", file, "--to", question.target] : ["check", file]),
    "-o",
    "json",
  ]);
  assert.notEqual(run.code, 2, run.stderr);
  return {
    rest: rest.body as Answer,
    graphql: graphql.body.data.answer as Answer,
    chat: (chat.body as { text: string }).text,
    cli: JSON.parse(run.stdout) as Answer,
    cliExit: run.code,
  };
}

/** The same verdict and codes on every face (chat: the codes it lists, in the same order). */
function sameEverywhere(faces: Awaited<ReturnType<typeof everyFace>>): void {
  const codes = (answer: Answer) => answer.findings.map((finding) => finding.code);
  assert.equal(faces.graphql.status, faces.rest.status);
  assert.equal(faces.cli.status, faces.rest.status);
  assert.deepEqual(codes(faces.graphql), codes(faces.rest));
  assert.deepEqual(codes(faces.cli), codes(faces.rest));
  const listed = [
    ...(faces.chat.split("**Findings**")[1] ?? "").matchAll(/^- \S+ `([A-Z0-9_]+)`/gm),
  ].map((match) => match[1]);
  assert.deepEqual(listed, codes(faces.rest).slice(0, listed.length));
  assert.equal(
    faces.cliExit,
    faces.rest.status === "UNSUPPORTED" || faces.rest.status === "NOT_JUDGED" ? 1 : 0,
  );
}

describe("issue 33, item by item, on every face", () => {
  it("1. a plan moves a cgroup v1 pool to cgroup v2 before its kubelet reaches 1.35, and ends as validate judges it", async () => {
    const question: Question = {
      components: [
        { component: "kube-apiserver", version: "1.34.1" },
        { component: "kubelet", version: "1.34.1", instance: "w", cgroupVersion: "v1" },
      ],
      target: "1.35",
      asOf: AS_OF,
    };
    for (const offline of [false, true]) {
      const faces = await everyFace(question, { offline });
      sameEverywhere(faces);
      for (const answer of [faces.rest, faces.graphql, faces.cli]) {
        const steps = answer.steps!;
        const migrate = steps.find((step) => step.action === "MIGRATE_CGROUP_V2");
        const kubelet = steps.find(
          (step) => step.action === "UPGRADE" && step.component === "kubelet",
        );
        assert.ok(
          migrate && kubelet && migrate.order < kubelet.order && migrate.instance === "w",
          JSON.stringify(steps),
        );
        assert.ok(
          !answer.findings.some((finding) => finding.code === "CGROUP_V1_UNSUPPORTED"),
          JSON.stringify(answer.findings),
        );
      }
      assert.match(faces.chat, /kubelet@w 1\.34\.1: nodes to cgroup v2/);
    }
    // The end state the plan reaches, asked of validate: no refusal to start.
    const end = await request(runtime.app)
      .post("/api/v1/validate")
      .send({
        components: [
          { component: "kube-apiserver", version: "1.35" },
          { component: "kubelet", version: "1.35", instance: "w", cgroupVersion: "v2" },
        ],
        asOf: AS_OF,
      })
      .expect(200);
    assert.ok(!end.body.findings.some((finding: Finding) => finding.severity === "ERROR"));
    // Told failCgroupV1: false, the pool may stay on v1 (warned), and no migration step is planned.
    const kept = await everyFace({
      ...question,
      components: [question.components[0]!, { ...question.components[1]!, failCgroupV1: false }],
    });
    sameEverywhere(kept);
    assert.ok(!kept.rest.steps!.some((step) => step.action === "MIGRATE_CGROUP_V2"));
    assert.ok(
      kept.rest.findings.some(
        (finding) => finding.code === "CGROUP_V1_DEPRECATED" && finding.instance === "w",
      ),
    );
  });

  it("2. a platform's calendar judges every component's minor: a kubelet in EKS or AKS extended support is said", async () => {
    for (const platform of ["eks", "aks"]) {
      const faces = await everyFace({
        components: [
          { component: "kube-apiserver", version: "1.35.2" },
          { component: "kubelet", version: "1.32.9" },
        ],
        platform,
        asOf: AS_OF,
      });
      sameEverywhere(faces);
      assert.equal(faces.rest.status, "SUPPORTED_WITH_WARNINGS");
      const extended = faces.rest.findings.find(
        (finding) =>
          finding.code === "PLATFORM_EXTENDED_SUPPORT" && finding.component === "kubelet",
      );
      assert.ok(extended, `${platform}: ${JSON.stringify(faces.rest.findings)}`);
      assert.match(extended.message, /1\.32 left standard support/);
    }
    // Without a platform, upstream's calendar: the same kubelet is past its end of life.
    const upstream = await everyFace({
      components: [
        { component: "kube-apiserver", version: "1.35.2" },
        { component: "kubelet", version: "1.32.9" },
      ],
      asOf: AS_OF,
    });
    sameEverywhere(upstream);
    assert.ok(
      upstream.rest.findings.some(
        (finding) => finding.code === "RELEASE_END_OF_LIFE" && finding.component === "kubelet",
      ),
    );
  });

  it("3. etcd: its own end of life and the minimums kubernetes.io gives, its members, and its upgrade path in plans", async () => {
    const old = await everyFace({
      components: [
        { component: "kube-apiserver", version: "1.36.4" },
        { component: "etcd", version: "3.0.17" },
      ],
      asOf: AS_OF,
    });
    sameEverywhere(old);
    assert.notEqual(old.rest.status, "SUPPORTED");
    assert.deepEqual(
      old.rest.findings
        .filter((finding) => finding.component === "etcd")
        .map((finding) => finding.code)
        .sort(),
      ["RUNTIME_BELOW_RECOMMENDED", "RUNTIME_END_OF_LIFE"],
    );
    // Members on 3.5 below the guide's floor beside 3.6 members: an ERROR; an even count: a WARNING.
    const mixed = await everyFace({
      components: [
        { component: "kube-apiserver", version: "1.36.4" },
        { component: "etcd", instance: "cp-1", version: "3.5.15" },
        { component: "etcd", instance: "cp-2", version: "3.6.8" },
      ],
      asOf: AS_OF,
    });
    sameEverywhere(mixed);
    assert.deepEqual(
      mixed.rest.findings
        .filter((finding) => finding.code.startsWith("ETCD_"))
        .map((finding) => `${finding.severity} ${finding.code}`),
      ["ERROR ETCD_UPGRADE_PATH", "WARNING ETCD_EVEN_MEMBERS"],
    );
    const single = await everyFace({
      components: [
        { component: "kube-apiserver", version: "1.36.4" },
        { component: "etcd", instance: "cp-1", version: "3.6.8" },
      ],
      asOf: AS_OF,
    });
    assert.ok(single.rest.findings.some((finding) => finding.code === "ETCD_NO_FAULT_TOLERANCE"));
    // A plan takes every member to 3.5.32 first, one at a time, then each to 3.6: never skipping the guide's floor.
    const plan = await everyFace({
      components: [
        { component: "kube-apiserver", version: "1.35.1" },
        ...["cp-1", "cp-2", "cp-3"].map((instance) => ({
          component: "etcd",
          instance,
          version: "3.5.15",
        })),
      ],
      target: "1.36",
      asOf: AS_OF,
    });
    sameEverywhere(plan);
    const etcd = plan.rest
      .steps!.filter((step) => step.component === "etcd")
      .map((step) => `${step.instance} ${step.fromVersion}->${step.toVersion}`);
    assert.deepEqual(etcd, [
      "cp-1 3.5.15->3.5.32",
      "cp-2 3.5.15->3.5.32",
      "cp-3 3.5.15->3.5.32",
      "cp-1 3.5.32->3.6.8",
      "cp-2 3.5.32->3.6.8",
      "cp-3 3.5.32->3.6.8",
    ]);
    assert.equal(
      new Set(
        plan.rest.steps!.filter((step) => step.component === "etcd").map((step) => step.order),
      ).size,
      6,
      "one member at a time",
    );
    // The front page's matrix shows what kubernetes.io asks of etcd, not "≥ 3.0.0" for every minor.
    const snapshot = await kbSnapshot();
    const row = compatibilityMatrix(snapshot, { asOf: AS_OF }).rows.find(
      (candidate) => candidate.subject === "etcd",
    )!;
    assert.match(row.cells.find((cell) => cell.minor === "1.36")!.text, /rec\. ≥ 3\.4\.29/);
  });

  it("5. nothing judged is not green: empty input, every document unreadable, no Kubernetes object", async () => {
    for (const manifests of ["", "a: [\n---\nb: {\n", "just: values\nreplicas: 3\n"]) {
      const rest = await request(runtime.app)
        .post("/api/v1/scan")
        .send({ manifests, targetVersion: "1.31" })
        .expect(200);
      assert.equal(rest.body.status, "NOT_JUDGED", manifests);
      assert.ok(rest.body.notes.some((note: Finding) => note.code === "NOTHING_JUDGED"));
      const graphql = await request(runtime.app)
        .post("/graphql")
        .send({
          query:
            'query($m: String!) { scanManifests(manifests: $m, targetVersion: "1.31") { status } }',
          variables: { m: manifests },
        })
        .expect(200);
      assert.equal(graphql.body.data.scanManifests.status, "NOT_JUDGED");
      if (manifests !== "") {
        const chat = await request(runtime.app)
          .post("/chatops/command")
          .set("authorization", `Bearer ${BOT_TOKEN}`)
          .send({ text: `scan to 1.31\n${manifests}` })
          .expect(200);
        assert.match(chat.body.text, /^\*\*❔ Nothing judged for 1\.31\*\*/);
      }
      const file = path.join(dir, "values.yaml");
      fs.writeFileSync(file, manifests);
      const run = await kubecompat(["--server", url, "scan", "--to", "1.31", file]);
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.stdout, /^NOT CHECKED: /m);
      assert.doesNotMatch(run.stdout, /^(OK|SUPPORTED)\b/m);
    }
    // Evidence from a cluster that holds nothing to judge is not green either (REST, chat, the CLI).
    const cluster = await request(runtime.app)
      .post("/api/v1/scan/cluster")
      .send({ objects: { items: [] }, metrics: "# HELP up\n", targetVersion: "1.31" })
      .expect(200);
    assert.equal(cluster.body.status, "NOT_JUDGED");
    const clusterChat = await request(runtime.app)
      .post("/chatops/command")
      .set("authorization", `Bearer ${BOT_TOKEN}`)
      .send({ text: 'scan to 1.31\n{"kind": "List", "items": []}' })
      .expect(200);
    assert.match(clusterChat.body.text, /^\*\*❔ Nothing judged for 1\.31\*\*/);
    const objects = path.join(dir, "objects.json");
    fs.writeFileSync(objects, '{"kind": "List", "items": []}');
    const clusterRun = await kubecompat([
      "--server",
      url,
      "scan-cluster",
      "--to",
      "1.31",
      "--objects",
      objects,
    ]);
    assert.equal(clusterRun.code, 1, clusterRun.stdout + clusterRun.stderr);
    assert.match(clusterRun.stdout, /NOTHING_JUDGED/);
    // An ERROR row is never beside "OK": an unreadable document among readable ones is NOT SUPPORTED, exit 1.
    const file = path.join(dir, "mixed.yaml");
    fs.writeFileSync(file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\na: [\n");
    const run = await kubecompat(["--server", url, "scan", "--to", "1.31", file]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /DOCUMENT_UNREADABLE/);
    assert.match(run.stdout, /^NOT SUPPORTED: /m);
  });

  it("6. a version not released yet on asOf is said", async () => {
    const faces = await everyFace({
      components: [{ component: "kube-apiserver", version: "1.35" }],
      asOf: "2025-06-01",
    });
    sameEverywhere(faces);
    assert.ok(
      faces.rest.findings.some(
        (finding) =>
          finding.code === "VERSION_NOT_YET_RELEASED" &&
          /released 2025-12-17/.test(finding.message),
      ),
    );
    assert.notEqual(faces.rest.status, "SUPPORTED");
  });

  it("7. the knowledge's edges are said by plans as by validate and upgrade-impact", async () => {
    const old = await everyFace({
      components: [{ component: "kube-apiserver", version: "1.12" }],
      target: "1.22",
      asOf: AS_OF,
    });
    sameEverywhere(old);
    assert.ok(old.rest.findings.some((finding) => finding.code === "VERSION_OLDER_THAN_KB"));
    assert.ok(
      old.rest.findings.some(
        (finding) =>
          finding.code === "KNOWLEDGE_EDGE" &&
          /older than the knowledge base covers/.test(finding.message),
      ),
    );
    const ahead = await everyFace({
      components: [{ component: "kube-apiserver", version: "1.36" }],
      target: "1.37",
      asOf: AS_OF,
    });
    sameEverywhere(ahead);
    // On AS_OF 1.37 is out: the knowledge that ends at 1.36 is stale, said alike by the plan and upgrade-impact.
    const impact = upgradeImpact(await kbSnapshot(), "1.36", "1.37", { asOf: AS_OF }).notes.filter(
      (note) => note.code === "KNOWLEDGE_EDGE" || note.code === "KNOWLEDGE_STALE",
    );
    assert.ok(impact.length > 0);
    for (const note of impact)
      assert.ok(
        ahead.rest.findings.some(
          (finding) =>
            finding.code === note.code &&
            (finding as Finding & { ruleId: string }).ruleId === note.ruleId,
        ),
        `${note.code} ${note.ruleId ?? ""}`,
      );
  });

  it("8. the faces take the same fields: chat platform= and release latest, the plan file's platform:, the CLI's help", async () => {
    const chat = async (text: string) =>
      (
        await request(runtime.app)
          .post("/chatops/command")
          .set("authorization", `Bearer ${BOT_TOKEN}`)
          .send({ text })
          .expect(200)
      ).body.text as string;
    assert.match(
      await chat(`check kube-apiserver=1.35.2 kubelet=1.32.9 platform=eks asof=${AS_OF}`),
      /PLATFORM_EXTENDED_SUPPORT/,
    );
    const latest = await chat("release latest");
    assert.match(latest, /^\*\*📅 Kubernetes 1\.\d+\*\*/);
    assert.doesNotMatch(latest, /could not answer/);
    const file = path.join(dir, "eks.yaml");
    fs.writeFileSync(
      file,
      `components:\n  kube-apiserver: 1.35.2\n  kubelet: 1.32.9\nplatform: eks\nasOf: ${AS_OF}\n`,
    );
    const run = await kubecompat(["--server", url, "plan", file, "--to", "1.36", "-o", "json"]);
    assert.notEqual(run.code, 2, run.stderr);
    const top = await kubecompat(["--help"]);
    for (const command of [
      "check",
      "plan",
      "scan",
      "nodepool",
      "impact",
      "flows",
      "firewall",
      "collect",
      "scan-cluster",
    ])
      assert.match(top.stdout, new RegExp(`^  ${command} +\\S`, "m"), command);
  });

  it("9. a plan keeps a runtime on a line supported the whole way and alive, moving it once", async () => {
    const faces = await everyFace({
      components: [
        { component: "kube-apiserver", version: "1.32" },
        { component: "kubelet", version: "1.32" },
        { component: "containerd", version: "1.7.20" },
      ],
      target: "1.35",
      platform: "eks",
      asOf: "2026-12-01",
    });
    sameEverywhere(faces);
    const runtimeSteps = faces.rest.steps!.filter((step) => step.component === "containerd");
    assert.deepEqual(
      runtimeSteps.map((step) => step.toVersion),
      ["2.3.0"],
      JSON.stringify(runtimeSteps),
    );
    assert.ok(
      !faces.rest.findings.some(
        (finding) =>
          finding.code === "RUNTIME_END_OF_LIFE" || finding.code === "RUNTIME_SUPPORT_ENDING",
      ),
    );
  });
});
