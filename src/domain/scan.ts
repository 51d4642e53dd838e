/**
 * Scans Kubernetes manifests for API versions that a target minor no longer
 * serves, or soon will not, and says what to migrate to. Input is what users
 * actually have at hand: `kubectl get -o yaml|json` output (often one
 * `kind: List`), `helm template` output with its `# Source:` comments, or the
 * files of a GitOps repository concatenated. Pure: no I/O, only the snapshot.
 *
 * The YAML is read by manifest-reader.ts, which refuses hostile input up
 * front and gives each document's objects as plain values with their lines.
 */
import { InputError } from "../core/errors.js";
import type { ApiRemovalRecord, ConfigurationApiRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { compareMinors } from "../core/versions.js";
import { finding, verdictOf, type Finding, type Verdict } from "./findings.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import {
  MANIFESTS_FIELD,
  isPlainMap,
  manifestDocuments,
  refuseOversized,
  refuseUnprintableIn,
  type PlainMap,
} from "./manifest-reader.js";
import { isAbsent, olderThanKnowledge, readMinor } from "./version-reader.js";
import { fieldRuleHits, severityAt, type FieldRuleHit } from "./field-rules.js";
import {
  addonApiIndex,
  crdOfObject,
  crdsOfClusterJson,
  droppedStoredVersions,
  judgeAddonApi,
  judgeByCrd,
  parseScanAddons,
  type CrdFacts,
  type CustomResourceVerdict,
} from "./custom-resources.js";

export { MAX_MANIFEST_BYTES } from "./manifest-reader.js";

/**
 * When the finding bites: ALREADY_REMOVED (not served at fromVersion
 * either: the manifest cannot be applied today), REMOVED_IN_UPGRADE (served
 * at fromVersion, gone at the target), REMOVED (gone at the target; no
 * fromVersion given), DEPRECATED or SCHEDULED (still served at the target).
 */
export type RemovalPhase =
  | "ALREADY_REMOVED"
  | "REMOVED_IN_UPGRADE"
  | "REMOVED"
  | "DEPRECATED"
  | "SCHEDULED";

export interface ManifestFinding {
  readonly code: "API_REMOVED" | "API_DEPRECATED" | "API_REMOVAL_SCHEDULED";
  readonly phase: RemovalPhase;
  readonly severity: "ERROR" | "WARNING" | "INFO";
  readonly apiVersion: string;
  readonly kind: string;
  /** metadata.name, else metadata.generateName, else null. */
  readonly name: string | null;
  readonly namespace: string | null;
  /** 0-based index of the YAML document in the input */
  readonly documentIndex: number;
  /** 1-based line of the object (its first line; for items of a List, the item's first line) */
  readonly line: number;
  /** helm's `# Source: chart/templates/x.yaml` comment of the document, or null */
  readonly source: string | null;
  readonly removedIn: string;
  readonly deprecatedIn: string | null;
  readonly replacement: string | null;
  readonly replacementAvailableIn: string | null;
  readonly message: string;
  readonly sourceUrl: string;
}

/**
 * An object that a behaviour change touches through a field or annotation (kb/field-rules.yaml), or a
 * configuration file (KubeletConfiguration, KubeSchedulerConfiguration ...) whose version the target's
 * component no longer reads (kb/configuration-apis.yaml).
 */
