/**
 * The same question on every face gets the same answer (issue 33): generated clusters (every input field, see
 * test/support/cluster-generators.ts, typos included) are asked as a check and as a plan over real HTTP on
 * REST, on GraphQL, on the chat bot endpoint (the words a person types, the reply a person reads) and, for a
 * share of them, through the real `kubecompat --offline` executable with a plan file. Every face must give
 * the same verdict and the same findings (REST, GraphQL and the CLI every code; chat its counts by severity
 * and the codes it lists), or refuse the same input with the same message (and the CLI with exit code 2).
 * The MCP face (the SDK's client at /mcp) is asked every check, plan and node-pool question in full.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "../src/app.js";
import { createLogger } from "../src/core/logger.js";
import type { ComponentVersionInput } from "../src/domain/cluster-plan.js";
import { FixedKnowledgeBase } from "../src/services/knowledge-base.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kubecompat } from "./support/cli-process.js";
import {
  clusterQuestion,
  nodePoolQuestion,
  propertyRuns,
  PROPERTY_SEED,
  type ClusterQuestion,
  type NodePoolQuestion,
} from "./support/cluster-generators.js";
import { KB_DIR } from "./support/runtime.js";

const BOT_TOKEN = "differential-bot-token-0123456789";

/** Documents as manifests hold them: served and removed APIs, a behaviour change's field, a custom resource, values, unreadable YAML. */
const DOCUMENTS = [
  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n",
  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}\n",
  "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: nightly}\nspec: {schedule: '@daily', jobTemplate: {spec: {template: {spec: {containers: [{name: a, image: b}], restartPolicy: Never}}}}}\n",
  "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: shop}\nspec: {backend: {serviceName: shop, servicePort: 80}}\n",
  "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata: {name: restricted}\nspec: {privileged: false}\n",
  "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 3}\n",
  "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata: {name: fs}\n",
  "apiVersion: v1\nkind: Service\nmetadata: {name: front}\nspec: {externalIPs: [10.0.0.9], ports: [{port: 80}]}\n",
  "apiVersion: snapshot.storage.k8s.io/v1beta1\nkind: VolumeSnapshot\nmetadata: {name: nightly}\n",
  "replicas: 3\nimage: {tag: latest}\n",
  "a: [\n",
  "",
];

/** What a face answered: a verdict with its findings, or a refusal with its message. */
type Answer =
  | {
      readonly kind: "verdict";
      readonly status: string;
      readonly codes: readonly string[];
      readonly counts: Readonly<Record<string, number>>;
    }
  | { readonly kind: "refused"; readonly message: string };

const FINDING_FIELDS = "status findings { code severity }";

function verdictOf(body: {
  status: string;
  findings: Array<{ code: string; severity: string }>;
}): Answer {
  const counts: Record<string, number> = { ERROR: 0, WARNING: 0, INFO: 0 };
  for (const finding of body.findings)
    counts[finding.severity] = (counts[finding.severity] ?? 0) + 1;
  return {
    kind: "verdict",
    status: body.status,
    codes: body.findings.map((finding) => finding.code),
    counts,
  };
}

/** The question in chat words: `kubelet@pool-a=1.30 kubelet@pool-a:cgroup=v1 ... platform=eks asof=...`. */
function chatWords(question: ClusterQuestion): string {
  const words: string[] = [];
  for (const entry of question.components) {
    const who =
      entry.instance === undefined || entry.instance === null
        ? entry.component
        : `${entry.component}@${entry.instance}`;
    words.push(`${who}=${entry.version}`);
    if (entry.cgroupVersion != null) words.push(`${who}:cgroup=${entry.cgroupVersion}`);
    if (entry.failCgroupV1 != null) words.push(`${who}:failCgroupV1=${entry.failCgroupV1}`);
    for (const gate of entry.featureGates?.split(",") ?? []) words.push(`${who}:gate=${gate}`);
  }
  if (question.profile !== undefined) words.push(`profile=${question.profile}`);
  if (question.platform !== undefined) words.push(`platform=${question.platform}`);
  if (question.asOf !== undefined) words.push(`asof=${question.asOf}`);
  return words.join(" ");
}

