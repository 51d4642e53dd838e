/**
 * The chat command language: `parseCommand` turns what a person typed into a
 * typed command (or says what was wrong with it), and `runCommand` answers
 * it by calling the domain core and laying its result out as a chat reply.
 * No compatibility rule lives here: every verdict, step and finding comes
 * from src/domain; this module only reads words and writes sentences.
 */
import { getRelease, listApiRemovals, listPorts, listSkewRules, resolveComponent, resolveProfile } from "../domain/catalog.js";
import type { ComponentVersionInput } from "../domain/cluster-plan.js";
import { checkOf, type Finding, type FindingCheck, type Severity } from "../domain/findings.js";
import { checkNodePoolRollback, checkNodePoolUpgrade, type NodePoolSpecInput, type NodePoolStep } from "../domain/node-pool.js";
import { planUpgrade, type UpgradePlan } from "../domain/upgrade.js";
import { scanManifests } from "../domain/scan.js";
import { parseAsOf, validateCluster } from "../domain/validate.js";
import { releaseStatus, resolveVersionAlias, supportedReleases } from "../domain/release-status.js";
import { minorOf, parseKubernetesVersion } from "../core/versions.js";
import { InputError, NotFoundError } from "../core/errors.js";
import type { ApiRemovalRecord, PortRecord, SkewRuleRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { firstOf, renderReply, type ChatReply, type ChatReplyDoc, type Inline, type Line, type ReplySection } from "./reply.js";

export type ChatCommand =
  | { readonly kind: "help" }
  | { readonly kind: "check"; readonly components: readonly ComponentVersionInput[]; readonly profile?: string; readonly asOf?: string }
  | { readonly kind: "upgrade"; readonly from: string; readonly to: string; readonly profile?: string }
  | { readonly kind: "plan"; readonly components: readonly ComponentVersionInput[]; readonly to: string; readonly profile?: string }
  /** Without `from`: the API versions removed in `to` itself. */
  | { readonly kind: "removals"; readonly from?: string; readonly to: string }
  | { readonly kind: "ports"; readonly component: string }
  | { readonly kind: "skew"; readonly component: string; readonly at?: string; readonly profile?: string }
  /** Without a version: the newest release the knowledge base knows. */
  | { readonly kind: "release"; readonly version?: string }
  /** Where each kind of knowledge ends, and the sources it was read from. */
  | { readonly kind: "coverage" }
  /** Manifests pasted after the first line (or in a ``` block), scanned for the target. */
  | { readonly kind: "scan"; readonly to: string; readonly from?: string; readonly manifests: string }
  /** Is a minor supported today (or on asof=)? Without a version: which minors are. */
  | { readonly kind: "supported"; readonly version?: string; readonly asOf?: string }
  /** A node pool before (`from`) and after (`to`) an upgrade, under a control plane. */
  | ({ readonly kind: "nodepool-check" } & NodePoolChange)
  /** A node pool as it runs (`from`) and the older spec to go back to (`to`). */
  | ({ readonly kind: "nodepool-rollback" } & NodePoolChange);

export interface NodePoolChange {
  readonly controlPlaneVersion: string;
  readonly from: NodePoolSpecInput;
  readonly to: NodePoolSpecInput;
  readonly profile?: string;
}

export type CommandKind = ChatCommand["kind"];

/** Why a text is not a command, and which command's usage to show (none: the whole help). */
export interface UsageProblem {
  readonly problem: string;
  readonly kind?: Exclude<CommandKind, "help">;
}

export type ParseResult = { readonly ok: true; readonly command: ChatCommand } | ({ readonly ok: false } & UsageProblem);

export interface RunOptions {
  /** The day to judge end of life on for `check` (YYYY-MM-DD); default today. A `asof=` in the command wins. */
  readonly asOf?: string;
  /** How users invoke the bot (`/kubecompat`), so that usage examples can be pasted back as they are. */
  readonly invokedAs?: string;
}

/** Longest text accepted, as Slack's own limit for a slash command's text. */
export const MAX_COMMAND_TEXT = 4000;

const USAGE: Readonly<Record<Exclude<CommandKind, "help">, string>> = {
  check: "check kube-apiserver=1.30 kubelet=1.27 kubelet@pool-b=1.26 containerd=1.7.2 [profile=strict]",
  upgrade: "upgrade 1.27 -> 1.30 [profile=strict]",
  plan: "plan apiserver=1.27 kubelet=1.26 to 1.30 [profile=strict]",
  removals: "removals 1.25 1.29",
  ports: "ports kubelet",
  skew: "skew kubelet [at 1.29] [profile=strict]",
  release: "release 1.30",
  coverage: "coverage",
  supported: "supported 1.28 [asof=2026-12-01]",
  scan: "scan [from 1.24] to 1.29, then the manifests on the next lines (or in a ``` block)",
  "nodepool-check":
    'nodepool check cp=1.30 [profile=strict] from kubelet=1.29.4 proxy=ipvs containerd=1.7.2 to kubelet=1.30.1 proxy=nftables containerd=2.0.1 flags="--max-pods=110"',
  "nodepool-rollback": "nodepool rollback cp=1.30 [profile=strict] from kubelet=1.29.4 to kubelet=1.28.9",
};

const WHAT_IT_DOES: Readonly<Record<Exclude<CommandKind, "help">, string>> = {
  check: "is this combination of versions supported?",
  upgrade: "the steps from one minor to another for a basic cluster",
  plan: "the steps that take your cluster to a target minor",
  removals: "API versions removed after the first version, up to the second",
  ports: "the ports a component listens on",
  skew: "the version-skew rules in force for a component",
  release: "release dates, end of life and the latest patch",
  coverage: "where the knowledge ends: the newest Kubernetes minor each kind of knowledge covers, and its sources",
  supported: "is a minor supported today (or on a date)? Without a version: which minors are",
  scan: "which objects of the pasted manifests use API versions removed or deprecated at the target",
  "nodepool-check": "can a node pool (kubelet, its flags, kube-proxy mode, runtime, chart) move to its new spec? Findings and steps",
  "nodepool-rollback": "can a node pool go back to its old spec under the control plane as it is now?",
};

const COMMAND_WORDS: Readonly<Record<string, CommandKind>> = {
  help: "help",
  usage: "help",
  "?": "help",
  check: "check",
  validate: "check",
  verify: "check",
  upgrade: "upgrade",
  plan: "plan",
  removals: "removals",
  removal: "removals",
  removed: "removals",
  "api-removals": "removals",
  apis: "removals",
  ports: "ports",
  port: "ports",
  skew: "skew",
  rules: "skew",
  "skew-rules": "skew",
  release: "release",
  releases: "release",
  coverage: "coverage",
  sources: "coverage",
  supported: "supported",
  support: "supported",
  eol: "supported",
  // `nodepool check|rollback …`: the word after it picks the kind (see parseNodePool).
  nodepool: "nodepool-check",
  nodepools: "nodepool-check",
  "node-pool": "nodepool-check",
  node_pool: "nodepool-check",
  pool: "nodepool-check",
};

/** The components of the basic cluster `upgrade A -> B` plans for. */
const BASIC_CLUSTER = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy"] as const;

// ---------------------------------------------------------------- parsing

/**
 * Splits on blanks and commas, keeping "quoted words" (also typographic
 * quotes, which chat clients like to substitute) together, after making
 * arrows and `=` spacing uniform so `1.27→1.30`, `1.27 => 1.30` and
 * `kubelet = 1.27` read like their plain forms.
 */
export function tokenize(text: string): string[] {
  const normalised = text
    .replace(/[\u201C\u201D\u201E]/g, '"')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s*(?:-+>|=>|[\u2192\u27F6\u2794\u279C\u21D2])\s*/g, " -> ")
    .replace(/\s*([=@])\s*/g, "$1");
  const tokens: string[] = [];
  let current = "";
  let openQuote: string | null = null;
  for (const char of normalised) {
    // A single quote opens only at the start of a word, so that "don't" stays one word.
    if (openQuote === null && (char === '"' || (char === "'" && current === ""))) {
      openQuote = char;
    } else if (char === openQuote) {
      openQuote = null;
    } else if (openQuote === null && /[\s,;]/.test(char)) {
      if (current !== "") tokens.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  if (current !== "") tokens.push(current);
  return tokens;
}

/** Removes the visibility flags from a command; `public` says whether one asked to answer in the channel. */
export function takeVisibility(text: string): { text: string; public: boolean } {
  const flag = /(^|\s)(?:--|\u2014)(?:public|in-channel)(?=\s|$)/gi;
  const isPublic = flag.test(text);
  return { text: isPublic ? text.replace(flag, " ").trim() : text, public: isPublic };
}

const VERSION_LIKE = /^[vV]?\d+\.\d+\S*$/;
const SEPARATORS = new Set(["->", "to"]);
const PROFILE_KEYS = new Set(["profile", "policy"]);
const AS_OF_KEYS = new Set(["asof", "as-of", "as_of", "date"]);
const TARGET_KEYS = new Set(["to", "target"]);

function isVersionLike(token: string | undefined): boolean {
  return token !== undefined && VERSION_LIKE.test(token);
}

interface Options {
  profile?: string;
  asOf?: string;
  target?: string;
}

class Problem extends Error {
  constructor(
    message: string,
    readonly kind?: Exclude<CommandKind, "help">,
  ) {
    super(message);
  }
}

function quote(token: string): string {
  const shown = token.length > 40 ? `${token.slice(0, 40)}…` : token;
  return `"${shown}"`;
}

/** Takes `key=value` options out of the argument list. */
function takeOptions(args: string[], kind: Exclude<CommandKind, "help">, allowed: ReadonlySet<string>): { rest: string[]; options: Options } {
  const options: Options = {};
  const rest: string[] = [];
  for (const token of args) {
    const equals = token.indexOf("=");
    const key = equals > 0 ? token.slice(0, equals).toLowerCase() : "";
    const value = token.slice(equals + 1);
    const name = PROFILE_KEYS.has(key) ? "profile" : AS_OF_KEYS.has(key) ? "asOf" : TARGET_KEYS.has(key) ? "target" : undefined;
    if (name === undefined || !allowed.has(name)) {
      rest.push(token);
      continue;
    }
    if (value === "") throw new Problem(`${key}= needs a value`, kind);
    if (options[name] !== undefined) throw new Problem(`${key} is given twice`, kind);
    options[name] = value;
  }
  return { rest, options };
}

/** `name[@instance]=version` pairs, also written `name version`. */
function takeComponents(args: readonly string[], kind: "check" | "plan"): ComponentVersionInput[] {
  const components: ComponentVersionInput[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const token = args[index]!;
    let left: string;
    let version: string;
    const equals = token.indexOf("=");
    if (equals > 0) {
      left = token.slice(0, equals);
      version = token.slice(equals + 1);
      if (version === "") throw new Problem(`${quote(left)} has no version; write it as ${left}=1.30`, kind);
    } else if (equals === -1 && !isVersionLike(token) && isVersionLike(args[index + 1])) {
      left = token;
      version = args[index + 1]!;
      index += 1;
    } else {
      throw new Problem(`I could not read ${quote(token)}; write each component as name=version, e.g. kubelet=1.29 or kubelet@pool-a=1.29`, kind);
    }
    const at = left.indexOf("@");
    const component = at === -1 ? left : left.slice(0, at);
    const instance = at === -1 ? undefined : left.slice(at + 1);
    if (component === "") throw new Problem(`${quote(token)} names no component`, kind);
    components.push(instance === undefined || instance === "" ? { component, version } : { component, instance, version });
  }
  return components;
}

function withProfile<T extends object>(command: T, options: Options): T & { profile?: string } {
  return options.profile === undefined ? command : { ...command, profile: options.profile };
}

function parseCheck(args: string[]): ChatCommand {
  const { rest, options } = takeOptions(args, "check", new Set(["profile", "asOf"]));
  const components = takeComponents(rest, "check");
  if (components.length === 0) throw new Problem("name at least one component with its version", "check");
  const command = withProfile({ kind: "check" as const, components }, options);
  return options.asOf === undefined ? command : { ...command, asOf: options.asOf };
}

/** `upgrade 1.27 -> 1.30`, `plan apiserver=1.27 kubelet=1.26 to 1.30`: with components it is a plan, without one an upgrade. */
function parseUpgradeOrPlan(args: string[], word: "upgrade" | "plan"): ChatCommand {
  const { rest, options } = takeOptions(args, word, new Set(["profile", "target"]));
  const words = rest[0]?.toLowerCase() === "from" ? rest.slice(1) : rest;
  const separator = words.findIndex((token) => SEPARATORS.has(token.toLowerCase()));
  let before = separator === -1 ? words : words.slice(0, separator);
  let after = separator === -1 ? [] : words.slice(separator + 1);
  // `upgrade 1.27 1.30` without a separator: the last version is the target.
  const last = before[before.length - 1];
  const previous = before[before.length - 2];
  if (separator === -1 && options.target === undefined && isVersionLike(last) && previous !== undefined && (isVersionLike(previous) || previous.includes("="))) {
    after = before.slice(-1);
    before = before.slice(0, -1);
  }
  if (options.target !== undefined) {
    if (after.length > 0) throw new Problem("the target version is given twice", word);
    after = [options.target];
  }
  const isBasic = before.length === 1 && isVersionLike(before[0]);
  const kind = isBasic ? "upgrade" : "plan";
  if (after.length !== 1) {
    throw new Problem(after.length === 0 ? "say which version to upgrade to" : `I could not read ${quote(after.join(" "))} as the target version`, kind);
  }
  const to = after[0]!;
  if (isBasic) return withProfile({ kind: "upgrade" as const, from: before[0]!, to }, options);
  if (before.length === 0) throw new Problem("say which version to upgrade from", word);
  return withProfile({ kind: "plan" as const, components: takeComponents(before, "plan"), to }, options);
}

function parseRemovals(args: string[]): ChatCommand {
  const versions = args.filter((token) => !["from", "after", "to", "until", "->", "in"].includes(token.toLowerCase()));
  const [first, second] = versions;
  if (versions.length === 0 || versions.length > 2) throw new Problem(versions.length === 0 ? "give two versions" : "give at most two versions", "removals");
  const unreadable = versions.find((token) => !isVersionLike(token));
  if (unreadable !== undefined) throw new Problem(`${quote(unreadable)} is not a version such as 1.29`, "removals");
  return second === undefined ? { kind: "removals", to: first! } : { kind: "removals", from: first!, to: second };
}

function parsePorts(args: string[]): ChatCommand {
  const words = ["of", "for"].includes(args[0]?.toLowerCase() ?? "") ? args.slice(1) : args;
  if (words.length === 0) throw new Problem("name a component", "ports");
  return { kind: "ports", component: words.join(" ") };
}

function parseSkew(args: string[]): ChatCommand {
  const { rest, options } = takeOptions(args, "skew", new Set(["profile"]));
  const words = rest[0]?.toLowerCase() === "for" ? rest.slice(1) : rest;
  const atIndex = words.findIndex((token) => ["at", "in", "on"].includes(token.toLowerCase()) || isVersionLike(token));
  const componentWords = atIndex === -1 ? words : words.slice(0, atIndex);
  const versionWords = atIndex === -1 ? [] : words.slice(isVersionLike(words[atIndex]) ? atIndex : atIndex + 1);
  if (componentWords.length === 0) throw new Problem("name a component", "skew");
  if (atIndex !== -1 && versionWords.length !== 1) throw new Problem("give one version after at, e.g. at 1.29", "skew");
  const command = withProfile({ kind: "skew" as const, component: componentWords.join(" ") }, options);
  return versionWords[0] === undefined ? command : { ...command, at: versionWords[0] };
}

function parseRelease(args: string[]): ChatCommand {
  if (args.length > 1) throw new Problem("give one version", "release");
  return args[0] === undefined ? { kind: "release" } : { kind: "release", version: args[0] };
}

type NodePoolKind = "nodepool-check" | "nodepool-rollback";

const NODEPOOL_SUBCOMMANDS: Readonly<Record<string, NodePoolKind>> = {
  check: "nodepool-check",
  upgrade: "nodepool-check",
  validate: "nodepool-check",
  verify: "nodepool-check",
  rollback: "nodepool-rollback",
  "roll-back": "nodepool-rollback",
  downgrade: "nodepool-rollback",
};

const CONTROL_PLANE_KEYS = new Set(["cp", "control-plane", "controlplane", "control_plane", "apiserver", "kube-apiserver"]);

/** The words of a pool spec, `key=value`, and which field of NodePoolSpecInput each fills. */
type SpecField = "name" | "os" | "kubelet" | "proxy" | "kube-proxy" | "proxy-mode" | "runtime" | "flags" | "chart";
const SPEC_KEYS: Readonly<Record<string, SpecField>> = {
  name: "name",
  pool: "name",
  os: "os",
  kubelet: "kubelet",
  proxy: "proxy",
  "kube-proxy": "kube-proxy",
  kubeproxy: "kube-proxy",
  "proxy-mode": "proxy-mode",
  "kube-proxy-mode": "proxy-mode",
  mode: "proxy-mode",
  containerd: "runtime",
  "cri-o": "runtime",
  crio: "runtime",
  docker: "runtime",
  "docker-engine": "runtime",
  flags: "flags",
  flag: "flags",
  "kubelet-flags": "flags",
  args: "flags",
  chart: "chart",
  "chart-kube-version": "chart",
  kubeversion: "chart",
};
/** Runtime words to the knowledge base's canonical component names. */
const RUNTIME_NAMES: Readonly<Record<string, string>> = { containerd: "containerd", "cri-o": "cri-o", crio: "cri-o", docker: "docker-engine", "docker-engine": "docker-engine" };
const SPEC_WORDS_HINT = 'kubelet=, proxy=<mode>, kube-proxy=<version>, containerd=, cri-o=, docker=, flags="…", chart="…", os=, name=';

/** Chat clients turn `--` into an em or en dash; kubelet flags need the two hyphens back. */
function restoreDashes(text: string): string {
  return text.replace(/(^|\s)[\u2013\u2014](?=[a-z0-9])/gi, "$1--");
}

interface SpecDraft {
  name?: string;
  os?: string;
  kubeletVersion?: string;
  kubeProxyVersion?: string;
  kubeProxyMode?: string;
  runtime?: string;
  runtimeVersion?: string;
  flags: string[];
  chartKubeVersion?: string;
}

/** Reads the `key=value` words of one side of a node-pool change into a draft spec. */
function readSpec(words: readonly string[], side: string, kind: NodePoolKind): SpecDraft {
  const draft: SpecDraft = { flags: [] };
  const set = (field: Exclude<keyof SpecDraft, "flags">, value: string, key: string): void => {
    if (draft[field] !== undefined) throw new Problem(`${key}= is given twice ${side === "shared" ? "before from" : `for the ${side} pool`}`, kind);
    draft[field] = value;
  };
  for (const raw of words) {
    const token = restoreDashes(raw);
    // A bare kubelet flag, `--max-pods=110`, is as good as flags="--max-pods=110".
    if (token.startsWith("--")) {
      draft.flags.push(token);
      continue;
    }
    const equals = token.indexOf("=");
    if (equals <= 0) {
      throw new Problem(`I could not read ${quote(token)} in the ${side} pool; write each part as key=value (${SPEC_WORDS_HINT}), and quote flags: flags="--max-pods=110 --node-ip=10.0.0.7"`, kind);
    }
    const key = token.slice(0, equals).toLowerCase();
    const value = token.slice(equals + 1).trim();
    const field = SPEC_KEYS[key];
    if (field === undefined) throw new Problem(`I do not know ${quote(`${key}=`)} for a node pool; use ${SPEC_WORDS_HINT}`, kind);
    if (value === "") throw new Problem(`${key}= needs a value`, kind);
    switch (field) {
      case "name":
        set("name", value, key);
        break;
      case "os":
        set("os", value, key);
        break;
      case "kubelet":
        set("kubeletVersion", value, key);
        break;
      // proxy= is the mode and kube-proxy= the version; a version after proxy= (or a mode after kube-proxy=) is read for what it is.
      case "proxy":
      case "kube-proxy":
        if (isVersionLike(value)) set("kubeProxyVersion", value, key);
        else set("kubeProxyMode", value, key);
        break;
      case "proxy-mode":
        set("kubeProxyMode", value, key);
        break;
      case "runtime":
        if (draft.runtime !== undefined) throw new Problem(`the ${side} pool names two runtimes (${draft.runtime} and ${RUNTIME_NAMES[key]}); a pool has one`, kind);
        draft.runtime = RUNTIME_NAMES[key]!;
        draft.runtimeVersion = value;
        break;
      case "flags":
        draft.flags.push(value);
        break;
      case "chart":
        set("chartKubeVersion", value, key);
        break;
    }
  }
  return draft;
}

function specOf(draft: SpecDraft, shared: SpecDraft, other: SpecDraft): NodePoolSpecInput {
  // A name or os said once (before `from`, or on one side only) holds for both sides.
  const name = draft.name ?? shared.name ?? other.name;
  const os = draft.os ?? shared.os ?? other.os;
  const flags = draft.flags.map(restoreDashes).join(" ");
  return {
    ...(name === undefined ? {} : { name }),
    kubeletVersion: draft.kubeletVersion!,
    ...(flags === "" ? {} : { kubeletFlags: flags }),
    ...(draft.kubeProxyVersion === undefined ? {} : { kubeProxyVersion: draft.kubeProxyVersion }),
    ...(draft.kubeProxyMode === undefined ? {} : { kubeProxyMode: draft.kubeProxyMode }),
    ...(os === undefined ? {} : { os }),
    ...(draft.runtime === undefined ? {} : { runtime: draft.runtime, runtimeVersion: draft.runtimeVersion! }),
    ...(draft.chartKubeVersion === undefined ? {} : { chartKubeVersion: draft.chartKubeVersion }),
  };
}

/**
 * `nodepool check cp=1.30 [profile=strict] from <spec words> to <spec words>`
 * and `nodepool rollback cp=1.30 from <running spec> to <older spec>`.
 * cp= and profile= may stand anywhere; name= and os= before `from` hold for both sides.
 */
function parseNodePool(args: string[]): ChatCommand {
  let kind: NodePoolKind = "nodepool-check";
  let words = args;
  const first = args[0]?.toLowerCase();
  if (first !== undefined && NODEPOOL_SUBCOMMANDS[first] !== undefined) {
    kind = NODEPOOL_SUBCOMMANDS[first];
    words = args.slice(1);
  } else if (first !== undefined && !first.includes("=") && first !== "from") {
    throw new Problem(`I could not read ${quote(args[0]!)}; say nodepool check (an upgrade) or nodepool rollback`, "nodepool-check");
  }
  if (words.length === 0) throw new Problem("give the control plane's version and the pool before and after, e.g. cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1", kind);
  const { rest, options } = takeOptions(words, kind, new Set(["profile"]));

  let controlPlaneVersion: string | undefined;
  const before: string[] = [];
  const fromWords: string[] = [];
  const toWords: string[] = [];
  let section: "before" | "from" | "to" = "before";
  let sawFrom = false;
  for (const token of rest) {
    const lower = token.toLowerCase();
    const equals = token.indexOf("=");
    if (equals > 0 && CONTROL_PLANE_KEYS.has(lower.slice(0, equals))) {
      const value = token.slice(equals + 1);
      if (value === "") throw new Problem(`${lower.slice(0, equals)}= needs the control plane's version, e.g. cp=1.30`, kind);
      if (controlPlaneVersion !== undefined) throw new Problem("the control plane's version is given twice", kind);
      controlPlaneVersion = value;
    } else if (lower === "from") {
      if (section !== "before") throw new Problem(`"from" ${section === "to" ? "comes after to" : "is given twice"}; write from <pool> to <pool>`, kind);
      section = "from";
      sawFrom = true;
    } else if (SEPARATORS.has(lower)) {
      if (section === "to") throw new Problem(`"${token}" is given twice; write from <pool> to <pool>`, kind);
      section = "to";
    } else {
      (section === "before" ? before : section === "from" ? fromWords : toWords).push(token);
    }
  }
  // Without `from`, what comes before `to` is the pool as it is.
  let shared: SpecDraft = { flags: [] };
  if (sawFrom) {
    const stray = before.find((token) => !/^(?:name|pool|os)=/i.test(token));
    if (stray !== undefined) throw new Problem(`${quote(stray)} stands before from; put the pool's words after from (or after to)`, kind);
    shared = readSpec(before, "shared", kind);
  } else {
    fromWords.unshift(...before);
  }
  if (controlPlaneVersion === undefined) throw new Problem("say the control plane's version with cp=, e.g. cp=1.30", kind);
  if (section !== "to") throw new Problem(`say what the pool ${kind === "nodepool-rollback" ? "goes back to" : "becomes"} after to, e.g. to kubelet=${kind === "nodepool-rollback" ? "1.28.9" : "1.30.1"}`, kind);
  if (fromWords.length === 0) throw new Problem("describe the pool as it runs now after from, e.g. from kubelet=1.29.4", kind);
  if (toWords.length === 0) throw new Problem("describe the pool after to, e.g. to kubelet=1.30.1", kind);
  const from = readSpec(fromWords, "from", kind);
  const to = readSpec(toWords, "to", kind);
  for (const [side, draft] of [["from", from], ["to", to]] as const) {
    if (draft.kubeletVersion === undefined) throw new Problem(`the ${side} pool needs its kubelet version, e.g. kubelet=1.30.1`, kind);
  }
  const command = { kind, controlPlaneVersion, from: specOf(from, shared, to), to: specOf(to, shared, from) };
  return withProfile(command, options);
}

/** Reads one chat command. Never throws: anything unreadable is a UsageProblem. */
/** `scan [from A] to B`, then manifests: the first line is the command, the rest (fenced or not) is YAML. */
function parseScan(text: string): ParseResult | undefined {
  const match = /^\s*(?:(?:@?kubecompat|<@\w+>|\/\S+)\s+)?scan\b([^\n`]*)([\s\S]*)$/i.exec(text);
  if (match === null) return undefined;
  const words = tokenize(match[1] ?? "");
  let from: string | undefined;
  let to: string | undefined;
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index]!.toLowerCase();
    if ((word === "from" || word === "to") && words[index + 1] !== undefined) {
      if (word === "from") from = words[index + 1];
      else to = words[index + 1];
      index += 1;
    } else if (to === undefined && isVersionLike(words[index])) {
      to = words[index];
    } else {
      return { ok: false, problem: `I do not understand ${quote(words[index]!)} in scan`, kind: "scan" };
    }
  }
  if (to === undefined) return { ok: false, problem: "say which version to scan for: scan to 1.29", kind: "scan" };
  const manifests = (match[2] ?? "").replace(/^\s*```[a-z]*\n?/i, "").replace(/\n?```\s*$/, "").trim();
  if (manifests === "") return { ok: false, problem: "paste the manifests after the first line (or in a ``` block)", kind: "scan" };
  return { ok: true, command: { kind: "scan", to, ...(from === undefined ? {} : { from }), manifests } };
}

export function parseCommand(text: string): ParseResult {
  if (text.length > MAX_COMMAND_TEXT) return { ok: false, problem: `the command is longer than ${MAX_COMMAND_TEXT} characters` };
  const scan = parseScan(text);
  if (scan !== undefined) return scan;
  let tokens = tokenize(text);
  // Bridges often pass the whole message, mention of the bot included.
  if (tokens[0] !== undefined && /^(?:@?kubecompat|<@\w+>|\/\S+)$/i.test(tokens[0])) tokens = tokens.slice(1);
  const [word, ...args] = tokens;
  if (word === undefined) return { ok: true, command: { kind: "help" } };
  const kind = COMMAND_WORDS[word.toLowerCase()];
  try {
    switch (kind) {
      case "help":
        return { ok: true, command: { kind: "help" } };
      case "check":
        return { ok: true, command: parseCheck(args) };
      case "upgrade":
      case "plan":
        return { ok: true, command: parseUpgradeOrPlan(args, kind) };
      case "removals":
        return { ok: true, command: parseRemovals(args) };
      case "ports":
        return { ok: true, command: parsePorts(args) };
      case "skew":
        return { ok: true, command: parseSkew(args) };
      case "release":
        return { ok: true, command: parseRelease(args) };
      case "coverage":
        if (args.length > 0) throw new Problem("coverage takes no arguments", "coverage");
        return { ok: true, command: { kind: "coverage" } };
      case "supported": {
        const { rest, options } = takeOptions(args, "supported", new Set(["asOf"]));
        if (rest.length > 1) throw new Problem("give one version", "supported");
        return {
          ok: true,
          command: { kind: "supported", ...(rest[0] === undefined ? {} : { version: rest[0] }), ...(options.asOf === undefined ? {} : { asOf: options.asOf }) },
        };
      }
      case "nodepool-check":
      case "nodepool-rollback":
        return { ok: true, command: parseNodePool(args) };
      default:
        return { ok: false, problem: `I do not know the command ${quote(word)}` };
    }
  } catch (error) {
    if (error instanceof Problem) return error.kind === undefined ? { ok: false, problem: error.message } : { ok: false, problem: error.message, kind: error.kind };
    throw error;
  }
}

// ---------------------------------------------------------------- answering

const SEVERITY_EMOJI: Readonly<Record<Severity, string>> = { ERROR: "🔴", WARNING: "⚠️", INFO: "ℹ️" };

function usageLine(kind: Exclude<CommandKind, "help">, invokedAs: string): Line {
  return [{ code: `${invokedAs}${USAGE[kind]}` }];
}

function prefixOf(options: RunOptions): string {
  return options.invokedAs ? `${options.invokedAs} ` : "";
}

function revision(snapshot: KbSnapshot): string {
  return `kb revision ${snapshot.revision}`;
}

function sourceLink(url: string | null): Inline[] {
  return url === null ? [] : [" (", { link: url, label: "source" }, ")"];
}

function findingLine(entry: Finding): Line {
  return [`${SEVERITY_EMOJI[entry.severity]} `, { code: entry.code }, ` ${entry.message}`, ...sourceLink(entry.sourceUrl)];
}

function findingsSection(findings: readonly Finding[], title = "Findings"): ReplySection {
  const { shown, omitted } = firstOf(findings);
  return { title, style: "bullets", lines: shown.map(findingLine), omitted };
}

function countWords(findings: readonly Finding[]): string {
  const count = (severity: Severity): number => findings.filter((entry) => entry.severity === severity).length;
  const parts = [
    [count("ERROR"), "error"],
    [count("WARNING"), "warning"],
    [count("INFO"), "note"],
  ] as const;
  const words = parts.filter(([n]) => n > 0).map(([n, word]) => `${n} ${word}${n === 1 ? "" : "s"}`);
  return words.length === 0 ? "no findings" : words.join(", ");
}

/** `kubelet@pool-b 1.26`, with the canonical name when the alias is known. */
function componentWords(snapshot: KbSnapshot, input: ComponentVersionInput): string {
  const name = snapshot.findComponent(input.component)?.name ?? input.component;
  return `${input.instance ? `${name}@${input.instance}` : name} ${input.version}`;
}

/** A green tick only for SUPPORTED: end of life, warnings and questions that could not be checked say so. */
function verdictHeadline(result: { readonly status: string; readonly findings: readonly { check: FindingCheck }[] }): string {
  switch (result.status) {
    case "SUPPORTED":
      return "✅ Supported";
    case "UNSUPPORTED":
      return "❌ Not supported";
    case "NOT_JUDGED":
      return "❔ Not checked";
    default:
      return result.findings.some((finding) => finding.check === "END_OF_LIFE") ? "⚠️ End of life" : "⚠️ Supported, with warnings";
  }
}

function runCheck(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "check" }>, options: RunOptions): ChatReplyDoc {
  const asOf = parseAsOf(command.asOf ?? options.asOf, "asof");
  const result = validateCluster(snapshot, command.components, { profile: command.profile, asOf });
  const profile = resolveProfile(snapshot, command.profile);
  const headline = verdictHeadline(result);
  return {
    headline,
    fallback: `${headline} (${countWords(result.findings)}): ${command.components.map((input) => componentWords(snapshot, input)).join(", ")}`,
    sections: [
      { style: "plain", lines: [[command.components.map((input) => componentWords(snapshot, input)).join(" · ")], [`${countWords(result.findings)}`]] },
      ...(result.findings.length > 0 ? [findingsSection(result.findings)] : []),
    ],
    context: [revision(snapshot), `profile ${profile}`, `as of ${asOf}`],
  };
}

function stepLines(plan: UpgradePlan): Line[] {
  const orders = [...new Set(plan.steps.map((step) => step.order))];
  return orders.map((order) => {
    const together = plan.steps.filter((step) => step.order === order);
    const moves = together.map((step) => `${step.instance ? `${step.component}@${step.instance}` : step.component} ${step.fromVersion} → ${step.toVersion}`);
    return [`${order}. `, { bold: moves.join(" + ") }, ` — ${together[0]?.note ?? ""}`];
  });
}

function removalLine(removal: ApiRemovalRecord): Line {
  const replacement: Inline[] = removal.replacement === null ? [" → no replacement"] : [" → ", { code: removal.replacement }];
  return [{ code: removal.apiVersion }, ` ${removal.kind}`, ...replacement, ` (removed in ${removal.removedIn})`, ...sourceLink(removal.sourceUrl)];
}

function runPlan(
  snapshot: KbSnapshot,
  components: readonly ComponentVersionInput[],
  to: string,
  profileName: string | undefined,
  describeFrom: string,
): ChatReplyDoc {
  const plan = planUpgrade(snapshot, components, to, { profile: profileName });
  const profile = resolveProfile(snapshot, profileName);
  const steps = firstOf(stepLines(plan));
  const removals = firstOf(plan.apiRemovals);
  const stepCount = new Set(plan.steps.map((step) => step.order)).size;
  const sections: ReplySection[] = [
    { style: "plain", lines: [[`From ${describeFrom} to ${plan.targetVersion}: ${stepCount} step${stepCount === 1 ? "" : "s"}, ${countWords(plan.findings)}`]] },
  ];
  if (stepCount > 0) sections.push({ title: "Steps", style: "numbered", lines: steps.shown, omitted: steps.omitted });
  if (plan.apiRemovals.length > 0) {
    sections.push({ title: "Removed APIs on the way", style: "bullets", lines: removals.shown.map(removalLine), omitted: removals.omitted });
  }
  if (plan.findings.length > 0) sections.push(findingsSection(plan.findings));
  return {
    headline: !plan.ok
      ? `❌ No supported upgrade to ${plan.targetVersion} as asked`
      : plan.status === "SUPPORTED"
        ? `✅ Upgrade plan to ${plan.targetVersion}`
        : `⚠️ Upgrade plan to ${plan.targetVersion}, with warnings`,
    sections,
    context: [revision(snapshot), `profile ${profile}`],
  };
}

function runUpgrade(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "upgrade" }>): ChatReplyDoc {
  // Parsed here so a bad version is reported as the version the user typed, not as a component of the implied cluster.
  const from = parseKubernetesVersion(command.from, "from version");
  parseKubernetesVersion(command.to, "target version");
  const components = BASIC_CLUSTER.map((component) => ({ component, version: from.raw }));
  return runPlan(snapshot, components, command.to, command.profile, `a basic cluster at ${from.raw} (${BASIC_CLUSTER.join(", ")})`);
}

function runRemovals(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "removals" }>): ChatReplyDoc {
  let removals: readonly ApiRemovalRecord[];
  let title: string;
  if (command.from === undefined) {
    const minor = minorOf(parseKubernetesVersion(command.to, "version"));
    removals = listApiRemovals(snapshot, { to: command.to }).filter((removal) => removal.removedIn === minor);
    title = `API versions removed in ${minor}`;
  } else {
    removals = listApiRemovals(snapshot, { from: command.from, to: command.to });
    title = `API versions removed after ${minorOf(parseKubernetesVersion(command.from, "from"))} up to ${minorOf(parseKubernetesVersion(command.to, "to"))}`;
  }
  const { shown, omitted } = firstOf(removals);
  return {
    headline: `🗑️ ${title}`,
    sections: [
      removals.length === 0
        ? { style: "plain", lines: [["None: the knowledge base records no API version removed in that range."]] }
        : { title: `${removals.length} removed`, style: "bullets", lines: shown.map(removalLine), omitted },
    ],
    context: [revision(snapshot)],
  };
}

