/**
 * Every field that takes a Kubernetes version, on every operation and face, reads it through one reader
 * (src/domain/version-reader.ts) and gives a lost zero the same answer: "1.3" (an unquoted 1.30 in YAML) is
 * refused as input, naming the field and asking whether 1.30 was meant; never a green answer about Kubernetes
 * 1.3 (issue 33, item 4). The typos are generated; each field is asked on REST, GraphQL, chat, the CLI and the
 * page where the face has it. A second property checks that what the reader does accept (aliases, `1.30.x`,
 * `v1.30.4`) is accepted by every field alike. A static check at the end keeps every domain module and face
 * on the reader: a new operation that parses versions its own way fails it.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import request from "supertest";
import { createApp } from "../src/app.js";
import { createLogger } from "../src/core/logger.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { FixedKnowledgeBase } from "../src/services/knowledge-base.js";
import { kubecompat, listen, close } from "./support/cli-process.js";
import { PROPERTY_SEED, propertyRuns } from "./support/cluster-generators.js";
import { KB_DIR, REPO_ROOT } from "./support/runtime.js";
import http from "node:http";
import type { Express } from "express";

const BOT_TOKEN = "typo-bot-token-0123456789abcdef";
const CRON_JOB =
  "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec: {schedule: '@daily', jobTemplate: {spec: {template: {spec: {containers: [{name: a, image: b}], restartPolicy: Never}}}}}\n";

/** A lost zero as people and tools produce it, and the minor meant. */
const typo = fc
  .constantFrom("1.2", "1.3", "v1.3", " 1.3 ", "V1.2")
  .map((text) => ({ text, meant: `1.${text.trim().replace(/^[vV]/, "").split(".")[1]}0` }));

/** What a face said when it refused: its message and (REST, GraphQL) the field it names. */
interface Refusal {
  readonly message: string;
  readonly field?: string;
}

