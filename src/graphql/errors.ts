/**
 * The GraphQL half of error mapping (the REST error middleware is the
 * other): KubecompatErrors keep their message and get their stable code in
 * `extensions.code` (and the field to fix in `extensions.field`); GraphQL's
 * own validation errors pass through; anything else is logged and masked.
 */
import type { GraphQLFormattedError } from "graphql";
import { unwrapResolverError } from "@apollo/server/errors";
import { describeError, INTERNAL_CODE } from "../http/errors.js";

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

/** Whether an error reaching formatError is one of ours (or the database's) rather than GraphQL's own or a bug. */
function describedOf(error: unknown): ReturnType<typeof describeError> | undefined {
  const described = describeError(unwrapResolverError(error));
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
    const described = describedOf(error);
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

/** GraphQL's own parse and validation errors carry a code other than the internal one and no original error of ours. */
function isGraphQLOwnError(formatted: GraphQLFormattedError, error: unknown): boolean {
  const code = formatted.extensions?.code;
  return typeof code === "string" && code !== INTERNAL_CODE && describedOf(error) === undefined;
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