function portLine(port: PortRecord): Line {
  const range = port.endPort === null ? `${port.port}` : `${port.port}-${port.endPort}`;
  const role = port.nodeRole === "CONTROL_PLANE" ? "control plane" : "worker";
  return [
    { code: `${range}/${port.protocol}` },
    ` ${port.direction.toLowerCase()} on ${role} nodes — ${port.purpose}; used by ${port.usedBy}${port.deprecated ? " (deprecated)" : ""}`,
    ...sourceLink(port.sourceUrl),
  ];
}

function runPorts(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "ports" }>): ChatReplyDoc {
  const component = resolveComponent(snapshot, command.component);
  const ports = listPorts(snapshot, { component: component.name });
  const { shown, omitted } = firstOf(ports);
  return {
    headline: `🔌 Ports of ${component.name}`,
    sections: [
      ports.length === 0
        ? { style: "plain", lines: [[`${component.name} listens on no port of its own.`]] }
        : { style: "bullets", lines: shown.map(portLine), omitted },
    ],
    context: [revision(snapshot)],
  };
}

function minors(count: number): string {
  return `${count} minor${count === 1 ? "" : "s"}`;
}

function skewLine(rule: SkewRuleRecord): Line {
  let words: string;
  if (rule.relativeTo === "kube-apiserver-peers") {
    words = `${rule.component} instances: at most ${minors(Math.max(rule.maxNewer, rule.maxOlder))} apart`;
  } else {
    // Rules against the kubelet compare components on the same node; rules against kube-apiserver name which instance counts.
    const reference = (from: SkewRuleRecord["newerMeasuredFrom"]): string =>
      from === null ? `the ${rule.relativeTo} on the same node` : `the ${from.toLowerCase()} ${rule.relativeTo}`;
    const condition = rule.condition === null ? "" : ` (${minors(rule.condition.maxOlder)} for ${rule.component} older than ${rule.condition.componentOlderThan})`;
    words =
      `${rule.component}: at most ${minors(rule.maxNewer)} newer than ${reference(rule.newerMeasuredFrom)}, ` +
      `at most ${minors(rule.maxOlder)} older than ${reference(rule.olderMeasuredFrom)}${condition}`;
  }
  return [words, " — ", { code: rule.id }, ...sourceLink(rule.sourceUrl)];
}

