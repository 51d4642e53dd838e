/**
 * How requests are named and refused, over real HTTP: the request log and
 * the metrics name a route by its full pattern ("/graphql", not the "/"
 * Express sees inside a mount), the same when the route answered and when
 * something refused the request before it (a body that is not JSON, a
 * missing token); chat log lines carry the request id; a wrong method on an
 * existing route is 405 with `Allow`, a path that does not exist still 404.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { createApp } from "../src/app.js";
import { Authenticator } from "../src/services/authenticator.js";
import { pingDatabase } from "../src/db/health.js";
import { Curator } from "../src/services/curation.js";
import { startTestRuntime, type TestRuntime } from "./support/runtime.js";
import { slackBody, slackSignature, unixNow } from "./support/slack-request.js";
import { captureLogs } from "./support/log-sink.js";

const SLACK_SECRET = "slack-signing-secret-for-route-names";
const BOT_TOKEN = "chatops-bot-token-for-route-names";
const VALIDATE = {
  components: [
    { component: "kube-apiserver", version: "1.30" },
    { component: "kubelet", version: "1.29", instance: "pool-a" },
  ],
};

type LogLine = Record<string, unknown>;

function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries(
      [...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => present[key] === value))
      return Number(match[3]);
  }
  return undefined;
}

describe("route names in logs and metrics, and 405", () => {
  let runtime: TestRuntime;
  let server: http.Server;
  let base: string;
  const logs = captureLogs<LogLine>();
  const lines = logs.entries;

  before(async () => {
    runtime = await startTestRuntime();
    const logger = pino({ level: "info" }, logs.sink);
    const app = await createApp({
      kb: runtime.kb,
      isDatabaseReachable: () => pingDatabase(runtime.db),
      logger,
      chatops: { slackSigningSecret: SLACK_SECRET, botToken: BOT_TOKEN },
      curator: new Curator(runtime.db, runtime.kb),
      authenticator: new Authenticator(runtime.db, logger),
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await runtime.close();
  });

  /** Sends a request and returns it with the log line of its request id. */
  async function send(
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; headers: Headers; body: string; log: LogLine }> {
    const answer = await fetch(`${base}${path}`, init);
    const body = await answer.text();
    const id = answer.headers.get("x-request-id");
    assert.ok(id, "every answer has a request id");
    // The line is written on "finish", which may come a moment after the client has the answer.
    for (
      let tries = 0;
      tries < 100 && !lines.some((line) => line.requestId === id && line.msg === "request");
      tries += 1
    )
      await new Promise((resolve) => setTimeout(resolve, 10));
    const log = lines.find((line) => line.requestId === id && line.msg === "request");
    assert.ok(log, `a request line for ${path}`);
    return { status: answer.status, headers: answer.headers, body, log };
  }

  const json = (body: unknown): RequestInit => ({
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

  it("logs a GraphQL POST as /graphql, on success and on error, with its full path", async () => {
    const ok = await send("/graphql", json({ query: "{ coverage { knowledge } }" }));
    assert.equal(ok.status, 200);
    assert.equal(ok.log.path, "/graphql");
    assert.equal(ok.log.route, "/graphql");
    const broken = await send("/graphql", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{not json",
    });
    assert.equal(broken.status, 400);
    assert.equal(broken.log.path, "/graphql");
    assert.equal(broken.log.route, "/graphql");
    const page = await send("/api/v1/releases/1.30?asOf=2025-01-01");
    assert.equal(page.log.path, "/api/v1/releases/1.30", "the full path, without the query string");
    assert.equal(page.log.route, "/api/v1/releases/:version");
  });

  it("labels a route the same in the metrics whether it answered or was refused before it", async () => {
    const before = await (await fetch(`${base}/metrics`)).text();
    await send("/api/v1/validate", json(VALIDATE));
    await send("/api/v1/validate", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{not json",
    });
    await send("/api/v1/validate", json({ components: "not a list" }));
    await send("/graphql", json({ query: "{ coverage { knowledge } }" }));
    await send("/graphql", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "[",
    });
    await send("/api/v1/audit"); // admin only: refused by the authentication in front of the routes
    await send("/api/v1/no-such-route");
    const metrics = await (await fetch(`${base}/metrics`)).text();
    // Counted since `before`: the other tests of this file send requests too.
    const count = (route: string, status: string, method = "POST") => {
      const labels = { method, route, status };
      return (
        (sample(metrics, "kubecompat_http_requests_total", labels) ?? 0) -
        (sample(before, "kubecompat_http_requests_total", labels) ?? 0)
      );
    };
    assert.equal(count("/api/v1/validate", "200"), 1);
    assert.equal(
      count("/api/v1/validate", "400"),
      2,
      "a body that is not JSON and one that fails validation: both the route's label",
    );
    assert.equal(count("/graphql", "200"), 1);
    assert.equal(count("/graphql", "400"), 1);
    assert.equal(count("/api/v1/audit", "401", "GET"), 1);
    assert.equal(count("(unmatched)", "404", "GET"), 1);
    assert.ok(!/route="\/"[,}]/.test(metrics), "no request is labelled by the path inside a mount");
    assert.ok(!metrics.includes("/api/v1/no-such-route"), "unknown paths do not become labels");
  });

  it("names POST /api/v1/fix by its route, with a YAML body and the question in the query string, answered or refused", async () => {
    const yaml = (query: string, body: string): Promise<{ status: number; log: LogLine }> =>
      send(`/api/v1/fix${query}`, {
        method: "POST",
        headers: { "Content-Type": "application/yaml" },
        body,
      });
    const fixed = await yaml(
      "?targetVersion=1.25&fileName=jobs.yaml",
      "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n",
    );
    assert.equal(fixed.status, 200);
    assert.equal(fixed.log.path, "/api/v1/fix", "the query string is not part of the path");
    assert.equal(fixed.log.route, "/api/v1/fix");
    const refused = await yaml("", "a: 1\n");
    assert.equal(refused.status, 400, "no targetVersion in the query");
    assert.equal(refused.log.route, "/api/v1/fix");
    const get = await send("/api/v1/fix");
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST, OPTIONS");
  });

  it("answers a wrong method on an existing route with 405 and Allow, an unknown path with 404", async () => {
    const get = await send("/api/v1/validate");
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST, OPTIONS");
    assert.equal(JSON.parse(get.body).error.code, "METHOD_NOT_ALLOWED");
    assert.equal(get.log.route, "/api/v1/validate");

    const del = await send("/api/v1/kb", { method: "DELETE" });
    assert.equal(del.status, 405);
    assert.equal(del.headers.get("allow"), "GET, HEAD, OPTIONS");

    const put = await send("/graphql", {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
    assert.equal(
      JSON.parse(put.body).errors[0].extensions.code,
      "METHOD_NOT_ALLOWED",
      "in GraphQL's shape under /graphql",
    );

    const chat = await send("/chatops/slack");
    assert.equal(chat.status, 405);
    assert.equal(chat.headers.get("allow"), "POST, OPTIONS");

    // One route per method under the same shape: components/:name (GET) and components/:key (PUT, DELETE).
    const post = await send("/api/v1/components/kubelet", json({}));
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "DELETE, GET, HEAD, PUT, OPTIONS");

    // The front page takes its plan form by POST; other methods are 405.
    const home = await send("/", { method: "DELETE" });
    assert.equal(home.status, 405);
    assert.equal(home.headers.get("allow"), "GET, HEAD, POST, OPTIONS");

    const unknown = await send("/api/v1/no-such-route", { method: "DELETE" });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get("allow"), null);
  });

  it("writes the request id on chat log lines, from Slack and from bots", async () => {
    const timestamp = unixNow();
    const body = slackBody("supported 1.30");
    const slack = await send("/chatops/slack", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": String(timestamp),
        "X-Slack-Signature": slackSignature(body, timestamp, SLACK_SECRET),
        "X-Request-Id": "slack-route-names-1",
      },
      body,
    });
    assert.equal(slack.status, 200);
    assert.equal(slack.log.route, "/chatops/slack");
    const chatLine = lines.find((line) => line.msg === "chat command" && line.chatops === "slack");
    assert.equal(chatLine?.requestId, "slack-route-names-1");

    const bot = await send("/chatops/command", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${BOT_TOKEN}` },
      body: JSON.stringify({ text: "help" }),
    });
    assert.equal(bot.status, 200);
    const botLine = lines.find((line) => line.msg === "chat command" && line.chatops === "command");
    assert.equal(botLine?.requestId, bot.log.requestId);
  });
});
