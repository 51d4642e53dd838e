/**
 * The words of a chat text as both grammars read them (grammar.ts for the
 * commands, node-pool-grammar.ts for the node-pool specs): splitting a text
 * into words, what looks like a version, `key=value` options, and the
 * Problem a word that cannot be read raises, which parseCommand turns into a
 * UsageProblem.
 */
import { isVersionAlias } from "../domain/release-status.js";
import type { CommandKind } from "./chat-command.js";

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
export const SEPARATORS = new Set(["->", "to"]);
const PROFILE_KEYS = new Set(["profile", "policy"]);
const AS_OF_KEYS = new Set(["asof", "as-of", "as_of", "date"]);
const TARGET_KEYS = new Set(["to", "target"]);
const PLATFORM_KEYS = new Set(["platform", "on"]);

export function isVersionLike(token: string | undefined): boolean {
  return token !== undefined && VERSION_LIKE.test(token);
}

/**
 * A word that stands for a Kubernetes version where the grammar expects one: a version, or an alias
 * (`latest`, `oldest-supported`) that the domain's one version reader resolves on the day asked about.
 */
export function isVersionWord(token: string | undefined): boolean {
  return isVersionLike(token) || isVersionAlias(token);
}

interface Options {
  profile?: string;
  asOf?: string;
  target?: string;
  platform?: string;
}

export class Problem extends Error {
  constructor(
    message: string,
    readonly kind?: Exclude<CommandKind, "help">,
  ) {
    super(message);
  }
}

export function quote(token: string): string {
  const shown = token.length > 40 ? `${token.slice(0, 40)}…` : token;
  return `"${shown}"`;
}

/** Takes `key=value` options out of the argument list. */
export function takeOptions(
  args: string[],
  kind: Exclude<CommandKind, "help">,
  allowed: ReadonlySet<string>,
): { rest: string[]; options: Options } {
  const options: Options = {};
  const rest: string[] = [];
  for (const token of args) {
    const equals = token.indexOf("=");
    const key = equals > 0 ? token.slice(0, equals).toLowerCase() : "";
    const value = token.slice(equals + 1);
    const name = PROFILE_KEYS.has(key)
      ? "profile"
      : AS_OF_KEYS.has(key)
        ? "asOf"
        : TARGET_KEYS.has(key)
          ? "target"
          : PLATFORM_KEYS.has(key)
            ? "platform"
            : undefined;
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

export function withProfile<T extends object>(
  command: T,
  options: Options,
): T & { profile?: string } {
  return options.profile === undefined ? command : { ...command, profile: options.profile };
}

/** The options every cluster question takes alike (check, plan, upgrade): profile=, asof= and platform=. */
export function withClusterOptions<T extends object>(
  command: T,
  options: Options,
): T & { profile?: string; asOf?: string; platform?: string } {
  return {
    ...command,
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.asOf === undefined ? {} : { asOf: options.asOf }),
    ...(options.platform === undefined ? {} : { platform: options.platform }),
  };
}
