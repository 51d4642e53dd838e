/**
 * Reads the manifests a scan is given: the YAML documents one at a time, each
 * with its helm `# Source:` comment and the objects it holds (the document's
 * mapping, or the items of a List) as plain values with their first lines,
 * refusing up front what would cost too much to read.
 *
 * Two paths give the same documents (test/manifest-reader.test.ts holds them
 * to it). The careful path reads the yaml library's node tree and refuses
 * input that would cost far more to parse or expand than its size suggests
 * (oversized text, extreme nesting, alias bombs, millions of tokens, lines or
 * documents, binary data); it honours merge keys (`<<: *base`) as kubectl's
 * YAML decoder does. The fast path, js-yaml over documents split at their
 * markers, reads what kubectl, helm and GitOps tools actually emit about ten
 * times faster, and leaves every input it could read differently to the
 * careful path (see readManifestDocuments).
 */
import {
  Composer,
  Lexer,
  LineCounter,
  Parser,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  visit,
  type Alias,
  type CST,
  type Document,
  type Node,
  type YAMLMap,
} from "yaml";
import { CORE_SCHEMA, load as loadYaml } from "js-yaml";
import { InputError } from "../core/errors.js";
import { MAX_YAML_LINES, YamlCostMeter, firstDuplicateKey } from "../core/yaml-limits.js";

export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

/**
 * How many alias dereferences a full expansion of one document may take. The
 * yaml library's own guard (maxAliasCount) only acts in toJS(), which this
 * module never calls, so the same bound is enforced here on the node tree.
 * Manifests from kubectl and helm have no aliases at all.
 */
const MAX_ALIAS_COUNT = 50;

/**
 * Deepest parser stack accepted (roughly the nesting depth). The yaml
 * composer recurses once per level and runs out of call stack near 1000
 * levels, where V8 may even abort the process; real manifests, CRD schemas
 * included, stay well below 100.
 */
const MAX_NESTING_DEPTH = 200;

/**
 * Most documents one input may hold. Each costs some microseconds even when
 * empty, so ten megabytes of `---` lines would hold the event loop for half
 * a minute; `helm template` of a whole platform emits a few thousand.
 */
const MAX_DOCUMENTS = 100_000;

export const MANIFESTS_FIELD = "manifests";

/**
 * YAML allows only printable characters in a stream (YAML 1.2, 5.1): tab,
 * line breaks and printable Unicode, no other control characters, no lone
 * surrogates. The yaml library lets them through as parts of plain scalars,
 * so a binary file (a PNG, UTF-16 sent as UTF-8) would "scan" clean.
 */
const UNPRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/** How much of the text refuseUnprintableIn checks at a time: a few milliseconds' work. */
export const PRINTABLE_CHECK_CHARS = 1024 * 1024;

/**
 * Checks one stretch of the text from `start` (about PRINTABLE_CHECK_CHARS, never splitting a surrogate
 * pair) and returns where the next begins, so a scan can check ten megabytes between other requests.
 */
export function refuseUnprintableIn(text: string, start: number): number {
  let end = Math.min(text.length, start + PRINTABLE_CHECK_CHARS);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
  const match = UNPRINTABLE.exec(
    start === 0 && end === text.length ? text : text.slice(start, end),
  );
  if (match === null) return end;
  const index = start + match.index;
  const codePoint = match[0].codePointAt(0) ?? 0;
  const line = text.slice(0, index).split("\n").length;
  throw new InputError(
    `${MANIFESTS_FIELD}: line ${line} holds the character U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}, which YAML does not allow; send the manifests as text (UTF-8, or with a charset), not a binary file`,
    MANIFESTS_FIELD,
  );
}

export function refuseOversized(text: string): void {
  // A UTF-16 length above the limit is already too many bytes; only shorter strings need counting.
  const bytes = text.length > MAX_MANIFEST_BYTES ? text.length : Buffer.byteLength(text, "utf8");
  if (bytes > MAX_MANIFEST_BYTES) {
    throw new InputError(
      `manifests are ${formatMiB(bytes)} MiB; the limit is ${formatMiB(MAX_MANIFEST_BYTES)} MiB (${MAX_MANIFEST_BYTES} bytes). Scan the manifests in several parts.`,
      MANIFESTS_FIELD,
    );
  }
}

function formatMiB(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(2).replace(/\.?0+$/, "");
}

