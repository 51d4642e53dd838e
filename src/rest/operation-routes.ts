/**
 * The REST operations under /api/v1, one to one with GraphQL's: validate,
 * upgrade-plan, rollback-check and scan, plus the variants that take what
 * `kubectl version -o json` and `kubectl get nodes -o json` print. Each
 * handler parses the body with its zod schema and calls the domain core;
 * answers carry the same field names as GraphQL. A question asked again
 * under the same snapshot is answered from the AnswerCache.
 */
import express, { Router, type Request } from "express";
import { planUpgradeFromKubectl, validateFromKubectl } from "../domain/from-kubectl.js";
import { scanCluster } from "../domain/cluster-evidence.js";
import { checkNodePoolRollback, checkNodePoolUpgrade } from "../domain/node-pool.js";
import { checkRollback } from "../domain/rollback.js";
import { scanSteps } from "../domain/scan.js";
import { inSlices } from "../core/slices.js";
import { checkFirewall } from "../domain/firewall.js";
import { planUpgrade } from "../domain/upgrade.js";
import { validateCluster } from "../domain/validate.js";
import { InputError, UnsupportedMediaTypeError } from "../core/errors.js";
import { AnswerCache } from "../services/answer-cache.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { checkRoute, type FindingsSink, type SentAnswer } from "./answers.js";
import { parseJsonBody, queryParameters } from "./parse.js";
import {
  fromKubectlUpgradeRequest,
  fromKubectlValidateRequest,
  rollbackRequest,
  upgradePlanRequest,
  validateRequest,
} from "../http/schemas/cluster-requests.js";
import { firewallCheckRequest } from "../http/schemas/firewall-requests.js";
import {
  nodePoolRollbackRequest,
  nodePoolUpgradeRequest,
} from "../http/schemas/node-pool-requests.js";
import {
  MAX_MANIFEST_CHARS,
  clusterScanRequest,
  scanRequest,
} from "../http/schemas/scan-requests.js";

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
  clusterChecks(check);
  nodePoolChecks(check);
  router.post(
    "/scan",
    express.text({ type: YAML_TYPES, limit: MAX_MANIFEST_CHARS + 1024 }),
    checkRoute(kb, answers, options.onFindings, judgeScan),
  );
  return router;
}

/** The whole-cluster questions: validate, upgrade plan, rollback, cluster scan, firewall. */
function clusterChecks(check: Check): void {
  check("/validate", (req, snapshot) => {
    const body = parseJsonBody(validateRequest, req);
    return validateCluster(snapshot, body.components, {
      profile: body.profile,
      asOf: body.asOf,
      platform: body.platform,
    });
  });

  check("/validate/from-kubectl", (req, snapshot) => {
    const body = parseJsonBody(fromKubectlValidateRequest, req);
    return validateFromKubectl(snapshot, body, body);
  });

  check("/upgrade-plan", (req, snapshot) => {
    const body = parseJsonBody(upgradePlanRequest, req);
    return planUpgrade(snapshot, body.current.components, body.targetVersion, {
      profile: body.profile,
      asOf: body.asOf,
      platform: body.platform,
    });
  });

  check("/upgrade-plan/from-kubectl", (req, snapshot) => {
    const body = parseJsonBody(fromKubectlUpgradeRequest, req);
    return planUpgradeFromKubectl(snapshot, body, body.targetVersion, body);
  });

  check("/rollback-check", (req, snapshot) => {
    const body = parseJsonBody(rollbackRequest, req);
    return checkRollback(snapshot, {
      current: body.current.components,
      component: body.component,
      instance: body.instance,
      toVersion: body.toVersion,
      profile: body.profile,
      asOf: body.asOf,
      platform: body.platform,
      upgradedOn: body.upgradedOn,
    });
  });

  check("/scan/cluster", (req, snapshot) => {
    const body = parseJsonBody(clusterScanRequest, req);
    return scanCluster(snapshot, body, body.targetVersion);
  });

  check("/firewall/check", (req, snapshot) => {
    const body = parseJsonBody(firewallCheckRequest, req);
    return checkFirewall(snapshot, body.allowed, { cni: body.cni, version: body.version });
  });
}

function nodePoolChecks(check: Check): void {
  check("/node-pool/upgrade-check", (req, snapshot) =>
    checkNodePoolUpgrade(snapshot, parseJsonBody(nodePoolUpgradeRequest, req)),
  );

  check("/node-pool/rollback-check", (req, snapshot) =>
    checkNodePoolRollback(snapshot, parseJsonBody(nodePoolRollbackRequest, req)),
  );
}

// Raw YAML is accepted as well, with the target in the query string: `curl --data-binary @all.yaml`.
function judgeScan(req: Request, snapshot: KbSnapshot): unknown {
  if (req.is(YAML_TYPES)) {
    const { targetVersion, fromVersion } = queryParameters(req, ["targetVersion", "fromVersion"]);
    if (targetVersion === undefined || targetVersion.trim() === "") {
      throw new InputError(
        "targetVersion is required as a query parameter when the body is YAML: POST /api/v1/scan?targetVersion=1.29",
        "targetVersion",
      );
    }
    return inSlices(
      scanSteps(snapshot, typeof req.body === "string" ? req.body : "", targetVersion, {
        fromVersion,
      }),
    );
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
  const body = parseJsonBody(scanRequest, req);
  return inSlices(
    scanSteps(snapshot, body.manifests, body.targetVersion, {
      fromVersion: body.fromVersion,
      addons: body.addons,
      crds: body.crds,
    }),
  );
}
