/**
 * The review queue over GraphQL: list and show proposals, approve several in
 * one transaction or one with the reviewer's finished record, reject one with
 * its reason. Translation only, as over REST (src/rest/proposal-routes.ts):
 * roles, revisions and conflicts are the ProposalReview's business, errors
 * are mapped once by formatError (./errors.ts).
 */
import { InputError, UnavailableError } from "../core/errors.js";
import { describeError } from "../http/errors.js";
import { readProposalId } from "../http/schemas/proposals.js";
import { currentRecordOf } from "../services/proposal-changes.js";
import type { ProposalFilter, ProposalReview } from "../services/proposals.js";
import type { ProposalAction, ProposalStatus, Resolvers } from "./generated/resolvers-types.js";

const MAX_LIST = 500;

function reviewOf(review: ProposalReview | undefined): ProposalReview {
  if (review === undefined)
    throw new UnavailableError(
      "this instance has no review queue: proposals live in the database, and it runs without one",
    );
  return review;
}

/** `status: null` lists every proposal; the SDL's default is OPEN. */
function filterOf(status: ProposalStatus | null | undefined): ProposalFilter {
  return status == null ? "all" : (status.toLowerCase() as ProposalFilter);
}

function limitOf(limit: number | null | undefined): number {
  if (limit == null) return 100;
  if (limit < 1 || limit > MAX_LIST)
    throw new InputError(`limit must be 1 to ${MAX_LIST} (it was ${limit})`, "limit");
  return limit;
}

export const proposalResolvers: Resolvers = {
  Query: {
    proposals: (_parent, { status, limit }, { review }) =>
      reviewOf(review).list(filterOf(status), limitOf(limit)),
    proposal: (_parent, { id }, { review }) => reviewOf(review).show(readProposalId(id)),
  },
  Mutation: {
    approveProposals: async (_parent, { ids }, { review, principal, latest }) => {
      const reviewing = reviewOf(review);
      const outcomes = await reviewing.approve(
        principal,
        ids.map((id) => readProposalId(id, "ids")),
      );
      return {
        items: outcomes.map((outcome) => {
          if (outcome.ok)
            return { id: String(outcome.id), approved: true, proposal: outcome.proposal };
          const { code, message } = describeError(outcome.error);
          return { id: String(outcome.id), approved: false, error: { code, message } };
        }),
        kbRevision: latest().revision,
      };
    },
    approveProposal: async (_parent, { id, record }, { review, principal }) => {
      const reviewing = reviewOf(review);
      const [outcome] = await reviewing.approve(
        principal,
        [readProposalId(id)],
        record ?? undefined,
      );
      if (!outcome!.ok) throw outcome!.error;
      return outcome!.proposal;
    },
    rejectProposal: (_parent, { id, reason }, { review, principal }) =>
      reviewOf(review).reject(principal, readProposalId(id), reason),
  },
  Proposal: {
    id: (proposal) => String(proposal.id),
    action: (proposal) => proposal.action.toUpperCase() as ProposalAction,
    record: (proposal) => (proposal.record as Record<string, unknown> | null) ?? null,
    changedFields: (proposal) => [...proposal.changedFields],
    problems: (proposal) => [...proposal.problems],
    current: (proposal, _args, { latest }) => currentRecordOf(latest(), proposal) ?? null,
    currentRevision: (proposal, _args, { latest }) =>
      (currentRecordOf(latest(), proposal)?.revision as number | undefined) ?? null,
    filedAt: (proposal) => proposal.createdAt.toISOString(),
    decidedAt: (proposal) => proposal.decidedAt?.toISOString() ?? null,
  },
};
