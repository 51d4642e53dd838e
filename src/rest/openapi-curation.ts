/**
 * The curation paths of the OpenAPI document: creating, updating and retiring
 * records with a token, the audit trail, and the knowledge base exported as
 * kb/ files or for Pluto, and imported back as a bundle.
 */
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { ENTITIES, ENTITY_NAMES } from "../knowledge/registry.js";
import { errorResponse } from "../http/schemas/answers.js";
import { kbRevision } from "../http/schemas/knowledge-records.js";
import { z } from "../http/schemas/openapi-zod.js";
import { recordSchemaOf } from "./openapi-knowledge.js";
import { authErrors, errors, json, readErrors, text } from "./openapi-responses.js";

/** Which security requirement a path lists: the bearer token, registered once. */
export type Security = Array<Record<string, string[]>>;

export function registerBearerAuth(registry: OpenAPIRegistry): Security {
  const bearerAuth = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "An API token created with `npm run token -- create --role editor --name NAME` (kc_...).",
  });
  return [{ [bearerAuth.name]: [] }];
}

const edited = z
  .object({ item: z.record(z.string(), z.unknown()).nullable(), key: z.string(), kbRevision })
  .openapi("EditResult");
const idempotency = z.object({
  "Idempotency-Key": z.string().optional().openapi({
    description:
      "A key you choose (e.g. a UUID), 1-200 visible ASCII characters. A retry with the same key answers the first result (with Idempotent-Replayed: true) instead of applying the edit again; the same key for a different edit is a 409. Kept 24 hours.",
  }),
});
const outcomeUnknown = {
  503: {
    description:
      "The database is unavailable (Retry-After). When the connection was lost while the edit was being committed, the message says the edit may or may not have been applied: read the record again, or retry with the same Idempotency-Key.",
    ...json(errorResponse),
  },
};

/** Create, update and retire, for every kind of record. */
export function registerRecordEdits(registry: OpenAPIRegistry, secured: Security): void {
  for (const entity of ENTITY_NAMES) {
    const { collection, keyExample } = ENTITIES[entity];
    const record = recordSchemaOf(entity);
    const key = z.object({
      key: z.string().openapi({
        description: `The record's natural key, URL-encoded (${keyExample}).`,
        example: keyExample,
      }),
    });
    registry.registerPath({
      method: "post",
      path: `/api/v1/${collection}`,
      summary: `Create a ${entity} record (editor)`,
      tags: ["curation"],
      security: secured,
      request: { headers: idempotency, body: { required: true, ...json(record) } },
      responses: {
        201: { description: "Created at revision 1", ...json(edited) },
        ...errors,
        ...authErrors,
        409: { description: "A record with this key exists", ...json(errorResponse) },
        ...outcomeUnknown,
      },
    });
    registry.registerPath({
      method: "put",
      path: `/api/v1/${collection}/{key}`,
      summary: `Update a ${entity} record (editor); send the revision you read`,
      tags: ["curation"],
      security: secured,
      request: {
        params: key,
        headers: idempotency,
        body: {
          required: true,
          ...json(z.intersection(record, z.object({ revision: z.number().int() }))),
        },
      },
      responses: {
        200: { description: "Updated; the item carries its new revision", ...json(edited) },
        ...errors,
        ...authErrors,
        404: { description: "No such record", ...json(errorResponse) },
        409: {
          description: "Stale revision: someone changed the record since you read it",
          ...json(errorResponse),
        },
        ...outcomeUnknown,
      },
    });
    registry.registerPath({
      method: "delete",
      path: `/api/v1/${collection}/{key}`,
      summary: `Retire a ${entity} record (editor); send the revision you read`,
      tags: ["curation"],
      security: secured,
      request: {
        params: key,
        headers: idempotency,
        query: z.object({ revision: z.number().int().openapi({ example: 1 }) }),
      },
      responses: {
        200: {
          description: "Retired",
          ...json(z.object({ key: z.string(), retired: z.boolean(), kbRevision })),
        },
        ...readErrors,
        ...authErrors,
        404: { description: "No such record", ...json(errorResponse) },
        409: { description: "Stale revision", ...json(errorResponse) },
        ...outcomeUnknown,
      },
    });
  }
}

