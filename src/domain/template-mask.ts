/**
 * A Helm template read as YAML: each template action (`{{ ... }}`) is covered by text of the same length, so
 * that offsets in the covered text are offsets in the template. An action alone on its lines (`{{- if ... }}`,
 * `{{- end }}`, `{{- include ... | nindent 4 }}`) becomes a comment; one inside a line becomes a token of
 * its own (a plain scalar to YAML). `fix` edits the covered text; its edits are then made to the template, a
 * moved token written back as the action it covers, and any edit that would cut into an action or touch a
 * line of control is refused: a templated structure is changed by a person, not by a guess at what it renders.
 */
import type { TextEdit } from "./yaml-rewrite.js";

/** One covered action: where, what it was, and its token (null for an action alone on its lines). */
interface CoveredAction {
  readonly start: number;
  readonly end: number;
  readonly action: string;
  readonly token: string | null;
}

export interface MaskedTemplate {
  /** The template with its actions covered, of the same length. */
  readonly text: string;
  readonly actions: readonly CoveredAction[];
  /** The character tokens are made of (one the template does not hold). */
  readonly mark: string;
}

const MARKS = ["§", "¤", "¦", "¨"];
const ACTION = /\{\{[\s\S]*?\}\}/g;

export function maskTemplate(template: string): MaskedTemplate {
  const mark = MARKS.find((candidate) => !template.includes(candidate)) ?? "\u2063";
  const chars = template.split("");
  const actions: CoveredAction[] = [];
  for (const match of template.matchAll(ACTION)) {
    const start = match.index;
    const end = start + match[0].length;
    const lineStart = template.lastIndexOf("\n", start - 1) + 1;
    const lineEndAt = template.indexOf("\n", end);
    const rest = template.slice(end, lineEndAt === -1 ? template.length : lineEndAt);
    const alone =
      /^\s*$/.test(template.slice(lineStart, start)) && /^\s*$/.test(rest.replace(ACTION, ""));
    // An action is at least `{{}}` long: room for the mark, a number and the mark again.
    const token = alone
      ? null
      : `${mark}${actions.length.toString(36)}${mark}`.padEnd(end - start, mark);
    if (token !== null && token.length > end - start)
      throw new Error("template action too short to cover");
    for (let at = start; at < end; at += 1) {
      if (chars[at] === "\n") continue;
      chars[at] = token === null ? (at === start ? "#" : " ") : token[at - start]!;
    }
    actions.push({ start, end, action: match[0], token });
  }
  return { text: chars.join(""), actions, mark };
}

/**
 * The edits made to the template: a token an edit writes is written back as its action. Null (with why) when
 * an edit would cut into an action, touch an action alone on its lines, or drop an inline action that no
 * edit of the same object writes again.
 */
export function templateEdits(
  masked: MaskedTemplate,
  edits: readonly TextEdit[],
): { edits: TextEdit[] } | { refused: number } {
  const dropped = new Set<CoveredAction>();
  for (const edit of edits) {
    for (const action of masked.actions) {
      const inside =
        edit.start === edit.end
          ? edit.start > action.start && edit.start < action.end
          : edit.start < action.end && edit.end > action.start;
      if (!inside) continue;
      const whole = edit.start <= action.start && edit.end >= action.end;
      if (action.token === null || !whole) return { refused: edit.start };
      dropped.add(action);
    }
  }
  const written = new Set<CoveredAction>();
  const unmasked = edits.map((edit) => {
    let text = edit.text;
    for (const action of masked.actions) {
      if (action.token === null || !text.includes(action.token)) continue;
      written.add(action);
      text = text.split(action.token).join(action.action);
    }
    return { ...edit, text };
  });
  for (const action of dropped) if (!written.has(action)) return { refused: action.start };
  if (unmasked.some((edit) => edit.text.includes(masked.mark)))
    return { refused: unmasked.find((edit) => edit.text.includes(masked.mark))!.start };
  return { edits: unmasked };
}
