/**
 * The chat command language: `parseCommand` turns what a person typed into a
 * typed command (or says what was wrong with it), and `runCommand` answers
 * it by calling the domain core and laying its result out as a chat reply.
 * No compatibility rule lives here: every verdict, step and finding comes
 * from src/domain; the chat face only reads words and writes sentences.
 *
 * This is the entry point the router and the tests use. The parts:
 * chat-command.ts (what a command is), grammar.ts and node-pool-grammar.ts
 * (reading a text, on the words of words.ts), the *-answers.ts files (one
 * answer per command, written with answers.ts) and usage.ts (usage and help
 * texts). The review queue (proposal-*.ts) and the fleet (fleet-*.ts) are
 * answered from the database by the router, not here.
 */
import { InputError, NotFoundError, UnavailableError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { componentWords } from "./answers.js";
import { runCheck, runNodePool } from "./check-answers.js";
import { runFlows, runImpact, runPorts, runRemovals, runSkew } from "./knowledge-answers.js";
import { runPlan, runUpgrade } from "./plan-answers.js";
import { runCoverage, runRelease, runSupported } from "./release-answers.js";
import { runScan } from "./scan-answers.js";
import type { ChatCommand, RunOptions } from "./chat-command.js";
import { parseCommand } from "./grammar.js";
import { renderReply, type ChatReply, type ChatReplyDoc } from "./reply.js";
import { errorDoc, helpDoc, usageReply } from "./usage.js";

export type {
  ChatCommand,
  FleetCommand,
  ProposalCommand,
  CommandKind,
  NodePoolChange,
  ParseResult,
  RunOptions,
  UsageProblem,
} from "./chat-command.js";
export { MAX_COMMAND_TEXT, parseCommand } from "./grammar.js";
export { usageReply } from "./usage.js";
export { takeVisibility, tokenize } from "./words.js";

function answerDoc(snapshot: KbSnapshot, command: ChatCommand, options: RunOptions): ChatReplyDoc {
  switch (command.kind) {
    case "help":
      return helpDoc(snapshot, options);
    case "check":
      return runCheck(snapshot, command, options);
    case "upgrade":
      return runUpgrade(snapshot, command, options);
    case "plan":
      return runPlan(
        snapshot,
        command.components,
        command.to,
        command,
        command.components.map((input) => componentWords(snapshot, input)).join(", "),
        options,
      );
    case "removals":
      return runRemovals(snapshot, command);
    case "ports":
      return runPorts(snapshot, command);
    case "flows":
      return runFlows(snapshot, command);
    case "impact":
      return runImpact(snapshot, command);
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
    case "proposals":
    case "proposal":
    case "approve":
    case "reject":
      // The router answers these from the database (proposal-answers.ts); a snapshot alone holds no queue.
      throw new UnavailableError(
        "the review queue is answered by the service's chat endpoints, from its database",
      );
    case "fleet":
    case "fleet-show":
    case "fleet-events":
    case "fleet-waivers":
    case "fleet-register":
    case "fleet-waive":
    case "fleet-unwaive":
    case "fleet-subscribe":
    case "fleet-subscriptions":
    case "fleet-unsubscribe":
    case "fleet-deliveries":
    case "fleet-replay":
      // The router answers these from the fleet (fleet-answers.ts); a snapshot alone holds no clusters.
      throw new UnavailableError(
        "the fleet is answered by the service's chat endpoints, from its database",
      );
  }
}

/**
 * Answers a command from the snapshot. Bad input the domain refuses (an
 * unknown component, a malformed version) is answered with its message and
 * the command's usage; any other error is a bug and propagates.
 */
export function runCommand(
  snapshot: KbSnapshot,
  command: ChatCommand,
  options: RunOptions = {},
): ChatReply {
  try {
    return renderReply(answerDoc(snapshot, command, options));
  } catch (error) {
    if (error instanceof InputError || error instanceof NotFoundError)
      return renderReply(errorDoc(snapshot, error, command.kind, options));
    throw error;
  }
}

/** Parses and answers one chat text. */
export function answer(snapshot: KbSnapshot, text: string, options: RunOptions = {}): ChatReply {
  const parsed = parseCommand(text);
  return parsed.ok
    ? runCommand(snapshot, parsed.command, options)
    : usageReply(snapshot, parsed, options);
}
