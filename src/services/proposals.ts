/**
 * Proposals: changes of the knowledge base derived from upstream sources
 * (kb:derive's sections), filed once each and reviewed by a person before
 * anything answers with them. Responsible for turning derived records into
 * proposals (what changes against the knowledge base, the revision it was
 * derived against, its schema problems, its fingerprint), and for a
 * reviewer's decisions: an approval is an audited edit of the Curator (same
 * role, revisions and conflict rules as any edit, the snapshot published
 * before the answer), a rejection keeps its reason. Talks to the store; never
 * to HTTP.
 */
import crypto from "node:crypto";
import type { z } from "zod";
import { ConflictError, InputError, NotFoundError, type KubecompatError } from "../core/errors.js";
import type { Principal } from "../core/tokens.js";
import { canonical, changedFields } from "../knowledge/diff.js";
import type { EntityName, KbBundle } from "../knowledge/records.js";
import { ENTITIES, recordKey } from "../knowledge/registry.js";
import type { Database } from "../db/client.js";
import {
  listProposals,
  markRejected,
  readProposal,
  readProposals,
  type ProposalProblem,
  type ProposalStatus,
  type ProposalToFile,
  type StoredProposal,
} from "../db/proposal-store.js";
import { actorOf, requireEditor, validRecord, type Curator } from "./curation.js";
import type { EditRequest } from "./edits.js";

export type { ProposalStatus, StoredProposal } from "../db/proposal-store.js";

/** A record a derivation proposes: new to the knowledge base, or a kb record with upstream values put in. */
export interface DerivedRecord {
  readonly change: "new" | "changed";
  readonly key: string;
  readonly record: Readonly<Record<string, unknown>>;
}

/** What one derivation read and what it proposes for one kind of knowledge (kb:derive's Section has this shape). */
export interface DerivedSection {
  readonly entity: EntityName;
  /** What was read, e.g. "kubernetes/api at kubernetes-1.37.0 (82c0029e)". */
  readonly from: string;
  readonly proposals: readonly DerivedRecord[];
}

/**
 * Fields that say where a fact comes from, not the fact: a later upstream
 * commit stating the same facts links another blob and notes another commit,
 * and must not be proposed again (nor come back after a rejection).
 */
const PROVENANCE_FIELDS = new Set(["sourceUrl", "notes"]);

/** Identifies an upstream change by what it changes: sha256 of the canonical JSON of entity, key, action and the proposed facts. */
export function proposalFingerprint(
  proposal: Pick<ProposalToFile, "entity" | "key" | "action" | "record" | "changedFields">,
): string {
  const record = (proposal.record ?? {}) as Record<string, unknown>;
  const fields =
    proposal.action === "create" ? Object.keys(record) : [...proposal.changedFields].sort();
  const values = Object.fromEntries(
    fields.filter((field) => !PROVENANCE_FIELDS.has(field)).map((field) => [field, record[field]]),
  );
  const facts = proposal.action === "retire" ? null : values;
  return crypto
    .createHash("sha256")
    .update(
      canonical({ entity: proposal.entity, key: proposal.key, action: proposal.action, facts }),
    )
    .digest("hex");
}

/** The schema's complaints about a proposed record, each with the field to fill in or fix. */
export function recordProblems(entity: EntityName, record: object): ProposalProblem[] {
  const parsed = (ENTITIES[entity].schema as unknown as z.ZodType).safeParse(record);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join(".") : "(record)",
    message: issue.message,
  }));
}

function withoutRevision(record: object): Record<string, unknown> {
  const { revision: _revision, ...fields } = record as Record<string, unknown>;
  return fields;
}

/**
 * One derived record against the knowledge base's record of its key: a
 * create when there is none, else an update of the fields that differ (none:
 * nothing to propose). A "new" record whose key the knowledge base holds
 * already (derived against another copy of it) proposes only its derived
 * values: the fields it leaves null keep the knowledge base's.
 */
