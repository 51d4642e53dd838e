/**
 * Guards for YAML we did not write (uploaded bundles, kb/ files in review):
 * the yaml library's composer recurses once per nesting level, so a document
 * thousands of levels deep would exhaust the stack and can take the process
 * down. Lexing and parsing are iterative; the depth is checked there, before
 * anything is composed.
 */
import { Lexer, LineCounter, Parser } from "yaml";

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
