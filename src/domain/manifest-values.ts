/**
 * What the manifest reader gives, whichever path read it: each YAML document of the input, unreadable, empty
 * or with its objects (the document's mapping, or the items of a List) as plain values with their first lines.
 */

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
