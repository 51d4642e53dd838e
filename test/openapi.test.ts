import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { Router } from "express";
import request from "supertest";
import { openApiDocument } from "../src/rest/openapi.js";
import { operationRoutes } from "../src/rest/operation-routes.js";
import { readRoutes } from "../src/rest/read-routes.js";
import { curationRoutes } from "../src/rest/curation-routes.js";
import { Curator } from "../src/services/curation.js";
import { ProposalReview } from "../src/services/proposals.js";
import { proposalRoutes } from "../src/rest/proposal-routes.js";
import { fleetRoutes } from "../src/rest/fleet-routes.js";
import { DEFAULT_FLEET_CONFIG } from "../src/core/fleet-config.js";
import { createLogger } from "../src/core/logger.js";
import { FleetService } from "../src/services/fleet.js";
import { startTestRuntime, type TestRuntime } from "./support/runtime.js";

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every `METHOD /path` a router defines, with Express's `:param` written as OpenAPI's `{param}`. */
function routesOf(router: Router, prefix: string): string[] {
  return (router.stack as unknown as Layer[])
    .filter((layer) => layer.route !== undefined)
    .flatMap((layer) =>
      Object.keys(layer.route!.methods)
        .filter((method) => method !== "_all")
        .map(
          (method) =>
            `${method.toUpperCase()} ${prefix}${layer.route!.path.replace(/:(\w+)/g, "{$1}")}`,
        ),
    );
}

describe("the OpenAPI document", () => {
  let runtime: TestRuntime;
  before(async () => {
    runtime = await startTestRuntime();
  });
  after(async () => runtime.close());

  it("is a valid OpenAPI 3.1 document", async () => {
    const served = await request(runtime.app).get("/openapi.json").expect(200);
    assert.equal(served.body.openapi, "3.1.0");
    const validator = new Validator();
    const result = await validator.validate(served.body);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
  });

  it("documents every route the REST API serves, and nothing it does not", () => {
    const served = [
      ...routesOf(readRoutes(runtime.kb), "/api/v1"),
      ...routesOf(operationRoutes(runtime.kb), "/api/v1"),
      ...routesOf(curationRoutes(runtime.kb, new Curator(runtime.db, runtime.kb)), "/api/v1"),
      ...routesOf(
        proposalRoutes(
          runtime.kb,
          new ProposalReview(runtime.db, new Curator(runtime.db, runtime.kb)),
        ),
        "/api/v1",
      ),
      // Built, not started: only the routes it defines are read.
      ...routesOf(
        fleetRoutes(
          new FleetService({
            db: runtime.db,
            kb: runtime.kb,
            config: DEFAULT_FLEET_CONFIG,
            enqueue: () => Promise.resolve(),
            logger: createLogger("silent"),
          }),
          (_req, _res, next) => next(),
        ),
        "/api/v1",
      ),
    ].sort();
    const documented = Object.entries(openApiDocument().paths ?? {})
      .flatMap(([path, item]) =>
        Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    assert.ok(served.length >= 50, `found ${served.length} routes`);
    assert.deepEqual(documented, served);
  });

  it("generates request bodies from the same zod schemas that validate them", () => {
    const schemas = openApiDocument().components?.schemas ?? {};
    const validate = schemas.ValidateRequest as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties?: boolean;
    };
    assert.deepEqual(Object.keys(validate.properties).sort(), [
      "asOf",
      "components",
      "detail",
      "platform",
      "profile",
    ]);
    assert.deepEqual(validate.required, ["components"]);
    assert.equal(validate.additionalProperties, false);
    const input = schemas.ComponentVersionInput as { required: string[] };
    assert.deepEqual(input.required.sort(), ["component", "version"]);
  });

  it("serves interactive docs that load only local assets", async () => {
    const page = await request(runtime.app).get("/docs").expect(200);
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(sources.length >= 3);
    for (const source of sources)
      assert.ok(source.startsWith("/") || source.startsWith("data:"), `${source} is local`);
    for (const source of sources.filter((candidate) => candidate.startsWith("/"))) {
      await request(runtime.app).get(source).expect(200);
    }
    const init = await request(runtime.app).get("/docs/init.js").expect(200);
    assert.match(init.text, /url: "\/openapi\.json"/);
  });
});
