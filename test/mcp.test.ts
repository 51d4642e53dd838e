/**
 * The MCP face, driven by the SDK's own client over both transports: Streamable HTTP at /mcp on the
 * service, and stdio through `kubecompat mcp` (relaying to a server, or to the shipped kb/ with
 * --offline). Every tool is called with a real question and its answer compared with REST's answer to the
 * same question; bad input gets REST's code and message as a tool error; a token is required where REST
 * requires one.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { QUESTIONS } from "../src/http/questions.js";
import { summariseAnswer, type OperationAnswer } from "../src/domain/answer-summary.js";
import { ENTITY_NAMES } from "../src/knowledge/registry.js";
import { BIN, close, closedPort, kubecompat, listen } from "./support/cli-process.js";
import { OPERATIONS } from "./support/operation-questions.js";
import {
  createTestToken,
  startListeningRuntime,
  startTestRuntime,
  type TestRuntime,
} from "./support/runtime.js";

/** A question for every tool, as its REST route and body (POST) or query (GET). */
const KNOWLEDGE_ARGUMENTS: Readonly<Record<string, Record<string, string>>> = {
  release_status: { version: "1.32", asOf: "2026-12-06" },
  upgrade_impact: { from: "1.29", to: "1.33" },
  firewall_flows: { cni: "calico", version: "1.31" },
  find_addons: { name: "cert-manager" },
  find_platforms: { name: "eks" },
  coverage: { asOf: "2026-12-06" },
};

function argumentsOf(name: string): Record<string, unknown> {
  const question = QUESTIONS.find((candidate) => candidate.name === name)!;
  const args =
    question.rest.method === "post"
      ? OPERATIONS[`/api/v1${question.rest.path}`]
      : KNOWLEDGE_ARGUMENTS[name];
  assert.ok(args !== undefined, `no question written for the tool ${name}`);
  return args as Record<string, unknown>;
}

async function restAnswer(url: string, name: string, args: Record<string, unknown>) {
  const question = QUESTIONS.find((candidate) => candidate.name === name)!;
  if (question.rest.method === "post") {
    const response = await fetch(`${url}/api/v1${question.rest.path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(args),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const params = { ...args } as Record<string, string>;
  let path = question.rest.path;
  if (path.includes(":version")) {
    path = path.replace(":version", params.version!);
    delete params.version;
  }
  // The look-ups filter REST's whole list: the tool's answer is compared with the list filtered here.
  if (name === "find_addons" || name === "find_platforms") delete params.name;
  const response = await fetch(`${url}/api/v1${path}?${new URLSearchParams(params).toString()}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function httpClient(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: "kubecompat-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
    }),
  );
  return client;
}

type ToolResult = { structuredContent?: Record<string, unknown>; isError?: boolean };

describe("MCP over Streamable HTTP", () => {
  let url: string;
  let stop: () => Promise<void>;
  let client: Client;
  before(async () => {
    const listening = await startListeningRuntime({ inMemory: true });
    url = listening.url;
    stop = () => listening.close();
    client = await httpClient(url);
  });
  after(async () => {
    await client.close();
    await stop();
  });

  it("lists a tool for every question, with the schema REST validates with", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name).sort(),
      QUESTIONS.map((question) => question.name).sort(),
    );
    for (const question of QUESTIONS) {
      const tool = tools.find((candidate) => candidate.name === question.name)!;
      const shape = (question.input as unknown as { shape: Record<string, unknown> }).shape;
      assert.deepEqual(
        Object.keys(tool.inputSchema.properties ?? {}).sort(),
        Object.keys(shape).sort(),
        `${question.name}: the tool's fields are the REST schema's`,
      );
      assert.ok(tool.description!.length > 80, `${question.name} says what it is for`);
      assert.equal(tool.annotations?.readOnlyHint, true);
    }
  });

  it("answers every tool as REST answers the same question: whole with detail full, summarised by default", async () => {
    for (const question of QUESTIONS) {
      const args = argumentsOf(question.name);
      const rest = await restAnswer(url, question.name, args);
      assert.equal(
        rest.status,
        200,
        `${question.name}: REST answered ${JSON.stringify(rest.body)}`,
      );
      const full = (await client.callTool({
        name: question.name,
        arguments: question.verdict ? { ...args, detail: "full" } : args,
      })) as ToolResult;
      assert.notEqual(full.isError, true, `${question.name}: ${JSON.stringify(full)}`);
      if (question.name === "find_addons" || question.name === "find_platforms") {
        const items = rest.body.items as Array<{ name: string }>;
        const wanted = String(args.name);
        const got = full.structuredContent!.items as Array<{ name: string }>;
        assert.ok(got.length > 0 && got.length < items.length, `${question.name} narrows the list`);
        assert.ok(got.some((record) => record.name.includes(wanted)));
        for (const record of got)
          assert.deepEqual(
            record,
            items.find((candidate) => candidate.name === record.name),
          );
        continue;
      }
      assert.deepEqual(full.structuredContent, rest.body, `${question.name}: full = REST`);
      if (!question.verdict) continue;
      const summary = (await client.callTool({
        name: question.name,
        arguments: args,
      })) as ToolResult;
      const expected = summariseAnswer(rest.body as unknown as OperationAnswer);
      assert.equal(summary.structuredContent!.detail, "summary");
      assert.equal(summary.structuredContent!.status, rest.body.status);
      assert.deepEqual(summary.structuredContent, JSON.parse(JSON.stringify(expected)));
    }
  });

  it("says a bad input with REST's code and message, as a tool error", async () => {
    const body = { components: [{ component: "kube-apiserver", version: "1.3" }], profile: 7 };
    const rest = await restAnswer(url, "validate_cluster", body);
    assert.equal(rest.status, 400);
    const result = (await client.callTool({
      name: "validate_cluster",
      arguments: body,
    })) as ToolResult;
    assert.equal(result.isError, true);
    assert.deepEqual(result.structuredContent, rest.body);
    const unknownField = (await client.callTool({
      name: "plan_upgrade",
      arguments: { current: { components: [] }, targetVersion: "1.33", target: "1.33" },
    })) as ToolResult;
    assert.equal(unknownField.isError, true);
    assert.match(JSON.stringify(unknownField.structuredContent), /BAD_USER_INPUT.*target/);
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), /unknown tool/);
  });

  it("serves the kinds of knowledge, the coverage table and the finding codes as resources", async () => {
    const { resources } = await client.listResources();
    assert.equal(resources.length, ENTITY_NAMES.length + 2);
    const addons = await client.readResource({ uri: "kubecompat://kb/addons" });
    const read = JSON.parse(String((addons.contents[0] as { text: string }).text)) as {
      items: Array<{ sourceUrl?: string }>;
      coverage: Array<{ knowledge: string }>;
    };
    assert.ok(read.items.length > 5);
    assert.ok(read.coverage.every((row) => row.knowledge === "addons") && read.coverage.length > 0);
    const codes = await client.readResource({ uri: "kubecompat://finding-codes" });
    assert.match(String((codes.contents[0] as { text: string }).text), /API_REMOVED/);
    await assert.rejects(
      client.readResource({ uri: "kubecompat://kb/nothing" }),
      /unknown resource/,
    );
  });

  it("offers the two prompts, naming the tools to call", async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((prompt) => prompt.name).sort(), [
      "check_manifests",
      "plan_cluster_upgrade",
    ]);
    const plan = await client.getPrompt({
      name: "plan_cluster_upgrade",
      arguments: { cluster: "kube-apiserver 1.31.4, kubelet 1.30.2", target: "1.33" },
    });
    const text = (plan.messages[0]!.content as { text: string }).text;
    for (const tool of ["validate_cluster", "plan_upgrade", "release_status", "scan_manifests"])
      assert.ok(text.includes(tool) && QUESTIONS.some((question) => question.name === tool));
    await assert.rejects(
      client.getPrompt({ name: "check_manifests", arguments: { target: "1.33" } }),
      /needs manifests/,
    );
  });
});

