/**
 * The manifest reader's two paths give the same documents. The fast path (js-yaml over documents split at
 * their markers) must read every input it accepts exactly as the careful path (the yaml library's node tree,
 * with every hostile-input limit) does: the same documents, indexes, objects, lines and helm sources. And it
 * must decline, leaving the input to the careful path, whatever it could read differently.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  QuickPathDeclined,
  carefulDocuments,
  quickDocuments,
  type ManifestDocument,
} from "../src/domain/manifest-reader.js";
import { scanManifests } from "../src/domain/scan.js";
import { kbSnapshot } from "./support/snapshot.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures");

/** Plain values (the careful path's maps have no prototype, js-yaml's do). */
const plain = (documents: Iterable<ManifestDocument>): unknown =>
  JSON.parse(JSON.stringify([...documents]));

function quick(text: string): unknown {
  return plain(quickDocuments(text));
}

function declines(text: string): boolean {
  try {
    for (const document of quickDocuments(text)) void document;
    return false;
  } catch (error) {
    if (error instanceof QuickPathDeclined) return true;
    throw error;
  }
}

const KUBECTL_LIST_INDENTED = `apiVersion: v1
kind: List
items:
  - apiVersion: batch/v1beta1
    kind: CronJob
    metadata:
      name: nightly
      namespace: ops
    spec:
      schedule: "*/5 * * * *"
  # a comment between items
  - apiVersion: apps/v1
    kind: Deployment
    metadata: { name: web }
    spec:
      template:
        spec:
          containers:
            - name: web
              args:
                - |
                  - not an item
metadata:
  resourceVersion: ""
`;

const HELM = `# leading comment, no document
---
# Source: shop/templates/cron.yaml
apiVersion: batch/v1beta1
kind: CronJob
metadata:
  name: a
---
---
# Source: shop/templates/empty.yaml
---
# Source: shop/templates/pdb.yaml
# Source: shop/templates/pdb-override.yaml
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: b}
---
just a scalar
---
- a
- sequence
---
`;

const SYNTHETIC: ReadonlyArray<readonly [string, string]> = [
  ["a kubectl List with indented items, comments and block scalars", KUBECTL_LIST_INDENTED],
  ["helm template output with sources, empty documents, a scalar and a sequence", HELM],
  ["CRLF line endings", HELM.replace(/\n/g, "\r\n")],
  [
    "no leading marker",
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: c\n",
  ],
  ["an empty List", "apiVersion: v1\nkind: List\nitems: []\n"],
  [
    "a JSON List on one line",
    JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [
        {
          apiVersion: "batch/v1beta1",
          kind: "CronJob",
          metadata: { name: "x", annotations: { "a{b": "[c" } },
        },
        { apiVersion: "v1", kind: "Pod", metadata: { name: 'q"uote' } },
      ],
    }),
  ],
  [
    "a key named __proto__",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  __proto__: x\n",
  ],
];

describe("the manifest reader's fast path", () => {
  const files = [
    ...fs
      .readdirSync(path.join(FIXTURES, "manifests"))
      .map((name) => path.join(FIXTURES, "manifests", name)),
    path.join(FIXTURES, "cli", "manifests", "app.yaml"),
    path.join(FIXTURES, "cli", "manifests", "legacy", "batch.yaml"),
  ];
  // A List inside a List (kubectl get of RoleBindingLists) goes the careful way: its items' lines need the node tree.
  const CAREFUL_FIXTURES = new Set(["gitops-prod-concatenated.yaml"]);
  for (const file of files) {
    const careful = CAREFUL_FIXTURES.has(path.basename(file));
    it(`reads ${path.relative(FIXTURES, file)} ${careful ? "the careful way (a List in a List)" : "as the careful path does"}`, () => {
      const text = fs.readFileSync(file, "utf8");
      assert.equal(
        declines(text),
        careful,
        careful ? "declined" : "the fast path takes real kubectl, helm and GitOps output",
      );
      if (!careful) assert.deepEqual(quick(text), plain(carefulDocuments(text)));
    });
  }
  for (const [name, text] of SYNTHETIC) {
    it(`reads ${name} as the careful path does`, () => {
      assert.ok(!declines(text), "taken by the fast path");
      assert.deepEqual(quick(text), plain(carefulDocuments(text)));
    });
  }

  const DECLINED: ReadonlyArray<readonly [string, string]> = [
    ["an anchor and alias", "a: &x 1\nb: *x\n"],
    ["a merge key", "base: {a: 1}\nc:\n  <<: {a: 2}\n"],
    ["a tag", "a: !!str 1\n"],
    ["content on a marker line", "--- text\n"],
    ["a directive", "%YAML 1.2\n---\na: 1\n"],
    ["a document end marker", "a: 1\n...\n"],
    ["tab indentation", "a:\n\tb: 1\n"],
    ["an explicit key", "? a\n: b\n"],
    ["a key over 1024 characters", `${"k".repeat(1100)}: v\n`],
    ["runs of colons", "a: b::c\n"],
    ["deep flow nesting", `a: ${"[".repeat(70)}${"]".repeat(70)}\n`],
    [
      "deep block nesting",
      `${Array.from({ length: 160 }, (_, depth) => `${" ".repeat(depth)}k${depth}:`).join("\n")} v\n`,
    ],
    ["a List whose items cannot be placed", "kind: List\nitems: [{apiVersion: v1, kind: Pod}]\n"],
  ];
  for (const [name, text] of DECLINED) {
    it(`leaves ${name} to the careful path`, () => {
      assert.ok(declines(text));
    });
  }

  it("hands over mid-way without losing or doubling anything: a bad third document is reported as the careful path words it", async () => {
    const snapshot = await kbSnapshot();
    const text = `${HELM}apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: [unclosed\n---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: z}\n`;
    assert.ok(declines(text));
    const report = scanManifests(snapshot, text, "1.25");
    assert.equal(report.complete, false);
    assert.deepEqual(
      report.findings.map((entry) => [entry.kind, entry.name, entry.line]),
      [
        ["CronJob", "a", 4],
        ["PodDisruptionBudget", "b", 14],
        ["PodDisruptionBudget", "z", 28],
      ],
    );
    assert.equal(report.notes.filter((note) => note.code === "DOCUMENT_UNREADABLE").length, 1);
  });
});