function runSkew(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "skew" }>): ChatReplyDoc {
  const component = resolveComponent(snapshot, command.component);
  const profile = resolveProfile(snapshot, command.profile);
  const at = command.at ?? snapshot.newestRelease?.version;
  const minor = at === undefined ? undefined : minorOf(parseKubernetesVersion(at, "at"));
  // Rules on either side: `skew kubelet` also shows how far kube-proxy may drift from it.
  const rules = listSkewRules(snapshot, { kubernetesVersion: minor, profile }).filter(
    (rule) => rule.component === component.name || rule.relativeTo === component.name,
  );
  const where = minor === undefined ? "in any version" : `for ${minor} control planes`;
  const { shown, omitted } = firstOf(rules);
  return {
    headline: `📏 Skew rules for ${component.name} ${where}`,
    sections: [
      rules.length === 0
        ? { style: "plain", lines: [[`No skew rule of profile ${profile} constrains ${component.name} ${where}.`]] }
        : { style: "bullets", lines: shown.map(skewLine), omitted },
    ],
    context: [revision(snapshot), `profile ${profile}`, command.at === undefined && minor !== undefined ? `${minor} is the newest release known` : ""].filter(
      (text) => text !== "",
    ),
  };
}

function runScan(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "scan" }>): ChatReplyDoc {
  const report = scanManifests(snapshot, command.manifests, command.to, { fromVersion: command.from });
  const findings: Finding[] = report.findings.map((entry) => ({
    code: entry.code,
    check: checkOf(entry.code),
    severity: entry.severity,
    component: null,
    instance: null,
    message: `document ${entry.documentIndex + 1}, line ${entry.line}${entry.phase === "ALREADY_REMOVED" ? " (already removed before the upgrade)" : entry.phase === "REMOVED_IN_UPGRADE" ? " (breaks within the upgrade)" : ""}: ${entry.message}`,
    sourceUrl: entry.sourceUrl,
    ruleId: null,
  }));
  const headline =
    report.status === "UNSUPPORTED"
      ? `❌ Removed APIs at ${report.targetVersion}`
      : report.status === "SUPPORTED"
        ? `✅ Nothing removed at ${report.targetVersion}`
        : `⚠️ Deprecated APIs at ${report.targetVersion}`;
  const all = [...findings, ...report.notes];
  return {
    headline,
    sections: [
      { style: "plain", lines: [[`${report.documentsScanned} documents, ${report.objectsScanned} objects scanned${command.from === undefined ? "" : ` for ${command.from} → ${report.targetVersion}`}; ${countWords(all)}${report.complete ? "" : "; some documents could not be read"}`]] },
      ...(all.length > 0 ? [findingsSection(all)] : []),
    ],
    context: [revision(snapshot)],
  };
}

