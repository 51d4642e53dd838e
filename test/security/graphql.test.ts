import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import { getIntrospectionQuery } from "graphql";
import request from "supertest";
import { createApp } from "../../src/app.js";
import { revokeToken } from "../../src/db/token-store.js";
import { createLogger } from "../../src/core/logger.js";
import { createTestToken, startTestRuntime, type TestRuntime } from "../support/runtime.js";
import { GRAPHQL_CASES, PROBES, SUGGESTION } from "./graphql-cases.js";
import { assertAnswer, graphqlCase, send, type Role } from "./support.js";

describe("hostile input to GraphQL", () => {
  let runtime: TestRuntime;
  let production: Express;
  let tokens: Record<Role | "revoked", string>;

  before(async () => {
    runtime = await startTestRuntime();
    production = await createApp({
      kb: runtime.kb,
      isDatabaseReachable: () => Promise.resolve(true),
      logger: createLogger("silent"),
      production: true,
    });
    tokens = {
      reader: await createTestToken(runtime, "reader-bot", "reader"),
      editor: await createTestToken(runtime, "editor-bot", "editor"),
      admin: await createTestToken(runtime, "admin-bot", "admin"),
      revoked: await createTestToken(runtime, "revoked-bot", "admin"),
    };
    assert.notEqual(
      await revokeToken(runtime.db, "revoked-bot", { name: "test", role: "admin" }),
      null,
    );
  });
  after(async () => runtime.close());

  for (const [category, cases] of Object.entries(GRAPHQL_CASES)) {
    describe(category, () => {
      for (const hostile of cases) {
        it(hostile.name, async () => {
          assertAnswer(hostile, await send(runtime.app, hostile, tokens));
        });
      }
    });
  }

  describe("field suggestions: present in development, absent in production", () => {
    for (const probe of PROBES) {
      it(`development suggests names for ${probe.what}`, async () => {
        const hostile = graphqlCase(
          `development: ${probe.what}`,
          probe.query,
          { status: 400, code: probe.code, message: /Did you mean "?/ },
          probe.variables,
        );
        assertAnswer(hostile, await send(runtime.app, hostile, tokens));
      });
      it(`production names nothing of the schema for ${probe.what}`, async () => {
        const hostile = graphqlCase(
          `production: ${probe.what}`,
          probe.query,
          { status: 400, code: probe.code, notMessage: SUGGESTION },
          probe.variables,
        );
        assertAnswer(hostile, await send(production, hostile, tokens));
      });
    }
  });

  it("answers the standard introspection query (introspection stays allowed, also in production)", async () => {
    for (const app of [runtime.app, production]) {
      const response = await request(app)
        .post("/graphql")
        .send({ query: getIntrospectionQuery() })
        .expect(200);
      assert.equal(response.body.errors, undefined);
      const types = (response.body.data.__schema.types as Array<{ name: string }>).map(
        (type) => type.name,
      );
      assert.ok(
        types.includes("Query") && types.includes("ClusterPlanInput") && types.includes("Finding"),
      );
      assert.equal(response.body.data.__schema.subscriptionType, null);
    }
  });

  it("still answers a plain query after the whole corpus", async () => {
    const response = await request(runtime.app)
      .post("/graphql")
      .send({ query: "{ releases { version } }" })
      .expect(200);
    assert.ok(response.body.data.releases.length > 10);
  });
});
