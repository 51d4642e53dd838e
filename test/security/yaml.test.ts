import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { createTestToken, startTestRuntime, type TestRuntime } from "../support/runtime.js";
import { assertAnswer, send, type Role } from "./support.js";
import { YAML_CASES } from "./yaml-cases.js";

describe("hostile YAML", () => {
  let runtime: TestRuntime;
  let tokens: Record<Role | "revoked", string>;
  let revisionBefore: number;

  before(async () => {
    runtime = await startTestRuntime();
    tokens = {
      reader: await createTestToken(runtime, "reader-bot", "reader"),
      editor: await createTestToken(runtime, "editor-bot", "editor"),
      admin: await createTestToken(runtime, "admin-bot", "admin"),
      // No case here sends a revoked token; the name only completes the table.
      revoked: "",
    };
    revisionBefore = runtime.kb.current().revision;
  });
  after(async () => runtime.close());

  for (const [face, cases] of Object.entries(YAML_CASES)) {
    describe(face, () => {
      for (const hostile of cases) {
        it(hostile.name, async () => {
          assertAnswer(hostile, await send(runtime.app, hostile, tokens));
        });
      }
    });
  }

  it("imported nothing from any hostile bundle", async () => {
    assert.equal(runtime.kb.current().revision, revisionBefore);
    const summary = await request(runtime.app).get("/api/v1/kb").expect(200);
    assert.equal(summary.body.revision, revisionBefore);
  });

  it("still scans a plain manifest after the whole corpus", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/scan?targetVersion=1.25")
      .set("Content-Type", "application/yaml")
      .send("apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: restricted\n")
      .expect(200);
    assert.deepEqual(
      response.body.findings.map((finding: { code: string }) => finding.code),
      ["API_REMOVED"],
    );
  });
});
