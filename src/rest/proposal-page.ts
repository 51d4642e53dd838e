/**
 * `GET /proposals`: the review queue for people in a browser. Each open
 * proposal says what it changes (each field before → after, against the
 * knowledge base answering now), from which source and revision it was
 * derived, and carries two forms: approve, and reject with a reason. Both
 * take an editor token typed into the form (POST, no script, no cookie) and
 * answer with a page that says what happened, or what to fix (a conflict, a
 * refused token) with the status every face gives that error. Deciding is
 * the ProposalReview's business, as over REST and GraphQL.
 */
import express, { Router, type RequestHandler, type Response } from "express";
import { InputError, UnauthenticatedError } from "../core/errors.js";
import type { Principal } from "../core/tokens.js";
import { describeError } from "../http/errors.js";
import { readProposalId } from "../http/schemas/proposals.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import type { Authenticator } from "../services/authenticator.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import { fieldChanges, valueWords } from "../services/proposal-changes.js";
import type { ProposalReview, StoredProposal } from "../services/proposals.js";
import { FRONT_PAGE_POLICY } from "./home.js";
import { escape } from "./pictures.js";

export interface ProposalPageDependencies {
  readonly kb: KnowledgeBase;
  /** Absent without a database: the page then says there is no queue here. */
  readonly review: ProposalReview | undefined;
  /** Checks the token typed into a form; absent: no token can be checked, nothing is decided. */
  readonly authenticator: Authenticator | undefined;
  /** The write budget of every edit. */
  readonly writeLimit: RequestHandler;
}

