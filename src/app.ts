/**
 * Builds the Express application without listening, so tests mount it
 * directly. Faces (REST, GraphQL) are mounted here; none of them holds rule
 * logic.
 */
import crypto from "node:crypto";
import express, { type Express } from "express";
import type { KnowledgeBase } from "./kb/knowledge-base.js";
import type { Logger } from "./logger.js";
import { errorMiddleware, notFoundHandler } from "./rest/error-middleware.js";
import { readRoutes } from "./rest/read-routes.js";
import { mountGraphQL } from "./graphql/server.js";

export interface AppDependencies {
  readonly kb: KnowledgeBase;
  readonly isDatabaseReachable: () => Promise<boolean>;
  readonly logger: Logger;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

const API_ROUTES = [
  "GET /api/v1/kb",
  "GET /api/v1/components?plane=",
  "GET /api/v1/components/{name}",
  "GET /api/v1/ports?component=",
  "GET /api/v1/links",
  "GET /api/v1/profiles",
  "GET /api/v1/skew-rules?kubernetesVersion=&profile=",
  "GET /api/v1/api-removals?from=&to=",
  "GET /api/v1/releases",
  "GET /api/v1/releases/{version}",
  "GET /api/v1/upgrade-order",
  "GET /api/v1/runtime-requirements",
  "GET /api/v1/recommendations",
];

export async function createApp(deps: AppDependencies): Promise<Express> {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");

  // A caller's request id is kept when it is sane, so logs can be correlated across services.
  app.use((req, res, next) => {
    const given = req.headers["x-request-id"];
    const requestId = typeof given === "string" && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    res.setHeader("X-Request-Id", requestId);
    next();
  });
  // Manifests for scanning may be large (src/domain/scan.ts caps them at 10 MiB).
  app.use(express.json({ limit: "11mb", strict: true }));

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });

  app.get("/readyz", async (_req, res) => {
    const database = await deps.isDatabaseReachable();
    const knowledgeBase = deps.kb.loaded;
    const ready = database && knowledgeBase;
    res.status(ready ? 200 : 503).json({
      status: ready ? "ready" : "not ready",
      database: database ? "reachable" : "unreachable",
      knowledgeBase: knowledgeBase ? { loaded: true, revision: deps.kb.current().revision } : { loaded: false },
    });
  });

  app.get("/api/v1", (_req, res) => {
    res.json({ routes: API_ROUTES });
  });
  app.use("/api/v1", readRoutes(deps.kb));
  await mountGraphQL(app, deps.kb, deps.logger);

  app.use(notFoundHandler());
  app.use(errorMiddleware(deps.logger));
  return app;
}
