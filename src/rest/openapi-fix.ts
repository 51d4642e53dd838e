/**
 * POST /api/v1/fix in the OpenAPI document: the manifests rewritten where the target removes their APIs,
 * asked as JSON or as the raw YAML with the other fields in the query string (src/rest/fix-route.ts).
 */
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { fixRequest, manifestFixReport } from "../http/schemas/fix-requests.js";
import { z } from "../http/schemas/openapi-zod.js";
import { errors, json, text } from "./openapi-responses.js";

export function registerFix(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "post",
    path: "/api/v1/fix",
    summary: "Rewrite manifests' removed APIs to their replacements",
    description:
      "JSON {manifests, targetVersion, fromVersion?, allowLossy?, fileName?}, or the raw YAML with Content-Type: application/yaml and the other fields in the query string. Nothing is written on the server: the answer holds the rewritten text, a unified diff, each object of a removed API with its status (FIXED or NOT_FIXED and why) and its edits, and the scan of the rewritten text.",
    tags: ["checks"],
    request: {
      query: z.object({
        targetVersion: text("Required with a YAML body", "1.22"),
        fromVersion: text("With a YAML body: the version the cluster runs now", "1.19"),
        allowLossy: text("With a YAML body: true to apply lossy conversions", "false"),
        fileName: text("With a YAML body: the file name the diff names", "ingress.yaml"),
      }),
      body: {
        required: true,
        content: {
          "application/json": { schema: fixRequest },
          "application/yaml": { schema: z.string() },
        },
      },
    },
    responses: {
      200: {
        description: "The rewritten manifests, the diff, each object's fix, the scan after",
        ...json(manifestFixReport),
      },
      ...errors,
    },
  });
}
