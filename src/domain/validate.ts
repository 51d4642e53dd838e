/**
 * validateCluster: is this combination of component versions supported?
 * Judges a plan against the skew rules in force for its control-plane
 * version (in the chosen policy profile and the ones it extends), the runtime
 * requirements for each kubelet, and the release calendar on `asOf`. Every
 * finding cites the rule and its source. Pure: reads only the snapshot.
 */
import { InputError } from "../core/errors.js";
import type { RuntimeRequirementRecord, SkewRuleRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { resolveProfile, ruleAppliesAt } from "./catalog.js";
import { entriesOf, label, parseClusterPlan, type ClusterPlan, type PlannedComponent } from "./cluster-plan.js";
import { finding, report, skewCode, type Finding, type ValidationReport } from "./findings.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import { nearestName } from "./names.js";
import { checkKubeletCgroup, checkRuntimeCgroup, checkRuntimeEndOfLife } from "./node-checks.js";
import { compareComponentVersions, minorIndex, parseComponentVersion, type ComponentVersion, type KubernetesVersion } from "../core/versions.js";

export interface ValidateOptions {
  readonly profile?: string | null | undefined;
  /** The day to judge end of life on, `YYYY-MM-DD` (default: today, UTC). */
  readonly asOf?: string | null | undefined;
  /** How the caller names the component list, for error messages (`components`, `plan.components`). */
  readonly field?: string;
}

export function validateCluster(snapshot: KbSnapshot, components: unknown, options: ValidateOptions = {}): ValidationReport {
  const asOf = parseAsOf(options.asOf);
  const plan = parseClusterPlan(snapshot, components, options.field, asOf);
  const profile = resolveProfile(snapshot, options.profile ?? undefined);
  return report(snapshot.revision, judgePlan(snapshot, plan, profile, asOf));
}

const DAY_MS = 86_400_000;
let currentDay = "";
let currentDayEnds = 0;

/** Today's date in UTC, `YYYY-MM-DD`; formatted once a day (it is part of every remembered answer's key). */
export function today(): string {
  const now = Date.now();
  if (now >= currentDayEnds || now < currentDayEnds - DAY_MS) {
    currentDay = new Date(now).toISOString().slice(0, 10);
    currentDayEnds = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  }
  return currentDay;
}

export function parseAsOf(asOf: string | null | undefined, field = "asOf"): string {
  if (asOf === undefined || asOf === null || asOf.trim() === "") return today();
  const text = asOf.trim();
  const match = /^(\d{4}-\d{2}-\d{2})(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.exec(text);
  const parsed = match ? new Date(match[2] ? text : `${match[1]}T00:00:00Z`) : undefined;
  if (!match || !parsed || Number.isNaN(parsed.getTime()) || !(match[2] || parsed.toISOString().startsWith(match[1]!))) {
    throw new InputError(`${field} "${text.slice(0, 40)}" is not a date; write it as YYYY-MM-DD, e.g. 2026-01-31`, field);
  }
  return parsed.toISOString().slice(0, 10);
}

/** All findings for an already parsed plan; the planner calls this after every step. */
export function judgePlan(snapshot: KbSnapshot, plan: ClusterPlan, profile: string, asOf: string): Finding[] {
  const findings: Finding[] = [];
  const apiservers = kubernetesEntries(plan, "kube-apiserver");
  const policyMinor = controlPlaneMinor(plan);
  const rules = policyMinor === null ? [] : rulesInForce(snapshot, profile, policyMinor);

  if (apiservers.length === 0 && plan.entries.some((entry) => entry.kubernetes !== null)) {
    findings.push(
      finding({
        code: "NO_APISERVER_IN_PLAN",
        severity: "INFO",
        message: "the plan names no kube-apiserver, so nothing was checked against the control plane; add kube-apiserver with its version",
      }),
    );
  }
  if (apiservers.length > 0 && policyMinor !== null) {
    findings.push(...checkApiserverSpread(apiservers, rules, policyMinor, profile));
    findings.push(...checkAgainstApiservers(plan, apiservers, rules, policyMinor, profile));
  }
  if (policyMinor !== null) findings.push(...checkKubeProxyAgainstKubelet(plan, rules, policyMinor, profile));
  findings.push(...checkRuntimes(snapshot, plan));
  findings.push(...checkNodes(snapshot, plan, asOf));
  findings.push(...checkReleases(snapshot, plan, asOf));
  findings.push(...knowledgeEdges(snapshot, plan));
  return dedupe(findings);
}

type VersionedEntry = PlannedComponent & { readonly kubernetes: KubernetesVersion };

function kubernetesEntries(plan: ClusterPlan, component: string): VersionedEntry[] {
  return entriesOf(plan, component).filter((entry): entry is VersionedEntry => entry.kubernetes !== null);
}

/** The minor whose policy applies: the newest kube-apiserver's (or, without one, the newest kubelet's). */
export function controlPlaneMinor(plan: ClusterPlan): string | null {
  for (const component of ["kube-apiserver", "kubelet", "kube-proxy"]) {
    const entries = kubernetesEntries(plan, component);
    if (entries.length > 0) {
      const newest = entries.reduce((a, b) => (minorIndex(a.kubernetes) >= minorIndex(b.kubernetes) ? a : b));
      return `${newest.kubernetes.major}.${newest.kubernetes.minor}`;
    }
  }
  return null;
}

export function rulesInForce(snapshot: KbSnapshot, profile: string, minor: string): SkewRuleRecord[] {
  const profiles = new Set(snapshot.profileChain(profile).map((entry) => entry.name));
  return snapshot.skewRules.filter((rule) => profiles.has(rule.profile) && ruleAppliesAt(rule, minor));
}

function minorText(version: KubernetesVersion): string {
  return `${version.major}.${version.minor}`;
}

function policyWords(rule: SkewRuleRecord, minor: string): string {
  return `the ${rule.profile} policy for ${minor} control planes (rule ${rule.id})`;
}

function checkApiserverSpread(apiservers: VersionedEntry[], rules: SkewRuleRecord[], minor: string, profile: string): Finding[] {
  const peerRules = rules.filter((rule) => rule.component === "kube-apiserver" && rule.relativeTo === "kube-apiserver-peers");
  if (peerRules.length === 0 || apiservers.length < 2) return [];
  const binding = peerRules.reduce((a, b) => (b.maxNewer < a.maxNewer ? b : a));
  const oldest = apiservers.reduce((a, b) => (minorIndex(b.kubernetes) < minorIndex(a.kubernetes) ? b : a));
  const newest = apiservers.reduce((a, b) => (minorIndex(b.kubernetes) > minorIndex(a.kubernetes) ? b : a));
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
  if (rule.condition !== null && minorIndex(version) < minorIndex(rule.condition.componentOlderThan)) return rule.condition.maxOlder;
  return rule.maxOlder;
}

function checkAgainstApiservers(
  plan: ClusterPlan,
  apiservers: VersionedEntry[],
  rules: SkewRuleRecord[],
  minor: string,
  profile: string,
): Finding[] {
  const findings: Finding[] = [];
  const bound = {
    OLDEST: apiservers.reduce((a, b) => (minorIndex(b.kubernetes) < minorIndex(a.kubernetes) ? b : a)),
    NEWEST: apiservers.reduce((a, b) => (minorIndex(b.kubernetes) > minorIndex(a.kubernetes) ? b : a)),
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
          message: `${label(entry)} ${entry.version} is ${ahead} minor${ahead === 1 ? "" : "s"} newer than ${boundWord[newer.rule.newerMeasuredFrom ?? "OLDEST"]} (${label(newer.reference)} ${newer.reference.version}); ${policyWords(newer.rule, minor)} allows ${newer.rule.maxNewer === 0 ? "none" : `at most ${newer.rule.maxNewer}`}${profile === newer.rule.profile ? "" : ` (profile ${profile})`}. Upgrade the control plane first, or keep ${entry.component} at ${minorText(newer.reference.kubernetes)}${newer.rule.maxNewer > 0 ? ` to ${allowedMinor(newer.allowed)}` : ""}.`,
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
          const limit = rule.condition !== null && index < minorIndex(rule.condition.componentOlderThan) ? rule.condition.maxOlder : rule.maxOlder;
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

function checkKubeProxyAgainstKubelet(plan: ClusterPlan, rules: SkewRuleRecord[], minor: string, profile: string): Finding[] {
  const proxyRules = rules.filter((rule) => rule.component === "kube-proxy" && rule.relativeTo === "kubelet");
  if (proxyRules.length === 0) return [];
  const findings: Finding[] = [];
  const kubeletByInstance = new Map<string | null, VersionedEntry>();
  for (const kubelet of kubernetesEntries(plan, "kubelet")) if (!kubeletByInstance.has(kubelet.instance)) kubeletByInstance.set(kubelet.instance, kubelet);
  for (const proxy of kubernetesEntries(plan, "kube-proxy")) {
    const kubelet = kubeletByInstance.get(proxy.instance);
    if (kubelet === undefined) {
      if (kubeletByInstance.size > 0) findings.push(unpaired(proxy, "its skew against the kubelet", [...kubeletByInstance.values()]));
      continue;
    }
    const distance = minorIndex(proxy.kubernetes) - minorIndex(kubelet.kubernetes);
    // The policy's limit for old kube-proxy (< 1.25: two minors) holds in both directions.
    const limits = proxyRules.map((rule) => {
      const narrowed = rule.condition !== null && minorIndex(proxy.kubernetes) < minorIndex(rule.condition.componentOlderThan);
      return {
        rule,
        newer: narrowed ? Math.min(rule.maxNewer, rule.condition?.maxOlder ?? rule.maxNewer) : rule.maxNewer,
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

/**
 * Lookups over one plan, built once per judgement: a plan may hold a
 * thousand entries and the planner judges one after every step, so nothing
 * here may cost a scan of the plan per entry.
 */
interface RuntimeIndex {
  readonly kubelets: readonly VersionedEntry[];
  readonly kubeletsByInstance: ReadonlyMap<string | null, VersionedEntry[]>;
  /** Instances (not null) that have an entry of the category. */
  readonly instancesByCategory: ReadonlyMap<string, ReadonlySet<string>>;
  /** `component@instance` → entry (instance empty when null). */
  readonly byComponentInstance: ReadonlyMap<string, PlannedComponent>;
}

function runtimeIndex(plan: ClusterPlan): RuntimeIndex {
  const kubelets = kubernetesEntries(plan, "kubelet");
  const kubeletsByInstance = new Map<string | null, VersionedEntry[]>();
  for (const kubelet of kubelets) {
    const list = kubeletsByInstance.get(kubelet.instance);
    if (list === undefined) kubeletsByInstance.set(kubelet.instance, [kubelet]);
    else list.push(kubelet);
  }
  const instancesByCategory = new Map<string, Set<string>>();
  const byComponentInstance = new Map<string, PlannedComponent>();
  for (const entry of plan.entries) {
    const key = `${entry.component}@${entry.instance ?? ""}`;
    if (!byComponentInstance.has(key)) byComponentInstance.set(key, entry);
    if (entry.instance === null) continue;
    const instances = instancesByCategory.get(entry.category);
    if (instances === undefined) instancesByCategory.set(entry.category, new Set([entry.instance]));
    else instances.add(entry.instance);
  }
  return { kubelets, kubeletsByInstance, instancesByCategory, byComponentInstance };
}

/** Which kubelets a runtime serves: same instance; a runtime without instance serves kubelets that have no runtime of their own. */
function kubeletsServedBy(index: RuntimeIndex, runtime: PlannedComponent): readonly VersionedEntry[] {
  const sameInstance = index.kubeletsByInstance.get(runtime.instance) ?? [];
  if (sameInstance.length > 0 || runtime.instance !== null) return sameInstance;
  const withOwnRuntime = index.instancesByCategory.get(runtime.category);
  return index.kubelets.filter((kubelet) => kubelet.instance === null || withOwnRuntime === undefined || !withOwnRuntime.has(kubelet.instance));
}

function checkRuntimes(snapshot: KbSnapshot, plan: ClusterPlan): Finding[] {
  const findings: Finding[] = [];
  const apiservers = kubernetesEntries(plan, "kube-apiserver");
  const index = runtimeIndex(plan);
  for (const runtime of plan.entries) {
    if (runtime.release === null) continue;
    const requirements = snapshot.runtimeRequirements.filter((requirement) => requirement.component === runtime.component);
    if (requirements.length === 0) continue;
    // etcd serves the apiservers; container runtimes serve kubelets.
    const consumers = runtime.category === "datastore" ? apiservers : kubeletsServedBy(index, runtime);
    if (consumers.length === 0) {
      if (runtime.category !== "datastore" && index.kubelets.length > 0) {
        findings.push(unpaired(runtime, "its requirements", index.kubelets));
      }
      continue;
    }
    for (const consumer of consumers) {
      findings.push(...checkRuntimeFor(index, runtime, consumer, requirements));
    }
  }
  return findings;
}

/**
 * "1.3" where "1.30" was meant: YAML and JSON read an unquoted 1.30 as the
 * number 1.3. When the minor times ten is a release the knowledge base
 * knows, say so.
 */
function eatenZero(snapshot: KbSnapshot, entry: PlannedComponent): string {
  const version = entry.kubernetes;
  if (version === null || version.patch !== null || version.minor >= 10) return "";
  const meant = `${version.major}.${version.minor * 10}`;
  return snapshot.findRelease(meant) === undefined ? "" : `. Did you mean ${meant}? An unquoted 1.30 in YAML or JSON is the number 1.3: quote versions ("${meant}")`;
}

/**
 * A runtime or kube-proxy on an instance that has no kubelet: what could not
 * be checked is a WARNING (a typo in an instance name must not turn a plan
 * green), with the nearest kubelet instance as the likely meaning.
 */
function unpaired(entry: PlannedComponent, what: string, kubelets: readonly PlannedComponent[]): Finding {
  const names = kubelets.map((kubelet) => kubelet.instance).filter((name): name is string => name !== null);
  const meant = entry.instance === null ? null : nearestName(entry.instance, names, 3);
  return finding({
    code: entry.category === "network-proxy" ? "KUBE_PROXY_NOT_CHECKED" : "RUNTIME_NOT_CHECKED",
    severity: "WARNING",
    component: entry.component,
    instance: entry.instance,
    message: `${label(entry)} ${entry.version} has no kubelet on the same instance, so ${what} ${what.endsWith("s") ? "were" : "was"} not checked${meant === null ? `; give it the instance name of its kubelet (${names.length > 0 ? names.join(", ") : "the kubelets have no instance name"})` : `: did you mean ${meant}?`}`,
  });
}

/** cgroup v1 nodes (what the plan says of each kubelet, and of the runtimes on its instance) and runtimes past their own end of life. */
function checkNodes(snapshot: KbSnapshot, plan: ClusterPlan, asOf: string): Finding[] {
  const findings: Finding[] = [];
  const kubelets = kubernetesEntries(plan, "kubelet");
  for (const kubelet of kubelets) {
    if (kubelet.node === undefined) continue;
    findings.push(...checkKubeletCgroup(snapshot, kubelet, kubelet.node));
    for (const runtime of plan.entries) {
      if (runtime.category === "container-runtime" && runtime.instance === kubelet.instance) findings.push(...checkRuntimeCgroup(snapshot, runtime, kubelet.node));
    }
  }
  for (const runtime of plan.entries) {
    if (runtime.category === "container-runtime") findings.push(...checkRuntimeEndOfLife(snapshot, runtime, asOf));
  }
  return findings;
}

/**
 * Minors beyond what the knowledge covers: the skew rules for the control
 * plane's minor, and the runtime requirements and node facts for each
 * kubelet's minor (only where a runtime or a node fact was given to judge).
 */
function knowledgeEdges(snapshot: KbSnapshot, plan: ClusterPlan): Finding[] {
  const findings: Array<Finding | undefined> = [];
  const minor = controlPlaneMinor(plan);
  if (minor !== null) findings.push(knowledgeEdge(snapshot, "skewRules", minor, `kube-apiserver ${minor}`, { component: "kube-apiserver" }));
  const hasRuntime = (instance: string | null) => plan.entries.some((entry) => entry.category === "container-runtime" && (entry.instance === instance || entry.instance === null || instance === null));
  for (const kubelet of kubernetesEntries(plan, "kubelet")) {
    const kubeletMinor = minorText(kubelet.kubernetes);
    const about = `${label(kubelet)} ${kubelet.version}`;
    if (hasRuntime(kubelet.instance)) findings.push(knowledgeEdge(snapshot, "runtimeRequirements", kubeletMinor, about, kubelet));
    if (kubelet.node?.cgroupVersion === "v1") findings.push(knowledgeEdge(snapshot, "hostRequirements", kubeletMinor, about, kubelet));
  }
  return findings.filter((entry): entry is Finding => entry !== undefined);
}

/**
 * The version a recommendation table asks of this runtime: its own release
 * line's floor when the table lists that line, else the lowest floor (a line
 * older than all listed is below it; a newer one passes it).
 */
function recommendedFloor(recommendation: RuntimeRequirementRecord, release: ComponentVersion): string | null {
  const sameLine = recommendation.lineMinVersions.find((floor) => {
    const version = parseComponentVersion(floor);
    return version.major === release.major && version.minor === release.minor;
  });
  return sameLine ?? recommendation.minVersion;
}

function checkRuntimeFor(
  index: RuntimeIndex,
  runtime: PlannedComponent,
  consumer: VersionedEntry,
  requirements: RuntimeRequirementRecord[],
): Finding[] {
  const release = runtime.release!;
  const atMinor = minorIndex(consumer.kubernetes);
  const inForce = requirements.filter((requirement) => minorIndex(requirement.kubernetesFrom) <= atMinor);
  const consumerWords = `${label(consumer)} ${consumer.version}`;
  const below = (requirement: RuntimeRequirementRecord): boolean =>
    requirement.minVersion !== null && compareComponentVersions(release, parseComponentVersion(requirement.minVersion)) < 0;
  const findings: Finding[] = [];
  const base = (requirement: RuntimeRequirementRecord) => ({
    component: runtime.component,
    instance: runtime.instance,
    sourceUrl: requirement.sourceUrl,
    ruleId: requirement.id,
  });

  for (const requirement of inForce) {
    switch (requirement.kind) {
      case "REQUIRES_SHIM": {
        const shim =
          index.byComponentInstance.get(`${requirement.requires}@${runtime.instance ?? ""}`) ?? index.byComponentInstance.get(`${requirement.requires}@`);
        if (shim === undefined) {
          findings.push(
            finding({
              ...base(requirement),
              code: "RUNTIME_DOCKERSHIM_REMOVED",
              severity: "ERROR",
              message: `${label(runtime)} ${runtime.version} cannot serve ${consumerWords}: from Kubernetes ${requirement.kubernetesFrom} the kubelet needs ${requirement.requires} in front of it. Add ${requirement.requires} to ${runtime.instance ?? "the nodes"} or move to containerd or CRI-O.`,
            }),
          );
        }
        break;
      }
      case "MIN_VERSION":
        if (below(requirement)) {
          findings.push(
            finding({
              ...base(requirement),
              code: runtime.category === "datastore" ? "RUNTIME_UNSUPPORTED" : "RUNTIME_VERSION_TOO_OLD",
              severity: "ERROR",
              message: `${label(runtime)} ${runtime.version} is too old for ${consumerWords}: from Kubernetes ${requirement.kubernetesFrom}, ${runtime.component} ${requirement.minVersion} or newer is required. Upgrade ${runtime.component} before the kubelet.`,
            }),
          );
        }
        break;
      case "UNSUPPORTED":
        if (requirement.minVersion === null || below(requirement)) {
          findings.push(
            finding({
              ...base(requirement),
              code: "RUNTIME_UNSUPPORTED",
              severity: "ERROR",
              message: `${label(runtime)} ${runtime.version} is not supported with ${consumerWords}: ${requirement.summary}`,
            }),
          );
        }
        break;
      case "MATCH_KUBERNETES_MINOR":
        if (release.major !== consumer.kubernetes.major || release.minor !== consumer.kubernetes.minor) {
          findings.push(
            finding({
              ...base(requirement),
              code: "RUNTIME_MINOR_MISMATCH",
              severity: "WARNING",
              message: `${label(runtime)} ${runtime.version} runs under ${consumerWords}; ${runtime.component} ${release.major}.${release.minor} is made for Kubernetes ${release.major}.${release.minor}. Use ${runtime.component} ${consumer.kubernetes.major}.${consumer.kubernetes.minor}.`,
            }),
          );
        }
        break;
      case "RECOMMENDED_MIN_VERSION":
      case "SUPPORT_ENDING":
        break;
    }
  }
  const hardFailure = findings.some((entry) => entry.severity === "ERROR");

  // Only the newest recommendation table row at or below this minor applies.
  const recommendation = inForce
    .filter((requirement) => requirement.kind === "RECOMMENDED_MIN_VERSION")
    .reduce<RuntimeRequirementRecord | undefined>((a, b) => (a === undefined || minorIndex(b.kubernetesFrom) > minorIndex(a.kubernetesFrom) ? b : a), undefined);
  const floor = recommendation === undefined ? null : recommendedFloor(recommendation, release);
  if (!hardFailure && recommendation !== undefined && floor !== null && compareComponentVersions(release, parseComponentVersion(floor)) < 0) {
    const floorVersion = parseComponentVersion(floor);
    const ownLine = floorVersion.major === release.major && floorVersion.minor === release.minor;
    const line = ownLine
      ? ` on the ${release.major}.${release.minor} line`
      : recommendation.lineMinVersions.length > 0
        ? `; the ${release.major}.${release.minor} line is not listed`
        : "";
    findings.push(
      finding({
        ...base(recommendation),
        code: "RUNTIME_BELOW_RECOMMENDED",
        severity: "WARNING",
        message: `${label(runtime)} ${runtime.version} is older than ${runtime.component} lists for Kubernetes ${recommendation.kubernetesFrom} (${floor} or newer${line}): ${recommendation.summary}`,
      }),
    );
  }

  // A "support is ending" notice is moot once a later requirement of the same runtime is in force.
  for (const ending of inForce.filter((requirement) => requirement.kind === "SUPPORT_ENDING")) {
    const superseded = inForce.some(
      (other) =>
        other.kind !== "SUPPORT_ENDING" &&
        other.kind !== "RECOMMENDED_MIN_VERSION" &&
        minorIndex(other.kubernetesFrom) > minorIndex(ending.kubernetesFrom),
    );
    if (!superseded && !hardFailure && (ending.minVersion === null || below(ending))) {
      findings.push(
        finding({
          ...base(ending),
          code: "RUNTIME_SUPPORT_ENDING",
          severity: "WARNING",
          message: `${label(runtime)} ${runtime.version} with ${consumerWords}: ${ending.summary}`,
        }),
      );
    }
  }
  return findings;
}

function checkReleases(snapshot: KbSnapshot, plan: ClusterPlan, asOf: string): Finding[] {
  const findings: Finding[] = [];
  const oldest = snapshot.releases[0];
  const newest = snapshot.newestRelease;
  const pastEndOfLife = new Map<string, PlannedComponent[]>();
  const inMaintenance = new Map<string, PlannedComponent[]>();
  for (const entry of plan.entries) {
    if (entry.kubernetes === null) continue;
    const minor = minorText(entry.kubernetes);
    const release = snapshot.findRelease(minor);
    if (entry.kubernetes.prerelease !== null) {
      findings.push(
        finding({
          code: "VERSION_PRERELEASE",
          severity: "WARNING",
          component: entry.component,
          instance: entry.instance,
          message: `${label(entry)} ${entry.version} is a pre-release (${entry.kubernetes.prerelease}); pre-releases are for testing, not production`,
          sourceUrl: "https://kubernetes.io/releases/release/",
        }),
      );
    }
    if (release === undefined) {
      if (newest !== undefined && minorIndex(minor) > minorIndex(newest.version)) {
        findings.push(
          finding({
            code: "VERSION_UNKNOWN_NEWER",
            severity: "WARNING",
            component: entry.component,
            instance: entry.instance,
            message: `${label(entry)} ${entry.version} is newer than the newest release the knowledge base knows (${newest.version}); its skew was judged by the newest rules, its API removals and support dates are unknown`,
            sourceUrl: newest.sourceUrl,
          }),
        );
      } else if (oldest !== undefined && minorIndex(minor) < minorIndex(oldest.version)) {
        findings.push(
          finding({
            code: "VERSION_OLDER_THAN_KB",
            severity: "WARNING",
            component: entry.component,
            instance: entry.instance,
            message: `${label(entry)} ${entry.version} is older than the oldest release the knowledge base covers (${oldest.version}); ${minor} is long past its end of life${eatenZero(snapshot, entry)}`,
            sourceUrl: oldest.sourceUrl,
          }),
        );
      }
      continue;
    }
    if (release.endOfLife !== null && asOf > release.endOfLife) {
      append(pastEndOfLife, minor, entry);
    } else if (release.endOfStandardSupport !== null && asOf > release.endOfStandardSupport) {
      append(inMaintenance, minor, entry);
    }
  }
  // One finding per minor: the same date repeated for every pool says nothing new.
  const perMinor = (entries: PlannedComponent[]) =>
    entries.length === 1
      ? { component: entries[0]!.component, instance: entries[0]!.instance, who: `${label(entries[0]!)} ${entries[0]!.version}` }
      : { component: null, instance: null, who: entries.map((entry) => label(entry)).join(", ") };
  for (const [minor, entries] of pastEndOfLife) {
    const release = snapshot.findRelease(minor)!;
    const { component, instance, who } = perMinor(entries);
    findings.push(
      finding({
        code: "RELEASE_END_OF_LIFE",
        severity: "WARNING",
        component,
        instance,
        message: `Kubernetes ${minor} reached end of life on ${release.endOfLife} and gets no more patches (${who})`,
        sourceUrl: release.sourceUrl,
      }),
    );
  }
  for (const [minor, entries] of inMaintenance) {
    const release = snapshot.findRelease(minor)!;
    const { component, instance, who } = perMinor(entries);
    findings.push(
      finding({
        code: "RELEASE_MAINTENANCE_MODE",
        severity: "INFO",
        component,
        instance,
        message: `Kubernetes ${minor} left standard support on ${release.endOfStandardSupport} and is in maintenance mode until ${release.endOfLife ?? "its end of life"} (${who})`,
        sourceUrl: release.sourceUrl,
      }),
    );
  }
  return findings;
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((entry) => {
    const key = `${entry.code}|${entry.component}|${entry.instance}|${entry.ruleId}|${entry.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
