/**
 * Input checked against the zod schemas of ./schemas/, with the errors every
 * face gives for it: the first problem named by its field the way the domain
 * names fields (`components[0].version`), the others counted and listed in
 * the details. REST's bodies and query strings and MCP's tool arguments go
 * through here, so one bad input gets one message on every face.
 */
import type { z } from "zod";
import { InputError } from "../core/errors.js";

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

/** `value` checked against `schema`; `where` names the input as a whole ("body", "arguments"). */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: string,
): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw inputErrorFrom(parsed.error, where);
  return parsed.data;
}
