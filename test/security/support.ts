/**
 * The hostile corpus's shared parts: what a case is (one input and the
 * answer it must get), how it is sent and how the answer is judged. Every
 * case must get its status and its stable error code (REST
 * `{"error": {"code"}}`, GraphQL `errors[].extensions.code`), within a
 * deadline that only catches hangs; a case that expects success states what
 * the success must hold.
 */
import assert from "node:assert/strict";
import type { Express } from "express";
import request from "supertest";

export type Role = "reader" | "editor" | "admin";
/** Tokens a case can send: a role's token, a revoked one, or the Authorization header verbatim. */
export type Credential = Role | "revoked" | { readonly header: string };

export interface HostileCase {
  readonly name: string;
  readonly method?: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  readonly path: string;
  /** A string or Buffer is sent as it is; anything else as JSON. A function builds a large body only when the case runs. */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: Credential;
  readonly status: number;
  /** The stable code; null when the case must succeed (then `check` says what the answer holds). */
  readonly code: string | null;
  /** Must match the message of the error with `code`. */
  readonly message?: RegExp;
  /** Must match no error message (schema details that production hides). */
  readonly notMessage?: RegExp;
  /** The field the error names (REST `details[].field`, GraphQL `extensions.field`). */
  readonly field?: string;
  readonly check?: (body: unknown) => void;
}

/** Generous: these bound hangs, they are not performance assertions. */
export const DEADLINE_MS = 30_000;

export const SQL = `'; DROP TABLE "ApiRemoval"; --`;

/** Some of each kind of trouble for a string field. */
export const NASTY_TEXT = {
  nul: "kube\u0000let",
  rtlOverride: "kubelet\u202e",
  emoji: "kubelet\u{1F600}",
  zeroWidth: "kube\u200blet",
  loneSurrogate: "\ud800",
  bom: "kube\ufefflet",
  newline: "kube\nlet",
} as const;

export function deepArrays(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

export function deepObjects(depth: number): string {
  return '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** A value nested `depth` levels deep, as a JS value (for bodies that are otherwise valid). */
export function nested(depth: number): unknown {
  let value: unknown = "x";
  for (let level = 0; level < depth; level += 1) value = { inner: value };
  return value;
}

export function graphqlCase(
  name: string,
  query: string,
  expected: Omit<HostileCase, "name" | "path" | "method" | "body">,
  variables?: Record<string, unknown>,
  operationName?: string,
): HostileCase {
  return {
    name,
    method: "POST",
    path: "/graphql",
    body: { query, variables, operationName },
    ...expected,
  };
}

function authorization(
  credential: Credential | undefined,
  tokens: Readonly<Record<Role | "revoked", string>>,
): string | undefined {
  if (credential === undefined) return undefined;
  if (typeof credential === "object") return credential.header;
  return `Bearer ${tokens[credential]}`;
}

export async function send(
  app: Express,
  hostile: HostileCase,
  tokens: Readonly<Record<Role | "revoked", string>>,
): Promise<request.Response> {
  const method = hostile.method ?? "GET";
  let test = request(app)[
    method === "PATCH" ? "patch" : (method.toLowerCase() as "get" | "post" | "put" | "delete")
  ](hostile.path);
  test = test.timeout({ deadline: DEADLINE_MS });
  const header = authorization(hostile.auth, tokens);
  if (header !== undefined) test = test.set("Authorization", header);
  for (const [name, value] of Object.entries(hostile.headers ?? {})) test = test.set(name, value);
  const body =
    typeof hostile.body === "function" ? (hostile.body as () => unknown)() : hostile.body;
  if (body === undefined) {
    if (hostile.contentType !== undefined) test = test.set("Content-Type", hostile.contentType);
    return test;
  }
  if (typeof body === "string" || Buffer.isBuffer(body)) {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8");
    // Bytes exactly as given: superagent would otherwise serialise a Buffer as JSON for JSON-ish types.
    test = test.serialize((data: unknown) => data as string);
    // "none": the request carries no Content-Type at all.
    if (hostile.contentType === "none") return test.unset("Content-Type").send(bytes);
    return test.set("Content-Type", hostile.contentType ?? "application/json").send(bytes);
  }
  return test
    .set("Content-Type", hostile.contentType ?? "application/json")
    .send(JSON.stringify(body));
}

interface ErrorView {
  readonly code: unknown;
  readonly message: unknown;
  readonly field: unknown;
}

/** The errors of an answer, REST or GraphQL, in one shape. */
export function errorsOf(body: unknown): ErrorView[] {
  const answer = body as {
    error?: { code?: unknown; message?: unknown; details?: Array<{ field?: unknown }> };
    errors?: Array<{ message?: unknown; extensions?: { code?: unknown; field?: unknown } }>;
  };
  if (answer?.error !== undefined) {
    return [
      {
        code: answer.error.code,
        message: answer.error.message,
        field: answer.error.details?.map((detail) => detail.field) ?? [],
      },
    ];
  }
  return (answer?.errors ?? []).map((error) => ({
    code: error.extensions?.code,
    message: error.message,
    field: error.extensions?.field,
  }));
}

export function assertAnswer(hostile: HostileCase, response: request.Response): void {
  const where = `${hostile.method ?? "GET"} ${hostile.path.slice(0, 120)} → ${response.status} ${response.text.slice(0, 400)}`;
  assert.ok(response.status < 500, `a hostile input must never get a 5xx: ${where}`);
  assert.equal(response.status, hostile.status, where);
  const errors = errorsOf(response.body);
  if (hostile.code === null) {
    assert.deepEqual(errors, [], where);
    assert.ok(
      hostile.check !== undefined,
      `case "${hostile.name}" expects success, so it must say what the answer holds`,
    );
  } else {
    assert.match(String(response.headers["content-type"]), /^application\/json/, where);
    const matching = errors.filter(
      (error) =>
        error.code === hostile.code &&
        (hostile.message === undefined || hostile.message.test(String(error.message))),
    );
    assert.ok(
      matching.length > 0,
      `expected an error with code ${hostile.code}${hostile.message ? ` and a message matching ${hostile.message}` : ""}: ${where}`,
    );
    if (hostile.field !== undefined) {
      const fields = matching.flatMap((error): unknown[] =>
        Array.isArray(error.field) ? (error.field as unknown[]) : [error.field],
      );
      assert.ok(
        fields.includes(hostile.field),
        `expected the error to name field ${hostile.field}, it names ${JSON.stringify(fields)}: ${where}`,
      );
    }
  }
  if (hostile.notMessage !== undefined) {
    for (const error of errors)
      assert.doesNotMatch(String(error.message), hostile.notMessage, where);
  }
  hostile.check?.(response.body);
}
