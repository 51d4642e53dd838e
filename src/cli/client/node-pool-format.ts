/**
 * The node-pool check for people: its findings and the ordered steps of the
 * upgrade (or rollback) of the pool, as text and as Markdown.
 */
import type { NodePoolAnswer } from "./answers.js";
import {
  Sources,
  about,
  blocks,
  cell,
  code,
  counted,
  findingsMarkdown,
  findingsTable,
  footer,
  markdownTable,
  paint,
  severityCounts,
  statusIcon,
  statusPhrase,
  statusText,
  table,
  type TextStyle,
} from "./format.js";

/** What a node-pool check was about, besides the answer: the direction and the control plane. */
export interface NodePoolQuestion {
  readonly rollback: boolean;
  readonly controlPlaneVersion: string;
  readonly profile: string | undefined;
}

function nodePoolSummary(answer: NodePoolAnswer, question: NodePoolQuestion): string {
  return `${answer.pool} under control plane ${question.controlPlaneVersion}, ${counted(answer.steps.length, "step")}, ${severityCounts(answer.findings)}`;
}

export function nodePoolText(
  answer: NodePoolAnswer,
  question: NodePoolQuestion,
  style: TextStyle,
): string {
  const sources = new Sources();
  const findings =
    answer.findings.length === 0 ? "" : findingsTable(answer.findings, sources, style);
  const title = question.rollback
    ? `Steps to roll ${answer.pool} back`
    : `Steps to upgrade ${answer.pool}`;
  const steps =
    answer.steps.length === 0
      ? "No steps: the pool's versions, flags and kube-proxy mode stay as they are."
      : `${paint(title, ["bold"], style)}\n${table(
          ["ORDER", "ACTION", "COMPONENT", "FROM", "TO", "NOTE"],
          answer.steps.map((step) => [
            { text: String(step.order) },
            { text: step.action },
            { text: step.component ?? "-" },
            { text: step.fromVersion ?? "-" },
            { text: step.toVersion ?? "-" },
            { text: step.note },
          ]),
          style,
        )}`;
  const what = question.rollback ? "ROLLBACK" : "UPGRADE";
  const summary = `${what} ${statusText(answer, style)}: ${nodePoolSummary(answer, question)}${about(answer.kbRevision, question.profile)}`;
  return blocks(findings, steps, sources.text(), summary);
}

export function nodePoolMarkdown(answer: NodePoolAnswer, question: NodePoolQuestion): string {
  const what = question.rollback ? "rollback" : "upgrade";
  const heading =
    `### ${statusIcon(answer)} kubecompat nodepool ${what} of ${cell(answer.pool)} under control plane ${cell(question.controlPlaneVersion)}: ` +
    `${statusPhrase(answer)} (${counted(answer.steps.length, "step")}, ${severityCounts(answer.findings)})`;
  const findings =
    answer.findings.length === 0 ? "No findings." : findingsMarkdown(answer.findings);
  const steps =
    answer.steps.length === 0
      ? ""
      : `#### Steps\n\n${markdownTable(
          ["Order", "Action", "Component", "From", "To", "Note"],
          answer.steps.map((step) => [
            String(step.order),
            cell(step.action),
            code(step.component ?? "-"),
            code(step.fromVersion ?? "-"),
            code(step.toVersion ?? "-"),
            cell(step.note),
          ]),
        )}`;
  return blocks(heading, findings, steps, footer(answer.kbRevision, question.profile));
}
