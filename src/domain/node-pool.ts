/**
 * Node-pool upgrade and rollback checks: a pool is upgraded as one unit (a
 * node-pool chart: kubelet version, flags and config file, kube-proxy mode,
 * container runtime), and what breaks is what the design notes' node-pool
 * chapter (2.4-2.5) names: kubelet flags or config fields the new version no
 * longer accepts, a kube-proxy mode that is not available, a runtime the
 * kubelet cannot use, a chart whose kubeVersion excludes the target, skew
 * with the control plane, and on the way back the rollback trap. Pure: the
 * facts come from the snapshot (flagChanges, proxyModes, runtime
 * requirements, skew rules), the cluster-level rules from judgePlan.
 */
import semver from "semver";
import { parseDocument } from "yaml";
import {
  MAX_YAML_DEPTH,
  YamlCostMeter,
  firstDuplicateKey,
  yamlShapeProblem,
} from "../core/yaml-limits.js";
import { InputError } from "../core/errors.js";
import type { FlagChangeRecord, ProxyModeRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { resolveComponent, resolveProfile } from "./catalog.js";
import { plannedComponent, type NodeFacts, type PlannedComponent } from "./cluster-plan.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import { finding, report, type Finding, type Verdict } from "./findings.js";
import { judgePlan, onPlatform, parseAsOf } from "./validate.js";
import { isAbsent, readKubernetesVersion } from "./version-reader.js";
import {
  featureGateMap,
  judgeFeatureGates,
  parseFeatureGateList,
  type GateSetting,
} from "./feature-gates.js";
import {
  compareComponentVersions,
  formatVersion,
  minorIndex,
  type KubernetesVersion,
} from "../core/versions.js";

export interface NodePoolSpecInput {
  readonly name?: string | null;
  readonly kubeletVersion: string;
  /** As on a command line (`--max-pods=110`), a list or one pasted `ps`/systemd `ExecStart` line. */
  readonly kubeletFlags?: readonly string[] | string | null;
  /** The KubeletConfiguration YAML, optional. */
  readonly kubeletConfig?: string | null;
  readonly kubeProxyVersion?: string | null;
  readonly kubeProxyMode?: string | null;
  /** linux (default) or windows: proxy modes differ. */
  readonly os?: string | null;
  readonly runtime?: string | null;
  readonly runtimeVersion?: string | null;
  /** A Helm `kubeVersion` constraint such as `>=1.27.0-0 <1.31.0-0`. */
  readonly chartKubeVersion?: string | null;
  /** v1 or v2: the cgroup version of the pool's nodes. */
  readonly cgroupVersion?: string | null;
}

export interface NodePoolStep {
  readonly order: number;
  readonly action: string;
  readonly component: string | null;
  readonly fromVersion: string | null;
  readonly toVersion: string | null;
  readonly note: string;
}

export interface NodePoolReport {
  readonly ok: boolean;
  readonly status: Verdict;
  readonly kbRevision: number;
  readonly pool: string;
  readonly findings: readonly Finding[];
  readonly steps: readonly NodePoolStep[];
}

interface Flag {
  readonly name: string;
  readonly value: string | null;
  readonly text: string;
}

interface NodePool {
  readonly name: string;
  readonly kubelet: KubernetesVersion;
  readonly flags: readonly Flag[];
  readonly configFields: readonly string[];
  readonly configApiVersion: string | null;
  readonly featureGates: readonly GateSetting[];
  readonly kubeProxy: KubernetesVersion | null;
  readonly proxyMode: string | null;
  readonly os: "linux" | "windows";
  readonly runtime: PlannedComponent | null;
  readonly chartKubeVersion: string | null;
  readonly node: NodeFacts;
}

const MAX_FLAGS = 300;
const MAX_CONFIG_CHARS = 256 * 1024;

/** Splits a pasted command line into arguments, honouring quotes; keeps only `--flags`. */
export function parseFlags(
  input: readonly string[] | string | null | undefined,
  field: string,
): Flag[] {
  if (input === undefined || input === null) return [];
  const words: string[] = [];
  const lines = typeof input === "string" ? [input] : [...input];
  if (lines.length > MAX_FLAGS)
    throw new InputError(`${field} has ${lines.length} entries; at most ${MAX_FLAGS}`, field);
  for (const line of lines) {
    if (typeof line !== "string")
      throw new InputError(`${field} must be strings such as "--max-pods=110"`, field);
    if (line.length > 20_000)
      throw new InputError(`${field} has a line longer than 20000 characters`, field);
    // systemd unit lines: ExecStart=/usr/bin/kubelet ... with backslash continuations.
    const cleaned = line.replace(/\\\r?\n/g, " ").replace(/^\s*ExecStart=/i, "");
    for (const match of cleaned.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g))
      words.push(match[1] ?? match[2] ?? match[3] ?? "");
  }
  const flags: Flag[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index]!;
    if (!word.startsWith("--") || word === "--") continue;
    const equals = word.indexOf("=");
    const name = equals === -1 ? word : word.slice(0, equals);
    if (!/^--[a-z0-9][a-z0-9-]*$/.test(name))
      throw new InputError(`${field}: "${name.slice(0, 60)}" is not a flag name`, field);
    let value: string | null = equals === -1 ? null : word.slice(equals + 1);
    // `--flag value`: the next word is the value unless it is a flag itself.
    if (value === null && words[index + 1] !== undefined && !words[index + 1]!.startsWith("-")) {
      value = words[index + 1]!;
      index += 1;
    }
    flags.push({ name, value, text: value === null ? name : `${name}=${value}` });
  }
  if (flags.length > MAX_FLAGS)
    throw new InputError(`${field} has ${flags.length} flags; at most ${MAX_FLAGS}`, field);
  return flags;
}

