/** Validates request bodies and query strings against the zod schemas of src/http/schemas/. */
import type { Request } from "express";
import type { z } from "zod";
import { InputError, UnsupportedMediaTypeError } from "../core/errors.js";

/** `components.0.version` → `components[0].version`, the way the domain names fields. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, segment) =>
      typeof segment === "number"
        ? `${text}[${segment}]`
        : text
          ? `${text}.${String(segment)}`
          : String(segment),
    "",
  );
}

export function inputErrorFrom(error: z.ZodError, where: string): InputError {
  const details = error.issues.slice(0, 20).map((issue) => {
    const field = fieldPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      return {
        field: field || where,
        message: `unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((key) => `"${key}"`).join(", ")}`,
      };
    }
    // zod says "expected string, received undefined" for a missing field; say what a person would.
    const missing = issue.code === "invalid_type" && /received undefined/.test(issue.message);
    return {
      field: field || where,
      message: `${field || where}: ${missing ? `is required (${issue.expected})` : issue.message}`,
    };
  });
  const first = details[0]!;
  const more =
    error.issues.length > 1
      ? ` (and ${error.issues.length - 1} more problem${error.issues.length === 2 ? "" : "s"})`
      : "";
  return new InputError(
    `${first.message.startsWith(first.field ?? "") ? first.message : `${first.field}: ${first.message}`}${more}`,
    first.field,
    details,
  );
}

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
