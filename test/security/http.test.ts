import assert from "node:assert/strict";
import zlib from "node:zlib";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { revokeToken } from "../../src/db/token-store.js";
import { query } from "../support/database.js";
import { createTestToken, startTestRuntime, type TestRuntime } from "../support/runtime.js";
import { HTTP_CASES } from "./http-cases.js";
import { assertAnswer, send, type HostileCase, type Role } from "./support.js";

const kubeletPlan = { components: [{ component: "kubelet", version: "1.29" }] };

/** Cases that need bytes built at run time. */
const COMPRESSION_CASES: readonly HostileCase[] = [
  {
    name: "413 for a gzip bomb (50 MiB once inflated)",
    method: "POST",
    path: "/api/v1/validate",
    headers: { "Content-Encoding": "gzip" },
    body: () => zlib.gzipSync(Buffer.from(`{"components": "${"a".repeat(50 * 1024 * 1024)}"}`)),
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
  },
  {
    name: "413 for a deflate bomb of YAML to the scan",
    method: "POST",
    path: "/api/v1/scan?targetVersion=1.29",
    contentType: "application/yaml",
    headers: { "Content-Encoding": "deflate" },
    body: () => zlib.deflateSync(Buffer.from("a".repeat(50 * 1024 * 1024))),
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
  },
];

describe("hostile HTTP input to the REST API", () => {
  let runtime: TestRuntime;
  let tokens: Record<Role | "revoked", string>;
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

  before(async () => {
    // With the fleet: its routes are documented, so they get the same hostile input as the others.
    runtime = await startTestRuntime({ fleet: true });
    tokens = {
      reader: await createTestToken(runtime, "reader-bot", "reader"),
      editor: await createTestToken(runtime, "editor-bot", "editor"),
      admin: await createTestToken(runtime, "admin-bot", "admin"),
      revoked: await createTestToken(runtime, "revoked-bot", "admin"),
    };
    // Revoked before its first use, so no cached lookup can still accept it.
    assert.notEqual(
      await revokeToken(runtime.db, "revoked-bot", { name: "test", role: "admin" }),
      null,
    );
  });
  after(async () => runtime.close());

  for (const [category, cases] of Object.entries({
    ...HTTP_CASES,
    compression: COMPRESSION_CASES,
  })) {
    describe(category, () => {
      if (category === "SQL-looking strings") {
        let rowsBefore: number;
        before(async () => {
          rowsBefore = Number(
            (
              await query<{ count: string }>(
                runtime.database.url,
                `SELECT count(*) FROM "ApiRemoval"`,
              )
            )[0]!.count,
          );
          assert.ok(rowsBefore > 0);
        });
        after(async () => {
          const rows = await query<{ count: string }>(
            runtime.database.url,
            `SELECT count(*) FROM "ApiRemoval"`,
          );
          assert.equal(Number(rows[0]!.count), rowsBefore, "the ApiRemoval table keeps every row");
          const served = await request(runtime.app).get("/api/v1/api-removals").expect(200);
          assert.equal(served.body.items.length, rowsBefore);
        });
      }
      for (const hostile of cases) {
        it(hostile.name, async () => {
          assertAnswer(hostile, await send(runtime.app, hostile, tokens));
        });
      }
    });
  }

  it("leaves Object.prototype untouched after every prototype-pollution attempt", () => {
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
  });

  it("still answers a plain request after the whole corpus", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/validate")
      .send(kubeletPlan)
      .expect(200);
    assert.equal(typeof response.body.ok, "boolean");
    await request(runtime.app).get("/api/v1/components/kubelet").expect(200);
  });

  it("has Node's HTTP parser refuse a query string past its header limit (431), and keeps serving", async () => {
    const response = await request(runtime.app).get(
      `/api/v1/components?plane=${"A".repeat(20_000)}`,
    );
    assert.equal(response.status, 431);
    await request(runtime.app).get("/api/v1/kb").expect(200);
  });

  it("accepts a correctly gzipped body (the bomb cases are refused for size, not for encoding)", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/validate")
      .set("Content-Type", "application/json")
      .set("Content-Encoding", "gzip")
      .serialize((data: unknown) => data as string)
      .send(zlib.gzipSync(JSON.stringify(kubeletPlan)))
      .expect(200);
    assert.equal(typeof response.body.ok, "boolean");
  });
});
