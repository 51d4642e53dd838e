/**
 * The manifest reader's fast path: js-yaml over documents split at their `---` markers, for what kubectl,
 * helm and GitOps tools actually emit. It declines (QuickPathDeclined) every input it could read differently
 * from the careful path, which then reads the whole input.
 */
import { CORE_SCHEMA, load as loadYaml } from "js-yaml";
import { MAX_YAML_LINES } from "../core/yaml-limits.js";
import { MAX_DOCUMENTS } from "./manifest-limits.js";
import {
  isPlainMap,
  type ManifestDocument,
  type ManifestObjectAt,
  type PlainMap,
} from "./manifest-values.js";
import { jsonItemLines, yamlItemLines } from "./list-item-lines.js";

/** What the fast path leaves to the careful one: constructs js-yaml reads differently or that need the careful limits. */
const CAREFUL_ONLY = [
  /::/, // runs of colons, which the two libraries read differently
  /<<\s*:/, // merge keys
  /(?:-[ ]+){40}/, // very deep compact sequences (`- - - -`)
];
/**
 * Line starts the fast path leaves to the careful one too, checked line by line as the documents are split
 * (one pass, no regular expression per rule): directives (`%`), document end markers (`...`), tab
 * indentation (an error the careful path words precisely), explicit keys and values (`? key`, `: value`),
 * and indentation of 150 spaces or more (very deep block nesting).
 */
const MAX_QUICK_INDENT = 150;
/** Flow nesting ([ and {, quotes not excluded, so overcounted: that only sends more input the careful way). */
const MAX_QUICK_FLOW_DEPTH = 60;

