/**
 * The shape of a chat answer and its two renderings: Markdown (for bots
 * behind /chatops/command) and Slack Block Kit (for /chatops/slack). Command
 * code builds one ChatReplyDoc; this module alone knows the formats, their
 * escaping and Block Kit's size limits, so a long answer is shortened here
 * instead of being refused by Slack.
 */

/** A piece of a line: plain text, or text with one kind of emphasis. */
export type Inline =
  | string
  | { readonly bold: string }
  | { readonly code: string }
  | { readonly link: string; readonly label: string };

export type Line = readonly Inline[];

export interface ReplySection {
  readonly title?: string;
  /** bullets: "• "; numbered: the line carries its own number; plain: as is; quote: a block quote. */
  readonly style: "bullets" | "numbered" | "plain" | "quote";
  readonly lines: readonly Line[];
  /** Lines that were left out to keep the answer short ("…and N more"). */
  readonly omitted?: number;
  /**
   * A Mermaid diagram after the lines, fenced as ```mermaid in Markdown, where bots' chat tools draw it.
   * Slack draws no Mermaid, so its blocks leave the diagram out (the lines say the same in words).
   */
  readonly mermaid?: string;
}

export interface ChatReplyDoc {
  /** One line, emoji allowed: the verdict or what the answer is about. */
  readonly headline: string;
  /** The plain one-liner for notifications; the headline when absent. */
  readonly fallback?: string;
  readonly sections: readonly ReplySection[];
  /** Small print under the answer: `kb revision 3`, the profile, the date judged on. */
  readonly context: readonly string[];
}

export type SlackBlock =
  | {
      readonly type: "header";
      readonly text: { readonly type: "plain_text"; readonly text: string; readonly emoji: true };
    }
  | { readonly type: "section"; readonly text: { readonly type: "mrkdwn"; readonly text: string } }
  | {
      readonly type: "context";
      readonly elements: ReadonlyArray<{ readonly type: "mrkdwn"; readonly text: string }>;
    }
  | { readonly type: "divider" };

export interface ChatReply {
  /** The whole answer as Markdown. */
  readonly text: string;
  /** The same answer as Slack Block Kit blocks. */
  readonly blocks: readonly SlackBlock[];
  /** One plain line for notifications and clients that cannot show blocks (Slack's `text`). */
  readonly fallback: string;
  /** Shown to the asker only, whatever visibility was asked for: it may hold a secret (ANSWERED_TO_ASKER_ONLY). */
  readonly askerOnly?: true;
}

/** How many entries of a list a chat answer shows before "…and N more". */
export const MAX_LISTED = 15;

// Block Kit limits (https://docs.slack.dev/reference/block-kit/blocks): a message holds at most 50 blocks,
// a section's text at most 3000 characters, a header's at most 150, a context at most 10 elements.
export const SLACK_MAX_BLOCKS = 50;
export const SLACK_MAX_SECTION_TEXT = 3000;
const SLACK_MAX_HEADER_TEXT = 150;
const SLACK_MAX_CONTEXT_ELEMENTS = 10;
/** One finding's message can be long (recommendations carry a paragraph); chat shows the start. */
const MAX_INLINE_TEXT = 700;

/** The first `max` entries, and how many were left out. */
export function firstOf<T>(
  items: readonly T[],
  max = MAX_LISTED,
): { shown: readonly T[]; omitted: number } {
  return { shown: items.slice(0, max), omitted: Math.max(0, items.length - max) };
}