export interface ChangeFinding {
  readonly code:
    | "FIELD_CHANGED"
    | "FIELD_CHANGE_SCHEDULED"
    | "CONFIG_API_REMOVED"
    | "CONFIG_API_DEPRECATED"
    | "CONFIG_API_REMOVAL_SCHEDULED"
    | "CONFIG_API_NOT_AVAILABLE"
    | CustomResourceVerdict["code"]
    | "CRD_STORED_VERSION_DROPPED";
  readonly severity: "ERROR" | "WARNING" | "INFO";
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string | null;
  readonly namespace: string | null;
  readonly documentIndex: number;
  readonly line: number;
  readonly source: string | null;
  /** The field or annotation, as found (spec.template.spec.volumes[0].gitRepo); null for a configuration file's version. */
  readonly field: string | null;
  /** The behaviour change (kb/behaviour-changes.yaml id) the finding belongs to, if any. */
  readonly behaviourChange: string | null;
  /** The field rule's id, or the configuration API's key (kind and apiVersion). */
  readonly ruleId: string;
  /** The minor the change bites from (the rule's severity step, the configuration version's removal). */
  readonly changesIn: string | null;
  /** For a configuration file: the apiVersion to move to. */
  readonly replacement: string | null;
  readonly message: string;
  readonly sourceUrl: string;
}

export interface ManifestScanReport {
  /** The target minor, e.g. "1.29". */
  readonly targetVersion: string;
  readonly kbRevision: number;
  /** Documents with content; empty and comment-only documents are not counted. */
  readonly documentsScanned: number;
  /** Objects with a string apiVersion and kind, List items included and the List wrappers themselves not. */
  readonly objectsScanned: number;
  /** Ordered by documentIndex, then line. */
  readonly findings: readonly ManifestFinding[];
  /** Fields, annotations and configuration-file versions that a change at or before the target (or scheduled after it) touches; same order. */
  readonly changeFindings: readonly ChangeFinding[];
  /** About the scan as a whole: DOCUMENT_UNREADABLE per malformed document, KNOWLEDGE_EDGE when the target is beyond what the API-removal knowledge covers. */
  readonly notes: readonly Finding[];
  /** False when a document could not be read (see the DOCUMENT_UNREADABLE notes): the scan judged the others only. */
  readonly complete: boolean;
  /** UNSUPPORTED when an object uses an API removed at the target; SUPPORTED_WITH_WARNINGS for deprecations and notes. */
  readonly status: Verdict;
}

/** Built once per list; lists are immutable, so the index never goes stale. */
const removalIndexes = new WeakMap<
  readonly ApiRemovalRecord[],
  ReadonlyMap<string, ApiRemovalRecord>
>();

export interface ScanOptions {
  readonly fromVersion?: string | null | undefined;
  /** The add-ons the cluster runs, [{name, version}]: objects of their CRD APIs are judged against these versions. */
  readonly addons?: unknown;
  /** The JSON of `kubectl get crd -o json`: objects are judged by the cluster's CRDs, and CRDs in the input against what the cluster has stored. */
  readonly crds?: unknown;
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
  refuseOversized(text);
  // In stretches, a step each: ten megabytes take tens of milliseconds.
  for (let start = 0; start < text.length; ) {
    start = refuseUnprintableIn(text, start);
    yield;
  }