/**
 * parseAllDocuments(), unrolled so that nesting can be checked while lexing:
 * the composer's recursion must never see a document deeper than
 * MAX_NESTING_DEPTH. Documents are yielded one at a time, so a large input is
 * never held as nodes all at once.
 */
function* parseDocuments(text: string, lineCounter: LineCounter): Generator<Document.Parsed> {
  const parser = new Parser(lineCounter.addNewLine);
  // Parser.parse() registers the first line itself; driving the lexer by hand means doing it here.
  lineCounter.addNewLine(0);
  let documentsStarted = 0;
  const meter = new YamlCostMeter();
  function* tokens(): Generator<CST.Token> {
    for (const lexeme of new Lexer().lex(text)) {
      const over = meter.add(lexeme);
      if (over !== null) {
        throw new InputError(
          `${MANIFESTS_FIELD}: document ${documentsStarted + 1} (line ${lineCounter.linePos(parser.offset).line}) takes the manifests past ${YamlCostMeter.describe(over)}${over === "tokens" ? "; 10 MiB of real manifests hold about 1.2 million" : ""}. Scan the manifests in several parts.`,
          MANIFESTS_FIELD,
        );
      }
      let failed = false;
      for (const token of parser.next(lexeme)) {
        if (token.type === "document") documentsStarted += 1;
        // The first error already makes the input invalid; more of them (one per token of `[][][]...`) only cost memory.
        if (token.type === "error") failed = true;
        yield token;
      }
      if (failed) break;
      if (parser.stack.length > MAX_NESTING_DEPTH) {
        // The document being built is the one after those already emitted.
        throw new InputError(
          `${MANIFESTS_FIELD}: document ${documentsStarted + 1} (line ${lineCounter.linePos(parser.offset).line}) is nested more than ${MAX_NESTING_DEPTH} levels deep; no Kubernetes manifest needs that, so it is refused.`,
          MANIFESTS_FIELD,
        );
      }
    }
    yield* parser.end();
  }
  // Duplicate keys are found by firstDuplicateKey, in one pass instead of the composer's quadratic one.
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false });
  let yielded = 0;
  for (const document of composer.compose(tokens())) {
    yielded += 1;
    if (yielded > MAX_DOCUMENTS) {
      throw new InputError(
        `${MANIFESTS_FIELD} hold more than ${MAX_DOCUMENTS} YAML documents; scan them in several parts.`,
        MANIFESTS_FIELD,
      );
    }
    yield document;
  }
  // Errors in a stream that holds no document at all (a lone `...`) belong to no document.
  const [streamError] = composer.streamInfo().errors;
  if (yielded === 0 && streamError !== undefined) {
    throw new InputError(
      `${MANIFESTS_FIELD}: document 1 (line ${lineCounter.linePos(streamError.pos[0]).line}) is not valid YAML: ${firstLine(streamError.message)}`,
      MANIFESTS_FIELD,
    );
  }
}

function invalidYaml(
  document: Document.Parsed,
  documentIndex: number,
  lineCounter: LineCounter,
): InputError {
  const error = document.errors[0]!;
  const offset = unclosedQuoteStart(document, error.code, error.pos[0]) ?? error.pos[0];
  return new InputError(
    `${MANIFESTS_FIELD}: document ${documentIndex + 1} (line ${lineCounter.linePos(offset).line}) is not valid YAML: ${firstLine(error.message)}`,
    MANIFESTS_FIELD,
  );
}

/**
 * An unclosed quote is reported where the input ends, possibly many
 * documents later; the line where the quoted value opens is the one to fix.
 */
