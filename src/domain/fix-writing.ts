/**
 * Writes the planned fixes into the text: YAML objects by edits in place (yaml-rewrite.ts), JSON documents
 * again whole; then reads the result back, and leaves as it was any object that does not read as its
 * conversion. Each fixed object is told its edits as regions of the input.
 */
import {
  LineCounter,
  parseDocument,
  isMap,
  isSeq,
  isScalar,
  visit,
  type Document,
  type YAMLMap,
} from "yaml";
import { isPlainMap } from "./manifest-values.js";
import type { ConvertedObject, FieldPath } from "./conversion-steps.js";
import type { ObjectFix } from "./fix-report.js";
import {
  applyEdits,
  objectEdits,
  RewriteRefused,
  sameJson,
  type BlockStyle,
  type TextEdit,
} from "./yaml-rewrite.js";

/** One object of a removed apiVersion: where it is, and what to make of it. */
export interface PlannedFix {
  fix: ObjectFix;
  readonly documentIndex: number;
  readonly document: Document.Parsed;
  readonly objectPath: FieldPath;
  readonly converted: ConvertedObject | null;
}

/** What rewriteAll is told beyond the text: the text the edits finally apply to, and edits it must refuse. */
export interface Writing {
  /** The text the answer's regions and deleted text are read from (a template, when `text` is it covered). */
  readonly original: string;
  /** The edits as made to `original` (a template's actions written back), or why they may not be made. */
  readonly check: (edits: readonly TextEdit[]) => { edits: TextEdit[] } | { refused: string };
}

/**
 * The input with every fixable object rewritten, and the edits that did it. The result is read back: an
 * object that does not read as its conversion (a shape the edits do not handle) is left as it was, with the
 * reason, and the rest is rewritten again without it.
 */
export function* rewriteAll(
  text: string,
  planned: PlannedFix[],
  writing: Writing = { original: text, check: (edits) => ({ edits: [...edits] }) },
): Generator<void, { text: string; finalEdits: TextEdit[] }, void> {
  // A file written with CRLF line endings gets CRLF in what is written into it too.
  const crlf = text.includes("\r\n");
  for (;;) {
    const perPlan = new Map<PlannedFix, TextEdit[]>();
    const finalPerPlan = new Map<PlannedFix, TextEdit[]>();
    const fixed = planned.filter((plan) => plan.fix.status === "FIXED");
    for (const document of new Set(fixed.map((plan) => plan.document))) {
      const plans = fixed.filter((plan) => plan.document === document);
      if (isMap(document.contents) && document.contents.flow === true) {
        // One edit writes the whole JSON document; it is told with the document's first object.
        const edit = inLineEndings(jsonDocumentEdit(text, document, plans), crlf);
        perPlan.set(plans[0]!, [edit]);
        finalPerPlan.set(plans[0]!, [edit]);
        continue;
      }
      const style = blockStyle(text, document);
      for (const plan of plans) {
        yield;
        try {
          const edits = objectEdits(text, document, plan.objectPath, plan.converted!, style).map(
            (edit) => inLineEndings(edit, crlf),
          );
          const checked = writing.check(edits);
          if ("refused" in checked) leaveAsIs(plan, checked.refused);
          else {
            perPlan.set(plan, edits);
            finalPerPlan.set(plan, checked.edits);
          }
        } catch (error) {
          if (!(error instanceof RewriteRefused)) throw error;
          leaveAsIs(
            plan,
            `its text could not be rewritten in place (${error.message}); rewrite it by hand`,
          );
        }
      }
    }
    const edits = [...perPlan.values()].flat();
    const wrong = yield* misread(text, edits, planned);
    if (wrong.length === 0) {
      yield* tellReplacements(writing.original, finalPerPlan);
      return { text: applyEdits(text, edits), finalEdits: [...finalPerPlan.values()].flat() };
    }
    for (const plan of wrong)
      leaveAsIs(plan, "its rewritten text did not read back as the conversion; rewrite it by hand");
  }
}

/** Each fixed object's edits as regions of the input (1-based lines and columns, SARIF's), with the new text. */
function* tellReplacements(
  text: string,
  perPlan: ReadonlyMap<PlannedFix, readonly TextEdit[]>,
): Generator<void, void, void> {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1))
    lines.addNewLine(at + 1);
  for (const [plan, edits] of perPlan) {
    yield;
    const replacements = [...edits]
      .sort((a, b) => a.start - b.start || a.end - b.end)
      .map((edit) => {
        const start = lines.linePos(edit.start);
        const end = lines.linePos(edit.end);
        return {
          startLine: start.line,
          startColumn: start.col,
          endLine: end.line,
          endColumn: end.col,
          deletedText: text.slice(edit.start, edit.end),
          insertedText: edit.text,
        };
      });
    plan.fix = { ...plan.fix, replacements };
  }
}

