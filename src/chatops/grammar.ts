/**
 * The chat command grammar: parseCommand reads what a person typed into a
 * ChatCommand, or says what was wrong with it and which command's usage to
 * show. The node-pool words are read by node-pool-grammar.ts, the fleet's by
 * fleet-grammar.ts, components and pasted kubectl output by component-grammar.ts.
 */
import type { ChatCommand, CommandKind, ParseResult } from "./chat-command.js";
import { pastedKubectl, takeComponents, type PastedKubectl } from "./component-grammar.js";
import { parseFleet } from "./fleet-grammar.js";
import { parseNodePool } from "./node-pool-grammar.js";
import { parseProposalCommand } from "./proposal-grammar.js";
import {
  Problem,
  SEPARATORS,
  isVersionWord,
  quote,
  takeOptions,
  tokenize,
  withClusterOptions,
  withProfile,
} from "./words.js";

/** Longest text accepted, as Slack's own limit for a slash command's text. */
export const MAX_COMMAND_TEXT = 4000;

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
  flows: "ports",
  firewall: "ports",
  impact: "impact",
  changes: "impact",
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
  // The review queue (proposal-grammar.ts).
  proposals: "proposals",
  queue: "proposals",
  proposal: "proposal",
  approve: "approve",
  reject: "reject",
};

/** What every cluster question takes alike: one list, so `check`, `plan` and `upgrade` cannot drift apart. */
const CLUSTER_OPTIONS = new Set(["profile", "asOf", "platform"]);

function parseCheck(args: string[], pasted?: PastedKubectl): ChatCommand {
  const { rest, options } = takeOptions(args, "check", CLUSTER_OPTIONS);
  const components = takeComponents(rest, "check");
  if (pasted !== undefined)
    return withClusterOptions({ kind: "check" as const, components, kubectl: pasted }, options);
  if (components.length === 0)
    throw new Problem("name at least one component with its version", "check");
  return withClusterOptions({ kind: "check" as const, components }, options);
}

/** `upgrade 1.27 -> 1.30`, `plan apiserver=1.27 kubelet=1.26 to 1.30`: with components it is a plan, without one an upgrade. */
function parseUpgradeOrPlan(args: string[], word: "upgrade" | "plan"): ChatCommand {
  const { rest, options } = takeOptions(args, word, new Set([...CLUSTER_OPTIONS, "target"]));
  const words = rest[0]?.toLowerCase() === "from" ? rest.slice(1) : rest;
  const separator = words.findIndex((token) => SEPARATORS.has(token.toLowerCase()));
  let before = separator === -1 ? words : words.slice(0, separator);
  let after = separator === -1 ? [] : words.slice(separator + 1);
  // `upgrade 1.27 1.30` without a separator: the last version is the target.
  const last = before[before.length - 1];
  const previous = before[before.length - 2];
  if (
    separator === -1 &&
    options.target === undefined &&
    isVersionWord(last) &&
    previous !== undefined &&
    (isVersionWord(previous) || previous.includes("="))
  ) {
    after = before.slice(-1);
    before = before.slice(0, -1);
  }
  if (options.target !== undefined) {
    if (after.length > 0) throw new Problem("the target version is given twice", word);
    after = [options.target];
  }
  const isBasic = before.length === 1 && isVersionWord(before[0]);
  const kind = isBasic ? "upgrade" : "plan";
  if (after.length !== 1) {
    throw new Problem(
      after.length === 0
        ? "say which version to upgrade to"
        : `I could not read ${quote(after.join(" "))} as the target version`,
      kind,
    );
  }
  const to = after[0]!;
  if (isBasic)
    return withClusterOptions({ kind: "upgrade" as const, from: before[0]!, to }, options);
  if (before.length === 0) throw new Problem("say which version to upgrade from", word);
  return withClusterOptions(
    { kind: "plan" as const, components: takeComponents(before, "plan"), to },
    options,
  );
}

function parseRemovals(args: string[]): ChatCommand {
  const versions = args.filter(
    (token) => !["from", "after", "to", "until", "->", "in"].includes(token.toLowerCase()),
  );
  const [first, second] = versions;
  if (versions.length === 0 || versions.length > 2)
    throw new Problem(
      versions.length === 0 ? "give two versions" : "give at most two versions",
      "removals",
    );
  const unreadable = versions.find((token) => !isVersionWord(token));
  if (unreadable !== undefined)
    throw new Problem(`${quote(unreadable)} is not a version such as 1.29`, "removals");
  return second === undefined
    ? { kind: "removals", to: first! }
    : { kind: "removals", from: first!, to: second };
}

function parsePorts(args: string[]): ChatCommand {
  // `ports workers -> control-plane [calico]`: flows between roles rather than a component's ports.
  const arrow = args.indexOf("->");
  if (arrow !== -1) {
    const from = args.slice(0, arrow).filter((word) => word.toLowerCase() !== "from");
    const [to, cni, ...extra] = args.slice(arrow + 1);
    if (from.length !== 1 || to === undefined)
      throw new Problem("name two roles: ports workers -> control-plane [calico]", "flows");
    if (extra.length > 0)
      throw new Problem(`I do not understand ${quote(extra.join(" "))} after the CNI`, "flows");
    return {
      kind: "flows",
      from: from[0]!,
      to,
      ...(cni === undefined ? {} : { cni: cni.replace(/^cni=/i, "") }),
    };
  }
  const words = ["of", "for"].includes(args[0]?.toLowerCase() ?? "") ? args.slice(1) : args;
  if (words.length === 0) throw new Problem("name a component", "ports");
  return { kind: "ports", component: words.join(" ") };
}

