/**
 * The hostile YAML corpus, sent to each face that reads YAML we did not
 * write: the scan (raw YAML over REST, JSON over REST, GraphQL
 * scanManifests), and the knowledge-base import (REST with an admin token,
 * GraphQL importKnowledgeBase). Alias bombs, extreme nesting, enormous
 * scalars and inputs, binary garbage, bad indentation, duplicate keys,
 * comment-only documents, tags and merge keys.
 */
import assert from "node:assert/strict";
import { graphqlCase, type HostileCase } from "./support.js";

const MIB = 1024 * 1024;
const CRON_JOB = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n";

/** Ten levels of nine: a billion laughs once expanded, a few hundred bytes as text. */
export function billionLaughs(indent = ""): string {
  const lines = [`${indent}lol0: &lol0 "lol"`];
  for (let level = 1; level <= 9; level += 1)
    lines.push(
      `${indent}lol${level}: &lol${level} [${Array.from({ length: 9 }, () => `*lol${level - 1}`).join(", ")}]`,
    );
  return `${lines.join("\n")}\n`;
}

/** Named shapes of hostile YAML. */
export const SHAPES = {
  billionLaughs: billionLaughs(),
  selfAlias: "a: &a [1, *a]\n",
  aliasWithoutAnchor: "apiVersion: *nowhere\nkind: Pod\n",
  fiftyOneAliases: `x: &x v\nlist: [${Array.from({ length: 51 }, () => "*x").join(", ")}]\n`,
  flowNesting: "[".repeat(100_000),
  flowMapNesting: "{a: ".repeat(5000),
  blockNesting: `${Array.from({ length: 300 }, (_, level) => `${"  ".repeat(level)}- `).join("\n")}x\n`,
  compactBlockNesting: `${"- ".repeat(5000)}x\n`,
  mapNesting: `${Array.from({ length: 300 }, (_, level) => `${"  ".repeat(level)}k${level}:`).join("\n")} x\n`,
  tabIndentation: "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: tabbed\n",
  badIndentation: "apiVersion: v1\nkind: Pod\nmetadata:\n    name: x\n  namespace: y\n",
  duplicateKeys: `${CRON_JOB}kind: Deployment\n`,
  duplicateFlowKeys: "{apiVersion: v1, kind: Pod, kind: Service}\n",
  duplicateKeyAfter100k: `${Array.from({ length: 100_000 }, (_, index) => `k${index}: ${index}`).join("\n")}\nk7: again\n`,
  unclosedQuote: 'apiVersion: v1\nkind: "Pod\nmetadata: {}\n',
  unclosedFlow: "{apiVersion: v1, kind: Pod\n",
  strayBrackets: "[]".repeat(200_000),
  onlyComments: "# nothing here\n# helm rendered an empty template\n---\n# and another\n",
  onlyDocumentMarkers: "---\n---\n...\n---\n",
  binaryTag: "apiVersion: !!binary YmF0Y2gvdjFiZXRhMQ==\nkind: CronJob\n",
  customTags:
    "apiVersion: !custom batch/v1beta1\nkind: !!js/function CronJob\nmetadata: !!map {name: tagged}\n",
  mergeKey: `base: &base {apiVersion: batch/v1beta1, kind: CronJob}\n---\nx: &b {apiVersion: batch/v1beta1, kind: CronJob}\n<<: *b\nmetadata: {name: merged}\n`,
  mergeKeyList:
    "<<: [{apiVersion: batch/v1beta1}, {kind: CronJob}, {kind: Ignored}]\nmetadata: {name: merged-list}\n",
  longKey: `${"k".repeat(2000)}: v\n`,
  colons: ":".repeat(MIB),
  directives: "%YAML 1.1\n%TAG !k! tag:kubernetes.io,2024:\n---\napiVersion: v1\nkind: Pod\n",
  nul: "apiVersion: v1\nkind: Po\u0000d\n",
  controlCharacters: "apiVersion: v1\nkind: Pod\u001b[2J\u007f\n",
  manyDocuments: "---\n".repeat(100_001),
  manyLines: "\n".repeat(1_600_000),
  manyTokens: `[${",".repeat(1_600_000)}]`,
} as const;

const pngHeader = () =>
  Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
    Buffer.from("IHDR"),
    Buffer.alloc(64, 0xa5),
  ]);
