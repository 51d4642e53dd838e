/**
 * The HTTP half of error mapping for every face but GraphQL's answers (REST,
 * chat, the pages, and the refusals before Apollo; GraphQL's formatError is
 * the other half); what an error means is describeError's (src/http/errors.ts):
 * this only writes
 * `{"error": {"code", "message", "details"?}}` with its status, and logs an
 * internal error with the request id. Errors of requests to
 * /graphql that never reach Apollo (a body too large or not JSON) are
 * answered in GraphQL's `{"errors": [...]}` shape instead.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import type { Logger } from "../core/logger.js";
import { MethodNotAllowedError, NotFoundError } from "../core/errors.js";
import { describeError, detailsOf, errorBody } from "./errors.js";
import { pathOf, type RouteTable } from "./route-table.js";

/**
 * An error body in the shape of the API the request was for: under /graphql
 * GraphQL's `{"errors": [{"message", "extensions": {"code"}}]}`, so a GraphQL
 * client can read a refused body (too large, not JSON) or a rate limit like
 * any other error; elsewhere `{"error": {"code", "message", "details"?}}`.
 */
export function errorBodyFor(
  req: Request,
  code: string,
  message: string,
  details?: unknown,
): object {
  const path = pathOf(req);
  if (path === "/graphql" || path.startsWith("/graphql/")) {
    return {
      errors: [{ message, extensions: details === undefined ? { code } : { code, details } }],
    };
  }
  return errorBody(code, message, details);
}

/**
 * What no route answered: a path that exists under another method is a MethodNotAllowedError
 * with `Allow` (OPTIONS gets just the `Allow`), anything else a NotFoundError; both are written
 * by errorMiddleware like every other error.
 */
export function notFoundHandler(routes?: RouteTable): RequestHandler {
  return (req, res, next) => {
    const path = pathOf(req);
    const route = routes?.match(req.method, path);
    if (route !== undefined && !route.allowed.includes(req.method)) {
      res.setHeader("Allow", [...route.allowed, "OPTIONS"].join(", "));
      if (req.method === "OPTIONS") {
        res.status(204).end();
        return;
      }
      next(
        new MethodNotAllowedError(
          `${path} does not take ${req.method}; it takes ${route.allowed.join(", ")}`,
          route.allowed,
        ),
      );
      return;
    }
    next(new NotFoundError(`no route ${req.method} ${path}; see /api/v1 for the routes`));
  };
}

export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (caught: unknown, req, res, _next) => {
    if (res.headersSent) return;
    const described = describeError(caught);
    if (described.internal)
      logger.error({ err: caught, requestId: res.getHeader("x-request-id") }, "unhandled error");
    if (described.retryAfterSeconds !== null)
      res.setHeader("Retry-After", String(described.retryAfterSeconds));
    const details = detailsOf(described);
    res
      .status(described.status)
      .json(errorBodyFor(req, described.code, described.message, details));
  };
}