/** `impact [from] 1.24 -> 1.29 [tenant-isolation,security]` (also `1.24 to 1.29`). */
function parseImpact(args: string[]): ChatCommand {
  const words = args[0]?.toLowerCase() === "from" ? args.slice(1) : args;
  const separator = words.findIndex((token) => SEPARATORS.has(token.toLowerCase()));
  const from = separator === -1 ? words[0] : words[separator - 1];
  const to = separator === -1 ? words[1] : words[separator + 1];
  const rest =
    separator === -1
      ? words.slice(2)
      : [...words.slice(0, separator - 1), ...words.slice(separator + 2)];
  if (!isVersionWord(from) || !isVersionWord(to))
    throw new Problem(
      "give the minor you upgrade from and the one you upgrade to: impact 1.24 -> 1.29",
      "impact",
    );
  const areas = rest.map((word) => word.replace(/^areas?=/i, "")).join(",");
  return { kind: "impact", from: from!, to: to!, ...(areas === "" ? {} : { areas }) };
}

function parseSkew(args: string[]): ChatCommand {
  const { rest, options } = takeOptions(args, "skew", new Set(["profile"]));
  const words = rest[0]?.toLowerCase() === "for" ? rest.slice(1) : rest;
  const atIndex = words.findIndex(
    (token) => ["at", "in", "on"].includes(token.toLowerCase()) || isVersionWord(token),
  );
  const componentWords = atIndex === -1 ? words : words.slice(0, atIndex);
  const versionWords =
    atIndex === -1 ? [] : words.slice(isVersionWord(words[atIndex]) ? atIndex : atIndex + 1);
  if (componentWords.length === 0) throw new Problem("name a component", "skew");
  if (atIndex !== -1 && versionWords.length !== 1)
    throw new Problem("give one version after at, e.g. at 1.29", "skew");
  const command = withProfile(
    { kind: "skew" as const, component: componentWords.join(" ") },
    options,
  );
  return versionWords[0] === undefined ? command : { ...command, at: versionWords[0] };
}

function parseRelease(args: string[]): ChatCommand {
  if (args.length > 1) throw new Problem("give one version", "release");
  return args[0] === undefined ? { kind: "release" } : { kind: "release", version: args[0] };
}

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
    } else if (to === undefined && isVersionWord(words[index])) {
      to = words[index];
    } else {
      return {
        ok: false,
        problem: `I do not understand ${quote(words[index]!)} in scan`,
        kind: "scan",
      };
    }
  }
  if (to === undefined)
    return { ok: false, problem: "say which version to scan for: scan to 1.29", kind: "scan" };
  const manifests = (match[2] ?? "")
    .replace(/^\s*```[a-z]*\n?/i, "")
    .replace(/\n?```\s*$/, "")
    .trim();
  if (manifests === "")
    return {
      ok: false,
      problem: "paste the manifests after the first line (or in a ``` block)",
      kind: "scan",
    };
  return {
    ok: true,
    command: { kind: "scan", to, ...(from === undefined ? {} : { from }), manifests },
  };
}

/**
 * `check` with what kubectl printed pasted after the first line (or in a ``` block): the lines of
 * `kubectl version` and the table of `kubectl get nodes` (-o wide), as the design notes' pre-upgrade
 * check reads them. Components on the first line are judged with them.
 */
function parsePastedCheck(text: string): ParseResult | undefined {
  const match = /^\s*(?:(?:@?kubecompat|<@\w+>|\/\S+)\s+)?check\b([^\n`]*)\n([\s\S]*)$/i.exec(text);
  if (match === null) return undefined;
  const pasted = pastedKubectl(match[2]!);
  if (pasted === undefined) {
    return {
      ok: false,
      problem:
        "paste the output of `kubectl version` and/or `kubectl get nodes` after the first line (or in a ``` block)",
      kind: "check",
    };
  }
  try {
    return { ok: true, command: parseCheck(tokenize(match[1]!), pasted) };
  } catch (error) {
    if (error instanceof Problem) return { ok: false, problem: error.message, kind: "check" };
    throw error;
  }
}

/** Reads one chat command. Never throws: anything unreadable is a UsageProblem. */
export function parseCommand(text: string): ParseResult {
  if (text.length > MAX_COMMAND_TEXT)
    return { ok: false, problem: `the command is longer than ${MAX_COMMAND_TEXT} characters` };
  const scan = parseScan(text);
  if (scan !== undefined) return scan;
  const pasted = parsePastedCheck(text);
  if (pasted !== undefined) return pasted;
  const fleet = parseFleet(text);
  if (fleet !== undefined) return fleet;
  let tokens = tokenize(text);
  // Bridges often pass the whole message, mention of the bot included.
  if (tokens[0] !== undefined && /^(?:@?kubecompat|<@\w+>|\/\S+)$/i.test(tokens[0]))
    tokens = tokens.slice(1);
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
      case "impact":
        return { ok: true, command: parseImpact(args) };
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
          command: {
            kind: "supported",
            ...(rest[0] === undefined ? {} : { version: rest[0] }),
            ...(options.asOf === undefined ? {} : { asOf: options.asOf }),
          },
        };
      }
      case "nodepool-check":
      case "nodepool-rollback":
        return { ok: true, command: parseNodePool(args) };
      case "proposals":
      case "proposal":
      case "approve":
      case "reject":
        return { ok: true, command: parseProposalCommand(kind, args) };
      default:
        return { ok: false, problem: `I do not know the command ${quote(word)}` };
    }
  } catch (error) {
    if (error instanceof Problem)
      return error.kind === undefined
        ? { ok: false, problem: error.message }
        : { ok: false, problem: error.message, kind: error.kind };
    throw error;
  }
}
