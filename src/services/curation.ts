/**
 * Curating the knowledge base at run time: edits (create, update, retire),
 * import of a whole bundle, export, and the audit trail. Responsible for
 * who may do what (roles), validating records with the same schemas as
 * kb/, and publishing the new snapshot before answering, so the next query
 * anywhere in this instance sees the change. Talks to the store; never to HTTP.
 */
import { requireRole, type Principal } from "../core/tokens.js";
import { readAudit, type AuditQuery } from "../db/kb-audit.js";
import {
  applyEdits,
  type EditOutcome,
  type GroupOutcome,
  type EditRequest,
  type EditResult,
  type KnownKnowledgeBase,
} from "./edits.js";
import { syncKnowledgeBase, type SyncResult } from "./bundle-import.js";

/** At most this many edits go into one transaction; more wait for the next. */
const MAX_EDITS_PER_COMMIT = 100;
import type { Database } from "../db/client.js";
import { InputError, UnauthenticatedError } from "../core/errors.js";
import type { KnowledgeBase } from "./knowledge-base.js";
import { parseKbFiles, type KbFiles } from "../knowledge/parse.js";
import { type EntityName } from "../knowledge/records.js";
import { ENTITIES, ENTITY_NAMES } from "../knowledge/registry.js";
import { crossCheckBundle } from "../knowledge/validate.js";

export interface CuratorOptions {
  /**
   * Under steady writes, a group of edits starts at most this often (ms):
   * edits arriving sooner wait and go together. 0 starts each group as soon
   * as the one before it committed. An edit after a quiet spell never waits.
   */
  readonly gatherMs?: number;
}

export class Curator {
  private readonly gatherMs: number;

  constructor(
    private readonly db: Database,
    private readonly kb: KnowledgeBase,
    options: CuratorOptions = {},
  ) {
    this.gatherMs = options.gatherMs ?? 0;
  }

  async create(
    principal: Principal,
    entity: EntityName,
    input: unknown,
    options: EditOptions = {},
  ): Promise<EditResult> {
    requireEditor(principal);
    const record = validRecord(entity, input);
    const idempotencyKey = validIdempotencyKey(options.idempotencyKey);
    return this.edit({
      entity,
      action: "create",
      record,
      actor: actorOf(principal),
      idempotencyKey,
    });
  }

  async update(
    principal: Principal,
    entity: EntityName,
    key: string,
    revision: unknown,
    input: unknown,
    options: EditOptions = {},
  ): Promise<EditResult> {
    requireEditor(principal);
    const expectedRevision = validRevision(revision);
    const record = validRecord(entity, input);
    const idempotencyKey = validIdempotencyKey(options.idempotencyKey);
    return this.edit({
      entity,
      action: "update",
      key,
      record,
      expectedRevision,
      actor: actorOf(principal),
      idempotencyKey,
    });
  }

  async retire(
    principal: Principal,
    entity: EntityName,
    key: string,
    revision: unknown,
    options: EditOptions = {},
  ): Promise<EditResult> {
    requireEditor(principal);
    const expectedRevision = validRevision(revision);
    const idempotencyKey = validIdempotencyKey(options.idempotencyKey);
    return this.edit({
      entity,
      action: "retire",
      key,
      expectedRevision,
      actor: actorOf(principal),
      idempotencyKey,
    });
  }

  /** Validates the whole bundle first (every invalid record is reported), then applies it in one transaction. */
  async import(principal: Principal, files: KbFiles): Promise<SyncResult> {
    requireSignedIn(principal);
    requireRole(principal, "admin", "importing a knowledge-base bundle");
    const bundle = parseKbFiles(files);
    const result = await syncKnowledgeBase(
      this.db,
      bundle,
      `upload by ${principal.name}`,
      actorOf(principal),
    );
    await this.kb.publish(result.revision);
    return result;
  }

  async audit(principal: Principal, query: AuditQuery) {
    requireSignedIn(principal);
    requireRole(principal, "admin", "reading the audit trail");
    return readAudit(this.db, query);
  }

  /**
   * Edits of this instance are committed in groups: the edits that arrive
   * while a group is being written go together in the next transaction
   * (one lock, one notification, one new snapshot for all of them). They
   * would queue on the database's write lock anyway, and there each waiting
   * edit would hold a pooled connection that snapshot loads and token
   * lookups need. Each edit is answered once its group committed and this
   * instance's snapshot holds it (see publishEdits). A committed edit is a
   * success whatever happens next: the snapshot catches up before the answer
   * unless the database fails right then, and the change listener or the
   * poll brings it in as soon as the database answers.
   */
  private edit(request: EditRequest): Promise<EditResult> {
    return new Promise<EditResult>((resolve, reject) => {
      this.pending.push({ request, resolve, reject });
      void this.drain();
    });
  }

