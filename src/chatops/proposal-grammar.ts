/**
 * The words of the review queue: `proposals`, `proposal 12`, `approve 12 13`
 * and `reject 12 the reason`. Only the shape is read here (ids are positive
 * whole numbers, a rejection has a reason); whether the ids exist and who
 * may decide is proposal-answers.ts's business.
 */
import type { ProposalCommand } from "./chat-command.js";
import { Problem, quote } from "./words.js";

/** Most proposals one approval takes, as over REST and GraphQL. */
const MAX_APPROVALS = 100;

/** `12` or `#12`, as people copy it from a list. */
function idOf(word: string, kind: ProposalCommand["kind"]): number {
  const digits = word.startsWith("#") ? word.slice(1) : word;
  if (!/^[1-9]\d{0,8}$/.test(digits))
    throw new Problem(
      `${quote(word)} is not a proposal id (a positive whole number, as \`proposals\` lists them)`,
      kind,
    );
  return Number(digits);
}

export function parseProposalCommand(
  kind: ProposalCommand["kind"],
  args: readonly string[],
): ProposalCommand {
  switch (kind) {
    case "proposals":
    case "proposal": {
      if (args.length === 0) {
        if (kind === "proposals") return { kind: "proposals" };
        throw new Problem("give the proposal's id (list the open ones with `proposals`)", kind);
      }
      if (args.length > 1) throw new Problem("show one proposal at a time", "proposal");
      return { kind: "proposal", id: idOf(args[0]!, "proposal") };
    }
    case "approve": {
      if (args.length === 0) throw new Problem("give the ids of the proposals to approve", kind);
      if (args.length > MAX_APPROVALS)
        throw new Problem(`approve at most ${MAX_APPROVALS} proposals at once`, kind);
      return { kind, ids: args.map((word) => idOf(word.replace(/,$/, ""), kind)) };
    }
    case "reject": {
      const [first, ...reason] = args;
      if (first === undefined) throw new Problem("give the id of the proposal to reject", kind);
      const id = idOf(first, kind);
      if (reason.length === 0)
        throw new Problem(
          "give the reason after the id: it is kept with the proposal, for whoever derives it next",
          kind,
        );
      return { kind, id, reason: reason.join(" ") };
    }
  }
}
