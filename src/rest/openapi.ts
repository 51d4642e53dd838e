/**
 * The OpenAPI 3.1 document of the REST API, generated from the zod schemas
 * that validate the requests (src/http/schemas/); nothing is written by
 * hand. test/openapi.test.ts checks that every route the app serves is in it.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { registerClusterChecks, registerImpactAndFlows, registerScans } from "./openapi-checks.js";
import {
  registerAudit,
  registerBearerAuth,
  registerKbExchange,
  registerRecordEdits,
} from "./openapi-curation.js";
import { registerFix } from "./openapi-fix.js";
import { registerFleet } from "./openapi-fleet.js";
import { registerKnowledgeBaseReads, registerRecordLists } from "./openapi-knowledge.js";
import { registerProposals } from "./openapi-proposals.js";

/**
 * Every path, in the order the document lists them (the order of registration). Exported for tests that hold
 * real answers to the zod schemas a path documents.
 */
export function buildRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registerRecordLists(registry);
  registerKnowledgeBaseReads(registry);
  registerClusterChecks(registry);
  registerImpactAndFlows(registry);
  registerScans(registry);
  registerFix(registry);
  const secured = registerBearerAuth(registry);
  registerRecordEdits(registry, secured);
  registerAudit(registry, secured);
  registerKbExchange(registry, secured);
  registerProposals(registry, secured);
  registerFleet(registry, secured);
  return registry;
}

let document: ReturnType<OpenApiGeneratorV31["generateDocument"]> | undefined;

export function openApiDocument(): ReturnType<OpenApiGeneratorV31["generateDocument"]> {
  document ??= new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "kubecompat REST API",
      version: "1",
      description:
        'Kubernetes version compatibility from a sourced knowledge base. Errors are {"error": {"code", "message", "details"?}}. The same operations are available over GraphQL at /graphql.',
    },
    servers: [{ url: "/" }],
  });
  return document;
}