  const addonVersions = parseScanAddons(snapshot, options.addons);
  const clusterCrds =
    options.crds === undefined || options.crds === null ? [] : crdsOfClusterJson(options.crds);
  const addonApis = addonApiIndex(snapshot);
  const removals = removalIndex(snapshot);
  const configurationApis = configurationIndex(snapshot);
  // Objects of group/versions the knowledge base knows nothing of (a custom resource's): said, never passed in silence.
  const known = knownApiVersions(snapshot);
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
    for (const { object, line } of document.objects) {
      const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : null;
      const kind = typeof object.kind === "string" ? object.kind : null;
      if (apiVersion === null || kind === null) continue;
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
        continue;
      }
      seen.findings.push(findingFor(record, target, from, here(), removals));
    }
  }
  const {
    custom,
    inputCrds,
    findings,
    changeFindings,
    unreadable,
    documentsScanned,
    objectsScanned,
  } = seen;
  const notJudged = new Map<string, { objects: number; kinds: Set<string> }>();

  // Custom resources: by the add-on's API lifecycle, else by their CRD (the input's own, else the cluster's), else not judged.
  const crdOf = new Map<string, CrdFacts>();
  for (const crd of clusterCrds) crdOf.set(`${crd.group} ${crd.kind}`, crd);
  for (const { crd } of inputCrds) crdOf.set(`${crd.group} ${crd.kind}`, crd);
  for (const object of custom) {
    const what = describeObject(object);
    const addonApi = addonApis.get(removalKey(object.apiVersion, object.kind));
    const slash = object.apiVersion.lastIndexOf("/");
    const crd =
      slash < 0 ? undefined : crdOf.get(`${object.apiVersion.slice(0, slash)} ${object.kind}`);
    if (addonApi === undefined && crd === undefined) {
      const seen = notJudged.get(object.apiVersion) ?? { objects: 0, kinds: new Set<string>() };
      seen.objects += 1;
      seen.kinds.add(object.kind);
      notJudged.set(object.apiVersion, seen);
      continue;
    }
    const verdicts = [
      addonApi === undefined
        ? null
        : judgeAddonApi(snapshot, addonApi, addonVersions.get(addonApi.addon), what),
      crd === undefined ? null : judgeByCrd(crd, object.apiVersion.slice(slash + 1), what),
    ];
    for (const verdict of verdicts)
      if (verdict !== null) changeFindings.push(customFinding(verdict, object, snapshot));
  }
  for (const { crd, object } of inputCrds) {
    const cluster = clusterCrds.find((candidate) => candidate.name === crd.name);
    const dropped = cluster === undefined ? [] : droppedStoredVersions(crd, cluster);
    if (dropped.length === 0) continue;
    changeFindings.push(
      customFinding(
        {
          code: "CRD_STORED_VERSION_DROPPED",
          severity: "ERROR",
          ruleId: crd.name,
          changesIn: null,
          replacement: null,
          message: `the CustomResourceDefinition ${crd.name} drops ${dropped.join(", ")}, which the cluster still lists in status.storedVersions: the API server refuses the update (or objects stored in it become unreadable). Run a storage version migration first (rewrite every object in a served version, then remove ${dropped.join(", ")} from status.storedVersions)`,
          sourceUrl: snapshot.reference("crd-versioning"),
        },
        object,
        snapshot,
      ),
    );
  }

  findings.sort((a, b) => a.documentIndex - b.documentIndex || a.line - b.line);
  changeFindings.sort((a, b) => a.documentIndex - b.documentIndex || a.line - b.line);
  const edge =
    knowledgeEdge(snapshot, "apiRemovals", target, `the target ${target}`) ??
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

