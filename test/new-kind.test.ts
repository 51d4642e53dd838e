/**
 * A new kind of knowledge is its YAML, its schemas and one registry row: the fixture kind in
 * test/fixtures/kind-cni-plugins, registered at run time, is read over REST and GraphQL through real HTTP
 * with no other file touched; and every built-in kind with a plain list is served by the GraphQL wiring
 * derived from the registry (src/graphql/kind-lists.ts, its SDL written by npm run codegen).
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ENTITIES, ENTITY_NAMES, registerEntity } from "../src/knowledge/registry.js";
import { CNI_PLUGINS_YAML, cniPlugins } from "./fixtures/kind-cni-plugins/cni-plugins.js";
import {
  KB_DIR,
  startListeningRuntime,
  type Listening,
  type SnapshotRuntime,
} from "./support/runtime.js";

async function graphql(
  url: string,
  query: string,
): Promise<{ data?: Record<string, unknown>; errors?: unknown }> {
  const response = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown };
}

describe("a kind added by YAML, schemas and one registry row", () => {
  let unregister: () => void;
  let kbDir: string;
  let listening: Listening<SnapshotRuntime>;

  before(async () => {
    unregister = registerEntity("cniPlugins", cniPlugins);
    kbDir = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-new-kind-"));
    await fs.cp(KB_DIR, kbDir, { recursive: true });
    await fs.copyFile(CNI_PLUGINS_YAML, path.join(kbDir, cniPlugins.file));
    listening = await startListeningRuntime({ inMemory: true, kbDir });
  });
  after(async () => {
    await listening?.close();
    unregister?.();
    await fs.rm(kbDir, { recursive: true, force: true });
  });

  it("is listed by REST at its collection", async () => {
    const response = await fetch(`${listening.url}/api/v1/cni-plugins`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { items: { name: string; firstKubernetes: string }[] };
    assert.deepEqual(
      body.items.map(({ name, firstKubernetes }) => ({ name, firstKubernetes })),
      [
        { name: "calico", firstKubernetes: "1.24" },
        { name: "cilium", firstKubernetes: "1.27" },
      ],
    );
  });

  it("is listed by GraphQL at its registry row's field, typed by its SDL", async () => {
    const answer = await graphql(
      listening.url,
      "{ cniPlugins { name firstKubernetes sourceUrl } }",
    );
    assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
    assert.deepEqual(answer.data?.cniPlugins, [
      {
        name: "calico",
        firstKubernetes: "1.24",
        sourceUrl: "https://docs.tigera.io/calico/latest/getting-started/kubernetes/requirements",
      },
      {
        name: "cilium",
        firstKubernetes: "1.27",
        sourceUrl: "https://docs.cilium.io/en/stable/network/kubernetes/requirements/",
      },
    ]);
  });

  it("serves every built-in kind's plain list from the registry, each record once", async () => {
    const lists = ENTITY_NAMES.flatMap((entity) => {
      const list = ENTITIES[entity].graphqlList;
      return list === undefined ? [] : [{ entity, field: list.field }];
    });
    assert.ok(lists.length >= 15, "the built-in kinds' plain lists are in the registry");
    const answer = await graphql(
      listening.url,
      `{ ${lists.map(({ field }) => `${field} { __typename }`).join(" ")} }`,
    );
    assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
    const snapshot = listening.runtime.kb.current();
    for (const { entity, field } of lists) {
      const served = answer.data?.[field] as { __typename: string }[];
      assert.equal(served.length, snapshot.records(entity).length, field);
      assert.ok(served.length > 0, `kb/ has ${entity}`);
      for (const record of served) assert.equal(record.__typename, ENTITIES[entity].typeName);
    }
  });
});
