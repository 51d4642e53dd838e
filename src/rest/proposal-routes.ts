/**
 * The review queue over REST: list and show the proposals kb:derive filed,
 * approve one (optionally with the reviewer's finished record) or several in
 * one transaction, reject one with its reason. Translation only: roles,
 * revisions and conflicts are the ProposalReview's business (src/services/proposals.ts).
 */
import { Router, type Request, type RequestHandler } from "express";
import { UnsupportedMediaTypeError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { currentRecordOf, fieldChanges } from "../services/proposal-changes.js";
import { describeError } from "../http/errors.js";
import { principalOf } from "../http/auth.js";
import {
  approveManyBody,
  approveOneBody,
  proposalListQuery,
  readProposalId,
  rejectBody,
} from "../http/schemas/proposals.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import type { ApprovalOutcome, ProposalReview, StoredProposal } from "../services/proposals.js";
import { inputErrorFrom, parseJsonBody, queryParameters } from "./parse.js";

/** A proposal as answered: dates as ISO strings. */
/** A proposal as answered, with what it changes against the knowledge base answered from (as every face shows it). */
function proposalJson(snapshot: KbSnapshot, proposal: StoredProposal) {
  const current = currentRecordOf(snapshot, proposal) ?? null;
  return {
    ...proposal,
    decidedAt: proposal.decidedAt?.toISOString() ?? null,
    createdAt: proposal.createdAt.toISOString(),
    current,
    currentRevision: (current?.revision as number | undefined) ?? null,
    changes: fieldChanges(snapshot, proposal).map(({ field, before, after }) => ({
      field,
      before: before ?? null,
      after: after ?? null,
    })),
  };
}

function idOf(req: Request): number {
  return readProposalId(req.params.id);
}

/** An approval of one may come without a body (nothing to finish); with one, it is JSON. */
function approveOneRecord(req: Request): unknown {
  const length = req.headers["content-length"];
  const hasBody =
    (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
  if (!hasBody) {
    queryParameters(req);
    return undefined;
  }
  if (!req.is("application/json"))
    throw new UnsupportedMediaTypeError(
      `send the finished record as JSON {"record": {...}} (Content-Type: application/json), or no body`,
    );
  return parseJsonBody(approveOneBody, req).record;
}

/** One outcome of a batch: the proposal as approved, or why its edit was refused (its code, as the error answer has it). */
function outcomeJson(snapshot: KbSnapshot, outcome: ApprovalOutcome) {
  if (outcome.ok)
    return { id: outcome.id, approved: true, item: proposalJson(snapshot, outcome.proposal) };
  const { code, message, details } = describeError(outcome.error);
  return { id: outcome.id, approved: false, error: { code, message, details } };
}

export function proposalRoutes(
  kb: KnowledgeBase,
  review: ProposalReview,
  writeLimit: RequestHandler = (_req, _res, next) => next(),
): Router {
  const router = Router();
  router.get("/proposals", async (req, res) => {
    queryParameters(req, Object.keys(proposalListQuery.shape));
    const parsed = proposalListQuery.safeParse(req.query);
    if (!parsed.success) throw inputErrorFrom(parsed.error, "query");
    const items = await review.list(parsed.data.status, parsed.data.limit);
    const snapshot = kb.current();
    res.json({
      items: items.map((item) => proposalJson(snapshot, item)),
      kbRevision: snapshot.revision,
    });
  });
  // Before /proposals/:id, so "approve" is not read as an id.
  router.post("/proposals/approve", writeLimit, async (req, res) => {
    const { ids } = parseJsonBody(approveManyBody, req);
    const outcomes = await review.approve(principalOf(res), ids);
    const snapshot = kb.current();
    res.json({
      items: outcomes.map((outcome) => outcomeJson(snapshot, outcome)),
      kbRevision: snapshot.revision,
    });
  });
  router.get("/proposals/:id", async (req, res) => {
    queryParameters(req);
    const proposal = await review.show(idOf(req));
    res.json({ item: proposalJson(kb.current(), proposal), kbRevision: kb.current().revision });
  });
  router.post("/proposals/:id/approve", writeLimit, async (req, res) => {
    // The body's type is judged before the id, as on every route that reads one.
    const record = approveOneRecord(req);
    const [outcome] = await review.approve(principalOf(res), [idOf(req)], record);
    if (!outcome!.ok) throw outcome!.error;
    res.json({
      item: proposalJson(kb.current(), outcome!.proposal),
      kbRevision: kb.current().revision,
    });
  });
  router.post("/proposals/:id/reject", writeLimit, async (req, res) => {
    const { reason } = parseJsonBody(rejectBody, req);
    const rejected = await review.reject(principalOf(res), idOf(req), reason);
    res.json({ item: proposalJson(kb.current(), rejected), kbRevision: kb.current().revision });
  });
  return router;
}
