/**
 * Editing the knowledge base over REST: create (POST), update (PUT, with
 * the revision read), retire (DELETE, with the revision read) for every
 * kind of record; the audit trail; export as kb/ YAML and as Pluto's
 * versions.yaml; import of a whole bundle. Translation only: roles,
 * validation and revisions are the Curator's business.
 */
import express, { Router, type Request, type RequestHandler, type Response } from "express";
import { z } from "zod";
import { InputError, UnsupportedMediaTypeError } from "../core/errors.js";
import type { Curator } from "../services/curation.js";
import { entityForFile, exportBundle, exportFile, filesFromBundle } from "../knowledge/export.js";
import { exportPlutoVersions, parsePlutoVersionList } from "../knowledge/pluto-export.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import { ENTITIES, ENTITY_NAMES } from "../knowledge/registry.js";
import { principalOf, requireImporter } from "../http/auth.js";
import { YAML_TYPES } from "./operation-routes.js";
import { inputErrorFrom, queryParameters } from "./parse.js";

const auditQuery = z.strictObject({
  entity: z.string().max(64).optional(),
  key: z.string().max(300).optional(),
  actor: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.coerce.number().int().min(1).optional(),
});

function jsonObject(req: Request): Record<string, unknown> {
  if (!req.is("application/json")) {
    throw new UnsupportedMediaTypeError(
      `send the record as JSON (Content-Type: application/json); got ${req.headers["content-type"] ?? "no Content-Type"}`,
    );
  }
  const body: unknown = req.body;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new InputError("the body must be a JSON object: the record's fields", "body");
  return body as Record<string, unknown>;
}

/** The Idempotency-Key header (one, at most): a retry with it answers the first result instead of applying again. */
function idempotencyKeyOf(req: Request): string | undefined {
  const raw = req.headers["idempotency-key"];
  if (Array.isArray(raw))
    throw new InputError("send one Idempotency-Key header, not several", "Idempotency-Key");
  return raw;
}

/** Tells a client that this answer is the stored one of its earlier request (nothing was applied now). */
function replayedHeader(res: Response, replayed: boolean | undefined): void {
  if (replayed === true) res.setHeader("Idempotent-Replayed", "true");
}

export function curationRoutes(
  kb: KnowledgeBase,
  curator: Curator,
  writeLimit: RequestHandler = (_req, _res, next) => next(),
): Router {
  const router = Router();
  // Registration order is the order of the OpenAPI document and docs/routes.md.
  recordRoutes(router, curator, writeLimit);
  auditRoute(router, kb, curator);
  exportRoutes(router, kb);
  importRoute(router, curator, writeLimit);
  return router;
}

/** Create, update and retire, for every kind of knowledge the registry holds when the router is made, under its collection. */
function recordRoutes(router: Router, curator: Curator, writeLimit: RequestHandler): void {
  for (const entity of ENTITY_NAMES) {
    const { collection } = ENTITIES[entity];
    router.post(`/${collection}`, writeLimit, async (req, res) => {
      // A record copied from a read carries its revision; a new record starts at 1 whatever it says.
      const { revision: _revision, ...record } = jsonObject(req);
      const result = await curator.create(principalOf(res), entity, record, {
        idempotencyKey: idempotencyKeyOf(req),
      });
      replayedHeader(res, result.replayed);
      res.status(201).json({ item: result.record, key: result.key, kbRevision: result.kbRevision });
    });
    router.put(`/${collection}/:key`, writeLimit, async (req, res) => {
      const { revision, ...record } = jsonObject(req);
      const result = await curator.update(
        principalOf(res),
        entity,
        String(req.params.key),
        revision,
        record,
        { idempotencyKey: idempotencyKeyOf(req) },
      );
      replayedHeader(res, result.replayed);
      res.json({ item: result.record, key: result.key, kbRevision: result.kbRevision });
    });
    router.delete(`/${collection}/:key`, writeLimit, async (req, res) => {
      const fromBody = req.is("application/json")
        ? (req.body as Record<string, unknown> | undefined)?.revision
        : undefined;
      const result = await curator.retire(
        principalOf(res),
        entity,
        String(req.params.key),
        req.query.revision ?? fromBody,
        { idempotencyKey: idempotencyKeyOf(req) },
      );
      replayedHeader(res, result.replayed);
      res.json({ key: result.key, retired: true, kbRevision: result.kbRevision });
    });
  }
}

