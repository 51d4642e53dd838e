/**
 * The command line of `kubecompat`: how argv is split into a command, its
 * positionals and its flags (the table of which is command-flags.ts), and the
 * flags whose values are checked here (--fail-on, --output). Mistakes are UsageErrors (exit 2)
 * that name the offending word and, when it is a near miss, the word meant;
 * a flag the command does not take is refused rather than ignored, so a typo
 * never silently changes the question asked.
 */
import { editDistance } from "../../domain/names.js";
import { UsageError } from "./errors.js";
import {
  COMMANDS,
  COMMAND_FLAGS,
  GLOBAL_FLAGS,
  type CommandName,
  type FlagSpec,
} from "./command-flags.js";

export { editDistance };

export const OUTPUT_FORMATS = ["text", "json", "markdown", "sarif", "junit", "github"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface CommandLine {
  /** null when only global flags were given (`kubecompat --version`). */
  readonly command: CommandName | "help" | null;
  readonly positionals: readonly string[];
  /** Flag name (long form, without dashes) to its value; switches map to true. */
  readonly flags: ReadonlyMap<string, string | true>;
  /** Every value of each repeatable flag, in order (--values a.yaml --values b.yaml). */
  readonly lists?: ReadonlyMap<string, readonly string[]>;
}

export function parseCommandLine(argv: readonly string[]): CommandLine {
  let command: CommandName | "help" | null = null;
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  let flagsEnded = false;

  for (let index = 0; index < argv.length; index += 1) {
    const token = argv[index]!;
    if (flagsEnded || token === "-" || !token.startsWith("-")) {
      if (command === null) command = commandNamed(token);
      else positionals.push(token);
      continue;
    }
    if (token === "--") {
      flagsEnded = true;
      continue;
    }
    const { spec, inlineValue } = flagOf(token, command);
    if (flags.has(spec.name) && spec.repeatable !== true)
      throw new UsageError(`--${spec.name} is given twice; give it once`, commandOrNull(command));
    if (spec.value === null) {
      if (inlineValue !== undefined)
        throw new UsageError(
          `--${spec.name} takes no value (got "${inlineValue}")`,
          commandOrNull(command),
        );
      flags.set(spec.name, true);
      continue;
    }
    let value = inlineValue;
    if (value === undefined) {
      const next = argv[index + 1];
      // "-" is a value (stdin); any other dash word is the next flag, so the value is missing.
      if (next === undefined || (next.startsWith("-") && next !== "-")) {
        throw new UsageError(
          `--${spec.name} needs a value: --${spec.name} ${spec.value}`,
          commandOrNull(command),
        );
      }
      value = next;
      index += 1;
    }
    if (spec.repeatable === true) lists.set(spec.name, [...(lists.get(spec.name) ?? []), value]);
    flags.set(spec.name, value);
  }

  // Flags before the command are checked once the command is known: `kubecompat --to 1.30 check` is refused too.
  if (command !== null && command !== "help") {
    const allowed = new Set([...GLOBAL_FLAGS, ...COMMAND_FLAGS[command]].map((spec) => spec.name));
    for (const name of flags.keys()) {
      if (!allowed.has(name))
        throw new UsageError(`kubecompat ${command} takes no --${name}`, command);
    }
  } else {
    const commandOnly = [...flags.keys()].find(
      (name) => !GLOBAL_FLAGS.some((spec) => spec.name === name),
    );
    if (
      commandOnly !== undefined &&
      command === null &&
      !flags.has("help") &&
      !flags.has("version")
    ) {
      throw new UsageError(
        `--${commandOnly} belongs to a command; name one: ${COMMANDS.join(", ")}`,
        null,
      );
    }
  }
  return { command, positionals, flags, lists };
}

function commandOrNull(command: CommandName | "help" | null): CommandName | null {
  return command === null || command === "help" ? null : command;
}

function commandNamed(word: string): CommandName | "help" {
  if (word === "help") return "help";
  if ((COMMANDS as readonly string[]).includes(word)) return word as CommandName;
  const meant = nearest(word, [...COMMANDS]);
  throw new UsageError(
    `unknown command "${word}"${meant ? `; did you mean ${meant}?` : ""} Commands: ${COMMANDS.join(", ")}`,
    null,
  );
}

function flagOf(
  token: string,
  command: CommandName | "help" | null,
): { spec: FlagSpec; inlineValue: string | undefined } {
  const known =
    command === null || command === "help"
      ? allFlags()
      : [...GLOBAL_FLAGS, ...COMMAND_FLAGS[command]];
  if (token.startsWith("--")) {
    const equals = token.indexOf("=");
    const name = equals === -1 ? token.slice(2) : token.slice(2, equals);
    const inlineValue = equals === -1 ? undefined : token.slice(equals + 1);
    const spec = known.find((candidate) => candidate.name === name);
    if (spec) return { spec, inlineValue };
    const meant = nearest(
      name,
      known.map((candidate) => candidate.name),
    );
    const owner = command === null || command === "help" ? "kubecompat" : `kubecompat ${command}`;
    throw new UsageError(
      `unknown flag --${name} for ${owner}${meant ? `; did you mean --${meant}?` : ""}`,
      commandOrNull(command),
    );
  }
  const spec = known.find(
    (candidate) => candidate.short !== undefined && `-${candidate.short}` === token,
  );
  if (spec) return { spec, inlineValue: undefined };
  throw new UsageError(
    `unknown flag ${token}; flags are written --name (short forms: -o, -h)`,
    commandOrNull(command),
  );
}

function allFlags(): FlagSpec[] {
  const byName = new Map<string, FlagSpec>();
  for (const spec of [...GLOBAL_FLAGS, ...Object.values(COMMAND_FLAGS).flat()])
    byName.set(spec.name, spec);
  return [...byName.values()];
}

/** The candidate within two edits of `word` (or having it as a prefix), for "did you mean". */
function nearest(word: string, candidates: readonly string[]): string | null {
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance =
      candidate.startsWith(word) && word.length >= 2 ? 1 : editDistance(word, candidate);
    if (distance <= 2 && (best === null || distance < best.distance))
      best = { candidate, distance };
  }
  return best?.candidate ?? null;
}

