/**
 * The audit trail of the knowledge base: its entries as an edit writes them,
 * the entries an import or a merge writes, and reading the trail back.
 */
import { type Database } from "./client.js";
import { type Transaction } from "./kb-records.js";
import { type Prisma } from "./generated/client.js";

/** An edit as its audit entry tells it (an accepted edit of src/services/edit-judgement.ts). */
export interface AuditedEdit {
  readonly edit: {
    readonly entity: string;
    readonly action: string;
    readonly actor: { readonly name: string; readonly role: string };
  };
  readonly key: string;
  readonly existing: object | undefined;
  readonly kbRevision: number;
}

/** The audit entry of an accepted edit, with the record as stored after it (`after`). */
export function auditRow(entry: AuditedEdit, after: object | null) {
  return {
    actor: entry.edit.actor.name,
    actorRole: entry.edit.actor.role,
    action: `${entry.edit.entity}.${entry.edit.action}`,
    entity: entry.edit.entity,
    key: entry.key,
    before: entry.existing,
    after: after ?? undefined,
    kbRevision: entry.kbRevision,
  };
}

/** An audit entry an import or a merge writes. */
export type AuditEntryInput = Prisma.AuditEntryCreateInput;

export async function writeAuditEntry(tx: Transaction, entry: AuditEntryInput): Promise<void> {
  await tx.auditEntry.create({ data: entry });
}

export interface AuditQuery {
  readonly entity?: string;
  readonly key?: string;
  readonly actor?: string;
  readonly limit: number;
  /** Entries with an id below this one (paging backwards in time). */
  readonly before?: number;
}

export async function readAudit(db: Database, query: AuditQuery) {
  return db.auditEntry.findMany({
    where: {
      ...(query.entity ? { entity: query.entity } : {}),
      ...(query.key ? { key: query.key } : {}),
      ...(query.actor ? { actor: query.actor } : {}),
      ...(query.before ? { id: { lt: query.before } } : {}),
    },
    orderBy: { id: "desc" },
    take: query.limit,
  });
}
