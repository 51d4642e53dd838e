/** Validates request bodies and query strings against the zod schemas of src/http/schemas/. */
import type { Request } from "express";
import type { z } from "zod";
import { InputError, UnsupportedMediaTypeError } from "../core/errors.js";
import { inputErrorFrom } from "../http/input.js";

export { fieldPath, inputErrorFrom } from "../http/input.js";

/**
 * The query parameters of a route that takes only `allowed` ones, each given
 * once. Anything else is refused: `POST /validate?profile=strict` must not
 * quietly judge by the default profile.
 */
export function queryParameters(
  req: Request,
  allowed: readonly string[] = [],
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (!allowed.includes(name)) {
      throw new InputError(
        `unknown query parameter "${JSON.stringify(name).slice(1, -1).slice(0, 60)}"; this route takes ${allowed.length > 0 ? `only ${allowed.join(", ")}` : "none: its input is the JSON body"}`,
        name.slice(0, 60),
      );
    }
    if (typeof value !== "string")
      throw new InputError(`query parameter ${name} is given more than once; give it once`, name);
    values[name] = value;
  }
  return values;
}

export function parseJsonBody<T extends z.ZodType>(schema: T, req: Request): z.infer<T> {
  if (!req.is("application/json")) {
    throw new UnsupportedMediaTypeError(
      `this route takes a JSON body: send Content-Type: application/json (got ${req.headers["content-type"] ?? "no Content-Type"})`,
    );
  }
  queryParameters(req);
  const parsed = schema.safeParse(req.body);
  if (!parsed.success) throw inputErrorFrom(parsed.error, "body");
  return parsed.data;
}
