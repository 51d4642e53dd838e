/**
 * Owns every SQL statement about the knowledge base: reading it whole (to
 * build a snapshot) and bringing it in line with a desired bundle in one
 * transaction (import). Records are the shapes of src/kb/records.ts; this
 * module alone knows how they map to columns.
 */
import { diffBundles, type RecordChange } from "../kb/diff.js";
import { ConflictError, InputError, NotFoundError, type KbIssue } from "../errors.js";
import { ENTITY_NAMES, recordKey, type EntityName, type KbBundle } from "../kb/records.js";
import type { Database } from "./client.js";

type Transaction = Parameters<Parameters<Database["$transaction"]>[0]>[0];
type Executor = Database | Transaction;
type Row = Record<string, unknown>;

/** The minimal delegate surface the generic sync needs; every Prisma model delegate has it. */
interface Delegate {
  findMany(args: { orderBy: { id: "asc" } }): Promise<Row[]>;
  createMany(args: { data: Row[] }): Promise<unknown>;
  update(args: { where: { id: number }; data: Row }): Promise<unknown>;
  delete(args: { where: { id: number } }): Promise<unknown>;
}

interface Mapping {
  readonly model: string;
  /** record field → column, where they differ */
  readonly columns?: Readonly<Record<string, string>>;
  readonly dateFields?: readonly string[];
  readonly enumFields?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

const RELATIVE_TO = { "kube-apiserver": "KUBE_APISERVER", "kube-apiserver-peers": "KUBE_APISERVER_PEERS", kubelet: "KUBELET" };

const MAPPINGS: Readonly<Record<EntityName, Mapping>> = {
  components: { model: "component" },
  profiles: { model: "policyProfile" },
  ports: { model: "port", columns: { component: "componentName" } },
  links: { model: "communicationLink", columns: { from: "fromComponent", to: "toComponent" } },
  skewRules: {
    model: "skewRule",
    columns: { id: "ruleId", profile: "profileName", component: "componentName" },
    enumFields: { relativeTo: RELATIVE_TO },
  },
  apiRemovals: { model: "apiRemoval" },
  releases: { model: "release", dateFields: ["releaseDate", "endOfStandardSupport", "endOfLife", "latestPatchDate"] },
  upgradeDependencies: { model: "upgradeDependency", columns: { before: "beforeComponent", after: "afterComponent" } },
  runtimeRequirements: {
    model: "runtimeRequirement",
    columns: { id: "requirementId", component: "componentName", requires: "requiresComponent" },
  },
  recommendations: { model: "recommendation", columns: { id: "recommendationId" } },
  flagChanges: { model: "flagChange", columns: { id: "changeId", component: "componentName" } },
  proxyModes: { model: "proxyMode" },
};

// Bookkeeping columns that are not part of a record. Each record's `revision`
// is read along (clients send it back with an update) but never written from a record.
const SYSTEM_COLUMNS = new Set(["id", "updatedAt"]);

function delegate(db: Executor, entity: EntityName): Delegate {
  return (db as unknown as Record<string, Delegate>)[MAPPINGS[entity].model] as Delegate;
}

function toColumns(entity: EntityName, record: object): Row {
  const mapping = MAPPINGS[entity];
  const row: Row = {};
  for (const [field, value] of Object.entries(record)) {
    if (field === "revision") continue;
    if (entity === "skewRules" && field === "condition") {
      const condition = value as { componentOlderThan: string; maxOlder: number } | null;
      row.conditionComponentOlderThan = condition?.componentOlderThan ?? null;
      row.conditionMaxOlder = condition?.maxOlder ?? null;
      continue;
    }
    let column: unknown = value;
    if (mapping.dateFields?.includes(field) && typeof value === "string") column = new Date(`${value}T00:00:00Z`);
    const enumMap = mapping.enumFields?.[field];
    if (enumMap && typeof value === "string") column = enumMap[value];
    row[mapping.columns?.[field] ?? field] = column;
  }
  return row;
}

function fromColumns(entity: EntityName, row: Row): object {
  const mapping = MAPPINGS[entity];
  const fieldOf = new Map(Object.entries(mapping.columns ?? {}).map(([field, column]) => [column, field]));
  const record: Row = {};
  for (const [column, value] of Object.entries(row)) {
    if (SYSTEM_COLUMNS.has(column)) continue;
    if (entity === "skewRules" && (column === "conditionComponentOlderThan" || column === "conditionMaxOlder")) continue;
    const field = fieldOf.get(column) ?? column;
    let converted: unknown = value;
    if (value instanceof Date && mapping.dateFields?.includes(field)) converted = value.toISOString().slice(0, 10);
    const enumMap = mapping.enumFields?.[field];
    if (enumMap && typeof value === "string") {
      converted = Object.entries(enumMap).find(([, column]) => column === value)?.[0] ?? value;
    }
    record[field] = converted;
  }
  if (entity === "skewRules") {
    record.condition =
      row.conditionComponentOlderThan === null
        ? null
        : { componentOlderThan: row.conditionComponentOlderThan, maxOlder: row.conditionMaxOlder };
  }
  return record;
}

export interface StoredKnowledgeBase {
  readonly bundle: KbBundle;
  readonly revision: number;
  readonly lastImportAt: Date | null;
}

interface StoredRows {
  readonly bundle: KbBundle;
  readonly ids: ReadonlyMap<string, number>;
}

async function readRows(db: Executor): Promise<StoredRows> {
  const ids = new Map<string, number>();
  const bundle: Record<string, object[]> = {};
  for (const entity of ENTITY_NAMES) {
    const rows = await delegate(db, entity).findMany({ orderBy: { id: "asc" } });
    bundle[entity] = rows.map((row) => {
      const record = fromColumns(entity, row);
      ids.set(`${entity}\u0000${recordKey(entity, record as never)}`, row.id as number);
      return record;
    });
  }
  return { bundle: bundle as unknown as KbBundle, ids };
}

/** Reads the whole knowledge base and its revision in one consistent transaction. */
export async function readKnowledgeBase(db: Database): Promise<StoredKnowledgeBase> {
  return db.$transaction(
    async (tx) => {
      const state = await tx.kbState.findUnique({ where: { id: 1 } });
      const { bundle } = await readRows(tx);
      return { bundle, revision: state?.revision ?? 0, lastImportAt: state?.lastImportAt ?? null };
    },
    { isolationLevel: "RepeatableRead", timeout: 30_000 },
  );
}

/** The current revision, cheap enough to poll. */
export async function readRevision(db: Database): Promise<number> {
  const state = await db.kbState.findUnique({ where: { id: 1 }, select: { revision: true } });
  return state?.revision ?? 0;
}

export interface SyncResult {
  readonly changed: boolean;
  readonly revisionBefore: number;
  readonly revision: number;
  readonly changes: readonly RecordChange[];
}

// Serialises imports across replicas (any constant, the same everywhere).
const KB_WRITE_LOCK_ID = 72_707_369;

/**
 * Makes the database hold exactly `desired`: creates, updates (bumping each
 * record's revision) and deletes by natural key, bumps the knowledge-base
 * revision once and records the import, all in one transaction. When nothing
 * differs it writes nothing at all.
 */
export async function syncKnowledgeBase(
  db: Database,
  desired: KbBundle,
  source: string,
  actor: Actor = { name: "system:import", role: "admin" },
): Promise<SyncResult> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KB_WRITE_LOCK_ID}::bigint)`;
      const state = await tx.kbState.findUnique({ where: { id: 1 } });
      const revisionBefore = state?.revision ?? 0;
      const current = await readRows(tx);
      const changes = diffBundles(current.bundle, desired);
      if (changes.length === 0) return { changed: false, revisionBefore, revision: revisionBefore, changes };

      const byAction = (entity: EntityName, action: RecordChange["action"]): Set<string> =>
        new Set(changes.filter((change) => change.entity === entity && change.action === action).map((change) => change.key));

      // Dependents go first when deleting, referenced records first when writing.
      for (const entity of [...ENTITY_NAMES].reverse()) {
        for (const key of byAction(entity, "delete")) {
          await delegate(tx, entity).delete({ where: { id: current.ids.get(`${entity}\u0000${key}`) as number } });
        }
      }
      for (const entity of ENTITY_NAMES) {
        const records = desired[entity] as readonly object[];
        const keyOf = (record: object): string => recordKey(entity, record as never);
        const creates = byAction(entity, "create");
        const updates = byAction(entity, "update");
        const toCreate = orderForInsert(entity, records.filter((record) => creates.has(keyOf(record))));
        if (toCreate.length > 0) {
          await delegate(tx, entity).createMany({ data: toCreate.map((record) => toColumns(entity, record)) });
        }
        for (const record of records.filter((candidate) => updates.has(keyOf(candidate)))) {
          await delegate(tx, entity).update({
            where: { id: current.ids.get(`${entity}\u0000${keyOf(record)}`) as number },
            data: { ...toColumns(entity, record), revision: { increment: 1 } },
          });
        }
      }

      const revision = revisionBefore + 1;
      const now = new Date();
      await tx.kbState.upsert({
        where: { id: 1 },
        create: { id: 1, revision, lastImportAt: now },
        update: { revision, lastImportAt: now },
      });
      const count = (action: RecordChange["action"]): number => changes.filter((change) => change.action === action).length;
      await tx.kbImport.create({
        data: {
          source,
          revisionBefore,
          revisionAfter: revision,
          created: count("create"),
          updated: count("update"),
          deleted: count("delete"),
          changes: changes.map((change) => ({ ...change })),
        },
      });
      await tx.auditEntry.create({
        data: {
          actor: actor.name,
          actorRole: actor.role,
          action: "kb.import",
          entity: "kb",
          key: source,
          after: { created: count("create"), updated: count("update"), deleted: count("delete"), changes: changes.slice(0, 500).map((change) => ({ ...change })) },
          kbRevision: revision,
        },
      });
      await tx.$executeRaw`SELECT pg_notify(${KB_CHANGED_CHANNEL}, ${String(revision)})`;
      return { changed: true, revisionBefore, revision, changes };
    },
    { isolationLevel: "ReadCommitted", timeout: 120_000, maxWait: 30_000 },
  );
}

/** Profiles reference their parent: insert parents before children. */
function orderForInsert(entity: EntityName, records: readonly object[]): object[] {
  if (entity !== "profiles") return [...records];
  const depth = (record: object): number => {
    let level = 0;
    let parent = (record as { extends: string | null }).extends;
    while (parent !== null && level < records.length) {
      level += 1;
      parent = (records.find((candidate) => (candidate as { name: string }).name === parent) as { extends: string | null } | undefined)?.extends ?? null;
    }
    return level;
  };
  return [...records].sort((a, b) => depth(a) - depth(b));
}


export interface Actor {
  readonly name: string;
  readonly role: string;
}

export interface EditRequest {
  readonly entity: EntityName;
  readonly action: "create" | "update" | "retire";
  /** Natural key of the record to update or retire. */
  readonly key?: string;
  /** The validated record to create, or to replace the stored one with. */
  readonly record?: object;
  /** The revision the caller read; required for update and retire. */
  readonly expectedRevision?: number;
  readonly actor: Actor;
}

export interface EditResult {
  readonly entity: EntityName;
  readonly key: string;
  /** The record as stored now (with its revision), or null when retired. */
  readonly record: object | null;
  readonly kbRevision: number;
}

/** The channel replicas listen on for knowledge-base changes. */
export const KB_CHANGED_CHANNEL = "kubecompat_kb_changed";

/**
 * Applies one edit in one transaction, serialised with every other write by
 * a row lock on the knowledge-base state: checks the revision the caller
 * read (a stale one is a CONFLICT naming the current revision, so no update
 * is lost), checks the whole knowledge base still holds together with the
 * change (`crossCheck`), writes the record, bumps its revision and the
 * knowledge base's, records the audit entry, and notifies the replicas.
 */
export async function applyEdit(db: Database, edit: EditRequest, crossCheck: (bundle: KbBundle) => KbIssue[]): Promise<EditResult> {
  return db.$transaction(
    async (tx) => {
      // The same lock as imports: every write to the knowledge base happens one at a time.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KB_WRITE_LOCK_ID}::bigint)`;
      const state = await tx.kbState.upsert({ where: { id: 1 }, create: { id: 1, revision: 0 }, update: {} });
      const kbRevisionBefore = state.revision;
      const current = await readRows(tx);
      const { entity } = edit;
      const records = current.bundle[entity] as readonly object[];
      const keyOf = (record: object): string => recordKey(entity, record as never);
      const key = edit.action === "create" ? keyOf(edit.record!) : edit.key!;
      const existing = records.find((record) => keyOf(record) === key);

      if (edit.action === "create") {
        if (existing !== undefined) {
          throw new ConflictError(`${entity} "${key}" exists already (revision ${revisionOf(existing)}); update it instead`, [
            { field: "key", message: `current revision ${revisionOf(existing)}` },
          ]);
        }
      } else {
        if (existing === undefined) throw new NotFoundError(`no ${entity} record has the key "${key}"`);
        if (edit.expectedRevision !== revisionOf(existing)) {
          throw new ConflictError(
            `${entity} "${key}" is at revision ${revisionOf(existing)}, not ${edit.expectedRevision}: someone changed it since you read it; read it again and reapply your change`,
            [{ field: "revision", message: `current revision ${revisionOf(existing)}` }],
          );
        }
        if (edit.action === "update" && keyOf(edit.record!) !== key) {
          throw new InputError(
            `the update changes the record's key from "${key}" to "${keyOf(edit.record!)}"; retire the record and create the new one instead`,
            "key",
          );
        }
      }

      const next = records.filter((record) => keyOf(record) !== key);
      if (edit.action !== "retire") next.push(edit.record!);
      const issues = crossCheck({ ...current.bundle, [entity]: next });
      if (issues.length > 0) {
        throw new InputError(
          `the change would leave the knowledge base inconsistent: ${issues.map((issue) => issue.message).join("; ")}`,
          issues[0]?.field,
          issues.map((issue) => ({ field: issue.field, message: `${issue.entry ?? issue.file}: ${issue.message}` })),
        );
      }

      const id = current.ids.get(`${entity}\u0000${key}`);
      let stored: Row | null = null;
      if (edit.action === "create") {
        stored = (await (delegate(tx, entity) as unknown as { create(args: { data: Row }): Promise<Row> }).create({ data: toColumns(entity, edit.record!) }));
      } else if (edit.action === "update") {
        stored = (await delegate(tx, entity).update({
          where: { id: id! },
          data: { ...toColumns(entity, edit.record!), revision: { increment: 1 } },
        })) as Row;
      } else {
        await delegate(tx, entity).delete({ where: { id: id! } });
      }
      const kbRevision = kbRevisionBefore + 1;
      await tx.kbState.update({ where: { id: 1 }, data: { revision: kbRevision } });
      const after = stored === null ? null : fromColumns(entity, stored);
      await tx.auditEntry.create({
        data: {
          actor: edit.actor.name,
          actorRole: edit.actor.role,
          action: `${entity}.${edit.action}`,
          entity,
          key,
          before: existing === undefined ? undefined : (existing),
          after: after === null ? undefined : after,
          kbRevision,
        },
      });
      await tx.$executeRaw`SELECT pg_notify(${KB_CHANGED_CHANNEL}, ${String(kbRevision)})`;
      return { entity, key, record: after, kbRevision };
    },
    { isolationLevel: "ReadCommitted", timeout: 30_000, maxWait: 20_000 },
  );
}

function revisionOf(record: object): number {
  return (record as { revision?: number }).revision ?? 0;
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
