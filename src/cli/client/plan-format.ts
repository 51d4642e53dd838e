/**
 * The upgrade plan for people: its ordered steps, where each control-plane
 * hop can last be undone, the API versions removed on the way and the
 * findings, as text and as Markdown (with the plan as a Mermaid diagram).
 */
import { planMermaid } from "../../domain/plan-timeline.js";
import type { UpgradePlanAnswer, UpgradeStep } from "./answers.js";
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
  statusText,
  subject,
  table,
  withSource,
  type TextStyle,
} from "./format.js";

/** What a step changes, for its FROM and TO columns: versions, or the nodes' cgroup version. */
function stepEnds(step: UpgradeStep): { from: string; to: string } {
  if (step.action === "MIGRATE_CGROUP_V2")
    return { from: `${step.fromVersion} on cgroup v1`, to: `${step.toVersion} on cgroup v2` };
  if (step.action === "REMOVE_FEATURE_GATES")
    return { from: `${step.fromVersion} with gates`, to: `${step.toVersion} without them` };
  return { from: step.fromVersion, to: step.toVersion };
}

export function upgradePlanText(
  answer: UpgradePlanAnswer,
  profile: string | undefined,
  style: TextStyle,
): string {
  const sources = new Sources();
  const steps =
    answer.steps.length === 0
      ? "No upgrade steps."
      : `${paint(`Upgrade steps to ${answer.targetVersion}`, ["bold"], style)}\n${table(
          ["ORDER", "COMPONENT", "FROM", "TO", "NOTE"],
          answer.steps.map((step) => [
            { text: String(step.order) },
            { text: subject(step.component, step.instance) },
            { text: stepEnds(step).from },
            { text: stepEnds(step).to },
            { text: step.note },
          ]),
          style,
        )}`;
  // One line per control-plane hop (its first kube-apiserver step): the last point it can be undone.
  const hops = answer.steps.filter(
    (step, index, all) =>
      typeof step.undo === "string" && all.findIndex((other) => other.undo === step.undo) === index,
  );
  const undo =
    hops.length === 0
      ? ""
      : `${paint("Undoing a hop", ["bold"], style)}
${hops.map((step) => `  step ${step.order} (${step.fromVersion} to ${step.toVersion}): ${step.undo!}`).join("\n")}`;
  const removals =
    answer.apiRemovals.length === 0
      ? ""
      : `${paint(`API versions removed on the way to ${answer.targetVersion}`, ["bold"], style)}\n${table(
          ["API VERSION", "KIND", "REMOVED IN", "REPLACEMENT"],
          answer.apiRemovals.map((removal) => [
            { text: removal.apiVersion },
            { text: removal.kind },
            { text: removal.removedIn },
            { text: (removal.replacement ?? "none") + sources.cite(removal.sourceUrl) },
          ]),
          style,
        )}`;
  const findings =
    answer.findings.length === 0
      ? ""
      : `${paint("Findings", ["bold"], style)}\n${findingsTable(answer.findings, sources, style)}`;
  const summary = `PLAN ${statusText(answer, style)}: ${counted(answer.steps.length, "step")} to ${answer.targetVersion}, ${severityCounts(answer.findings)}${about(answer.kbRevision, profile)}`;
  return blocks(steps, undo, removals, findings, sources.text(), summary);
}

export function upgradePlanMarkdown(
  answer: UpgradePlanAnswer,
  profile: string | undefined,
): string {
  const heading = `### ${statusIcon(answer)} kubecompat plan to ${cell(answer.targetVersion)}: ${counted(answer.steps.length, "step")}, ${severityCounts(answer.findings)}`;
  const steps =
    answer.steps.length === 0
      ? "No upgrade steps."
      : markdownTable(
          ["Order", "Component", "From", "To", "Note"],
          answer.steps.map((step) => [
            String(step.order),
            code(subject(step.component, step.instance)),
            code(stepEnds(step).from),
            code(stepEnds(step).to),
            cell(step.note),
          ]),
        );
  const removals =
    answer.apiRemovals.length === 0
      ? ""
      : `#### API versions removed on the way\n\n${markdownTable(
          ["API version", "Kind", "Removed in", "Replacement"],
          answer.apiRemovals.map((removal) => [
            code(removal.apiVersion),
            cell(removal.kind),
            cell(removal.removedIn),
            withSource(removal.replacement ?? "none", removal.sourceUrl),
          ]),
        )}`;
  const findings =
    answer.findings.length === 0 ? "" : `#### Findings\n\n${findingsMarkdown(answer.findings)}`;
  const diagram =
    answer.steps.length === 0
      ? ""
      : `#### The plan as a diagram\n\n\`\`\`mermaid\n${planMermaid(answer)}\n\`\`\``;
  return blocks(heading, steps, diagram, removals, findings, footer(answer.kbRevision, profile));
}
