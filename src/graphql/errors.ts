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

export function formatGraphQLError(logger: Logger) {
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
      return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
    }
    logger.error({ err: original }, "unhandled GraphQL error");
    return { message: "internal error; it has been logged", path: formatted.path, extensions: { code: "INTERNAL_SERVER_ERROR" } };
  };
}
