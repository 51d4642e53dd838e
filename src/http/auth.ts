/**
 * Who is calling: resolves the bearer token once per request into
 * `res.locals.principal`, and turns anonymous readers away when the
 * service is configured to require tokens for reads. Failed
 * authentications are counted per client address: past the limit the
 * address is refused before its token costs a database look-up.
 */
import type { Request, RequestHandler, Response } from "express";
import { ipKeyGenerator } from "express-rate-limit";
import type { Authenticator } from "../services/authenticator.js";
import { ANONYMOUS, requireRole, type Principal } from "../core/tokens.js";
import { RateLimitedError, UnauthenticatedError } from "../core/errors.js";
import { MinuteBudgets } from "../core/minute-budgets.js";

/** Failed authentications an address may make a minute (a person mistyping, a script with an old token). */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 30;

export interface IdentifyOptions {
  readonly authenticator: Authenticator | undefined;
  readonly requireAuthForReads: boolean;
  readonly failuresPerMinute?: number;
}

/**
 * What a 401 asks for: a browser opening a page gets the Basic challenge its dialog answers (the
 * token as the password); API clients the Bearer one.
 */
function challenge(req: Request): string {
  return req.accepts(["application/json", "text/html"]) === "text/html"
    ? 'Basic realm="kubecompat", charset="UTF-8"'
    : 'Bearer realm="kubecompat"';
}

export function authenticate(options: IdentifyOptions): RequestHandler {
  const { authenticator, requireAuthForReads } = options;
  const failures = new MinuteBudgets(options.failuresPerMinute ?? DEFAULT_AUTH_FAILURES_PER_MINUTE);
  const refuse = (
    req: Request,
    res: Response,
    error: unknown,
    next: (error?: unknown) => void,
  ): void => {
    if (error instanceof UnauthenticatedError) res.setHeader("WWW-Authenticate", challenge(req));
    next(error);
  };
  return (req, res, next) => {
    const address = req.ip ?? "unknown";
    const authorization = req.headers.authorization;
    if (authorization !== undefined && failures.spent(address)) {
      next(
        new RateLimitedError(
          `too many failed authentications from your address: at most ${failures.perMinute} a minute; check the token and retry after the Retry-After delay`,
          60,
        ),
      );
      return;
    }
    if (authenticator === undefined) {
      res.locals.principal = ANONYMOUS;
      // Fail closed: with reads protected and no way to check a token, nobody is let in.
      if (requireAuthForReads)
        refuse(
          req,
          res,
          new UnauthenticatedError(
            "this service requires an API token for every request, and cannot check tokens (no token store)",
          ),
          next,
        );
      else next();
      return;
    }
    authenticator
      .authenticate(authorization)
      .then((principal) => {
        res.locals.principal = principal;
        if (requireAuthForReads) {
          if (principal.role === null)
            throw new UnauthenticatedError(
              "this service requires an API token for every request: send Authorization: Bearer <token>",
            );
          requireRole(principal, "reader", "reading");
        }
        next();
      })
      .catch((error: unknown) => {
        if (error instanceof UnauthenticatedError && authorization !== undefined)
          failures.take(address);
        refuse(req, res, error, next);
      });
  };
}

/**
 * Turns away a caller who may not import a knowledge-base bundle, with the
 * Curator's own answers, before the bundle (up to 20 MB of YAML) is parsed:
 * anonymous callers must not be able to make the service parse it.
 */
export function requireImporter(principal: Principal): void {
  if (principal.role === null)
    throw new UnauthenticatedError("this needs an API token: send Authorization: Bearer <token>");
  requireRole(principal, "admin", "importing a knowledge-base bundle");
}

/**
 * Turns away a caller who may not change the fleet (or read its
 * subscriptions and deliveries), with the same words on every face; answers
 * the editor's name, who the change is recorded as made by.
 */
export function requireEditor(principal: Principal, action: string): string {
  if (principal.role === null)
    throw new UnauthenticatedError(
      `${action} needs an editor's API token: send Authorization: Bearer <token>`,
    );
  requireRole(principal, "editor", action);
  return principal.name;
}

/** Who a limit counts a request against: its token when it has one, else its client address (IPv6 per /56). */
export function callerKey(principal: Principal, address: string | undefined): string {
  return principal.role !== null
    ? `token:${principal.name}`
    : `address:${ipKeyGenerator(address ?? "0.0.0.0")}`;
}

export function principalOf(res: Response): Principal {
  return (res.locals.principal as Principal | undefined) ?? ANONYMOUS;
}
