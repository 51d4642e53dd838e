/**
 * `GET /`: the page for people who open the service in a browser: what it
 * is, which knowledge base it answers from (revision, last import, where each
 * kind of knowledge ends: the same summary as `GET /api/v1/kb` and the same
 * coverage as `GET /api/v1/coverage`), pictures of the release calendar and
 * the compatibility matrix on today's date, and a form that takes pasted
 * `kubectl get nodes` (-o wide) and `kubectl version` output and draws the
 * upgrade plan (`POST /`, the same plan as POST /api/v1/upgrade-plan/from-kubectl).
 * Plain HTML and inline SVG drawn here (src/rest/pictures.ts): no script,
 * nothing loaded from elsewhere, so it works offline and with the keyboard.
 */
import express, { Router } from "express";
import { summarise, type KbSummary } from "../domain/catalog.js";
import { planUpgradeFromKubectl } from "../domain/from-kubectl.js";
import { compatibilityMatrix } from "../domain/matrix.js";
import { today } from "../domain/validate.js";
import { ageDaysOf, staleAnswer } from "../domain/coverage-ages.js";
import type { EntityName } from "../knowledge/records.js";
import { InputError } from "../core/errors.js";
import { describeError } from "../http/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import { planHops, startingMinor } from "../domain/plan-timeline.js";
import { calendarSvg, escape, findingsList, legend, matrixSvg, planSvg } from "./pictures.js";

/** Where the page sends people; each is a route of this service. */
export const HOME_LINKS: ReadonlyArray<{
  readonly href: string;
  readonly title: string;
  readonly what: string;
}> = [
  {
    href: "/graphql",
    title: "GraphQL playground",
    what: "GraphiQL with an example of each operation (POST /graphql for clients)",
  },
  { href: "/docs", title: "REST API docs", what: "Swagger UI for every /api/v1 route" },
  {
    href: "/openapi.json",
    title: "OpenAPI document",
    what: "OpenAPI 3.1, generated from the schemas that validate requests",
  },
  {
    href: "/api/v1/coverage",
    title: "Coverage",
    what: "where each kind of knowledge ends, as JSON",
  },
  {
    href: "/api/v1/kb",
    title: "Knowledge base",
    what: "revision, counts, open conflicts, as JSON",
  },
  {
    href: "/proposals",
    title: "Review queue",
    what: "changes derived from upstream, waiting for an editor to approve or reject them",
  },
  { href: "/readyz", title: "Readiness", what: "database and knowledge base" },
];

/** Only http(s) URLs become links: the knowledge base is curated at run time. */
function link(url: string, text: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${escape(url)}">${escape(text)}</a>` : escape(text);
}

/** Each stale kind of knowledge once, in words: what is missing and since when (the same as GET /api/v1/coverage's stale). */
function staleWarnings(snapshot: KbSnapshot | undefined, asOf: string): string {
  if (snapshot === undefined) return "";
  const kinds = [...new Set(snapshot.coverage.map((claim) => claim.knowledge))];
  return kinds
    .map((knowledge) => ({
      knowledge,
      stale: staleAnswer(snapshot, knowledge as EntityName, asOf),
    }))
    .filter((kind) => kind.stale !== null)
    .map(
      ({ knowledge, stale }) =>
        `<p class="warning stale" data-knowledge="${escape(knowledge)}">Stale: ${escape(stale!.message)}</p>`,
    )
    .join("\n  ");
}

