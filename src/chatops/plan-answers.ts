/**
 * The answers to `plan` and `upgrade A -> B`: the ordered upgrade steps
 * (with where each hop can last be undone), the plan as a diagram, the API
 * versions removed on the way and the findings. `upgrade` plans for a basic
 * cluster at the from version.
 */
import { resolveProfile } from "../domain/catalog.js";
import type { ComponentVersionInput } from "../domain/cluster-plan.js";
import { actionWords, planMermaid } from "../domain/plan-timeline.js";
import { planUpgrade, type UpgradePlan } from "../domain/upgrade.js";
import { parseAsOf } from "../domain/validate.js";
import { readKubernetesVersion } from "../domain/version-reader.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { countWords, findingsSection, removalLine, revision } from "./answers.js";
import type { ChatCommand, ClusterOptions, RunOptions } from "./chat-command.js";
import { firstOf, type ChatReplyDoc, type Line, type ReplySection } from "./reply.js";

/** The components of the basic cluster `upgrade A -> B` plans for. */
const BASIC_CLUSTER = [
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubelet",
  "kube-proxy",
] as const;

function stepLines(plan: UpgradePlan): Line[] {
  const orders = [...new Set(plan.steps.map((step) => step.order))];
  // A hop's undo is said once, at its first kube-apiserver step.
  const said = new Set<string>();
  return orders.map((order) => {
    const together = plan.steps.filter((step) => step.order === order);
    const moves = together.map((step) => {
      const who = step.instance ? `${step.component}@${step.instance}` : step.component;
      const words = actionWords(step);
      return words === null
        ? `${who} ${step.fromVersion} → ${step.toVersion}`
        : `${who} ${step.fromVersion}: ${words}`;
    });
    const undo =
      together.find((step) => step.undo !== null && !said.has(step.undo))?.undo ?? undefined;
    if (undo !== undefined) said.add(undo);
    return [
      `${order}. `,
      { bold: moves.join(" + ") },
      ` — ${together[0]?.note ?? ""}${undo === undefined ? "" : ` (undo: ${undo})`}`,
    ];
  });
}

export function runPlan(
  snapshot: KbSnapshot,
  components: readonly ComponentVersionInput[],
  to: string,
  asked: ClusterOptions,
  describeFrom: string,
  options: RunOptions,
): ChatReplyDoc {
  const asOf = parseAsOf(asked.asOf ?? options.asOf, "asof");
  const plan = planUpgrade(snapshot, components, to, {
    profile: asked.profile,
    asOf,
    platform: asked.platform,
  });
  const profile = resolveProfile(snapshot, asked.profile);
  const steps = firstOf(stepLines(plan));
  const removals = firstOf(plan.apiRemovals);
  const stepCount = new Set(plan.steps.map((step) => step.order)).size;
  const sections: ReplySection[] = [
    {
      style: "plain",
      lines: [
        [
          `From ${describeFrom} to ${plan.targetVersion}: ${stepCount} step${stepCount === 1 ? "" : "s"}, ${countWords(plan.findings)}`,
        ],
      ],
    },
  ];
  if (stepCount > 0) {
    sections.push({
      title: "Steps",
      style: "numbered",
      lines: steps.shown,
      omitted: steps.omitted,
    });
    sections.push({
      title: "The plan as a diagram",
      style: "plain",
      lines: [],
      mermaid: planMermaid(plan),
    });
  }
  if (plan.apiRemovals.length > 0) {
    sections.push({
      title: "Removed APIs on the way",
      style: "bullets",
      lines: removals.shown.map(removalLine),
      omitted: removals.omitted,
    });
  }
  if (plan.findings.length > 0) sections.push(findingsSection(plan.findings));
  return {
    headline:
      plan.status === "UNSUPPORTED"
        ? `❌ No supported upgrade to ${plan.targetVersion} as asked`
        : plan.status === "NOT_JUDGED"
          ? `❔ Upgrade plan to ${plan.targetVersion}, not checked`
          : plan.status === "SUPPORTED"
            ? `✅ Upgrade plan to ${plan.targetVersion}`
            : `⚠️ Upgrade plan to ${plan.targetVersion}, with warnings`,
    sections,
    context: [
      revision(snapshot),
      `profile ${profile}`,
      `as of ${asOf}`,
      ...(asked.platform === undefined ? [] : [`platform ${asked.platform}`]),
    ],
  };
}

export function runUpgrade(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "upgrade" }>,
  options: RunOptions,
): ChatReplyDoc {
  // Parsed here so a bad version is reported as the version the user typed, not as a component of the implied cluster;
  // on the day the plan is judged, so `latest` and `oldest-supported` mean what the plan takes them to mean.
  const asOf = parseAsOf(command.asOf ?? options.asOf, "asof");
  const from = readKubernetesVersion(snapshot, command.from, "from version", asOf);
  readKubernetesVersion(snapshot, command.to, "target version", asOf);
  const components = BASIC_CLUSTER.map((component) => ({ component, version: from.raw }));
  return runPlan(
    snapshot,
    components,
    command.to,
    command,
    `a basic cluster at ${from.raw} (${BASIC_CLUSTER.join(", ")})`,
    options,
  );
}
