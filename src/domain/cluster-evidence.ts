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
import { gunzipSync } from "node:zlib";
import { InputError } from "../core/errors.js";
import { compareMinors } from "../core/versions.js";
import type { ApiRemovalRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { finding, verdictOf, type Finding, type Verdict } from "./findings.js";
import { readMinor } from "./version-reader.js";
import { scanManifests, type ManifestFinding } from "./scan.js";

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

type Json = Record<string, unknown>;
const object = (value: unknown): Json | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Json)
    : undefined;
const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** At most this many items per input, and this many bytes of a decoded release. */
export const MAX_CLUSTER_ITEMS = 20_000;
const MAX_RELEASE_BYTES = 20 * 1024 * 1024;

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
  let releases: ClusterScanReport["releases"] = [];
  if (inputs.helmReleases != null) {
    const read = readHelmReleases(inputs.helmReleases, notes);
    releases = read.map(({ manifest: _manifest, ...ref }) => ref);
    for (const release of read)
      findings.push(...helmFindings(snapshot, release, target, notes, judged));
  }
  if (inputs.objects != null)
    findings.push(...lastAppliedFindings(snapshot, inputs.objects, target, notes, judged));
  if (inputs.metrics != null)
    findings.push(...metricFindings(snapshot, inputs.metrics, target, notes, judged));
  if (inputs.auditLog != null)
    findings.push(...auditFindings(snapshot, inputs.auditLog, target, notes, judged));
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

/** How many pieces of evidence a scan judged (objects, metric texts, audit events). */
interface Judged {
  count: number;
}

interface DecodedRelease extends HelmReleaseRef {
  readonly manifest: string;
  readonly skippedRevisions: readonly number[];
}

/**
 * Helm 3's release records: a Secret's `data.release` is base64 (the
 * Secret's encoding) of base64 of gzip of the release JSON; a ConfigMap's
 * `data.release` is base64 of gzip. Only each release's newest revision is
 * kept (the one the next upgrade reads); the skipped ones are named.
 */
export function readHelmReleases(input: unknown, notes: Finding[] = []): DecodedRelease[] {
  const items = object(input)?.items;
  if (!Array.isArray(items))
    throw new InputError(
      "helmReleases must be the JSON of `kubectl get secrets -A -l owner=helm -o json` (a List with items)",
      "helmReleases.items",
    );
  if (items.length > MAX_CLUSTER_ITEMS)
    throw new InputError(
      `helmReleases has ${items.length} items; at most ${MAX_CLUSTER_ITEMS} are accepted`,
      "helmReleases.items",
    );
  const newest = new Map<string, DecodedRelease>();
  const skipped = new Map<string, number[]>();
  const unreadable: string[] = [];
  items.forEach((item, index) => {
    const record = object(item);
    const metadata = object(record?.metadata);
    const label = `${text(metadata?.namespace) ?? "?"}/${text(metadata?.name) ?? `items[${index}]`}`;
    const encoded = text(object(record?.data)?.release);
    if (encoded === undefined) {
      unreadable.push(`${label} (no data.release)`);
      return;
    }
    let release: Json | undefined;
    try {
      const once = Buffer.from(encoded, "base64");
      // A Secret's data is base64 once more than a ConfigMap's: gzip starts with 1f 8b.
      const gzipped =
        record?.kind === "ConfigMap" || (once[0] === 0x1f && once[1] === 0x8b)
          ? once
          : Buffer.from(once.toString("latin1"), "base64");
      const json = gunzipSync(gzipped, { maxOutputLength: MAX_RELEASE_BYTES }).toString("utf8");
      release = object(JSON.parse(json));
    } catch (error) {
      unreadable.push(
        `${label} (${error instanceof Error ? error.message.split("\n")[0]!.slice(0, 80) : "not a Helm release"})`,
      );
      return;
    }
    const name = text(release?.name);
    const namespace = text(release?.namespace) ?? text(metadata?.namespace) ?? "default";
    const revision =
      typeof release?.version === "number"
        ? release.version
        : Number(text(object(metadata?.labels)?.version));
    const chartMetadata = object(object(release?.chart)?.metadata);
    if (name === undefined || !Number.isInteger(revision)) {
      unreadable.push(`${label} (no release name or revision)`);
      return;
    }
    const key = `${namespace}\u0000${name}`;
    const decoded: DecodedRelease = {
      name,
      namespace,
      chart: text(chartMetadata?.name) ?? "?",
      chartVersion: text(chartMetadata?.version) ?? "?",
      revision,
      manifest: text(release?.manifest) ?? "",
      skippedRevisions: [],
    };
    const held = newest.get(key);
    const older = skipped.get(key) ?? [];
    if (held === undefined || held.revision < revision) {
      if (held !== undefined) older.push(held.revision);
      newest.set(key, decoded);
    } else {
      older.push(revision);
    }
    skipped.set(key, older);
  });
  if (unreadable.length > 0) {
    notes.push(
      finding({
        code: "DOCUMENT_UNREADABLE",
        severity: "ERROR",
        message: `${unreadable.length} Helm release record${unreadable.length === 1 ? "" : "s"} could not be read and were not scanned: ${unreadable.slice(0, 20).join("; ")}`,
      }),
    );
  }
  return [...newest.entries()].map(([key, release]) => ({
    ...release,
    skippedRevisions: (skipped.get(key) ?? []).sort((a, b) => a - b),
  }));
}

