/**
 * The REST operations under /api/v1, one to one with GraphQL's: validate,
 * upgrade-plan, rollback-check, scan and fix, plus the variants that take what
 * `kubectl version -o json` and `kubectl get nodes -o json` print. Each
 * route is a question of src/http/questions.ts: the body is parsed with its
 * zod schema and judged by its answer; answers carry the same field names as
 * GraphQL. A question asked again under the same snapshot is answered from
 * the AnswerCache.
 */
import express, { Router, type Request } from "express";
import { parseInput } from "../http/input.js";
import { InputError, UnsupportedMediaTypeError } from "../core/errors.js";
import { AnswerCache } from "../services/answer-cache.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { CLUSTER_QUESTIONS, answerIn, type Question } from "../http/questions.js";
import { checkRoute, type FindingsSink, type SentAnswer } from "./answers.js";
import { parseJsonBody, queryParameters } from "./parse.js";
import { MAX_MANIFEST_CHARS } from "../http/schemas/scan-requests.js";
import { FIX_MANIFESTS, judgeFix } from "./fix-route.js";

/** Manifests come as JSON or as raw YAML (judgeScan): the one question with a route of its own. */
const SCAN_MANIFESTS: Question = CLUSTER_QUESTIONS.find(
  (question) => question.name === "scan_manifests",
)!;

export const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];

export interface OperationRoutesOptions {
  /** Answers remembered per snapshot; off unless given. */
  readonly answers?: AnswerCache<SentAnswer>;
  /** Told the findings of every answer, remembered or not (metrics). */
  readonly onFindings?: FindingsSink;
}

/** Mounts one operation: its judgement, answered (or remembered) by checkRoute. */
type Check = (route: string, judge: (req: Request, snapshot: KbSnapshot) => unknown) => void;

export function operationRoutes(kb: KnowledgeBase, options: OperationRoutesOptions = {}): Router {
  const router = Router();
  const answers = options.answers ?? new AnswerCache<SentAnswer>(0);
  const check: Check = (route, judge) =>
    router.post(route, checkRoute(kb, answers, options.onFindings, judge));
  // Registration order is the order of the OpenAPI document and docs/routes.md.
  for (const question of CLUSTER_QUESTIONS) {
    if (question === SCAN_MANIFESTS || question === FIX_MANIFESTS) continue;
    check(question.rest.path, (req, snapshot) =>
      answerIn(question, snapshot, parseJsonBody(question.input, req), {}),
    );
  }
  router.post(
    "/scan",
    express.text({ type: YAML_TYPES, limit: MAX_MANIFEST_CHARS + 1024 }),
    checkRoute(kb, answers, options.onFindings, judgeScan),
  );
  router.post(
    "/fix",
    express.text({ type: YAML_TYPES, limit: MAX_MANIFEST_CHARS + 1024 }),
    checkRoute(kb, answers, options.onFindings, (req, snapshot) =>
      judgeFix(req, snapshot, YAML_TYPES),
    ),
  );
  return router;
}

// Raw YAML is accepted as well, with the target in the query string: `curl --data-binary @all.yaml`.
function judgeScan(req: Request, snapshot: KbSnapshot): unknown {
  if (req.is(YAML_TYPES)) {
    const { targetVersion, fromVersion, detail } = queryParameters(req, [
      "targetVersion",
      "fromVersion",
      "detail",
    ]);
    if (targetVersion === undefined || targetVersion.trim() === "") {
      throw new InputError(
        "targetVersion is required as a query parameter when the body is YAML: POST /api/v1/scan?targetVersion=1.29",
        "targetVersion",
      );
    }
    // The JSON request it stands for, checked by the same schema.
    const manifests = typeof req.body === "string" ? req.body : "";
    const input = parseInput(
      SCAN_MANIFESTS.input,
      { manifests, targetVersion, fromVersion, detail },
      "query",
    );
    return answerIn(SCAN_MANIFESTS, snapshot, input, {});
  }
  if (!req.is("application/json")) {
    throw new UnsupportedMediaTypeError(
      `send the manifests as JSON {"manifests", "targetVersion"} (Content-Type: application/json) or as raw YAML (Content-Type: application/yaml, ?targetVersion=); got ${req.headers["content-type"] ?? "no Content-Type"}`,
    );
  }
  const raw = req.body as Record<string, unknown> | null;
  // A manifest posted as JSON is a Kubernetes object, not a scan request: say how to send it.
  if (
    raw !== null &&
    typeof raw === "object" &&
    !Array.isArray(raw) &&
    !("manifests" in raw) &&
    ("apiVersion" in raw || "kind" in raw || "items" in raw)
  ) {
    throw new InputError(
      'this body is a Kubernetes object, not a scan request: send {"manifests": "<the YAML or JSON, as a string>", "targetVersion": "1.29"} as JSON, or post the manifest itself with Content-Type: application/yaml (JSON is YAML) and ?targetVersion=1.29',
      "manifests",
    );
  }
  return answerIn(SCAN_MANIFESTS, snapshot, parseJsonBody(SCAN_MANIFESTS.input, req), {});
}
