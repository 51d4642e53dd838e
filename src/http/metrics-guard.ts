/**
 * Who may read /metrics: with METRICS_TOKEN set, whoever sends it (a
 * Prometheus scrape config's bearer token), nobody else; without it, the
 * same rule as every read (an API token when REQUIRE_AUTH_FOR_READS is on).
 */
import crypto from "node:crypto";
import type { RequestHandler } from "express";
import { UnauthenticatedError } from "../core/errors.js";

export interface MetricsGuardOptions {
  readonly token: string | null;
  readonly identify: RequestHandler;
  readonly requireAuthForReads: boolean;
}

const digest = (text: string): Buffer => crypto.createHash("sha256").update(text, "utf8").digest();

export function metricsGuard(options: MetricsGuardOptions): RequestHandler {
  const { token } = options;
  if (token === null)
    return options.requireAuthForReads ? options.identify : (_req, _res, next) => next();
  const expected = digest(token);
  return (req, res, next) => {
    const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? "")?.[1];
    // Digests of both, so the comparison takes the same time whatever the length or the guess.
    if (given !== undefined && crypto.timingSafeEqual(digest(given), expected)) {
      next();
      return;
    }
    res.setHeader("WWW-Authenticate", 'Bearer realm="kubecompat metrics"');
    next(
      new UnauthenticatedError(
        "/metrics needs the metrics token: send Authorization: Bearer <METRICS_TOKEN>",
      ),
    );
  };
}
