/**
 * Rate limits (a small budget, so the fourth write in a minute is refused)
 * and the security headers every answer carries.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import express, { type Express } from "express";
import { rateLimited } from "../../src/http/rate-limits.js";
import request from "supertest";
import { createApp } from "../../src/app.js";
import { errorMiddleware } from "../../src/http/error-middleware.js";
import { Authenticator } from "../../src/services/authenticator.js";
import { pingDatabase } from "../../src/db/health.js";
import { Curator } from "../../src/services/curation.js";
import { createLogger } from "../../src/core/logger.js";
import { createTestToken, startTestRuntime, type TestRuntime } from "../support/runtime.js";
import { errorsOf } from "./support.js";

const WRITES_PER_MINUTE = 3;
const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });
/** A write that is refused for its content (the key does not exist), so it changes nothing but still counts. */
const retire = (app: Express, secret?: string) => {
  const test = request(app).delete("/api/v1/api-removals/example.k8s.io%2Fv1%20Nothing?revision=1");
  return secret === undefined ? test : test.set(bearer(secret));
};
const RETIRE_MUTATION = `mutation { retireRecord(entity: API_REMOVALS, key: "example.k8s.io/v1 Nothing", revision: 1) { key } }`;

function assertRateLimited(response: request.Response, shape: "rest" | "graphql"): void {
  assert.equal(response.status, 429, response.text.slice(0, 300));
  assert.equal(response.headers["retry-after"], "60");
  const [error] = errorsOf(response.body);
  assert.equal(error?.code, "RATE_LIMITED");
  assert.match(String(error?.message), /at most 3 a minute/);
  if (shape === "graphql")
    assert.ok(Array.isArray(response.body.errors), "a GraphQL client gets GraphQL's error shape");
  else assert.equal(response.body.error.code, "RATE_LIMITED");
}

describe("rate limits", () => {
  let runtime: TestRuntime;
  let limited: Express;
  let editors: string[];
  let reader: string;

  before(async () => {
    runtime = await startTestRuntime();
    const logger = createLogger("silent");
    limited = await createApp({
      kb: runtime.kb,
      isDatabaseReachable: () => pingDatabase(runtime.db),
      logger,
      curator: new Curator(runtime.db, runtime.kb),
      authenticator: new Authenticator(runtime.db, logger),
      rateLimits: { writesPerMinute: WRITES_PER_MINUTE, chatPerMinute: WRITES_PER_MINUTE },
    });
    editors = [];
    for (const name of ["editor-a", "editor-b", "editor-c"])
      editors.push(await createTestToken(runtime, name, "editor"));
    reader = await createTestToken(runtime, "reader-a", "reader");
  });
  after(async () => runtime.close());

  it("refuses the fourth write in a minute with 429, Retry-After and RATE_LIMITED", async () => {
    for (let attempt = 0; attempt < WRITES_PER_MINUTE; attempt += 1) {
      const allowed = await retire(limited, editors[0]);
      assert.equal(allowed.status, 404, "the first writes are answered on their merits");
    }
    assertRateLimited(await retire(limited, editors[0]), "rest");
    assertRateLimited(await retire(limited, editors[0]), "rest");
  });

  it("gives another token its own budget", async () => {
    for (let attempt = 0; attempt < WRITES_PER_MINUTE; attempt += 1)
      assert.equal((await retire(limited, editors[1])).status, 404);
    assertRateLimited(await retire(limited, editors[1]), "rest");
  });

  it("counts GraphQL mutations as writes of the same budget, answering in GraphQL's shape", async () => {
    for (let attempt = 0; attempt < WRITES_PER_MINUTE; attempt += 1) {
      const allowed = await request(limited)
        .post("/graphql")
        .set(bearer(editors[2]!))
        .send({ query: RETIRE_MUTATION });
      assert.equal(allowed.status, 200);
      assert.equal(allowed.body.errors[0].extensions.code, "NOT_FOUND");
    }
    assertRateLimited(
      await request(limited)
        .post("/graphql")
        .set(bearer(editors[2]!))
        .send({ query: RETIRE_MUTATION }),
      "graphql",
    );
    assertRateLimited(await retire(limited, editors[2]), "rest");
  });

  it("limits callers without a token by address", async () => {
    for (let attempt = 0; attempt < WRITES_PER_MINUTE; attempt += 1)
      assert.equal((await retire(limited)).status, 401);
    assertRateLimited(await retire(limited), "rest");
    // A token holder behind the same address is not affected.
    assert.equal((await retire(limited, reader)).status, 403);
  });

  it("does not limit reads, queries or operations", async () => {
    for (let attempt = 0; attempt < 4 * WRITES_PER_MINUTE; attempt += 1) {
      await request(limited).get("/api/v1/releases").set(bearer(editors[0]!)).expect(200);
      await request(limited)
        .post("/api/v1/validate")
        .set(bearer(editors[0]!))
        .send({ components: [{ component: "kubelet", version: "1.30" }] })
        .expect(200);
      const query = await request(limited)
        .post("/graphql")
        .set(bearer(editors[0]!))
        .send({ query: "{ releases { version } }" })
        .expect(200);
      assert.equal(query.body.errors, undefined);
    }
  });

  it("limits the chat endpoints", async () => {
    for (let attempt = 0; attempt < WRITES_PER_MINUTE; attempt += 1) {
      const allowed = await request(limited).post("/chatops/command").send({ text: "help" });
      assert.notEqual(allowed.status, 429);
    }
    assertRateLimited(
      await request(limited).post("/chatops/command").send({ text: "help" }),
      "rest",
    );
  });

  it("counts a mutation written after a comma as a write", async () => {
    const fresh = await createTestToken(runtime, "editor-comma", "editor");
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= WRITES_PER_MINUTE; attempt += 1) {
      statuses.push(
        (
          await request(limited)
            .post("/graphql")
            .set(bearer(fresh))
            .send({ query: `,${RETIRE_MUTATION}` })
        ).status,
      );
    }
    assert.equal(statuses.at(-1), 429, `statuses: ${statuses.join(",")}`);
  });
});