function runSupported(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "supported" }>, options: RunOptions): ChatReplyDoc {
  const asOf = parseAsOf(command.asOf ?? options.asOf, "asof");
  const supported = supportedReleases(snapshot, asOf);
  const range = supported.length === 0 ? "no minor is supported" : `supported: ${supported[0]!.version} to ${supported[supported.length - 1]!.version}`;
  if (command.version === undefined) {
    return { headline: `📅 Kubernetes on ${asOf}`, sections: [{ style: "plain", lines: [[range]] }], context: [revision(snapshot)] };
  }
  const release = getRelease(snapshot, String(resolveVersionAlias(snapshot, command.version, asOf, "version")));
  const { status } = releaseStatus(snapshot, release, asOf);
  const words: Record<typeof status, string> = {
    SUPPORTED: `✅ ${release.version} is supported on ${asOf}${release.endOfStandardSupport === null ? "" : ` (standard support until ${release.endOfStandardSupport})`}`,
    MAINTENANCE: `⚠️ ${release.version} is in maintenance on ${asOf}: critical fixes only, end of life ${release.endOfLife ?? "not set"}`,
    END_OF_LIFE: `❌ ${release.version} is past its end of life (${release.endOfLife ?? "?"}) on ${asOf}`,
    NOT_YET_RELEASED: `🕒 ${release.version} is not released yet on ${asOf} (planned ${release.releaseDate})`,
    UNKNOWN: `❔ ${release.version}: the release calendar has no support dates for it`,
  };
  return {
    headline: words[status],
    sections: [{ style: "plain", lines: [[range], [{ link: release.sourceUrl, label: "Source" }]] }],
    context: [revision(snapshot)],
  };
}

