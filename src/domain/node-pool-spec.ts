/**
 * Reading a node-pool spec: what a caller pastes (kubelet flags as a command
 * line or a systemd ExecStart, a KubeletConfiguration, kube-proxy's mode, the
 * runtime, the chart's kubeVersion, the cgroup version) becomes one checked
 * NodePool, so the checks judge facts, never raw text. Malformed input raises
 * an InputError naming the field; everything a pool may legitimately hold is
 * left for the checks to judge.
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
import { minorIndex, type KubernetesVersion } from "../core/versions.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { resolveComponent } from "./catalog.js";
import { plannedComponent, type NodeFacts, type PlannedComponent } from "./cluster-plan.js";
import { isAbsent, readKubernetesVersion } from "./version-reader.js";
import { featureGateMap, parseFeatureGateList, type GateSetting } from "./feature-gates.js";

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

export interface Flag {
  readonly name: string;
  readonly value: string | null;
  readonly text: string;
}

/** A node-pool spec read and checked: what the node-pool checks judge. */
export interface NodePool {
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

/** One pool spec (`from`, `to`, `current`, `rollbackTo`), read against the snapshot. */
export function parsePool(snapshot: KbSnapshot, input: unknown, field: string): NodePool {
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

/** Whether a release a record names (removedIn, deprecatedIn) has been reached by `version`; null never is. */
export const atOrBefore = (release: string | null, version: KubernetesVersion): boolean =>
  release !== null && minorIndex(release) <= minorIndex(version);