/** What a pass over the documents gathers, before custom resources are judged. */
function gathering(): {
  custom: ManifestObject[];
  inputCrds: Array<{ crd: CrdFacts; object: ManifestObject }>;
  findings: ManifestFinding[];
  changeFindings: ChangeFinding[];
  unreadable: Finding[];
  documentsScanned: number;
  objectsScanned: number;
} {
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

const knownApiVersionSets = new WeakMap<
  KbSnapshot["apiGroupVersions"],
  WeakMap<KbSnapshot["apiRemovals"], ReadonlySet<string>>
>();

/** The apiVersions the knowledge base can judge: those the API server serves or served, and those with removal records. */
function knownApiVersions(snapshot: KbSnapshot): ReadonlySet<string> {
  const { apiGroupVersions, apiRemovals } = snapshot;
  const byRemovals = perList(
    knownApiVersionSets,
    apiGroupVersions,
    () => new WeakMap<KbSnapshot["apiRemovals"], ReadonlySet<string>>(),
  );
  return perList(
    byRemovals,
    apiRemovals,
    () =>
      new Set([
        ...apiGroupVersions.map((entry) => entry.apiVersion),
        ...apiRemovals.map((record) => record.apiVersion),
      ]),
  );
}

function removalIndex(snapshot: KbSnapshot): ReadonlyMap<string, ApiRemovalRecord> {
  return perList(
    removalIndexes,
    snapshot.apiRemovals,
    (list) => new Map(list.map((record) => [removalKey(record.apiVersion, record.kind), record])),
  );
}

/** The knowledge base's natural key of an API removal (see ENTITIES in records.ts). */
function removalKey(apiVersion: string, kind: string): string {
  return `${apiVersion} ${kind}`;
}

const configurationIndexes = new WeakMap<
  readonly ConfigurationApiRecord[],
  ReadonlyMap<string, ConfigurationApiRecord>
>();

function configurationIndex(snapshot: KbSnapshot): ReadonlyMap<string, ConfigurationApiRecord> {
  return perList(
    configurationIndexes,
    snapshot.configurationApis,
    (list) => new Map(list.map((record) => [removalKey(record.apiVersion, record.kind), record])),
  );
}

function locate(
  object: PlainMap,
  apiVersion: string,
  kind: string,
  documentIndex: number,
  line: number,
  source: string | null,
): ManifestObject {
  const metadata = isPlainMap(object.metadata) ? object.metadata : null;
  const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
  const name = metadata === null ? null : text(metadata.name);
  const generateName = metadata !== null && name === null ? text(metadata.generateName) : null;
  const namespace = metadata === null ? null : text(metadata.namespace);
  return {
    apiVersion,
    kind,
    name: name ?? generateName,
    nameIsGenerated: generateName !== null,
    namespace,
    documentIndex,
    line,
    source,
  };
}

function fieldFinding(
  snapshot: KbSnapshot,
  hit: FieldRuleHit,
  target: string,
  object: ManifestObject,
): ChangeFinding {
  const { rule } = hit;
  const { severity, from, scheduled } = severityAt(rule, target);
  const change = snapshot.behaviourChanges.find(
    (candidate) => candidate.id === rule.behaviourChange,
  );
  const what =
    hit.matched === null
      ? `sets ${hit.at}`
      : hit.at.endsWith(`["${hit.matched}"]`)
        ? `has ${hit.at}`
        : `has ${hit.at}: ${hit.matched}`;
  const when = scheduled
    ? `from Kubernetes ${from} (after the target ${target})`
    : `at Kubernetes ${target} (from ${from})`;
  return {
    code: scheduled ? "FIELD_CHANGE_SCHEDULED" : "FIELD_CHANGED",
    severity,
    ...placeOf(object),
    field: hit.at,
    behaviourChange: rule.behaviourChange,
    ruleId: rule.id,
    changesIn: from,
    replacement: null,
    message: `${describeObject(object)} ${what}, which ${change === undefined ? "a behaviour change" : `"${change.title}"`} touches ${when}: ${rule.advice}`,
    sourceUrl: rule.sourceUrl,
  };
}

function customFinding(
  verdict: Omit<CustomResourceVerdict, "code"> & { readonly code: ChangeFinding["code"] },
  object: ManifestObject,
  snapshot: KbSnapshot,
): ChangeFinding {
  return {
    code: verdict.code,
    severity: verdict.severity,
    ...placeOf(object),
    field: null,
    behaviourChange: null,
    ruleId: verdict.ruleId,
    changesIn: verdict.changesIn,
    replacement: verdict.replacement,
    message: verdict.message,
    sourceUrl: verdict.sourceUrl ?? snapshot.reference("crd-versioning") ?? "",
  };
}

/** A configuration file (not an API object) of a version the target's component reads, deprecates or no longer reads. */
function configurationFinding(
  record: ConfigurationApiRecord,
  target: string,
  object: ManifestObject,
): ChangeFinding | null {
  const base = {
    ...placeOf(object),
    field: null,
    behaviourChange: null,
    ruleId: `${record.kind} ${record.apiVersion}`,
    replacement: record.replacement,
    sourceUrl: record.sourceUrl,
  };
  const file = `the ${record.kind} file (${record.usedWith})`;
  const moveTo = record.replacement === null ? "" : `; move it to ${record.replacement}`;
  if (record.removedIn !== null && compareMinors(record.removedIn, target) <= 0) {
    return {
      ...base,
      code: "CONFIG_API_REMOVED",
      severity: "ERROR",
      changesIn: record.removedIn,
      message: `${file} uses ${record.apiVersion}, which ${record.component} no longer reads from Kubernetes ${record.removedIn}: at ${target} it refuses to start with it${moveTo}.`,
    };
  }
  if (record.introducedIn !== null && compareMinors(record.introducedIn, target) > 0) {
    return {
      ...base,
      code: "CONFIG_API_NOT_AVAILABLE",
      severity: "ERROR",
      changesIn: record.introducedIn,
      replacement: null,
      message: `${file} uses ${record.apiVersion}, which ${record.component} reads only from Kubernetes ${record.introducedIn}: at ${target} it refuses to start with it.`,
    };
  }
  if (record.deprecatedIn !== null && compareMinors(record.deprecatedIn, target) <= 0) {
    const removal = record.removedIn === null ? "" : ` and no longer read from ${record.removedIn}`;
    return {
      ...base,
      code: "CONFIG_API_DEPRECATED",
      severity: "WARNING",
      changesIn: record.deprecatedIn,
      message: `${file} uses ${record.apiVersion}, deprecated since Kubernetes ${record.deprecatedIn}${removal}${moveTo}.`,
    };
  }
  if (record.removedIn !== null) {
    return {
      ...base,
      code: "CONFIG_API_REMOVAL_SCHEDULED",
      severity: "INFO",
      changesIn: record.removedIn,
      message: `${file} uses ${record.apiVersion}, which ${record.component} no longer reads from Kubernetes ${record.removedIn}${moveTo}.`,
    };
  }
  return null;
}

function unreadableDocument(message: string): Finding {
  return finding({
    code: "DOCUMENT_UNREADABLE",
    severity: "ERROR",
    message: `${message.replace(/^manifests: /, "")}; it was skipped (kubectl apply would refuse it too), the other documents were scanned`,
  });
}

interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string | null;
  readonly nameIsGenerated: boolean;
  readonly namespace: string | null;
  readonly documentIndex: number;
  readonly line: number;
  readonly source: string | null;
}

