/**
 * The read API under /api/v1: thin translation between HTTP and the catalog
 * queries of src/domain/catalog.ts. Query strings are validated with zod
 * (unknown parameters are refused so a typo is not silently ignored), and
 * answers carry an ETag of the knowledge-base revision.
 */
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import {
  getComponent,
  getRelease,
  listApiRemovals,
  listComponents,
  listFlagChanges,
  listPorts,
  listSkewRules,
  summarise,
} from "../domain/catalog.js";
import { InputError } from "../errors.js";
import type { KnowledgeBase } from "../kb/knowledge-base.js";
import type { KbSnapshot } from "../kb/snapshot.js";

const filterValue = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

function parseQuery<T extends z.ZodRawShape>(shape: T, req: Request): z.infer<z.ZodObject<T>> {
  const parsed = z.strictObject(shape).safeParse(req.query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === "unrecognized_keys") {
      const allowed = Object.keys(shape);
      throw new InputError(
        `unknown query parameter ${issue.keys.map((key) => `"${key}"`).join(", ")}; this route accepts ${allowed.length > 0 ? allowed.join(", ") : "none"}`,
        issue.keys[0],
      );
    }
    const field = issue?.path.join(".") ?? "query";
    throw new InputError(`query parameter ${field} ${issue?.message ?? "is invalid"}${Array.isArray(req.query[field]) ? " (give it once)" : ""}`, field);
  }
  return parsed.data;
}

/** Sends a read answer with the revision as ETag; 304 when the client has it. */
function sendRead(req: Request, res: Response, snapshot: KbSnapshot, body: unknown): void {
  const etag = `W/"kb-${snapshot.revision}"`;
  res.setHeader("ETag", etag);
  res.setHeader("Cache-Control", "no-cache");
  const ifNoneMatch = req.headers["if-none-match"];
  if (ifNoneMatch !== undefined && ifNoneMatch.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
    res.status(304).end();
    return;
  }
  res.json(body);
}

function items(snapshot: KbSnapshot, list: readonly unknown[]): { items: readonly unknown[]; kbRevision: number } {
  return { items: list, kbRevision: snapshot.revision };
}

export function readRoutes(kb: KnowledgeBase): Router {
  const router = Router();

  router.get("/kb", (req, res) => {
    parseQuery({}, req);
    const snapshot = kb.current();
    sendRead(req, res, snapshot, { ...summarise(snapshot), kbRevision: snapshot.revision });
  });

  router.get("/components", (req, res) => {
    const query = parseQuery({ plane: filterValue.optional() }, req);
    const snapshot = kb.current();
    sendRead(req, res, snapshot, items(snapshot, listComponents(snapshot, query)));
  });

  router.get("/components/:name", (req, res) => {
    parseQuery({}, req);
    const snapshot = kb.current();
    const component = getComponent(snapshot, req.params.name);
    sendRead(req, res, snapshot, { ...component, kbRevision: snapshot.revision });
  });

  router.get("/ports", (req, res) => {
    const query = parseQuery({ component: filterValue.optional() }, req);
    const snapshot = kb.current();
    sendRead(req, res, snapshot, items(snapshot, listPorts(snapshot, query)));
  });

  router.get("/skew-rules", (req, res) => {
    const query = parseQuery({ kubernetesVersion: filterValue.optional(), profile: filterValue.optional() }, req);
    const snapshot = kb.current();
    sendRead(req, res, snapshot, items(snapshot, listSkewRules(snapshot, query)));
  });

  router.get("/flag-changes", (req, res) => {
    const query = parseQuery({ component: filterValue.optional() }, req);
    const snapshot = kb.current();
    sendRead(req, res, snapshot, items(snapshot, listFlagChanges(snapshot, query)));
  });

  router.get("/api-removals", (req, res) => {
    const query = parseQuery({ from: filterValue.optional(), to: filterValue.optional() }, req);
    const snapshot = kb.current();
    sendRead(req, res, snapshot, items(snapshot, listApiRemovals(snapshot, query)));
  });

  router.get("/releases/:version", (req, res) => {
    parseQuery({}, req);
    const snapshot = kb.current();
    sendRead(req, res, snapshot, { ...getRelease(snapshot, req.params.version), kbRevision: snapshot.revision });
  });

  // Whole lists without filters.
  const unfiltered = {
    "/links": "links",
    "/profiles": "profiles",
    "/releases": "releases",
    "/upgrade-order": "upgradeDependencies",
    "/runtime-requirements": "runtimeRequirements",
    "/recommendations": "recommendations",
    "/proxy-modes": "proxyModes",
  } as const;
  for (const [route, entity] of Object.entries(unfiltered)) {
    router.get(route, (req, res) => {
      parseQuery({}, req);
      const snapshot = kb.current();
      sendRead(req, res, snapshot, items(snapshot, snapshot[entity]));
    });
  }

  return router;
}
