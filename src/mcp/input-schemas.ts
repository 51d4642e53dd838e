/**
 * A question's zod schema as the JSON Schema an MCP tool lists: made by the
 * same generator as the OpenAPI document, so the descriptions and examples
 * an agent reads are the ones REST's users read. Named parts (a component's
 * version, a node pool) are kept once under `$defs`; OpenAPI's `example`
 * becomes JSON Schema's `examples`.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import type { z } from "zod";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Rewrites OpenAPI's component references and examples into JSON Schema's words. */
function asJsonSchema(value: Json): Json {
  if (Array.isArray(value)) return value.map(asJsonSchema);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$ref" && typeof inner === "string")
      out.$ref = inner.replace("#/components/schemas/", "#/$defs/");
    else if (key === "example") out.examples = [asJsonSchema(inner)];
    else out[key] = asJsonSchema(inner);
  }
  return out;
}

const INPUT = "ToolInput";

export function inputJsonSchema(schema: z.ZodType): { type: "object"; [key: string]: unknown } {
  const registry = new OpenAPIRegistry();
  registry.register(INPUT, schema);
  const generated = new OpenApiGeneratorV31(registry.definitions).generateComponents();
  const schemas = (generated.components?.schemas ?? {}) as { [name: string]: Json };
  const { [INPUT]: input, ...named } = schemas;
  const root = asJsonSchema(input ?? {}) as { [key: string]: Json };
  const defs = asJsonSchema(named) as { [key: string]: Json };
  return {
    ...root,
    type: "object",
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
}
