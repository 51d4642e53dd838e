/**
 * Owns the SQL of proposals: changes of the knowledge base derived from
 * upstream sources, filed for a reviewer. Named statements only: filing
 * (each upstream change once, by its fingerprint), listing, reading one and
 * recording a decision. Judging and applying a proposal is
 * src/services/proposals.ts's business.
 */
import type { Database } from "./client.js";
import { Prisma } from "./generated/client.js";
import { jsonLiteral } from "./sql-literals.js";

export type ProposalAction = "create" | "update" | "retire";
export type ProposalStatus = "OPEN" | "APPROVED" | "REJECTED";

/** A problem of a proposed record against its schema: the field to fill in or fix. */
export interface ProposalProblem {
  readonly field: string;
  readonly message: string;
}

/** A proposal as it is filed. */
export interface ProposalToFile {
  readonly entity: string;
  readonly key: string;
  readonly action: ProposalAction;
  readonly record: object | null;
  readonly changedFields: readonly string[];
  readonly baseRevision: number | null;
  readonly problems: readonly ProposalProblem[];
  readonly source: string;
  readonly sourceRevision: string;
  readonly derivation: string;
  readonly fingerprint: string;
}

export interface StoredProposal extends ProposalToFile {
  readonly id: number;
  readonly status: ProposalStatus;
  readonly reason: string | null;
  readonly decidedBy: string | null;
  readonly decidedAt: Date | null;
  readonly appliedRevision: number | null;
  readonly createdAt: Date;
}

type Row = Awaited<ReturnType<Database["kbProposal"]["findFirstOrThrow"]>>;

function fromRow(row: Row): StoredProposal {
  return {
    ...row,
    record: (row.record as object | null) ?? null,
    problems: row.problems as unknown as ProposalProblem[],
  };
}

/**
 * Files the proposals whose fingerprint is new, in one statement, and
 * answers those filed: an upstream change proposed before (open or decided)
 * is left as it is (ON CONFLICT DO NOTHING), so a rejected one stays rejected.
 */
export async function fileProposals(
  db: Database,
  proposals: readonly ProposalToFile[],
): Promise<StoredProposal[]> {
  if (proposals.length === 0) return [];
  const rows = proposals.map(
    (proposal) =>
      Prisma.sql`(${proposal.entity}, ${proposal.key}, ${proposal.action}::"ProposalAction", ${
        proposal.record === null ? null : JSON.stringify(proposal.record)
      }::jsonb, ${[...proposal.changedFields]}::text[], ${proposal.baseRevision}::integer, ${JSON.stringify(
        proposal.problems,
      )}::jsonb, ${proposal.source}, ${proposal.sourceRevision}, ${proposal.derivation}, ${proposal.fingerprint})`,
  );
  const filed = await db.$queryRaw<Array<{ id: number }>>`
    INSERT INTO "KbProposal" ("entity", "key", "action", "record", "changedFields", "baseRevision",
      "problems", "source", "sourceRevision", "derivation", "fingerprint")
    VALUES ${Prisma.join(rows)}
    ON CONFLICT ("fingerprint") DO NOTHING
    RETURNING "id"`;
  if (filed.length === 0) return [];
  const stored = await db.kbProposal.findMany({
    where: { id: { in: filed.map((row) => row.id) } },
    orderBy: { id: "asc" },
  });
  return stored.map(fromRow);
}

/** Proposals in one status (or all), oldest first, at most `limit`. */
export async function listProposals(
  db: Database,
  status: ProposalStatus | null,
  limit: number,
): Promise<StoredProposal[]> {
  const rows = await db.kbProposal.findMany({
    where: status === null ? {} : { status },
    orderBy: { id: "asc" },
    take: limit,
  });
  return rows.map(fromRow);
}

export async function readProposal(db: Database, id: number): Promise<StoredProposal | null> {
  const row = await db.kbProposal.findUnique({ where: { id } });
  return row === null ? null : fromRow(row);
}

export async function readProposals(
  db: Database,
  ids: readonly number[],
): Promise<StoredProposal[]> {
  const rows = await db.kbProposal.findMany({ where: { id: { in: [...ids] } } });
  return rows.map(fromRow);
}

/**
 * The part of an edit group's statement that records approvals (the edits
 * that apply them are written by the same statement, so a proposal is never
 * APPROVED without its edit, nor its edit applied while it is REJECTED): it
 * touches only open proposals, and the group counts the rows it touched.
 */
export function approvalsUpdate(
  approvals: ReadonlyArray<{ id: number; decidedBy: string; appliedRevision: number }>,
): string {
  return `UPDATE "KbProposal" AS p SET status = 'APPROVED', "decidedBy" = a."decidedBy", "decidedAt" = now() AT TIME ZONE 'UTC', "appliedRevision" = a."appliedRevision" FROM jsonb_to_recordset(${jsonLiteral(approvals)}) AS a(id int, "decidedBy" text, "appliedRevision" int) WHERE p.id = a.id AND p.status = 'OPEN' AND EXISTS (SELECT 1 FROM state) RETURNING p.id`;
}

/**
 * Records a rejection with its reason and answers the proposal as now
 * recorded (null: it was not open any more). An approval under way holds the
 * row until its edit group commits, so the two never both succeed.
 */
export async function markRejected(
  db: Database,
  id: number,
  decision: { readonly actor: string; readonly reason: string },
): Promise<StoredProposal | null> {
  const marked = await db.kbProposal.updateMany({
    where: { id, status: "OPEN" },
    data: {
      status: "REJECTED",
      decidedBy: decision.actor,
      decidedAt: new Date(),
      reason: decision.reason,
    },
  });
  return marked.count === 1 ? readProposal(db, id) : null;
}

/** How many proposals wait for a reviewer (the proposals_open gauge). */
export async function countOpenProposals(db: Database): Promise<number> {
  return db.kbProposal.count({ where: { status: "OPEN" } });
}