function proposalOf(
  entity: EntityName,
  derived: DerivedRecord,
  current: object | undefined,
): Omit<ProposalToFile, "source" | "sourceRevision" | "derivation" | "fingerprint"> | undefined {
  const proposed = withoutRevision(derived.record);
  if (current === undefined) {
    return {
      entity,
      key: derived.key,
      action: "create",
      record: proposed,
      changedFields: [],
      baseRevision: null,
      problems: recordProblems(entity, proposed),
    };
  }
  const base = withoutRevision(current);
  const record =
    derived.change === "new"
      ? {
          ...base,
          ...Object.fromEntries(Object.entries(proposed).filter(([, value]) => value !== null)),
        }
      : proposed;
  const changed = changedFields(base, record);
  if (changed.length === 0) return undefined;
  return {
    entity,
    key: derived.key,
    action: "update",
    record,
    changedFields: changed,
    baseRevision: (current as { revision?: number }).revision ?? null,
    problems: recordProblems(entity, record),
  };
}

/**
 * kb:derive's sections as proposals against the knowledge base `bundle`
 * (records with their revisions, as the database holds them): one per
 * record that would change, with where it was read and its fingerprint.
 */
export function proposalsFrom(
  sections: readonly DerivedSection[],
  derivation: string,
  sourceRevision: string,
  bundle: KbBundle,
): ProposalToFile[] {
  const proposals: ProposalToFile[] = [];
  for (const section of sections) {
    const records = bundle[section.entity] as readonly object[];
    const byKey = new Map(
      records.map((record) => [recordKey(section.entity, record as never), record]),
    );
    for (const derived of section.proposals) {
      const proposal = proposalOf(section.entity, derived, byKey.get(derived.key));
      if (proposal === undefined) continue;
      proposals.push({
        ...proposal,
        source: section.from,
        sourceRevision,
        derivation,
        fingerprint: proposalFingerprint(proposal),
      });
    }
  }
  return proposals;
}

/** Which proposals a list shows: open (the queue), a decided status, or all. */
export const PROPOSAL_FILTERS = ["open", "approved", "rejected", "all"] as const;
export type ProposalFilter = (typeof PROPOSAL_FILTERS)[number];

/** One approval's outcome: the proposal as now recorded, or why its edit was refused (nothing of it applied). */
export type ApprovalOutcome =
  | { readonly id: number; readonly ok: true; readonly proposal: StoredProposal }
  | { readonly id: number; readonly ok: false; readonly error: KubecompatError };

const MAX_REASON = 500;
const MAX_APPROVALS = 100;

/** The review queue: list, show, approve and reject proposals. */
export class ProposalReview {
  constructor(
    private readonly db: Database,
    private readonly curator: Curator,
  ) {}

  list(filter: ProposalFilter, limit: number): Promise<StoredProposal[]> {
    const status: ProposalStatus | null = filter === "all" ? null : STATUS_OF[filter];
    return listProposals(this.db, status, limit);
  }

  async show(id: number): Promise<StoredProposal> {
    const proposal = await readProposal(this.db, id);
    if (proposal === null) throw new NotFoundError(`no proposal has the id ${id}`);
    return proposal;
  }

  /**
   * Applies the proposals' edits as one group (one transaction), then marks
   * each applied one APPROVED with the revision it produced. Unknown,
   * repeated or decided ids, and a proposal with problems left, refuse the
   * whole request before anything is applied; an edit the knowledge base
   * refuses (a record changed since the derivation: CONFLICT) is reported
   * for its proposal and the others go on. `finished` (a reviewer's finished
   * record) replaces the proposed one, for one proposal only.
   */
  async approve(
    principal: Principal,
    ids: readonly number[],
    finished?: unknown,
  ): Promise<ApprovalOutcome[]> {
    requireEditor(principal);
    const proposals = await this.openProposals(ids);
    if (finished !== undefined && proposals.length !== 1)
      throw new InputError("a finished record goes with the approval of one proposal", "record");
    const actor = actorOf(principal);
    const edits = proposals.map((proposal) => ({
      ...editOf(proposal, actor, finished),
      approves: proposal.id,
    }));
    let outcomes: Awaited<ReturnType<Curator["editGroup"]>>;
    try {
      outcomes = await this.curator.editGroup(principal, edits);
    } catch (error) {
      // The group is refused whole when a proposal was decided meanwhile: say which, nothing was applied.
      const closed = (await readProposals(this.db, ids)).find((p) => p.status !== "OPEN");
      if (closed !== undefined) throw decided(closed, "; nothing was applied");
      throw error;
    }
    // Approved in the edits' own transaction: read back as now recorded.
    const recorded = new Map((await readProposals(this.db, ids)).map((p) => [p.id, p]));
    return outcomes.map((outcome, index) => {
      const { id } = proposals[index]!;
      return outcome.ok
        ? { id, ok: true as const, proposal: recorded.get(id)! }
        : { id, ok: false as const, error: outcome.error };
    });
  }

