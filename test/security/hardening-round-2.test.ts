/**
 * The second security review's findings, each asked over real HTTP
 * (supertest serves the app on a loopback port): reads behind tokens on
 * every route, GraphQL mutations counted from the parsed operation (hash-only
 * persisted queries too), forged chat traffic that cannot lock out signed
 * requests, the proxy trust setting, failed authentications throttled per
 * address, token expiry, and invalid JSON not echoed.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createApp } from "../../src/app.js";
import { Authenticator } from "../../src/services/authenticator.js";
import { Curator } from "../../src/services/curation.js";
import { pingDatabase } from "../../src/db/health.js";
import { insertToken } from "../../src/db/token-store.js";
import { createLogger } from "../../src/core/logger.js";
import { generateSecret, hashSecret, secretPrefix, tokenExpiry } from "../../src/core/tokens.js";
import { parseConfig } from "../../src/core/config.js";
import { openApiDocument } from "../../src/rest/openapi.js";
import { createTestToken, startTestRuntime, type TestRuntime } from "../support/runtime.js";
import { slackBody, slackSignature, unixNow } from "../support/slack-request.js";

const logger = createLogger("silent");
const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });
const basic = (secret: string) => ({
  Authorization: `Basic ${Buffer.from(`me:${secret}`).toString("base64")}`,
});

describe("hardening, round 2", () => {
  let runtime: TestRuntime;
  let reader: string;
  let editor: string;
  before(async () => {
    runtime = await startTestRuntime();
    reader = await createTestToken(runtime, "hardening-reader", "reader");
    editor = await createTestToken(runtime, "hardening-editor", "editor");
  });
  after(async () => runtime.close());

  const app = (options: Partial<Parameters<typeof createApp>[0]> = {}): Promise<Express> =>
    createApp({
      kb: runtime.kb,
      isDatabaseReachable: () => pingDatabase(runtime.db),
      logger,
      curator: new Curator(runtime.db, runtime.kb),
      authenticator: new Authenticator(runtime.db, logger),
      ...options,
    });

  describe("REQUIRE_AUTH_FOR_READS covers every read route", () => {
    let protectedApp: Express;
    before(async () => {
      protectedApp = await app({ requireAuthForReads: true });
    });

    /** Every route of the OpenAPI document (parameters filled in), and the pages and documents outside it. */
    function everyRoute(): Array<{ method: "get" | "post"; path: string }> {
      const routes: Array<{ method: "get" | "post"; path: string }> = [];
      for (const [template, item] of Object.entries(openApiDocument().paths ?? {})) {
        const path = template.replace(/\{[^}]+\}/g, "1.30");
        for (const method of Object.keys(item))
          if (method === "get" || method === "post") routes.push({ method, path });
      }
      for (const path of [
        "/",
        "/docs",
        "/docs/init.js",
        "/docs/assets/swagger-ui.css",
        "/openapi.json",
        "/playground",
        "/graphql",
        "/api/v1",
        "/metrics",
        "/no-such-page",
      ])
        routes.push({ method: "get", path });
      routes.push({ method: "post", path: "/" }, { method: "post", path: "/graphql" });
      return routes;
    }

    it("answers 401 to an anonymous caller on every route but the probes, before reading the body", async () => {
      const routes = everyRoute();
      assert.ok(routes.length > 40, `${routes.length} routes`);
      for (const { method, path } of routes) {
        const call = request(protectedApp);
        const response = await call[method](path)
          .set("Accept", "application/json")
          .send(method === "post" ? { query: "{ releases { version } }" } : undefined);
        assert.equal(
          response.status,
          401,
          `${method.toUpperCase()} ${path}: ${response.status} ${response.text.slice(0, 120)}`,
        );
        assert.equal(
          response.headers["www-authenticate"],
          'Bearer realm="kubecompat"',
          `${method.toUpperCase()} ${path}`,
        );
      }
      for (const probe of ["/healthz", "/readyz"])
        assert.equal((await request(protectedApp).get(probe)).status, 200, probe);
    });

    it("asks a browser for the token in its own dialog (Basic), and lets a reader token in either way", async () => {
      const page = await request(protectedApp).get("/").set("Accept", "text/html");
      assert.equal(page.status, 401);
      assert.equal(page.headers["www-authenticate"], 'Basic realm="kubecompat", charset="UTF-8"');
      assert.doesNotMatch(
        page.text,
        /compatibility matrix|kube-apiserver/i,
        "the 401 shows nothing of the knowledge base",
      );
      const opened = await request(protectedApp).get("/").set(basic(reader)).expect(200);
      assert.match(opened.text, /<html/);
      await request(protectedApp)
        .post("/")
        .type("form")
        .set(basic(reader))
        .send({ nodes: "", version: "1.30", target: "1.31" })
        .expect((response) => assert.notEqual(response.status, 401));
      await request(protectedApp).get("/docs").set(basic(reader)).expect(200);
      await request(protectedApp).get("/metrics").set(bearer(reader)).expect(200);
      await request(protectedApp).get("/api/v1/releases").set(bearer(reader)).expect(200);
      const graphql = await request(protectedApp)
        .post("/graphql")
        .set(bearer(reader))
        .send({ query: "{ releases { version } }" })
        .expect(200);
      assert.ok(Array.isArray(graphql.body.data.releases));
    });

    it("/metrics takes its own token when one is set, and only that one", async () => {
      const metricsToken = crypto.randomBytes(24).toString("hex");
      for (const requireAuthForReads of [false, true]) {
        const scraped = await app({ requireAuthForReads, metricsToken });
        assert.equal((await request(scraped).get("/metrics")).status, 401);
        assert.equal(
          (await request(scraped).get("/metrics").set(bearer(reader))).status,
          401,
          "an API token is not the metrics token",
        );
        assert.equal(
          (
            await request(scraped)
              .get("/metrics")
              .set(bearer(`${metricsToken}x`))
          ).status,
          401,
        );
        const ok = await request(scraped).get("/metrics").set(bearer(metricsToken)).expect(200);
        assert.match(ok.text, /kubecompat_/);
      }
      // Unset and reads open: /metrics is open, as before.
      await request(await app())
        .get("/metrics")
        .expect(200);
    });

    it("with reads protected and no token store, nobody is let in", async () => {
      const noStore = await createApp({
        kb: runtime.kb,
        isDatabaseReachable: () => Promise.resolve(true),
        logger,
        requireAuthForReads: true,
      });
      assert.equal((await request(noStore).get("/")).status, 401);
      assert.equal((await request(noStore).get("/api/v1/releases")).status, 401);
      assert.equal((await request(noStore).get("/healthz")).status, 200);
    });
  });

  describe("GraphQL mutations are counted from the parsed operation", () => {
    const WRITES = 3;
    const RETIRE = `mutation Retire { retireRecord(entity: API_REMOVALS, key: "example.k8s.io/v1 Nothing", revision: 1) { key } }`;
    const hashOf = (query: string): string =>
      crypto.createHash("sha256").update(query).digest("hex");
    const persisted = (query: string, withText: boolean) => ({
      ...(withText ? { query } : {}),
      operationName: "Retire",
      extensions: { persistedQuery: { version: 1, sha256Hash: hashOf(query) } },
    });

    it("counts hash-only persisted mutations, in the same budget as the REST edits", async () => {
      const limited = await app({ rateLimits: { writesPerMinute: WRITES, chatPerMinute: 60 } });
      const registered = await request(limited)
        .post("/graphql")
        .set(bearer(editor))
        .send(persisted(RETIRE, true))
        .expect(200);
      assert.equal(
        registered.body.errors[0].extensions.code,
        "NOT_FOUND",
        "the first, with its text, is answered on its merits",
      );
      const statuses: number[] = [];
      for (let attempt = 0; attempt < WRITES + 2; attempt += 1) {
        const hashOnly = await request(limited)
          .post("/graphql")
          .set(bearer(editor))
          .send(persisted(RETIRE, false));
        statuses.push(hashOnly.status);
        if (hashOnly.status === 200)
          assert.equal(
            hashOnly.body.errors[0].extensions.code,
            "NOT_FOUND",
            "a hash-only request runs the stored mutation",
          );
      }
      assert.deepEqual(statuses, [200, 200, 429, 429, 429], `statuses ${statuses.join(",")}`);
      const refused = await request(limited)
        .post("/graphql")
        .set(bearer(editor))
        .send(persisted(RETIRE, false));
      assert.equal(refused.headers["retry-after"], "60");
      assert.equal(refused.body.errors[0].extensions.code, "RATE_LIMITED");
      assert.equal(refused.body.data, undefined, "nothing ran");
      // And the REST edits of the same caller are at their limit too.
      assert.equal(
        (
          await request(limited)
            .delete("/api/v1/api-removals/example.k8s.io%2Fv1%20Nothing?revision=1")
            .set(bearer(editor))
        ).status,
        429,
      );
    });

    it("refuses a hash-only mutation once the caller's REST edits used the budget", async () => {
      const limited = await app({ rateLimits: { writesPerMinute: WRITES, chatPerMinute: 60 } });
      const other = await createTestToken(
        runtime,
        `hardening-editor-${crypto.randomUUID().slice(0, 8)}`,
        "editor",
      );
      // Registered by someone else: the cache of persisted queries is shared.
      await request(limited)
        .post("/graphql")
        .set(bearer(editor))
        .send(persisted(RETIRE, true))
        .expect(200);
      for (let attempt = 0; attempt < WRITES; attempt += 1)
        assert.equal(
          (
            await request(limited)
              .delete("/api/v1/api-removals/example.k8s.io%2Fv1%20Nothing?revision=1")
              .set(bearer(other))
          ).status,
          404,
        );
      const hashOnly = await request(limited)
        .post("/graphql")
        .set(bearer(other))
        .send(persisted(RETIRE, false));
      assert.equal(hashOnly.status, 429);
      assert.equal(hashOnly.body.errors[0].extensions.code, "RATE_LIMITED");
    });

    it("does not count a query, even one named or spelled like a mutation", async () => {
      const limited = await app({ rateLimits: { writesPerMinute: 1, chatPerMinute: 60 } });
      for (const query of [
        "query mutation { releases { version } }",
        "{ releases { version } } # mutation",
        '{ release(version: "1.30") { version } }',
      ]) {
        for (let attempt = 0; attempt < 3; attempt += 1)
          assert.equal(
            (await request(limited).post("/graphql").set(bearer(editor)).send({ query })).status,
            200,
            query,
          );
      }
    });
  });

  describe("chat: forged requests cannot lock out signed ones", () => {
    const secret = "s".repeat(32);
    const botToken = "b".repeat(32);
    const PER_MINUTE = 3;
    const signed = (limited: Express, body: string, timestamp = unixNow()) =>
      request(limited)
        .post("/chatops/slack")
        .set("Content-Type", "application/x-www-form-urlencoded")
        .set("X-Slack-Request-Timestamp", String(timestamp))
        .set("X-Slack-Signature", slackSignature(body, timestamp, secret))
        .send(body);
    const forged = (limited: Express, body: string) =>
      request(limited)
        .post("/chatops/slack")
        .set("Content-Type", "application/x-www-form-urlencoded")
        .set("X-Slack-Request-Timestamp", String(unixNow()))
        .set("X-Slack-Signature", `v0=${"0".repeat(64)}`)
        .send(body);
    const chatApp = (trustProxy?: number) =>
      app({
        chatops: { slackSigningSecret: secret, botToken },
        rateLimits: { writesPerMinute: 120, chatPerMinute: PER_MINUTE },
        ...(trustProxy === undefined ? {} : { trustProxy }),
      });

    it("61-style floods of unsigned and wrongly signed requests get 401 then 429, and the next signed Slack request and bot request are answered", async () => {
      const limited = await chatApp();
      const statuses: number[] = [];
      for (let attempt = 0; attempt < PER_MINUTE + 5; attempt += 1) {
        statuses.push((await forged(limited, slackBody("help"))).status);
        statuses.push(
          (
            await request(limited)
              .post("/chatops/command")
              .set(bearer("x".repeat(32)))
              .send({ text: "help" })
          ).status,
        );
        statuses.push(
          (
            await request(limited)
              .post("/chatops/slack")
              .set("Content-Type", "application/x-www-form-urlencoded")
              .send(slackBody("help"))
          ).status,
        );
      }
      assert.deepEqual(statuses.slice(0, PER_MINUTE), [401, 401, 401]);
      assert.ok(
        statuses.slice(PER_MINUTE).every((status) => status === 429),
        statuses.join(","),
      );
      const slack = await signed(limited, slackBody("help")).expect(200);
      assert.match(JSON.stringify(slack.body), /kubecompat/i);
      assert.doesNotMatch(JSON.stringify(slack.body), /Too many commands/);
      const bot = await request(limited)
        .post("/chatops/command")
        .set(bearer(botToken))
        .send({ text: "help" })
        .expect(200);
      assert.ok(typeof bot.body.text === "string" && bot.body.text.length > 0);
    });

    it("refuses a replayed Slack request, and counts a workspace's signed commands in its own budget", async () => {
      const limited = await chatApp();
      const timestamp = unixNow();
      const body = slackBody("help");
      await signed(limited, body, timestamp).expect(200);
      const replay = await signed(limited, body, timestamp);
      assert.equal(replay.status, 401);
      assert.match(replay.body.error.message, /already received/);

      const team = (id: string, text: string) => {
        const form = new URLSearchParams(slackBody(text));
        form.set("team_id", id);
        return form.toString();
      };
      const answers: string[] = [];
      for (let attempt = 0; attempt < PER_MINUTE; attempt += 1)
        answers.push(
          JSON.stringify(
            (await signed(limited, team("T-busy", `release ${30 + attempt}`)).expect(200)).body,
          ),
        );
      assert.ok(answers.every((answer) => !/Too many commands/.test(answer)));
      const busy = await signed(limited, team("T-busy", "release 1.33")).expect(200);
      assert.match(
        JSON.stringify(busy.body),
        /Too many commands from this workspace: at most 3 a minute/,
      );
      const other = await signed(limited, team("T-quiet", "release 1.33")).expect(200);
      assert.doesNotMatch(JSON.stringify(other.body), /Too many commands/);
    });

    it("behind a trusted proxy counts each client by its forwarded address; without the setting, X-Forwarded-For is not believed", async () => {
      const behindProxy = await chatApp(1);
      for (let attempt = 0; attempt < PER_MINUTE; attempt += 1)
        assert.equal(
          (await forged(behindProxy, slackBody("help")).set("X-Forwarded-For", "203.0.113.7"))
            .status,
          401,
        );
      assert.equal(
        (await forged(behindProxy, slackBody("help")).set("X-Forwarded-For", "203.0.113.7")).status,
        429,
      );
      assert.equal(
        (await forged(behindProxy, slackBody("help")).set("X-Forwarded-For", "203.0.113.8")).status,
        401,
        "another client behind the same proxy has its own budget",
      );

      const direct = await chatApp();
      for (let attempt = 0; attempt < PER_MINUTE; attempt += 1)
        await forged(direct, slackBody("help")).set("X-Forwarded-For", `203.0.113.${attempt}`);
      assert.equal(
        (await forged(direct, slackBody("help")).set("X-Forwarded-For", "203.0.113.99")).status,
        429,
        "a client cannot choose its address",
      );
    });

    it("TRUST_PROXY is read once, and a setting that trusts every hop is refused with what to give instead", () => {
      assert.equal(parseConfig({ TRUST_PROXY: "1" }).trustProxy, 1);
      assert.deepEqual(parseConfig({ TRUST_PROXY: "10.0.0.0/8, loopback" }).trustProxy, [
        "10.0.0.0/8",
        "loopback",
      ]);
      assert.equal(parseConfig({}).trustProxy, false);
      assert.throws(
        () => parseConfig({ TRUST_PROXY: "true" }),
        /TRUST_PROXY: trusting every proxy lets any client choose/,
      );
      assert.throws(
        () => parseConfig({ TRUST_PROXY: "10.0.0.0/33" }),
        /TRUST_PROXY: must be false, a number of proxies/,
      );
    });
  });

  describe("lower findings", () => {
    it("throttles failed authentications per address before their look-up", async () => {
      const throttled = await app({ authFailuresPerMinute: 3, trustProxy: 1 });
      const unknown = () => `kc_${crypto.randomBytes(32).toString("base64url")}`;
      const from = (address: string, secret: string) =>
        request(throttled)
          .get("/api/v1/releases")
          .set(bearer(secret))
          .set("X-Forwarded-For", address);
      for (let attempt = 0; attempt < 3; attempt += 1)
        assert.equal((await from("198.51.100.1", unknown())).status, 401);
      const refused = await from("198.51.100.1", unknown());
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, "RATE_LIMITED");
      assert.equal(refused.headers["retry-after"], "60");
      assert.equal(
        (await from("198.51.100.2", unknown())).status,
        401,
        "another address is not affected",
      );
      assert.equal((await from("198.51.100.2", reader)).status, 200);
      assert.equal(
        (await request(throttled).get("/api/v1/releases").set("X-Forwarded-For", "198.51.100.1"))
          .status,
        200,
        "reading without a token is not refused",
      );
    });

    it("refuses a token past its expiry, and reads the expiry as given", async () => {
      const now = new Date("2026-12-05T00:00:00Z");
      assert.deepEqual(tokenExpiry({ expiresIn: "90d" }, now), {
        expiresAt: new Date("2027-03-05T00:00:00Z"),
      });
      assert.deepEqual(tokenExpiry({ expiresIn: "12h" }, now), {
        expiresAt: new Date("2026-12-05T12:00:00Z"),
      });
      assert.deepEqual(tokenExpiry({ expiresAt: "2027-01-01" }, now), {
        expiresAt: new Date("2027-01-01T00:00:00Z"),
      });
      assert.match(
        (tokenExpiry({ expiresAt: "2026-01-01" }, now) as { problem: string }).problem,
        /not in the future/,
      );
      assert.match(
        (tokenExpiry({ expiresIn: "3 months" }, now) as { problem: string }).problem,
        /12h, 90d or 8w/,
      );

      const make = async (name: string, expiresAt: Date): Promise<string> => {
        const secret = generateSecret();
        await insertToken(
          runtime.db,
          {
            name,
            role: "reader",
            secretHash: hashSecret(secret),
            prefix: secretPrefix(secret),
            expiresAt,
          },
          { name: "test", role: "admin" },
        );
        return secret;
      };
      const expired = await make("hardening-expired", new Date(Date.now() - 1_000));
      const current = await make("hardening-current", new Date(Date.now() + 3_600_000));
      const protectedApp = await app({ requireAuthForReads: true });
      const refused = await request(protectedApp).get("/api/v1/releases").set(bearer(expired));
      assert.equal(refused.status, 401);
      assert.match(refused.body.error.message, /"hardening-expired" expired on/);
      await request(protectedApp).get("/api/v1/releases").set(bearer(current)).expect(200);
    });

    it("does not echo an invalid JSON body in its error", async () => {
      const secretish = "hunter2-do-not-echo";
      for (const body of [`{"password": "${secretish}"`, `${secretish}}`, `{"a": ${secretish}}`]) {
        const response = await request(runtime.app)
          .post("/api/v1/validate")
          .set("Content-Type", "application/json")
          .send(body);
        assert.equal(response.status, 400);
        assert.equal(response.body.error.code, "BAD_USER_INPUT");
        assert.match(response.body.error.message, /not valid JSON/);
        assert.ok(!response.text.includes("hunter2"), response.text);
      }
    });
  });
});
