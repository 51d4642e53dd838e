/**
 * The REST half of error mapping (GraphQL's formatError is the other):
 * KubecompatErrors become `{"error": {"code", "message", "details"?}}` with a
 * fitting status; body-parser failures become 400/413/415; anything else is
 * logged with the request id and masked as INTERNAL. Errors of requests to
 * /graphql that never reach Apollo (a body too large or not JSON) are
 * answered in GraphQL's `{"errors": [...]}` shape instead.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import { asUnavailable } from "../db/unavailable.js";
import { KubecompatError, UnavailableError } from "../errors.js";
import type { Logger } from "../logger.js";
import { pathOf, type RouteTable } from "./route-table.js";

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  KB_INVALID: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNAVAILABLE: 503,
};

/** Codes for the 4xx answers of Express's own parts (a refused static path is a 403, not a "bad request"). */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  416: "RANGE_NOT_SATISFIABLE",
};

interface HttpParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  message?: string;
  limit?: number;
}

export function errorBody(code: string, message: string, details?: unknown): { error: Record<string, unknown> } {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/**
 * An error body in the shape of the API the request was for: under /graphql
 * GraphQL's `{"errors": [{"message", "extensions": {"code"}}]}`, so a GraphQL
 * client can read a refused body (too large, not JSON) or a rate limit like
 * any other error; elsewhere `{"error": {"code", "message", "details"?}}`.
 */
export function errorBodyFor(req: Request, code: string, message: string, details?: unknown): object {
  const path = req.originalUrl.split("?")[0] ?? "";
  if (path === "/graphql" || path.startsWith("/graphql/")) {
    return { errors: [{ message, extensions: details === undefined ? { code } : { code, details } }] };
  }
  return errorBody(code, message, details);
}

/**
 * What no route answered: a path that exists under another method is 405 with `Allow` (OPTIONS
 * gets just the `Allow`), anything else 404.
 */
export function notFoundHandler(routes?: RouteTable): RequestHandler {
  return (req, res) => {
    const path = pathOf(req);
    const route = routes?.match(req.method, path);
    if (route !== undefined && !route.allowed.includes(req.method)) {
      const allow = [...route.allowed, "OPTIONS"].join(", ");
      res.setHeader("Allow", allow);
      if (req.method === "OPTIONS") {
        res.status(204).end();
        return;
      }
      res.status(405).json(errorBodyFor(req, "METHOD_NOT_ALLOWED", `${path} does not take ${req.method}; it takes ${route.allowed.join(", ")}`));
      return;
    }
    res.status(404).json(errorBody("NOT_FOUND", `no route ${req.method} ${path}; see /api/v1 for the routes`));
  };
}

export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (caught: unknown, req, res, _next) => {
    if (res.headersSent) return;
    const error = caught instanceof KubecompatError ? caught : (asUnavailable(caught) ?? caught);
    if (error instanceof KubecompatError) {
      if (error instanceof UnavailableError && error.retryAfterSeconds !== null) res.setHeader("Retry-After", String(error.retryAfterSeconds));
      const status = STATUS_BY_CODE[error.code] ?? 400;
      const details = error.details.length > 0 ? error.details : undefined;
      const field = "field" in error && typeof error.field === "string" ? error.field : undefined;
      res.status(status).json(errorBodyFor(req, error.code, error.message, details ?? (field ? [{ field, message: error.message }] : undefined)));
      return;
    }
    const parserError = error as HttpParserError;
    if (parserError.type === "entity.too.large") {
      res.status(413).json(errorBodyFor(req, "PAYLOAD_TOO_LARGE", `the request body is larger than the limit of ${parserError.limit ?? "?"} bytes`));
      return;
    }
    if (parserError.type === "entity.parse.failed") {
      res.status(400).json(errorBodyFor(req, "BAD_USER_INPUT", `the request body is not valid JSON: ${parserError.message ?? ""}`));
      return;
    }
    if (parserError.type === "charset.unsupported" || parserError.type === "encoding.unsupported") {
      res.status(415).json(errorBodyFor(req, "UNSUPPORTED_MEDIA_TYPE", parserError.message ?? "unsupported encoding"));
      return;
    }
    // A route parameter that is not valid percent-encoding (`/components/%E0%A4%A`): the router says 400 but does not expose it.
    if (error instanceof URIError) {
      res.status(400).json(errorBodyFor(req, "BAD_USER_INPUT", `the URL is not valid percent-encoding (${error.message}); encode % as %25`));
      return;
    }
    if (typeof parserError.status === "number" && parserError.status >= 400 && parserError.status < 500 && parserError.expose) {
      res.status(parserError.status).json(errorBodyFor(req, CODE_BY_STATUS[parserError.status] ?? "BAD_REQUEST", parserError.message ?? "bad request"));
      return;
    }
    logger.error({ err: error, requestId: res.getHeader("x-request-id") }, "unhandled error");
    res.status(500).json(errorBodyFor(req, "INTERNAL", "internal error; it has been logged with the request id in the X-Request-Id header"));
  };
}
