/**
 * How knowledge-base records map to rows: a kind with a table of its own
 * (columns named in the registry's store mapping) or a kind kept as JSON in
 * KbDocument. This module alone knows how records map to columns, and what
 * a record looks like once the database gives it back (storedForm), so the
 * other statements of the store, and the snapshot built after an edit, agree
 * with a reload.
 */
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { ENTITIES, ENTITY_NAMES, recordKey, type StoreMapping } from "../knowledge/registry.js";
import { type Database } from "./client.js";
import { Prisma } from "./generated/client.js";

export type Transaction = Parameters<Parameters<Database["$transaction"]>[0]>[0];
export type Executor = Database | Transaction;
export type Row = Record<string, unknown>;

/** The minimal delegate surface the generic sync needs; every Prisma model delegate has it. */
interface Delegate {
  findMany(args: { orderBy: { id: "asc" } }): Promise<Row[]>;
  createMany(args: { data: Row[] }): Promise<unknown>;
  createManyAndReturn(args: { data: Row[] }): Promise<Row[]>;
  create(args: { data: Row }): Promise<Row>;
  update(args: { where: { id: number }; data: Row }): Promise<Row>;
  delete(args: { where: { id: number } }): Promise<unknown>;
}

// Bookkeeping columns that are not part of a record. Each record's `revision`
// is read along (clients send it back with an update) but never written from a record.
const SYSTEM_COLUMNS = new Set(["id", "updatedAt"]);

// A record's own `id` field (recommendations, skew rules, ...) must not meet the row's primary key: the
// generic table keeps it as recordId, as the typed tables keep it as ruleId, changeId and the like.
const DOCUMENT_COLUMNS = { id: "recordId" };

// Kept per store mapping (a kind registered again at run time brings a new one): an edit maps a record several
// times, and making these afresh each time was a measurable part of an edit's cost under load.
const mappings = new WeakMap<StoreMapping, StoreMapping>();
const fieldsByColumn = new WeakMap<StoreMapping, ReadonlyMap<string, string>>();

export function mappingOf(entity: EntityName): StoreMapping {
  const store = ENTITIES[entity].store;
  if (store.model !== null) return store;
  let mapping = mappings.get(store);
  if (mapping === undefined)
    mappings.set(
      store,
      (mapping = { ...store, columns: { ...DOCUMENT_COLUMNS, ...store.columns } }),
    );
  return mapping;
}

/** Column name → record field, where they differ. */
function fieldOfColumn(mapping: StoreMapping): ReadonlyMap<string, string> {
  let fields = fieldsByColumn.get(mapping);
  if (fields === undefined)
    fieldsByColumn.set(
      mapping,
      (fields = new Map(
        Object.entries(mapping.columns ?? {}).map(([field, column]) => [column, field]),
      )),
    );
  return fields;
}

export function delegate(db: Executor, entity: EntityName): Delegate {
  const model = mappingOf(entity).model;
  return model === null
    ? documents(db, entity)
    : ((db as unknown as Record<string, Delegate>)[model] as Delegate);
}

interface DocumentRow {
  id: number;
  record: unknown;
  revision: number;
  updatedAt: Date;
}

/**
 * A kind registered without a table of its own keeps its records in KbDocument, one row per record with
 * the record as JSON; this adapter gives those rows the same surface as a model delegate, so the sync,
 * the merge and curation need not know the difference.
 */
function documents(db: Executor, entity: EntityName): Delegate {
  const table = (
    db as unknown as { kbDocument: Record<string, (args: unknown) => Promise<unknown>> }
  ).kbDocument;
  const asRow = (document: DocumentRow): Row => ({
    ...(document.record as Row),
    id: document.id,
    revision: document.revision,
    updatedAt: document.updatedAt,
  });
  const recordOf = (data: Row): Row => {
    const { revision: _revision, ...record } = data;
    return record;
  };
  const asDocument = (data: Row): Row => ({
    entity,
    key: recordKey(entity, fromColumns(entity, data) as never),
    record: recordOf(data),
  });
  return {
    findMany: async () =>
      ((await table.findMany!({ where: { entity }, orderBy: { id: "asc" } })) as DocumentRow[]).map(
        asRow,
      ),
    createMany: (args) => table.createMany!({ data: args.data.map(asDocument) }),
    createManyAndReturn: async (args) =>
      (
        (await table.createManyAndReturn!({ data: args.data.map(asDocument) })) as DocumentRow[]
      ).map(asRow),
    create: async (args) =>
      asRow((await table.create!({ data: asDocument(args.data) })) as DocumentRow),
    update: async (args) => {
      const data = {
        ...asDocument(args.data),
        ...(args.data.revision === undefined ? {} : { revision: args.data.revision }),
      };
      return asRow((await table.update!({ where: args.where, data })) as DocumentRow);
    },
    delete: (args) => table.delete!({ where: args.where }),
  };
}

