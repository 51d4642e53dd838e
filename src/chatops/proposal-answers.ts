/**
 * The review queue in chat: the open proposals as short lines, one proposal
 * in full (each field before → after, where it was read), and a reviewer's
 * approvals and rejections. Who may decide is tight: only a Slack user
 * named in CHATOPS_REVIEWERS, acting as an editor and recorded as
 * `slack:<user id>`; a bot's shared token names no person and never decides.
 * Roles, revisions and conflicts are the ProposalReview's business.
 */
import { UnavailableError } from "../core/errors.js";
import type { Principal } from "../core/tokens.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { describeError } from "../http/errors.js";
import { fieldChanges, valueWords } from "../services/proposal-changes.js";
import type { ApprovalOutcome, ProposalReview, StoredProposal } from "../services/proposals.js";
import { revision } from "./answers.js";
import { chatEditorOf, type ChatAsker } from "./chat-asker.js";
import type { ChatCommand, ProposalCommand, RunOptions } from "./chat-command.js";
import { firstOf, type ChatReplyDoc, type Line, type ReplySection } from "./reply.js";
import { errorDoc } from "./usage.js";

export type { ChatAsker } from "./chat-asker.js";

export interface ChatReview {
  /** Absent when the service has no database (then there is no queue). */
  readonly review: ProposalReview | undefined;
  /** Slack user ids that may approve and reject (CHATOPS_REVIEWERS). */
  readonly reviewers: readonly string[];
  /** The snapshot in force now (after an approval, the new one). */
  readonly latest: () => KbSnapshot;
}

const PROPOSAL_KINDS: ReadonlySet<string> = new Set(["proposals", "proposal", "approve", "reject"]);

export function isProposalCommand(command: ChatCommand): command is ProposalCommand {
  return PROPOSAL_KINDS.has(command.kind);
}

const HOW_ELSE =
  "or decide with an editor token over REST (POST /api/v1/proposals/{id}/approve), GraphQL (approveProposals) or the /proposals page";

/** The editor a chat asker decides as (chat-asker.ts): a reviewer named in CHATOPS_REVIEWERS. */
function reviewerOf(asker: ChatAsker, reviewers: readonly string[]): Principal {
  return chatEditorOf(asker, reviewers, {
    action: "approve or reject proposals",
    elsewhere: HOW_ELSE,
  });
}

const ACTION_WORDS: Readonly<Record<StoredProposal["action"], string>> = {
  create: "create",
  update: "update",
  retire: "retire",
};

function fieldsWords(proposal: StoredProposal): string {
  if (proposal.action === "retire") return "removes the record";
  if (proposal.action === "create") {
    const fields = Object.keys(proposal.record ?? {});
    return `new record (${fields.length} fields)`;
  }
  return `changes ${proposal.changedFields.join(", ")}`;
}

/** `#12 update apiRemovals <key>: changes removedIn — kubernetes/api at … (82c0029e)`. */
function shortLine(proposal: StoredProposal): Line {
  return [
    { bold: `#${proposal.id}` },
    ` ${ACTION_WORDS[proposal.action]} ${proposal.entity} `,
    { code: proposal.key },
    `: ${fieldsWords(proposal)} — ${proposal.source}`,
    ...(proposal.problems.length > 0 ? [` ⚠️ ${proposal.problems.length} problem(s)`] : []),
  ];
}

async function listDoc(review: ProposalReview, snapshot: KbSnapshot): Promise<ChatReplyDoc> {
  const open = await review.list("open", 100);
  const { shown, omitted } = firstOf(open);
  return {
    headline:
      open.length === 0
        ? "📭 No open proposals"
        : `📬 ${open.length}${omitted > 0 ? "+" : ""} open proposal${open.length === 1 ? "" : "s"}`,
    sections:
      open.length === 0
        ? [{ style: "plain", lines: [["Nothing waits for a reviewer."]] }]
        : [
            { style: "bullets", lines: shown.map(shortLine), omitted },
            {
              style: "plain",
              lines: [
                ["Show one: ", { code: "proposal ID" }, " · decide: ", { code: "approve ID" }],
              ],
            },
          ],
    context: [revision(snapshot)],
  };
}

function decisionLine(proposal: StoredProposal): Line | undefined {
  if (proposal.status === "OPEN") return undefined;
  return [
    `${proposal.status === "APPROVED" ? "✅ Approved" : "🚫 Rejected"} by ${proposal.decidedBy ?? "?"} at ${proposal.decidedAt?.toISOString() ?? "?"}`,
    proposal.appliedRevision === null ? "" : ` (kb revision ${proposal.appliedRevision})`,
    proposal.reason === null ? "" : `: ${proposal.reason}`,
  ];
}

