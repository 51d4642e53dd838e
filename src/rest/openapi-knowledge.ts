/**
 * The knowledge-base reads of the OpenAPI document: one list per kind of
 * record (with the filters read-routes.ts parses), the summary, one component
 * and one release. The paths follow the entity registry, so a new kind of
 * knowledge appears here without an edit.
 */
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import type { EntityName } from "../knowledge/records.js";
import { ENTITIES, ENTITY_NAMES } from "../knowledge/registry.js";
import { errorResponse } from "../http/schemas/answers.js";
import { agedCoverage, kbSummary, list, records } from "../http/schemas/knowledge-records.js";
import { z } from "../http/schemas/openapi-zod.js";
import { json, notModified, readErrors, text } from "./openapi-responses.js";

const query = (shape: Record<string, z.ZodType>) => z.object(shape);

/** The lists of every kind of record, GET /api/v1/<collection>. */
export function registerRecordLists(registry: OpenAPIRegistry): void {
  // The filters each list accepts (read-routes.ts parses the same); a kind without an entry is listed whole.
  const filters: Partial<Record<EntityName, z.ZodObject>> = {
    components: query({ plane: text("CONTROL, DATA or CLIENT", "DATA") }),
    ports: query({ component: text("Component name or alias", "kubelet") }),
    skewRules: query({
      kubernetesVersion: text("Control-plane version", "1.30"),
      profile: text("upstream (default) or strict", "upstream"),
    }),
    apiRemovals: query({
      from: text("Exclusive lower bound", "1.25"),
      to: text("Inclusive upper bound", "1.29"),
    }),
    flagChanges: query({ component: text("Component name or alias", "kubelet") }),
    coverage: query({
      asOf: text(
        "The day ages and staleness are judged on, YYYY-MM-DD (default today)",
        "2026-12-06",
      ),
    }),
  };
  const reads = ENTITY_NAMES.map((entity) => ({
    path: `/api/v1/${ENTITIES[entity].collection}`,
    summary: ENTITIES[entity].title,
    item: entity === "coverage" ? agedCoverage : recordSchemaOf(entity),
    name: `${ENTITIES[entity].typeName}List`,
    query: filters[entity],
  }));
  for (const read of reads) {
    registry.registerPath({
      method: "get",
      path: read.path,
      summary: read.summary,
      tags: ["knowledge base"],
      request: read.query ? { query: read.query } : undefined,
      responses: {
        200: {
          description: "The list and the knowledge-base revision (also the ETag).",
          ...json(list(read.item, read.name)),
        },
        ...notModified,
        ...readErrors,
      },
    });
  }
}

/** The summary of the knowledge base, one component and one release. */
export function registerKnowledgeBaseReads(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/api/v1/kb",
    summary: "Knowledge-base revision, last import and counts",
    tags: ["knowledge base"],
    responses: { 200: { description: "Summary", ...json(kbSummary) }, ...notModified },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/components/{name}",
    summary: "One component by name or alias (case-insensitive)",
    tags: ["knowledge base"],
    request: { params: z.object({ name: z.string().openapi({ example: "apiserver" }) }) },
    responses: {
      200: { description: "The component", ...json(records.Component) },
      ...notModified,
      404: { description: "Unknown component", ...json(errorResponse) },
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/releases/{version}",
    summary:
      "One release by minor (1.30, v1.30.2, latest, oldest-supported), with its status on a date",
    tags: ["knowledge base"],
    request: {
      params: z.object({
        version: z.string().openapi({
          example: "1.30",
          description:
            "A minor or version, or latest (the newest released minor) or oldest-supported (the oldest minor still patched on asOf).",
        }),
      }),
      query: z.object({
        asOf: z.string().optional().openapi({
          description: "The day to judge on, YYYY-MM-DD (default today).",
          example: "2026-11-29",
        }),
      }),
    },
    responses: {
      200: {
        description:
          "The release, with status on asOf (SUPPORTED, MAINTENANCE: past the end of standard support, critical fixes only; END_OF_LIFE; NOT_YET_RELEASED; UNKNOWN: released but the calendar has no dates) and the oldest and newest minors still patched that day",
        ...json(
          z.intersection(
            records.Release,
            z.object({
              support: z
                .object({
                  status: z.enum([
                    "SUPPORTED",
                    "MAINTENANCE",
                    "END_OF_LIFE",
                    "NOT_YET_RELEASED",
                    "UNKNOWN",
                  ]),
                  asOf: z.string(),
                  oldestSupported: z.string().nullable(),
                  newestSupported: z.string().nullable(),
                })
                .openapi({
                  description:
                    "Computed from the calendar, not part of the record (an edit that sends it back has it ignored).",
                }),
              kbRevision: z.number().int(),
            }),
          ),
        ),
      },
      ...notModified,
      ...readErrors,
      404: { description: "Unknown release", ...json(errorResponse) },
    },
  });
}

/**
 * A kind's record schema as OpenAPI names it: the hand-described one of
 * src/http/schemas/knowledge-records.ts, else the registry's schema under its type name.
 */
export function recordSchemaOf(entity: EntityName): z.ZodType {
  const { typeName, schema } = ENTITIES[entity];
  const described = (records as Readonly<Record<string, z.ZodType | undefined>>)[typeName];
  return described ?? (schema as unknown as { clone(): z.ZodType }).clone().openapi(typeName);
}