  private readonly pending: Array<{
    request: EditRequest;
    resolve: (result: EditResult) => void;
    reject: (error: unknown) => void;
  }> = [];
  private draining = false;
  private lastGroupAt = Number.NEGATIVE_INFINITY;

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.pending.length > 0) {
        const wait = this.lastGroupAt + this.gatherMs - performance.now();
        if (wait > 0 && this.pending.length < MAX_EDITS_PER_COMMIT)
          await new Promise((resolve) => setTimeout(resolve, wait));
        this.lastGroupAt = performance.now();
        const group = this.pending.splice(0, MAX_EDITS_PER_COMMIT);
        let committed: GroupOutcome;
        try {
          committed = await this.commitGroup(group.map((entry) => entry.request));
        } catch (error) {
          for (const entry of group) entry.reject(error);
          continue;
        }
        committed.outcomes.forEach((outcome, index) =>
          outcome.ok ? group[index]!.resolve(outcome.result) : group[index]!.reject(outcome.error),
        );
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * Edits that must go together (approving several proposals): one group,
   * one transaction, published like any other group; each edit's outcome,
   * in order. The group is not split or joined with other callers' edits.
   */
  async editGroup(principal: Principal, requests: readonly EditRequest[]): Promise<EditOutcome[]> {
    requireEditor(principal);
    return (await this.commitGroup(requests)).outcomes;
  }

  /** One group committed and published: the snapshot holds its edits before anyone is answered. */
  private async commitGroup(requests: readonly EditRequest[]): Promise<GroupOutcome> {
    this.kb.beginWrite();
    try {
      const committed = await applyEdits(this.db, requests, crossCheckBundle, this.known());
      await this.kb.publishEdits(
        committed.outcomes.flatMap((outcome) => (outcome.ok ? [outcome.result] : [])),
        committed.lists,
      );
      return committed;
    } finally {
      this.kb.endWrite();
    }
  }

  private known(): KnownKnowledgeBase | undefined {
    if (!this.kb.loaded) return undefined;
    const snapshot = this.kb.current();
    return {
      revision: snapshot.revision,
      bundle: snapshot,
      conflicts: new Set(
        snapshot.conflicts.map((conflict) => `${conflict.entity}\u0000${conflict.key}`),
      ),
    };
  }
}

export interface EditOptions {
  /** Idempotency-Key: a retry with the same key answers the first result instead of applying the edit again. */
  readonly idempotencyKey?: string | null | undefined;
}

function validIdempotencyKey(key: unknown): string | undefined {
  if (key === undefined || key === null) return undefined;
  if (typeof key !== "string" || !/^[\x21-\x7e]{1,200}$/.test(key)) {
    throw new InputError(
      "the Idempotency-Key must be 1 to 200 visible ASCII characters, e.g. a UUID",
      "idempotencyKey",
    );
  }
  return key;
}

export function actorOf(principal: Principal): { name: string; role: string } {
  return { name: principal.name, role: principal.role ?? "none" };
}

function requireSignedIn(principal: Principal): void {
  if (principal.role === null)
    throw new UnauthenticatedError("this needs an API token: send Authorization: Bearer <token>");
}

export function requireEditor(principal: Principal): void {
  requireSignedIn(principal);
  requireRole(principal, "editor", "editing the knowledge base");
}

function validRevision(revision: unknown): number {
  if (typeof revision === "string" && /^\d{1,9}$/.test(revision)) return Number(revision);
  if (typeof revision !== "number" || !Number.isInteger(revision) || revision < 1) {
    throw new InputError(
      "revision is required: send the revision of the record you read (a positive whole number)",
      "revision",
    );
  }
  return revision;
}

/** What reads add to a record (the snapshot's revision, a release's computed support): sent back with an edit, they are ignored. */
const READ_ONLY_FIELDS = ["kbRevision", "support"];

/** The record checked by the same zod schema as kb/, with every problem named. */
export function validRecord(entity: EntityName, input: unknown): object {
  const record =
    input !== null && typeof input === "object" && !Array.isArray(input)
      ? Object.fromEntries(
          Object.entries(input).filter(([field]) => !READ_ONLY_FIELDS.includes(field)),
        )
      : input;
  const parsed = ENTITIES[entity].schema.safeParse(record);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((issue) => ({
    field: issue.path.length > 0 ? `record.${issue.path.join(".")}` : "record",
    message: `${issue.path.length > 0 ? issue.path.join(".") : "record"}: ${issue.code === "unrecognized_keys" ? `unknown field ${issue.keys.map((key) => `"${key}"`).join(", ")}` : issue.message}`,
  }));
  throw new InputError(
    `the ${entity} record is invalid: ${details.map((detail) => detail.message).join("; ")}`,
    details[0]?.field,
    details,
  );
}

export const EDITABLE_ENTITIES: readonly EntityName[] = ENTITY_NAMES;