describe("the rate limiter itself", () => {
  /** An app with only the limiter (2 a minute) before a handler that answers with the status the test asks for. */
  function limitedApp(): Express {
    const app = express();
    app.post("/", rateLimited(2, "write"), (req, res) => {
      const status = Number(req.query.status ?? 200);
      if (status === 503) res.setHeader("Retry-After", "1");
      if (req.query.hang === "1") return; // the client gives up before any answer
      res.status(status).json({ status });
    });
    app.use(errorMiddleware(createLogger("silent")));
    return app;
  }

  it("gives back a request refused for the database (503 with Retry-After), and says the budget left", async () => {
    const app = limitedApp();
    const first = await request(app).post("/");
    assert.equal(first.status, 200);
    assert.equal(first.headers["ratelimit-policy"], "2;w=60");
    assert.match(String(first.headers.ratelimit), /^limit=2, remaining=1, reset=(59|60)$/);
    for (let attempt = 0; attempt < 3; attempt += 1)
      assert.equal((await request(app).post("/?status=503")).status, 503);
    // The 503s did no work: a second request of the minute is still let in; a refusal for its content counts.
    assert.equal((await request(app).post("/?status=400")).status, 400);
    assertRateLimitedTo(await request(app).post("/"), 2);
  });

  it("gives back a request whose client went away before the answer", async () => {
    const app = limitedApp();
    await assert.rejects(request(app).post("/?hang=1").timeout(200));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await request(app).post("/")).status, 200);
    assert.equal((await request(app).post("/")).status, 200);
    assertRateLimitedTo(await request(app).post("/"), 2);
  });
});

function assertRateLimitedTo(response: request.Response, perMinute: number): void {
  assert.equal(response.status, 429, response.text.slice(0, 300));
  assert.equal(response.headers["retry-after"], "60");
  assert.match(
    String(response.headers.ratelimit),
    new RegExp(`^limit=${perMinute}, remaining=0, reset=\\d+$`),
  );
  assert.equal(response.body.error.code, "RATE_LIMITED");
}

