/**
 * An upgrade plan as a timeline of hops, the way every face draws it (the
 * front page's SVG, the Mermaid diagram in Markdown answers of the CLI and
 * chat): steps grouped by the control-plane minor they happen at, with the
 * API removals and changes each minor brings. Works on the plan as the
 * domain returns it and as the REST answer carries it (the CLI reads JSON),
 * so the fields asked for are the few both have.
 */

export interface TimelineStep {
  readonly order: number;
  readonly component: string;
  readonly instance: string | null;
  readonly fromVersion: string;
  readonly toVersion: string;
  /** UPGRADE unless the step changes the nodes or the flags rather than a version; absent from older servers. */
  readonly action?: string;
  /** For a control-plane hop: the last point it can be undone, and how; absent from older servers. */
  readonly undo?: string | null;
}

/** What a step changes when it is not a version (its nodes, its flags), in the words every face shows; null for an upgrade. */
export function actionWords(step: Pick<TimelineStep, "action">): string | null {
  if (step.action === "MIGRATE_CGROUP_V2") return "nodes to cgroup v2";
  if (step.action === "REMOVE_FEATURE_GATES") return "drop feature gates";
  return null;
}

/** A step as a line of a drawing: `3. kubelet@pool-a → 1.31.2`, or what it changes when not a version. */
export function stepText(step: TimelineStep): string {
  const who = `${step.order}. ${step.component}${step.instance === null ? "" : `@${step.instance}`}`;
  const words = actionWords(step);
  return words === null ? `${who} → ${step.toVersion}` : `${who}: ${words}`;
}

export interface TimelinePlan {
  readonly targetVersion: string;
  readonly steps: readonly TimelineStep[];
  readonly apiRemovals: ReadonlyArray<{
    readonly apiVersion?: string;
    readonly kind: string;
    readonly removedIn: string;
  }>;
  /** Absent in answers of servers older than the hops field. */
  readonly hops?: ReadonlyArray<{
    readonly kubernetesVersion: string;
    readonly changes: ReadonlyArray<{ readonly title: string }>;
  }>;
}

/** One hop: the control-plane minor it reaches and what is done and changed on the way. */
export interface PlanHop {
  readonly minor: string;
  /** True for the steps done before the control plane moves (at its current minor). */
  readonly preparing: boolean;
  readonly steps: readonly TimelineStep[];
  readonly removals: readonly string[];
  readonly changes: readonly string[];
}

const minorOf = (version: string): string =>
  version.replace(/^v/, "").split(".").slice(0, 2).join(".");

/** The control plane's minor before the plan: the first kube-apiserver step's, else (nothing to move) the target's. */
export function startingMinor(plan: TimelinePlan): string {
  const first = plan.steps.find((step) => step.component === "kube-apiserver");
  return minorOf(first?.fromVersion ?? plan.targetVersion);
}

/**
 * The plan's steps grouped by the control-plane minor they happen at: steps before the first kube-apiserver
 * step prepare the cluster at its current minor, and each new kube-apiserver minor starts a hop.
 */
export function planHops(plan: TimelinePlan): PlanHop[] {
  const groups: Array<{ minor: string; preparing: boolean; steps: TimelineStep[] }> = [
    { minor: startingMinor(plan), preparing: true, steps: [] },
  ];
  for (const step of plan.steps) {
    const minor = minorOf(step.toVersion);
    if (step.component === "kube-apiserver" && minor !== groups[groups.length - 1]!.minor)
      groups.push({ minor, preparing: false, steps: [] });
    groups[groups.length - 1]!.steps.push(step);
  }
  return groups
    .filter((group) => !group.preparing || group.steps.length > 0)
    .map((group) => ({
      ...group,
      removals: group.preparing
        ? []
        : plan.apiRemovals
            .filter((removal) => removal.removedIn === group.minor)
            .map((removal) => `${removal.apiVersion ?? "?"} ${removal.kind}`),
      changes: group.preparing
        ? []
        : (plan.hops
            ?.find((hop) => hop.kubernetesVersion === group.minor)
            ?.changes.map((change) => change.title) ?? []),
    }));
}

/** Mermaid reads `"` and `#`, `<` and `>` inside a quoted label as markup; its entity codes stand for them. */
function label(text: string): string {
  return text
    .replace(/#/g, "#35;")
    .replace(/"/g, "#quot;")
    .replace(/</g, "#lt;")
    .replace(/>/g, "#gt;");
}

/** How many lines of steps and removals a hop's box lists before "… and N more". */
const MERMAID_LINES = 12;

/**
 * The plan as a Mermaid flowchart, left to right, one box per hop (GitHub, GitLab and most chat tools that
 * render Markdown draw it). Changes are counted, not listed: the answer's tables hold them.
 */
export function planMermaid(plan: TimelinePlan): string {
  const hops = planHops(plan);
  const start = startingMinor(plan);
  const lines = ["flowchart LR", `  now(["now: control plane at ${label(start)}"])`];
  hops.forEach((hop, index) => {
    const title = hop.preparing ? `at ${hop.minor}: prepare` : `to ${hop.minor}`;
    const entries = [
      ...hop.steps.map(stepText),
      ...hop.removals.map((removal) => `removed: ${removal}`),
    ];
    const shown =
      entries.length <= MERMAID_LINES
        ? entries
        : [
            ...entries.slice(0, MERMAID_LINES - 1),
            `… and ${entries.length - MERMAID_LINES + 1} more`,
          ];
    if (hop.changes.length > 0)
      shown.push(`${hop.changes.length} other change${hop.changes.length === 1 ? "" : "s"}`);
    lines.push(`  hop${index}["<b>${label(title)}</b><br/>${shown.map(label).join("<br/>")}"]`);
    lines.push(`  ${index === 0 ? "now" : `hop${index - 1}`} --> hop${index}`);
    if (hop.removals.length > 0) lines.push(`  class hop${index} removes`);
  });
  if (hops.length === 0)
    lines.push(
      `  done(["already at ${label(plan.targetVersion)}: nothing to move"])`,
      "  now --> done",
    );
  lines.push("  classDef removes stroke:#cf222e,stroke-width:2px");
  return lines.join("\n");
}