/** Where a finding is: the object's apiVersion, kind, name, namespace, document, line and helm source (not nameIsGenerated). */
function placeOf(
  object: ManifestObject,
): Pick<
  ManifestObject,
  "apiVersion" | "kind" | "name" | "namespace" | "documentIndex" | "line" | "source"
> {
  const { apiVersion, kind, name, namespace, documentIndex, line, source } = object;
  return { apiVersion, kind, name, namespace, documentIndex, line, source };
}

function findingFor(
  record: ApiRemovalRecord,
  target: string,
  from: string | null,
  object: ManifestObject,
  removals: ReadonlyMap<string, ApiRemovalRecord>,
): ManifestFinding {
  const removed = compareMinors(record.removedIn, target) <= 0;
  const alreadyRemoved = removed && from !== null && compareMinors(record.removedIn, from) <= 0;
  const deprecated =
    !removed && record.deprecatedIn !== null && compareMinors(record.deprecatedIn, target) <= 0;
  const code = removed ? "API_REMOVED" : deprecated ? "API_DEPRECATED" : "API_REMOVAL_SCHEDULED";
  const severity = removed ? "ERROR" : deprecated ? "WARNING" : "INFO";

  const phase: RemovalPhase = alreadyRemoved
    ? "ALREADY_REMOVED"
    : removed
      ? from === null
        ? "REMOVED"
        : "REMOVED_IN_UPGRADE"
      : code === "API_DEPRECATED"
        ? "DEPRECATED"
        : "SCHEDULED";
  const status = alreadyRemoved
    ? `which is not served at ${from} already (removed in ${record.removedIn}): this manifest cannot be applied to the cluster as it is today either`
    : removed
      ? `which is no longer served from Kubernetes ${record.removedIn}${from === null ? "" : `: it breaks on the way from ${from} to ${target}`}`
      : deprecated
        ? `which is deprecated since Kubernetes ${record.deprecatedIn} and no longer served from ${record.removedIn}`
        : `which will no longer be served from Kubernetes ${record.removedIn}`;
  const advice = resolvedAtTarget(record, target, removals);
  const message = `${describeObject(object)} uses ${object.apiVersion}, ${status}${migrationAdvice(record, target, from, removed, advice)}`;
  const interim = advice.interim?.record ?? null;

  return {
    code,
    phase,
    severity,
    ...placeOf(object),
    removedIn: record.removedIn,
    deprecatedIn: record.deprecatedIn,
    // The API to migrate to that the target serves: the end of the replacement chain, as the message says.
    // (or, when that is first served after the target, the interim version both sides serve).
    replacement: interim === null ? advice.advised.replacement : interim.apiVersion,
    replacementAvailableIn:
      interim === null ? advice.advised.replacementAvailableIn : interim.introducedIn,
    message,
    sourceUrl: record.sourceUrl,
  };
}