function leaveAsIs(plan: PlannedFix, reason: string): void {
  plan.fix = { ...plan.fix, status: "NOT_FIXED", reason, replacements: [] };
}

/** The fixed objects whose text does not read back as their conversion. */
function* misread(
  input: string,
  edits: readonly TextEdit[],
  planned: readonly PlannedFix[],
): Generator<void, PlannedFix[], void> {
  const fixed = planned.filter((plan) => plan.fix.status === "FIXED");
  if (fixed.length === 0) return [];
  const output = applyEdits(input, edits);
  const ordered = [...edits].sort((a, b) => a.end - b.end);
  // Where an offset of the input is in the output: moved by the edits that end before it.
  const shifts: number[] = [];
  ordered.reduce((sum, edit, index) => {
    shifts[index] = sum + edit.text.length - (edit.end - edit.start);
    return shifts[index];
  }, 0);
  const moved = (offset: number): number => {
    let low = 0;
    let high = ordered.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (ordered[middle]!.end <= offset) low = middle + 1;
      else high = middle;
    }
    return offset + (low === 0 ? 0 : shifts[low - 1]!);
  };
  // Only the documents something was written in are read again, each on its own.
  const reread = new Map<Document.Parsed, Document.Parsed>();
  const wrong: PlannedFix[] = [];
  for (const plan of fixed) {
    yield;
    const [start, , end] = plan.document.range;
    const document =
      reread.get(plan.document) ??
      parseDocument(output.slice(moved(start), moved(end)), { merge: true });
    reread.set(plan.document, document);
    const node = document.errors.length > 0 ? null : document.getIn(plan.objectPath, true);
    if (!isMap(node) || !sameJson(node.toJS(document), plan.converted!.value)) wrong.push(plan);
  }
  return wrong;
}

/** A JSON document written again whole, in its own indentation, with its objects converted. */
function jsonDocumentEdit(
  text: string,
  document: Document.Parsed,
  plans: readonly PlannedFix[],
): TextEdit {
  const contents = document.contents as YAMLMap;
  const [start, end] = contents.range!;
  const original = text.slice(start, end);
  const indent = /\n( +)\S/.exec(original)?.[1]?.length ?? 4;
  const value = document.toJS() as unknown;
  const asWritten = JSON.stringify(value, null, indent);
  let converted = value;
  for (const plan of plans)
    converted = withValueAt(converted, plan.objectPath, plan.converted!.value);
  const note =
    original.trimEnd() === asWritten
      ? "the JSON document was written again whole, in its own indentation"
      : "the JSON document was written again whole, with an indentation of " + String(indent);
  for (const plan of plans) plan.fix = { ...plan.fix, notes: [note] };
  const trailing = original.slice(original.trimEnd().length);
  return { start, end, text: JSON.stringify(converted, null, indent) + trailing };
}

function withValueAt(root: unknown, path: FieldPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(root) && typeof head === "number")
    return (root as unknown[]).map((item, index) =>
      index === head ? withValueAt(item, rest, value) : item,
    );
  if (isPlainMap(root) && typeof head === "string")
    return { ...root, [head]: withValueAt(root[head], rest, value) };
  return root;
}

/** How the document indents nested blocks, read off its first nested mapping and list. */
function blockStyle(text: string, document: Document.Parsed): BlockStyle {
  let indent: number | null = null;
  let indentSeq: boolean | null = null;
  const column = (offset: number): number => offset - (text.lastIndexOf("\n", offset - 1) + 1);
  visit(document, {
    Pair: (_, pair) => {
      if (!isScalar(pair.key) || pair.key.range === undefined || pair.key.range === null) return;
      const keyColumn = column(pair.key.range[0]);
      const value = pair.value;
      if (indent === null && isMap(value) && value.flow !== true) {
        const first = value.items[0]?.key;
        if (isScalar(first) && first.range) indent = column(first.range[0]) - keyColumn;
      }
      if (indentSeq === null && isSeq(value) && value.flow !== true && value.range)
        indentSeq = column(value.range[0]) > keyColumn;
      return indent !== null && indentSeq !== null ? visit.BREAK : undefined;
    },
  });
  return { indent: indent !== null && indent > 0 ? indent : 2, indentSeq: indentSeq ?? true };
}

function inLineEndings(edit: TextEdit, crlf: boolean): TextEdit {
  return crlf ? { ...edit, text: edit.text.replace(/\r?\n/g, "\r\n") } : edit;
}
