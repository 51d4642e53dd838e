/**
 * What `fix` answers: per object of a removed API, whether it was rewritten, how, what is lost, and the edits
 * of the input that rewrite it; and the rewritten manifests with their diff and their scan.
 */
import type { FieldChange } from "./conversion-steps.js";
import type { Finding } from "./findings.js";
import type { ManifestScanReport } from "./scan.js";
import type { ManifestFinding, placeOf } from "./scan-findings.js";

export type ObjectFixStatus = "FIXED" | "NOT_FIXED";

/** What `fix` did with one object of a removed apiVersion. */
export interface ObjectFix extends Omit<ReturnType<typeof placeOf>, never> {
  readonly status: ObjectFixStatus;
  /** The apiVersion it was rewritten to (or would be, for NOT_FIXED), the scan's advised replacement; null when none exists. */
  readonly toApiVersion: string | null;
  /** The field changes, in order; for NOT_FIXED, those the conversion would make. */
  readonly changes: readonly FieldChange[];
  /** What the conversion loses; applied only with allowLossy. */
  readonly lossy: readonly string[];
  /** Why the object was left as it is; null when fixed. */
  readonly reason: string | null;
  /** The scan's finding about the object, before the fix. */
  readonly finding: ManifestFinding;
  /** The conversions' sources, one per step of the way. */
  readonly sourceUrls: readonly string[];
  /** How the text was written where that is worth saying (a JSON document written again whole). */
  readonly notes: readonly string[];
  /** The edits of the input that fix the object (none when NOT_FIXED): regions as SARIF gives them, the end exclusive. */
  readonly replacements: readonly TextReplacement[];
}

/** A region of the input (1-based lines and columns; the end is the position after the last character) and its new text. */
export interface TextReplacement {
  readonly startLine: number;
  readonly startColumn: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly deletedText: string;
  readonly insertedText: string;
}

export interface ManifestFixReport {
  readonly targetVersion: string;
  readonly kbRevision: number;
  /** True when the text changed. */
  readonly changed: boolean;
  /** The manifests rewritten (the input itself when nothing changed). */
  readonly manifests: string;
  /** A unified diff of the input to the rewritten manifests; empty when nothing changed. */
  readonly diff: string;
  /** Every object of a removed apiVersion, fixed or not, in input order. */
  readonly objects: readonly ObjectFix[];
  /** The scan of the rewritten manifests at the target: what is still wrong after the fix. */
  readonly after: ManifestScanReport;
  /** Documents the fix could not read (nothing in them was fixed), as DOCUMENT_UNREADABLE findings. */
  readonly notes: readonly Finding[];
}
