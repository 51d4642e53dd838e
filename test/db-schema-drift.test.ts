/**
 * The hand-written migrations must produce exactly the model in
 * prisma/schema.prisma: tables, columns (type, nullability, defaults),
 * enums, unique indexes and foreign keys. Prisma's own migrate diff needs a
 * schema engine we cannot download here, so this compares the migrated
 * database with Prisma's DMMF of the schema.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import prismaInternals from "@prisma/internals";
import { migrate } from "../src/db/migrator.js";
import { createTestDatabase, query, type TestDatabase } from "./support/database.js";
import { REPO_ROOT } from "./support/runtime.js";

type Dmmf = Awaited<ReturnType<typeof prismaInternals.getDMMF>>;
type Model = Dmmf["datamodel"]["models"][number];

const ACTIONS: Record<string, string> = {
  Cascade: "CASCADE",
  Restrict: "RESTRICT",
  SetNull: "SET NULL",
  NoAction: "NO ACTION",
  SetDefault: "SET DEFAULT",
};

function expectedType(field: Model["fields"][number]): string {
  if (field.kind === "enum") return field.isList ? `_${field.type}` : field.type;
  const native = field.nativeType?.[0];
  const base: Record<string, string> = {
    String: "text",
    Int: "int4",
    Boolean: "bool",
    DateTime: native === "Date" ? "date" : "timestamp",
    Json: "jsonb",
    BigInt: "int8",
    Float: "float8",
  };
  const type = base[field.type];
  assert.ok(type, `no mapping for Prisma type ${field.type}`);
  return field.isList ? `_${type}` : type;
}

describe("migrations match prisma/schema.prisma", () => {
  let database: TestDatabase;
  let dmmf: Dmmf;

  before(async () => {
    database = await createTestDatabase();
    await migrate(database.url);
    dmmf = await prismaInternals.getDMMF({
      datamodel: await fs.readFile(path.join(REPO_ROOT, "prisma/schema.prisma"), "utf8"),
    });
  });
  after(async () => database.drop());

  it("has one table per model and nothing else", async () => {
    const tables = await query<{ table_name: string }>(
      database.url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    assert.deepEqual(
      tables
        .map((row) => row.table_name)
        .filter((name) => name !== "_prisma_migrations")
        .sort(),
      dmmf.datamodel.models.map((model) => model.dbName ?? model.name).sort(),
    );
  });

  it("has the enums with their values in order", async () => {
    const rows = await query<{ typname: string; labels: string[] }>(
      database.url,
      `SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder)::text[] AS labels FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY t.typname`,
    );
    const actual = Object.fromEntries(rows.map((row) => [row.typname, row.labels]));
    const expected = Object.fromEntries(
      dmmf.datamodel.enums.map((entry) => [
        entry.dbName ?? entry.name,
        entry.values.map((value) => value.dbName ?? value.name),
      ]),
    );
    assert.deepEqual(actual, expected);
  });

  it("has every column with its type, nullability and default", async () => {
    const columns = await query<{
      table_name: string;
      column_name: string;
      udt_name: string;
      is_nullable: string;
      column_default: string | null;
    }>(
      database.url,
      `SELECT table_name, column_name, udt_name, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const actual = columns
      .map(
        (column) =>
          `${column.table_name}.${column.column_name} ${column.udt_name} ${column.is_nullable === "NO" ? "NOT NULL" : "NULL"} ${column.column_default === null ? "" : "DEFAULT"}`,
      )
      .sort();
    const expected = dmmf.datamodel.models
      .flatMap((model) =>
        model.fields
          .filter((field) => field.kind === "scalar" || field.kind === "enum")
          .map((field) => {
            // Prisma creates list columns without NOT NULL.
            const nullable = !field.isRequired || field.isList;
            return `${model.dbName ?? model.name}.${field.dbName ?? field.name} ${expectedType(field)} ${nullable ? "NULL" : "NOT NULL"} ${field.hasDefaultValue ? "DEFAULT" : ""}`;
          }),
      )
      .sort();
    assert.deepEqual(actual, expected);
  });

  /** `Table(col1,col2)` for every unique (or plain) index the migrations created. */
  async function indexesOf(unique: boolean): Promise<string[]> {
    const indexes = await query<{ table: string; columns: string[] }>(
      database.url,
      `SELECT t.relname AS table, array_agg(a.attname ORDER BY k.ordinality)::text[] AS columns
         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ordinality)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = 'public' AND i.indisunique = $1 AND NOT i.indisprimary AND t.relname <> '_prisma_migrations'
        GROUP BY i.indexrelid, t.relname`,
      [unique],
    );
    return indexes.map((index) => `${index.table}(${index.columns.join(",")})`).sort();
  }

  it("has the unique indexes of @unique and @@unique", async () => {
    const expected = dmmf.datamodel.models
      .flatMap((model) => [
        ...model.fields
          .filter((field) => field.isUnique)
          .map((field) => `${model.name}(${field.name})`),
        ...model.uniqueFields.map((fields) => `${model.name}(${fields.join(",")})`),
      ])
      .sort();
    assert.deepEqual(await indexesOf(true), expected);
  });

  it("has the plain indexes of @@index", async () => {
    const expected = dmmf.datamodel.indexes
      .filter((index) => index.type === "normal")
      .map((index) => `${index.model}(${index.fields.map((field) => field.name).join(",")})`)
      .sort();
    assert.deepEqual(await indexesOf(false), expected);
  });

  it("has the foreign keys of every relation with their actions", async () => {
    const keys = await query<{ definition: string; table: string }>(
      database.url,
      `SELECT c.conrelid::regclass::text AS table, pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'f' AND n.nspname = 'public'`,
    );
    const actual = keys
      .map((key) => `${key.table.replaceAll('"', "")} ${key.definition.replaceAll('"', "")}`)
      .sort();
    const expected = dmmf.datamodel.models
      .flatMap((model) =>
        model.fields
          .filter((field) => field.kind === "object" && (field.relationFromFields?.length ?? 0) > 0)
          .map((field) => {
            const onDelete =
              ACTIONS[
                String(field.relationOnDelete ?? (field.isRequired ? "Restrict" : "SetNull"))
              ];
            const onUpdate =
              ACTIONS[
                String((field as { relationOnUpdate?: string }).relationOnUpdate ?? "Cascade")
              ];
            return `${model.name} FOREIGN KEY (${field.relationFromFields?.join(", ")}) REFERENCES ${field.type}(${field.relationToFields?.join(", ")}) ON UPDATE ${onUpdate} ON DELETE ${onDelete}`;
          }),
      )
      .sort();
    assert.deepEqual(actual, expected);
  });
});