/** What a node-pool check reads of a KubeletConfiguration: its top-level fields, its apiVersion and its featureGates. */
export interface KubeletConfigFacts {
  readonly fields: readonly string[];
  readonly apiVersion: string | null;
  readonly featureGates: readonly GateSetting[];
}

const NO_CONFIG: KubeletConfigFacts = { fields: [], apiVersion: null, featureGates: [] };

/** Top-level fields, apiVersion and featureGates of a KubeletConfiguration document. */
export function parseKubeletConfig(
  text: string | null | undefined,
  field: string,
): KubeletConfigFacts {
  if (text === undefined || text === null || text.trim() === "") return NO_CONFIG;
  if (text.length > MAX_CONFIG_CHARS)
    throw new InputError(`${field} is longer than ${MAX_CONFIG_CHARS} characters`, field);
  // Checked before composing: the composer recurses once per nesting level, and its own duplicate-key check is quadratic.
  const shape = yamlShapeProblem(text, MAX_YAML_DEPTH);
  if (shape !== null) {
    const problem =
      shape.problem === "syntax"
        ? `is not valid YAML: ${shape.message}`
        : shape.problem === "depth"
          ? `is nested more than ${MAX_YAML_DEPTH} levels deep`
          : `holds more than ${YamlCostMeter.describe(shape.problem)}`;
    throw new InputError(`${field} ${problem} (line ${shape.line})`, field);
  }
  let document: unknown;
  try {
    const parsed = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
    if (parsed.errors.length > 0) throw parsed.errors[0]!;
    if (firstDuplicateKey(parsed) !== null) throw new Error("Map keys must be unique");
    document = parsed.toJS({ maxAliasCount: 20 });
  } catch (error) {
    throw new InputError(
      `${field} is not valid YAML: ${(error as Error).message.split("\n")[0]}`,
      field,
    );
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    throw new InputError(
      `${field} must be a KubeletConfiguration mapping (kind: KubeletConfiguration)`,
      field,
    );
  }
  const config = document as Record<string, unknown>;
  if (config.kind !== undefined && config.kind !== "KubeletConfiguration") {
    throw new InputError(
      `${field} is a ${JSON.stringify(config.kind).slice(0, 60)}, not a KubeletConfiguration`,
      field,
    );
  }
  if (config.apiVersion !== undefined && typeof config.apiVersion !== "string")
    throw new InputError(
      `${field}.apiVersion must be a string such as kubelet.config.k8s.io/v1beta1`,
      `${field}.apiVersion`,
    );
  return {
    fields: Object.keys(config).filter((key) => key !== "kind" && key !== "apiVersion"),
    apiVersion: typeof config.apiVersion === "string" ? config.apiVersion : null,
    featureGates: featureGateMap(
      config.featureGates,
      "the KubeletConfiguration's featureGates",
      `${field}.featureGates`,
    ),
  };
}

