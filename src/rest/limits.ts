/**
 * Limits that keep one caller from hurting the others: nesting depth of
 * JSON bodies (the schemas never need more than a few levels, and deep
 * structures cost stack in every later step), and request rates on the
 * write and chat routes (429 with Retry-After), per token or client address.
 */
import type { RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
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

/** Per token when there is one (so a CI fleet behind one NAT is not one client), else per address. */
export function rateLimited(perMinute: number, what: string): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: "draft-7",
    legacyHeaders: false,
    // A request refused because the database was away (503 with Retry-After) did no work: it must not lock the client out once it is back.
    skipFailedRequests: true,
    requestWasSuccessful: (_req, res) => !(res.statusCode === 503 && res.getHeader("Retry-After") !== undefined),
    keyGenerator: (req, res) => {
      const principal = principalOf(res);
      return principal.role !== null ? `token:${principal.name}` : `address:${ipKeyGenerator(req.ip ?? "0.0.0.0")}`;
    },
    handler: (req, res, _next, options) => {
      res.setHeader("Retry-After", String(Math.ceil(options.windowMs / 1000)));
      res.status(429).json(errorBodyFor(req, "RATE_LIMITED", `too many ${what} requests: at most ${perMinute} a minute; retry after the Retry-After delay`));
    },
  });
}
