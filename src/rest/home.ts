/**
 * `GET /`: a small page for people who open the service in a browser: what
 * it is, which knowledge base it answers from (revision, last import, where
 * each kind of knowledge ends: the same summary as `GET /api/v1/kb` and the
 * same coverage as `GET /api/v1/coverage`), and where to go next (the
 * GraphQL playground, the REST docs, the OpenAPI document). Plain HTML, no
 * script, nothing loaded from elsewhere.
 */
import { Router } from "express";
import { summarise, type KbSummary } from "../domain/catalog.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";

/** Where the page sends people; each is a route of this service. */
export const HOME_LINKS: ReadonlyArray<{ readonly href: string; readonly title: string; readonly what: string }> = [
  { href: "/graphql", title: "GraphQL playground", what: "GraphiQL with an example of each operation (POST /graphql for clients)" },
  { href: "/docs", title: "REST API docs", what: "Swagger UI for every /api/v1 route" },
  { href: "/openapi.json", title: "OpenAPI document", what: "OpenAPI 3.1, generated from the schemas that validate requests" },
  { href: "/api/v1/coverage", title: "Coverage", what: "where each kind of knowledge ends, as JSON" },
  { href: "/api/v1/kb", title: "Knowledge base", what: "revision, counts, open conflicts, as JSON" },
  { href: "/readyz", title: "Readiness", what: "database and knowledge base" },
];

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** Only http(s) URLs become links: the knowledge base is curated at run time. */
function link(url: string, text: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${escape(url)}">${escape(text)}</a>` : escape(text);
}

function knowledgeSection(summary: KbSummary | undefined): string {
  if (summary === undefined) {
    return `<p class="warning">The knowledge base is not loaded yet; reload this page in a moment.</p>`;
  }
  const rows = summary.coverage
    .map(
      (claim) =>
        `<tr><td>${escape(claim.knowledge)}</td><td>${escape(claim.throughMinor)}</td><td>${link(claim.sourceUrl, claim.source)}</td><td>${escape(claim.sourceDate ?? "")}</td></tr>`,
    )
    .join("\n      ");
  const conflicts =
    summary.conflicts.length > 0
      ? `<p class="warning">${summary.conflicts.length} open conflict(s) between kb/ and run-time edits: see <a href="/api/v1/kb">/api/v1/kb</a>.</p>`
      : "";
  return `<p>Answers come from knowledge-base revision <strong id="kb-revision">${summary.revision}</strong>${
    summary.lastImportAt ? `, last imported ${escape(summary.lastImportAt)}` : ""
  }; the newest Kubernetes release it knows is <strong>${escape(summary.newestRelease ?? "none")}</strong>.</p>
  ${conflicts}
  <table id="coverage">
    <caption>Where the knowledge ends</caption>
    <thead><tr><th>knowledge</th><th>through minor</th><th>source</th><th>source date</th></tr></thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

export function homePage(summary: KbSummary | undefined): string {
  const links = HOME_LINKS.map((entry) => `<li><a href="${entry.href}">${escape(entry.title)}</a>: ${escape(entry.what)}</li>`).join("\n    ");
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>kubecompat</title>
  <link rel="icon" href="data:,">
  <style>
    body { font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1f23; }
    table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
    caption { text-align: left; font-weight: 600; padding-bottom: 0.25rem; }
    th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
    .warning { color: #9a6700; }
  </style>
</head>
<body>
  <h1>kubecompat</h1>
  <p>Answers the questions platform teams ask before a Kubernetes upgrade: is this combination of
  component versions supported, what is the upgrade path to a target minor, can a component go back,
  and which API versions in these manifests disappear. Every fact carries the URL of its primary source.</p>
  <h2>Start here</h2>
  <ul id="links">
    ${links}
  </ul>
  <h2>Knowledge base</h2>
  ${knowledgeSection(summary)}
</body>
</html>
`;
}

export function homeRoutes(kb: KnowledgeBase): Router {
  const router = Router();
  router.get("/", (_req, res) => {
    res.type("html").send(homePage(kb.loaded ? summarise(kb.current()) : undefined));
  });
  return router;
}
