/**
 * Rewrites the text of one object to its converted value (conversion-steps.ts) by small edits to the input,
 * so that everything the conversion does not change stays byte for byte as it was: comments, key order,
 * quoting, indentation, blank lines. A field whose value is unchanged is not touched; a changed scalar is
 * replaced in its own quoting; a renamed key keeps its value as written; a removed field takes its lines
 * with it; a new field is written at the indentation of its siblings, in the place of the field it came
 * from, with moved values in their own quoting. Flow collections (`{...}`, `[...]`) that change are written
 * again whole, in flow style.
 */
import { Document, isMap, isScalar, isSeq, Pair, Scalar, YAMLMap, YAMLSeq, type Node } from "yaml";
import { isPlainMap } from "./manifest-values.js";
import { originOf, type ConvertedObject, type FieldPath } from "./conversion-steps.js";

/** Replace `text` for the input's characters [start, end); an insertion has start === end. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** How the input writes nested blocks: the indentation step, and whether list items are indented under their key. */
export interface BlockStyle {
  readonly indent: number;
  readonly indentSeq: boolean;
}

/** Thrown when the text cannot be brought to the converted value by edits; the object is then left as it was. */
export class RewriteRefused extends Error {}

interface Rewrite {
  readonly source: string;
  readonly document: Document.Parsed;
  /** Where the object is in its document (items of a List: ["items", n]). */
  readonly objectPath: FieldPath;
  readonly converted: ConvertedObject;
  readonly style: BlockStyle;
  readonly edits: TextEdit[];
  /** The spaces before each moved value's comment, by the comment's text. */
  readonly commentGaps: Map<string, string>;
}

/** The edits that turn the object's text into the converted object. */
export function objectEdits(
  source: string,
  document: Document.Parsed,
  objectPath: FieldPath,
  converted: ConvertedObject,
  style: BlockStyle,
): TextEdit[] {
  const node = document.getIn(objectPath, true);
  const rewrite: Rewrite = {
    source,
    document,
    objectPath,
    converted,
    style,
    edits: [],
    commentGaps: new Map(),
  };
  if (!isMap(node) || rewriteValue(rewrite, node, converted.value, []) === "replace")
    throw new RewriteRefused("the object is not a block mapping that can be edited in place");
  return rewrite.edits;
}

type Outcome = "done" | "replace";

function rewriteValue(rewrite: Rewrite, node: unknown, value: unknown, path: FieldPath): Outcome {
  if (isScalar(node)) {
    if (isPlainMap(value) || Array.isArray(value)) return "replace";
    if (node.value === value || (node.value === null && value === null)) return "done";
    if (node.range === undefined || node.range === null) return "replace";
    rewrite.edits.push({
      start: node.range[0],
      end: node.range[1],
      text: scalarText(node, value),
    });
    return "done";
  }
  if ((isMap(node) || isSeq(node)) && node.flow === true)
    return sameJson(node.toJSON(), value) ? "done" : "replace";
  if (isMap(node) && isPlainMap(value)) return rewriteMap(rewrite, node, value, path);
  if (isSeq(node) && Array.isArray(value)) {
    if (node.items.length !== value.length) return "replace";
    for (const [index, item] of node.items.entries())
      if (rewriteValue(rewrite, item, value[index], [...path, index]) === "replace")
        return "replace";
    return "done";
  }
  return node === null && value === null ? "done" : "replace";
}

