/**
 * Errors are mapped in two places, from one describeError: the same code reaches REST and GraphQL for
 * the same failure, an internal error is masked on both as INTERNAL_SERVER_ERROR, and its log line
 * carries the request id on both. The failure is real code failing: a knowledge base whose snapshot
 * cannot be read (a bug stand-in), next to the real database-unavailable and input errors.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import request from "supertest";
import { captureLogs } from "./support/log-sink.js";
import { createApp } from "../src/app.js";
import { InputError } from "../src/core/errors.js";
import { KnowledgeBase } from "../src/services/knowledge-base.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { describeError, INTERNAL_CODE } from "../src/http/errors.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

/** A knowledge base whose snapshot fails when its components are read, as a broken refactoring would. */
class BrokenKnowledgeBase extends KnowledgeBase {
  constructor(private readonly real: KnowledgeBase) {
    super(undefined as never);
  }
  override current(): KbSnapshot {
    return new Proxy(this.real.current(), {
      get(target, property, receiver) {
        if (property === "components")
          throw new TypeError("Cannot read properties of undefined (reading 'components')");
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
  }
}

describe("one describeError for REST and GraphQL", () => {
  let runtime: SnapshotRuntime;
  const logs = captureLogs();
  const lines = logs.entries;
  let broken: Awaited<ReturnType<typeof createApp>>;

  before(async () => {
    runtime = await startSnapshotRuntime();
    const logger = pino({ level: "error" }, logs.sink);
    const kb = new BrokenKnowledgeBase(runtime.kb);
    broken = await createApp({ kb, isDatabaseReachable: () => Promise.resolve(true), logger });
  });
  after(async () => {
    await runtime?.close();
  });

  it("an internal error is INTERNAL_SERVER_ERROR on both, masked, and logged with the request id on both", async () => {
    const rest = await request(broken).get("/api/v1/components").set("x-request-id", "rest-req-1");
    assert.equal(rest.status, 500);
    assert.equal(rest.body.error.code, INTERNAL_CODE);
    assert.doesNotMatch(JSON.stringify(rest.body), /Cannot read properties/);
    const graphql = await request(broken)
      .post("/graphql")
      .set("x-request-id", "gql-req-1")
      .send({ query: "{ components { name } }" });
    const codes = (
      graphql.body.errors as Array<{ extensions: { code: string }; message: string }>
    ).map((error) => error.extensions.code);
    assert.deepEqual([...new Set(codes)], [INTERNAL_CODE], JSON.stringify(graphql.body));
    assert.doesNotMatch(JSON.stringify(graphql.body), /Cannot read properties/);
    const logged = (id: string) =>
      lines.find(
        (line) =>
          line.requestId === id &&
          JSON.stringify(line.err ?? {}).includes("Cannot read properties"),
      );
    assert.ok(logged("rest-req-1"), `REST log line with its request id: ${JSON.stringify(lines)}`);
    assert.ok(
      logged("gql-req-1"),
      `GraphQL log line with its request id: ${JSON.stringify(lines)}`,
    );
  });

  it("a known error has the same code on both faces", async () => {
    const rest = await request(runtime.app).get("/api/v1/releases/1.99x").expect(400);
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({ query: '{ release(version: "1.99x") { version } }' })
      .expect(200);
    assert.equal(graphql.body.errors[0].extensions.code, rest.body.error.code);
    assert.equal(rest.body.error.code, "BAD_USER_INPUT");
  });

  it("describeError: status, code, field and retry of each kind of failure (pure)", () => {
    assert.deepEqual(
      (({ status, code, field, internal }) => ({ status, code, field, internal }))(
        describeError(new InputError("targetVersion must be a version", "targetVersion")),
      ),
      { status: 400, code: "BAD_USER_INPUT", field: "targetVersion", internal: false },
    );
    const refused = describeError(
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
    );
    assert.equal(refused.status, 503);
    assert.equal(refused.code, "UNAVAILABLE");
    assert.equal(refused.retryAfterSeconds, 5);
    assert.equal(
      describeError(Object.assign(new Error("too big"), { type: "entity.too.large", limit: 100 }))
        .status,
      413,
    );
    assert.equal(describeError(new URIError("URI malformed")).code, "BAD_USER_INPUT");
    const bug = describeError(new RangeError("boom"));
    assert.deepEqual([bug.status, bug.code, bug.internal], [500, INTERNAL_CODE, true]);
    assert.doesNotMatch(bug.message, /boom/);
  });
});