function describeObject(object: ManifestObject): string {
  const named =
    object.name === null
      ? `${object.kind} without a name`
      : object.nameIsGenerated
        ? `${object.kind} with generateName "${object.name}"`
        : `${object.kind} "${object.name}"`;
  return object.namespace === null ? named : `${named} in namespace "${object.namespace}"`;
}

/**
 * A listed replacement may itself be gone by the target (extensions/v1beta1 → policy/v1beta1 PodSecurityPolicy,
 * flowcontrol v1beta1 → v1beta2): the record where the chain ends is the one to advise, for the message and the
 * structured `replacement` alike, rather than an API the target does not serve.
 */
interface MigrationAdvice {
  /** The record where the replacement chain ends at the target. */
  readonly advised: ApiRemovalRecord;
  /** The message's account of the replacements passed over on the way. */
  readonly detour: string;
  /** A version to move to meanwhile when the advised replacement is first served after the target, or deprecated at it. */
  readonly interim: Interim | null;
}

function resolvedAtTarget(
  record: ApiRemovalRecord,
  target: string,
  removals: ReadonlyMap<string, ApiRemovalRecord>,
): MigrationAdvice {
  let advised = record;
  let detour = "";
  const visited = new Set([record]);
  for (;;) {
    const next =
      advised.replacement === null
        ? undefined
        : removals.get(removalKey(advised.replacement, advised.kind));
    if (next === undefined || visited.has(next) || compareMinors(next.removedIn, target) > 0) break;
    detour += `; its replacement ${advised.replacement} is no longer served from ${next.removedIn} either`;
    visited.add(next);
    advised = next;
  }
  return { advised, detour, interim: interimAtTarget(advised, target, removals) };
}

/**
 * When the API to migrate to is first served after the target (flowcontrol v1beta2 → v1, served from 1.29), or is
 * itself deprecated at the target (flowcontrol v1beta1 → v1beta2 at 1.28), the version to move to meanwhile is the
 * longest-lived version of the same group and kind that the target serves by default and that outlives it
 * (v1beta3, introduced in 1.26, removed in 1.32), found from the records' own introducedIn and removedIn.
 */
function interimAtTarget(
  advised: ApiRemovalRecord,
  target: string,
  removals: ReadonlyMap<string, ApiRemovalRecord>,
): Interim | null {
  if (advised.replacement === null) return null;
  const availableIn = advised.replacementAvailableIn;
  const notServedYet = availableIn !== null && compareMinors(availableIn, target) > 0;
  const replacement = removals.get(removalKey(advised.replacement, advised.kind));
  const deprecated =
    !notServedYet &&
    replacement?.deprecatedIn != null &&
    compareMinors(replacement.deprecatedIn, target) <= 0
      ? replacement
      : undefined;
  if (!notServedYet && deprecated === undefined) return null;
  // What the interim must outlive: the replacement it stands in for, else the advised version itself.
  const outlive = deprecated?.removedIn ?? advised.removedIn;
  let best: ApiRemovalRecord | null = null;
  for (const candidate of removals.values()) {
    if (
      candidate === advised ||
      candidate === deprecated ||
      candidate.group !== advised.group ||
      candidate.kind !== advised.kind
    )
      continue;
    if (
      candidate.introducedIn === null ||
      compareMinors(candidate.introducedIn, target) > 0 ||
      candidate.servedByDefault === false
    )
      continue;
    if (
      compareMinors(candidate.removedIn, target) <= 0 ||
      compareMinors(candidate.removedIn, outlive) <= 0
    )
      continue;
    if (best === null || compareMinors(candidate.removedIn, best.removedIn) > 0) best = candidate;
  }
  return best === null
    ? null
    : {
        record: best,
        because: deprecated === undefined ? { notServedUntil: availableIn! } : { deprecated },
      };
}