function helmFindings(
  snapshot: KbSnapshot,
  release: DecodedRelease,
  target: string,
  notes: Finding[],
  judged: Judged,
): EvidenceFinding[] {
  if (release.manifest.trim() === "") return [];
  const ref: HelmReleaseRef = {
    name: release.name,
    namespace: release.namespace,
    chart: release.chart,
    chartVersion: release.chartVersion,
    revision: release.revision,
  };
  const scan = scanManifests(snapshot, release.manifest, target);
  judged.count += scan.objectsScanned;
  for (const note of scan.notes)
    if (note.code === "DOCUMENT_UNREADABLE")
      notes.push({
        ...note,
        message: `Helm release ${release.namespace}/${release.name}: ${note.message}`,
      });
  const where = `Helm release ${release.name} (namespace ${release.namespace}, chart ${release.chart}-${release.chartVersion}, revision ${release.revision})`;
  return scan.findings.map((entry) => ({
    ...fromManifest(entry, "HELM_RELEASE", ref),
    message:
      entry.severity === "ERROR"
        ? `${where} stores ${entry.kind} ${entry.name ?? "?"} as ${entry.apiVersion}, which Kubernetes ${entry.removedIn} no longer serves: the next \`helm upgrade\` of the release fails (Helm cannot map the stored object to a served API) until its record is repaired. Run \`helm mapkubeapis ${release.name} --namespace ${release.namespace}\` (the helm-mapkubeapis plugin rewrites the stored manifest${entry.replacement === null ? "" : ` to ${entry.replacement}`}), then upgrade with a chart that uses ${entry.replacement ?? "a served API"}. ${entry.message}`
        : `${where}: ${entry.message}`,
  }));
}

