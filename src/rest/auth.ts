/**
 * Who is calling: resolves the bearer token once per request into
 * `res.locals.principal`, and turns anonymous readers away when the
 * service is configured to require tokens for reads.
 */
import type { RequestHandler, Response } from "express";
import type { Authenticator } from "../auth/authenticator.js";
import { ANONYMOUS, requireRole, type Principal } from "../auth/tokens.js";
import { UnauthenticatedError } from "../errors.js";

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

export function principalOf(res: Response): Principal {
  return (res.locals.principal as Principal | undefined) ?? ANONYMOUS;
}