/** The headline's sign is its verdict, whatever the words after it (✅ supported, ⚠️ with warnings, ❌ not, ❔ not checked). */
const CHAT_STATUS: ReadonlyArray<[RegExp, string]> = [
  [/^\*\*✅ /, "SUPPORTED"],
  [/^\*\*❌ /, "UNSUPPORTED"],
  [/^\*\*❔ /, "NOT_JUDGED"],
  [/^\*\*⚠️ /, "SUPPORTED_WITH_WARNINGS"],
];

/** A chat reply read as a person reads it: its headline, its counts, the codes it lists, or the refusal it quotes. */
function chatAnswer(text: string): Answer {
  if (text.startsWith("**⚠️ I could not answer that**"))
    return { kind: "refused", message: /\n> (.*)\n/.exec(text)?.[1] ?? text };
  const status = CHAT_STATUS.find(([pattern]) => pattern.test(text))?.[1];
  assert.ok(status !== undefined, `a chat headline the test cannot read: ${text.split("\n")[0]}`);
  const counted = (word: string): number =>
    Number(new RegExp(`(\\d+) ${word}s?\\b`).exec(text)?.[1] ?? 0);
  const findings = text.split("**Findings**")[1] ?? "";
  const codes = [...findings.matchAll(/^- \S+ `([A-Z0-9_]+)`/gm)].map((match) => match[1]!);
  return {
    kind: "verdict",
    status,
    codes,
    counts: { ERROR: counted("error"), WARNING: counted("warning"), INFO: counted("note") },
  };
}

/** A node pool in chat words: `name=pool-a kubelet=1.30.4 proxy=nftables containerd=2.0.6 flags="…" cgroup=v2`. */
function poolWords(spec: NodePoolQuestion["from"]): string {
  const words: string[] = [];
  const text = (key: string) => spec[key] as string | undefined;
  if (text("name") !== undefined) words.push(`name=${text("name")}`);
  words.push(`kubelet=${text("kubeletVersion")}`);
  if (text("kubeProxyVersion") !== undefined) words.push(`kube-proxy=${text("kubeProxyVersion")}`);
  if (text("kubeProxyMode") !== undefined) words.push(`proxy=${text("kubeProxyMode")}`);
  if (text("os") !== undefined) words.push(`os=${text("os")}`);
  if (text("runtime") !== undefined)
    words.push(
      `${text("runtime") === "docker-engine" ? "docker" : text("runtime")}=${text("runtimeVersion")}`,
    );
  if (Array.isArray(spec.kubeletFlags)) words.push(`flags="${spec.kubeletFlags.join(" ")}"`);
  if (text("chartKubeVersion") !== undefined) words.push(`chart="${text("chartKubeVersion")}"`);
  if (text("cgroupVersion") !== undefined) words.push(`cgroup=${text("cgroupVersion")}`);
  return words.join(" ");
}

/** The plan file a person would write for the question (every value text, as the CLI's failsafe reading keeps it). */
function planFile(question: ClusterQuestion): string {
  const components = question.components.map((entry: ComponentVersionInput) =>
    Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, String(value)])),
  );
  return stringify({
    components,
    ...(question.profile === undefined ? {} : { profile: question.profile }),
    ...(question.asOf === undefined ? {} : { asOf: question.asOf }),
    ...(question.platform === undefined ? {} : { platform: question.platform }),
  });
}