export function renderReply(doc: ChatReplyDoc): ChatReply {
  return {
    text: toMarkdown(doc),
    blocks: toSlackBlocks(doc),
    fallback: clip(doc.fallback ?? doc.headline, 300),
  };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function moreLine(omitted: number): string {
  return `…and ${omitted} more`;
}

// ---------------------------------------------------------------- Markdown

function markdownInline(piece: Inline): string {
  if (typeof piece === "string") return clip(piece, MAX_INLINE_TEXT);
  if ("bold" in piece) return `**${piece.bold}**`;
  if ("code" in piece) return `\`${piece.code.replaceAll("`", "'")}\``;
  return `[${piece.label.replace(/[[\]]/g, "")}](${piece.link.replace(/[()\s]/g, encodeURIComponent)})`;
}

function markdownSection(section: ReplySection): string {
  const lines = section.lines.map((line) => line.map(markdownInline).join(""));
  const body = lines.map((line) => {
    switch (section.style) {
      case "bullets":
        return `- ${line}`;
      case "quote":
        return `> ${line}`;
      default:
        return line;
    }
  });
  if (section.omitted) body.push(moreLine(section.omitted));
  // Numbered and plain lines are separate paragraphs in Markdown unless they end with two spaces.
  const joiner = section.style === "plain" ? "  \n" : "\n";
  const diagram =
    section.mermaid === undefined ? undefined : `\`\`\`mermaid\n${section.mermaid}\n\`\`\``;
  return [
    section.title === undefined ? undefined : `**${section.title}**`,
    body.join(joiner),
    diagram,
  ]
    .filter((part) => part !== undefined && part !== "")
    .join("\n");
}

export function toMarkdown(doc: ChatReplyDoc): string {
  const parts = [`**${doc.headline}**`, ...doc.sections.map(markdownSection)];
  if (doc.context.length > 0) parts.push(`_${doc.context.join(" · ")}_`);
  return parts.join("\n\n");
}

// ---------------------------------------------------------------- Slack Block Kit

/** Slack reads &, < and > as markup in mrkdwn; everything else is literal enough. */
function slackEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function slackInline(piece: Inline): string {
  if (typeof piece === "string") return slackEscape(clip(piece, MAX_INLINE_TEXT));
  if ("bold" in piece) return `*${slackEscape(piece.bold)}*`;
  if ("code" in piece) return `\`${slackEscape(piece.code.replaceAll("`", "'"))}\``;
  // A | or > would end the link early; they do not occur in the knowledge base's https URLs.
  return `<${piece.link.replace(/[|<>\s]/g, encodeURIComponent)}|${slackEscape(piece.label.replaceAll("|", "/"))}>`;
}

function slackLine(section: ReplySection, line: Line): string {
  const text = line.map(slackInline).join("");
  switch (section.style) {
    case "bullets":
      return `• ${text}`;
    case "quote":
      return `>${text}`;
    default:
      return text;
  }
}

function section(text: string): SlackBlock {
  return { type: "section", text: { type: "mrkdwn", text: clip(text, SLACK_MAX_SECTION_TEXT) } };
}

/** One reply section as as few section blocks as the 3000-character limit allows, splitting between lines. */
function slackSections(replySection: ReplySection): SlackBlock[] {
  if (replySection.mermaid !== undefined && replySection.lines.length === 0) return [];
  const lines = replySection.lines.map((line) => slackLine(replySection, line));
  if (replySection.omitted) lines.push(`_${moreLine(replySection.omitted)}_`);
  const blocks: SlackBlock[] = [];
  let current = replySection.title === undefined ? "" : `*${slackEscape(replySection.title)}*`;
  for (const line of lines) {
    const next = current === "" ? line : `${current}\n${line}`;
    if (next.length <= SLACK_MAX_SECTION_TEXT || current === "") {
      current = next;
    } else {
      blocks.push(section(current));
      current = line;
    }
  }
  if (current !== "") blocks.push(section(current));
  return blocks;
}

export function toSlackBlocks(doc: ChatReplyDoc): SlackBlock[] {
  const header: SlackBlock = {
    type: "header",
    text: { type: "plain_text", text: clip(doc.headline, SLACK_MAX_HEADER_TEXT), emoji: true },
  };
  let body = doc.sections.flatMap(slackSections);
  const context: SlackBlock[] =
    doc.context.length === 0
      ? []
      : [
          {
            type: "context",
            elements: doc.context
              .slice(0, SLACK_MAX_CONTEXT_ELEMENTS)
              .map((text) => ({ type: "mrkdwn", text: slackEscape(text) })),
          },
        ];
  const room = SLACK_MAX_BLOCKS - 1 - context.length;
  if (body.length > room) {
    body = [
      ...body.slice(0, room - 1),
      section(
        "_…the answer was shortened to fit in one Slack message; ask a narrower question for the rest_",
      ),
    ];
  }
  return [header, ...body, ...context];
}