function fromManifest(
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

const LAST_APPLIED = ["kubectl.kubernetes.io/last-applied-configuration", "kapp.k14s.io/original"];

/** Objects from the cluster, judged by the apiVersion they were applied with (their annotation), never by the served one. */
function lastAppliedFindings(
  snapshot: KbSnapshot,
  input: unknown,
  target: string,
  notes: Finding[],
  judged: Judged,
): EvidenceFinding[] {
  const items = object(input)?.items;
  if (!Array.isArray(items))
    throw new InputError(
      "objects must be the JSON of `kubectl get <kinds> -A -o json` (a List with items)",
      "objects.items",
    );
  if (items.length > MAX_CLUSTER_ITEMS)
    throw new InputError(
      `objects has ${items.length} items; at most ${MAX_CLUSTER_ITEMS} are accepted`,
      "objects.items",
    );
  const applied: Array<{ served: string; document: string }> = [];
  let without = 0;
  for (const item of items) {
    const annotations = object(object(object(item)?.metadata)?.annotations) ?? {};
    const original = LAST_APPLIED.map((key) => text(annotations[key])).find(
      (value) => value !== undefined,
    );
    const parsed = original === undefined ? undefined : safeJson(original);
    if (
      parsed === undefined ||
      typeof parsed.apiVersion !== "string" ||
      typeof parsed.kind !== "string"
    ) {
      without += 1;
      continue;
    }
    applied.push({
      served: text(object(item)?.apiVersion) ?? "?",
      document: JSON.stringify(parsed),
    });
  }
  if (without > 0) {
    notes.push(
      finding({
        code: "API_NOT_JUDGED",
        severity: "INFO",
        message: `${without} object${without === 1 ? "" : "s"} carr${without === 1 ? "ies" : "y"} no last-applied annotation (kubectl.kubernetes.io/last-applied-configuration, kapp.k14s.io/original): the apiVersion ${without === 1 ? "it was" : "they were"} applied with is not known (the served one kubectl prints is not it); scan the manifests ${without === 1 ? "it comes" : "they come"} from`,
      }),
    );
  }
  if (applied.length === 0) return [];
  judged.count += applied.length;
  const scan = scanManifests(
    snapshot,
    applied.map((entry) => entry.document).join("\n---\n"),
    target,
  );
  return scan.findings.map((entry) => {
    const served = applied[entry.documentIndex]?.served ?? "?";
    return {
      ...fromManifest(entry, "LAST_APPLIED", null),
      message: `${entry.message} (as last applied; the cluster serves it as ${served}, which is why \`kubectl get\` does not show it)`,
    };
  });
}

function safeJson(value: string): Json | undefined {
  try {
    return object(JSON.parse(value));
  } catch {
    return undefined;
  }
}

/** The removal record of a group/version and resource (`cronjobs` ↔ CronJob), if the knowledge base has one. */
function removalOfResource(
  snapshot: KbSnapshot,
  apiVersion: string,
  resource: string,
): ApiRemovalRecord | undefined {
  return snapshot.apiRemovals.find(
    (record) => record.apiVersion === apiVersion && plural(record.kind) === resource,
  );
}

function plural(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

function requestSeverity(removedIn: string | null, target: string): "ERROR" | "WARNING" {
  return removedIn !== null && /^\d+\.\d+$/.test(removedIn) && compareMinors(removedIn, target) <= 0
    ? "ERROR"
    : "WARNING";
}

/** `apiserver_requested_deprecated_apis{group,version,resource,subresource,removed_release} 1` lines of `kubectl get --raw /metrics`. */
function metricFindings(
  snapshot: KbSnapshot,
  input: unknown,
  target: string,
  notes: Finding[],
  judged: Judged,
): EvidenceFinding[] {
  if (typeof input !== "string")
    throw new InputError(
      "metrics must be the text of `kubectl get --raw /metrics` (Prometheus text format)",
      "metrics",
    );
  const series = new Map<
    string,
    { apiVersion: string; resource: string; removedIn: string | null }
  >();
  let seen = false;
  for (const line of input.split("\n")) {
    if (!line.startsWith("apiserver_requested_deprecated_apis{")) continue;
    seen = true;
    const match = /^apiserver_requested_deprecated_apis\{(.*)\}\s+(\S+)/.exec(line);
    if (match === null || Number(match[2]) <= 0) continue;
    const labels = new Map(
      [...match[1]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1]!, pair[2]!]),
    );
    const group = labels.get("group") ?? "";
    const version = labels.get("version") ?? "";
    const resource = `${labels.get("resource") ?? "?"}${labels.get("subresource") ? `/${labels.get("subresource")}` : ""}`;
    const apiVersion = group === "" ? version : `${group}/${version}`;
    series.set(`${apiVersion} ${resource}`, {
      apiVersion,
      resource,
      removedIn: labels.get("removed_release") || null,
    });
  }
  // An apiserver's /metrics without the series is a real "none requested"; a text without any apiserver metric judged nothing.
  if (seen || /^apiserver_\w+[{ ]/m.test(input)) judged.count += 1;
  if (!seen) {
    notes.push(
      finding({
        code: "API_NOT_JUDGED",
        severity: "INFO",
        message:
          "the metrics hold no apiserver_requested_deprecated_apis series: no deprecated API was requested since this apiserver started, or the text is not the apiserver's /metrics (each apiserver of an HA control plane counts only its own requests)",
      }),
    );
  }
  return [...series.values()].map(({ apiVersion, resource, removedIn }) => {
    const record = removalOfResource(snapshot, apiVersion, resource.split("/")[0]!);
    const severity = requestSeverity(removedIn, target);
    return {
      code: "DEPRECATED_API_REQUESTED",
      severity,
      evidence: "REQUEST_METRIC",
      apiVersion,
      kind: resource,
      name: null,
      namespace: null,
      release: null,
      callers: [],
      removedIn,
      replacement: record?.replacement ?? null,
      message: `clients requested ${resource} of ${apiVersion} since this apiserver started${removedIn === null ? "" : `, which Kubernetes ${removedIn} removes`}${severity === "ERROR" ? `: at ${target} those requests fail` : ""}${record?.replacement ? `; move them to ${record.replacement}` : ""}. The metric does not say who: the audit log's k8s.io/deprecated annotation does`,
      sourceUrl: record?.sourceUrl ?? snapshot.reference("deprecation-guide"),
    };
  });
}

/** Audit events (JSON lines) annotated `k8s.io/deprecated: "true"`, grouped by API and resource, with who called and how often. */
function auditFindings(
  snapshot: KbSnapshot,
  input: unknown,
  target: string,
  notes: Finding[],
  judged: Judged,
): EvidenceFinding[] {
  if (typeof input !== "string")
    throw new InputError(
      "auditLog must be the apiserver's audit log as text (JSON lines)",
      "auditLog",
    );
  const groups = new Map<
    string,
    { apiVersion: string; resource: string; removedIn: string | null; callers: Map<string, Caller> }
  >();
  let unreadable = 0;
  for (const line of input.split("\n")) {
    if (line.trim() === "") continue;
    const event = safeJson(line);
    if (event === undefined) {
      unreadable += 1;
      continue;
    }
    judged.count += 1;
    const annotations = object(event.annotations) ?? {};
    if (annotations["k8s.io/deprecated"] !== "true") continue;
    const ref = object(event.objectRef) ?? {};
    const group = text(ref.apiGroup) ?? "";
    const version = text(ref.apiVersion) ?? "?";
    const apiVersion = group === "" ? version : `${group}/${version}`;
    const resource = `${text(ref.resource) ?? "?"}${text(ref.subresource) ? `/${text(ref.subresource)}` : ""}`;
    const key = `${apiVersion} ${resource}`;
    const entry = groups.get(key) ?? {
      apiVersion,
      resource,
      removedIn: text(annotations["k8s.io/removed-release"]) ?? null,
      callers: new Map<string, Caller>(),
    };
    const user = text(object(event.user)?.username) ?? "?";
    const userAgent = text(event.userAgent) ?? "?";
    const who = `${user}\u0000${userAgent}`;
    const caller = entry.callers.get(who);
    entry.callers.set(who, { user, userAgent, requests: (caller?.requests ?? 0) + 1 });
    groups.set(key, entry);
  }
  if (unreadable > 0)
    notes.push(
      finding({
        code: "DOCUMENT_UNREADABLE",
        severity: "WARNING",
        message: `${unreadable} line${unreadable === 1 ? "" : "s"} of the audit log ${unreadable === 1 ? "is" : "are"} not JSON and ${unreadable === 1 ? "was" : "were"} skipped`,
      }),
    );
  return [...groups.values()].map(({ apiVersion, resource, removedIn, callers }) => {
    const record = removalOfResource(snapshot, apiVersion, resource.split("/")[0]!);
    const severity = requestSeverity(removedIn, target);
    const sorted = [...callers.values()].sort(
      (a, b) => b.requests - a.requests || a.user.localeCompare(b.user),
    );
    const total = sorted.reduce((sum, caller) => sum + caller.requests, 0);
    return {
      code: "DEPRECATED_API_CALLED",
      severity,
      evidence: "AUDIT_EVENT",
      apiVersion,
      kind: resource,
      name: null,
      namespace: null,
      release: null,
      callers: sorted,
      removedIn,
      replacement: record?.replacement ?? null,
      message: `${total} request${total === 1 ? "" : "s"} for ${resource} of ${apiVersion}${removedIn === null ? "" : ` (removed in ${removedIn})`}${severity === "ERROR" ? `, which fail at ${target}` : ""}, from ${sorted
        .slice(0, 5)
        .map((caller) => `${caller.user} (${caller.userAgent}, ${caller.requests})`)
        .join(
          ", ",
        )}${sorted.length > 5 ? `, and ${sorted.length - 5} more` : ""}${record?.replacement ? `; move them to ${record.replacement}` : ""}`,
      sourceUrl: record?.sourceUrl ?? snapshot.reference("deprecation-guide"),
    };
  });
}
