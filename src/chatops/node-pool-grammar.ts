/**
 * The node-pool words of the chat grammar: `nodepool check|rollback cp=1.30
 * from <spec> to <spec>`, each spec being `key=value` words (kubelet=,
 * proxy=, containerd=, flags="…", chart=, os=, name=) read into the
 * NodePoolSpecInput the domain's node-pool checks take.
 */
import type { NodePoolSpecInput } from "../domain/node-pool.js";
import type { ChatCommand } from "./chat-command.js";
import {
  Problem,
  SEPARATORS,
  isVersionLike,
  quote,
  takeOptions,
  withClusterOptions,
} from "./words.js";

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

const CONTROL_PLANE_KEYS = new Set([
  "cp",
  "control-plane",
  "controlplane",
  "control_plane",
  "apiserver",
  "kube-apiserver",
]);

/** The words of a pool spec, `key=value`, and which field of NodePoolSpecInput each fills. */
type SpecField =
  | "name"
  | "os"
  | "kubelet"
  | "proxy"
  | "kube-proxy"
  | "proxy-mode"
  | "runtime"
  | "flags"
  | "chart"
  | "cgroup";
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
  cgroup: "cgroup",
  cgroupversion: "cgroup",
};
/** Runtime words to the knowledge base's canonical component names. */
const RUNTIME_NAMES: Readonly<Record<string, string>> = {
  containerd: "containerd",
  "cri-o": "cri-o",
  crio: "cri-o",
  docker: "docker-engine",
  "docker-engine": "docker-engine",
};
const SPEC_WORDS_HINT =
  'kubelet=, proxy=<mode>, kube-proxy=<version>, containerd=, cri-o=, docker=, flags="…", chart="…", cgroup=, os=, name=';

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
  cgroupVersion?: string;
}

/** Reads the `key=value` words of one side of a node-pool change into a draft spec. */
function readSpec(words: readonly string[], side: string, kind: NodePoolKind): SpecDraft {
  const draft: SpecDraft = { flags: [] };
  const set = (field: Exclude<keyof SpecDraft, "flags">, value: string, key: string): void => {
    if (draft[field] !== undefined)
      throw new Problem(
        `${key}= is given twice ${side === "shared" ? "before from" : `for the ${side} pool`}`,
        kind,
      );
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
      throw new Problem(
        `I could not read ${quote(token)} in the ${side} pool; write each part as key=value (${SPEC_WORDS_HINT}), and quote flags: flags="--max-pods=110 --node-ip=10.0.0.7"`,
        kind,
      );
    }
    const key = token.slice(0, equals).toLowerCase();
    const value = token.slice(equals + 1).trim();
    const field = SPEC_KEYS[key];
    if (field === undefined)
      throw new Problem(
        `I do not know ${quote(`${key}=`)} for a node pool; use ${SPEC_WORDS_HINT}`,
        kind,
      );
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
        if (draft.runtime !== undefined)
          throw new Problem(
            `the ${side} pool names two runtimes (${draft.runtime} and ${RUNTIME_NAMES[key]}); a pool has one`,
            kind,
          );
        draft.runtime = RUNTIME_NAMES[key]!;
        draft.runtimeVersion = value;
        break;
      case "flags":
        draft.flags.push(value);
        break;
      case "chart":
        set("chartKubeVersion", value, key);
        break;
      case "cgroup":
        set("cgroupVersion", value, key);
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
    ...(draft.runtime === undefined
      ? {}
      : { runtime: draft.runtime, runtimeVersion: draft.runtimeVersion! }),
    ...(draft.chartKubeVersion === undefined ? {} : { chartKubeVersion: draft.chartKubeVersion }),
    ...(draft.cgroupVersion === undefined ? {} : { cgroupVersion: draft.cgroupVersion }),
  };
}

/**
 * `nodepool check cp=1.30 [profile=strict] from <spec words> to <spec words>`
 * and `nodepool rollback cp=1.30 from <running spec> to <older spec>`.
 * cp=, profile=, platform= and asof= may stand anywhere; name= and os= before `from` hold for both sides.
 */
export function parseNodePool(args: string[]): ChatCommand {
  let kind: NodePoolKind = "nodepool-check";
  let words = args;
  const first = args[0]?.toLowerCase();
  if (first !== undefined && NODEPOOL_SUBCOMMANDS[first] !== undefined) {
    kind = NODEPOOL_SUBCOMMANDS[first];
    words = args.slice(1);
  } else if (first !== undefined && !first.includes("=") && first !== "from") {
    throw new Problem(
      `I could not read ${quote(args[0]!)}; say nodepool check (an upgrade) or nodepool rollback`,
      "nodepool-check",
    );
  }
  if (words.length === 0)
    throw new Problem(
      "give the control plane's version and the pool before and after, e.g. cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1",
      kind,
    );
  const { rest, options } = takeOptions(words, kind, new Set(["profile", "asOf", "platform"]));

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
      if (value === "")
        throw new Problem(
          `${lower.slice(0, equals)}= needs the control plane's version, e.g. cp=1.30`,
          kind,
        );
      if (controlPlaneVersion !== undefined)
        throw new Problem("the control plane's version is given twice", kind);
      controlPlaneVersion = value;
    } else if (lower === "from") {
      if (section !== "before")
        throw new Problem(
          `"from" ${section === "to" ? "comes after to" : "is given twice"}; write from <pool> to <pool>`,
          kind,
        );
      section = "from";
      sawFrom = true;
    } else if (SEPARATORS.has(lower)) {
      if (section === "to")
        throw new Problem(`"${token}" is given twice; write from <pool> to <pool>`, kind);
      section = "to";
    } else {
      (section === "before" ? before : section === "from" ? fromWords : toWords).push(token);
    }
  }
  // Without `from`, what comes before `to` is the pool as it is.
  let shared: SpecDraft = { flags: [] };
  if (sawFrom) {
    const stray = before.find((token) => !/^(?:name|pool|os)=/i.test(token));
    if (stray !== undefined)
      throw new Problem(
        `${quote(stray)} stands before from; put the pool's words after from (or after to)`,
        kind,
      );
    shared = readSpec(before, "shared", kind);
  } else {
    fromWords.unshift(...before);
  }
  if (controlPlaneVersion === undefined)
    throw new Problem("say the control plane's version with cp=, e.g. cp=1.30", kind);
  if (section !== "to")
    throw new Problem(
      `say what the pool ${kind === "nodepool-rollback" ? "goes back to" : "becomes"} after to, e.g. to kubelet=${kind === "nodepool-rollback" ? "1.28.9" : "1.30.1"}`,
      kind,
    );
  if (fromWords.length === 0)
    throw new Problem(
      "describe the pool as it runs now after from, e.g. from kubelet=1.29.4",
      kind,
    );
  if (toWords.length === 0)
    throw new Problem("describe the pool after to, e.g. to kubelet=1.30.1", kind);
  const from = readSpec(fromWords, "from", kind);
  const to = readSpec(toWords, "to", kind);
  for (const [side, draft] of [
    ["from", from],
    ["to", to],
  ] as const) {
    if (draft.kubeletVersion === undefined)
      throw new Problem(`the ${side} pool needs its kubelet version, e.g. kubelet=1.30.1`, kind);
  }
  const command = {
    kind,
    controlPlaneVersion,
    from: specOf(from, shared, to),
    to: specOf(to, shared, from),
  };
  return withClusterOptions(command, options);
}