function knowledgeSection(
  summary: KbSummary | undefined,
  snapshot: KbSnapshot | undefined,
  asOf: string,
): string {
  if (summary === undefined) {
    return `<p class="warning">The knowledge base is not loaded yet; reload this page in a moment.</p>`;
  }
  const rows = summary.coverage
    .map(
      (claim) =>
        `<tr><td>${escape(claim.knowledge)}</td><td>${escape(claim.throughMinor)}${claim.stage === "PRERELEASE" ? " (pre-release)" : ""}</td><td>${link(claim.sourceUrl, claim.source)}</td><td>${escape(claim.sourceDate ?? "")}</td><td>${escape(String(ageDaysOf(claim, asOf) ?? ""))}</td></tr>`,
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
    <thead><tr><th>knowledge</th><th>through minor</th><th>source</th><th>source date</th><th>age (days)</th></tr></thead>
    <tbody>
      ${rows}
    </tbody>
  </table>
  ${staleWarnings(snapshot, asOf)}`;
}

/** What was typed into the form, given back so a mistake is fixed rather than retyped. */
export interface PlanForm {
  readonly nodes: string;
  readonly version: string;
  readonly target: string;
  readonly profile: string;
  /** The platform as named (eks, gke, aks, upstream); empty: recognised from the nodes and versions. */
  readonly platform: string;
  /** The day the plan is judged on, YYYY-MM-DD; empty: today. */
  readonly asOf: string;
}

const EMPTY_FORM: PlanForm = {
  nodes: "",
  version: "",
  target: "latest",
  profile: "upstream",
  platform: "",
  asOf: "",
};

/** The drawn plan, or what to fix in the form. */
export type PlanOutcome =
  | { readonly plan: ReturnType<typeof planUpgradeFromKubectl>; readonly currentMinor: string }
  | { readonly error: string; readonly status: number };

function planSection(form: PlanForm, outcome: PlanOutcome | undefined): string {
  const profiles = ["upstream", "strict"]
    .map(
      (name) =>
        `<option value="${name}"${form.profile === name ? " selected" : ""}>${name}</option>`,
    )
    .join("");
  const answer =
    outcome === undefined
      ? ""
      : "error" in outcome
        ? `<p id="plan-error" class="warning" role="alert">${escape(outcome.error)}</p>`
        : (() => {
            const hops = planHops(outcome.plan);
            return `<section id="plan" aria-live="polite">
  <h3>Plan to ${escape(outcome.plan.targetVersion)}: <span id="plan-status">${escape(outcome.plan.status.replace(/_/g, " "))}</span></h3>
  <div class="figure">${planSvg(hops, outcome.currentMinor)}</div>
  <h4>Findings</h4>
  ${findingsList(outcome.plan.findings)}
</section>`;
          })();
  return `<form id="plan-form" method="post" action="/">
    <p><label for="nodes">Output of <code>kubectl get nodes</code> (or <code>-o wide</code>, which adds each node's runtime)</label><br>
    <textarea id="nodes" name="nodes" rows="6" cols="100" spellcheck="false">${escape(form.nodes)}</textarea></p>
    <p><label for="version">Output of <code>kubectl version</code>, or just the control plane's version (<code>1.30.4</code>)</label><br>
    <textarea id="version" name="version" rows="3" cols="100" spellcheck="false">${escape(form.version)}</textarea></p>
    <p><label for="target">Upgrade to</label> <input id="target" name="target" value="${escape(form.target)}" size="10">
    <label for="profile">profile</label> <select id="profile" name="profile">${profiles}</select>
    <label for="platform">platform</label> <input id="platform" name="platform" value="${escape(form.platform)}" size="9" placeholder="recognised">
    <label for="asOf">as of</label> <input id="asOf" name="asOf" value="${escape(form.asOf)}" size="10" placeholder="today">
    <button type="submit">Draw the plan</button></p>
  </form>
  ${answer}`;
}

function picturesSection(snapshot: KbSnapshot | undefined, asOf: string): string {
  if (snapshot === undefined) return "";
  const matrix = compatibilityMatrix(snapshot, { asOf });
  return `<h2>Releases and what fits them</h2>
  <div class="figure">${calendarSvg(matrix.columns, asOf)}</div>
  <p>What may run with a control plane of each minor (profile ${escape(matrix.profile)}): the component minors the skew policy allows,
  the runtime versions required, and the add-on releases whose own tables list the minor. Hover a cell for its full text.</p>
  <div class="figure">${matrixSvg(matrix)}</div>
  ${legend()}`;
}

export function homePage(
  summary: KbSummary | undefined,
  snapshot?: KbSnapshot,
  form: PlanForm = EMPTY_FORM,
  outcome?: PlanOutcome,
): string {
  const asOf = today();
  const links = HOME_LINKS.map(
    (entry) => `<li><a href="${entry.href}">${escape(entry.title)}</a>: ${escape(entry.what)}</li>`,
  ).join("\n    ");
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>kubecompat</title>
  <link rel="icon" href="data:,">
  <style>
    body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1f23; }
    .figure { overflow-x: auto; margin: 0.5rem 0; }
    svg text { font-family: system-ui, sans-serif; font-size: 11px; fill: #1b1f23; }
    svg text.head { font-weight: 600; font-size: 12px; }
    svg text.small, svg text.axis { font-size: 10px; }
    svg text.unknown { fill: #57606a; font-style: italic; }
    svg text.removal { fill: #cf222e; }
    svg text.change { fill: #6e7781; }
    .legend .swatch { white-space: nowrap; margin-right: 0.5rem; }
    textarea, input, select, button { font: inherit; }
    textarea { width: 100%; font-family: ui-monospace, monospace; font-size: 0.85rem; }
    :focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
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
  ${picturesSection(snapshot, asOf)}
  <h2>Draw an upgrade plan</h2>
  ${planSection(form, outcome)}
  <h2>Knowledge base</h2>
  ${knowledgeSection(summary, snapshot, asOf)}
</body>
</html>
`;
}

/** A bare version in the form's version box stands for the control plane's (`kubectl version`'s Server Version). */
function kubectlVersionOf(
  text: string,
): string | { serverVersion: { gitVersion: string } } | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  return /^v?\d+\.\d+(\.\d+)?([-+][\w.-]+)?$/.test(trimmed)
    ? { serverVersion: { gitVersion: trimmed } }
    : trimmed;
}

/** The form's plan. Mistakes in what was pasted are said on the page, beside the form, not as a JSON error. */
export function drawPlan(snapshot: KbSnapshot, form: PlanForm): PlanOutcome {
  try {
    const kubectlVersion = kubectlVersionOf(form.version);
    if (kubectlVersion === undefined)
      throw new InputError(
        "paste the output of `kubectl version` (or type the control plane's version, such as 1.30.4): `kubectl get nodes` does not show the apiserver's version",
        "version",
      );
    const nodes = form.nodes.trim() === "" ? undefined : form.nodes;
    const plan = planUpgradeFromKubectl(
      snapshot,
      { kubectlVersion, nodes },
      form.target.trim() === "" ? "latest" : form.target.trim(),
      {
        profile: form.profile,
        platform: form.platform.trim() === "" ? undefined : form.platform,
        asOf: form.asOf.trim() === "" ? undefined : form.asOf,
      },
    );
    return { plan, currentMinor: startingMinor(plan) };
  } catch (error) {
    // The page shows what to fix; the status is the one every face gives this error.
    if (error instanceof InputError)
      return { error: error.message, status: describeError(error).status };
    throw error;
  }
}

type FormField = keyof PlanForm;
const MAX_FORM_BYTES = 5 * 1024 * 1024;

/**
 * The front page runs no script: its policy lets in only its own inline styles and data: images, and
 * its form posts back to it. An injected <script> or handler would not run.
 */
export const FRONT_PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function homeRoutes(kb: KnowledgeBase): Router {
  const router = Router();
  router.get("/", (_req, res) => {
    res.setHeader("Content-Security-Policy", FRONT_PAGE_POLICY);
    res
      .type("html")
      .send(
        homePage(
          kb.loaded ? summarise(kb.current()) : undefined,
          kb.loaded ? kb.current() : undefined,
        ),
      );
  });
  router.post(
    "/",
    express.urlencoded({ extended: false, limit: MAX_FORM_BYTES, parameterLimit: 10 }),
    (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const field = (name: FormField, fallback: string): string => {
        const value = body[name];
        return typeof value === "string" ? value : fallback;
      };
      const form: PlanForm = {
        nodes: field("nodes", ""),
        version: field("version", ""),
        target: field("target", "latest"),
        profile: field("profile", "upstream"),
        platform: field("platform", ""),
        asOf: field("asOf", ""),
      };
      const snapshot = kb.current();
      const outcome = drawPlan(snapshot, form);
      res.setHeader("Content-Security-Policy", FRONT_PAGE_POLICY);
      res
        .status("error" in outcome ? outcome.status : 200)
        .type("html")
        .send(homePage(summarise(snapshot), snapshot, form, outcome));
    },
  );
  return router;
}
