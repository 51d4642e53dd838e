/**
 * Request rates, per caller (429 RATE_LIMITED with Retry-After and the
 * draft-7 RateLimit headers): the write budget of REST edits (GraphQL
 * mutations take from the same budgets inside execution) and the chat
 * endpoints' budgets. The answer's body is the error middleware's, in the
 * shape of the face the request was for.
 */
import type { RequestHandler, Response } from "express";
import { RateLimitedError } from "../core/errors.js";
import { BUDGET_WINDOW_MS, MinuteBudgets, type BudgetUse } from "../core/minute-budgets.js";
import { callerKey, principalOf } from "./auth.js";

/** Sets the draft-7 headers of a use of a budget; the error to answer with when it was over. */
export function overBudget(
  res: Response,
  budgets: MinuteBudgets,
  use: BudgetUse,
  what: string,
): RateLimitedError | undefined {
  res.setHeader("RateLimit-Policy", budgets.policy);
  res.setHeader(
    "RateLimit",
    `limit=${budgets.perMinute}, remaining=${use.remaining}, reset=${use.resetSeconds}`,
  );
  if (use.allowed) return undefined;
  return new RateLimitedError(
    `too many ${what} requests: at most ${budgets.perMinute} a minute; retry after the Retry-After delay`,
    BUDGET_WINDOW_MS / 1000,
  );
}

/** A request that did no work is given back: refused because the database was away (503 with Retry-After), or abandoned by its client. */
export function giveBackUnlessWorked(res: Response, use: BudgetUse): void {
  res.once("close", () => {
    if (
      !res.writableFinished ||
      (res.statusCode === 503 && res.getHeader("Retry-After") !== undefined)
    )
      use.giveBack();
  });
}

/**
 * Per token when there is one (so a CI fleet behind one NAT is not one
 * client), else per address: at most `perMinute` requests in a window that
 * starts with a client's first request. A request that did no work is given
 * back: one refused because the database was away must not lock the client
 * out once it is back, and neither must one whose client went away before
 * the answer.
 *
 * Written out rather than taken from express-rate-limit: every edit passes
 * here, and that middleware's per-request promises, listeners and checks
 * cost an edit a tenth of its CPU and lived as long as the edit's wait for
 * its group commit, long enough to be carried into the old space.
 */
export function rateLimited(
  perMinute: number,
  what: string,
  budgets = new MinuteBudgets(perMinute),
): RequestHandler {
  return (req, res, next) => {
    const use = budgets.take(callerKey(principalOf(res), req.ip));
    const refused = overBudget(res, budgets, use, what);
    if (refused !== undefined) {
      next(refused);
      return;
    }
    giveBackUnlessWorked(res, use);
    next();
  };
}
