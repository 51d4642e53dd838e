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
  Composer,
  LineCounter,
  Parser,
  isMap,
  isSeq,
  isScalar,
  visit,
  type Document,
  type YAMLMap,
} from "yaml";
import type { ApiConversionRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { compareMinors } from "../core/versions.js";
import { findingFor, removalIndex, removalKey } from "./api-removal-findings.js";
import { describeObject, locate, placeOf, type ManifestFinding } from "./scan-findings.js";
import { scanSteps, type ManifestScanReport, type ScanOptions } from "./scan.js";
import type { Finding } from "./findings.js";
import { isPlainMap, type PlainMap } from "./manifest-values.js";
import { isAbsent, readMinor } from "./version-reader.js";
import {
  convertObject,
  followedBy,
  type ConvertedObject,
  type FieldChange,
  type FieldPath,
} from "./conversion-steps.js";
import { rewriteAll, type PlannedFix } from "./fix-writing.js";
import { unifiedDiff } from "./unified-diff.js";
import { applyEdits, type TextEdit } from "./yaml-rewrite.js";
import { maskTemplate, templateEdits, type MaskedTemplate } from "./template-mask.js";
import type { ManifestFixReport } from "./fix-report.js";

export type {
  ManifestFixReport,
  ObjectFix,
  ObjectFixStatus,
  TextReplacement,
} from "./fix-report.js";

export interface FixOptions extends Pick<ScanOptions, "fromVersion" | "asOf"> {
  /** Apply conversions that lose information (a field with no counterpart, a meaning that changes); they are reported either way. */
  readonly allowLossy?: boolean | null | undefined;
  /**
   * The input is a Helm template (`{{ ... }}` actions): objects are read with the actions covered, and a
   * conversion that would change a templated field is refused for that object, with where.
   */
  readonly template?: boolean | null | undefined;
  /** The file name the diff names; "manifests" when absent. */
  readonly fileName?: string | null | undefined;
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
  const steps = fixSteps(snapshot, manifests, targetVersion, options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * The fix, a document (or an object) per step, as the scan's steps: a face that must keep answering other
 * requests while it fixes megabytes runs them a slice at a time (src/core/slices.ts).
 */
export function* fixSteps(
  snapshot: KbSnapshot,
  manifests: string,
  targetVersion: string,
  options: FixOptions = {},
): Generator<void, ManifestFixReport, void> {
  // A template is read with its actions covered (same offsets); its edits are then made to the template.
  const masked = options.template === true ? maskTemplate(manifests) : null;
  const text = masked?.text ?? manifests;
  // The scan reads the input first: it refuses what is hostile or malformed with its own messages.
  const before = yield* scanSteps(snapshot, text, targetVersion, options);
  const target = before.targetVersion;
  const from = isAbsent(options.fromVersion)
    ? null
    : readMinor(snapshot, options.fromVersion, "fromVersion");
  const opaque = (value: unknown): boolean =>
    masked !== null && typeof value === "string" && value.includes(masked.mark);
  // Nothing the target removes: no document needs reading again.
  const planned = before.findings.some((finding) => finding.code === "API_REMOVED")
    ? yield* planFixes(snapshot, text, target, from, {
        allowLossy: options.allowLossy === true,
        opaque,
      })
    : [];
  const written = yield* rewriteAll(text, planned, {
    original: manifests,
    check: (edits) =>
      masked === null ? { edits: [...edits] } : editsOfTemplate(masked, manifests, edits),
  });
  const manifestsAfter = masked === null ? written.text : applyEdits(manifests, written.finalEdits);
  // A template's scan reads it covered, as the fix did; nothing written, the scan before is the scan after.
  const after =
    written.finalEdits.length === 0
      ? before
      : yield* scanSteps(snapshot, written.text, target, options);
  const fileName = options.fileName ?? "manifests";
  const diff = yield* unifiedDiff(fileName, manifests, written.finalEdits);
  return {
    targetVersion: target,
    kbRevision: snapshot.revision,
    changed: manifestsAfter !== manifests,
    manifests: manifestsAfter,
    diff: manifestsAfter === manifests ? "" : diff,
    objects: planned.map((plan) => plan.fix),
    after,
    notes: unread(before, masked !== null),
  };
}

function* planFixes(
  snapshot: KbSnapshot,
  text: string,
  target: string,
  from: string | null,
  how: HowToConvert,
): Generator<void, PlannedFix[], void> {
  const removals = removalIndex(snapshot);
  const conversions = conversionIndex(snapshot);
  const lines = new LineCounter();
  const planned: PlannedFix[] = [];
  // Documents one at a time, a step each, as the scan reads them.
  const parser = new Parser(lines.addNewLine);
  const composer = new Composer({ merge: true });
  let index = -1;
  for (const document of composer.compose(parser.parse(text))) {
    index += 1;
    yield;
    if (document.errors.length > 0) continue;
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
      const decided = decide(object, finding, conversions, from, how);
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
  }
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

/** Whether lossy conversions may be applied, and which values are not known (a template's actions). */
interface HowToConvert {
  readonly allowLossy: boolean;
  readonly opaque: (value: unknown) => boolean;
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
  how: HowToConvert,
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
    const next = convertObject(converted?.value ?? object, conversion, how.opaque);
    converted = converted === null ? next : followedBy(converted, next);
    sourceUrls.push(conversion.sourceUrl);
  }
  if (converted === null) return refuse(`${finding.apiVersion} is already ${goal}`);
  if (converted.problems.length > 0)
    return refuse(`the conversion cannot be applied: ${converted.problems.join("; ")}`);
  const lossy = lossesOf(converted);
  if (lossy.length > 0 && !how.allowLossy)
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

/** A template's edits with its actions written back, or why they cannot be made (where). */
function editsOfTemplate(
  masked: MaskedTemplate,
  template: string,
  edits: readonly TextEdit[],
): { edits: TextEdit[] } | { refused: string } {
  const made = templateEdits(masked, edits);
  if ("edits" in made) return made;
  const line = template.slice(0, made.refused).split("\n").length;
  return {
    refused: `a field the conversion changes is templated (line ${line} of the template): the template must be changed by hand there`,
  };
}

/** The documents the scan could not read are not fixed either; a template's say why in a template's words. */
function unread(before: ManifestScanReport, template: boolean): Finding[] {
  return before.notes
    .filter((note) => note.code === "DOCUMENT_UNREADABLE")
    .map((note) =>
      template
        ? {
            ...note,
            message: `${note.message.replace(/; it was skipped.*$/, "")}: read with its template actions covered, it is not YAML (an apiVersion or field chosen by if/else, or an action that writes whole lines); nothing in it was fixed: change it by hand, or render the chart and fix the output`,
          }
        : {
            ...note,
            message: `${note.message.replace(/; it was skipped.*$/, "")}: nothing in it was fixed`,
          },
    );
}
