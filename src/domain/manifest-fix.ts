/**
 * `fix`: rewrites every object whose apiVersion the target no longer serves to the replacement the scan
 * advises, converting the fields that changed by the conversions in kb/api-conversions.yaml, and leaves the
 * rest of the text as it was (yaml-rewrite.ts). Whether an object needs fixing is the scan's own judgement
 * (findingFor); the result is scanned again, so the answer says what is still wrong. An object is left as it
 * is, with the reason, when the knowledge base has no conversion for a step of the way, when the replacement
 * is not served at the version upgraded from, when the conversion would lose information and that was not
 * allowed, or when its text cannot be edited safely (anchors and aliases). Pure: the snapshot only.
 */
import {
  LineCounter,
  parseAllDocuments,
  isMap,
  isSeq,
  isScalar,
  visit,
  type Document,
  type YAMLMap,
} from "yaml";
import { createPatch } from "diff";
import type { ApiConversionRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { compareMinors } from "../core/versions.js";
import { findingFor, removalIndex, removalKey } from "./api-removal-findings.js";
import { describeObject, locate, placeOf, type ManifestFinding } from "./scan-findings.js";
import { scanManifests, type ManifestScanReport, type ScanOptions } from "./scan.js";
import { isPlainMap, type PlainMap } from "./manifest-values.js";
import { isAbsent, readMinor } from "./version-reader.js";
import {
  convertObject,
  followedBy,
  type ConvertedObject,
  type FieldChange,
  type FieldPath,
} from "./conversion-steps.js";
import {
  applyEdits,
  objectEdits,
  RewriteRefused,
  sameJson,
  type BlockStyle,
  type TextEdit,
} from "./yaml-rewrite.js";

export interface FixOptions extends Pick<ScanOptions, "fromVersion" | "asOf"> {
  /** Apply conversions that lose information (a field with no counterpart, a meaning that changes); they are reported either way. */
  readonly allowLossy?: boolean | null | undefined;
  /** The file name the diff names; "manifests" when absent. */
  readonly fileName?: string | null | undefined;
}

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
}

const conversionIndexes = new WeakMap<
  readonly ApiConversionRecord[],
  ReadonlyMap<string, ApiConversionRecord>
>();

function conversionIndex(snapshot: KbSnapshot): ReadonlyMap<string, ApiConversionRecord> {
  return perList(
    conversionIndexes,
    snapshot.apiConversions,
    (list) =>
      new Map(list.map((record) => [removalKey(record.fromApiVersion, record.kind), record])),
  );
}

/** The manifests with every object of an API removed at the target rewritten where it can be. */
export function fixManifests(
  snapshot: KbSnapshot,
  manifests: string,
  targetVersion: string,
  options: FixOptions = {},
): ManifestFixReport {
  // The scan reads the input first: it refuses what is hostile or malformed with its own messages.
  const before = scanManifests(snapshot, manifests, targetVersion, options);
  const target = before.targetVersion;
  const from = isAbsent(options.fromVersion)
    ? null
    : readMinor(snapshot, options.fromVersion, "fromVersion");
  const planned = planFixes(snapshot, manifests, target, from, options.allowLossy === true);
  const manifestsAfter = rewriteAll(manifests, planned);
  const after = scanManifests(snapshot, manifestsAfter, target, options);
  const fileName = options.fileName ?? "manifests";
  return {
    targetVersion: target,
    kbRevision: snapshot.revision,
    changed: manifestsAfter !== manifests,
    manifests: manifestsAfter,
    diff:
      manifestsAfter === manifests
        ? ""
        : createPatch(fileName, manifests, manifestsAfter, "", "", { context: 3 }),
    objects: planned.map((plan) => plan.fix),
    after,
  };
}

/** One object of a removed apiVersion: where it is, and what to make of it. */
interface PlannedFix {
  fix: ObjectFix;
  readonly documentIndex: number;
  readonly document: Document.Parsed;
  readonly objectPath: FieldPath;
  readonly converted: ConvertedObject | null;
}

