/**
 * The version-skew rules over a plan: which rules are in force for the
 * control plane's minor (in the chosen policy profile and the ones it
 * extends), how far kube-apiserver instances may drift apart, how far every
 * other component may be from the kube-apiservers, and kube-proxy from its
 * kubelet. Every finding cites its rule and source.
 */
import type { SkewRuleRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { ruleAppliesAt } from "./catalog.js";
import { kubernetesEntries, label, type ClusterPlan, type VersionedEntry } from "./cluster-plan.js";
import { finding, skewCode, type Finding } from "./findings.js";
import { unpaired } from "./runtime-checks.js";
import { minorIndex, minorOf, type KubernetesVersion } from "../core/versions.js";

/** The minor whose policy applies: the newest kube-apiserver's (or, without one, the newest kubelet's). */
export function controlPlaneMinor(plan: ClusterPlan): string | null {
  for (const component of ["kube-apiserver", "kubelet", "kube-proxy"]) {
    const entries = kubernetesEntries(plan, component);
    if (entries.length > 0) {
      const newest = entries.reduce((a, b) =>
        minorIndex(a.kubernetes) >= minorIndex(b.kubernetes) ? a : b,
      );
      return `${newest.kubernetes.major}.${newest.kubernetes.minor}`;
    }
  }
  return null;
}

export function rulesInForce(
  snapshot: KbSnapshot,
  profile: string,
  minor: string,
): SkewRuleRecord[] {
  const profiles = new Set(snapshot.profileChain(profile).map((entry) => entry.name));
  return snapshot.skewRules.filter(
    (rule) => profiles.has(rule.profile) && ruleAppliesAt(rule, minor),
  );
}

function policyWords(rule: SkewRuleRecord, minor: string): string {
  return `the ${rule.profile} policy for ${minor} control planes (rule ${rule.id})`;
}

export function checkApiserverSpread(
  apiservers: VersionedEntry[],
  rules: SkewRuleRecord[],
  minor: string,
  profile: string,
): Finding[] {
  const peerRules = rules.filter(
    (rule) => rule.component === "kube-apiserver" && rule.relativeTo === "kube-apiserver-peers",
  );
  if (peerRules.length === 0 || apiservers.length < 2) return [];
  const binding = peerRules.reduce((a, b) => (b.maxNewer < a.maxNewer ? b : a));
  const oldest = apiservers.reduce((a, b) =>
    minorIndex(b.kubernetes) < minorIndex(a.kubernetes) ? b : a,
  );
  const newest = apiservers.reduce((a, b) =>
    minorIndex(b.kubernetes) > minorIndex(a.kubernetes) ? b : a,
  );
  const spread = minorIndex(newest.kubernetes) - minorIndex(oldest.kubernetes);
  if (spread <= binding.maxNewer) return [];
  return [
    finding({
      code: "SKEW_APISERVER_HA_SPREAD",
      severity: "ERROR",
      component: "kube-apiserver",
      instance: oldest.instance,
      message: `kube-apiserver instances are ${spread} minors apart (${label(oldest)} at ${oldest.version}, ${label(newest)} at ${newest.version}); ${policyWords(binding, minor)} allows at most ${binding.maxNewer}${profile === binding.profile ? "" : ` (profile ${profile})`}. Upgrade ${label(oldest)} first.`,
      sourceUrl: binding.sourceUrl,
      ruleId: binding.id,
    }),
  ];
}

/** The limit a rule puts on how far behind `version` may be (its condition narrows it for old versions). */
function olderLimit(rule: SkewRuleRecord, version: KubernetesVersion): number {
  if (
    rule.condition !== null &&
    minorIndex(version) < minorIndex(rule.condition.componentOlderThan)
  )
    return rule.condition.maxOlder;
  return rule.maxOlder;
}

export function checkAgainstApiservers(
  plan: ClusterPlan,
  apiservers: VersionedEntry[],
  rules: SkewRuleRecord[],
  minor: string,
  profile: string,
): Finding[] {
  const findings: Finding[] = [];
  const bound = {
    OLDEST: apiservers.reduce((a, b) =>
      minorIndex(b.kubernetes) < minorIndex(a.kubernetes) ? b : a,
    ),
    NEWEST: apiservers.reduce((a, b) =>
      minorIndex(b.kubernetes) > minorIndex(a.kubernetes) ? b : a,
    ),
  };
  const boundWord = { OLDEST: "the oldest kube-apiserver", NEWEST: "the newest kube-apiserver" };
  // Grouped once: plans may hold a thousand entries, and the planner judges a plan after every step.
  const rulesByComponent = new Map<string, SkewRuleRecord[]>();
  for (const rule of rules) {
    if (rule.relativeTo !== "kube-apiserver") continue;
    const list = rulesByComponent.get(rule.component);
    if (list === undefined) rulesByComponent.set(rule.component, [rule]);
    else list.push(rule);
  }
  for (const entry of plan.entries) {
    if (entry.kubernetes === null || entry.component === "kube-apiserver") continue;
    const version = entry.kubernetes;
    const componentRules = rulesByComponent.get(entry.component) ?? [];
    if (componentRules.length === 0) continue;
    // A client out of skew does not break the cluster, only that client.
    const severity = entry.category === "client" ? "WARNING" : "ERROR";

    const newer = componentRules
      .map((rule) => {
        const reference = bound[rule.newerMeasuredFrom ?? "OLDEST"];
        return { rule, reference, allowed: minorIndex(reference.kubernetes) + rule.maxNewer };
      })
      .reduce((a, b) => (b.allowed < a.allowed ? b : a));
    if (minorIndex(version) > newer.allowed) {
      const ahead = minorIndex(version) - minorIndex(newer.reference.kubernetes);
      findings.push(
        finding({
          code: skewCode(entry.component, "NEWER_THAN_APISERVER"),
          severity,
          component: entry.component,
          instance: entry.instance,
          message: `${label(entry)} ${entry.version} is ${ahead} minor${ahead === 1 ? "" : "s"} newer than ${boundWord[newer.rule.newerMeasuredFrom ?? "OLDEST"]} (${label(newer.reference)} ${newer.reference.version}); ${policyWords(newer.rule, minor)} allows ${newer.rule.maxNewer === 0 ? "none" : `at most ${newer.rule.maxNewer}`}${profile === newer.rule.profile ? "" : ` (profile ${profile})`}. Upgrade the control plane first, or keep ${entry.component} at ${minorOf(newer.reference.kubernetes)}${newer.rule.maxNewer > 0 ? ` to ${allowedMinor(newer.allowed)}` : ""}.`,
          sourceUrl: newer.rule.sourceUrl,
          ruleId: newer.rule.id,
        }),
      );
    }

    const older = componentRules
      .map((rule) => {
        const reference = bound[rule.olderMeasuredFrom ?? "NEWEST"];
        const limit = olderLimit(rule, version);
        return { rule, reference, limit, floor: minorIndex(reference.kubernetes) - limit };
      })
      .reduce((a, b) => (b.floor > a.floor ? b : a));
    if (minorIndex(version) < older.floor) {
      const behind = minorIndex(older.reference.kubernetes) - minorIndex(version);
      // The lowest minor every rule accepts (a condition may narrow the limit only for older versions).
      const accepted = (index: number): boolean =>
        componentRules.every((rule) => {
          const reference = minorIndex(bound[rule.olderMeasuredFrom ?? "NEWEST"].kubernetes);
          const limit =
            rule.condition !== null && index < minorIndex(rule.condition.componentOlderThan)
              ? rule.condition.maxOlder
              : rule.maxOlder;
          return index >= reference - limit;
        });
      let lowest = older.floor - 10;
      while (!accepted(lowest)) lowest += 1;
      const narrowed = older.limit !== older.rule.maxOlder;
      findings.push(
        finding({
          code: skewCode(entry.component, "TOO_OLD_FOR_APISERVER"),
          severity,
          component: entry.component,
          instance: entry.instance,
          message: `${label(entry)} ${entry.version} is ${behind} minors older than ${boundWord[older.rule.olderMeasuredFrom ?? "NEWEST"]} (${label(older.reference)} ${older.reference.version}); ${policyWords(older.rule, minor)} allows at most ${older.limit}${narrowed ? ` for ${entry.component} older than ${older.rule.condition?.componentOlderThan}` : ""}${profile === older.rule.profile ? "" : ` (profile ${profile})`}. Upgrade ${label(entry)} to at least ${allowedMinor(lowest)}.`,
          sourceUrl: older.rule.sourceUrl,
          ruleId: older.rule.id,
        }),
      );
    }
  }
  return findings;
}

function allowedMinor(index: number): string {
  return `${Math.floor(index / 1000)}.${index % 1000}`;
}

export function checkKubeProxyAgainstKubelet(
  plan: ClusterPlan,
  rules: SkewRuleRecord[],
  minor: string,
  profile: string,
): Finding[] {
  const proxyRules = rules.filter(
    (rule) => rule.component === "kube-proxy" && rule.relativeTo === "kubelet",
  );
  if (proxyRules.length === 0) return [];
  const findings: Finding[] = [];
  const kubeletByInstance = new Map<string | null, VersionedEntry>();
  for (const kubelet of kubernetesEntries(plan, "kubelet"))
    if (!kubeletByInstance.has(kubelet.instance)) kubeletByInstance.set(kubelet.instance, kubelet);
  for (const proxy of kubernetesEntries(plan, "kube-proxy")) {
    const kubelet = kubeletByInstance.get(proxy.instance);
    if (kubelet === undefined) {
      if (kubeletByInstance.size > 0)
        findings.push(
          unpaired(proxy, "its skew against the kubelet", [...kubeletByInstance.values()]),
        );
      continue;
    }
    const distance = minorIndex(proxy.kubernetes) - minorIndex(kubelet.kubernetes);
    // The policy's limit for old kube-proxy (< 1.25: two minors) holds in both directions.
    const limits = proxyRules.map((rule) => {
      const narrowed =
        rule.condition !== null &&
        minorIndex(proxy.kubernetes) < minorIndex(rule.condition.componentOlderThan);
      return {
        rule,
        newer: narrowed
          ? Math.min(rule.maxNewer, rule.condition?.maxOlder ?? rule.maxNewer)
          : rule.maxNewer,
        older: narrowed ? (rule.condition?.maxOlder ?? rule.maxOlder) : rule.maxOlder,
      };
    });
    const newer = limits.reduce((a, b) => (b.newer < a.newer ? b : a));
    const older = limits.reduce((a, b) => (b.older < a.older ? b : a));
    const where = proxy.instance === null ? "" : ` on ${proxy.instance}`;
    if (distance > newer.newer) {
      findings.push(
        finding({
          code: "SKEW_KUBE_PROXY_NEWER_THAN_KUBELET",
          severity: "ERROR",
          component: "kube-proxy",
          instance: proxy.instance,
          message: `kube-proxy ${proxy.version}${where} is ${distance} minor${distance === 1 ? "" : "s"} newer than its kubelet (${kubelet.version}); ${policyWords(newer.rule, minor)} allows ${newer.newer === 0 ? "none" : `at most ${newer.newer}`}${profile === newer.rule.profile ? "" : ` (profile ${profile})`}.`,
          sourceUrl: newer.rule.sourceUrl,
          ruleId: newer.rule.id,
        }),
      );
    }
    if (-distance > older.older) {
      findings.push(
        finding({
          code: "SKEW_KUBE_PROXY_OLDER_THAN_KUBELET",
          severity: "ERROR",
          component: "kube-proxy",
          instance: proxy.instance,
          message: `kube-proxy ${proxy.version}${where} is ${-distance} minor${distance === -1 ? "" : "s"} older than its kubelet (${kubelet.version}); ${policyWords(older.rule, minor)} allows ${older.older === 0 ? "none (the same minor)" : `at most ${older.older}`}${profile === older.rule.profile ? "" : ` (profile ${profile})`}. Upgrade kube-proxy${where} with its kubelet.`,
          sourceUrl: older.rule.sourceUrl,
          ruleId: older.rule.id,
        }),
      );
    }
  }
  return findings;
}