function unclosedQuoteStart(
  document: Document.Parsed,
  code: string,
  offset: number,
): number | undefined {
  if (code !== "MISSING_CHAR") return undefined;
  let start: number | undefined;
  visit(document, {
    Scalar(_key, scalar) {
      const range = scalar.range;
      if (
        (scalar.type === "QUOTE_DOUBLE" || scalar.type === "QUOTE_SINGLE") &&
        range &&
        range[0] < offset &&
        offset <= range[2]
      ) {
        start = range[0];
      }
    },
  });
  return start;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/** Empty documents and comment-only ones (helm emits one per template that renders nothing). */
function isEmptyDocument(document: Document.Parsed): boolean {
  const contents = document.contents;
  return contents === null || (isScalar(contents) && contents.value === null);
}

/** helm template writes `# Source: <chart>/templates/<file>` right after each `---`. */
function helmSource(document: Document.Parsed): string | null {
  // Without a leading `---` the parser hangs the first comment on the first key instead.
  const firstKey = isMap(document.contents)
    ? (document.contents.items[0]?.key as { commentBefore?: string | null } | null | undefined)
    : undefined;
  const comments = [
    document.commentBefore,
    document.contents?.commentBefore,
    firstKey?.commentBefore,
  ].filter((comment): comment is string => typeof comment === "string");
  let source: string | null = null;
  for (const comment of comments) {
    for (const match of comment.matchAll(/^\s*Source:\s*(\S.*?)\s*$/gm))
      source = match[1] ?? source;
  }
  return source;
}

/**
 * Maps each alias of the document to the node it stands for, after making
 * sure that expanding the document would not take more than MAX_ALIAS_COUNT
 * dereferences (a "billion laughs" bomb takes billions) and would end at all
 * (an alias inside its own anchor). Only the alias graph is examined, never
 * the expansion, so a refused bomb costs one walk over its nodes.
 */
function resolveAliases(
  document: Document.Parsed,
  documentIndex: number,
  text: string,
  lineCounter: LineCounter,
): ReadonlyMap<Alias, Node> {
  const targets = new Map<Alias, Node>();
  const [start, , end] = document.range;
  // Cheap pre-check: without a `*` in its own text a document has no alias.
  if (!text.slice(start, end).includes("*")) return targets;

  const where = (offset: number): string =>
    `document ${documentIndex + 1} (line ${lineCounter.linePos(offset).line})`;
  const bomb = (offset: number): InputError =>
    new InputError(
      `${MANIFESTS_FIELD}: ${where(offset)} would expand YAML aliases more than ${MAX_ALIAS_COUNT} times; it is refused as a possible alias bomb ("billion laughs"). Write the objects out without anchors and aliases.`,
      MANIFESTS_FIELD,
    );

  // Anchors are resolved the way the yaml library does: the latest anchor of that name before the alias.
  const latestAnchor = new Map<string, Node>();
  const aliases: Alias[] = [];
  visit(document, {
    Node(_key, node) {
      if (isAlias(node)) {
        const target = latestAnchor.get(node.source);
        const offset = node.range?.[0] ?? start;
        if (target === undefined) {
          throw new InputError(
            `${MANIFESTS_FIELD}: ${where(offset)} is not valid YAML: alias *${node.source} refers to no anchor &${node.source} before it`,
            MANIFESTS_FIELD,
          );
        }
        // Every alias in the tree is dereferenced at least once by an expansion.
        if (aliases.length === MAX_ALIAS_COUNT) throw bomb(offset);
        aliases.push(node);
        targets.set(node, target);
      } else if (node.anchor) {
        latestAnchor.set(node.anchor, node);
      }
    },
  });

  const contains = (outer: Node, inner: Node): boolean =>
    outer.range !== null &&
    outer.range !== undefined &&
    inner.range !== null &&
    inner.range !== undefined &&
    outer.range[0] <= inner.range[0] &&
    inner.range[0] < outer.range[2];
  const expansionCounts = new Map<Node, number>();
  const expanding = new Set<Node>();
  const dereferencesWithin = (node: Node): number => {
    const known = expansionCounts.get(node);
    if (known !== undefined) return known;
    if (expanding.has(node)) {
      throw new InputError(
        `${MANIFESTS_FIELD}: ${where(node.range?.[0] ?? start)} has an alias inside its own anchor, which would expand forever; it is refused.`,
        MANIFESTS_FIELD,
      );
    }
    expanding.add(node);
    let count = 0;
    for (const alias of aliases) {
      if (!contains(node, alias)) continue;
      count += 1 + dereferencesWithin(targets.get(alias)!);
      if (count > MAX_ALIAS_COUNT) break;
    }
    expanding.delete(node);
    expansionCounts.set(node, count);
    return count;
  };
  if (document.contents !== null && dereferencesWithin(document.contents) > MAX_ALIAS_COUNT) {
    throw bomb(document.contents.range?.[0] ?? start);
  }
  return targets;
}

function resolved(node: unknown, aliases: ReadonlyMap<Alias, Node>): unknown {
  return isAlias(node) ? aliases.get(node) : node;
}

/**
 * A key's value, honouring YAML merge keys (`<<: *base`, `<<: [*a, *b]`) as
 * kubectl's YAML decoder does: a key written in the map wins, then the merged
 * maps in order. Without this an apiVersion that comes from an anchor would
 * scan clean. Alias expansion is already bounded by resolveAliases.
 */
function field(map: YAMLMap, key: string, aliases: ReadonlyMap<Alias, Node>): unknown {
  const own: unknown = map.get(key, true);
  if (own !== undefined) return resolved(own, aliases);
  for (const pair of map.items) {
    if (!isScalar(pair.key) || pair.key.value !== "<<") continue;
    const merged = resolved(pair.value, aliases);
    for (const source of isSeq(merged)
      ? merged.items.map((item) => resolved(item, aliases))
      : [merged]) {
      if (!isMap(source) || source === map) continue;
      const value = field(source, key, aliases);
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

function stringField(map: YAMLMap, key: string, aliases: ReadonlyMap<Alias, Node>): string | null {
  const node = field(map, key, aliases);
  return isScalar(node) && typeof node.value === "string" ? node.value : null;
}

/**
 * The objects a document holds: the document's mapping itself, or the items
 * of a List (`kind: List`, `DeploymentList`, ...), recursively, each with
 * the offset where it appears in the input.
 */
function* manifestObjects(
  node: YAMLMap,
  aliases: ReadonlyMap<Alias, Node>,
  offset = node.range?.[0] ?? 0,
): Generator<{ object: YAMLMap; offset: number }> {
  const kind = stringField(node, "kind", aliases);
  const items = field(node, "items", aliases);
  if (kind === null || !kind.endsWith("List") || !isSeq(items)) {
    yield { object: node, offset };
    return;
  }
  for (const item of items.items) {
    const object = resolved(item, aliases);
    // An item given as an alias appears where the alias is written.
    if (isMap(object))
      yield* manifestObjects(
        object,
        aliases,
        (isAlias(item) ? item.range?.[0] : object.range?.[0]) ?? offset,
      );
  }
}

// ---------------------------------------------------------------- documents as plain values

/** A mapping of a manifest as plain values: aliases and merge keys resolved, no prototype. */
export type PlainMap = Record<string, unknown>;

export function isPlainMap(value: unknown): value is PlainMap {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** One object of a document (the document's mapping, or an item of a List) and its first line. */
export interface ManifestObjectAt {
  readonly object: PlainMap;
  readonly line: number;
}

/**
 * One YAML document of the input: unreadable (the message says where and why), empty (nothing but comments),
 * or content with the objects it holds (none for a scalar or a sequence) and helm's `# Source:` comment.
 */
export type ManifestDocument =
  | { readonly index: number; readonly state: "unreadable"; readonly message: string }
  | { readonly index: number; readonly state: "empty" }
  | {
      readonly index: number;
      readonly state: "content";
      readonly source: string | null;
      readonly objects: readonly ManifestObjectAt[];
    };

/** Said by manifestDocuments when the fast path gave up after some documents: forget them, the careful path starts over. */
export interface ReadRestart {
  readonly state: "restart";
}

/**
 * Every document of the input, one at a time. Most manifests (kubectl, helm and GitOps output: no anchors,
 * tags, directives or extreme nesting) are read by a fast path, js-yaml over documents split at their
 * markers, an order of magnitude faster than the yaml library's node tree. Anything the fast path is not
 * sure to read exactly as the careful path does (an anchor, alias, merge key, tag or directive, tab
 * indentation, deep nesting, more lines or documents than allowed, any YAML error) sends the whole input
 * to the careful path, which refuses hostile input with its precise messages: the fast path only ever
 * answers what the careful one would. Since the fast path may give up after some documents, a `restart`
 * then tells the reader to forget what it was given; documents are never all held at once.
 */
export function* manifestDocuments(text: string): Generator<ManifestDocument | ReadRestart> {
  let given = 0;
  try {
    for (const document of quickDocuments(text)) {
      given += 1;
      yield document;
    }
  } catch (error) {
    if (!(error instanceof QuickPathDeclined)) throw error;
    if (given > 0) yield { state: "restart" };
    yield* carefulDocuments(text);
  }
}

/** The careful path: the yaml library's node tree, with every limit of this module. */
export function* carefulDocuments(text: string): Generator<ManifestDocument> {
  const lineCounter = new LineCounter();
  let index = -1;
  for (const document of parseDocuments(text, lineCounter)) {
    index += 1;
    if (document.errors.length > 0) {
      yield {
        index,
        state: "unreadable",
        message: invalidYaml(document, index, lineCounter).message,
      };
      continue;
    }
    const duplicate = firstDuplicateKey(document);
    if (duplicate !== null) {
      const line = lineCounter.linePos(duplicate.range?.[0] ?? document.range[0]).line;
      yield {
        index,
        state: "unreadable",
        message: `${MANIFESTS_FIELD}: document ${index + 1} (line ${line}) is not valid YAML: Map keys must be unique`,
      };
      continue;
    }
    if (isEmptyDocument(document)) {
      yield { index, state: "empty" };
      continue;
    }
    if (!isMap(document.contents)) {
      yield { index, state: "content", source: null, objects: [] };
      continue;
    }
    const aliases = resolveAliases(document, index, text, lineCounter);
    const objects = [...manifestObjects(document.contents, aliases)].map(({ object, offset }) => ({
      object: plainOf(object, aliases) as PlainMap,
      line: lineCounter.linePos(offset).line,
    }));
    yield { index, state: "content", source: helmSource(document), objects };
  }
}

/** Sets a key on a prototype-less map; `__proto__` is an ordinary key there. */
function put(map: PlainMap, key: string, value: unknown): void {
  map[key] = value;
}

/**
 * A node as plain values, aliases resolved and merge keys (`<<: *base`) honoured as kubectl's decoder does:
 * a key written in the map wins, then the merged maps in order. Expansion is already bounded by resolveAliases.
 */
function plainOf(given: unknown, aliases: ReadonlyMap<Alias, Node>): unknown {
  const node = resolved(given, aliases);
  if (isScalar(node)) return node.value;
  if (isSeq(node)) return node.items.map((item) => plainOf(item, aliases));
  if (!isMap(node)) return undefined;
  const map = Object.create(null) as PlainMap;
  const merged: unknown[] = [];
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    if (key === "<<") {
      const source = resolved(pair.value, aliases);
      merged.push(...(isSeq(source) ? source.items : [source]));
      continue;
    }
    put(map, String(key), plainOf(pair.value, aliases));
  }
  for (const source of merged) {
    const values = plainOf(source, aliases);
    if (!isPlainMap(values)) continue;
    for (const [key, value] of Object.entries(values))
      if (!Object.hasOwn(map, key)) put(map, key, value);
  }
  return map;
}

// ---------------------------------------------------------------- the fast path

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

/** Block YAML: `items:` at the left margin, then each `- ` at the items' indentation. */
function yamlItemLines(body: string, firstLine: number): number[] | null {
  const lines = body.split("\n");
  const at = lines.findIndex((line) => /^items:\s*(#.*)?$/.test(line));
  if (at < 0) return null;
  let indent: string | null = null;
  const found: number[] = [];
  for (let index = at + 1; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (!/^\s/.test(line) && !line.startsWith("-")) break; // the next top-level key
    if (indent === null) {
      const match = /^( *)- /.exec(line) ?? /^( *)-$/.exec(line);
      if (match === null) return null;
      indent = match[1]!;
    }
    if (line.startsWith(`${indent}- `) || line === `${indent}-`) found.push(firstLine + index);
    else if (!line.startsWith(`${indent} `)) return null;
  }
  return found;
}

/** JSON: the `{` of each element of the root object's "items" array. */
function jsonItemLines(body: string, firstLine: number): number[] | null {
  let depth = 0;
  let line = firstLine;
  let inString = false;
  let lastKey: string | null = null;
  let keyStart = -1;
  let itemsDepth = -1;
  const found: number[] = [];
  for (let index = 0; index < body.length; index += 1) {
    const character = body[index]!;
    if (character === "\n") line += 1;
    if (inString) {
      if (character === "\\") index += 1;
      else if (character === '"') {
        inString = false;
        if (depth === 1) lastKey = body.slice(keyStart + 1, index);
      }
      continue;
    }
    switch (character) {
      case '"':
        inString = true;
        keyStart = index;
        break;
      case "{":
      case "[":
        if (character === "[" && depth === 1 && lastKey === "items" && itemsDepth < 0)
          itemsDepth = depth + 1;
        else if (character === "{" && itemsDepth > 0 && depth === itemsDepth) found.push(line);
        depth += 1;
        break;
      case "}":
      case "]":
        depth -= 1;
        break;
      case ",":
        if (depth === 1) lastKey = null;
        break;
    }
  }
  return itemsDepth < 0 ? null : found;
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
