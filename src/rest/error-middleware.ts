/**
 * The REST half of error mapping (GraphQL's formatError is the other):
 * KubecompatErrors become `{"error": {"code", "message", "details"?}}` with a
 * fitting status; body-parser failures become 400/413/415; anything else is
 * logged with the request id and masked as INTERNAL.
 */
import type { ErrorRequestHandler, RequestHandler } from "express";
import { asUnavailable } from "../db/unavailable.js";
import { KubecompatError } from "../errors.js";
import type { Logger } from "../logger.js";

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

export function notFoundHandler(): RequestHandler {
  return (req, res) => {
    res.status(404).json(errorBody("NOT_FOUND", `no route ${req.method} ${req.path}; see /api/v1 for the routes`));
  };
}

export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (caught: unknown, req, res, _next) => {
    if (res.headersSent) return;
    const error = caught instanceof KubecompatError ? caught : (asUnavailable(caught) ?? caught);
    if (error instanceof KubecompatError) {
      if (error.code === "UNAVAILABLE") res.setHeader("Retry-After", "5");
      const status = STATUS_BY_CODE[error.code] ?? 400;
      const details = error.details.length > 0 ? error.details : undefined;
      const field = "field" in error && typeof error.field === "string" ? error.field : undefined;
      res.status(status).json(errorBody(error.code, error.message, details ?? (field ? [{ field, message: error.message }] : undefined)));
      return;
    }
    const parserError = error as HttpParserError;
    if (parserError.type === "entity.too.large") {
      res.status(413).json(errorBody("PAYLOAD_TOO_LARGE", `the request body is larger than the limit of ${parserError.limit ?? "?"} bytes`));
      return;
    }
    if (parserError.type === "entity.parse.failed") {
      res.status(400).json(errorBody("BAD_USER_INPUT", `the request body is not valid JSON: ${parserError.message ?? ""}`));
      return;
    }
    if (parserError.type === "charset.unsupported" || parserError.type === "encoding.unsupported") {
      res.status(415).json(errorBody("UNSUPPORTED_MEDIA_TYPE", parserError.message ?? "unsupported encoding"));
      return;
    }
    if (typeof parserError.status === "number" && parserError.status >= 400 && parserError.status < 500 && parserError.expose) {
      res.status(parserError.status).json(errorBody("BAD_REQUEST", parserError.message ?? "bad request"));
      return;
    }
    logger.error({ err: error, requestId: res.getHeader("x-request-id") }, "unhandled error");
    res.status(500).json(errorBody("INTERNAL", "internal error; it has been logged with the request id in the X-Request-Id header"));
  };
}