/** The value of a flag that takes one (switches never reach here). */
export function flagValue(commandLine: CommandLine, name: string): string | undefined {
  const value = commandLine.flags.get(name);
  return typeof value === "string" ? value : undefined;
}

/** Every value of a repeatable flag, in the order given; none when it was not given. */
export function flagValues(commandLine: CommandLine, name: string): readonly string[] {
  return commandLine.lists?.get(name) ?? [];
}

export const FAIL_ON_LEVELS = ["error", "warning", "eol"] as const;
export type FailOn = (typeof FAIL_ON_LEVELS)[number];

export function failOn(commandLine: CommandLine): FailOn {
  const value = flagValue(commandLine, "fail-on") ?? "error";
  if ((FAIL_ON_LEVELS as readonly string[]).includes(value)) return value as FailOn;
  throw new UsageError(
    `--fail-on must be one of ${FAIL_ON_LEVELS.join(", ")} (got "${value}")`,
    commandOrNull(commandLine.command),
  );
}

export function outputFormat(commandLine: CommandLine): OutputFormat {
  const value = flagValue(commandLine, "output") ?? "text";
  if (
    (value === "sarif" || value === "junit" || value === "github") &&
    commandLine.command !== "scan" &&
    commandLine.command !== "scan-cluster" &&
    commandLine.command !== "fix"
  ) {
    throw new UsageError(
      `--output ${value} is for scan, scan-cluster and fix, whose findings have places in files or in the cluster; use json or markdown here`,
      commandOrNull(commandLine.command),
    );
  }
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  if (value === "md") return "markdown";
  throw new UsageError(
    `--output must be one of ${OUTPUT_FORMATS.join(", ")} (got "${value}")`,
    commandOrNull(commandLine.command),
  );
}