function showDoc(proposal: StoredProposal, snapshot: KbSnapshot): ChatReplyDoc {
  const changes = firstOf(fieldChanges(snapshot, proposal), 30);
  const decided = decisionLine(proposal);
  const sections: ReplySection[] = [
    {
      title: "What changes (before → after)",
      style: "bullets",
      lines: changes.shown.map((change) => [
        { bold: change.field },
        `: ${valueWords(change.before)} → ${valueWords(change.after)}`,
      ]),
      omitted: changes.omitted,
    },
    {
      title: "Where it comes from",
      style: "plain",
      lines: [
        [`${proposal.source}, revision `, { code: proposal.sourceRevision }],
        [`derivation ${proposal.derivation}, filed ${proposal.createdAt.toISOString()}`],
        [
          proposal.baseRevision === null
            ? "derived with no record of this key"
            : `derived against record revision ${proposal.baseRevision}`,
        ],
      ],
    },
  ];
  if (proposal.problems.length > 0)
    sections.push({
      title: "Problems (approve it with a finished record over REST or GraphQL)",
      style: "bullets",
      lines: proposal.problems.map((problem) => [{ code: problem.field }, ` ${problem.message}`]),
    });
  sections.push(
    decided === undefined
      ? {
          style: "plain",
          lines: [
            ["Decide: ", { code: `approve ${proposal.id}` }, " or "],
            [{ code: `reject ${proposal.id} <reason>` }],
          ],
        }
      : { style: "quote", lines: [decided] },
  );
  return {
    headline: `📝 Proposal #${proposal.id} (${proposal.status.toLowerCase()}): ${proposal.action} ${proposal.key}`,
    sections,
    context: [revision(snapshot), proposal.entity],
  };
}

function outcomeLine(outcome: ApprovalOutcome): Line {
  if (outcome.ok)
    return [
      `✅ #${outcome.id} `,
      { code: outcome.proposal.key },
      ` applied (kb revision ${outcome.proposal.appliedRevision ?? "?"})`,
    ];
  const { code, message } = describeError(outcome.error);
  return [`⚠️ #${outcome.id} not applied: `, { code }, ` ${message}`];
}

function approvedDoc(outcomes: readonly ApprovalOutcome[], snapshot: KbSnapshot): ChatReplyDoc {
  const applied = outcomes.filter((outcome) => outcome.ok).length;
  return {
    headline:
      applied === outcomes.length
        ? `✅ Approved ${applied} proposal${applied === 1 ? "" : "s"}`
        : `⚠️ Approved ${applied} of ${outcomes.length} proposals`,
    sections: [{ style: "bullets", lines: outcomes.map(outcomeLine) }],
    context: [revision(snapshot)],
  };
}

async function answerDoc(
  chat: ChatReview,
  command: ProposalCommand,
  asker: ChatAsker,
): Promise<ChatReplyDoc> {
  const review = chat.review;
  if (review === undefined)
    throw new UnavailableError(
      "this instance has no review queue: proposals live in the database, and it runs without one",
    );
  switch (command.kind) {
    case "proposals":
      return listDoc(review, chat.latest());
    case "proposal":
      return showDoc(await review.show(command.id), chat.latest());
    case "approve": {
      const outcomes = await review.approve(reviewerOf(asker, chat.reviewers), command.ids);
      return approvedDoc(outcomes, chat.latest());
    }
    case "reject": {
      const principal = reviewerOf(asker, chat.reviewers);
      const rejected = await review.reject(principal, command.id, command.reason);
      return { ...showDoc(rejected, chat.latest()), headline: `🚫 Rejected #${rejected.id}` };
    }
  }
}

/**
 * Answers a review-queue command. What the caller must fix (an unknown id, a
 * decided proposal, a refusal) is answered with its message and the usage;
 * anything else is a bug and propagates.
 */
export async function runProposalCommand(
  chat: ChatReview,
  command: ProposalCommand,
  asker: ChatAsker,
  options: RunOptions = {},
): Promise<ChatReplyDoc> {
  try {
    return await answerDoc(chat, command, asker);
  } catch (error) {
    if (describeError(error).internal) throw error;
    return errorDoc(chat.latest(), error as never, command.kind, options);
  }
}