describe("every face answers a generated question alike", () => {
  let server: http.Server;
  let url: string;
  let snapshot: KbSnapshot;
  let questions: ClusterQuestion[];
  let mcpClient: Client;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-differential-"));

  before(async () => {
    const bundle = await loadKbDirectory(KB_DIR);
    snapshot = new KbSnapshot(bundle, { revision: 1, lastImportAt: null });
    const app = await createApp({
      kb: FixedKnowledgeBase.fromBundle(bundle),
      isDatabaseReachable: () => Promise.resolve(true),
      logger: createLogger("silent"),
      chatops: { slackSigningSecret: null, botToken: BOT_TOKEN },
      // The chat face's own limit (60 a minute) would answer 429 to this many questions from one address.
      rateLimits: { writesPerMinute: 120, chatPerMinute: 100_000 },
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    mcpClient = new Client({ name: "differential", version: "1.0.0" });
    await mcpClient.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    questions = fc.sample(clusterQuestion(snapshot, { typos: true }), {
      seed: PROPERTY_SEED,
      numRuns: propertyRuns(40),
    });
  });
  after(async () => {
    await mcpClient.close();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const post = async (
    route: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${url}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };

  const rest = async (route: string, body: unknown): Promise<Answer> => {
    const answer = await post(route, body);
    if (answer.status === 400)
      return {
        kind: "refused",
        message: (answer.body as { error: { message: string } }).error.message,
      };
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return verdictOf(
      answer.body as { status: string; findings: Array<{ code: string; severity: string }> },
    );
  };

  const graphql = async (
    query: string,
    variables: Record<string, unknown>,
    field: string,
  ): Promise<Answer> => {
    const answer = await post("/graphql", { query, variables });
    const body = answer.body as {
      data?: Record<
        string,
        { status: string; findings: Array<{ code: string; severity: string }> }
      > | null;
      errors?: Array<{ message: string; extensions: { code: string } }>;
    };
    if (body.errors !== undefined) {
      assert.equal(body.errors[0]!.extensions.code, "BAD_USER_INPUT", JSON.stringify(body.errors));
      return { kind: "refused", message: body.errors[0]!.message };
    }
    return verdictOf(body.data![field]!);
  };

  /** The question as REST's body, asked of the MCP tool in full: its verdict, or REST's refusal as a tool error. */
  const mcp = async (tool: string, body: Record<string, unknown>): Promise<Answer> => {
    const result = (await mcpClient.callTool({
      name: tool,
      arguments: JSON.parse(JSON.stringify({ ...body, detail: "full" })) as Record<string, unknown>,
    })) as { structuredContent?: Record<string, unknown>; isError?: boolean };
    const content = result.structuredContent!;
    if (result.isError === true) {
      const error = content.error as { code: string; message: string };
      assert.equal(error.code, "BAD_USER_INPUT", JSON.stringify(content));
      return { kind: "refused", message: error.message };
    }
    return verdictOf(
      content as { status: string; findings: Array<{ code: string; severity: string }> },
    );
  };

  const chat = async (text: string): Promise<Answer> => {
    const answer = await post(
      "/chatops/command",
      { text },
      { authorization: `Bearer ${BOT_TOKEN}` },
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return chatAnswer((answer.body as { text: string }).text);
  };

  const cli = async (args: string[], question: ClusterQuestion, name: string): Promise<Answer> => {
    const file = path.join(dir, `${name}.yaml`);
    fs.writeFileSync(file, planFile(question));
    const run = await kubecompat([
      "--offline",
      ...args.map((arg) => (arg === "FILE" ? file : arg)),
      "-o",
      "json",
    ]);
    if (run.code === 2) return { kind: "refused", message: run.stderr };
    const answer = verdictOf(
      JSON.parse(run.stdout) as {
        status: string;
        findings: Array<{ code: string; severity: string }>;
      },
    );
    // The exit code follows the status: 1 for UNSUPPORTED and NOT_JUDGED, else 0.
    assert.equal(
      run.code,
      answer.kind === "verdict" &&
        (answer.status === "UNSUPPORTED" || answer.status === "NOT_JUDGED")
        ? 1
        : 0,
      `${args.join(" ")}: ${run.stderr}`,
    );
    return answer;
  };

  /** Faces agree with REST: the same verdict and findings, or the same refusal. */
  function agree(
    reference: Answer,
    other: Answer,
    face: string,
    asked: string,
    options: { readonly listedOnly?: boolean } = {},
  ): void {
    if (reference.kind === "refused") {
      assert.equal(
        other.kind,
        "refused",
        `${face} answered what REST refused (${reference.message}): ${asked}`,
      );
      assert.ok(
        other.message.includes(reference.message),
        `${face} refused with another message:\n  REST: ${reference.message}\n  ${face}: ${other.message}\n${asked}`,
      );
      return;
    }
    assert.equal(
      other.kind,
      "verdict",
      `${face} refused what REST answered: ${other.kind === "refused" ? other.message : ""}\n${asked}`,
    );
    if (other.kind !== "verdict") return;
    assert.equal(
      other.status,
      reference.status,
      `${face} says ${other.status}, REST ${reference.status}: ${asked}`,
    );
    assert.deepEqual(other.counts, reference.counts, `${face}'s counts by severity: ${asked}`);
    if (options.listedOnly === true)
      assert.deepEqual(
        other.codes,
        reference.codes.slice(0, other.codes.length),
        `${face} lists other codes: ${asked}`,
      );
    else assert.deepEqual(other.codes, reference.codes, `${face}'s codes: ${asked}`);
  }

  it("validate: REST, GraphQL, MCP and chat, and the offline CLI for a share", async () => {
    const seen = { verdicts: new Set<string>(), refused: 0, cli: 0, codes: new Set<string>() };
    for (const [index, question] of questions.entries()) {
      const asked = JSON.stringify(question);
      const options = {
        profile: question.profile,
        asOf: question.asOf,
        platform: question.platform,
      };
      const body = { components: question.components, ...options };
      const reference = await rest("/api/v1/validate", body);
      agree(reference, await mcp("validate_cluster", body), "MCP", JSON.stringify(question));
      if (reference.kind === "verdict") {
        seen.verdicts.add(reference.status);
        for (const code of reference.codes) seen.codes.add(code);
      } else seen.refused += 1;
      const query = `query($c: [ComponentVersionInput!]!, $p: String, $a: String, $f: String) { validateCluster(plan: { components: $c }, profile: $p, asOf: $a, platform: $f) { ${FINDING_FIELDS} } }`;
      agree(
        reference,
        await graphql(
          query,
          { c: question.components, p: question.profile, a: question.asOf, f: question.platform },
          "validateCluster",
        ),
        "GraphQL",
        asked,
      );
      agree(reference, await chat(`check ${chatWords(question)}`), "chat", asked, {
        listedOnly: true,
      });
      if (index % 8 === 0) {
        seen.cli += 1;
        agree(
          reference,
          await cli(["check", "FILE"], question, `check-${index}`),
          "CLI --offline",
          asked,
        );
      }
    }
    // The questions reach every verdict and a refusal, or the comparison proves little.
    assert.ok(
      seen.verdicts.has("SUPPORTED_WITH_WARNINGS") &&
        seen.verdicts.has("UNSUPPORTED") &&
        seen.refused > 0 &&
        seen.cli > 0,
      JSON.stringify({ ...seen, verdicts: [...seen.verdicts], codes: [...seen.codes] }),
    );
    // The rules issue 33 added or moved are asked of every face (the calendar of every minor, etcd, cgroup, gates).
    const rules = [
      "PLATFORM_EXTENDED_SUPPORT",
      "PLATFORM_END_OF_SUPPORT",
      "VERSION_NOT_YET_RELEASED",
      "ETCD_UPGRADE_PATH",
      "ETCD_EVEN_MEMBERS",
      "RUNTIME_BELOW_RECOMMENDED",
      "CGROUP_V1_DEPRECATED",
      "FEATURE_GATE_REMOVED",
    ];
    assert.deepEqual(
      rules.filter((code) => !seen.codes.has(code)),
      [],
      "rules no generated question reached on the faces",
    );
  });

  it("scan: generated manifests and targets (typos too) on REST, GraphQL, chat and the offline CLI", async () => {
    const scans = fc.sample(
      fc.record({
        documents: fc.array(fc.constantFrom(...DOCUMENTS), { maxLength: 5 }),
        target: fc.oneof(
          { weight: 6, arbitrary: fc.integer({ min: 16, max: 40 }).map((minor) => `1.${minor}`) },
          { weight: 1, arbitrary: fc.constantFrom("latest", "1.3", "1.2", "v1.29.x") },
        ),
        from: fc.option(fc.constantFrom("1.16", "1.22", "1.25"), { nil: undefined }),
      }),
      { seed: PROPERTY_SEED, numRuns: propertyRuns(30) },
    );
    const seen = new Set<string>();
    for (const [index, { documents, target, from }] of scans.entries()) {
      const manifests = documents.join("---\n");
      // Where from is newer than the target the question itself is refused on every face; keep it otherwise.
      const fromVersion =
        from !== undefined &&
        Number(from.split(".")[1]) <= Number(target.replace(/^v/, "").split(".")[1] ?? 0)
          ? from
          : undefined;
      const asked = JSON.stringify({ manifests, target, fromVersion });
      const all = (body: {
        status: string;
        findings: Array<{ code: string; severity: string }>;
        changeFindings: Array<{ code: string; severity: string }>;
        notes: Array<{ code: string; severity: string }>;
      }) =>
        verdictOf({
          status: body.status,
          findings: [...body.findings, ...body.changeFindings, ...body.notes],
        });
      const restAnswer = await post("/api/v1/scan", {
        manifests,
        targetVersion: target,
        ...(fromVersion === undefined ? {} : { fromVersion }),
      });
      const reference: Answer =
        restAnswer.status === 400
          ? {
              kind: "refused",
              message: (restAnswer.body as { error: { message: string } }).error.message,
            }
          : all(restAnswer.body as Parameters<typeof all>[0]);
      seen.add(reference.kind === "verdict" ? reference.status : "REFUSED");
      const query =
        "query($m: String!, $t: String!, $f: String) { scanManifests(manifests: $m, targetVersion: $t, fromVersion: $f) { status findings { code severity } changeFindings { code severity } notes { code severity } } }";
      const graph = await post("/graphql", {
        query,
        variables: { m: manifests, t: target, f: fromVersion },
      });
      const graphBody = graph.body as {
        data?: { scanManifests: Parameters<typeof all>[0] } | null;
        errors?: Array<{ message: string }>;
      };
      agree(
        reference,
        graphBody.errors === undefined
          ? all(graphBody.data!.scanManifests)
          : { kind: "refused", message: graphBody.errors[0]!.message },
        "GraphQL",
        asked,
      );
      // Chat reads a scan from its second line on; a scan of nothing is asked with an empty document.
      if (manifests.trim() !== "")
        agree(
          reference,
          await chat(
            `scan ${fromVersion === undefined ? "" : `from ${fromVersion} `}to ${target}\n${manifests}`,
          ),
          "chat",
          asked,
          { listedOnly: true },
        );
      if (index % 8 === 0) {
        const file = path.join(dir, `scan-${index}.yaml`);
        fs.writeFileSync(file, manifests);
        const run = await kubecompat([
          "--offline",
          "scan",
          "--to",
          target,
          ...(fromVersion === undefined ? [] : ["--from", fromVersion]),
          file,
          "-o",
          "json",
        ]);
        if (run.code === 2)
          agree(reference, { kind: "refused", message: run.stderr }, "CLI --offline", asked);
        else {
          const report = JSON.parse(run.stdout) as {
            status: string;
            notes: Array<{ code: string; severity: string }>;
            files: Array<{
              findings: Array<{ code: string; severity: string }>;
              changeFindings: Array<{ code: string; severity: string }>;
            }>;
          };
          const file0 = report.files[0]!;
          agree(
            reference,
            verdictOf({
              status: report.status,
              findings: [...file0.findings, ...file0.changeFindings, ...report.notes],
            }),
            "CLI --offline",
            asked,
          );
          assert.equal(
            run.code,
            report.status === "UNSUPPORTED" || report.status === "NOT_JUDGED" ? 1 : 0,
            asked,
          );
        }
      }
    }
    assert.ok(
      ["SUPPORTED", "UNSUPPORTED", "NOT_JUDGED", "REFUSED"].every((status) => seen.has(status)),
      [...seen].join(", "),
    );
  });

  it("node pools: every spec field (kube-proxy modes, OS, flags, KubeletConfiguration, chart, cgroup) on REST, GraphQL, MCP, chat and the offline CLI", async () => {
    const pools = fc.sample(
      fc.oneof(nodePoolQuestion(snapshot), nodePoolQuestion(snapshot, { chatWords: true })),
      { seed: PROPERTY_SEED, numRuns: propertyRuns(30) },
    );
    const seen = new Set<string>();
    for (const [index, pool] of pools.entries()) {
      const asked = JSON.stringify(pool);
      const options = { profile: pool.profile, asOf: pool.asOf, platform: pool.platform };
      const body = {
        controlPlaneVersion: pool.controlPlaneVersion,
        from: pool.from,
        to: pool.to,
        ...options,
      };
      const reference = await rest("/api/v1/node-pool/upgrade-check", body);
      agree(reference, await mcp("check_node_pool_upgrade", body), "MCP", asked);
      seen.add(reference.kind === "verdict" ? reference.status : "REFUSED");
      const query =
        "query($cp: String!, $f: NodePoolSpecInput!, $t: NodePoolSpecInput!, $p: String, $a: String, $pl: String) { checkNodePoolUpgrade(controlPlaneVersion: $cp, from: $f, to: $t, profile: $p, asOf: $a, platform: $pl) { status findings { code severity } } }";
      agree(
        reference,
        await graphql(
          query,
          {
            cp: pool.controlPlaneVersion,
            f: pool.from,
            t: pool.to,
            p: pool.profile,
            a: pool.asOf,
            pl: pool.platform,
          },
          "checkNodePoolUpgrade",
        ),
        "GraphQL",
        asked,
      );
      // Chat takes no KubeletConfiguration text (a chat line is no file); the other fields it does.
      if (pool.from.kubeletConfig === undefined && pool.to.kubeletConfig === undefined) {
        const extra = [
          pool.profile === undefined ? "" : `profile=${pool.profile}`,
          pool.platform === undefined ? "" : `platform=${pool.platform}`,
          pool.asOf === undefined ? "" : `asof=${pool.asOf}`,
        ]
          .filter((word) => word !== "")
          .join(" ");
        agree(
          reference,
          await chat(
            `nodepool check cp=${pool.controlPlaneVersion} ${extra} from ${poolWords(pool.from)} to ${poolWords(pool.to)}`,
          ),
          "chat",
          asked,
          { listedOnly: true },
        );
      }
      if (index % 8 === 2) {
        const files = (["from", "to"] as const).map((side) => {
          const file = path.join(dir, `pool-${index}-${side}.yaml`);
          fs.writeFileSync(file, stringify(pool[side]));
          return file;
        });
        const flags = [
          ...(pool.profile === undefined ? [] : ["--profile", pool.profile]),
          ...(pool.asOf === undefined ? [] : ["--as-of", pool.asOf]),
          ...(pool.platform === undefined ? [] : ["--platform", pool.platform]),
        ];
        const run = await kubecompat([
          "--offline",
          "nodepool",
          files[0]!,
          files[1]!,
          "--control-plane",
          pool.controlPlaneVersion,
          ...flags,
          "-o",
          "json",
        ]);
        if (run.code === 2)
          agree(reference, { kind: "refused", message: run.stderr }, "CLI --offline", asked);
        else
          agree(
            reference,
            verdictOf(
              JSON.parse(run.stdout) as {
                status: string;
                findings: Array<{ code: string; severity: string }>;
              },
            ),
            "CLI --offline",
            asked,
          );
      }
    }
    assert.ok(
      ["SUPPORTED_WITH_WARNINGS", "UNSUPPORTED", "REFUSED"].every((status) => seen.has(status)),
      [...seen].join(", "),
    );
  });

  it("plan: REST, GraphQL, MCP and chat, and the offline CLI for a share", async () => {
    const seen = { verdicts: new Set<string>(), refused: 0 };
    for (const [index, question] of questions.entries()) {
      const asked = JSON.stringify(question);
      const options = {
        profile: question.profile,
        asOf: question.asOf,
        platform: question.platform,
      };
      const body = {
        current: { components: question.components },
        targetVersion: question.target,
        ...options,
      };
      const reference = await rest("/api/v1/upgrade-plan", body);
      agree(reference, await mcp("plan_upgrade", body), "MCP", asked);
      if (reference.kind === "verdict") seen.verdicts.add(reference.status);
      else seen.refused += 1;
      const query = `query($c: [ComponentVersionInput!]!, $t: String!, $p: String, $a: String, $f: String) { planUpgrade(current: { components: $c }, targetVersion: $t, profile: $p, asOf: $a, platform: $f) { ${FINDING_FIELDS} } }`;
      agree(
        reference,
        await graphql(
          query,
          {
            c: question.components,
            t: question.target,
            p: question.profile,
            a: question.asOf,
            f: question.platform,
          },
          "planUpgrade",
        ),
        "GraphQL",
        asked,
      );
      agree(
        reference,
        await chat(`plan ${chatWords(question)} to ${question.target}`),
        "chat",
        asked,
        { listedOnly: true },
      );
      if (index % 8 === 1)
        agree(
          reference,
          await cli(["plan", "FILE", "--to", question.target], question, `plan-${index}`),
          "CLI --offline",
          asked,
        );
    }
    assert.ok(
      seen.verdicts.has("SUPPORTED_WITH_WARNINGS") &&
        seen.verdicts.has("UNSUPPORTED") &&
        seen.refused > 0,
      JSON.stringify({ ...seen, verdicts: [...seen.verdicts] }),
    );
  });
});
