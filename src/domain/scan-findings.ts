/**
 * What a manifest scan reports, and where: the shapes of its findings and of its report, and the place of
 * an object in the input (document, line, helm source) that every finding carries.
 */
import type { Finding, Verdict } from "./findings.js";
import { isPlainMap, type PlainMap } from "./manifest-reader.js";
import type { CustomResourceVerdict } from "./custom-resources.js";

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

/** The object a finding of a manifest scan is about, and where it stands in the input. */
export interface FoundObject {
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
}

export interface ManifestFinding extends FoundObject {
  readonly code: "API_REMOVED" | "API_DEPRECATED" | "API_REMOVAL_SCHEDULED";
  readonly phase: RemovalPhase;
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
export interface ChangeFinding extends FoundObject {
  readonly code:
    | "FIELD_CHANGED"
    | "FIELD_CHANGE_SCHEDULED"
    | "CONFIG_API_REMOVED"
    | "CONFIG_API_DEPRECATED"
    | "CONFIG_API_REMOVAL_SCHEDULED"
    | "CONFIG_API_NOT_AVAILABLE"
    | CustomResourceVerdict["code"]
    | "CRD_STORED_VERSION_DROPPED";
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

export interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string | null;
  readonly nameIsGenerated: boolean;
  readonly namespace: string | null;
  readonly documentIndex: number;
  readonly line: number;
  readonly source: string | null;
}

export function locate(
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

/** Where a finding is: the object's apiVersion, kind, name, namespace, document, line and helm source (not nameIsGenerated). */
export function placeOf(
  object: ManifestObject,
): Pick<
  ManifestObject,
  "apiVersion" | "kind" | "name" | "namespace" | "documentIndex" | "line" | "source"
> {
  const { apiVersion, kind, name, namespace, documentIndex, line, source } = object;
  return { apiVersion, kind, name, namespace, documentIndex, line, source };
}

export function describeObject(object: ManifestObject): string {
  const named =
    object.name === null
      ? `${object.kind} without a name`
      : object.nameIsGenerated
        ? `${object.kind} with generateName "${object.name}"`
        : `${object.kind} "${object.name}"`;
  return object.namespace === null ? named : `${named} in namespace "${object.namespace}"`;
}
