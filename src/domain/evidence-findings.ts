/**
 * What a finding of a cluster scan is (scanCluster): which evidence it rests on (a manifest, an object's
 * last-applied annotation, a Helm release record, the apiserver's request metric, an audit event), the release
 * that stores the object, the callers that made the requests; and the limits shared by every kind of evidence.
 */
import { InputError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import type { Finding } from "./findings.js";
import type { ManifestFinding } from "./scan.js";

export type Evidence =
  | "MANIFEST"
  | "LAST_APPLIED"
  | "HELM_RELEASE"
  | "REQUEST_METRIC"
  | "AUDIT_EVENT";

export interface HelmReleaseRef {
  readonly name: string;
  readonly namespace: string;
  readonly chart: string;
  readonly chartVersion: string;
  readonly revision: number;
}

export interface Caller {
  readonly user: string;
  readonly userAgent: string;
  readonly requests: number;
}

export interface EvidenceFinding {
  readonly code: ManifestFinding["code"] | "DEPRECATED_API_REQUESTED" | "DEPRECATED_API_CALLED";
  readonly severity: "ERROR" | "WARNING" | "INFO";
  readonly evidence: Evidence;
  readonly apiVersion: string;
  /** The kind (objects), or the resource (requests: `cronjobs`). */
  readonly kind: string;
  readonly name: string | null;
  readonly namespace: string | null;
  /** The Helm release whose stored manifest holds the object. */
  readonly release: HelmReleaseRef | null;
  /** Who made the requests (audit events), most requests first. */
  readonly callers: readonly Caller[];
  readonly removedIn: string | null;
  readonly replacement: string | null;
  readonly message: string;
  readonly sourceUrl: string | null;
}

/** At most this many items per input. */
export const MAX_CLUSTER_ITEMS = 20_000;

/** How many pieces of evidence a scan judged (objects, metric texts, audit events). */
export interface Judged {
  count: number;
}

/** What every kind of evidence is read against: the knowledge, the target minor, the scan's notes and its count of what was judged. */
export interface EvidenceReading {
  readonly snapshot: KbSnapshot;
  readonly target: string;
  readonly notes: Finding[];
  readonly judged: Judged;
}

/** The text an evidence field must hold (a metrics page, an audit log), or an InputError saying what to give. */
export function evidenceText(input: unknown, field: string, expected: string): string {
  if (typeof input !== "string") throw new InputError(`${field} must be ${expected}`, field);
  return input;
}

/** A finding of scanManifests, said of the evidence it was found in. */
export function fromManifest(
  entry: ManifestFinding,
  evidence: Evidence,
  release: HelmReleaseRef | null,
): EvidenceFinding {
  return {
    code: entry.code,
    severity: entry.severity,
    evidence,
    apiVersion: entry.apiVersion,
    kind: entry.kind,
    name: entry.name,
    namespace: entry.namespace,
    release,
    callers: [],
    removedIn: entry.removedIn,
    replacement: entry.replacement,
    message: entry.message,
    sourceUrl: entry.sourceUrl,
  };
}
