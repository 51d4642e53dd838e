/**
 * The deprecated APIs clients really request, as evidence: the apiserver's
 * `apiserver_requested_deprecated_apis` series (what was requested since it started) and the
 * `k8s.io/deprecated` annotations of its audit log (who requested it, and how often). A request of an API the
 * target no longer serves is an ERROR: it fails once the control plane is there.
 */
import { compareMinors } from "../core/versions.js";
import type { ApiRemovalRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import {
  evidenceText,
  type Caller,
  type EvidenceFinding,
  type EvidenceReading,
} from "./evidence-findings.js";
import { finding } from "./findings.js";
import { object, safeJson, text } from "./kubectl-json.js";

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
export function metricFindings(reading: EvidenceReading, input: unknown): EvidenceFinding[] {
  const { snapshot, target, notes, judged } = reading;
  const metrics = evidenceText(
    input,
    "metrics",
    "the text of `kubectl get --raw /metrics` (Prometheus text format)",
  );
  const series = new Map<
    string,
    { apiVersion: string; resource: string; removedIn: string | null }
  >();
  let seen = false;
  for (const line of metrics.split("\n")) {
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
  if (seen || /^apiserver_\w+[{ ]/m.test(metrics)) judged.count += 1;
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
export function auditFindings(reading: EvidenceReading, input: unknown): EvidenceFinding[] {
  const { snapshot, target, notes, judged } = reading;
  const auditLog = evidenceText(
    input,
    "auditLog",
    "the apiserver's audit log as text (JSON lines)",
  );
  const groups = new Map<
    string,
    { apiVersion: string; resource: string; removedIn: string | null; callers: Map<string, Caller> }
  >();
  let unreadable = 0;
  for (const line of auditLog.split("\n")) {
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