interface Interim {
  readonly record: ApiRemovalRecord;
  /** Why the listed replacement is not the one to move to at the target. */
  readonly because: { readonly notServedUntil: string } | { readonly deprecated: ApiRemovalRecord };
}

/** The rest of the message, from the separator after the status to the final period. */
function migrationAdvice(
  record: ApiRemovalRecord,
  target: string,
  from: string | null,
  removed: boolean,
  { advised, detour, interim }: MigrationAdvice,
): string {
  const deadline = removed ? "" : ` before upgrading to ${record.removedIn}`;
  if (interim !== null) {
    const { record: meanwhile, because } = interim;
    const why =
      "notServedUntil" in because
        ? `is first served in ${because.notServedUntil}, after ${target}`
        : `is deprecated since ${because.deprecated.deprecatedIn} and no longer served from ${because.deprecated.removedIn}`;
    const then =
      meanwhile.replacement === null
        ? ""
        : `, and to ${meanwhile.replacement} before upgrading to ${meanwhile.removedIn}`;
    return `${detour}; its replacement ${advised.replacement} ${why}, so migrate to ${meanwhile.apiVersion} meanwhile (served from ${meanwhile.introducedIn} until ${meanwhile.removedIn})${deadline}${then}.`;
  }

  const notes = advised.notes === null ? `See ${advised.sourceUrl}` : `Notes: ${advised.notes}`;
  if (advised.replacement === null) {
    const plan = removed ? "" : `; plan for that${deadline}`;
    return `${detour}. There is no replacement API${plan}. ${withPeriod(notes)}`;
  }
  const availableIn = advised.replacementAvailableIn;
  if (availableIn !== null && compareMinors(availableIn, target) > 0) {
    if (compareMinors(availableIn, advised.removedIn) >= 0) {
      // No release serves both versions, so there is no moment to switch safely; the notes say how to cross.
      return `${detour}; its replacement ${advised.replacement} is first served in ${availableIn}, so no release serves both. ${withPeriod(notes)}`;
    }
    const andDeadline = removed ? "" : `, and before upgrading to ${record.removedIn}`;
    return `${detour}; migrate to ${advised.replacement} once the cluster runs ${availableIn} (it is not served in ${target})${andDeadline}.`;
  }
  if (from !== null && availableIn !== null && compareMinors(availableIn, from) > 0) {
    // The cluster as it runs today does not serve the replacement yet: say from which minor on it does.
    const bothServe = compareMinors(availableIn, advised.removedIn) < 0;
    return bothServe
      ? `${detour}; its replacement ${advised.replacement} is not served at ${from}: migrate to it once the cluster runs ${availableIn}, before it reaches ${advised.removedIn}.`
      : `${detour}; its replacement ${advised.replacement} is first served in ${availableIn}, not at ${from}, and no release serves both. ${withPeriod(advised.notes === null ? `See ${advised.sourceUrl}` : `Notes: ${advised.notes}`)}`;
  }
  const since = availableIn === null ? "" : ` (available since ${availableIn})`;
  return `${detour}; migrate to ${advised.replacement}${since}${deadline}.`;
}

function withPeriod(sentence: string): string {
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
