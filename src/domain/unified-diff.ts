/**
 * The unified diff of a fix, from its edits: each stretch of lines the edits touch (with three lines of
 * context) is compared on its own and its hunks placed in the whole file, so that a 9 MB input with two
 * thousand objects fixed costs what its changed lines cost, not a line diff of the whole file. The output is
 * the one jsdiff's createPatch gives for the whole texts (test/manifest-fix.test.ts holds them together).
 */
import { formatPatch, structuredPatch, type StructuredPatch } from "diff";
import type { TextEdit } from "./yaml-rewrite.js";

const CONTEXT = 3;

export function* unifiedDiff(
  fileName: string,
  original: string,
  edits: readonly TextEdit[],
): Generator<void, string, void> {
  if (edits.length === 0) return "";
  const starts = lineStarts(original);
  const lineOf = (offset: number): number => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const ordered = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  // Stretches of whole lines [first, end), each with its edits, context included, overlapping ones merged.
  const stretches: Array<{ first: number; end: number; edits: TextEdit[] }> = [];
  for (const edit of ordered) {
    const first = Math.max(0, lineOf(edit.start) - CONTEXT);
    const end = Math.min(starts.length, lineOf(Math.max(edit.start, edit.end - 1)) + 1 + CONTEXT);
    const last = stretches[stretches.length - 1];
    if (last !== undefined && first <= last.end) {
      last.end = Math.max(last.end, end);
      last.edits.push(edit);
    } else stretches.push({ first, end, edits: [edit] });
  }
  const hunks: StructuredPatch["hunks"] = [];
  let shift = 0;
  for (const stretch of stretches) {
    yield;
    const from = starts[stretch.first]!;
    const to = stretch.end < starts.length ? starts[stretch.end]! : original.length;
    const before = original.slice(from, to);
    let after = "";
    let cursor = from;
    for (const edit of stretch.edits) {
      after += original.slice(cursor, edit.start) + edit.text;
      cursor = edit.end;
    }
    after += original.slice(cursor, to);
    const patch = structuredPatch("", "", before, after, "", "", { context: CONTEXT });
    for (const hunk of patch.hunks)
      hunks.push({
        ...hunk,
        oldStart: hunk.oldStart + stretch.first,
        newStart: hunk.newStart + stretch.first + shift,
      });
    shift += lineCount(after) - lineCount(before);
  }
  return formatPatch({
    oldFileName: fileName,
    newFileName: fileName,
    oldHeader: "",
    newHeader: "",
    hunks,
  });
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (
    let at = text.indexOf("\n");
    at !== -1 && at + 1 < text.length;
    at = text.indexOf("\n", at + 1)
  )
    starts.push(at + 1);
  return starts;
}

function lineCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count += 1;
  return text.length > 0 && !text.endsWith("\n") ? count + 1 : count;
}