const MAX_FORM_BYTES = 16 * 1024;
const LISTED = 200;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escape(title)}</title>
  <link rel="icon" href="data:,">
  <style>
    body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1f23; }
    input, button, textarea { font: inherit; }
    :focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    table { border-collapse: collapse; width: 100%; margin: 0.5rem 0; }
    th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
    td code { word-break: break-word; }
    .proposal { border: 1px solid #d0d7de; border-radius: 6px; padding: 0.5rem 1rem; margin: 1rem 0; }
    .decide { display: flex; flex-wrap: wrap; gap: 1rem; }
    .decide form { border-top: 1px solid #d0d7de; padding-top: 0.5rem; }
    .error { color: #cf222e; }
    .warning { color: #9a6700; }
    .done { color: #1a7f37; }
  </style>
</head>
<body>
  <p><a href="/">kubecompat</a> › <a href="/proposals">review queue</a></p>
  ${body}
</body>
</html>
`;
}

function changesTable(snapshot: KbSnapshot, proposal: StoredProposal): string {
  const rows = fieldChanges(snapshot, proposal)
    .map(
      (change) =>
        `<tr><th scope="row">${escape(change.field)}</th><td><code>${escape(valueWords(change.before, 400))}</code></td><td><code>${escape(valueWords(change.after, 400))}</code></td></tr>`,
    )
    .join("\n      ");
  return `<table class="changes">
      <thead><tr><th>field</th><th>before</th><th>after</th></tr></thead>
      <tbody>
      ${rows}
      </tbody>
    </table>`;
}

const TOKEN_FIELD = `<label>Editor token <input type="password" name="token" required autocomplete="off" spellcheck="false"></label>`;

function proposalSection(snapshot: KbSnapshot, proposal: StoredProposal): string {
  const { id } = proposal;
  const problems =
    proposal.problems.length === 0
      ? ""
      : `<p class="warning">Problems: ${proposal.problems.map((problem) => `${escape(problem.field)} (${escape(problem.message)})`).join(", ")}. Approve it with the finished record over REST or GraphQL.</p>`;
  const base =
    proposal.baseRevision === null
      ? "derived with no record of this key"
      : `derived against record revision ${proposal.baseRevision}`;
  return `<section class="proposal" id="proposal-${id}" aria-labelledby="proposal-${id}-title">
    <h2 id="proposal-${id}-title">#${id} ${escape(proposal.action)} ${escape(proposal.entity)} <code>${escape(proposal.key)}</code></h2>
    <p>From ${escape(proposal.source)}, revision <code>${escape(proposal.sourceRevision)}</code> (derivation ${escape(proposal.derivation)}, filed ${escape(proposal.createdAt.toISOString())}); ${base}.</p>
    ${problems}
    ${changesTable(snapshot, proposal)}
    <div class="decide">
      <form method="post" action="/proposals/${id}/approve">
        ${TOKEN_FIELD}
        <button type="submit">Approve #${id}</button>
      </form>
      <form method="post" action="/proposals/${id}/reject">
        ${TOKEN_FIELD}
        <label>Reason <input type="text" name="reason" required maxlength="500" size="40"></label>
        <button type="submit">Reject #${id}</button>
      </form>
    </div>
  </section>`;
}

export function queuePage(snapshot: KbSnapshot, open: readonly StoredProposal[]): string {
  const intro = `<h1>Review queue</h1>
  <p>Changes of the knowledge base derived from upstream sources (<code>kb:derive --propose</code>). Nothing answers with them until an editor approves: an approval is an audited edit (knowledge-base revision ${snapshot.revision} now), a rejection keeps its reason.</p>`;
  const list =
    open.length === 0
      ? `<p id="empty-queue">No open proposals: nothing waits for a reviewer.</p>`
      : `<p id="open-count">${open.length} open proposal${open.length === 1 ? "" : "s"}, oldest first.</p>
  ${open.map((proposal) => proposalSection(snapshot, proposal)).join("\n  ")}`;
  return page("kubecompat review queue", `${intro}\n  ${list}`);
}

function answerPage(heading: string, message: string, tone: "done" | "error"): string {
  return page(
    `kubecompat review queue: ${heading}`,
    `<h1>${escape(heading)}</h1>
  <p class="${tone}" id="answer" role="${tone === "error" ? "alert" : "status"}">${escape(message)}</p>
  <p><a href="/proposals">Back to the review queue</a></p>`,
  );
}

function send(res: Response, status: number, html: string): void {
  res.setHeader("Content-Security-Policy", FRONT_PAGE_POLICY);
  res.status(status).type("html").send(html);
}

/** The editor the form's token names; a missing, unknown or revoked token is refused as over REST. */
async function principalOfForm(
  authenticator: Authenticator | undefined,
  body: Record<string, unknown>,
): Promise<Principal> {
  const token = typeof body.token === "string" ? body.token.trim() : "";
  if (token === "")
    throw new UnauthenticatedError("type an editor token into the form to approve or reject");
  if (authenticator === undefined)
    throw new UnauthenticatedError("this instance cannot check tokens (it has no token store)");
  return authenticator.authenticate(`Bearer ${token}`);
}

/** Errors the caller can fix are said on the page with their status; anything else is the error middleware's. */
function refusal(res: Response, error: unknown): void {
  const described = describeError(error);
  if (described.internal) throw error;
  send(
    res,
    described.status,
    answerPage(`Not done (${described.code})`, described.message, "error"),
  );
}

export function proposalPageRoutes(deps: ProposalPageDependencies): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: MAX_FORM_BYTES, parameterLimit: 5 });
  router.get("/proposals", async (_req, res) => {
    if (deps.review === undefined) {
      send(
        res,
        200,
        answerPage(
          "No review queue here",
          "This instance runs without a database, where proposals are filed: there is nothing to review.",
          "error",
        ),
      );
      return;
    }
    const open = await deps.review.list("open", LISTED);
    send(res, 200, queuePage(deps.kb.current(), open));
  });
  router.post("/proposals/:id/:decision", deps.writeLimit, form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    try {
      const decision = String(req.params.decision);
      if (decision !== "approve" && decision !== "reject")
        throw new InputError(
          `"${decision.slice(0, 40)}" is no decision: approve or reject`,
          "decision",
        );
      const id = readProposalId(req.params.id);
      if (deps.review === undefined)
        throw new InputError(
          "this instance has no review queue (it runs without a database)",
          "id",
        );
      const principal = await principalOfForm(deps.authenticator, body);
      if (decision === "reject") {
        const rejected = await deps.review.reject(principal, id, body.reason);
        send(
          res,
          200,
          answerPage(
            `Rejected #${id}`,
            `Proposal #${id} (${rejected.key}) is rejected by ${rejected.decidedBy ?? "you"}: ${rejected.reason ?? ""}`,
            "done",
          ),
        );
        return;
      }
      const [outcome] = await deps.review.approve(principal, [id]);
      if (!outcome!.ok) throw outcome!.error;
      const approved = outcome!.proposal;
      send(
        res,
        200,
        answerPage(
          `Approved #${id}`,
          `Proposal #${id} (${approved.key}) is applied by ${approved.decidedBy ?? "you"}: knowledge-base revision ${approved.appliedRevision ?? "?"}.`,
          "done",
        ),
      );
    } catch (error) {
      refusal(res, error);
    }
  });
  return router;
}