function runCoverage(snapshot: KbSnapshot): ChatReplyDoc {
  const lines: Line[] = snapshot.coverage.map((claim) => [
    { bold: `${claim.knowledge}:` },
    ` through ${claim.throughMinor} from ${claim.source}${claim.sourceRevision === null ? "" : ` @ ${claim.sourceRevision}`}${claim.sourceDate === null ? "" : ` (${claim.sourceDate})`} `,
    { link: claim.sourceUrl, label: "source" },
  ]);
  return {
    headline: "🧭 Where the knowledge ends",
    sections: [
      { style: "plain", lines: lines.length > 0 ? lines : [["No coverage is recorded."]] },
      { style: "plain", lines: [["A question about a minor beyond these gets a KNOWLEDGE_EDGE warning."]] },
    ],
    context: [revision(snapshot)],
  };
}

function runRelease(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "release" }>): ChatReplyDoc {
  const version = command.version ?? snapshot.newestRelease?.version;
  if (version === undefined) throw new NotFoundError("the knowledge base holds no release yet");
  const release = getRelease(snapshot, version);
  const unknown = "not published";
  const lines: Line[] = [
    [{ bold: "Released:" }, ` ${release.releaseDate}`],
    [{ bold: "End of standard support:" }, ` ${release.endOfStandardSupport ?? unknown}`],
    [{ bold: "End of life:" }, ` ${release.endOfLife ?? unknown}`],
    [{ bold: "Latest patch:" }, ` ${release.latestPatch ?? unknown}${release.latestPatchDate === null ? "" : ` (${release.latestPatchDate})`}`],
  ];
  if (release.etcdVersion !== null) lines.push([{ bold: "etcd (kubeadm default):" }, ` ${release.etcdVersion}`, ...sourceLink(release.etcdSourceUrl)]);
  lines.push([{ link: release.sourceUrl, label: "Source" }]);
  return { headline: `📅 Kubernetes ${release.version}`, sections: [{ style: "plain", lines }], context: [revision(snapshot)] };
}