  async reject(principal: Principal, id: number, reason: unknown): Promise<StoredProposal> {
    requireEditor(principal);
    const text = typeof reason === "string" ? reason.trim() : "";
    if (text.length === 0 || text.length > MAX_REASON)
      throw new InputError(
        `give the reason for rejecting (1 to ${MAX_REASON} characters): it is kept with the proposal`,
        "reason",
      );
    const proposal = await this.show(id);
    if (proposal.status !== "OPEN") throw decided(proposal);
    const rejected = await markRejected(this.db, id, {
      actor: actorOf(principal).name,
      reason: text,
    });
    if (rejected === null) throw decided(await this.show(id));
    return rejected;
  }

  /** The proposals of `ids`, in that order, every one open (else nothing is applied). */
  private async openProposals(ids: readonly number[]): Promise<StoredProposal[]> {
    if (ids.length === 0 || ids.length > MAX_APPROVALS)
      throw new InputError(`give 1 to ${MAX_APPROVALS} proposal ids to approve`, "ids");
    if (new Set(ids).size !== ids.length)
      throw new InputError("an id is given twice; give each proposal once", "ids");
    const found = new Map((await readProposals(this.db, ids)).map((entry) => [entry.id, entry]));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw new NotFoundError(`no proposal has the id ${missing.join(", ")}; nothing was applied`);
    const proposals = ids.map((id) => found.get(id)!);
    const closed = proposals.find((proposal) => proposal.status !== "OPEN");
    if (closed !== undefined) throw decided(closed, "; nothing was applied");
    return proposals;
  }
}

const STATUS_OF: Record<Exclude<ProposalFilter, "all">, ProposalStatus> = {
  open: "OPEN",
  approved: "APPROVED",
  rejected: "REJECTED",
};

function decided(proposal: StoredProposal, suffix = ""): ConflictError {
  const when = proposal.decidedAt?.toISOString() ?? "earlier";
  const why = proposal.reason === null ? "" : ` (${proposal.reason})`;
  return new ConflictError(
    `proposal ${proposal.id} was already ${proposal.status.toLowerCase()} by ${proposal.decidedBy ?? "someone"} at ${when}${why}${suffix}`,
    [{ field: "id", message: `status ${proposal.status}` }],
  );
}

/** The edit a proposal asks for; a proposal with problems needs the reviewer's finished record. */
function editOf(
  proposal: StoredProposal,
  actor: { name: string; role: string },
  finished: unknown,
): EditRequest {
  const entity = proposal.entity as EntityName;
  if (!(entity in ENTITIES))
    throw new InputError(
      `proposal ${proposal.id} is for "${entity}", a kind this service does not hold`,
      "id",
    );
  if (proposal.action === "retire")
    return {
      entity,
      action: "retire",
      key: proposal.key,
      expectedRevision: proposal.baseRevision ?? 0,
      actor,
    };
  if (finished === undefined && proposal.problems.length > 0)
    throw new InputError(
      `proposal ${proposal.id} cannot be applied as it is: fill in ${proposal.problems.map((problem) => `${problem.field} (${problem.message})`).join(", ")}; approve it with the finished record`,
      proposal.problems[0]!.field,
      proposal.problems.map((problem) => ({
        field: `record.${problem.field}`,
        message: problem.message,
      })),
    );
  const record = validRecord(entity, finished ?? proposal.record);
  if (recordKey(entity, record as never) !== proposal.key)
    throw new InputError(
      `the finished record's key is "${recordKey(entity, record as never)}", not the proposal's "${proposal.key}"`,
      "record",
    );
  return proposal.action === "create"
    ? { entity, action: "create", record, actor }
    : {
        entity,
        action: "update",
        key: proposal.key,
        record,
        expectedRevision: proposal.baseRevision ?? 0,
        actor,
      };
}