/** The pool's cgroup version, and failCgroupV1 as its KubeletConfiguration (or the --fail-cgroupv1 flag) sets it. */
function nodeFactsOf(spec: NodePoolSpecInput, flags: readonly Flag[], field: string): NodeFacts {
  let cgroupVersion: NodeFacts["cgroupVersion"] = null;
  if (
    spec.cgroupVersion !== undefined &&
    spec.cgroupVersion !== null &&
    String(spec.cgroupVersion).trim() !== ""
  ) {
    const text = String(spec.cgroupVersion).trim().toLowerCase();
    if (text === "v1" || text === "1") cgroupVersion = "v1";
    else if (text === "v2" || text === "2") cgroupVersion = "v2";
    else
      throw new InputError(
        `${field}.cgroupVersion must be v1 or v2 (stat -fc %T /sys/fs/cgroup prints cgroup2fs on v2, tmpfs on v1)`,
        `${field}.cgroupVersion`,
      );
  }
  let failCgroupV1: boolean | null = null;
  if (
    spec.kubeletConfig !== undefined &&
    spec.kubeletConfig !== null &&
    spec.kubeletConfig.trim() !== ""
  ) {
    // Already checked by parseKubeletConfig; only the one top-level value is read here.
    const value: unknown = (
      parseDocument(spec.kubeletConfig, { uniqueKeys: false }).toJS({
        maxAliasCount: 20,
      }) as Record<string, unknown>
    ).failCgroupV1;
    if (typeof value === "boolean") failCgroupV1 = value;
  }
  const flag = flags.find((candidate) => candidate.name === "--fail-cgroupv1");
  if (flag !== undefined) failCgroupV1 = !/=\s*false$/i.test(flag.text);
  return { cgroupVersion, failCgroupV1 };
}

