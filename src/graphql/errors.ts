/**
 * The GraphQL half of error mapping (the HTTP error middleware is the
 * other): KubecompatErrors keep their message and get their stable code in
 * `extensions.code` (and the field to fix in `extensions.field`); GraphQL's
 * own validation errors pass through; anything else is logged and masked.
 * The HTTP status of a GraphQL answer is decided here too (statusOfErrors).
 */
import type { ApolloServerPlugin } from "@apollo/server";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { unwrapResolverError } from "@apollo/server/errors";
import { describeError, INTERNAL_CODE, statusOfCode } from "../http/errors.js";

/**
 * graphql-js's "Did you mean ...?" suggestions name fields, arguments, types
 * and enum values of the schema; graphql-armor masks only some of them (and
 * leaves "[Suggestion hidden]?" behind), and none in variable values.
 */
function withoutSuggestions(message: string): string {
  return message.replace(/\s*(?:Did you mean\b[^?]*\?|\[Suggestion hidden\]\??)/g, "");
}

/** graphql-js stops validating a document that would take too much work and says only this. */
const VALIDATION_ABORTED = "Validation aborted.";

/**
 * The error a resolver or a plugin threw: Apollo wraps both in a GraphQLError, a resolver's with its
 * path (unwrapResolverError), a plugin's (a refused mutation) without.
 */
function originalOf(error: unknown): unknown {
  const unwrapped = unwrapResolverError(error);
  return unwrapped instanceof GraphQLError && unwrapped.originalError !== undefined
    ? unwrapped.originalError
    : unwrapped;
}

/** Whether an error reaching formatError is one of ours (or the database's) rather than GraphQL's own or a bug. */
function describedOf(error: unknown): ReturnType<typeof describeError> | undefined {
  const described = describeError(originalOf(error));
  return described.internal ? undefined : described;
}

/**
 * Masks what is not the caller's to see. Logging is the errorLog plugin's (it has the request id, which
 * formatError does not).
 */
export function formatGraphQLError(options: { readonly production?: boolean } = {}) {
  const clientMessage = (message: string): string => {
    if (message === VALIDATION_ABORTED)
      return "the document is too large or repetitive to validate (too many fields to compare); send a smaller one";
    return options.production === true ? withoutSuggestions(message) : message;
  };
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    // A literal our scalar refused is still a fault of the document: it keeps graphql-js's code.
    const described = isDocumentError(formatted) ? undefined : describedOf(error);
    if (described !== undefined) {
      return {
        message: described.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: {
          code: described.code,
          ...(described.field !== undefined ? { field: described.field } : {}),
          ...(described.details !== undefined ? { details: described.details } : {}),
        },
      };
    }
    const code = formatted.extensions?.code;
    // Parse and validation errors of the document itself are the caller's to fix and safe to show.
    if (isGraphQLOwnError(formatted, error)) {
      return {
        message: clientMessage(formatted.message),
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: code as string },
      };
    }
    return {
      message: "internal error; it has been logged with the request id in the X-Request-Id header",
      path: formatted.path,
      extensions: { code: INTERNAL_CODE },
    };
  };
}

/** The codes Apollo gives a document that does not parse or validate, whatever refused it. */
const DOCUMENT_CODES: ReadonlySet<string> = new Set([
  "GRAPHQL_PARSE_FAILED",
  "GRAPHQL_VALIDATION_FAILED",
]);

function isDocumentError(formatted: GraphQLFormattedError): boolean {
  return DOCUMENT_CODES.has(String(formatted.extensions?.code));
}

/** GraphQL's own parse and validation errors carry a code other than the internal one and no original error of ours. */
function isGraphQLOwnError(formatted: GraphQLFormattedError, error: unknown): boolean {
  const code = formatted.extensions?.code;
  return (
    isDocumentError(formatted) ||
    (typeof code === "string" && code !== INTERNAL_CODE && describedOf(error) === undefined)
  );
}

/** Whether formatError masked this error: then it must be logged, with the request id. */
export function isInternalGraphQLError(
  error: GraphQLFormattedError | { readonly extensions?: Record<string, unknown> },
  original: unknown,
): boolean {
  if (describedOf(original) !== undefined) return false;
  const code = error.extensions?.code;
  return !(typeof code === "string" && code !== INTERNAL_CODE);
}

/**
 * Errors that say "wait" change a GraphQL answer's status as over REST, so clients and proxies retry:
 * an answer with no data refused by a rate limit is a 429, one that failed because the database is
 * away a 503 (with Retry-After). Other errors ride on the status GraphQL clients expect.
 */
const WAIT_CODES: ReadonlySet<string> = new Set(["RATE_LIMITED", "UNAVAILABLE"]);
const UNAVAILABLE_RETRY_SECONDS = "5";

export const statusOfErrors: ApolloServerPlugin = {
  requestDidStart() {
    return Promise.resolve({
      willSendResponse({ response }) {
        const body = response.body;
        if (body.kind !== "single" || body.singleResult.data != null) return Promise.resolve();
        const code = body.singleResult.errors
          ?.map((error) => error.extensions?.code)
          .find((candidate): candidate is string => WAIT_CODES.has(String(candidate)));
        if (code === undefined) return Promise.resolve();
        response.http.status = statusOfCode(code);
        if (code === "UNAVAILABLE" && !response.http.headers.has("retry-after"))
          response.http.headers.set("retry-after", UNAVAILABLE_RETRY_SECONDS);
        return Promise.resolve();
      },
    });
  },
};
