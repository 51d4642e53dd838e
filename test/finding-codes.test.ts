/**
 * One table of finding codes (src/domain/findings.ts FINDING_CODES): every code the domain reports is in
 * it (the type system refuses any other), the SDL's and OpenAPI's descriptions are generated from it, and
 * every finding on the wire carries the check its code belongs to. docs/, the SDL and OpenAPI describe the
 * verdict words people and bots read.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { buildSchema, isEnumType, isObjectType } from "graphql";
import request from "supertest";
import {
  checkOf,
  FINDING_CHECKS,
  FINDING_CODES,
  type FindingCode,
} from "../src/domain/findings.js";
import { openApiDocument } from "../src/rest/openapi.js";
import { withFindingCodes } from "../scripts/finding-codes.js";
import { REPO_ROOT, startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

const schemaText = (): Promise<string> =>
  fs.readFile(path.join(REPO_ROOT, "schema.graphql"), "utf8");

describe("the finding codes table feeds the SDL and OpenAPI", () => {
  it("schema.graphql is what the generator writes (npm run codegen), listing every code and check", async () => {
    const text = await schemaText();
    assert.equal(withFindingCodes(text), text, "schema.graphql is stale: run npm run codegen");
    const schema = buildSchema(text);
    const finding = schema.getType("Finding");
    assert.ok(isObjectType(finding));
    const description = finding.getFields().code?.description ?? "";
    for (const [code, { check }] of Object.entries(FINDING_CODES))
      assert.ok(
        description.includes(`\`${code}\` (${check}):`),
        `Finding.code does not list ${code}`,
      );
    const checks = schema.getType("FindingCheck");
    assert.ok(isEnumType(checks));
    assert.deepEqual(
      checks.getValues().map((value) => value.name),
      Object.keys(FINDING_CHECKS),
    );
    assert.equal(String(finding.getFields().check?.type), "FindingCheck!");
  });

  it("the generator replaces what it wrote before, and notices a hand edit", async () => {
    const text = await schemaText();
    const handEdited = text.replace("`TARGET_UNKNOWN` (RELEASE):", "`TARGET_UNKNOWN` (PLAN):");
    assert.notEqual(handEdited, text);
    assert.equal(withFindingCodes(handEdited), text);
  });

  it("OpenAPI's Finding lists every code, and check is an enum of the checks", () => {
    const schemas = openApiDocument().components?.schemas ?? {};
    const finding = schemas.Finding as {
      properties: Record<string, { description?: string; $ref?: string }>;
    };
    for (const code of Object.keys(FINDING_CODES))
      assert.ok(
        finding.properties.code?.description?.includes(`\`${code}\``),
        `OpenAPI Finding.code does not list ${code}`,
      );
    assert.deepEqual(
      (schemas.FindingCheck as { enum: string[] }).enum,
      Object.keys(FINDING_CHECKS),
    );
  });

  it("checkOf: the table's check, SKEW for the codes built with a component's name", () => {
    assert.equal(checkOf("RUNTIME_END_OF_LIFE"), "END_OF_LIFE");
    assert.equal(checkOf("SKEW_KUBELET_TOO_OLD_FOR_APISERVER"), "SKEW");
    assert.equal(checkOf("SKEW_KUBE_PROXY_OLDER_THAN_KUBELET"), "SKEW_KUBELET");
    assert.equal(checkOf("TARGET_UNKNOWN"), "RELEASE");
  });
});

describe("findings on the wire carry their check", () => {
  let runtime: SnapshotRuntime;
  before(async () => {
    runtime = await startSnapshotRuntime();
  });
  after(async () => {
    await runtime?.close();
  });

  it("REST and GraphQL give each finding the check of its code", async () => {
    const components = [
      { component: "kube-apiserver", version: "1.28" },
      { component: "kubelet", version: "1.24", instance: "old" },
      { component: "containerd", version: "1.6.20", instance: "old" },
      { component: "kube-proxy", version: "1.28", instance: "orphan" },
    ];
    const rest = await request(runtime.app)
      .post("/api/v1/validate")
      .send({ components, asOf: "2026-12-01" })
      .expect(200);
    const codes = rest.body.findings.map(
      (finding: { code: string; check: string }) => `${finding.code}:${finding.check}`,
    );
    assert.ok(codes.includes("SKEW_KUBELET_TOO_OLD_FOR_APISERVER:SKEW"), codes.join(" "));
    assert.ok(codes.includes("RELEASE_END_OF_LIFE:END_OF_LIFE"), codes.join(" "));
    assert.ok(codes.includes("KUBE_PROXY_NOT_CHECKED:COVERAGE"), codes.join(" "));
    for (const finding of rest.body.findings as Array<{ code: FindingCode; check: string }>)
      assert.equal(finding.check, checkOf(finding.code), finding.code);
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query:
          'query($plan: ClusterPlanInput!) { validateCluster(plan: $plan, asOf: "2026-12-01") { findings { code check } } }',
        variables: { plan: { components } },
      })
      .expect(200);
    assert.deepEqual(
      graphql.body.data.validateCluster.findings,
      rest.body.findings.map(({ code, check }: { code: string; check: string }) => ({
        code,
        check,
      })),
    );
  });
});

describe("the docs describe the words people read", () => {
  it("docs/checks.md, SDL and OpenAPI describe status, phase, API_NOT_JUDGED, TARGET_UNKNOWN; docs/cli.md --fail-on", async () => {
    const checks = await fs.readFile(path.join(REPO_ROOT, "docs", "checks.md"), "utf8");
    const cli = await fs.readFile(path.join(REPO_ROOT, "docs", "cli.md"), "utf8");
    const sdl = await schemaText();
    const openapi = JSON.stringify(openApiDocument());
    for (const word of [
      "SUPPORTED_WITH_WARNINGS",
      "NOT_JUDGED",
      "ALREADY_REMOVED",
      "REMOVED_IN_UPGRADE",
      "API_NOT_JUDGED",
      "TARGET_UNKNOWN",
    ]) {
      assert.ok(checks.includes(word), `docs/checks.md: ${word}`);
      assert.ok(sdl.includes(word), `SDL: ${word}`);
      assert.ok(openapi.includes(word), `OpenAPI: ${word}`);
    }
    assert.match(cli, /`--fail-on`: `error`[^]*`warning`[^]*`eol`/);
  });
});