/** `kubelet 1.29.4 → 1.30.1`, `kube-proxy ipvs`, or nothing when neither side says. */
function change(label: string, before: string | undefined | null, after: string | undefined | null): string | null {
  if ((before ?? null) === null && (after ?? null) === null) return null;
  if (before === after) return `${label} ${before}`;
  return `${label} ${before ?? "—"} → ${after ?? "—"}`;
}

function runtimeName(snapshot: KbSnapshot, spec: NodePoolSpecInput): string | null {
  return spec.runtime ? (snapshot.findComponent(spec.runtime)?.name ?? spec.runtime) : null;
}

/** `containerd 1.7.2 → 2.0.1`, or `docker-engine 20.10 → containerd 1.7.2` when the runtime changes. */
function runtimeChange(snapshot: KbSnapshot, from: NodePoolSpecInput, to: NodePoolSpecInput): string | null {
  const before = runtimeName(snapshot, from);
  const after = runtimeName(snapshot, to);
  if (before === after) return before === null ? null : change(before, from.runtimeVersion, to.runtimeVersion);
  const words = (name: string | null, version: string | null | undefined): string => (name === null ? "no runtime named" : `${name} ${version ?? "?"}`);
  return `${words(before, from.runtimeVersion)} → ${words(after, to.runtimeVersion)}`;
}

