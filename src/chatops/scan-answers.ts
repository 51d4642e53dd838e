/**
 * The answer to `scan to VERSION` followed by a paste: manifests are scanned
 * for API versions removed or deprecated at the target; what kubectl printed
 * about a running cluster (metrics, audit log, Helm releases, objects with
 * their last-applied apiVersion) is recognised and judged as cluster
 * evidence instead.
 */
import { scanCluster, type ClusterInputs } from "../domain/cluster-evidence.js";
import { checkOf, type Finding } from "../domain/findings.js";
import { scanManifests } from "../domain/scan.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { countWords, findingsSection, revision } from "./answers.js";
import type { ChatCommand } from "./chat-command.js";
import type { ChatReplyDoc } from "./reply.js";

/** The annotations that keep the apiVersion an object was applied with (see src/domain/last-applied-objects.ts). */
const APPLIED_ANNOTATIONS =
  /"(kubectl\.kubernetes\.io\/last-applied-configuration|kapp\.k14s\.io\/original)"\s*:/;

/**
 * What kubectl printed about the running cluster, pasted after `scan to 1.29` instead of manifests: the
 * apiserver's /metrics, audit-log lines, the JSON of `kubectl get secrets -A -l owner=helm -o json`, or
 * that of `kubectl get <kinds> -A -o json` whose objects carry their last-applied apiVersion (judged by it,
 * not by the version the cluster serves them as).
 */
function clusterSnippet(text: string): ClusterInputs | undefined {
  if (/^apiserver_requested_deprecated_apis\{/m.test(text)) return { metrics: text };
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (
    lines.length > 0 &&
    lines.every((line) => line.trimStart().startsWith("{")) &&
    lines.some((line) => line.includes('"k8s.io/deprecated"'))
  )
    return { auditLog: text };
  const list = /"kind":\s*"List"/.test(text);
  if (list && (/"owner":\s*"helm"/.test(text) || APPLIED_ANNOTATIONS.test(text))) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    return /"owner":\s*"helm"/.test(text) ? { helmReleases: parsed } : { objects: parsed };
  }
  return undefined;
}

function phaseWords(phase: string | null | undefined): string {
  return phase === "ALREADY_REMOVED"
    ? " (already removed before the upgrade)"
    : phase === "REMOVED_IN_UPGRADE"
      ? " (breaks within the upgrade)"
      : "";
}

function runClusterScan(snapshot: KbSnapshot, inputs: ClusterInputs, to: string): ChatReplyDoc {
  const report = scanCluster(snapshot, inputs, to);
  const findings: Finding[] = report.findings.map((entry) => ({
    code: entry.code,
    check: checkOf(entry.code),
    severity: entry.severity,
    component: null,
    instance: null,
    message: `[${entry.evidence}] ${entry.message}`,
    sourceUrl: entry.sourceUrl,
    ruleId: null,
  }));
  const all = [...findings, ...report.notes];
  const headline =
    report.status === "NOT_JUDGED"
      ? `❔ Nothing judged for ${report.targetVersion}`
      : report.status === "UNSUPPORTED"
        ? `❌ What runs breaks at ${report.targetVersion}`
        : report.status === "SUPPORTED"
          ? `✅ Nothing that runs breaks at ${report.targetVersion}`
          : `⚠️ Deprecated APIs in use at ${report.targetVersion}`;
  return {
    headline,
    sections: [
      {
        style: "plain",
        lines: [
          [
            `${report.releases.length > 0 ? `${report.releases.length} Helm releases read; ` : ""}${countWords(all)}`,
          ],
        ],
      },
      ...(all.length > 0 ? [findingsSection(all)] : []),
    ],
    context: [revision(snapshot)],
  };
}

export function runScan(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "scan" }>,
): ChatReplyDoc {
  const cluster = clusterSnippet(command.manifests);
  if (cluster !== undefined) return runClusterScan(snapshot, cluster, command.to);
  const report = scanManifests(snapshot, command.manifests, command.to, {
    fromVersion: command.from,
  });
  const findings: Finding[] = [...report.findings, ...report.changeFindings].map((entry) => ({
    code: entry.code,
    check: checkOf(entry.code),
    severity: entry.severity,
    component: null,
    instance: null,
    message: `document ${entry.documentIndex + 1}, line ${entry.line}${phaseWords("phase" in entry ? entry.phase : null)}: ${entry.message}`,
    sourceUrl: entry.sourceUrl,
    ruleId: null,
  }));
  const headline =
    report.status === "NOT_JUDGED"
      ? `❔ Nothing judged for ${report.targetVersion}`
      : report.status === "UNSUPPORTED"
        ? report.findings.some((entry) => entry.code === "API_REMOVED")
          ? `❌ Removed APIs at ${report.targetVersion}`
          : `❌ Not ready for ${report.targetVersion}`
        : report.status === "SUPPORTED"
          ? `✅ Nothing removed at ${report.targetVersion}`
          : `⚠️ Deprecated APIs at ${report.targetVersion}`;
  const all = [...findings, ...report.notes];
  return {
    headline,
    sections: [
      {
        style: "plain",
        lines: [
          [
            `${report.documentsScanned} documents, ${report.objectsScanned} objects scanned${command.from === undefined ? "" : ` for ${command.from} → ${report.targetVersion}`}; ${countWords(all)}${report.complete ? "" : "; some documents could not be read"}`,
          ],
        ],
      },
      ...(all.length > 0 ? [findingsSection(all)] : []),
    ],
    context: [revision(snapshot)],
  };
}
