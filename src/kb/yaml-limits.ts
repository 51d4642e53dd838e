/**
 * Guards for YAML we did not write (uploaded bundles, kb/ files in review,
 * manifests to scan): the yaml library's composer recurses once per nesting
 * level, so a document thousands of levels deep would exhaust the stack and
 * can take the process down. Lexing and parsing are iterative; the depth is
 * checked there, before anything is composed. And its duplicate-key check
 * (`uniqueKeys`) compares every key of a mapping with every earlier one, so a
 * mapping of a few hundred thousand keys takes minutes: parse with
 * `uniqueKeys: false` and ask firstDuplicateKey instead, which takes one pass.
 */
import { Lexer, LineCounter, Parser, isScalar, visit, type Document, type Node } from "yaml";

export const MAX_YAML_DEPTH = 100;

/** The line where `text` first nests deeper than `maxDepth`, or null when it does not. */
export function tooDeepAt(text: string, maxDepth = MAX_YAML_DEPTH): number | null {
  const lineCounter = new LineCounter();
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  for (const lexeme of new Lexer().lex(text)) {
    for (const _token of parser.next(lexeme)) {
      // Tokens are not needed, only the parser's depth after each lexeme.
    }
    if (parser.stack.length > maxDepth) return lineCounter.linePos(parser.offset).line;
  }
  return null;
}

/**
 * The first mapping key that repeats within its mapping, compared as the
 * yaml library does with `uniqueKeys: true` (the same node, or scalars of the
 * same value), or null when every key is unique.
 */
export function firstDuplicateKey(document: Document): Node | null {
  let duplicate: Node | null = null;
  visit(document, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = pair.key as Node | null;
        const value: unknown = isScalar(key) ? key.value : key;
        // NaN is not equal to itself, so two `.nan` keys are not the same key.
        if (typeof value === "number" && Number.isNaN(value)) continue;
        if (seen.has(value)) {
          duplicate = key;
          return visit.BREAK;
        }
        seen.add(value);
      }
      return undefined;
    },
  });
  return duplicate;
}