describe("MCP over HTTP where reads need a token", () => {
  let runtime: TestRuntime;
  let server: http.Server;
  let url: string;
  before(async () => {
    runtime = await startTestRuntime({ requireAuthForReads: true });
    server = http.createServer(runtime.app);
    url = await listen(server);
  });
  after(async () => {
    await close(server);
    await runtime.close();
  });

  it("refuses an anonymous client as REST does, and answers a reader's token", async () => {
    const rest = await fetch(`${url}/api/v1/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(rest.status, 401);
    await assert.rejects(httpClient(url), /UNAUTHENTICATED/);
    const token = await createTestToken(runtime, "agent", "reader");
    const client = await httpClient(url, token);
    const result = (await client.callTool({
      name: "release_status",
      arguments: { version: "1.33", asOf: "2026-12-06" },
    })) as ToolResult;
    assert.equal(result.structuredContent!.version, "1.33");
    await client.close();
  });
});

describe("MCP over stdio (kubecompat mcp)", () => {
  async function stdioClient(args: string[]): Promise<Client> {
    const client = new Client({ name: "kubecompat-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp", ...args],
        stderr: "pipe",
      }),
    );
    return client;
  }

  it("--offline answers from the shipped kb/ as the service answers", async () => {
    const listening = await startListeningRuntime({ inMemory: true });
    const offline = await stdioClient(["--offline"]);
    const online = await stdioClient(["--server", listening.url]);
    try {
      const { tools } = await offline.listTools();
      assert.equal(tools.length, QUESTIONS.length);
      const args = { ...argumentsOf("plan_upgrade") };
      const fromOffline = (await offline.callTool({
        name: "plan_upgrade",
        arguments: args,
      })) as ToolResult;
      const fromServer = (await online.callTool({
        name: "plan_upgrade",
        arguments: args,
      })) as ToolResult;
      const rest = await restAnswer(listening.url, "plan_upgrade", args);
      assert.deepEqual(fromOffline.structuredContent, fromServer.structuredContent);
      assert.equal(fromOffline.structuredContent!.status, rest.body.status);
      const bad = (await offline.callTool({
        name: "scan_manifests",
        arguments: { manifests: "kind: Pod" },
      })) as ToolResult;
      assert.equal(bad.isError, true);
      assert.match(JSON.stringify(bad.structuredContent), /targetVersion/);
    } finally {
      await offline.close();
      await online.close();
      await listening.close();
    }
  });

  it("answers a request it could not relay with an error naming the server, instead of leaving the agent waiting", async () => {
    const port = await closedPort();
    await assert.rejects(
      stdioClient(["--server", `http://127.0.0.1:${port}`]),
      /kubecompat could not ask its server/,
    );
  });

  it("answers every request piped in before stdin closed (printf ... | kubecompat mcp --offline), nothing else on stdout", async () => {
    const messages = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "pipe", version: "1" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "release_status", arguments: { version: "1.33", asOf: "2026-12-06" } },
      },
    ];
    const run = await kubecompat(["mcp", "--offline"], {
      stdin: messages.map((message) => JSON.stringify(message)).join("\n") + "\n",
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const replies = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; result: Record<string, unknown> });
    assert.deepEqual(
      replies.map((reply) => reply.id),
      [1, 2, 3],
    );
    assert.equal((replies[1]!.result.tools as unknown[]).length, QUESTIONS.length);
    assert.equal((replies[2]!.result.structuredContent as { version: string }).version, "1.33");
  });
});
