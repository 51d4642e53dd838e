/**
 * The REST operations under /api/v1, one to one with GraphQL's: validate,
 * upgrade-plan, rollback-check and scan, plus the variants that take what
 * `kubectl version -o json` and `kubectl get nodes -o json` print. Each
 * handler parses the body with its zod schema and calls the domain core;
 * answers carry the same field names as GraphQL.
 */
import express, { Router } from "express";
import { planFromKubectl } from "../domain/kubectl-inputs.js";
import { checkNodePoolRollback, checkNodePoolUpgrade } from "../domain/node-pool.js";
import { checkRollback } from "../domain/rollback.js";
import { scanManifests } from "../domain/scan.js";
import { planUpgrade } from "../domain/upgrade.js";
import { validateCluster } from "../domain/validate.js";
import { InputError, UnsupportedMediaTypeError } from "../errors.js";
import type { KnowledgeBase } from "../kb/knowledge-base.js";
import { parseJsonBody, queryParameters } from "./parse.js";
import {
  MAX_MANIFEST_CHARS,
  fromKubectlUpgradeRequest,
  fromKubectlValidateRequest,
  nodePoolRollbackRequest,
  nodePoolUpgradeRequest,
  rollbackRequest,
  scanRequest,
  upgradePlanRequest,
  validateRequest,
} from "./schemas.js";

export const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];

export function operationRoutes(kb: KnowledgeBase): Router {
  const router = Router();

  router.post("/validate", (req, res) => {
    const body = parseJsonBody(validateRequest, req);
    res.json(validateCluster(kb.current(), body.components, { profile: body.profile, asOf: body.asOf }));
  });

  router.post("/validate/from-kubectl", (req, res) => {
    const body = parseJsonBody(fromKubectlValidateRequest, req);
    const components = planFromKubectl(body);
    res.json(validateCluster(kb.current(), components, { profile: body.profile, asOf: body.asOf }));
  });

  router.post("/upgrade-plan", (req, res) => {
    const body = parseJsonBody(upgradePlanRequest, req);
    res.json(planUpgrade(kb.current(), body.current.components, body.targetVersion, { profile: body.profile }));
  });

  router.post("/upgrade-plan/from-kubectl", (req, res) => {
    const body = parseJsonBody(fromKubectlUpgradeRequest, req);
    res.json(planUpgrade(kb.current(), planFromKubectl(body), body.targetVersion, { profile: body.profile }));
  });

  router.post("/rollback-check", (req, res) => {
    const body = parseJsonBody(rollbackRequest, req);
    res.json(
      checkRollback(kb.current(), {
        current: body.current.components,
        component: body.component,
        instance: body.instance,
        toVersion: body.toVersion,
        profile: body.profile,
      }),
    );
  });

  router.post("/node-pool/upgrade-check", (req, res) => {
    const body = parseJsonBody(nodePoolUpgradeRequest, req);
    res.json(checkNodePoolUpgrade(kb.current(), body));
  });

  router.post("/node-pool/rollback-check", (req, res) => {
    const body = parseJsonBody(nodePoolRollbackRequest, req);
    res.json(checkNodePoolRollback(kb.current(), body));
  });

  // Raw YAML is accepted as well, with the target in the query string: `curl --data-binary @all.yaml`.
  router.post("/scan", express.text({ type: YAML_TYPES, limit: MAX_MANIFEST_CHARS + 1024 }), (req, res) => {
    if (req.is(YAML_TYPES)) {
      const { targetVersion } = queryParameters(req, ["targetVersion"]);
      if (targetVersion === undefined || targetVersion.trim() === "") {
        throw new InputError("targetVersion is required as a query parameter when the body is YAML: POST /api/v1/scan?targetVersion=1.29", "targetVersion");
      }
      res.json(scanManifests(kb.current(), typeof req.body === "string" ? req.body : "", targetVersion));
      return;
    }
    if (!req.is("application/json")) {
      throw new UnsupportedMediaTypeError(
        `send the manifests as JSON {"manifests", "targetVersion"} (Content-Type: application/json) or as raw YAML (Content-Type: application/yaml, ?targetVersion=); got ${req.headers["content-type"] ?? "no Content-Type"}`,
      );
    }
    const body = parseJsonBody(scanRequest, req);
    res.json(scanManifests(kb.current(), body.manifests, body.targetVersion));
  });

  return router;
}