function auditRoute(router: Router, kb: KnowledgeBase, curator: Curator): void {
  router.get("/audit", async (req, res) => {
    // Unknown and repeated parameters are named as such, not as "expected number, received NaN".
    queryParameters(req, Object.keys(auditQuery.shape));
    const parsed = auditQuery.safeParse(req.query);
    if (!parsed.success) throw inputErrorFrom(parsed.error, "query");
    const entries = await curator.audit(principalOf(res), parsed.data);
    res.json({ items: entries, kbRevision: kb.current().revision });
  });
}

/** The knowledge base as kb/ YAML (whole or one file) and as Pluto's versions.yaml. */
function exportRoutes(router: Router, kb: KnowledgeBase): void {
  router.get("/kb/export", (req, res) => {
    const snapshot = kb.current();
    const { file } = queryParameters(req, ["file"]);
    res.setHeader("ETag", `W/"kb-${snapshot.revision}"`);
    res.type("application/yaml");
    if (file === undefined) {
      res.send(exportBundle(snapshot));
      return;
    }
    const entity = entityForFile(file);
    if (entity === undefined) {
      throw new InputError(
        `file must be one of ${Object.values(ENTITIES)
          .map((entry) => entry.file)
          .join(", ")}`,
        "file",
      );
    }
    res.send(exportFile(snapshot, entity));
  });

  router.get("/kb/export/pluto", (req, res) => {
    queryParameters(req);
    res.type("application/yaml").send(exportPlutoVersions(kb.current()).text);
  });

  // Given the list the user's Pluto has built in (`pluto list-versions -o json`), only what it lacks: Pluto refuses duplicates.
  router.post("/kb/export/pluto", express.text({ type: YAML_TYPES, limit: "2mb" }), (req, res) => {
    queryParameters(req);
    // JSON arrives parsed (the app's JSON body parser), YAML as text.
    const parsedJson =
      req.is("application/json") && req.body !== null && typeof req.body === "object";
    if (!parsedJson && (typeof req.body !== "string" || req.body.trim() === "")) {
      throw new UnsupportedMediaTypeError(
        `send the output of \`pluto list-versions -o json\` as the body (Content-Type: application/json or application/yaml); got ${req.headers["content-type"] ?? "no Content-Type"}`,
      );
    }
    const answer = exportPlutoVersions(kb.current(), parsePlutoVersionList(req.body));
    res
      .type("application/yaml")
      .setHeader("X-Kubecompat-Pluto-Left-Out", String(answer.leftOut))
      .send(answer.text);
  });
}

// The exported stream as YAML, or JSON {"files": {"ports.yaml": "..."}} for tools that hold files.
function importRoute(router: Router, curator: Curator, writeLimit: RequestHandler): void {
  const importer: RequestHandler = (_req, res, next) => {
    requireImporter(principalOf(res));
    next();
  };
  router.post(
    "/kb/import",
    writeLimit,
    importer,
    express.text({ type: YAML_TYPES, limit: "20mb" }),
    async (req, res) => {
      let files: Record<string, string>;
      if (req.is(YAML_TYPES)) {
        files = filesFromBundle(typeof req.body === "string" ? req.body : "");
      } else {
        const body = jsonObject(req);
        const parsed = z
          .strictObject({ files: z.record(z.string().max(100), z.string()) })
          .safeParse(body);
        if (!parsed.success) throw inputErrorFrom(parsed.error, "body");
        // From the body itself: zod rebuilds records by assignment, which drops a "__proto__" file instead of refusing it.
        const given = (body as { files: Record<string, string> }).files;
        files = Object.fromEntries(
          Object.entries(given).map(([name, text]) => [name.replace(/^kb\//, ""), text]),
        );
      }
      const result = await curator.import(principalOf(res), files);
      res.json({
        changed: result.changed,
        revisionBefore: result.revisionBefore,
        kbRevision: result.revision,
        changes: result.changes,
      });
    },
  );
}