const utf16WithBom = () =>
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(CRON_JOB, "utf16le")]);
/** Deterministic noise, so a failure can be replayed. */
const randomBytes = () => {
  let state = 0x2545f491;
  return Buffer.from(
    Array.from({ length: 64 * 1024 }, () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return state & 0xff;
    }),
  );
};

const scanYaml = (
  name: string,
  body: unknown,
  status: number,
  code: string | null,
  extra: Partial<HostileCase> = {},
): HostileCase => ({
  name,
  method: "POST",
  path: "/api/v1/scan?targetVersion=1.29",
  body,
  contentType: "application/yaml",
  status,
  code,
  ...extra,
});
const refused = (name: string, body: unknown, message: RegExp, extra: Partial<HostileCase> = {}) =>
  scanYaml(name, body, 400, "BAD_USER_INPUT", { field: "manifests", message, ...extra });
const report =
  (
    check: (report: {
      documentsScanned: number;
      objectsScanned: number;
      findings: Array<{ code: string; name: string | null }>;
    }) => void,
  ) =>
  (body: unknown) =>
    check(body as Parameters<typeof check>[0]);
/** Not valid YAML, but no hostile limit either: the document is reported unreadable (with its line) and the scan goes on. */
const unreadable = (name: string, body: unknown, message: RegExp) =>
  scanYaml(name, body, 200, null, {
    check: (answer) => {
      const scan = answer as {
        complete: boolean;
        status: string;
        objectsScanned: number;
        notes: Array<{ code: string; message: string }>;
      };
      assert.equal(scan.complete, false);
      // Nothing readable is nothing judged (NOT_JUDGED, never green); an unreadable document beside judged objects is an ERROR.
      assert.equal(scan.status, scan.objectsScanned === 0 ? "NOT_JUDGED" : "UNSUPPORTED");
      if (scan.objectsScanned === 0)
        assert.ok(
          scan.notes.some((entry) => entry.code === "NOTHING_JUDGED"),
          JSON.stringify(scan.notes),
        );
      const note = scan.notes.find((entry) => entry.code === "DOCUMENT_UNREADABLE");
      assert.ok(note, JSON.stringify(scan.notes));
      assert.match(note.message, message);
    },
  });

