/**
 * The kubelet's configuration judged at the pool's kubelet version: each flag
 * and KubeletConfiguration field against kb/flag-changes.yaml (removed,
 * deprecated, unknown), the feature gates against kb/feature-gates.yaml, and
 * the KubeletConfiguration's apiVersion against kb/configuration-apis.yaml.
 * A removed flag or config API is an error because the kubelet refuses to
 * start with it, which takes the whole pool down at once.
 */
import { formatVersion, minorIndex, minorOf } from "../core/versions.js";
import type { FlagChangeRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { judgeFeatureGates } from "./feature-gates.js";
import { finding, type Finding } from "./findings.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import { atOrBefore, type NodePool } from "./node-pool-spec.js";

/** Flags and config fields of the pool judged at its kubelet version, on `asOf`. */
export function checkConfiguration(
  snapshot: KbSnapshot,
  pool: NodePool,
  direction: "upgrade" | "rollback",
  asOf: string,
): Finding[] {
  const findings: Finding[] = [];
  const kubeletChanges = snapshot.flagChanges.filter((change) => change.component === "kubelet");
  const byFlag = new Map<string, FlagChangeRecord[]>();
  for (const change of kubeletChanges)
    if (change.flag !== null)
      byFlag.set(change.flag.split("=")[0]!, [
        ...(byFlag.get(change.flag.split("=")[0]!) ?? []),
        change,
      ]);
  const at = formatVersion(pool.kubelet);
  for (const flag of pool.flags) {
    if (flag.name === "--feature-gates") continue;
    const candidates = byFlag.get(flag.name) ?? [];
    // A record for one value (--proxy-mode=ipvs) applies only to that value.
    const change =
      candidates.find((candidate) => candidate.flag === flag.text) ??
      candidates.find((candidate) => candidate.flag === flag.name);
    if (change === undefined) {
      findings.push(
        finding({
          code: "FLAG_UNKNOWN",
          severity: "INFO",
          component: "kubelet",
          instance: pool.name,
          message: `${flag.name} is not in the knowledge base, so it was not checked for kubelet ${at}`,
        }),
      );
      continue;
    }
    findings.push(...judgeChange(change, flag.name, "flag", pool, direction));
  }
  for (const field of pool.configFields) {
    const change = kubeletChanges.find(
      (candidate) =>
        candidate.configField === field &&
        (candidate.removedIn !== null || candidate.deprecatedIn !== null),
    );
    if (change !== undefined)
      findings.push(...judgeChange(change, field, "config field", pool, direction));
  }
  findings.push(
    ...judgeFeatureGates(
      snapshot,
      pool.featureGates,
      minorOf(pool.kubelet),
      { component: "kubelet", instance: pool.name },
      asOf,
    ),
  );
  findings.push(...checkConfigApiVersion(snapshot, pool));
  if (pool.flags.length > 0 || pool.configFields.length > 0) {
    const edge = knowledgeEdge(
      snapshot,
      "flagChanges",
      minorOf(pool.kubelet),
      `the flags and configuration of kubelet@${pool.name} ${at}`,
      asOf,
      { component: "kubelet", instance: pool.name },
    );
    if (edge !== undefined) findings.push(edge);
  }
  return findings;
}

/** The KubeletConfiguration's apiVersion against what the pool's kubelet reads (kb/configuration-apis.yaml). */
function checkConfigApiVersion(snapshot: KbSnapshot, pool: NodePool): Finding[] {
  if (pool.configApiVersion === null) return [];
  const at = minorOf(pool.kubelet);
  const record = snapshot.configurationApis.find(
    (candidate) =>
      candidate.kind === "KubeletConfiguration" && candidate.apiVersion === pool.configApiVersion,
  );
  const base = { component: "kubelet", instance: pool.name };
  if (record === undefined) {
    const known = snapshot.configurationApis
      .filter((candidate) => candidate.kind === "KubeletConfiguration")
      .map((candidate) => candidate.apiVersion);
    return [
      finding({
        ...base,
        code: "CONFIG_API_NOT_AVAILABLE",
        severity: "ERROR",
        message: `the KubeletConfiguration's apiVersion ${pool.configApiVersion.slice(0, 80)} is not one the kubelet reads${known.length === 0 ? "" : ` (known: ${known.join(", ")})`}; kubelet ${at} refuses to start with it`,
      }),
    ];
  }
  const cite = {
    ...base,
    sourceUrl: record.sourceUrl,
    ruleId: `${record.kind} ${record.apiVersion}`,
  };
  const moveTo = record.replacement === null ? "" : `; move it to ${record.replacement}`;
  if (atOrBefore(record.removedIn, pool.kubelet)) {
    return [
      finding({
        ...cite,
        code: "CONFIG_API_REMOVED",
        severity: "ERROR",
        message: `the KubeletConfiguration uses ${record.apiVersion}, which the kubelet no longer reads from ${record.removedIn}: kubelet ${at} refuses to start with it${moveTo}`,
      }),
    ];
  }
  if (record.introducedIn !== null && minorIndex(record.introducedIn) > minorIndex(pool.kubelet)) {
    return [
      finding({
        ...cite,
        code: "CONFIG_API_NOT_AVAILABLE",
        severity: "ERROR",
        message: `the KubeletConfiguration uses ${record.apiVersion}, which the kubelet reads only from ${record.introducedIn}: kubelet ${at} refuses to start with it`,
      }),
    ];
  }
  if (atOrBefore(record.deprecatedIn, pool.kubelet)) {
    return [
      finding({
        ...cite,
        code: "CONFIG_API_DEPRECATED",
        severity: "WARNING",
        message: `the KubeletConfiguration uses ${record.apiVersion}, deprecated since ${record.deprecatedIn}${moveTo}`,
      }),
    ];
  }
  return [];
}

function judgeChange(
  change: FlagChangeRecord,
  what: string,
  kind: "flag" | "config field",
  pool: NodePool,
  direction: "upgrade" | "rollback",
): Finding[] {
  const at = formatVersion(pool.kubelet);
  const instead =
    [
      change.replacementFlag ? `use ${change.replacementFlag}` : null,
      change.replacementConfigField
        ? `set ${change.replacementConfigField} in the KubeletConfiguration`
        : null,
    ]
      .filter(Boolean)
      .join(" or ") || "drop it";
  const base = {
    component: "kubelet",
    instance: pool.name,
    sourceUrl: change.sourceUrl,
    ruleId: change.id,
  };
  const code = kind === "flag" ? "FLAG" : "CONFIG_FIELD";
  if (atOrBefore(change.removedIn, pool.kubelet)) {
    return [
      finding({
        ...base,
        code: `${code}_REMOVED`,
        severity: "ERROR",
        message: `${kind} ${what} was removed in Kubernetes ${change.removedIn}; kubelet ${at} ${kind === "flag" ? "refuses to start with it" : "rejects it"}: ${instead}.${direction === "rollback" ? "" : change.notes ? ` ${change.notes}` : ""}`,
      }),
    ];
  }
  const deprecated =
    atOrBefore(change.deprecatedIn, pool.kubelet) ||
    (change.deprecatedIn === null &&
      change.removedIn === null &&
      change.replacementConfigField !== null);
  if (deprecated && kind === "flag") {
    return [
      finding({
        ...base,
        code: "FLAG_DEPRECATED",
        severity: "WARNING",
        message: `${what} is deprecated${change.deprecatedIn ? ` since ${change.deprecatedIn}` : ""}${change.removedIn ? ` and removed in ${change.removedIn}` : ""}: ${instead}.`,
      }),
    ];
  }
  if (deprecated) {
    return [
      finding({
        ...base,
        code: "CONFIG_FIELD_DEPRECATED",
        severity: "WARNING",
        message: `${what} is deprecated${change.deprecatedIn ? ` since ${change.deprecatedIn}` : ""}: ${instead}.`,
      }),
    ];
  }
  return [];
}
