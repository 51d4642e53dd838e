/**
 * What an error means on the wire, decided once for every face: the HTTP status, the stable code, the
 * message a client may see, the details and field to fix, how long to wait before a retry, and whether it
 * is an internal error (masked, and logged with the request id). The Express error middleware and
 * Apollo's formatError are the only two places that map errors; both call describeError, so a code is the
 * same over REST and GraphQL, INTERNAL_SERVER_ERROR included. One body shape for REST and chat: errorBody.
 */
import { asKnownError } from "../services/failures.js";
import {
  InputError,
  KubecompatError,
  RateLimitedError,
  UnavailableError,
  type ErrorDetail,
} from "../core/errors.js";

export const INTERNAL_CODE = "INTERNAL_SERVER_ERROR";

export interface DescribedError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details: readonly ErrorDetail[] | undefined;
  /** The input field to fix, for an input error that names one. */
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | null;
  /** A bug or an unknown failure: the message is masked and the error must be logged with the request id. */
  readonly internal: boolean;
}

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  KB_INVALID: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
};

/** Codes for the 4xx answers of Express's own parts (a refused static path is a 403, not a "bad request"). */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  416: "RANGE_NOT_SATISFIABLE",
};

/** What body-parser and http-errors put on the errors they raise. */
interface HttpParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  message?: string;
  limit?: number;
}

function known(
  status: number,
  code: string,
  message: string,
  details?: readonly ErrorDetail[],
  field?: string,
  retryAfterSeconds: number | null = null,
): DescribedError {
  return {
    status,
    code,
    message,
    details: details !== undefined && details.length > 0 ? details : undefined,
    field,
    retryAfterSeconds,
    internal: false,
  };
}

/**
 * Where the JSON went wrong, never what it said: the parser's own message quotes the body's first
 * bytes, which may be someone's secret sent to the wrong place, and would land in logs and proxies.
 */
function notJson(parserMessage: string | undefined): string {
  const position = /position (\d+)/.exec(parserMessage ?? "")?.[1];
  const end = /Unexpected end of JSON input/.test(parserMessage ?? "");
  const where = position !== undefined ? ` at byte ${position}` : end ? ": it ends too early" : "";
  return `the request body is not valid JSON${where}; send a JSON document with Content-Type: application/json`;
}

/** The status an error code answers with over HTTP (400 for a code of ours not listed). */
export function statusOfCode(code: string): number {
  return STATUS_BY_CODE[code] ?? 400;
}

export function describeError(caught: unknown): DescribedError {
  const error = asKnownError(caught);
  if (error instanceof KubecompatError) {
    const field = error instanceof InputError ? error.field : undefined;
    const retryAfter =
      error instanceof UnavailableError || error instanceof RateLimitedError
        ? error.retryAfterSeconds
        : null;
    return known(
      statusOfCode(error.code),
      error.code,
      error.message,
      error.details,
      field,
      retryAfter,
    );
  }
  const parserError = (error ?? {}) as HttpParserError;
  if (parserError.type === "entity.too.large")
    return known(
      413,
      "PAYLOAD_TOO_LARGE",
      `the request body is larger than the limit of ${parserError.limit ?? "?"} bytes`,
    );
  if (parserError.type === "entity.parse.failed")
    return known(400, "BAD_USER_INPUT", notJson(parserError.message));
  if (parserError.type === "charset.unsupported" || parserError.type === "encoding.unsupported")
    return known(415, "UNSUPPORTED_MEDIA_TYPE", parserError.message ?? "unsupported encoding");
  // A route parameter that is not valid percent-encoding (`/components/%E0%A4%A`): the router says 400 but does not expose it.
  if (error instanceof URIError)
    return known(
      400,
      "BAD_USER_INPUT",
      `the URL is not valid percent-encoding (${error.message}); encode % as %25`,
    );
  if (
    typeof parserError.status === "number" &&
    parserError.status >= 400 &&
    parserError.status < 500 &&
    parserError.expose === true
  ) {
    return known(
      parserError.status,
      CODE_BY_STATUS[parserError.status] ?? "BAD_REQUEST",
      parserError.message ?? "bad request",
    );
  }
  return {
    status: 500,
    code: INTERNAL_CODE,
    message: "internal error; it has been logged with the request id in the X-Request-Id header",
    details: undefined,
    field: undefined,
    retryAfterSeconds: null,
    internal: true,
  };
}

/** The details a body carries: the error's own, else the one field it names (an InputError of the domain). */
export function detailsOf(described: DescribedError): readonly ErrorDetail[] | undefined {
  return (
    described.details ??
    (described.field !== undefined
      ? [{ field: described.field, message: described.message }]
      : undefined)
  );
}

/** The one JSON error body of REST and chat: `{"error": {"code", "message", "details"?}}`. */
export function errorBody(
  code: string,
  message: string,
  details?: unknown,
): { error: Record<string, unknown> } {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}