const scanOverRest: HostileCase[] = [
  refused("400 for a billion laughs", SHAPES.billionLaughs, /alias bomb/),
  refused("400 for an alias inside its own anchor", SHAPES.selfAlias, /expand forever/),
  refused("400 for an alias without an anchor", SHAPES.aliasWithoutAnchor, /refers to no anchor/),
  refused("400 for 51 aliases, one over the limit", SHAPES.fiftyOneAliases, /more than 50 times/),
  refused(
    "400 for 100 000 nested flow sequences [[[[",
    SHAPES.flowNesting,
    /nested more than 200 levels/,
  ),
  refused(
    "400 for 5000 nested flow mappings {a: {a:",
    SHAPES.flowMapNesting,
    /nested more than 200 levels/,
  ),
  refused("400 for 300 nested block sequences", SHAPES.blockNesting, /nested more than 200 levels/),
  refused(
    "400 for 5000 compact block sequences - - - -",
    SHAPES.compactBlockNesting,
    /nested more than 200 levels/,
  ),
  refused("400 for 300 nested block mappings", SHAPES.mapNesting, /nested more than 200 levels/),
  scanYaml(
    "200 for a 9 MiB single-line scalar, under the 10 MiB limit",
    () => `${CRON_JOB}data:\n  blob: ${"a".repeat(9 * MIB)}\n`,
    200,
    null,
    {
      check: report((answer) => {
        assert.equal(answer.objectsScanned, 1);
        assert.deepEqual(
          answer.findings.map((entry) => entry.code),
          ["API_REMOVED"],
        );
      }),
    },
  ),
  scanYaml("200 for a 9 MiB comment", () => `# ${"c".repeat(9 * MIB)}\n`, 200, null, {
    check: report((answer) => assert.equal(answer.documentsScanned, 0)),
  }),
  scanYaml(
    "413 for 10.5 MiB of YAML",
    () => `x: ${"a".repeat(10.5 * MIB)}\n`,
    413,
    "PAYLOAD_TOO_LARGE",
  ),
  scanYaml(
    "413 for 5.3 million two-byte characters (over the limit in bytes, not in characters)",
    () => `x: ${"é".repeat(5.3 * MIB)}\n`,
    413,
    "PAYLOAD_TOO_LARGE",
  ),
  refused("400 for 1.6 million tokens in 1.6 MB ([,,,,])", () => SHAPES.manyTokens, /YAML tokens/),
  refused("400 for 1.6 million empty lines", () => SHAPES.manyLines, /1500000 lines/),
  refused(
    "400 for 100 001 empty documents",
    () => SHAPES.manyDocuments,
    /more than 100000 YAML documents/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for 200 000 stray [] (fails at the first, does not collect 400 000 errors)",
    () => SHAPES.strayBrackets,
    /not valid YAML/,
  ),
  refused("400 for random bytes", randomBytes, /which YAML does not allow/),
  refused("400 for a PNG", pngHeader, /U\+0000|U\+001A/),
  refused("400 for UTF-16 with a BOM sent as UTF-8", utf16WithBom, /U\+0000/),
  scanYaml("200 for UTF-16 with a BOM and its charset", utf16WithBom, 200, null, {
    contentType: "application/yaml; charset=utf-16",
    check: report((answer) =>
      assert.deepEqual(
        answer.findings.map((entry) => entry.code),
        ["API_REMOVED"],
      ),
    ),
  }),
  refused("400 for NUL inside a value", SHAPES.nul, /U\+0000/),
  refused("400 for ESC and DEL control characters", SHAPES.controlCharacters, /U\+001B/),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for tab indentation",
    SHAPES.tabIndentation,
    /Tabs are not allowed/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for inconsistent indentation",
    SHAPES.badIndentation,
    /not valid YAML/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for duplicate keys",
    SHAPES.duplicateKeys,
    /line 5\) is not valid YAML: Map keys must be unique/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for duplicate keys in a flow mapping",
    SHAPES.duplicateFlowKeys,
    /Map keys must be unique/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for a duplicate key after 100 000 keys (found in one pass)",
    () => SHAPES.duplicateKeyAfter100k,
    /line 100001\) is not valid YAML: Map keys must be unique/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE naming the line of an unclosed quote",
    SHAPES.unclosedQuote,
    /line 2\) is not valid YAML/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for an unclosed flow mapping",
    SHAPES.unclosedFlow,
    /not valid YAML/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for a 2000-character key",
    SHAPES.longKey,
    /not valid YAML/,
  ),
  unreadable(
    "200 and DOCUMENT_UNREADABLE for a megabyte of colons",
    SHAPES.colons,
    /not valid YAML/,
  ),
  scanYaml("200 for documents that are only comments", SHAPES.onlyComments, 200, null, {
    check: report((answer) =>
      assert.deepEqual([answer.documentsScanned, answer.objectsScanned], [0, 0]),
    ),
  }),
  scanYaml("200 for documents that are only markers", SHAPES.onlyDocumentMarkers, 200, null, {
    check: report((answer) => assert.equal(answer.objectsScanned, 0)),
  }),
  scanYaml("200 for an empty body", "", 200, null, {
    check: report((answer) => assert.equal(answer.documentsScanned, 0)),
  }),
  scanYaml("200 for a !!binary apiVersion, which is no API version", SHAPES.binaryTag, 200, null, {
    check: report((answer) =>
      assert.deepEqual([answer.objectsScanned, answer.findings.length], [0, 0]),
    ),
  }),
  scanYaml(
    "200 for custom and language tags, read as text and never run",
    SHAPES.customTags,
    200,
    null,
    {
      check: report((answer) =>
        assert.deepEqual(
          answer.findings.map((entry) => [entry.code, entry.name]),
          [["API_REMOVED", "tagged"]],
        ),
      ),
    },
  ),
  scanYaml("200 for merge keys <<, whose apiVersion counts", SHAPES.mergeKey, 200, null, {
    check: report((answer) =>
      assert.deepEqual(
        answer.findings.map((entry) => [entry.code, entry.name]),
        [["API_REMOVED", "merged"]],
      ),
    ),
  }),
  scanYaml(
    "200 for a list of merge keys, the first source winning",
    SHAPES.mergeKeyList,
    200,
    null,
    {
      check: report((answer) =>
        assert.deepEqual(
          answer.findings.map((entry) => [entry.code, entry.name]),
          [["API_REMOVED", "merged-list"]],
        ),
      ),
    },
  ),
  scanYaml("200 for %YAML and %TAG directives", SHAPES.directives, 200, null, {
    check: report((answer) => assert.equal(answer.objectsScanned, 1)),
  }),
  scanYaml("400 for a YAML body without targetVersion", CRON_JOB, 400, "BAD_USER_INPUT", {
    path: "/api/v1/scan",
    field: "targetVersion",
  }),
  scanYaml("400 for a YAML body with an empty targetVersion", CRON_JOB, 400, "BAD_USER_INPUT", {
    path: "/api/v1/scan?targetVersion=",
    field: "targetVersion",
  }),
];

