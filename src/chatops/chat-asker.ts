/**
 * Who sent a chat command, and who of them may change shared state (decide
 * proposals, register clusters, waive findings): only a Slack user named in
 * CHATOPS_REVIEWERS, acting as an editor and recorded as `slack:<user id>`.
 * A bot's shared token names no person, and dev mode proves nobody's
 * identity, so neither ever writes. One rule for every chat command that
 * writes, so the review queue and the fleet refuse alike.
 */
import { ForbiddenError } from "../core/errors.js";
import type { Principal } from "../core/tokens.js";

/**
 * Who sent a chat command: a Slack user (by the user_id Slack signs), a bot with the shared token, or
 * someone on this machine in dev mode (CHATOPS_DEV), proven by nothing but the loopback interface.
 */
export type ChatAsker =
  | { readonly face: "slack"; readonly userId: string }
  | { readonly face: "bot" }
  | { readonly face: "dev" };

/** What a refusal says: what was asked (`approve or reject proposals`) and how else to do it. */
export interface ChatWrite {
  readonly action: string;
  readonly elsewhere: string;
}

/** The editor a chat asker writes as; a refusal that says who may and how to become one. */
export function chatEditorOf(
  asker: ChatAsker,
  reviewers: readonly string[],
  write: ChatWrite,
): Principal {
  if (asker.face === "bot")
    throw new ForbiddenError(
      `a bot's shared token (CHATOPS_TOKEN) names no person, so it cannot ${write.action}: a reviewer does it in Slack (CHATOPS_REVIEWERS), ${write.elsewhere}`,
    );
  if (asker.face === "dev")
    throw new ForbiddenError(
      `chat dev mode (CHATOPS_DEV) proves nobody's identity, so it cannot ${write.action}: a reviewer does it in Slack (CHATOPS_REVIEWERS), ${write.elsewhere}`,
    );
  if (!reviewers.includes(asker.userId))
    throw new ForbiddenError(
      `only the Slack users named in CHATOPS_REVIEWERS may ${write.action} (${
        reviewers.length === 0 ? "it names nobody" : `now ${reviewers.join(", ")}`
      }); an operator adds your member id ${asker.userId} to it, ${write.elsewhere}`,
    );
  return { name: `slack:${asker.userId}`, role: "editor" };
}
