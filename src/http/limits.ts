/**
 * The nesting depth of JSON bodies: the schemas never need more than a few
 * levels, and deep structures cost stack in every later step.
 */
import type { RequestHandler } from "express";
import { InputError } from "../core/errors.js";

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
    for (const inner of Object.values(current))
      if (inner !== null && typeof inner === "object")
        stack.push({ value: inner, depth: depth + 1 });
  }
  return deepest;
}

export function limitJsonDepth(limit = MAX_JSON_DEPTH): RequestHandler {
  return (req, _res, next) => {
    if (req.body !== null && typeof req.body === "object" && jsonDepth(req.body, limit) > limit) {
      next(
        new InputError(
          `the JSON body is nested more than ${limit} levels deep; no request needs that`,
          "body",
        ),
      );
      return;
    }
    next();
  };
}
