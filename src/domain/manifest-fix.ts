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
import { scanManifests, type ScanOptions } from "./scan.js";
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
