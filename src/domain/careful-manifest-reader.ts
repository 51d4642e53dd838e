/**
 * The manifest reader's careful path: the yaml library's node tree, read one document at a time with every
 * limit on hostile input (nesting, tokens, alias bombs, duplicate keys), merge keys honoured as kubectl's
 * YAML decoder does, and each object's line and helm `# Source:` comment taken from the tree.
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
import { InputError } from "../core/errors.js";
import { YamlCostMeter, firstDuplicateKey } from "../core/yaml-limits.js";
import { MANIFESTS_FIELD, MAX_DOCUMENTS } from "./manifest-limits.js";
import { isPlainMap, type ManifestDocument, type PlainMap } from "./manifest-values.js";

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
