/**
 * `fix` by generation: Ingresses of both removed apiVersions written as people write them (indentation of 2 or
 * 4, lists indented under their key or not, every quoting, comments beside and above fields, fields in any
 * order, path items starting with the field that moves, optional default backend, pathType and extra fields)
 * are rewritten so that
 * - every line that does not hold a field the conversion changes is in the output, unchanged and in order
 *   (the generator knows which lines it wrote for such fields, independently of the rewrite);
 * - the output scans clean at the target and validates against networking.k8s.io/v1's schema;
 * - the same object given as kubectl's JSON converts to the same value (the JSON path and the YAML path agree);
 * - the replacements told per object, applied to the input, give the output.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import fc from "fast-check";
import { createPatch } from "diff";
import { parse } from "yaml";
import { fixManifests, type TextReplacement } from "../src/domain/manifest-fix.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kbSnapshot } from "./support/snapshot.js";
import { targetSchemaErrors } from "./support/target-schemas.js";

interface Line {
  readonly text: string;
  /** Whether the line holds a field the conversion changes (the rewrite may change or remove it). */
  readonly touched: boolean;
}

const dnsName = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}[a-z0-9]$/);
const portName = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const comment = fc.option(fc.stringMatching(/^[A-Za-z0-9 ,.()-]{1,20}$/), { nil: undefined });
const quoting = fc.constantFrom("plain", "double", "single");

const backend = fc.record({
  serviceName: dnsName,
  servicePort: fc.oneof(fc.integer({ min: 1, max: 65535 }), portName),
  nameQuoting: quoting,
  portQuoting: quoting,
  nameComment: comment,
  portFirst: fc.boolean(),
});

const pathItem = fc.record({
  path: fc.option(fc.stringMatching(/^\/[a-z0-9/]{0,10}$/), { nil: undefined }),
  pathType: fc.option(fc.constantFrom("Prefix", "Exact", "ImplementationSpecific"), {
    nil: undefined,
  }),
  backend,
  backendFirst: fc.boolean(),
});