function parsePool(snapshot: KbSnapshot, input: unknown, field: string): NodePool {
  if (input === null || typeof input !== "object")
    throw new InputError(`${field} must be a node-pool spec {name, kubeletVersion, ...}`, field);
  const spec = input as NodePoolSpecInput;
  const name =
    typeof spec.name === "string" && spec.name.trim() !== ""
      ? spec.name.trim().slice(0, 100)
      : "pool";
  const kubelet = readKubernetesVersion(snapshot, spec.kubeletVersion, `${field}.kubeletVersion`);
  const os = (spec.os ?? "linux").toString().trim().toLowerCase();
  if (os !== "linux" && os !== "windows")
    throw new InputError(`${field}.os must be linux or windows`, `${field}.os`);
  const proxyMode =
    spec.kubeProxyMode === undefined ||
    spec.kubeProxyMode === null ||
    spec.kubeProxyMode.trim() === ""
      ? null
      : spec.kubeProxyMode.trim().toLowerCase();
  // The modes kube-proxy has (or had), from kb/proxy-modes.yaml: those still in some release first, the removed ones last.
  const removedEverywhere = (mode: string): boolean =>
    snapshot.proxyModes
      .filter((record) => record.mode === mode)
      .every((record) => record.removedIn !== null);
  const known = [...new Set(snapshot.proxyModes.map((record) => record.mode))];
  const modes = [
    ...known.filter((mode) => !removedEverywhere(mode)),
    ...known.filter(removedEverywhere),
  ];
  if (proxyMode !== null && !modes.some((mode) => mode === proxyMode)) {
    throw new InputError(
      `${field}.kubeProxyMode "${proxyMode.slice(0, 40)}" is not one of ${modes.join(", ")}`,
      `${field}.kubeProxyMode`,
    );
  }
  let runtime: PlannedComponent | null = null;
  if (spec.runtime !== undefined && spec.runtime !== null && spec.runtime.trim() !== "") {
    const component = resolveComponent(snapshot, spec.runtime, `${field}.runtime`);
    if (component.category !== "container-runtime") {
      throw new InputError(
        `${field}.runtime "${spec.runtime}" is not a container runtime; use containerd, cri-o or docker-engine`,
        `${field}.runtime`,
      );
    }
    if (spec.runtimeVersion === undefined || spec.runtimeVersion === null) {
      throw new InputError(
        `${field}.runtimeVersion is required with runtime`,
        `${field}.runtimeVersion`,
      );
    }
    runtime = plannedComponent(component, name, spec.runtimeVersion, `${field}.runtimeVersion`);
  }
  const chart = spec.chartKubeVersion?.trim() || null;
  if (chart !== null && semver.validRange(chart, { includePrerelease: true }) === null) {
    throw new InputError(
      `${field}.chartKubeVersion "${chart.slice(0, 80)}" is not a version constraint such as ">=1.27.0-0 <1.31.0-0"`,
      `${field}.chartKubeVersion`,
    );
  }
  const flags = parseFlags(spec.kubeletFlags, `${field}.kubeletFlags`);
  const config = parseKubeletConfig(spec.kubeletConfig, `${field}.kubeletConfig`);
  const gateFlags = flags.filter((flag) => flag.name === "--feature-gates");
  const featureGates = [
    ...gateFlags.flatMap((flag) =>
      parseFeatureGateList(flag.value ?? "", "--feature-gates", `${field}.kubeletFlags`),
    ),
    ...config.featureGates,
  ];
  return {
    name,
    kubelet,
    flags,
    configFields: config.fields,
    configApiVersion: config.apiVersion,
    featureGates,
    node: nodeFactsOf(spec, flags, field),
    kubeProxy: isAbsent(spec.kubeProxyVersion)
      ? null
      : readKubernetesVersion(snapshot, spec.kubeProxyVersion, `${field}.kubeProxyVersion`),
    proxyMode,
    os,
    runtime,
    chartKubeVersion: chart,
  };
}

const minor = (version: KubernetesVersion): string => `${version.major}.${version.minor}`;
const atOrBefore = (release: string | null, version: KubernetesVersion): boolean =>
  release !== null && minorIndex(release) <= minorIndex(version);

/** Flags and config fields of the pool judged at its kubelet version. */
function checkConfiguration(
  snapshot: KbSnapshot,
  pool: NodePool,
  direction: "upgrade" | "rollback",
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
    ...judgeFeatureGates(snapshot, pool.featureGates, minor(pool.kubelet), {
      component: "kubelet",
      instance: pool.name,
    }),
  );
  findings.push(...checkConfigApiVersion(snapshot, pool));
  if (pool.flags.length > 0 || pool.configFields.length > 0) {
    const edge = knowledgeEdge(
      snapshot,
      "flagChanges",
      minor(pool.kubelet),
      `the flags and configuration of kubelet@${pool.name} ${at}`,
      { component: "kubelet", instance: pool.name },
    );
    if (edge !== undefined) findings.push(edge);
  }
  return findings;
}