/** What changes in the pool, in the words of the command: kubelet, kube-proxy, runtime. */
function poolChangeWords(snapshot: KbSnapshot, from: NodePoolSpecInput, to: NodePoolSpecInput): string {
  return [
    change("kubelet", from.kubeletVersion, to.kubeletVersion),
    change("kube-proxy", from.kubeProxyVersion, to.kubeProxyVersion),
    change("kube-proxy mode", from.kubeProxyMode, to.kubeProxyMode),
    runtimeChange(snapshot, from, to),
  ]
    .filter((words): words is string => words !== null)
    .join(" · ");
}

function nodePoolStepLine(step: NodePoolStep): Line {
  let what: string;
  if (step.component !== null && (step.fromVersion !== null || step.toVersion !== null)) {
    what = `${step.component} ${step.fromVersion ?? "—"} → ${step.toVersion ?? "—"}`;
  } else {
    what = step.action === step.component ? step.action : step.action.replaceAll("-", " ");
  }
  return [`${step.order}. `, { bold: what }, ` — ${step.note}`];
}

function runNodePool(snapshot: KbSnapshot, command: Extract<ChatCommand, { kind: "nodepool-check" | "nodepool-rollback" }>): ChatReplyDoc {
  const rollback = command.kind === "nodepool-rollback";
  const result = rollback
    ? checkNodePoolRollback(snapshot, { controlPlaneVersion: command.controlPlaneVersion, current: command.from, rollbackTo: command.to, profile: command.profile })
    : checkNodePoolUpgrade(snapshot, { controlPlaneVersion: command.controlPlaneVersion, from: command.from, to: command.to, profile: command.profile });
  const profile = resolveProfile(snapshot, command.profile);
  const what = rollback ? "rollback" : "upgrade";
  // The domain calls an unnamed pool "pool"; the headline then just says "Node pool".
  const pool = command.from.name || command.to.name ? `Node pool ${result.pool}:` : "Node pool";
  const headline = !result.ok
    ? `❌ ${pool} ${what} not supported as asked`
    : result.status === "SUPPORTED"
      ? `✅ ${pool} ${what} supported`
      : `⚠️ ${pool} ${what} supported, with warnings`;
  const changes = poolChangeWords(snapshot, command.from, command.to);
  const steps = firstOf(result.steps.map(nodePoolStepLine));
  const stepCount = result.steps.length;
  const sections: ReplySection[] = [
    {
      style: "plain",
      lines: [[`${changes}, under control plane ${command.controlPlaneVersion}`], [`${countWords(result.findings)}, ${stepCount} step${stepCount === 1 ? "" : "s"}`]],
    },
  ];
  if (result.findings.length > 0) sections.push(findingsSection(result.findings));
  sections.push(
    stepCount === 0
      ? { style: "plain", lines: [["No steps: the pool's versions, flags and kube-proxy mode stay as they are."]] }
      : { title: rollback ? "Steps back" : "Steps", style: "numbered", lines: steps.shown, omitted: steps.omitted },
  );
  return {
    headline,
    fallback: `${headline} (${countWords(result.findings)}): ${changes}`,
    sections,
    context: [revision(snapshot), `profile ${profile}`, `control plane ${command.controlPlaneVersion}`],
  };
}

