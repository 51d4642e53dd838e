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
 * careful path (see manifestDocuments).
 *
 * The two paths are careful-manifest-reader.ts and quick-manifest-reader.ts; what is refused before either
 * reads is in manifest-limits.ts, and the documents and objects both give, as plain values, in
 * manifest-values.ts. This file chooses the path and is what the scan imports.
 */
import { carefulDocuments } from "./careful-manifest-reader.js";
import { QuickPathDeclined, quickDocuments } from "./quick-manifest-reader.js";
import type { ManifestDocument, ReadRestart } from "./manifest-values.js";

export {
  MANIFESTS_FIELD,
  MAX_MANIFEST_BYTES,
  PRINTABLE_CHECK_CHARS,
  refuseOversized,
  refuseUnprintableIn,
} from "./manifest-limits.js";
export {
  isPlainMap,
  type ManifestDocument,
  type ManifestObjectAt,
  type PlainMap,
  type ReadRestart,
} from "./manifest-values.js";
export { carefulDocuments } from "./careful-manifest-reader.js";
export { QuickPathDeclined, quickDocuments } from "./quick-manifest-reader.js";

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
