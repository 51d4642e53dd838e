/**
 * The one error hierarchy of kubecompat. Domain and knowledge-base code throw
 * these; what each means on the wire is decided once (describeError, src/http/errors.ts) and
 * written in one place per protocol: the HTTP error middleware (src/http/error-middleware.ts,
 * REST, chat and the pages) and GraphQL's formatError with its status plugin (src/graphql/errors.ts).
 * Anything that is not a KubecompatError is an internal error and is masked.
 *
 * Codes are stable identifiers: bots branch on them, not on wording.
 */

export interface ErrorDetail {
  /** Where the problem is, e.g. a request field path or "kb/ports.yaml: ports[3].endPort". */
  readonly field?: string;
  readonly message: string;
}

export abstract class KubecompatError extends Error {
  abstract readonly code: string;
  readonly details: readonly ErrorDetail[];

  constructor(message: string, details: readonly ErrorDetail[] = []) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

/** Malformed or unacceptable input; `field` names what to fix. */
export class InputError extends KubecompatError {
  readonly code = "BAD_USER_INPUT";
  readonly field: string | undefined;

  constructor(message: string, field?: string, details: readonly ErrorDetail[] = []) {
    super(message, details);
    this.field = field;
  }
}

export class NotFoundError extends KubecompatError {
  readonly code = "NOT_FOUND";
}

export class ConflictError extends KubecompatError {
  readonly code = "CONFLICT";
}

export class UnauthenticatedError extends KubecompatError {
  readonly code = "UNAUTHENTICATED";
}

export class ForbiddenError extends KubecompatError {
  readonly code = "FORBIDDEN";
}

/** Too many requests of a kind from one caller; retry after the given seconds. */
export class RateLimitedError extends KubecompatError {
  readonly code = "RATE_LIMITED";

  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A path that exists, asked with a method it does not take; `allowed` lists those it takes. */
export class MethodNotAllowedError extends KubecompatError {
  readonly code = "METHOD_NOT_ALLOWED";

  constructor(
    message: string,
    readonly allowed: readonly string[],
  ) {
    super(message);
  }
}

/** The request body is in a format this route does not take. */
export class UnsupportedMediaTypeError extends KubecompatError {
  readonly code = "UNSUPPORTED_MEDIA_TYPE";
}

/** A dependency (the database, the knowledge base) is not ready. */
export class UnavailableError extends KubecompatError {
  readonly code = "UNAVAILABLE";
  /**
   * The Retry-After to send: seconds for a passing outage; null when waiting
   * will not help (a feature left unconfigured), so clients do not retry it
   * and rate limits count it.
   */
  readonly retryAfterSeconds: number | null;

  constructor(
    message: string,
    details: readonly ErrorDetail[] = [],
    retryAfterSeconds: number | null = 5,
  ) {
    super(message, details);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** One problem found in the reviewed knowledge-base data under kb/. */
export interface KbIssue {
  readonly file: string;
  /** e.g. `ports[3]`, or undefined for a problem with the whole file. */
  readonly entry?: string;
  /** The natural key of the entry, when it could be read, e.g. `kube-apiserver 6443/TCP`. */
  readonly key?: string;
  readonly field?: string;
  readonly line?: number;
  readonly message: string;
}

export function formatKbIssue(issue: KbIssue): string {
  const where = [
    issue.line === undefined ? issue.file : `${issue.file}:${issue.line}`,
    issue.entry === undefined
      ? undefined
      : issue.key
        ? `${issue.entry} (${issue.key})`
        : issue.entry,
    issue.field === undefined ? undefined : `field "${issue.field}"`,
  ].filter((part): part is string => part !== undefined);
  return `${where.join(": ")}: ${issue.message}`;
}

/** The knowledge-base data is invalid; nothing was written. */
export class KbValidationError extends KubecompatError {
  readonly code = "KB_INVALID";
  readonly issues: readonly KbIssue[];

  constructor(issues: readonly KbIssue[]) {
    super(
      `the knowledge base has ${issues.length} invalid record(s); nothing was written:\n` +
        issues.map((issue) => `  - ${formatKbIssue(issue)}`).join("\n"),
      issues.map((issue) => ({ field: issue.field, message: formatKbIssue(issue) })),
    );
    this.issues = issues;
  }
}
