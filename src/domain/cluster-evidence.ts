/**
 * What is actually running, judged for an upgrade: the manifests Helm
 * stored for each release (the next `helm upgrade` reads them), the
 * apiVersion each object was applied with (its last-applied annotation; the
 * served version `kubectl get` prints is not it), and the deprecated APIs
 * clients really request (the apiserver's `apiserver_requested_deprecated_apis`
 * series and the `k8s.io/deprecated` annotations of its audit log). Every
 * finding says which evidence it rests on. Pure: the inputs are the texts
 * and JSON that the kubectl commands print.
 */
import { InputError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { auditFindings, metricFindings } from "./deprecated-api-requests.js";
import type {
  EvidenceFinding,
  EvidenceReading,
  HelmReleaseRef,
  Judged,
} from "./evidence-findings.js";
import { finding, verdictOf, type Finding, type Verdict } from "./findings.js";
import { helmReleaseFindings, readHelmReleases } from "./helm-releases.js";
import { lastAppliedFindings } from "./last-applied-objects.js";
import { readMinor } from "./version-reader.js";

export {
  MAX_CLUSTER_ITEMS,
  type Caller,
  type Evidence,
  type EvidenceFinding,
  type HelmReleaseRef,
} from "./evidence-findings.js";

export interface ClusterScanReport {
  readonly targetVersion: string;
  readonly kbRevision: number;
  readonly findings: readonly EvidenceFinding[];
  /** The Helm releases read, newest revision each, with the older revisions that were skipped. */
  readonly releases: ReadonlyArray<
    HelmReleaseRef & { readonly skippedRevisions: readonly number[] }
  >;
  /** What could not be read or judged, said. */
  readonly notes: readonly Finding[];
  readonly status: Verdict;
}

export interface ClusterInputs {
  /** `kubectl get secrets -A -l owner=helm -o json` (or the ConfigMaps of Helm's configmap driver). */
  readonly helmReleases?: unknown;
  /** `kubectl get <kinds> -A -o json`. */
  readonly objects?: unknown;
  /** `kubectl get --raw /metrics` (Prometheus text format). */
  readonly metrics?: unknown;
  /** The apiserver's audit log: JSON lines. */
  readonly auditLog?: unknown;
}

export function scanCluster(
  snapshot: KbSnapshot,
  inputs: ClusterInputs,
  targetVersion: string,
): ClusterScanReport {
  const target = readMinor(snapshot, targetVersion, "targetVersion");
  if (
    inputs.helmReleases == null &&
    inputs.objects == null &&
    inputs.metrics == null &&
    inputs.auditLog == null
  ) {
    throw new InputError(
      "give helmReleases (`kubectl get secrets -A -l owner=helm -o json`), objects (`kubectl get <kinds> -A -o json`), metrics (`kubectl get --raw /metrics`), auditLog (the apiserver's audit log), or several",
      "helmReleases",
    );
  }
  const findings: EvidenceFinding[] = [];
  const notes: Finding[] = [];
  // What was judged at all: objects of Helm releases and last-applied objects, an apiserver's metrics, audit events.
  const judged: Judged = { count: 0 };
  const reading: EvidenceReading = { snapshot, target, notes, judged };
  let releases: ClusterScanReport["releases"] = [];
  if (inputs.helmReleases != null) {
    const read = readHelmReleases(inputs.helmReleases, notes);
    releases = read.map(({ manifest: _manifest, ...ref }) => ref);
    for (const release of read) findings.push(...helmReleaseFindings(reading, release));
  }
  if (inputs.objects != null) findings.push(...lastAppliedFindings(reading, inputs.objects));
  if (inputs.metrics != null) findings.push(...metricFindings(reading, inputs.metrics));
  if (inputs.auditLog != null) findings.push(...auditFindings(reading, inputs.auditLog));
  // Evidence that holds nothing to judge (no release, no object, no apiserver metric, no event) is never a green answer.
  if (judged.count === 0) {
    notes.unshift(
      finding({
        code: "NOTHING_JUDGED",
        severity: "WARNING",
        message:
          "nothing was judged: the evidence given holds no Helm release object, no object with its last-applied apiVersion, no apiserver metric and no audit event; give what `kubecompat collect` gathers, or the outputs named in the request's fields",
      }),
    );
  }
  return {
    targetVersion: target,
    kbRevision: snapshot.revision,
    findings,
    releases,
    notes,
    status: verdictOf([...findings, ...notes]),
  };
}