export function registerAudit(registry: OpenAPIRegistry, secured: Security): void {
  registry.registerPath({
    method: "get",
    path: "/api/v1/audit",
    summary: "The audit trail, newest first (admin)",
    tags: ["curation"],
    security: secured,
    request: {
      query: z.object({
        entity: text("e.g. apiRemovals, kb, token"),
        key: text("A record's natural key"),
        actor: text("Token name"),
        limit: z.number().int().optional().openapi({ description: "1-500, default 100" }),
        before: z
          .number()
          .int()
          .optional()
          .openapi({ description: "Entries with a smaller id (paging)" }),
      }),
    },
    responses: {
      200: {
        description: "Entries",
        ...json(
          z.object({
            items: z.array(
              z
                .object({
                  id: z.number().int(),
                  at: z.string(),
                  actor: z.string(),
                  actorRole: z.string(),
                  action: z.string(),
                  entity: z.string(),
                  key: z.string(),
                  before: z.unknown(),
                  after: z.unknown(),
                  kbRevision: z.number().int(),
                })
                .openapi("AuditEntry"),
            ),
            kbRevision,
          }),
        ),
      },
      ...readErrors,
      ...authErrors,
    },
  });
}

/** The knowledge base out as kb/ files or for Pluto, and in as a bundle. */
export function registerKbExchange(registry: OpenAPIRegistry, secured: Security): void {
  registry.registerPath({
    method: "get",
    path: "/api/v1/kb/export",
    summary:
      "The knowledge base in the YAML layout of kb/ (one document per file), or one file with ?file=",
    tags: ["curation"],
    request: { query: z.object({ file: text("e.g. api-removals.yaml", "api-removals.yaml") }) },
    responses: {
      200: { description: "YAML", content: { "application/yaml": { schema: z.string() } } },
      ...readErrors,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/kb/export/pluto",
    summary:
      "Every API removal in Pluto's versions.yaml format; Pluto refuses entries it has built in, so POST its list to leave those out",
    tags: ["curation"],
    responses: {
      200: { description: "YAML", content: { "application/yaml": { schema: z.string() } } },
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/kb/export/pluto",
    summary: "The API removals your Pluto lacks, for pluto --additional-versions",
    description:
      "The body is what `pluto list-versions -o json` (or `-o yaml`) prints: the entries Pluto has built in. They are left out (Pluto refuses a file that repeats one), and where they disagree with kubecompat on a release the file's comments say so. No target-versions are written: Pluto keeps its own for k8s; choose the target with `-t k8s=v1.NN.0`. The header X-Kubecompat-Pluto-Left-Out counts the entries left out.",
    tags: ["curation"],
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.object({
              "deprecated-versions": z.array(
                z.object({ version: z.string(), kind: z.string() }).passthrough(),
              ),
              "target-versions": z.record(z.string(), z.string()).optional(),
            }),
          },
          "application/yaml": { schema: z.string() },
        },
      },
    },
    responses: {
      200: {
        description: "YAML for pluto -f",
        content: { "application/yaml": { schema: z.string() } },
      },
      400: { description: "Not Pluto's list: the field to fix is named", ...json(errorResponse) },
      415: { description: "No body, or not JSON or YAML", ...json(errorResponse) },
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/kb/import",
    summary: "Import a whole bundle, all or nothing (admin)",
    description:
      'The YAML stream of /api/v1/kb/export (Content-Type: application/yaml), or JSON {"files": {"ports.yaml": "..."}}. Every invalid record is reported (422) and nothing is written.',
    tags: ["curation"],
    security: secured,
    request: {
      body: {
        required: true,
        content: {
          "application/yaml": { schema: z.string() },
          "application/json": { schema: z.object({ files: z.record(z.string(), z.string()) }) },
        },
      },
    },
    responses: {
      200: {
        description: "What changed",
        ...json(
          z.object({
            changed: z.boolean(),
            revisionBefore: z.number().int(),
            kbRevision,
            changes: z.array(
              z.object({
                entity: z.string(),
                key: z.string(),
                action: z.string(),
                fields: z.array(z.string()).optional(),
              }),
            ),
          }),
        ),
      },
      ...errors,
      ...authErrors,
      422: { description: "Invalid records; details list each", ...json(errorResponse) },
    },
  });
}