function planFixes(
  snapshot: KbSnapshot,
  text: string,
  target: string,
  from: string | null,
  allowLossy: boolean,
): PlannedFix[] {
  const removals = removalIndex(snapshot);
  const conversions = conversionIndex(snapshot);
  const lines = new LineCounter();
  const planned: PlannedFix[] = [];
  parseAllDocuments(text, { lineCounter: lines, merge: true }).forEach((document, index) => {
    if (!("errors" in document) || document.errors.length > 0) return;
    for (const { path, node } of objectsOf(document)) {
      const object = node.toJS(document) as unknown;
      if (!isPlainMap(object)) continue;
      const { apiVersion, kind } = object;
      if (typeof apiVersion !== "string" || typeof kind !== "string") continue;
      const record = removals.get(removalKey(apiVersion, kind));
      if (record === undefined) continue;
      const place = locate(
        object,
        apiVersion,
        kind,
        index,
        lines.linePos(node.range?.[0] ?? 0).line,
        null,
      );
      const finding = findingFor(record, target, from, place, removals);
      if (finding.code !== "API_REMOVED") continue;
      const decided = decide(object, finding, conversions, from, allowLossy);
      const refused = decided.converted === null ? null : editRefusal(node);
      planned.push({
        documentIndex: index,
        document,
        objectPath: path,
        converted: refused === null ? decided.converted : null,
        fix: {
          ...placeOf(place),
          status: decided.converted !== null && refused === null ? "FIXED" : "NOT_FIXED",
          toApiVersion: finding.replacement,
          changes: decided.changes,
          lossy: decided.lossy,
          reason: refused ?? decided.reason,
          finding,
          sourceUrls: decided.sourceUrls,
          notes: [],
          replacements: [],
        },
      });
    }
  });
  return planned;
}

/** A document's objects: its mapping, or the items of a List (nested Lists too), with their paths. */
function objectsOf(document: Document.Parsed): Array<{ path: FieldPath; node: YAMLMap }> {
  const found: Array<{ path: FieldPath; node: YAMLMap }> = [];
  const walk = (node: unknown, path: FieldPath): void => {
    if (!isMap(node)) return;
    const kind = node.get("kind");
    const items = node.get("items", true);
    if (typeof kind === "string" && kind.endsWith("List") && isSeq(items)) {
      items.items.forEach((item, index) => walk(item, [...path, "items", index]));
      return;
    }
    found.push({ path, node });
  };
  walk(document.contents, []);
  return found;
}

