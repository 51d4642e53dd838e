/**
 * Reads a Helm chart's templates without rendering them: each template file is split into its documents at
 * `---` lines, and in each the object's top-level `apiVersion:` and `kind:` lines are found (and a literal
 * `metadata.name`), whatever else is templated. The `{{ if }}`, `{{ range }}` and `{{ with }}` blocks around
 * each line are kept, so a document inside a condition is said to be conditional and each literal apiVersion
 * of an if/else is judged as the alternative it is. A value that is itself templated is kept as text: it
 * cannot be read without rendering. `{{ define }}` bodies and helper files (`_*.tpl`) are not objects.
 * Pure: the files come as text.
 */

/** One `{{ if }}`/`{{ else }}`/`{{ range }}`/`{{ with }}` block a line sits in. */
export interface TemplateBlock {
  readonly action: "if" | "else" | "range" | "with";
  /** The test of this branch (`semverCompare ">=1.19-0" .Capabilities.KubeVersion.GitVersion`); "" for a plain else. */
  readonly test: string;
  /** The tests of the earlier branches of the same if, which are false when this branch is taken. */
  readonly earlier: readonly string[];
}

/** A top-level `apiVersion:` or `kind:` line: its literal value, or null with the templated text. */
export interface TemplateValue {
  readonly value: string | null;
  readonly text: string;
  /** 1-based line in the template file. */
  readonly line: number;
  readonly blocks: readonly TemplateBlock[];
}

export interface TemplateDocument {
  /** The file, relative to the top chart (templates/x.yaml, charts/sub/templates/x.yaml). */
  readonly file: string;
  /** 0-based index of the document in the file. */
  readonly index: number;
  /** 1-based line of the document's first line. */
  readonly line: number;
  /** Every top-level apiVersion line: more than one when an if/else chooses between them. */
  readonly apiVersions: readonly TemplateValue[];
  readonly kinds: readonly TemplateValue[];
  /** A literal metadata.name, else null. */
  readonly name: string | null;
  /** Whether the document has lines that are not blank, comments or control actions (it may make an object). */
  readonly hasContent: boolean;
  /** The blocks around the document's first content line. */
  readonly blocks: readonly TemplateBlock[];
}

/** Whether a file of a chart's templates folder is rendered as manifests (helm renders all but these). */
export function isManifestTemplate(file: string): boolean {
  const base = file.split("/").at(-1) ?? file;
  return !base.startsWith("_") && base !== "NOTES.txt";
}

const ACTION = /\{\{-?\s*(\/\*[\s\S]*?\*\/)?\s*([^}]*?)\s*-?\}\}/g;
const CONTROL = /^(if|else if|else|range|with|define|block|end)\b\s*(.*)$/;
const LITERAL = /^[A-Za-z0-9][A-Za-z0-9.\-/]*$/;