const scanJson = (
  name: string,
  manifests: unknown,
  status: number,
  code: string,
  message: RegExp,
): HostileCase => ({
  name,
  method: "POST",
  path: "/api/v1/scan",
  body:
    typeof manifests === "function"
      ? () => ({ manifests: (manifests as () => string)(), targetVersion: "1.29" })
      : { manifests, targetVersion: "1.29" },
  status,
  code,
  field: "manifests",
  message,
});
const scanOverJson: HostileCase[] = [
  scanJson(
    "400 for 10.5 MiB of manifests in JSON",
    () => "a".repeat(10.5 * MIB),
    400,
    "BAD_USER_INPUT",
    /at most 10 MiB/,
  ),
  scanJson("400 for manifests that are a number", 42, 400, "BAD_USER_INPUT", /expected string/),
  scanJson(
    "400 for manifests that are a list of strings",
    [CRON_JOB],
    400,
    "BAD_USER_INPUT",
    /expected string/,
  ),
  scanJson(
    "400 for a lone surrogate in manifests",
    `${CRON_JOB}x: "\ud800"\n`,
    400,
    "BAD_USER_INPUT",
    /U\+D800/,
  ),
  scanJson(
    "400 for a billion laughs in JSON",
    SHAPES.billionLaughs,
    400,
    "BAD_USER_INPUT",
    /alias bomb/,
  ),
  scanJson(
    "400 for deep nesting in JSON",
    SHAPES.flowNesting,
    400,
    "BAD_USER_INPUT",
    /nested more than 200/,
  ),
];

const SCAN_QUERY =
  'query($m: String!) { scanManifests(manifests: $m, targetVersion: "1.29") { documentsScanned objectsScanned findings { code name } } }';
const SCAN_NOTES_QUERY =
  'query($m: String!) { scanManifests(manifests: $m, targetVersion: "1.29") { complete notes { code message } } }';
const unreadableOverGraphql = (message: RegExp) => (body: unknown) => {
  const scan = (
    body as {
      data: {
        scanManifests: { complete: boolean; notes: Array<{ code: string; message: string }> };
      };
    }
  ).data.scanManifests;
  assert.equal(scan.complete, false);
  assert.match(
    scan.notes.find((note) => note.code === "DOCUMENT_UNREADABLE")?.message ?? "",
    message,
  );
};
const scanGraphql = (name: string, manifests: string, message: RegExp): HostileCase =>
  graphqlCase(
    name,
    SCAN_QUERY,
    { status: 200, code: "BAD_USER_INPUT", field: "manifests", message },
    { m: manifests },
  );