/** Anchors, aliases and merge keys tie the object's text to other places: such an object is left to a person. */
function editRefusal(node: YAMLMap): string | null {
  let tied = false;
  visit(node, {
    Alias: () => {
      tied = true;
      return visit.BREAK;
    },
    Node: (_, item) => {
      if (item.anchor !== undefined) {
        tied = true;
        return visit.BREAK;
      }
      return undefined;
    },
    Pair: (_, pair) => {
      if (isScalar(pair.key) && pair.key.value === "<<") {
        tied = true;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return tied
    ? "the object uses YAML anchors, aliases or merge keys, which tie its text to other places; rewrite it by hand"
    : null;
}

interface Decision {
  readonly converted: ConvertedObject | null;
  readonly changes: readonly FieldChange[];
  readonly lossy: readonly string[];
  readonly reason: string | null;
  readonly sourceUrls: readonly string[];
}

/** Follows the conversions from the object's apiVersion to the advised replacement, a step at a time. */
function decide(
  object: PlainMap,
  finding: ManifestFinding,
  conversions: ReadonlyMap<string, ApiConversionRecord>,
  from: string | null,
  allowLossy: boolean,
): Decision {
  const goal = finding.replacement;
  let converted: ConvertedObject | null = null;
  const sourceUrls: string[] = [];
  const refuse = (reason: string): Decision => ({
    converted: null,
    changes: converted?.changes ?? [],
    lossy: lossesOf(converted),
    reason,
    sourceUrls,
  });
  if (goal === null)
    return refuse(
      `${describeObject(locate(object, finding.apiVersion, finding.kind, 0, 0, null))} has no replacement API: it must be removed or replaced by other means (see the finding)`,
    );
  if (
    from !== null &&
    finding.replacementAvailableIn !== null &&
    compareMinors(finding.replacementAvailableIn, from) > 0
  )
    return refuse(
      `${goal} is served from Kubernetes ${finding.replacementAvailableIn}, after ${from}: the rewritten object could not be applied before the upgrade; upgrade to ${finding.replacementAvailableIn} first, and fix then`,
    );
  for (let hops = 0; (converted?.value ?? object).apiVersion !== goal; hops += 1) {
    const apiVersion = String((converted?.value ?? object).apiVersion);
    const conversion = conversions.get(removalKey(apiVersion, finding.kind));
    if (conversion === undefined || hops > 5)
      return refuse(
        `the knowledge base has no conversion of ${apiVersion} ${finding.kind} to ${goal} (kb/api-conversions.yaml); rewrite it by hand, following the finding`,
      );
    const next = convertObject(converted?.value ?? object, conversion);
    converted = converted === null ? next : followedBy(converted, next);
    sourceUrls.push(conversion.sourceUrl);
  }
  if (converted === null) return refuse(`${finding.apiVersion} is already ${goal}`);
  if (converted.problems.length > 0)
    return refuse(`the conversion cannot be applied: ${converted.problems.join("; ")}`);
  const lossy = lossesOf(converted);
  if (lossy.length > 0 && !allowLossy)
    return refuse(
      `the conversion loses information (${lossy.join("; ")}); it is applied only when lossy conversions are allowed`,
    );
  return { converted, changes: converted.changes, lossy, reason: null, sourceUrls };
}

function lossesOf(converted: ConvertedObject | null): string[] {
  return (converted?.changes ?? []).flatMap((change) =>
    change.lossy === null ? [] : [`${change.field}: ${change.lossy}`],
  );
}

/**
 * The input with every fixable object rewritten. The result is read back: an object that does not read as
 * its conversion (a shape the edits do not handle) is left as it was, with the reason, and the rest is
 * rewritten again without it.
 */
function rewriteAll(text: string, planned: PlannedFix[]): string {
  for (;;) {
    const perPlan = new Map<PlannedFix, TextEdit[]>();
    const fixed = planned.filter((plan) => plan.fix.status === "FIXED");
    for (const document of new Set(fixed.map((plan) => plan.document))) {
      const plans = fixed.filter((plan) => plan.document === document);
      if (isMap(document.contents) && document.contents.flow === true) {
        // One edit writes the whole JSON document; it is told with the document's first object.
        perPlan.set(plans[0]!, [jsonDocumentEdit(text, document, plans)]);
        continue;
      }
      const style = blockStyle(text, document);
      for (const plan of plans) {
        try {
          perPlan.set(plan, objectEdits(text, document, plan.objectPath, plan.converted!, style));
        } catch (error) {
          if (!(error instanceof RewriteRefused)) throw error;
          leaveAsIs(
            plan,
            `its text could not be rewritten in place (${error.message}); rewrite it by hand`,
          );
        }
      }
    }
    const rewritten = applyEdits(text, [...perPlan.values()].flat());
    const wrong = misread(rewritten, planned);
    if (wrong.length === 0) {
      tellReplacements(text, perPlan);
      return rewritten;
    }
    for (const plan of wrong)
      leaveAsIs(plan, "its rewritten text did not read back as the conversion; rewrite it by hand");
  }
}

/** Each fixed object's edits as regions of the input (1-based lines and columns, SARIF's), with the new text. */
function tellReplacements(
  text: string,
  perPlan: ReadonlyMap<PlannedFix, readonly TextEdit[]>,
): void {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1))
    lines.addNewLine(at + 1);
  for (const [plan, edits] of perPlan) {
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
function misread(text: string, planned: readonly PlannedFix[]): PlannedFix[] {
  const fixed = planned.filter((plan) => plan.fix.status === "FIXED");
  if (fixed.length === 0) return [];
  const documents = parseAllDocuments(text, { merge: true });
  return fixed.filter((plan) => {
    const document = documents[plan.documentIndex];
    if (document === undefined || !("errors" in document) || document.errors.length > 0)
      return true;
    const node = document.getIn(plan.objectPath, true);
    return !isMap(node) || !sameJson(node.toJS(document), plan.converted!.value);
  });
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