/** The value of a `key: value` line without its quotes and trailing comment. */
function valueOf(rest: string): string {
  const trimmed = rest.replace(/\s+#.*$/, "").trim();
  const quoted = /^(["'])(.*)\1$/.exec(trimmed);
  return quoted === null ? trimmed : quoted[2]!;
}

/** Tracks the control blocks of a file line by line. */
class BlockStack {
  private readonly stack: Array<TemplateBlock | { readonly action: "define" }> = [];

  /** Applies the line's control actions, returning whether the line is nothing but actions and blank. */
  take(line: string): void {
    for (const match of line.matchAll(ACTION)) {
      if (match[1] !== undefined && match[2] === "") continue;
      const control = CONTROL.exec(match[2] ?? "");
      if (control === null) continue;
      const [, action, test] = control as unknown as [string, string, string];
      if (action === "end") this.stack.pop();
      else if (action === "define" || action === "block") this.stack.push({ action: "define" });
      else if (action === "else if" || action === "else") this.otherwise(test.trim());
      else
        this.stack.push({
          action: action as "if" | "range" | "with",
          test: test.trim(),
          earlier: [],
        });
    }
  }

  private otherwise(test: string): void {
    const top = this.stack.pop();
    if (top === undefined || top.action === "define") {
      if (top !== undefined) this.stack.push(top);
      return;
    }
    // `else if X` opens a branch whose earlier tests are false; `else` has none of its own.
    const { earlier, test: previous } = top;
    this.stack.push({ action: test === "" ? "else" : "if", test, earlier: [...earlier, previous] });
  }

  get inDefine(): boolean {
    return this.stack.some((block) => block.action === "define");
  }

  get blocks(): TemplateBlock[] {
    return this.stack.filter((block): block is TemplateBlock => block.action !== "define");
  }
}

/** Whether a line holds only blanks, comments and control actions (no text of an object). */
function isControlOnly(line: string): boolean {
  const rest = line.replace(ACTION, (action: string, comment?: string, body?: string) =>
    (comment !== undefined && body === "") || CONTROL.test(body ?? "") ? "" : action,
  );
  return rest.trim() === "" || rest.trim().startsWith("#");
}

interface DocumentDraft {
  index: number;
  line: number;
  apiVersions: TemplateValue[];
  kinds: TemplateValue[];
  name: string | null;
  hasContent: boolean;
  blocks: TemplateBlock[];
  inMetadata: boolean;
}

function draft(index: number, line: number): DocumentDraft {
  return {
    index,
    line,
    apiVersions: [],
    kinds: [],
    name: null,
    hasContent: false,
    blocks: [],
    inMetadata: false,
  };
}

/** One line of a document: its top-level apiVersion, kind and metadata.name. */
function readLine(document: DocumentDraft, text: string, line: number, stack: BlockStack): void {
  if (isControlOnly(text)) return;
  if (!document.hasContent) {
    document.hasContent = true;
    document.blocks = stack.blocks;
  }
  const top = /^(apiVersion|kind|metadata):(.*)$/.exec(text);
  if (top !== null) {
    const [, key, rest] = top as unknown as [string, string, string];
    document.inMetadata = key === "metadata";
    if (key === "metadata") return;
    const raw = valueOf(rest);
    const entry: TemplateValue = {
      value: LITERAL.test(raw) ? raw : null,
      text: raw,
      line,
      blocks: stack.blocks,
    };
    (key === "apiVersion" ? document.apiVersions : document.kinds).push(entry);
    return;
  }
  if (/^\S/.test(text)) {
    document.inMetadata = false;
    return;
  }
  const name = document.inMetadata ? /^ {1,4}name:(.*)$/.exec(text) : null;
  if (name !== null && document.name === null) {
    const raw = valueOf(name[1]!);
    if (LITERAL.test(raw)) document.name = raw;
  }
}

/** The documents of one template file, in order. */
export function templateDocuments(file: string, text: string): TemplateDocument[] {
  const documents: TemplateDocument[] = [];
  const stack = new BlockStack();
  let current = draft(0, 1);
  const close = () => {
    const { inMetadata: _inMetadata, ...document } = current;
    documents.push({ file, ...document });
  };
  const lines = text.split(/\r?\n/);
  lines.forEach((content, at) => {
    const line = at + 1;
    const defined = stack.inDefine;
    stack.take(content);
    if (defined || stack.inDefine) return;
    if (/^---(\s|$)/.test(content)) {
      close();
      current = draft(current.index + 1, line + 1);
      return;
    }
    readLine(current, content, line, stack);
  });
  close();
  return documents;
}

/** The text of the blocks a document or line sits in, as people read them: `if .Values.ingress.enabled`. */
export function describeBlocks(blocks: readonly TemplateBlock[]): string | null {
  if (blocks.length === 0) return null;
  return blocks
    .map((block) =>
      block.action === "else"
        ? `else of if ${block.earlier.join(" / else if ")}`
        : block.earlier.length > 0
          ? `else if ${block.test}`
          : `${block.action} ${block.test}`,
    )
    .join(", within ");
}