function helpDoc(snapshot: KbSnapshot, options: RunOptions, intro?: Line): ChatReplyDoc {
  const prefix = prefixOf(options);
  const kinds = Object.keys(USAGE) as Array<Exclude<CommandKind, "help">>;
  return {
    headline: "kubecompat: Kubernetes version compatibility",
    sections: [
      ...(intro === undefined ? [] : [{ style: "plain" as const, lines: [intro] }]),
      { title: "Commands", style: "bullets", lines: kinds.map((kind) => [...usageLine(kind, prefix), ` — ${WHAT_IT_DOES[kind]}`]) },
      {
        style: "plain",
        lines: [
          [
            "A node pool is described with ",
            { code: "kubelet=1.30.1" },
            ", ",
            { code: "proxy=nftables" },
            " (the mode; ",
            { code: "kube-proxy=1.30.1" },
            " its version), ",
            { code: "containerd=2.0.1" },
            " / ",
            { code: "cri-o=" },
            " / ",
            { code: "docker=" },
            ", ",
            { code: 'flags="--max-pods=110 --node-ip=10.0.0.7"' },
            ", ",
            { code: 'chart=">=1.27.0-0 <1.31.0-0"' },
            ", ",
            { code: "os=windows" },
            " and ",
            { code: "name=pool-a" },
            ".",
          ],
          ["Component aliases (apiserver, kcm, proxy) and v prefixes work. In Slack, add --public to answer in the channel."],
        ],
      },
    ],
    context: [revision(snapshot)],
  };
}

function problemDoc(snapshot: KbSnapshot, problem: UsageProblem, options: RunOptions): ChatReplyDoc {
  if (problem.kind === undefined) return helpDoc(snapshot, options, [`🤔 ${problem.problem}. Here is what I understand:`]);
  return {
    headline: `🤔 I did not understand that ${problem.kind.replace("-", " ")} command`,
    sections: [{ style: "plain", lines: [[`${problem.problem}.`], ["Usage: ", ...usageLine(problem.kind, prefixOf(options))]] }],
    context: [revision(snapshot)],
  };
}

function errorDoc(snapshot: KbSnapshot, error: InputError | NotFoundError, kind: CommandKind, options: RunOptions): ChatReplyDoc {
  const hint: Line = kind === "help" ? ["Try ", { code: `${prefixOf(options)}help` }] : ["Usage: ", ...usageLine(kind, prefixOf(options))];
  return {
    headline: "⚠️ I could not answer that",
    sections: [
      { style: "quote", lines: [[error.message]] },
      { style: "plain", lines: [hint] },
    ],
    context: [revision(snapshot)],
  };
}

function answerDoc(snapshot: KbSnapshot, command: ChatCommand, options: RunOptions): ChatReplyDoc {
  switch (command.kind) {
    case "help":
      return helpDoc(snapshot, options);
    case "check":
      return runCheck(snapshot, command, options);
    case "upgrade":
      return runUpgrade(snapshot, command);
    case "plan":
      return runPlan(
        snapshot,
        command.components,
        command.to,
        command.profile,
        command.components.map((input) => componentWords(snapshot, input)).join(", "),
      );
    case "removals":
      return runRemovals(snapshot, command);
    case "ports":
      return runPorts(snapshot, command);
    case "skew":
      return runSkew(snapshot, command);
    case "release":
      return runRelease(snapshot, command);
    case "coverage":
      return runCoverage(snapshot);
    case "supported":
      return runSupported(snapshot, command, options);
    case "scan":
      return runScan(snapshot, command);
    case "nodepool-check":
    case "nodepool-rollback":
      return runNodePool(snapshot, command);
  }
}

/**
 * Answers a command from the snapshot. Bad input the domain refuses (an
 * unknown component, a malformed version) is answered with its message and
 * the command's usage; any other error is a bug and propagates.
 */
export function runCommand(snapshot: KbSnapshot, command: ChatCommand, options: RunOptions = {}): ChatReply {
  try {
    return renderReply(answerDoc(snapshot, command, options));
  } catch (error) {
    if (error instanceof InputError || error instanceof NotFoundError) return renderReply(errorDoc(snapshot, error, command.kind, options));
    throw error;
  }
}

/** The reply to a text that is not a command: what was wrong and how to write it. */
export function usageReply(snapshot: KbSnapshot, problem: UsageProblem, options: RunOptions = {}): ChatReply {
  return renderReply(problemDoc(snapshot, problem, options));
}

/** Parses and answers one chat text. */
export function answer(snapshot: KbSnapshot, text: string, options: RunOptions = {}): ChatReply {
  const parsed = parseCommand(text);
  return parsed.ok ? runCommand(snapshot, parsed.command, options) : usageReply(snapshot, parsed, options);
}
