/**
 * What a failure means to the service, before any protocol says it: a
 * KubecompatError as it is, a lost or refused database as UNAVAILABLE (so
 * clients retry), anything else unknown (an internal error). The statuses
 * and bodies are the faces' (src/http/errors.ts).
 */
import { asUnavailable } from "../db/unavailable.js";
import { KubecompatError } from "../core/errors.js";

export function asKnownError(caught: unknown): unknown {
  return caught instanceof KubecompatError ? caught : (asUnavailable(caught) ?? caught);
}