const scanOverGraphql: HostileCase[] = [
  scanGraphql("BAD_USER_INPUT for a billion laughs", SHAPES.billionLaughs, /alias bomb/),
  scanGraphql(
    "BAD_USER_INPUT for an alias inside its own anchor",
    SHAPES.selfAlias,
    /expand forever/,
  ),
  scanGraphql("BAD_USER_INPUT for 100 000 nested [", SHAPES.flowNesting, /nested more than 200/),
  scanGraphql(
    "BAD_USER_INPUT for 5000 compact - - -",
    SHAPES.compactBlockNesting,
    /nested more than 200/,
  ),
  graphqlCase(
    "an unreadable document (tab indentation) is a note, not an error",
    SCAN_NOTES_QUERY,
    { status: 200, code: null, check: unreadableOverGraphql(/Tabs are not allowed/) },
    { m: SHAPES.tabIndentation },
  ),
  graphqlCase(
    "an unreadable document (duplicate keys) is a note, not an error",
    SCAN_NOTES_QUERY,
    { status: 200, code: null, check: unreadableOverGraphql(/Map keys must be unique/) },
    { m: SHAPES.duplicateKeys },
  ),
  scanGraphql("BAD_USER_INPUT for NUL", SHAPES.nul, /U\+0000/),
  {
    ...graphqlCase("BAD_USER_INPUT for 10.5 MiB of manifests", SCAN_QUERY, {
      status: 200,
      code: "BAD_USER_INPUT",
      field: "manifests",
      message: /the limit is 10 MiB/,
    }),
    body: () => ({ query: SCAN_QUERY, variables: { m: "a".repeat(10.5 * MIB) } }),
  },
  graphqlCase(
    "a report for documents that are only comments",
    SCAN_QUERY,
    {
      status: 200,
      code: null,
      check: (body) =>
        assert.deepEqual((body as { data: { scanManifests: unknown } }).data.scanManifests, {
          documentsScanned: 0,
          objectsScanned: 0,
          findings: [],
        }),
    },
    { m: SHAPES.onlyComments },
  ),
  graphqlCase(
    "a finding for merge keys",
    SCAN_QUERY,
    {
      status: 200,
      code: null,
      check: (body) =>
        assert.deepEqual(
          (body as { data: { scanManifests: { findings: unknown } } }).data.scanManifests.findings,
          [{ code: "API_REMOVED", name: "merged" }],
        ),
    },
    { m: SHAPES.mergeKey },
  ),
];

const importYaml = (
  name: string,
  body: unknown,
  status: number,
  code: string,
  message: RegExp,
  extra: Partial<HostileCase> = {},
): HostileCase => ({
  name,
  method: "POST",
  path: "/api/v1/kb/import",
  auth: "admin",
  body,
  contentType: "application/yaml",
  status,
  code,
  message,
  ...extra,
});
const importOverRest: HostileCase[] = [
  importYaml(
    "422 for a billion laughs in a bundle, never expanded",
    `ports:\n${billionLaughs("  ")}`,
    422,
    "KB_INVALID",
    /ports\.yaml: must hold a top-level "ports:" list/,
  ),
  importYaml(
    "422 for an alias bomb in a record list",
    `ports:\n  - &a [x, x, x, x, x, x, x, x, x, x]\n  - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n  - &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n  - [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n`,
    422,
    "KB_INVALID",
    /Excessive alias count/,
  ),
  importYaml(
    "400 for 100 000 nested [",
    SHAPES.flowNesting,
    400,
    "BAD_USER_INPUT",
    /nested more than 100 levels/,
    { field: "bundle" },
  ),
  importYaml(
    "400 for 300 nested block sequences",
    SHAPES.blockNesting,
    400,
    "BAD_USER_INPUT",
    /nested more than 100 levels/,
    { field: "bundle" },
  ),
  importYaml(
    "422 for a 9 MiB scalar",
    () => `ports:\n  - "${"a".repeat(9 * MIB)}"\n`,
    422,
    "KB_INVALID",
    /ports\.yaml/,
  ),
  importYaml(
    "413 for 21 MiB",
    () => `ports: "${"a".repeat(21 * MIB)}"\n`,
    413,
    "PAYLOAD_TOO_LARGE",
    /larger than the limit/,
  ),
  importYaml("400 for random bytes", randomBytes, 400, "BAD_USER_INPUT", /bundle/, {
    field: "bundle",
  }),
  importYaml("400 for a PNG", pngHeader, 400, "BAD_USER_INPUT", /bundle/, { field: "bundle" }),
  importYaml(
    "400 for UTF-16 with a BOM sent as UTF-8",
    utf16WithBom,
    400,
    "BAD_USER_INPUT",
    /bundle/,
    { field: "bundle" },
  ),
  importYaml(
    "400 for tab indentation",
    "ports:\n\t- component: kubelet\n",
    400,
    "BAD_USER_INPUT",
    /Tabs are not allowed/,
    { field: "bundle" },
  ),
  importYaml(
    "400 for duplicate keys",
    "ports:\n  - component: kubelet\n    component: etcd\n",
    400,
    "BAD_USER_INPUT",
    /Map keys must be unique/,
    { field: "bundle" },
  ),
  importYaml(
    "400 for 200 000 stray []",
    () => SHAPES.strayBrackets,
    400,
    "BAD_USER_INPUT",
    /not valid YAML/,
    { field: "bundle" },
  ),
  importYaml(
    "422 for a bundle that is only comments",
    SHAPES.onlyComments,
    422,
    "KB_INVALID",
    /components\.yaml: is missing/,
  ),
  importYaml("422 for an empty bundle", "", 422, "KB_INVALID", /is missing/),
  importYaml(
    "422 for a !!binary list",
    "ports: !!binary aGVsbG8=\n",
    422,
    "KB_INVALID",
    /ports\.yaml/,
  ),
  importYaml(
    "422 for merge keys in records",
    "ports:\n  - &p {component: kubelet}\n  - <<: *p\n",
    422,
    "KB_INVALID",
    /ports\.yaml/,
  ),
  importYaml(
    "400 for an unknown top-level key",
    "evil: [1]\n",
    400,
    "BAD_USER_INPUT",
    /unknown top-level key "evil"/,
    { field: "bundle" },
  ),
  importYaml(
    "400 for two documents of one entity",
    "ports: []\n---\nports: []\n",
    400,
    "BAD_USER_INPUT",
    /two documents for ports/,
    { field: "bundle" },
  ),
  importYaml(
    "400 for a document of two lists",
    "ports: []\nlinks: []\n",
    400,
    "BAD_USER_INPUT",
    /exactly one top-level list/,
    { field: "bundle" },
  ),
  {
    name: "422 for a billion laughs in a JSON import",
    method: "POST",
    path: "/api/v1/kb/import",
    auth: "admin",
    body: {
      files: {
        "ports.yaml": `ports:\n  - &a [x, x, x, x, x, x, x, x, x, x]\n  - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n  - &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n  - [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n`,
      },
    },
    status: 422,
    code: "KB_INVALID",
    message: /Excessive alias count/,
  },
  {
    name: "422 for deep nesting in a JSON import",
    method: "POST",
    path: "/api/v1/kb/import",
    auth: "admin",
    body: { files: { "ports.yaml": SHAPES.flowNesting } },
    status: 422,
    code: "KB_INVALID",
    message: /nested more than 100 levels/,
  },
];