/** A block mapping: pairs kept (edited inside, or renamed), pairs gone, and new pairs written where they belong. */
function rewriteMap(
  rewrite: Rewrite,
  node: YAMLMap,
  value: Record<string, unknown>,
  path: FieldPath,
): Outcome {
  const pairs = node.items;
  const newKeys = Object.keys(value);
  if (newKeys.length === 0) return pairs.length === 0 ? "done" : "replace";
  if (pairs.length === 0 || pairs.some((pair) => !isScalar(pair.key))) return "replace";
  const renamed = new Map(
    rewrite.converted.renames
      .filter((rename) => samePath(rename.at, path))
      .map((rename) => [rename.from, rename.to]),
  );
  // The new key each old pair became, or null when it is gone (removed, or written again below).
  const keptAs: Array<string | null> = pairs.map((pair) => {
    const key = String((pair.key as Scalar).value);
    const now = renamed.get(key) ?? key;
    if (!Object.hasOwn(value, now)) return null;
    const edits = rewrite.edits.length;
    if (rewriteValue(rewrite, pair.value, value[now], [...path, now]) === "replace") {
      rewrite.edits.length = edits;
      return null;
    }
    if (now !== key) {
      const keyNode = pair.key as Scalar;
      rewrite.edits.push({
        start: keyNode.range![0],
        end: keyNode.range![1],
        text: scalarText(keyNode, now),
      });
    }
    return now;
  });
  removeGonePairs(rewrite, pairs, keptAs);
  insertNewPairs(rewrite, pairs, keptAs, value, path);
  return "done";
}

function removeGonePairs(
  rewrite: Rewrite,
  pairs: ReadonlyArray<Pair<unknown, unknown>>,
  keptAs: ReadonlyArray<string | null>,
): void {
  const { source } = rewrite;
  for (let first = 0; first < pairs.length; first += 1) {
    if (keptAs[first] !== null) continue;
    let last = first;
    while (last + 1 < pairs.length && keptAs[last + 1] === null) last += 1;
    const keyStart = keyStartOf(pairs[first]!);
    const inline = !onlySpacesBefore(source, keyStart);
    const after = pairs[last + 1];
    rewrite.edits.push({
      start: inline ? keyStart : lineStart(source, keyStart),
      end: inline && after !== undefined ? keyStartOf(after) : pairEnd(source, pairs[last]!),
      text: "",
    });
    first = last;
  }
}

/** Each run of new keys goes after the pair of the key before it, or at the start of the mapping. */
function insertNewPairs(
  rewrite: Rewrite,
  pairs: ReadonlyArray<Pair<unknown, unknown>>,
  keptAs: ReadonlyArray<string | null>,
  value: Record<string, unknown>,
  path: FieldPath,
): void {
  const { source } = rewrite;
  const pairOf = new Map<string, Pair<unknown, unknown>>();
  keptAs.forEach((key, index) => {
    if (key !== null) pairOf.set(key, pairs[index]!);
  });
  const firstKey = keyStartOf(pairs[0]!);
  const column = firstKey - lineStart(source, firstKey);
  let anchor: Pair<unknown, unknown> | null = null;
  let run: string[] = [];
  const flush = (): void => {
    if (run.length === 0) return;
    const lines = renderPairs(rewrite, run, value, path);
    const pad = " ".repeat(column);
    if (anchor !== null) {
      // New fields take the place of a field gone right after the anchor, below that field's comment lines.
      const next = pairs[pairs.indexOf(anchor) + 1];
      const at =
        next !== undefined && keptAs[pairs.indexOf(next)] === null
          ? lineStart(source, keyStartOf(next))
          : pairEnd(source, anchor);
      rewrite.edits.push({
        start: at,
        end: at,
        text: lines.map((line) => `${pad}${line}\n`).join(""),
      });
    } else if (onlySpacesBefore(source, firstKey)) {
      const at = lineStart(source, firstKey);
      rewrite.edits.push({
        start: at,
        end: at,
        text: lines.map((line) => `${pad}${line}\n`).join(""),
      });
    } else {
      // The mapping starts on a list item's line (`- name: x`): the first new line goes there.
      const followed = keptAs.some((key) => key !== null);
      const text = lines.map((line, index) => (index === 0 ? line : `\n${pad}${line}`)).join("");
      rewrite.edits.push({
        start: firstKey,
        end: firstKey,
        text: `${text}\n${followed ? pad : ""}`,
      });
    }
    run = [];
  };
  for (const key of Object.keys(value)) {
    const kept = pairOf.get(key);
    if (kept === undefined) {
      run.push(key);
      continue;
    }
    flush();
    anchor = kept;
  }
  flush();
}

