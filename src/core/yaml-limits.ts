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
import { CST, Lexer, LineCounter, Parser, isScalar, visit, type Document, type Node } from "yaml";

export const MAX_YAML_DEPTH = 100;

/**
 * How many YAML tokens (keys, values, items, indicators, comments: every
 * lexeme but whitespace) and how many lines one input may hold. Parsed and
 * composed, each token costs about a kilobyte of memory and a few
 * microseconds, and each line a couple of microseconds, whatever their size
 * in bytes; so a byte limit alone lets `[a,a,a,...]` or ten million empty
 * lines cost many times what real manifests of the same size do (10 MiB of
 * them hold about 1.2 million tokens on half a million lines), enough to
 * exhaust the heap or hold the event loop for a minute.
 */
export const MAX_YAML_TOKENS = 1_500_000;
export const MAX_YAML_LINES = 1_500_000;

/** Counts what an input costs, lexeme by lexeme, against MAX_YAML_TOKENS and MAX_YAML_LINES. */
export class YamlCostMeter {
  private tokens = 0;
  private lines = 0;

  constructor(
    private readonly maxTokens = MAX_YAML_TOKENS,
    private readonly maxLines = MAX_YAML_LINES,
  ) {}

  /** Counts one lexeme; says which limit the input has now gone past, if any. */
  add(lexeme: string): "tokens" | "lines" | null {
    switch (CST.tokenType(lexeme)) {
      case "space":
      case "scalar": // the marker the lexer puts before each plain scalar; the scalar's text is counted
        return null;
      case "newline":
        return ++this.lines > this.maxLines ? "lines" : null;
      default:
        return ++this.tokens > this.maxTokens ? "tokens" : null;
    }
  }

  /** Words for a limit `add` reported, to follow "the input goes past". */
  static describe(limit: "tokens" | "lines"): string {
    return limit === "tokens"
      ? `${MAX_YAML_TOKENS} YAML tokens (keys, values, items, comments)`
      : `${MAX_YAML_LINES} lines`;
  }
}

export type YamlShapeProblem =
  | { readonly line: number; readonly problem: "depth" | "tokens" | "lines" }
  | { readonly line: number; readonly problem: "syntax"; readonly message: string };

/**
 * What makes `text` too costly to compose, with the line where it shows:
 * nesting deeper than `maxDepth`, more tokens or lines than YamlCostMeter
 * allows, or a syntax error the parser sees before composing (such errors can
 * come one per token, `[][][]...`, and each costs far more than a token).
 * Null when it is none of these.
 */
export function yamlShapeProblem(text: string, maxDepth = MAX_YAML_DEPTH): YamlShapeProblem | null {
  const lineCounter = new LineCounter();
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  const meter = new YamlCostMeter();
  for (const lexeme of new Lexer().lex(text)) {
    const over = meter.add(lexeme);
    if (over !== null) return { line: lineCounter.linePos(parser.offset).line, problem: over };
    for (const token of parser.next(lexeme)) {
      if (token.type === "error")
        return {
          line: lineCounter.linePos(token.offset).line,
          problem: "syntax",
          message: token.message,
        };
    }
    if (parser.stack.length > maxDepth)
      return { line: lineCounter.linePos(parser.offset).line, problem: "depth" };
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