const IMPORT = "mutation($b: String!) { importKnowledgeBase(bundle: $b) { changed } }";
const importOverGraphql: HostileCase[] = [
  graphqlCase(
    "KB_INVALID for an alias bomb imported over GraphQL",
    IMPORT,
    { status: 200, code: "KB_INVALID", auth: "admin", message: /Excessive alias count/ },
    {
      b: "ports:\n  - &a [x, x, x, x, x, x, x, x, x, x]\n  - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n  - &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n  - [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
    },
  ),
  graphqlCase(
    "BAD_USER_INPUT for deep nesting imported over GraphQL",
    IMPORT,
    {
      status: 200,
      code: "BAD_USER_INPUT",
      auth: "admin",
      field: "bundle",
      message: /nested more than 100/,
    },
    { b: SHAPES.flowNesting },
  ),
  graphqlCase(
    "BAD_USER_INPUT for duplicate keys imported over GraphQL",
    IMPORT,
    {
      status: 200,
      code: "BAD_USER_INPUT",
      auth: "admin",
      field: "bundle",
      message: /Map keys must be unique/,
    },
    {
      b: "ports:\n  - component: kubelet\n    component: etcd\n",
    },
  ),
  graphqlCase(
    "UNAUTHENTICATED for a bundle bomb without a token (never parsed)",
    IMPORT,
    { status: 200, code: "UNAUTHENTICATED" },
    { b: SHAPES.flowNesting },
  ),
];

export const YAML_CASES: Readonly<Record<string, readonly HostileCase[]>> = {
  "POST /api/v1/scan with application/yaml": scanOverRest,
  "POST /api/v1/scan with JSON": scanOverJson,
  "GraphQL scanManifests": scanOverGraphql,
  "POST /api/v1/kb/import": importOverRest,
  "GraphQL importKnowledgeBase": importOverGraphql,
};
