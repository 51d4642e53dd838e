/**
 * Limits that keep one caller from hurting the others: nesting depth of
 * JSON bodies (the schemas never need more than a few levels, and deep
 * structures cost stack in every later step), and request rates on the
 * write and chat routes (429 with Retry-After), per token or client address.
 */
import type { RequestHandler } from "express";
import { ipKeyGenerator } from "express-rate-limit";
import { InputError } from "../core/errors.js";
import { errorBodyFor } from "./error-middleware.js";
import { principalOf } from "../http/auth.js";

export const MAX_JSON_DEPTH = 32;

/** Depth of a parsed JSON value, walked without recursion; stops counting once past `limit`. */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const inner of Object.values(current)) if (inner !== null && typeof inner === "object") stack.push({ value: inner, depth: depth + 1 });
  }
  return deepest;
}

export function limitJsonDepth(limit = MAX_JSON_DEPTH): RequestHandler {
  return (req, _res, next) => {
    if (req.body !== null && typeof req.body === "object" && jsonDepth(req.body, limit) > limit) {
      next(new InputError(`the JSON body is nested more than ${limit} levels deep; no request needs that`, "body"));
      return;
    }
    next();
  };
}

/** How long a client's budget lasts: the limits are per minute. */
const WINDOW_MS = 60_000;

interface Budget {
  used: number;
  /** When the window began (Date.now()); the budget is whole again WINDOW_MS later. */
  readonly since: number;
}

/**
 * Per token when there is one (so a CI fleet behind one NAT is not one
 * client), else per address (IPv6 per /56, as express-rate-limit's
 * ipKeyGenerator groups them): at most `perMinute` requests in a window that
 * starts with a client's first request. A request that did no work is given
 * back: one refused because the database was away (503 with Retry-After)
 * must not lock the client out once it is back, and neither must one whose
 * client went away before the answer.
 *
 * Written out rather than taken from express-rate-limit: every edit passes
 * here, and that middleware's per-request promises, listeners and checks
 * cost an edit a tenth of its CPU and lived as long as the edit's wait for
 * its group commit (bench/RESULTS.md, session 17). The answers are the same:
 * 429 RATE_LIMITED with Retry-After, and the draft-7 RateLimit headers.
 */
export function rateLimited(perMinute: number, what: string): RequestHandler {
  const budgets = new Map<string, Budget>();
  const policy = `${perMinute};w=${WINDOW_MS / 1000}`;
  // Windows that ended are dropped once a window, so a stream of new addresses cannot grow the map for ever.
  let sweptAt = Date.now();
  const sweep = (now: number): void => {
    if (now - sweptAt < WINDOW_MS) return;
    sweptAt = now;
    for (const [key, budget] of budgets) if (now - budget.since >= WINDOW_MS) budgets.delete(key);
  };
  return (req, res, next) => {
    const now = Date.now();
    sweep(now);
    const principal = principalOf(res);
    const key = principal.role !== null ? `token:${principal.name}` : `address:${ipKeyGenerator(req.ip ?? "0.0.0.0")}`;
    let budget = budgets.get(key);
    if (budget === undefined || now - budget.since >= WINDOW_MS) budgets.set(key, (budget = { used: 0, since: now }));
    budget.used += 1;
    const resetSeconds = Math.max(0, Math.ceil((budget.since + WINDOW_MS - now) / 1000));
    res.setHeader("RateLimit-Policy", policy);
    res.setHeader("RateLimit", `limit=${perMinute}, remaining=${Math.max(0, perMinute - budget.used)}, reset=${resetSeconds}`);
    if (budget.used > perMinute) {
      res.setHeader("Retry-After", String(WINDOW_MS / 1000));
      res.status(429).json(errorBodyFor(req, "RATE_LIMITED", `too many ${what} requests: at most ${perMinute} a minute; retry after the Retry-After delay`));
      return;
    }
    const counted = budget;
    res.once("close", () => {
      const didNoWork = !res.writableFinished || (res.statusCode === 503 && res.getHeader("Retry-After") !== undefined);
      // Given back to the window it was taken from, not to a later one.
      if (didNoWork && budgets.get(key) === counted) counted.used = Math.max(0, counted.used - 1);
    });
    next();
  };
}
