/**
 * Scans Kubernetes manifests for API versions that a target minor no longer
 * serves, or soon will not, and says what to migrate to. Input is what users
 * actually have at hand: `kubectl get -o yaml|json` output (often one
 * `kind: List`), `helm template` output with its `# Source:` comments, or the
 * files of a GitOps repository concatenated. Pure: no I/O, only the snapshot.
 *
 * The YAML is read by manifest-reader.ts, which refuses hostile input up
 * front and gives each document's objects as plain values with their lines.
 * This file is the scan's outline, step by step; what is said of an object is
 * worked out by api-removal-findings.ts (removed and deprecated APIs) and
 * change-findings.ts (fields, configuration files, custom resources), in the
 * shapes of scan-findings.ts.
 */
import { InputError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { compareMinors } from "../core/versions.js";
import { finding, verdictOf, type Finding } from "./findings.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import { parseAsOf } from "./days.js";
import {
  MANIFESTS_FIELD,
  manifestDocuments,
  refuseOversized,
  refuseUnprintableIn,
  type PlainMap,
} from "./manifest-reader.js";
import { isAbsent, olderThanKnowledge, readMinor } from "./version-reader.js";
import { fieldRuleHits } from "./field-rules.js";
import {
  crdOfObject,
  crdsOfClusterJson,
  parseScanAddons,
  type CrdFacts,
} from "./custom-resources.js";
import {
  locate,
  type ChangeFinding,
  type ManifestFinding,
  type ManifestObject,
  type ManifestScanReport,
} from "./scan-findings.js";
import { findingFor, knownApiVersions, removalIndex, removalKey } from "./api-removal-findings.js";
import {
  configurationFinding,
  configurationIndex,
  fieldFinding,
  judgeCustomResources,
  judgeStoredVersions,
  type NotJudged,
} from "./change-findings.js";

export { MAX_MANIFEST_BYTES } from "./manifest-reader.js";
export type {
  ChangeFinding,
  ManifestFinding,
  ManifestScanReport,
  RemovalPhase,
} from "./scan-findings.js";

export interface ScanOptions {
  readonly fromVersion?: string | null | undefined;
  /** The add-ons the cluster runs, [{name, version}]: objects of their CRD APIs are judged against these versions. */
  readonly addons?: unknown;
  /** The JSON of `kubectl get crd -o json`: objects are judged by the cluster's CRDs, and CRDs in the input against what the cluster has stored. */
  readonly crds?: unknown;
  /** The day the knowledge's edge is judged on (a target out by then whose removals are not loaded is stale); today when absent. */
  readonly asOf?: string | null | undefined;
}

export function scanManifests(
  snapshot: KbSnapshot,
  manifests: string,
  targetVersion: string,
  options: ScanOptions = {},
): ManifestScanReport {
  const steps = scanSteps(snapshot, manifests, targetVersion, options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * The scan, one document per step: a face that must keep answering other requests while it scans megabytes
 * runs the steps a slice at a time (src/core/slices.ts); scanManifests runs them all at once.
 */
export function* scanSteps(
  snapshot: KbSnapshot,
  manifests: string,
  targetVersion: string,
  options: ScanOptions = {},
): Generator<void, ManifestScanReport, void> {
  const { target, from, text } = scanInputs(snapshot, manifests, targetVersion, options);
  const asOf = parseAsOf(options.asOf);
  yield* refuseHostileInput(text);
  const addonVersions = parseScanAddons(snapshot, options.addons);
  const clusterCrds =
    options.crds === undefined || options.crds === null ? [] : crdsOfClusterJson(options.crds);
  const seen = yield* gatherDocuments(snapshot, text, target, from);
  const notJudged = judgeCustomResources(snapshot, seen, addonVersions, clusterCrds);
  judgeStoredVersions(snapshot, seen, clusterCrds);
  return scanReport(snapshot, target, seen, notJudged, asOf);
}

/** The target and the version upgraded from, in order, and the manifests, which must be text. */
function scanInputs(
  snapshot: KbSnapshot,
  manifests: string,
  targetVersion: string,
  options: ScanOptions,
): { target: string; from: string | null; text: string } {
  const target = readMinor(snapshot, targetVersion, "targetVersion");
  const from = isAbsent(options.fromVersion)
    ? null
    : readMinor(snapshot, options.fromVersion, "fromVersion");
  if (from !== null && compareMinors(from, target) > 0) {
    throw new InputError(
      `fromVersion ${from} is newer than targetVersion ${target}; give the version you upgrade from and the one you upgrade to`,
      "fromVersion",
    );
  }
  // Callers come from HTTP and chat, where the type is only a hope.
  const text: unknown = manifests;
  if (typeof text !== "string") {
    throw new InputError(
      "manifests must be a string of YAML or JSON manifests (e.g. `kubectl get -o yaml` or `helm template` output)",
      MANIFESTS_FIELD,
    );
  }
  return { target, from, text };
}

/** Input too large or not printable is refused before any document is read. */
function* refuseHostileInput(text: string): Generator<void, void, void> {
  refuseOversized(text);
  // In stretches, a step each: ten megabytes take tens of milliseconds.
  for (let start = 0; start < text.length; ) {
    start = refuseUnprintableIn(text, start);
    yield;
  }
}

/** What a pass over the documents gathers, before custom resources are judged. */
interface Gathered {
  custom: ManifestObject[];
  inputCrds: Array<{ crd: CrdFacts; object: ManifestObject }>;
  findings: ManifestFinding[];
  changeFindings: ChangeFinding[];
  unreadable: Finding[];
  documentsScanned: number;
  objectsScanned: number;
}

function gathering(): Gathered {
  return {
    custom: [],
    inputCrds: [],
    findings: [],
    changeFindings: [],
    unreadable: [],
    documentsScanned: 0,
    objectsScanned: 0,
  };
}

/** What an object is judged by: the target, the version upgraded from, and the knowledge base's indexes. */
interface ObjectJudge {
  readonly snapshot: KbSnapshot;
  readonly target: string;
  readonly from: string | null;
  readonly removals: ReturnType<typeof removalIndex>;
  readonly configurationApis: ReturnType<typeof configurationIndex>;
  readonly known: ReadonlySet<string>;
}

/** The documents in turn, a step each: each counted (or reported unreadable) and its objects judged. */
function* gatherDocuments(
  snapshot: KbSnapshot,
  text: string,
  target: string,
  from: string | null,
): Generator<void, Gathered, void> {
  const judge: ObjectJudge = {
    snapshot,
    target,
    from,
    removals: removalIndex(snapshot),
    configurationApis: configurationIndex(snapshot),
    // Objects of group/versions the knowledge base knows nothing of (a custom resource's): said, never passed in silence.
    known: knownApiVersions(snapshot),
  };
  // What the documents show; gathered afresh when the reader restarts (its fast path handing over to the careful one).
  let seen = gathering();
  for (const document of manifestDocuments(text)) {
    yield;
    if (document.state === "restart") {
      seen = gathering();
      continue;
    }
    // A malformed document is reported and skipped, not the whole scan: one bad template must not hide 499 good ones.
    if (document.state === "unreadable") {
      seen.unreadable.push(unreadableDocument(document.message));
      continue;
    }
    if (document.state === "empty") continue;
    seen.documentsScanned += 1;
    const { index: documentIndex, source } = document;
    for (const { object, line } of document.objects)
      gatherObject(judge, seen, object, line, documentIndex, source);
  }
  return seen;
}

/** One object: its API's removal or deprecation, its configuration-file version, its fields, and whether it is a CRD or a custom resource. */
function gatherObject(
  judge: ObjectJudge,
  seen: Gathered,
  object: PlainMap,
  line: number,
  documentIndex: number,
  source: string | null,
): void {
  const { snapshot, target, from, removals, configurationApis, known } = judge;
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : null;
  const kind = typeof object.kind === "string" ? object.kind : null;
  if (apiVersion === null || kind === null) return;
  seen.objectsScanned += 1;
  // Where the object is, worked out once and only for an object something is said of.
  let located: ManifestObject | undefined;
  const here = (): ManifestObject =>
    (located ??= locate(object, apiVersion, kind, documentIndex, line, source));
  const record = removals.get(removalKey(apiVersion, kind));
  const configuration = configurationApis.get(removalKey(apiVersion, kind));
  if (configuration !== undefined) {
    const judged = configurationFinding(configuration, target, here());
    if (judged !== null) seen.changeFindings.push(judged);
  }
  for (const hit of fieldRuleHits(snapshot, kind, object))
    seen.changeFindings.push(fieldFinding(snapshot, hit, target, here()));
  if (kind === "CustomResourceDefinition" && apiVersion.startsWith("apiextensions.k8s.io/")) {
    const crd = crdOfObject(object);
    if (crd !== null) seen.inputCrds.push({ crd, object: here() });
  }
  if (record === undefined) {
    if (!known.has(apiVersion) && configuration === undefined) seen.custom.push(here());
    return;
  }
  seen.findings.push(findingFor(record, target, from, here(), removals));
}

/** The findings in document order, and the notes about the scan as a whole. */
function scanReport(
  snapshot: KbSnapshot,
  target: string,
  seen: Gathered,
  notJudged: NotJudged,
  asOf: string,
): ManifestScanReport {
  const { findings, changeFindings, unreadable, documentsScanned, objectsScanned } = seen;
  findings.sort((a, b) => a.documentIndex - b.documentIndex || a.line - b.line);
  changeFindings.sort((a, b) => a.documentIndex - b.documentIndex || a.line - b.line);
  const edge =
    knowledgeEdge(snapshot, "apiRemovals", target, `the target ${target}`, asOf) ??
    olderThanKnowledge(snapshot, target, `the target ${target}`);
  const unjudged = [...notJudged].map(([apiVersion, seen]) =>
    finding({
      code: "API_NOT_JUDGED",
      severity: "INFO",
      message: `${seen.objects} object${seen.objects === 1 ? "" : "s"} of ${apiVersion} (${[...seen.kinds].sort().join(", ")}) ${seen.objects === 1 ? "was" : "were"} not judged: the knowledge base knows nothing of this API group/version (a custom resource's? check the CRD and the project that serves it)`,
    }),
  );
  const unjudgedObjects = [...notJudged.values()].reduce((sum, seen) => sum + seen.objects, 0);
  const nothing =
    objectsScanned - unjudgedObjects > 0
      ? []
      : [nothingJudged(documentsScanned, unreadable.length, objectsScanned)];
  const notes = [...nothing, ...unreadable, ...unjudged, ...(edge === undefined ? [] : [edge])];
  return {
    targetVersion: target,
    kbRevision: snapshot.revision,
    documentsScanned,
    objectsScanned,
    complete: unreadable.length === 0,
    findings,
    changeFindings,
    notes,
    status: verdictOf([...findings, ...changeFindings, ...notes]),
  };
}

/** A scan that judged no object says so: an empty input or one no reader understood is never a green answer. */
function nothingJudged(documents: number, unreadable: number, objects: number): Finding {
  const what =
    documents === 0 && unreadable === 0
      ? "the input holds no document"
      : objects > 0
        ? `every one of the ${objects} object${objects === 1 ? "" : "s"} is of an API group/version the knowledge base knows nothing of`
        : unreadable > 0 && documents === 0
          ? `none of the ${unreadable} document${unreadable === 1 ? "" : "s"} could be read (see DOCUMENT_UNREADABLE)`
          : `no document holds a Kubernetes object (an apiVersion and a kind)${unreadable > 0 ? `, and ${unreadable} could not be read` : ""}`;
  return finding({
    code: "NOTHING_JUDGED",
    severity: "WARNING",
    message: `nothing was judged: ${what}. Give \`kubectl get -o yaml\`, \`helm template\` or GitOps YAML/JSON manifests`,
  });
}

function unreadableDocument(message: string): Finding {
  return finding({
    code: "DOCUMENT_UNREADABLE",
    severity: "ERROR",
    message: `${message.replace(/^manifests: /, "")}; it was skipped (kubectl apply would refuse it too), the other documents were scanned`,
  });
}
