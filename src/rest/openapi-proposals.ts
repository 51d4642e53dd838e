/**
 * The review queue's paths of the OpenAPI document: listing and showing the
 * proposals kb:derive files, approving (one, or several in one transaction)
 * and rejecting them with an editor token.
 */
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { errorResponse } from "../http/schemas/answers.js";
import { kbRevision } from "../http/schemas/knowledge-records.js";
import { z } from "../http/schemas/openapi-zod.js";
import {
  approveManyBody,
  approveOneBody,
  proposal,
  proposalId,
  proposalListQuery,
  rejectBody,
} from "../http/schemas/proposals.js";
import type { Security } from "./openapi-curation.js";
import { authErrors, errors, json, readErrors } from "./openapi-responses.js";

const one = z.object({ item: proposal, kbRevision });
const notFound = { 404: { description: "No proposal has this id", ...json(errorResponse) } };
const decided = {
  409: {
    description:
      "The proposal was decided already, or (approval) its record changed since it was derived: nothing was applied",
    ...json(errorResponse),
  },
};

export function registerProposals(registry: OpenAPIRegistry, secured: Security): void {
  registry.registerPath({
    method: "get",
    path: "/api/v1/proposals",
    summary: "Proposals derived from upstream sources (kb:derive --propose), oldest first",
    tags: ["proposals"],
    request: { query: proposalListQuery },
    responses: {
      200: {
        description: "Proposals",
        ...json(z.object({ items: z.array(proposal), kbRevision })),
      },
      ...readErrors,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/proposals/approve",
    summary: "Approve several proposals in one transaction (editor)",
    description:
      "Each proposal's edit is judged like any edit: one whose record changed since it was derived is refused (CONFLICT) and reported in its item; the others are applied together. An unknown, repeated or decided id refuses the whole request.",
    tags: ["proposals"],
    security: secured,
    request: { body: { required: true, ...json(approveManyBody) } },
    responses: {
      200: {
        description: "Each proposal's outcome",
        ...json(
          z.object({
            items: z.array(
              z.object({
                id: z.number().int(),
                approved: z.boolean(),
                item: proposal.optional(),
                error: errorResponse.shape.error.optional(),
              }),
            ),
            kbRevision,
          }),
        ),
      },
      ...errors,
      ...authErrors,
      ...notFound,
      ...decided,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/proposals/{id}",
    summary: "One proposal",
    tags: ["proposals"],
    request: { params: proposalId },
    responses: { 200: { description: "The proposal", ...json(one) }, ...readErrors, ...notFound },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/proposals/{id}/approve",
    summary: "Approve a proposal (editor): its change is applied as an audited edit",
    description:
      "A proposal that lists problems (fields left null to fill in) needs the finished record in the body.",
    tags: ["proposals"],
    security: secured,
    request: { params: proposalId, body: { required: false, ...json(approveOneBody) } },
    responses: {
      200: { description: "Approved; appliedRevision is the revision it produced", ...json(one) },
      ...errors,
      ...authErrors,
      ...notFound,
      ...decided,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/proposals/{id}/reject",
    summary:
      "Reject a proposal with a reason (editor); the same upstream change is not proposed again",
    tags: ["proposals"],
    security: secured,
    request: { params: proposalId, body: { required: true, ...json(rejectBody) } },
    responses: {
      200: { description: "Rejected", ...json(one) },
      ...errors,
      ...authErrors,
      ...notFound,
      ...decided,
    },
  });
}
