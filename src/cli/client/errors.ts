/**
 * The CLI's failures that are not findings: every one of them ends the run
 * with exit code 2 and a message on stderr that says what to fix. Findings
 * (exit 1) are answers, not errors, and never pass through here.
 */

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_FAILURE = 2;

/** Anything that stops the CLI before it has an answer to show. */
export class CliError extends Error {
  /** Extra lines printed under the message (server details, hints). */
  readonly hints: readonly string[];

  constructor(message: string, hints: readonly string[] = []) {
    super(message);
    this.name = new.target.name;
    this.hints = hints;
  }
}

/** The command line itself is wrong: unknown command or flag, missing or extra arguments. */
export class UsageError extends CliError {
  /** The command whose --help to point at, or null for the top-level help. */
  readonly command: string | null;

  constructor(message: string, command: string | null, hints: readonly string[] = []) {
    super(message, hints);
    this.command = command;
  }
}

/** A file named on the command line is missing, unreadable or not what it should be. */
export class InputFileError extends CliError {}

/** No HTTP answer at all: the server is down, the name does not resolve, the request timed out. */
export class ServerUnreachableError extends CliError {}

/** The server answered, but with an error (4xx/5xx) or with something that is not kubecompat's JSON. */
export class ServerAnswerError extends CliError {}

/** --offline could not start its in-process server (the shipped kb/ is missing or invalid). */
export class OfflineError extends CliError {}
