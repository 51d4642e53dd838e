/**
 * One entity registry (src/knowledge/registry.ts): every face derives its kinds of knowledge from it. A throw-away
 * kind registered in memory, with a file in a copy of kb/ and no table of its own, is served by the read
 * API, curation, export and import without touching any other map; the SDL and the codegen mappers, which
 * are files, are checked against the registry.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { buildSchema, isEnumType, isObjectType } from "graphql";
import request from "supertest";
import { z } from "zod";
import codegenConfig from "../codegen.js";
import { ENTITIES, ENTITY_NAMES, registerEntity } from "../src/knowledge/registry.js";
import { openApiDocument } from "../src/rest/openapi.js";
import {
  createTestToken,
  KB_DIR,
  REPO_ROOT,
  startTestRuntime,
  type TestRuntime,
} from "./support/runtime.js";

describe("the files that cannot derive from the registry agree with it", () => {
  it("the SDL's KbEntity has one value per kind on GraphQL, and a type per record", async () => {
    const schema = buildSchema(await fs.readFile(path.join(REPO_ROOT, "schema.graphql"), "utf8"));
    const kbEntity = schema.getType("KbEntity");
    assert.ok(isEnumType(kbEntity));
    const onGraphql = ENTITY_NAMES.filter((entity) => ENTITIES[entity].graphqlEnum !== null);
    assert.deepEqual(
      kbEntity
        .getValues()
        .map((value) => value.name)
        .sort(),
      onGraphql.map((entity) => ENTITIES[entity].graphqlEnum!).sort(),
    );
    for (const entity of onGraphql)
      assert.ok(
        isObjectType(schema.getType(ENTITIES[entity].typeName)),
        `no SDL type ${ENTITIES[entity].typeName} for ${entity}`,
      );
  });

  it("codegen maps each record type to the kb record it is", () => {
    const generates = codegenConfig.generates as Record<
      string,
      { config?: { mappers?: Record<string, string> } }
    >;
    const mappers =
      Object.values(generates).find((target) => target.config?.mappers !== undefined)?.config
        ?.mappers ?? {};
    for (const entity of ENTITY_NAMES.filter(
      (candidate) => ENTITIES[candidate].graphqlEnum !== null,
    )) {
      assert.match(
        mappers[ENTITIES[entity].typeName] ?? "",
        /knowledge\/records\.js#\w+Record$/,
        `no mapper for ${ENTITIES[entity].typeName}`,
      );
    }
  });

  it("OpenAPI has a list, create, update and retire path per kind", () => {
    const paths = openApiDocument().paths ?? {};
    for (const entity of ENTITY_NAMES) {
      const collection = `/api/v1/${ENTITIES[entity].collection}`;
      assert.ok(paths[collection]?.get && paths[collection]?.post, `${collection}: get and post`);
      assert.ok(
        paths[`${collection}/{key}`]?.put && paths[`${collection}/{key}`]?.delete,
        `${collection}/{key}: put and delete`,
      );
    }
  });
});

describe("a throw-away kind registered in memory is served everywhere", () => {
  const widgetNote = z.strictObject({
    id: z.string().regex(/^[a-z0-9-]+$/, "must be lower-case words joined by dashes"),
    text: z.string().min(1),
    sourceUrl: z.url(),
  });
  let unregister: () => void;
  let runtime: TestRuntime;
  let kbDir: string;
  let editor: string;
  let importer: string;

  before(async () => {
    unregister = registerEntity("widgetNotes", {
      file: "widget-notes.yaml",
      schema: widgetNote,
      key: (record: z.infer<typeof widgetNote>) => record.id,
      keyExample: "first",
      collection: "widget-notes",
      title: "Throw-away notes of the registry test",
      typeName: "WidgetNote",
      graphqlEnum: null,
      store: { model: null },
    });
    kbDir = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-registry-"));
    await fs.cp(KB_DIR, kbDir, { recursive: true });
    await fs.writeFile(
      path.join(kbDir, "widget-notes.yaml"),
      "widgetNotes:\n  - id: first\n    text: From kb/.\n    sourceUrl: https://example.com/first\n",
    );
    runtime = await startTestRuntime({ kbDir });
    editor = await createTestToken(runtime, "registry-editor", "editor");
    importer = await createTestToken(runtime, "registry-admin", "admin");
  });
  after(async () => {
    await runtime?.close();
    unregister?.();
    await fs.rm(kbDir, { recursive: true, force: true });
  });

  it("the read API lists what kb/ has, and the summary counts it", async () => {
    const list = await request(runtime.app).get("/api/v1/widget-notes").expect(200);
    assert.deepEqual(
      list.body.items.map((item: { id: string }) => item.id),
      ["first"],
    );
    const summary = await request(runtime.app).get("/api/v1/kb").expect(200);
    assert.equal(summary.body.counts.widgetNotes, 1);
  });

  it("curation creates, updates and retires records, validated by the kind's own schema", async () => {
    const bad = await request(runtime.app)
      .post("/api/v1/widget-notes")
      .set("authorization", `Bearer ${editor}`)
      .send({ id: "Not OK", text: "x", sourceUrl: "https://example.com" })
      .expect(400);
    assert.match(JSON.stringify(bad.body), /lower-case words joined by dashes/);
    const created = await request(runtime.app)
      .post("/api/v1/widget-notes")
      .set("authorization", `Bearer ${editor}`)
      .send({ id: "second", text: "Made at run time.", sourceUrl: "https://example.com/second" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.key, "second");
    const updated = await request(runtime.app)
      .put("/api/v1/widget-notes/second")
      .set("authorization", `Bearer ${editor}`)
      .send({
        id: "second",
        text: "Changed at run time.",
        sourceUrl: "https://example.com/second",
        revision: created.body.item.revision,
      })
      .expect(200);
    assert.equal(updated.body.item.revision, created.body.item.revision + 1);
    const list = await request(runtime.app).get("/api/v1/widget-notes").expect(200);
    assert.deepEqual(
      list.body.items.map((item: { id: string; text: string }) => `${item.id}: ${item.text}`),
      ["first: From kb/.", "second: Changed at run time."],
    );
    const stored = await runtime.db.kbDocument.findMany({
      where: { entity: "widgetNotes" },
      orderBy: { id: "asc" },
    });
    assert.deepEqual(
      stored.map((row) => row.key),
      ["first", "second"],
      "kept in the generic KbDocument table",
    );
    await request(runtime.app)
      .delete("/api/v1/widget-notes/second")
      .set("authorization", `Bearer ${editor}`)
      .query({ revision: updated.body.item.revision })
      .expect(200);
    const audit = await request(runtime.app)
      .get("/api/v1/audit")
      .set("authorization", `Bearer ${importer}`)
      .query({ entity: "widgetNotes" })
      .expect(200);
    assert.ok(JSON.stringify(audit.body).includes("second"), "edits are audited");
  });

  it("export writes the kind's file, and import of an edited file applies it", async () => {
    const exported = await request(runtime.app)
      .get("/api/v1/kb/export")
      .query({ file: "widget-notes.yaml" })
      .expect(200);
    assert.match(exported.text, /widgetNotes:\n\s+- id: "first"/);
    const whole = await request(runtime.app).get("/api/v1/kb/export").expect(200);
    assert.match(whole.text, /# kb\/widget-notes\.yaml/);
    const edited = whole.text.replace('text: "From kb/."', 'text: "From the import."');
    assert.notEqual(edited, whole.text);
    const imported = await request(runtime.app)
      .post("/api/v1/kb/import")
      .set("authorization", `Bearer ${importer}`)
      .set("content-type", "application/yaml")
      .send(edited)
      .expect(200);
    assert.equal(imported.body.changed, true, JSON.stringify(imported.body));
    const list = await request(runtime.app).get("/api/v1/widget-notes").expect(200);
    assert.deepEqual(
      list.body.items.map((item: { text: string }) => item.text),
      ["From the import."],
    );
  });
});
