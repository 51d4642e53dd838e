/**
 * What the manifest reader refuses before it reads a document, and the limits both of its paths share: the
 * size of the input, characters YAML does not allow (a binary file), and the number of documents.
 */
import { InputError } from "../core/errors.js";

export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

/**
 * Most documents one input may hold. Each costs some microseconds even when
 * empty, so ten megabytes of `---` lines would hold the event loop for half
 * a minute; `helm template` of a whole platform emits a few thousand.
 */
export const MAX_DOCUMENTS = 100_000;

export const MANIFESTS_FIELD = "manifests";

/**
 * YAML allows only printable characters in a stream (YAML 1.2, 5.1): tab,
 * line breaks and printable Unicode, no other control characters, no lone
 * surrogates. The yaml library lets them through as parts of plain scalars,
 * so a binary file (a PNG, UTF-16 sent as UTF-8) would "scan" clean.
 */
const UNPRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/** How much of the text refuseUnprintableIn checks at a time: a few milliseconds' work. */
export const PRINTABLE_CHECK_CHARS = 1024 * 1024;

/**
 * Checks one stretch of the text from `start` (about PRINTABLE_CHECK_CHARS, never splitting a surrogate
 * pair) and returns where the next begins, so a scan can check ten megabytes between other requests.
 */
export function refuseUnprintableIn(text: string, start: number): number {
  let end = Math.min(text.length, start + PRINTABLE_CHECK_CHARS);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
  const match = UNPRINTABLE.exec(
    start === 0 && end === text.length ? text : text.slice(start, end),
  );
  if (match === null) return end;
  const index = start + match.index;
  const codePoint = match[0].codePointAt(0) ?? 0;
  const line = text.slice(0, index).split("\n").length;
  throw new InputError(
    `${MANIFESTS_FIELD}: line ${line} holds the character U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}, which YAML does not allow; send the manifests as text (UTF-8, or with a charset), not a binary file`,
    MANIFESTS_FIELD,
  );
}

export function refuseOversized(text: string): void {
  // A UTF-16 length above the limit is already too many bytes; only shorter strings need counting.
  const bytes = text.length > MAX_MANIFEST_BYTES ? text.length : Buffer.byteLength(text, "utf8");
  if (bytes > MAX_MANIFEST_BYTES) {
    throw new InputError(
      `manifests are ${formatMiB(bytes)} MiB; the limit is ${formatMiB(MAX_MANIFEST_BYTES)} MiB (${MAX_MANIFEST_BYTES} bytes). Scan the manifests in several parts.`,
      MANIFESTS_FIELD,
    );
  }
}

function formatMiB(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(2).replace(/\.?0+$/, "");
}