const LONG_KEY = /^[^:#]{1025,}:/;

/** The fast path leaves this input to the careful one. */
export class QuickPathDeclined extends Error {}

const BRACKETS = /[[\]{}]/g;

function flowDepthWithin(text: string, limit: number): boolean {
  let depth = 0;
  BRACKETS.lastIndex = 0;
  for (let match = BRACKETS.exec(text); match !== null; match = BRACKETS.exec(text)) {
    const bracket = match[0];
    if (bracket === "[" || bracket === "{") {
      depth += 1;
      if (depth > limit) return false;
    } else if (depth > 0) depth -= 1;
  }
  return true;
}

/**
 * Whether the text has an anchor (`&a`), alias (`*a`) or tag (`!t`): the indicator after a blank, a flow
 * indicator or the line start, and before a character that is not blank or a quote (a cron line's `* *"`).
 * Found with indexOf, far faster than a regular expression with a leading class over megabytes.
 */
function hasAnchorAliasOrTag(text: string): boolean {
  for (const indicator of ["&", "*", "!"]) {
    for (let at = text.indexOf(indicator); at >= 0; at = text.indexOf(indicator, at + 1)) {
      const before = at === 0 ? "\n" : text[at - 1]!;
      const after = text[at + 1];
      if (" \t\n\r[{,".includes(before) && after !== undefined && !" \t\n\r\"'".includes(after))
        return true;
    }
  }
  return false;
}

/** Whether a line starts in a way the fast path reads exactly as the careful one (see MAX_QUICK_INDENT). */
function plainLineStart(text: string, offset: number, lineEnd: number): boolean {
  let index = offset;
  while (index < lineEnd && text.charCodeAt(index) === 32) index += 1;
  if (index === lineEnd) return true;
  if (index - offset >= MAX_QUICK_INDENT) return false;
  const code = text.charCodeAt(index);
  if (code === 9) return false; // tab indentation
  if (code === 63 || code === 58) {
    // `?` or `:` followed by a blank: an explicit key or value
    const next = text.charCodeAt(index + 1);
    if (index + 1 === lineEnd || next === 32 || next === 9 || next === 13) return false;
  }
  if (index === offset) {
    if (code === 37) return false; // % directive
    if (
      text.startsWith("...", offset) &&
      /^\.\.\.[ \t\r]*(#.*)?$/.test(text.slice(offset, lineEnd))
    )
      return false;
  }
  return true;
}

interface Segment {
  /** Offset of the segment's first character (after its marker line). */
  readonly start: number;
  readonly end: number;
  /** 1-based line of the segment's first line. */
  readonly line: number;
  /** Whether a `---` marker opened it (the text before the first marker is a document only with content). */
  readonly marked: boolean;
}

/**
 * The input's documents as ranges between `---` lines, one at a time (a 10 MiB input is split as it is read,
 * so no step of the scan holds the event loop for the whole of it). Throws QuickPathDeclined at a line the
 * careful path must read (see plainLineStart, LONG_KEY, marker lines with content) or past the line limit.
 */
function* segmentsOf(text: string): Generator<Segment> {
  let start = 0;
  let startLine = 1;
  let marked = false;
  let line = 1;
  let offset = 0;
  for (;;) {
    const newline = text.indexOf("\n", offset);
    const lineEnd = newline < 0 ? text.length : newline;
    // An implicit key over YAML's 1024 characters, which js-yaml would allow and the careful path refuses.
    if (lineEnd - offset > 1024 && LONG_KEY.test(text.slice(offset, lineEnd)))
      throw new QuickPathDeclined();
    if (!plainLineStart(text, offset, lineEnd)) throw new QuickPathDeclined();
    if (
      text.startsWith("---", offset) &&
      (lineEnd === offset + 3 || /^[ \t\r]/.test(text.charAt(offset + 3)))
    ) {
      // Content on the marker line (`--- text`, `--- |`) belongs to the document: the careful path reads it.
      if (!/^---[ \t\r]*(#.*)?$/.test(text.slice(offset, lineEnd))) throw new QuickPathDeclined();
      yield { start, end: offset, line: startLine, marked };
      start = newline < 0 ? text.length : newline + 1;
      startLine = line + 1;
      marked = true;
    }
    if (newline < 0) break;
    offset = newline + 1;
    line += 1;
    if (line > MAX_YAML_LINES) throw new QuickPathDeclined();
  }
  yield { start, end: text.length, line: startLine, marked };
}

/** The first line with content, and the helm `# Source:` comment before it (the last one, as the careful path takes). */
function headOf(
  text: string,
  segment: Segment,
): { contentLine: number | null; source: string | null } {
  let source: string | null = null;
  let offset = segment.start;
  let line = segment.line;
  while (offset < segment.end) {
    const newline = text.indexOf("\n", offset);
    const lineEnd = newline < 0 || newline > segment.end ? segment.end : newline;
    const content = text.slice(offset, lineEnd).trim();
    if (content !== "" && !content.startsWith("#")) return { contentLine: line, source };
    const match = /^#\s*Source:\s*(\S.*?)\s*$/.exec(content);
    if (match !== null) source = match[1]!;
    offset = lineEnd + 1;
    line += 1;
  }
  return { contentLine: null, source };
}

/** js-yaml's reading of one document; its `__proto__` keys become own properties (js-yaml defines them so). */
function loadQuick(text: string): unknown {
  try {
    return loadYaml(text, { schema: CORE_SCHEMA });
  } catch {
    throw new QuickPathDeclined();
  }
}

/** Lines where each item of the List's top-level `items` begins, found in the text; null when they cannot be. */
function itemLines(text: string, segment: Segment, json: boolean): number[] | null {
  const body = text.slice(segment.start, segment.end);
  return json ? jsonItemLines(body, segment.line) : yamlItemLines(body, segment.line);
}

/**
 * The fast path's documents; throws QuickPathDeclined, before the first or after any, for the careful path.
 * Each document is checked for what the careful path must read (see CAREFUL_ONLY) just before it is loaded.
 */
export function* quickDocuments(text: string): Generator<ManifestDocument> {
  let index = -1;
  for (const segment of segmentsOf(text)) {
    const head = headOf(text, segment);
    // Before the first marker, comments and blank lines are no document.
    if (!segment.marked && head.contentLine === null) continue;
    index += 1;
    if (index >= MAX_DOCUMENTS) throw new QuickPathDeclined();
    if (head.contentLine === null) {
      yield { index, state: "empty" };
      continue;
    }
    const body = text.slice(segment.start, segment.end);
    if (
      hasAnchorAliasOrTag(body) ||
      CAREFUL_ONLY.some((pattern) => pattern.test(body)) ||
      !flowDepthWithin(body, MAX_QUICK_FLOW_DEPTH)
    )
      throw new QuickPathDeclined();
    const value = loadQuick(body);
    if (value === null || value === undefined) yield { index, state: "empty" };
    else if (!isPlainMap(value))
      yield { index, state: "content", source: head.source, objects: [] };
    else
      yield {
        index,
        state: "content",
        source: head.source,
        objects: objectsOf(
          value,
          text,
          segment,
          head.contentLine,
          body.trimStart().startsWith("{"),
        ),
      };
  }
}

/** The document's object, or its List's items with the lines they begin on; a List within a List goes the careful way. */
function objectsOf(
  value: PlainMap,
  text: string,
  segment: Segment,
  contentLine: number,
  json: boolean,
): ManifestObjectAt[] {
  const kind = value.kind;
  const items = value.items;
  if (typeof kind !== "string" || !kind.endsWith("List") || !Array.isArray(items))
    return [{ object: value, line: contentLine }];
  if (items.length === 0) return [];
  const lines = itemLines(text, segment, json);
  if (lines === null || lines.length !== items.length) throw new QuickPathDeclined();
  return items.flatMap((item: unknown, position) => {
    if (!isPlainMap(item)) return [];
    if (typeof item.kind === "string" && item.kind.endsWith("List") && Array.isArray(item.items))
      throw new QuickPathDeclined();
    return [{ object: item, line: lines[position]! }];
  });
}