describe("security headers", () => {
  let runtime: TestRuntime;
  before(async () => {
    runtime = await startTestRuntime();
  });
  after(async () => runtime.close());

  const EXPECTED: Readonly<Record<string, string | RegExp>> = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "SAMEORIGIN",
    "referrer-policy": "no-referrer",
    "content-security-policy": /^default-src 'none'; frame-ancestors 'none'/,
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "x-dns-prefetch-control": "off",
    "x-permitted-cross-domain-policies": "none",
    "x-download-options": "noopen",
  };
  const answers: ReadonlyArray<{
    readonly what: string;
    readonly send: (app: Express) => request.Test;
    readonly status: number;
  }> = [
    { what: "a read", send: (app) => request(app).get("/api/v1/kb"), status: 200 },
    {
      what: "an operation",
      send: (app) =>
        request(app)
          .post("/api/v1/validate")
          .send({ components: [{ component: "kubelet", version: "1.30" }] }),
      status: 200,
    },
    {
      what: "bad input",
      send: (app) => request(app).post("/api/v1/validate").send({ components: [] }),
      status: 400,
    },
    { what: "an unknown route", send: (app) => request(app).get("/api/v1/nothing"), status: 404 },
    {
      what: "a refused token",
      send: (app) => request(app).get("/api/v1/kb").set("Authorization", "Basic eDp5"),
      status: 401,
    },
    {
      what: "a body too large",
      send: (app) =>
        request(app)
          .post("/api/v1/validate")
          .set("Content-Type", "application/json")
          .send(`"${"x".repeat(12 * 1024 * 1024)}"`),
      status: 413,
    },
    {
      what: "a wrong content type",
      send: (app) =>
        request(app).post("/api/v1/validate").set("Content-Type", "text/plain").send("x"),
      status: 415,
    },
    {
      what: "a GraphQL answer",
      send: (app) => request(app).post("/graphql").send({ query: "{ releases { version } }" }),
      status: 200,
    },
    {
      what: "a GraphQL error",
      send: (app) => request(app).post("/graphql").send({ query: "{ nothing }" }),
      status: 400,
    },
    { what: "the OpenAPI document", send: (app) => request(app).get("/openapi.json"), status: 200 },
    { what: "the health check", send: (app) => request(app).get("/healthz"), status: 200 },
  ];

  for (const answer of answers) {
    it(`sets helmet's headers and no X-Powered-By on ${answer.what}`, async () => {
      const response = await answer.send(runtime.app);
      assert.equal(response.status, answer.status);
      for (const [header, expected] of Object.entries(EXPECTED)) {
        const value = response.headers[header];
        if (typeof expected === "string") assert.equal(value, expected, header);
        else assert.match(String(value), expected, header);
      }
      assert.equal(response.headers["x-powered-by"], undefined);
      assert.equal(
        response.headers["strict-transport-security"],
        undefined,
        "no HSTS over plain HTTP",
      );
    });
  }

  it("sends HSTS only over TLS: said by a trusted proxy, or by the operator", async () => {
    const logger = createLogger("silent");
    const behindProxy = await createApp({
      kb: runtime.kb,
      isDatabaseReachable: () => Promise.resolve(true),
      logger,
      trustProxy: 1,
    });
    const overTls = await request(behindProxy)
      .get("/healthz")
      .set("X-Forwarded-Proto", "https")
      .expect(200);
    assert.match(
      String(overTls.headers["strict-transport-security"]),
      /^max-age=31536000; includeSubDomains$/,
    );
    const plain = await request(behindProxy)
      .get("/healthz")
      .set("X-Forwarded-Proto", "http")
      .expect(200);
    assert.equal(plain.headers["strict-transport-security"], undefined);
    // Without a trusted proxy, a client's own X-Forwarded-Proto is not believed.
    const untrusted = await request(runtime.app)
      .get("/healthz")
      .set("X-Forwarded-Proto", "https")
      .expect(200);
    assert.equal(untrusted.headers["strict-transport-security"], undefined);
    const always = await createApp({
      kb: runtime.kb,
      isDatabaseReachable: () => Promise.resolve(true),
      logger,
      hsts: true,
    });
    assert.match(
      String(
        (await request(always).get("/healthz").expect(200)).headers["strict-transport-security"],
      ),
      /^max-age=/,
    );
  });

  it("gives the front page, which runs no script, a policy that lets none run; the docs and the playground, which do, none", async () => {
    for (const page of [
      await request(runtime.app).get("/").expect(200),
      await request(runtime.app).post("/").type("form").send({ nodes: "", version: "" }),
    ]) {
      const policy = String(page.headers["content-security-policy"]);
      assert.match(policy, /default-src 'none'/);
      assert.doesNotMatch(policy, /script-src/);
      assert.match(policy, /form-action 'self'/);
    }
    assert.equal(
      (await request(runtime.app).get("/docs").expect(200)).headers["content-security-policy"],
      undefined,
    );
    assert.equal(
      (await request(runtime.app).get("/playground").expect(200)).headers[
        "content-security-policy"
      ],
      undefined,
    );
  });

  it("does not echo a hostile X-Request-Id", async () => {
    const response = await request(runtime.app)
      .get("/api/v1/kb")
      .set("X-Request-Id", "<script>alert(1)</script>")
      .expect(200);
    assert.match(String(response.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
  });
});
