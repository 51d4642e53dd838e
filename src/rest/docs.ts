/**
 * Interactive REST docs at /docs: Swagger UI from the local swagger-ui-dist
 * package (no CDN, so it works offline), pointed at /openapi.json.
 */
import { createRequire } from "node:module";
import path from "node:path";
import express, { Router } from "express";
import { openApiDocument } from "./openapi.js";

const require = createRequire(import.meta.url);
const SWAGGER_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>kubecompat REST API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" href="data:,">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

// A separate script file rather than inline code, so a strict Content-Security-Policy can be used.
const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true, validatorUrl: null });`;

/** Where Swagger UI's files are served (a static directory, so not a route the router lists). */
export const DOCS_ASSETS = "/docs/assets";

export function docsRoutes(): Router {
  const router = Router();
  // Swagger UI runs scripts, so the app's policy that nothing runs does not fit these pages.
  router.use("/docs", (_req, res, next) => {
    res.removeHeader("Content-Security-Policy");
    next();
  });
  router.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument());
  });
  router.get(["/docs", "/docs/"], (_req, res) => {
    res.type("html").send(PAGE);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.type("application/javascript").send(INIT);
  });
  router.use(DOCS_ASSETS, express.static(SWAGGER_DIR, { index: false, fallthrough: false }));
  return router;
}
