/**
 * Admission for large requests (a 10 MiB manifest to scan, a knowledge-base
 * bundle to import). Each costs tens of MB of heap while it is read, parsed
 * and judged, and the process runs with a capped heap (Dockerfile); a dozen
 * at once would exhaust it and take every other request down with the
 * process. So only a few large requests are read at a time: the others wait
 * unread (TCP holds their bytes, not our heap) for a free slot, and one that
 * waits too long, or finds the queue full, is answered 503 with Retry-After.
 * Small requests (every check, read and edit) are never held back.
 */
import type { RequestHandler } from "express";
import { UnavailableError } from "../core/errors.js";

export interface LargeRequestLimits {
  /** Bodies from this many bytes up count as large (by Content-Length; an unknown length counts as large). */
  readonly thresholdBytes: number;
  /** Large requests read and answered at the same time. */
  readonly inFlight: number;
  /** Large requests that may wait for a slot; more are refused at once. */
  readonly queue: number;
  /** How long one may wait before it is refused. */
  readonly waitMs: number;
}

export const DEFAULT_LARGE_REQUEST_LIMITS: LargeRequestLimits = {
  thresholdBytes: 1024 * 1024,
  inFlight: 2,
  queue: 16,
  waitMs: 30_000,
};

export function admitLargeRequests(limits: LargeRequestLimits): RequestHandler {
  let running = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    const next = waiting.shift();
    if (next !== undefined) next();
    else running -= 1;
  };

  return (req, res, next) => {
    const length = req.headers["content-length"];
    const hasBody = length !== undefined || req.headers["transfer-encoding"] !== undefined;
    if (!hasBody || (length !== undefined && Number(length) < limits.thresholdBytes)) {
      next();
      return;
    }
    const start = () => {
      let released = false;
      const done = () => {
        if (released) return;
        released = true;
        release();
      };
      // "close" comes after "finish", and also when the client goes away mid-request.
      res.once("close", done);
      next();
    };
    if (running < limits.inFlight) {
      running += 1;
      start();
      return;
    }
    // Node reads and discards the unread body after the answer, so the connection stays usable.
    const refuse = (why: string) => {
      next(
        new UnavailableError(`${why}; retry after the Retry-After delay, or send smaller parts`),
      );
    };
    if (waiting.length >= limits.queue) {
      refuse(
        `this instance is busy with ${running} large requests and ${waiting.length} more waiting`,
      );
      return;
    }
    // The slot passes straight from the request that releases it to this one (running stays the same).
    const admit = () => {
      clearTimeout(timer);
      res.off("close", gaveUp);
      start();
    };
    const timer = setTimeout(() => {
      waiting.splice(waiting.indexOf(admit), 1);
      res.off("close", gaveUp);
      refuse(
        `this instance was busy with ${running} large requests for ${Math.round(limits.waitMs / 1000)} s`,
      );
    }, limits.waitMs);
    // A client that hangs up while waiting gives its place away.
    const gaveUp = () => {
      clearTimeout(timer);
      const index = waiting.indexOf(admit);
      if (index >= 0) waiting.splice(index, 1);
    };
    res.once("close", gaveUp);
    waiting.push(admit);
  };
}
