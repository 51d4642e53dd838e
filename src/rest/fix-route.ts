/**
 * POST /api/v1/fix, the question fix_manifests of src/http/questions.ts: the body is its JSON request or,
 * like the scan's (operation-routes.ts), the raw YAML with the other fields in the query string
 * (`curl --data-binary @ingress.yaml '.../fix?targetVersion=1.22'`), checked by the same schema.
 */
import type { Request } from "express";
import { InputError, UnsupportedMediaTypeError } from "../core/errors.js";
import { parseInput } from "../http/input.js";
import { answerIn, questionNamed } from "../http/questions.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { parseJsonBody, queryParameters } from "./parse.js";

export const FIX_MANIFESTS = questionNamed("fix_manifests");

/** "true" and "false" as the booleans they say; anything else is left for the schema to refuse. */
function booleanWord(value: string | undefined): unknown {
  return value === "true" ? true : value === "false" ? false : value;
}

export function judgeFix(
  req: Request,
  snapshot: KbSnapshot,
  yamlTypes: readonly string[],
): unknown {
  if (req.is([...yamlTypes])) {
    const { targetVersion, fromVersion, allowLossy, fileName } = queryParameters(req, [
      "targetVersion",
      "fromVersion",
      "allowLossy",
      "fileName",
    ]);
    if (targetVersion === undefined || targetVersion.trim() === "") {
      throw new InputError(
        "targetVersion is required as a query parameter when the body is YAML: POST /api/v1/fix?targetVersion=1.22",
        "targetVersion",
      );
    }
    const manifests = typeof req.body === "string" ? req.body : "";
    const input = parseInput(
      FIX_MANIFESTS.input,
      { manifests, targetVersion, fromVersion, allowLossy: booleanWord(allowLossy), fileName },
      "query",
    );
    return answerIn(FIX_MANIFESTS, snapshot, input, {});
  }
  if (!req.is("application/json")) {
    throw new UnsupportedMediaTypeError(
      `send the manifests as JSON {"manifests", "targetVersion"} (Content-Type: application/json) or as raw YAML (Content-Type: application/yaml, ?targetVersion=); got ${req.headers["content-type"] ?? "no Content-Type"}`,
    );
  }
  return answerIn(FIX_MANIFESTS, snapshot, parseJsonBody(FIX_MANIFESTS.input, req), {});
}