/** The KubeletConfiguration's apiVersion against what the pool's kubelet reads (kb/configuration-apis.yaml). */
function checkConfigApiVersion(snapshot: KbSnapshot, pool: NodePool): Finding[] {
  if (pool.configApiVersion === null) return [];
  const at = minor(pool.kubelet);
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

function checkProxyMode(
  snapshot: KbSnapshot,
  pool: NodePool,
  previous: NodePool | null,
): Finding[] {
  if (pool.proxyMode === null) return [];
  const version = pool.kubeProxy ?? pool.kubelet;
  const record: ProxyModeRecord | undefined = snapshot.proxyModes.find(
    (candidate) => candidate.mode === pool.proxyMode && candidate.os === pool.os,
  );
  const base = { component: "kube-proxy", instance: pool.name };
  const at = formatVersion(version);
  if (record === undefined) {
    return [
      finding({
        ...base,
        code: "PROXY_MODE_NOT_AVAILABLE",
        severity: "ERROR",
        message: `kube-proxy has no ${pool.proxyMode} mode on ${pool.os}`,
        sourceUrl: snapshot.reference("virtual-ips"),
      }),
    ];
  }
  const findings: Finding[] = [];
  const cite = { ...base, sourceUrl: record.sourceUrl, ruleId: `${record.mode}/${record.os}` };
  if (atOrBefore(record.removedIn, version)) {
    findings.push(
      finding({
        ...cite,
        code: "PROXY_MODE_REMOVED",
        severity: "ERROR",
        message: `kube-proxy ${at} has no ${record.mode} mode on ${record.os}: it was removed in ${record.removedIn}; kube-proxy will not start with it.`,
      }),
    );
  } else if (
    record.availableFrom !== null &&
    minorIndex(record.availableFrom) > minorIndex(version)
  ) {
    findings.push(
      finding({
        ...cite,
        code: "PROXY_MODE_NOT_AVAILABLE",
        severity: "ERROR",
        message: `kube-proxy ${at} has no ${record.mode} mode yet: it arrives in ${record.availableFrom}.`,
      }),
    );
  } else {
    if (record.stableFrom !== null && minorIndex(record.stableFrom) > minorIndex(version)) {
      findings.push(
        finding({
          ...cite,
          code: "PROXY_MODE_NOT_GA",
          severity: "WARNING",
          message: `${record.mode} mode is not generally available in ${minor(version)} (GA in ${record.stableFrom})${record.featureGate ? `; it needs the ${record.featureGate} feature gate` : ""}.`,
        }),
      );
    }
    if (atOrBefore(record.deprecatedIn, version)) {
      findings.push(
        finding({
          ...cite,
          code: "PROXY_MODE_DEPRECATED",
          severity: "WARNING",
          message: `${record.mode} mode is deprecated since ${record.deprecatedIn}${record.removedIn ? ` and removed in ${record.removedIn}` : ""}; plan a move to another mode.`,
        }),
      );
    }
  }
  if (previous?.proxyMode && previous.proxyMode !== pool.proxyMode) {
    findings.push(
      finding({
        ...base,
        code: "PROXY_MODE_SWITCH",
        severity: "INFO",
        message: `kube-proxy moves from ${previous.proxyMode} to ${pool.proxyMode}: the old mode's rules stay on the node until cleaned up (kube-proxy --cleanup, or reboot the node); switch on drained nodes and check Services afterwards.`,
        sourceUrl: snapshot.reference("virtual-ips"),
      }),
    );
  }
  return findings;
}

function checkChart(
  snapshot: KbSnapshot,
  pool: NodePool,
  controlPlane: KubernetesVersion,
): Finding[] {
  if (pool.chartKubeVersion === null) return [];
  const findings: Finding[] = [];
  const range = pool.chartKubeVersion;
  // Helm compares kubeVersion with full versions; a bare minor is read as its .0 patch.
  const satisfied = (version: KubernetesVersion) =>
    semver.satisfies(
      `${version.major}.${version.minor}.${version.patch ?? 0}${version.prerelease ? `-${version.prerelease}` : ""}`,
      range,
      { includePrerelease: true },
    );
  if (!satisfied(pool.kubelet)) {
    findings.push(
      finding({
        code: "CHART_KUBE_VERSION",
        severity: "ERROR",
        component: "kubelet",
        instance: pool.name,
        message: `the node-pool chart's kubeVersion "${range}" does not admit kubelet ${formatVersion(pool.kubelet)}`,
        sourceUrl: snapshot.reference("helm-kube-version"),
      }),
    );
  }
  if (!satisfied(controlPlane)) {
    findings.push(
      finding({
        code: "CHART_KUBE_VERSION",
        severity: "ERROR",
        component: "kube-apiserver",
        instance: pool.name,
        message: `the node-pool chart's kubeVersion "${range}" does not admit the control plane ${formatVersion(controlPlane)}; Helm checks it against the cluster's version and refuses to install`,
        sourceUrl: snapshot.reference("helm-kube-version"),
      }),
    );
  }
  return findings;
}

/** The pool inside a minimal cluster, judged by the same rules as validateCluster. */
function clusterFindings(
  snapshot: KbSnapshot,
  pool: NodePool,
  controlPlane: KubernetesVersion,
  { profile, asOf, platform }: PoolContext,
): Finding[] {
  const component = (name: string) => snapshot.findComponent(name)!;
  const entries: PlannedComponent[] = [
    plannedComponent(
      component("kube-apiserver"),
      null,
      formatVersion(controlPlane),
      "controlPlaneVersion",
    ),
    {
      ...plannedComponent(
        component("kubelet"),
        pool.name,
        formatVersion(pool.kubelet),
        "kubeletVersion",
      ),
      node: pool.node,
    },
  ];
  if (pool.kubeProxy !== null)
    entries.push(
      plannedComponent(
        component("kube-proxy"),
        pool.name,
        formatVersion(pool.kubeProxy),
        "kubeProxyVersion",
      ),
    );
  if (pool.runtime !== null) entries.push(pool.runtime);
  // The pool on its platform's calendar (named, or recognised from its versions), on the day asked about.
  const plan = onPlatform(snapshot, { entries }, platform);
  // Release dates of the control plane alone are not this check's business; the pool's, and the pool's with it, are.
  return judgePlan(snapshot, plan, profile, asOf).filter(
    (entry) =>
      !(
        entry.component === "kube-apiserver" &&
        (entry.check === "RELEASE" ||
          entry.check === "END_OF_LIFE" ||
          entry.check === "PLATFORM" ||
          entry.check === "VERSION")
      ),
  );
}

function steps(from: NodePool, to: NodePool, direction: "upgrade" | "rollback"): NodePoolStep[] {
  const list: Omit<NodePoolStep, "order">[] = [];
  const runtimeChanges =
    from.runtime !== null &&
    to.runtime !== null &&
    (from.runtime.component !== to.runtime.component ||
      compareComponentVersions(from.runtime.release!, to.runtime.release!) !== 0);
  const kubeletMinorChanges = minorIndex(from.kubelet) !== minorIndex(to.kubelet);
  const runtimeStep = {
    action: "runtime",
    component: to.runtime?.component ?? null,
    fromVersion: from.runtime?.version ?? null,
    toVersion: to.runtime?.version ?? null,
    note:
      direction === "upgrade"
        ? "the runtime first: the new kubelet needs it"
        : "the runtime after the kubelet: the old kubelet must find a runtime it supports",
  };
  if (kubeletMinorChanges)
    list.push({
      action: "drain",
      component: null,
      fromVersion: null,
      toVersion: null,
      note: "cordon and drain the pool's nodes: kubelet minor changes are not done in place",
    });
  if (runtimeChanges && direction === "upgrade") list.push(runtimeStep);
  if (
    from.flags.map((flag) => flag.text).join(" ") !== to.flags.map((flag) => flag.text).join(" ") ||
    from.configFields.join() !== to.configFields.join()
  ) {
    list.push({
      action: "kubelet-configuration",
      component: "kubelet",
      fromVersion: null,
      toVersion: null,
      note: "change flags and the KubeletConfiguration together with the kubelet binary",
    });
  }
  if (formatVersion(from.kubelet) !== formatVersion(to.kubelet)) {
    const minors = minorIndex(to.kubelet) - minorIndex(from.kubelet);
    // kubeadm upgrades a node one minor at a time in place; going back a minor in place is not supported at all.
    const note =
      minors < 0
        ? "replace the nodes with nodes built at the older version: a kubelet minor downgrade in place is not supported (the kubelet's state and the node's may be newer than it reads)"
        : minors > 1
          ? `replace the nodes with new ones at ${formatVersion(to.kubelet)}: the kubelet moves ${minors} minors, and a node is upgraded in place one minor at a time`
          : "upgrade the kubelet and restart it; the node re-registers with kube-apiserver";
    list.push({
      action: "kubelet",
      component: "kubelet",
      fromVersion: formatVersion(from.kubelet),
      toVersion: formatVersion(to.kubelet),
      note,
    });
  }
  if (runtimeChanges && direction === "rollback") list.push(runtimeStep);
  if (
    (from.kubeProxy &&
      to.kubeProxy &&
      formatVersion(from.kubeProxy) !== formatVersion(to.kubeProxy)) ||
    from.proxyMode !== to.proxyMode
  ) {
    list.push({
      action: "kube-proxy",
      component: "kube-proxy",
      fromVersion: from.kubeProxy ? formatVersion(from.kubeProxy) : null,
      toVersion: to.kubeProxy ? formatVersion(to.kubeProxy) : null,
      note:
        from.proxyMode !== to.proxyMode
          ? `kube-proxy last, switching ${from.proxyMode ?? "its mode"} to ${to.proxyMode ?? "the default"}`
          : "kube-proxy last",
    });
  }
  if (kubeletMinorChanges)
    list.push({
      action: "uncordon",
      component: null,
      fromVersion: null,
      toVersion: null,
      note: "uncordon once the nodes are Ready",
    });
  return list.map((step, index) => ({ ...step, order: index + 1 }));
}

export interface NodePoolRequest {
  readonly controlPlaneVersion: string;
  readonly from: unknown;
  readonly to: unknown;
  readonly profile?: string | null | undefined;
  /** The day the pool is judged on (YYYY-MM-DD); today when absent. */
  readonly asOf?: string | null | undefined;
  /** The managed platform (eks, gke, aks, upstream); recognised from the versions when absent. */
  readonly platform?: string | null | undefined;
}

/** Where and when a pool is judged: the cluster's profile, day and platform, as validate takes them. */
interface PoolContext {
  readonly profile: string;
  readonly asOf: string;
  readonly platform: string | null | undefined;
}

export function checkNodePoolUpgrade(
  snapshot: KbSnapshot,
  request: NodePoolRequest,
): NodePoolReport {
  const asOf = parseAsOf(request.asOf);
  const controlPlane = readKubernetesVersion(
    snapshot,
    request.controlPlaneVersion,
    "controlPlaneVersion",
    asOf,
  );
  const profile = resolveProfile(snapshot, request.profile ?? undefined);
  const from = parsePool(snapshot, request.from, "from");
  const to = parsePool(snapshot, request.to, "to");
  const findings: Finding[] = [];
  if (minorIndex(to.kubelet) < minorIndex(from.kubelet)) {
    findings.push(
      finding({
        code: "NODE_POOL_NOT_AN_UPGRADE",
        severity: "WARNING",
        component: "kubelet",
        instance: to.name,
        message: `kubelet goes from ${formatVersion(from.kubelet)} back to ${formatVersion(to.kubelet)}; check it as a rollback (checkNodePoolRollback)`,
      }),
    );
  }
  findings.push(...checkConfiguration(snapshot, to, "upgrade"));
  findings.push(...checkProxyMode(snapshot, to, from));
  findings.push(...checkChart(snapshot, to, controlPlane));
  findings.push(
    ...clusterFindings(snapshot, to, controlPlane, { profile, asOf, platform: request.platform }),
  );
  const judged = report(snapshot.revision, findings);
  return {
    ok: judged.ok,
    status: judged.status,
    kbRevision: snapshot.revision,
    pool: to.name,
    findings: judged.findings,
    steps: steps(from, to, "upgrade"),
  };
}

export function checkNodePoolRollback(
  snapshot: KbSnapshot,
  request: Omit<NodePoolRequest, "from" | "to"> & {
    readonly current: unknown;
    readonly rollbackTo: unknown;
  },
): NodePoolReport {
  const asOf = parseAsOf(request.asOf);
  const controlPlane = readKubernetesVersion(
    snapshot,
    request.controlPlaneVersion,
    "controlPlaneVersion",
    asOf,
  );
  const profile = resolveProfile(snapshot, request.profile ?? undefined);
  const current = parsePool(snapshot, request.current, "current");
  const target = parsePool(snapshot, request.rollbackTo, "rollbackTo");
  const findings: Finding[] = [];
  if (minorIndex(target.kubelet) > minorIndex(current.kubelet)) {
    findings.push(
      finding({
        code: "ROLLBACK_NOT_A_DOWNGRADE",
        severity: "ERROR",
        component: "kubelet",
        instance: target.name,
        message: `rollbackTo's kubelet ${formatVersion(target.kubelet)} is newer than the running ${formatVersion(current.kubelet)}; check it as an upgrade`,
      }),
    );
  }
  findings.push(...checkConfiguration(snapshot, target, "rollback"));
  findings.push(...checkProxyMode(snapshot, target, current));
  findings.push(...checkChart(snapshot, target, controlPlane));
  const cluster = clusterFindings(snapshot, target, controlPlane, {
    profile,
    asOf,
    platform: request.platform,
  });
  // The trap: the control plane has moved beyond what the old kubelet may join.
  for (const problem of cluster) {
    if (
      problem.severity === "ERROR" &&
      problem.component === "kubelet" &&
      problem.check === "SKEW"
    ) {
      findings.push(
        finding({
          code: "ROLLBACK_TRAP",
          severity: "ERROR",
          component: "kubelet",
          instance: target.name,
          message: `rolling ${target.name} back to kubelet ${formatVersion(target.kubelet)} would leave its nodes unable to join the ${minor(controlPlane)} control plane: ${problem.message}`,
          sourceUrl: problem.sourceUrl,
          ruleId: problem.ruleId,
        }),
      );
    } else {
      findings.push(problem);
    }
  }
  // A runtime upgraded with the pool but kept on the way back may be past what the old kubelet supports.
  if (
    current.runtime !== null &&
    target.runtime !== null &&
    current.runtime.component === target.runtime.component
  ) {
    const newer = compareComponentVersions(current.runtime.release!, target.runtime.release!) > 0;
    // A runtime whose minors track Kubernetes minors (kb/runtime-requirements.yaml says which: CRI-O) must come back with the kubelet.
    const tracksMinors = snapshot.runtimeRequirements.find(
      (requirement) =>
        requirement.component === target.runtime!.component &&
        requirement.kind === "MATCH_KUBERNETES_MINOR" &&
        minorIndex(requirement.kubernetesFrom) <= minorIndex(target.kubelet),
    );
    if (
      !newer &&
      tracksMinors !== undefined &&
      (target.runtime.release!.minor > target.kubelet.minor ||
        target.runtime.release!.major !== target.kubelet.major)
    ) {
      const runtimeName =
        snapshot.findComponent(target.runtime.component)?.name ?? target.runtime.component;
      findings.push(
        finding({
          code: "RUNTIME_NEWER_THAN_KUBELET",
          severity: "ERROR",
          component: target.runtime.component,
          instance: target.name,
          message: `${runtimeName} ${target.runtime.version} stays while the kubelet goes back to ${formatVersion(target.kubelet)}; ${runtimeName} ${target.runtime.release!.major}.${target.runtime.release!.minor} is made for Kubernetes ${target.runtime.release!.major}.${target.runtime.release!.minor}: roll ${runtimeName} back to ${minor(target.kubelet)} too`,
          sourceUrl: tracksMinors.sourceUrl,
          ruleId: tracksMinors.id,
        }),
      );
    }
  }
  const judged = report(snapshot.revision, findings);
  return {
    ok: judged.ok,
    status: judged.status,
    kbRevision: snapshot.revision,
    pool: target.name,
    findings: judged.findings,
    steps: steps(current, target, "rollback"),
  };
}
