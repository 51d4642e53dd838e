/**
 * The GraphQL half of error mapping (the REST error middleware is the
 * other): KubecompatErrors keep their message and get their stable code in
 * `extensions.code` (and the field to fix in `extensions.field`); GraphQL's
 * own validation errors pass through; anything else is logged and masked.
 */
import type { GraphQLFormattedError } from "graphql";
import { unwrapResolverError } from "@apollo/server/errors";
import { asUnavailable } from "../db/unavailable.js";
import { InputError, KubecompatError } from "../errors.js";
import type { Logger } from "../logger.js";

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

export function formatGraphQLError(logger: Logger, options: { readonly production?: boolean } = {}) {
  const clientMessage = (message: string): string => {
    if (message === VALIDATION_ABORTED) return "the document is too large or repetitive to validate (too many fields to compare); send a smaller one";
    return options.production === true ? withoutSuggestions(message) : message;
  };
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const unwrapped = unwrapResolverError(error);
    const original = unwrapped instanceof KubecompatError ? unwrapped : (asUnavailable(unwrapped) ?? unwrapped);
    if (original instanceof KubecompatError) {
      return {
        message: original.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: {
          code: original.code,
          ...(original instanceof InputError && original.field !== undefined ? { field: original.field } : {}),
          ...(original.details.length > 0 ? { details: original.details } : {}),
        },
      };
    }
    const code = formatted.extensions?.code;
    // Parse and validation errors of the document itself are the caller's to fix and safe to show.
    if (typeof code === "string" && code !== "INTERNAL_SERVER_ERROR") {
      return { message: clientMessage(formatted.message), locations: formatted.locations, path: formatted.path, extensions: { code } };
    }
    logger.error({ err: original }, "unhandled GraphQL error");
    return { message: "internal error; it has been logged", path: formatted.path, extensions: { code: "INTERNAL_SERVER_ERROR" } };
  };
}