/** The new pairs as block YAML lines at column 0, moved values in their own quoting. */
function renderPairs(
  rewrite: Rewrite,
  keys: readonly string[],
  value: Record<string, unknown>,
  path: FieldPath,
): string[] {
  const map = new YAMLMap();
  for (const key of keys)
    map.items.push(new Pair(new Scalar(key), nodeOf(rewrite, value[key], [...path, key])));
  const document = new Document();
  document.contents = map;
  const text = document.toString({
    indent: rewrite.style.indent,
    indentSeq: rewrite.style.indentSeq,
    lineWidth: 0,
  });
  // A moved value's comment keeps the spaces it had before it.
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => {
      const match = / #(.*)$/.exec(line);
      const gap = match === null ? undefined : rewrite.commentGaps.get(match[1]!);
      return gap === undefined ? line : `${line.slice(0, match!.index)}${gap}#${match![1]}`;
    });
}

/** A value as a node; a scalar that was in the input (moved or not) keeps its quoting and its comment. */
function nodeOf(rewrite: Rewrite, value: unknown, path: FieldPath): Node {
  if (Array.isArray(value)) {
    const seq = new YAMLSeq();
    value.forEach((item, index) => seq.items.push(nodeOf(rewrite, item, [...path, index])));
    return seq;
  }
  if (isPlainMap(value)) {
    const map = new YAMLMap();
    for (const [key, item] of Object.entries(value))
      map.items.push(new Pair(new Scalar(key), nodeOf(rewrite, item, [...path, key])));
    return map;
  }
  const scalar = new Scalar(value);
  const was = rewrite.document.getIn(
    [...rewrite.objectPath, ...originOf(rewrite.converted, path)],
    true,
  );
  if (isScalar(was) && was.value === value) {
    scalar.type = was.type;
    scalar.format = was.format;
    scalar.minFractionDigits = was.minFractionDigits;
    scalar.comment = was.comment;
    if (was.comment !== undefined && was.comment !== null && was.range) {
      const gap = /^[ \t]*(?=#)/.exec(rewrite.source.slice(was.range[1]));
      if (gap !== null) rewrite.commentGaps.set(was.comment, gap[0]);
    }
  }
  return scalar;
}

/** A scalar's new value, written in the old one's quoting where the value allows it. */
function scalarText(node: Scalar, value: unknown): string {
  if (typeof value !== "string") return String(value);
  if (node.type === Scalar.QUOTE_DOUBLE) return JSON.stringify(value);
  if (node.type === Scalar.QUOTE_SINGLE && !value.includes("\n"))
    return `'${value.replaceAll("'", "''")}'`;
  const document = new Document(value);
  return document.toString({ lineWidth: 0 }).replace(/\n$/, "");
}

function keyStartOf(pair: Pair<unknown, unknown>): number {
  return (pair.key as Scalar).range![0];
}

function lineStart(source: string, offset: number): number {
  return source.lastIndexOf("\n", offset - 1) + 1;
}

function onlySpacesBefore(source: string, offset: number): boolean {
  return /^ *$/.test(source.slice(lineStart(source, offset), offset));
}

/** The end of a pair's last line, its newline included. */
function pairEnd(source: string, pair: Pair<unknown, unknown>): number {
  const value = pair.value as Node | null;
  const end = value?.range?.[1] ?? (pair.key as Scalar).range![2];
  if (end > 0 && source[end - 1] === "\n") return end;
  const newline = source.indexOf("\n", end);
  return newline === -1 ? source.length : newline + 1;
}

function samePath(a: FieldPath, b: FieldPath): boolean {
  return a.length === b.length && a.every((part, index) => b[index] === part);
}

/** Two values equal as JSON (key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainMap(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  return JSON.stringify(value ?? null);
}

/** The input with the edits made; edits must not overlap (an insertion may touch a removal's start). */
export function applyEdits(source: string, edits: readonly TextEdit[]): string {
  const ordered = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = "";
  let cursor = 0;
  for (const edit of ordered) {
    if (edit.start < cursor) throw new RewriteRefused("two edits of the same text overlap");
    out += source.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return out + source.slice(cursor);
}
