/**
 * Dependencies point one way (layers.json): every import between folders of src/ is one the table
 * allows, and no two folders import each other, directly or round a longer loop. The same table feeds
 * eslint's no-restricted-imports, so an editor flags a wrong import as it is written; this test also
 * catches what a lint pattern cannot (dynamic imports, a cycle the table would allow). It fails naming
 * the file and the import.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "./support/runtime.js";

const SRC = path.join(REPO_ROOT, "src");
const { layers } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "layers.json"), "utf8")) as {
  layers: Record<string, string[]>;
};

interface Import {
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

function folderOf(file: string, root = SRC): string {
  const relative = path.relative(root, file).split(path.sep);
  return relative.length === 1 ? "(root)" : relative[0]!;
}

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** Relative imports and re-exports, static and dynamic, between folders of src/. */
function crossFolderImports(files: readonly string[], root = SRC): Import[] {
  const found: Import[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    for (const match of text.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm,
    )) {
      const target = path.resolve(path.dirname(file), match[1]!);
      if (!target.startsWith(root + path.sep)) continue;
      const from = folderOf(file, root);
      const to = folderOf(target, root);
      if (from !== to) found.push({ file: path.relative(root, file), from, to });
    }
  }
  return found;
}

/** A cycle in the folder graph, as a list of folders ending where it starts, or null. */
function folderCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const cycle = visit(next);
        if (cycle !== null) return cycle;
      }
    }
    stack.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of [...edges.keys()].sort()) {
    if (state.get(node) === undefined) {
      const cycle = visit(node);
      if (cycle !== null) return cycle;
    }
  }
  return null;
}

describe("the layout's dependencies point one way", () => {
  const imports = crossFolderImports(sourceFiles(SRC));

  it("every folder of src/ is in layers.json", () => {
    const folders = new Set(sourceFiles(SRC).map((file) => folderOf(file)));
    for (const folder of folders)
      assert.ok(
        folder in layers,
        `src/${folder}/ is not in layers.json: say which folders it may import`,
      );
  });

  it("every import between folders is one layers.json allows", () => {
    const wrong = imports.filter(({ from, to }) => !(layers[from] ?? []).includes(to));
    assert.deepEqual(
      wrong.map(({ file, to }) => `src/${file} imports src/${to === "(root)" ? "" : `${to}/`}`),
      [],
      "move the shared code down a layer (see docs/layout.md) instead of importing upwards",
    );
  });

  it("no folders import each other, directly or in a loop", () => {
    const edges = new Map<string, Set<string>>();
    for (const { from, to } of imports) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    assert.equal(folderCycle(edges)?.join(" → ") ?? null, null);
  });

  it("finds a cycle and a forbidden import when there is one (pure)", () => {
    assert.deepEqual(
      folderCycle(
        new Map([
          ["a", new Set(["b"])],
          ["b", new Set(["c"])],
          ["c", new Set(["a"])],
        ]),
      ),
      ["a", "b", "c", "a"],
    );
    assert.equal(
      folderCycle(
        new Map([
          ["a", new Set(["b"])],
          ["b", new Set(["c"])],
        ]),
      ),
      null,
    );
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-layers-"));
    try {
      fs.mkdirSync(path.join(root, "knowledge"));
      const probe = path.join(root, "knowledge", "probe.ts");
      fs.writeFileSync(
        probe,
        'import { planUpgrade } from "../domain/upgrade.js";\nexport { ok } from "./own.js";\nexport const later = () => import("../http/errors.js");\nimport "../app.js";\n',
      );
      assert.deepEqual(
        crossFolderImports([probe], root)
          .map((entry) => entry.to)
          .sort(),
        ["(root)", "domain", "http"],
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