const ingress = fc.record({
  apiVersion: fc.constantFrom("extensions/v1beta1", "networking.k8s.io/v1beta1"),
  name: dnsName,
  indent: fc.constantFrom(2, 4),
  indentSeq: fc.boolean(),
  annotations: fc.dictionary(
    fc.stringMatching(/^[a-z]{1,8}\.example\.com\/[a-z-]{1,10}$/),
    fc.stringMatching(/^[a-z0-9 /]{0,12}$/),
    { maxKeys: 3 },
  ),
  defaultBackend: fc.option(backend, { nil: undefined }),
  backendLast: fc.boolean(),
  ingressClassName: fc.option(dnsName, { nil: undefined }),
  rules: fc.array(
    fc.record({
      host: fc.option(fc.stringMatching(/^[a-z]{1,8}\.example\.com$/), { nil: undefined }),
      paths: fc.array(pathItem, { minLength: 1, maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

type IngressCase = typeof ingress extends fc.Arbitrary<infer T> ? T : never;
type Backend = IngressCase["rules"][number]["paths"][number]["backend"];

function quoted(value: string | number, how: string): string {
  if (typeof value === "number") return String(value);
  if (how === "double") return JSON.stringify(value);
  if (how === "single") return `'${value}'`;
  return value;
}

/** A field as the generator writes it: a scalar (as text), a mapping or a list of mappings. */
interface Field {
  readonly key: string;
  readonly scalar?: string;
  readonly map?: readonly Field[];
  readonly seq?: ReadonlyArray<readonly Field[]>;
  /** The conversion changes this field (its lines may change or go). */
  readonly touched?: boolean;
  readonly commentAbove?: string;
}

/** Writes fields at a column, each line tagged; a list item's first field shares the "- " line. */
function render(
  fields: readonly Field[],
  column: number,
  c: IngressCase,
  lines: Line[],
  firstPrefix?: string,
): void {
  fields.forEach((field, index) => {
    const touched = field.touched === true;
    if (field.commentAbove !== undefined && !(index === 0 && firstPrefix !== undefined))
      lines.push({ text: `${" ".repeat(column)}# ${field.commentAbove}`, touched: false });
    const lead = index === 0 && firstPrefix !== undefined ? firstPrefix : " ".repeat(column);
    if (field.scalar !== undefined) {
      lines.push({ text: `${lead}${field.key}: ${field.scalar}`, touched });
      return;
    }
    lines.push({ text: `${lead}${field.key}:`, touched });
    if (field.map !== undefined) render(field.map, column + c.indent, c, lines);
    for (const item of field.seq ?? []) {
      const dash = column + (c.indentSeq ? c.indent : 0);
      render(item, dash + 2, c, lines, `${" ".repeat(dash)}- `);
    }
  });
}

function backendFields(b: Backend): Field[] {
  const name: Field = {
    key: "serviceName",
    scalar: `${quoted(b.serviceName, b.nameQuoting)}${b.nameComment === undefined ? "" : `  # ${b.nameComment}`}`,
    touched: true,
  };
  const port: Field = {
    key: "servicePort",
    scalar: quoted(b.servicePort, b.portQuoting),
    touched: true,
  };
  return b.portFirst ? [port, name] : [name, port];
}

/** The case as YAML lines, each tagged with whether it holds a field the conversion changes. */
function yamlLines(c: IngressCase): Line[] {
  const annotations = Object.entries(c.annotations).map(([key, value]) => ({
    key,
    scalar: JSON.stringify(value),
  }));
  const rules: Field[][] = c.rules.map((rule) => {
    const paths: Field[][] = rule.paths.map((p) => {
      const backend: Field = { key: "backend", map: backendFields(p.backend) };
      const fields: Field[] = [];
      if (p.path !== undefined) fields.push({ key: "path", scalar: p.path });
      if (p.pathType !== undefined) fields.push({ key: "pathType", scalar: p.pathType });
      const all = p.backendFirst ? [backend, ...fields] : [...fields, backend];
      // A comment above a path item's first field goes above its "- " line.
      return all;
    });
    const fields: Field[] = [];
    if (rule.host !== undefined) fields.push({ key: "host", scalar: rule.host });
    fields.push({ key: "http", map: [{ key: "paths", seq: paths }] });
    return fields;
  });
  const defaultBackend: Field[] =
    c.defaultBackend === undefined
      ? []
      : [{ key: "backend", map: backendFields(c.defaultBackend), touched: true }];
  const spec: Field[] = [
    ...(c.ingressClassName === undefined
      ? []
      : [{ key: "ingressClassName", scalar: c.ingressClassName }]),
    ...(c.backendLast ? [] : defaultBackend),
    { key: "rules", seq: rules, commentAbove: "routes" },
    ...(c.backendLast ? defaultBackend : []),
  ];
  const lines: Line[] = [{ text: "# kept in git", touched: false }];
  render(
    [
      { key: "apiVersion", scalar: `${c.apiVersion}   # the old API`, touched: true },
      { key: "kind", scalar: "Ingress" },
      {
        key: "metadata",
        map: [
          { key: "name", scalar: c.name },
          ...(annotations.length > 0 ? [{ key: "annotations", map: annotations }] : []),
        ],
      },
      { key: "spec", map: spec },
    ],
    0,
    c,
    lines,
  );
  return lines;
}

let snapshot: KbSnapshot;
before(async () => {
  snapshot = await kbSnapshot();
});

/**
 * Whether `needles` appear in `haystack` in order (each once). A list item's first line may lose its "- " to a
 * field written before it (`- backend:` becomes `  backend:` under `- pathType: ...`), and nothing else.
 */
function inOrder(haystack: readonly string[], needles: readonly string[]): string | null {
  let from = 0;
  for (const needle of needles) {
    const undashed = needle.replace(/^( *)- /, "$1  ");
    const found = haystack.findIndex(
      (line, index) => index >= from && (line === needle || line === undashed),
    );
    if (found === -1) return needle;
    from = found + 1;
  }
  return null;
}

function applyReplacements(text: string, replacements: readonly TextReplacement[]): string {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  const offset = (line: number, column: number): number => starts[line - 1]! + column - 1;
  let out = text;
  for (const replacement of [...replacements].reverse()) {
    const start = offset(replacement.startLine, replacement.startColumn);
    const end = offset(replacement.endLine, replacement.endColumn);
    assert.equal(out.slice(start, end), replacement.deletedText);
    out = out.slice(0, start) + replacement.insertedText + out.slice(end);
  }
  return out;
}

describe("fix: generated Ingresses", () => {
  it("keeps every untouched line, scans clean, is valid v1, agrees with the JSON path and with its replacements", () => {
    fc.assert(
      fc.property(ingress, (c) => {
        const lines = yamlLines(c);
        const input = `${lines.map((line) => line.text).join("\n")}\n`;
        const report = fixManifests(snapshot, input, "1.22");
        assert.equal(report.objects.length, 1, input);
        const [object] = report.objects;
        assert.equal(object!.status, "FIXED", `${object!.reason}\n${input}`);
        const output = report.manifests.split("\n");
        const missing = inOrder(
          output,
          lines.filter((line) => !line.touched).map((line) => line.text),
        );
        assert.equal(
          missing,
          null,
          `an untouched line was changed or moved:\n${input}\n---\n${report.manifests}`,
        );
        assert.deepEqual(
          report.after.findings.filter((finding) => finding.code === "API_REMOVED"),
          [],
        );
        const fixed = parse(report.manifests) as unknown;
        assert.deepEqual(targetSchemaErrors(fixed), [], report.manifests);
        const json = fixManifests(snapshot, `${JSON.stringify(parse(input), null, 4)}\n`, "1.22");
        assert.deepEqual(JSON.parse(json.manifests), fixed);
        assert.equal(applyReplacements(input, object!.replacements), report.manifests);
        assert.equal(
          report.diff,
          createPatch("manifests", input, report.manifests, "", "", { context: 3 }),
        );
      }),
      { numRuns: 150 },
    );
  });
});