describe("a lost zero in any version field, on every face", () => {
  let app: Express;
  let server: http.Server;
  let url: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-typos-"));

  before(async () => {
    app = await createApp({
      kb: FixedKnowledgeBase.fromBundle(await loadKbDirectory(KB_DIR)),
      isDatabaseReachable: () => Promise.resolve(true),
      logger: createLogger("silent"),
      chatops: { slackSigningSecret: null, botToken: BOT_TOKEN },
      rateLimits: { writesPerMinute: 120, chatPerMinute: 100_000 },
    });
    server = http.createServer(app);
    url = await listen(server);
  });
  after(async () => {
    await close(server);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const rest = async (method: "get" | "post", route: string, body?: unknown): Promise<Refusal> => {
    const response =
      method === "get"
        ? await request(app).get(route)
        : await request(app)
            .post(route)
            .send(body as object);
    assert.equal(response.status, 400, `${route}: ${JSON.stringify(response.body)}`);
    const error = response.body.error as { message: string; details?: Array<{ field: string }> };
    return { message: error.message, field: error.details?.[0]?.field };
  };
  const graphql = async (query: string, variables: Record<string, unknown>): Promise<Refusal> => {
    const response = await request(app).post("/graphql").send({ query, variables });
    const error = (
      response.body as {
        errors?: Array<{ message: string; extensions: { code: string; field?: string } }>;
      }
    ).errors?.[0];
    assert.ok(error !== undefined, `${query}: ${JSON.stringify(response.body)}`);
    assert.equal(error.extensions.code, "BAD_USER_INPUT");
    return { message: error.message, field: error.extensions.field };
  };
  const chat = async (text: string): Promise<Refusal> => {
    const response = await request(app)
      .post("/chatops/command")
      .set("authorization", `Bearer ${BOT_TOKEN}`)
      .send({ text });
    assert.equal(response.status, 200);
    const reply = (response.body as { text: string }).text;
    assert.match(
      reply,
      /^\*\*⚠️ I could not answer that\*\*/,
      `${text} -> ${reply.split("\n")[0]}`,
    );
    return { message: reply };
  };
  const cli = async (args: string[]): Promise<Refusal> => {
    const run = await kubecompat(["--server", url, ...args]);
    assert.equal(run.code, 2, `${args.join(" ")}: exit ${run.code}\n${run.stdout}${run.stderr}`);
    return { message: run.stderr };
  };
  const page = async (target: string): Promise<Refusal> => {
    const response = await request(app)
      .post("/")
      .type("form")
      .send({ version: "Server Version: v1.30.4", nodes: "", target, profile: "upstream" });
    assert.equal(response.status, 400);
    return {
      message:
        /<p id="plan-error"[^>]*>([^<]*)<\/p>/
          .exec(response.text)?.[1]
          ?.replaceAll("&quot;", '"') ?? response.text,
    };
  };
  const pool = (kubeletVersion: string) => ({ name: "pool-a", kubeletVersion });
  const components = (apiserver: string) => [
    { component: "kube-apiserver", version: apiserver },
    { component: "kubelet", version: "1.30.2" },
  ];

  /** [face and field, the field it must name (REST, GraphQL), how to ask with the version given]. */
  const fields: ReadonlyArray<
    readonly [string, string | null, (version: string) => Promise<Refusal>]
  > = [
    [
      "REST validate components[].version",
      "components[0].version",
      (v) => rest("post", "/api/v1/validate", { components: components(v) }),
    ],
    [
      "REST upgrade-plan targetVersion",
      "targetVersion",
      (v) =>
        rest("post", "/api/v1/upgrade-plan", {
          current: { components: components("1.30") },
          targetVersion: v,
        }),
    ],
    [
      "REST upgrade-plan current.components[].version",
      "current.components[0].version",
      (v) =>
        rest("post", "/api/v1/upgrade-plan", {
          current: { components: components(v) },
          targetVersion: "1.31",
        }),
    ],
    [
      "REST upgrade-plan/from-kubectl targetVersion",
      "targetVersion",
      (v) =>
        rest("post", "/api/v1/upgrade-plan/from-kubectl", {
          kubectlVersion: { serverVersion: { gitVersion: "v1.30.4" } },
          targetVersion: v,
        }),
    ],
    [
      "REST rollback-check toVersion",
      "toVersion",
      (v) =>
        rest("post", "/api/v1/rollback-check", {
          current: { components: components("1.31") },
          component: "kubelet",
          toVersion: v,
        }),
    ],
    [
      "REST scan targetVersion",
      "targetVersion",
      (v) => rest("post", "/api/v1/scan", { manifests: CRON_JOB, targetVersion: v }),
    ],
    [
      "REST scan fromVersion",
      "fromVersion",
      (v) =>
        rest("post", "/api/v1/scan", {
          manifests: CRON_JOB,
          targetVersion: "1.31",
          fromVersion: v,
        }),
    ],
    [
      "REST scan/cluster targetVersion",
      "targetVersion",
      (v) => rest("post", "/api/v1/scan/cluster", { metrics: "", targetVersion: v }),
    ],
    [
      "REST node-pool controlPlaneVersion",
      "controlPlaneVersion",
      (v) =>
        rest("post", "/api/v1/node-pool/upgrade-check", {
          controlPlaneVersion: v,
          from: pool("1.29"),
          to: pool("1.30"),
        }),
    ],
    [
      "REST node-pool to.kubeletVersion",
      "to.kubeletVersion",
      (v) =>
        rest("post", "/api/v1/node-pool/upgrade-check", {
          controlPlaneVersion: "1.30",
          from: pool("1.29"),
          to: pool(v),
        }),
    ],
    [
      "REST node-pool rollback rollbackTo.kubeletVersion",
      "rollbackTo.kubeletVersion",
      (v) =>
        rest("post", "/api/v1/node-pool/rollback-check", {
          controlPlaneVersion: "1.30",
          current: pool("1.30"),
          rollbackTo: pool(v),
        }),
    ],
    [
      "REST releases/:version",
      "version",
      (v) => rest("get", `/api/v1/releases/${encodeURIComponent(v.trim())}`),
    ],
    [
      "REST upgrade-impact from",
      "fromVersion",
      (v) => rest("get", `/api/v1/upgrade-impact?from=${encodeURIComponent(v)}&to=1.31`),
    ],
    [
      "REST api-removals to",
      "to",
      (v) => rest("get", `/api/v1/api-removals?to=${encodeURIComponent(v)}`),
    ],
    [
      "REST skew-rules kubernetesVersion",
      "kubernetesVersion",
      (v) => rest("get", `/api/v1/skew-rules?kubernetesVersion=${encodeURIComponent(v)}`),
    ],
    [
      "REST flows version",
      "version",
      (v) => rest("get", `/api/v1/flows?version=${encodeURIComponent(v)}`),
    ],
    [
      "GraphQL validateCluster",
      "plan.components[0].version",
      (v) =>
        graphql(
          "query($c: [ComponentVersionInput!]!) { validateCluster(plan: { components: $c }) { status } }",
          { c: components(v) },
        ),
    ],
    [
      "GraphQL planUpgrade targetVersion",
      "targetVersion",
      (v) =>
        graphql(
          'query($t: String!) { planUpgrade(current: { components: [{ component: "kube-apiserver", version: "1.30" }] }, targetVersion: $t) { status } }',
          { t: v },
        ),
    ],
    [
      "GraphQL checkRollback toVersion",
      "toVersion",
      (v) =>
        graphql(
          'query($t: String!) { checkRollback(current: { components: [{ component: "kube-apiserver", version: "1.31" }, { component: "kubelet", version: "1.31" }] }, component: "kubelet", toVersion: $t) { status } }',
          { t: v },
        ),
    ],
    [
      "GraphQL scanManifests targetVersion",
      "targetVersion",
      (v) =>
        graphql(
          "query($m: String!, $t: String!) { scanManifests(manifests: $m, targetVersion: $t) { status } }",
          { m: CRON_JOB, t: v },
        ),
    ],
    [
      "GraphQL release version",
      "version",
      (v) => graphql("query($v: String!) { release(version: $v) { version } }", { v }),
    ],
    [
      "GraphQL upgradeImpact toVersion",
      "toVersion",
      (v) =>
        graphql(
          'query($v: String!) { upgradeImpact(fromVersion: "1.29", toVersion: $v) { count } }',
          { v },
        ),
    ],
    [
      "GraphQL checkNodePoolUpgrade controlPlaneVersion",
      "controlPlaneVersion",
      (v) =>
        graphql(
          'query($v: String!) { checkNodePoolUpgrade(controlPlaneVersion: $v, from: { kubeletVersion: "1.29" }, to: { kubeletVersion: "1.30" }) { status } }',
          { v },
        ),
    ],
    ["chat check", null, (v) => chat(`check kube-apiserver=${v.trim()} kubelet=1.30`)],
    ["chat plan target", null, (v) => chat(`plan kube-apiserver=1.30 kubelet=1.30 to ${v.trim()}`)],
    ["chat upgrade from", null, (v) => chat(`upgrade ${v.trim()} -> 1.31`)],
    ["chat removals", null, (v) => chat(`removals ${v.trim()}`)],
    ["chat impact", null, (v) => chat(`impact ${v.trim()} -> 1.31`)],
    ["chat release", null, (v) => chat(`release ${v.trim()}`)],
    ["chat supported", null, (v) => chat(`supported ${v.trim()}`)],
    ["chat skew at", null, (v) => chat(`skew kubelet at ${v.trim()}`)],
    ["chat scan", null, (v) => chat(`scan to ${v.trim()}\n${CRON_JOB}`)],
    [
      "chat nodepool cp",
      null,
      (v) => chat(`nodepool check cp=${v.trim()} from kubelet=1.29.4 to kubelet=1.30.1`),
    ],
    ["page form target", null, (v) => page(v)],
  ];

  for (const [name, field, ask] of fields) {
    it(`${name}: refused, naming the field and 1.30`, async () => {
      await fc.assert(
        fc.asyncProperty(typo, async ({ text, meant }) => {
          const refusal = await ask(text);
          assert.ok(
            refusal.message.includes(`did you mean "${meant}"?`) ||
              refusal.message.includes(`did you mean &quot;${meant}&quot;?`),
            `${name} said: ${refusal.message}`,
          );
          if (field !== null) assert.equal(refusal.field, field);
        }),
        { seed: PROPERTY_SEED, numRuns: propertyRuns(3) },
      );
    });
  }

  it("the CLI refuses a lost zero in every flag and in a plan file, exit 2", async () => {
    const planFile = path.join(dir, "cluster.yaml");
    // An unquoted 1.30 that a YAML writer turned into 1.3: the plan file reads text, so it is the string "1.3".
    fs.writeFileSync(planFile, "components:\n  kube-apiserver: 1.3\n  kubelet: 1.30\n");
    const manifests = path.join(dir, "cronjob.yaml");
    fs.writeFileSync(manifests, CRON_JOB);
    for (const args of [
      ["check", planFile],
      ["plan", planFile, "--to", "1.31"],
      ["scan", "--to", "1.3", manifests],
      ["impact", "--from", "1.3", "--to", "1.31"],
      ["flows", "--at", "1.3"],
    ]) {
      const refusal = await cli(args);
      assert.match(
        refusal.message,
        /did you mean "1\.30"\?/,
        `${args.join(" ")}: ${refusal.message}`,
      );
    }
  });

  it("what the reader accepts, every field accepts alike (aliases, 1.30.x, v1.30.4)", async () => {
    const accepted = fc.constantFrom("1.31", "v1.31.4", "1.31.x", "latest", "oldest-supported");
    await fc.assert(
      fc.asyncProperty(accepted, async (version) => {
        for (const response of [
          await request(app)
            .post("/api/v1/validate")
            .send({ components: components(version) }),
          await request(app)
            .post("/api/v1/scan")
            .send({ manifests: CRON_JOB, targetVersion: version }),
          await request(app)
            .post("/api/v1/node-pool/upgrade-check")
            .send({ controlPlaneVersion: version, from: pool("1.30"), to: pool("1.30") }),
          await request(app).get(`/api/v1/releases/${version}`),
          await request(app).get(`/api/v1/skew-rules?kubernetesVersion=${version}`),
        ]) {
          assert.equal(
            response.status,
            200,
            `${version}: ${JSON.stringify(response.body).slice(0, 300)}`,
          );
        }
      }),
      { seed: PROPERTY_SEED, numRuns: propertyRuns(5) },
    );
  });
});

describe("versions are read through the one reader", () => {
  it("no domain module or face parses a person's Kubernetes version another way", () => {
    // The reader and the primitives it is built on; knowledge records (not typed by people) and the kubectl
    // readers (versions printed by kubectl, checked for shape only) may parse directly.
    const allowed = new Set([
      "src/domain/version-reader.ts",
      "src/domain/release-status.ts",
      "src/domain/cluster-plan.ts",
      "src/domain/kubectl-inputs.ts",
    ]);
    const offenders: string[] = [];
    for (const folder of ["src/domain", "src/rest", "src/graphql", "src/chatops", "src/cli"]) {
      for (const file of fs
        .readdirSync(path.join(REPO_ROOT, folder), { recursive: true, encoding: "utf8" })
        .filter((name) => name.endsWith(".ts"))) {
        const relative = path.join(folder, file);
        const text = fs.readFileSync(path.join(REPO_ROOT, relative), "utf8");
        if (
          !allowed.has(relative) &&
          /\b(parseKubernetesVersion|resolveVersionAlias|parseMinor)\(/.test(text)
        )
          offenders.push(relative);
      }
    }
    assert.deepEqual(
      offenders,
      [],
      "read versions with readKubernetesVersion/readMinor (src/domain/version-reader.ts)",
    );
  });
});
