/**
 * The review queue of proposals on the wire: the query of a list, the bodies
 * of an approval and a rejection, and a proposal as answered. The same
 * schemas validate requests (src/rest/proposal-routes.ts) and write the
 * OpenAPI document (src/rest/openapi-proposals.ts).
 */
import { InputError } from "../../core/errors.js";
import { z } from "./openapi-zod.js";

/** A proposal id as every face reads it (a path segment, a GraphQL ID, a chat word): a positive whole number. */
export function readProposalId(raw: unknown, field = "id"): number {
  const text = String(raw);
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw new InputError(
      `"${text.slice(0, 40)}" is not a proposal id (a positive whole number)`,
      field,
    );
  return Number(text);
}

export const proposalListQuery = z.strictObject({
  status: z.enum(["open", "approved", "rejected", "all"]).default("open").openapi({
    description: "Which proposals: open (the queue, default), approved, rejected or all",
  }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(100)
    .openapi({ description: "At most this many, oldest first: 1-500, default 100" }),
});

export const proposalId = z.object({
  id: z.string().openapi({ description: "The proposal's id", example: "1" }),
});

export const approveOneBody = z.strictObject({
  record: z.record(z.string(), z.unknown()).optional().openapi({
    description:
      "The reviewer's finished record, applied instead of the proposed one (required when the proposal lists problems: fields to fill in)",
  }),
});

export const approveManyBody = z.strictObject({
  ids: z
    .array(z.number().int().positive())
    .min(1)
    .max(100)
    .openapi({ description: "The proposals to approve together, in one transaction (1-100)" }),
});

export const rejectBody = z.strictObject({
  reason: z
    .string()
    .openapi({ description: "Why it is rejected (1-500 characters); kept with the proposal" }),
});

export const proposal = z
  .object({
    id: z.number().int(),
    entity: z.string().openapi({ example: "apiRemovals" }),
    key: z.string().openapi({ example: "widgets.example.k8s.io/v1beta1 Gadget" }),
    action: z.enum(["create", "update", "retire"]),
    record: z.record(z.string(), z.unknown()).nullable(),
    changedFields: z.array(z.string()),
    baseRevision: z.number().int().nullable(),
    problems: z.array(z.object({ field: z.string(), message: z.string() })),
    source: z.string(),
    sourceRevision: z.string(),
    derivation: z.string().openapi({ example: "kubernetes-api-lifecycle" }),
    fingerprint: z.string(),
    status: z.enum(["OPEN", "APPROVED", "REJECTED"]),
    reason: z.string().nullable(),
    decidedBy: z.string().nullable(),
    decidedAt: z.string().nullable(),
    appliedRevision: z.number().int().nullable(),
    createdAt: z.string(),
    current: z.record(z.string(), z.unknown()).nullable().openapi({
      description:
        "The knowledge base's record of this key now (null: none), as the answer's kbRevision has it",
    }),
    currentRevision: z.number().int().nullable(),
    changes: z
      .array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() }))
      .openapi({
        description:
          "Each field the proposal changes, its value now (before) and proposed (after); null where there is none",
      }),
  })
  .openapi("Proposal");
