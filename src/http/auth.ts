/**
 * Who is calling: resolves the bearer token once per request into
 * `res.locals.principal`, and turns anonymous readers away when the
 * service is configured to require tokens for reads.
 */
import type { RequestHandler, Response } from "express";
import type { Authenticator } from "../services/authenticator.js";
import { ANONYMOUS, requireRole, type Principal } from "../core/tokens.js";
import { UnauthenticatedError } from "../core/errors.js";

export function authenticate(authenticator: Authenticator | undefined, requireAuthForReads: boolean): RequestHandler {
  return (req, res, next) => {
    if (authenticator === undefined) {
      res.locals.principal = ANONYMOUS;
      next();
      return;
    }
    authenticator
      .authenticate(req.headers.authorization)
      .then((principal) => {
        res.locals.principal = principal;
        if (requireAuthForReads) {
          if (principal.role === null) throw new UnauthenticatedError("this service requires an API token for every request: send Authorization: Bearer <token>");
          requireRole(principal, "reader", "reading");
        }
        next();
      })
      .catch(next);
  };
}

/**
 * Turns away a caller who may not import a knowledge-base bundle, with the
 * Curator's own answers, before the bundle (up to 20 MB of YAML) is parsed:
 * anonymous callers must not be able to make the service parse it.
 */
export function requireImporter(principal: Principal): void {
  if (principal.role === null) throw new UnauthenticatedError("this needs an API token: send Authorization: Bearer <token>");
  requireRole(principal, "admin", "importing a knowledge-base bundle");
}

export function principalOf(res: Response): Principal {
  return (res.locals.principal as Principal | undefined) ?? ANONYMOUS;
}