export function toColumns(entity: EntityName, record: object): Row {
  const mapping = mappingOf(entity);
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
    if (mapping.dateFields?.includes(field) && typeof value === "string")
      column = new Date(`${value}T00:00:00Z`);
    const enumMap = mapping.enumFields?.[field];
    if (enumMap && typeof value === "string") column = enumMap[value];
    row[mapping.columns?.[field] ?? field] = column;
  }
  return row;
}

export function fromColumns(entity: EntityName, row: Row): object {
  const mapping = mappingOf(entity);
  const fieldOf = fieldOfColumn(mapping);
  const record: Row = {};
  for (const [column, value] of Object.entries(row)) {
    if (SYSTEM_COLUMNS.has(column)) continue;
    if (
      entity === "skewRules" &&
      (column === "conditionComponentOlderThan" || column === "conditionMaxOlder")
    )
      continue;
    const field = fieldOf.get(column) ?? column;
    let converted: unknown = value;
    if (value instanceof Date && mapping.dateFields?.includes(field))
      converted = value.toISOString().slice(0, 10);
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

export interface StoredRows {
  readonly bundle: KbBundle;
  readonly ids: ReadonlyMap<string, number>;
}

export async function readRows(db: Executor): Promise<StoredRows> {
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

/** The table a kind's records live in, for the edit group commit; undefined when its model cannot be mapped. */
export function tableOf(entity: EntityName): string | undefined {
  const model = mappingOf(entity).model;
  if (model === null) return DOCUMENT_TABLE;
  const name = `${model.charAt(0).toUpperCase()}${model.slice(1)}`;
  return (Prisma.ModelName as Readonly<Record<string, string>>)[name] !== undefined &&
    scalarFieldsOf(name) !== undefined
    ? name
    : undefined;
}

export const DOCUMENT_TABLE = "KbDocument";

const scalarFields = new Map<string, readonly string[] | undefined>();

/** A model's scalar fields in Prisma's order (the order its rows come back in). The generated client does not change while running. */
function scalarFieldsOf(model: string): readonly string[] | undefined {
  if (scalarFields.has(model)) return scalarFields.get(model);
  const fields = (Prisma as unknown as Record<string, Record<string, string> | undefined>)[
    `${model}ScalarFieldEnum`
  ];
  const ordered = fields === undefined ? undefined : Object.freeze(Object.values(fields));
  scalarFields.set(model, ordered);
  return ordered;
}

/** A KbDocument row for a record: the record (as JSON, without its revision) under its kind and key. */
export function documentRow(entity: EntityName, key: string, record: object): Row {
  return { entity, key, record: toColumns(entity, record) };
}

/**
 * The record as the database gives it back after it was written with
 * `revision`, without reading it: what Prisma's row, read through
 * fromColumns, would be (its fields in the model's order, JSON values in
 * jsonb's order of keys). The snapshot, the answer and the audit entry get
 * exactly what a reload would give.
 */
export function storedForm(entity: EntityName, record: object, revision: number): object {
  const columns = toColumns(entity, record);
  const model = mappingOf(entity).model;
  if (model === null)
    return fromColumns(entity, {
      ...(jsonbOrder(columns) as Row),
      id: 0,
      revision,
      updatedAt: null,
    });
  const row: Row = {};
  for (const field of scalarFieldsOf(tableOf(entity)!)!) {
    const value = field === "revision" ? revision : (columns[field] ?? null);
    row[field] =
      value !== null && typeof value === "object" && !(value instanceof Date)
        ? jsonbOrder(value)
        : value;
  }
  return fromColumns(entity, row);
}

/** A JSON value with every object's keys in jsonb's order (shorter keys first, then by bytes), as jsonb gives it back. */
export function jsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrder);
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  const keys = Object.keys(value).sort(jsonbKeyOrder);
  return Object.fromEntries(keys.map((key) => [key, jsonbOrder((value as Row)[key])]));
}

/**
 * jsonb's order of keys: shorter first (in bytes), then by their bytes. Keys in plain ASCII (nearly all;
 * a key is ASCII when its UTF-8 takes one byte a character) compare as strings, without copying them.
 */
function jsonbKeyOrder(a: string, b: string): number {
  const bytesA = Buffer.byteLength(a);
  const bytesB = Buffer.byteLength(b);
  if (bytesA !== bytesB) return bytesA - bytesB;
  if (bytesA === a.length && bytesB === b.length) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Columns as JSON for jsonb_populate_record and to_jsonb: a date column as its day. */
export function jsonColumns(columns: Row): Row {
  return Object.fromEntries(
    Object.entries(columns).map(([column, value]) => [
      column,
      value instanceof Date ? value.toISOString().slice(0, 10) : value,
    ]),
  );
}

export function revisionOf(record: object): number {
  return (record as { revision?: number }).revision ?? 0;
}
