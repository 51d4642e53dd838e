/**
 * The answers to chat commands: each run* function asks the domain core and
 * lays its result out as a reply document. No compatibility rule lives here:
 * every verdict, step and finding comes from src/domain; this module only
 * writes sentences.
 */
import {
  getRelease,
  listApiRemovals,
  listPorts,
  listSkewRules,
  resolveComponent,
  resolveProfile,
} from "../domain/catalog.js";
import type { ComponentVersionInput } from "../domain/cluster-plan.js";
import { checkOf, type Finding, type FindingCheck, type Severity } from "../domain/findings.js";
import { planFromKubectl } from "../domain/kubectl-inputs.js";
import { scanCluster, type ClusterInputs } from "../domain/cluster-evidence.js";
import {
  checkNodePoolRollback,
  checkNodePoolUpgrade,
  type NodePoolSpecInput,
  type NodePoolStep,
} from "../domain/node-pool.js";
import { planUpgrade, type UpgradePlan } from "../domain/upgrade.js";
import { actionWords, planMermaid } from "../domain/plan-timeline.js";
import { scanManifests } from "../domain/scan.js";
import { listFlows } from "../domain/firewall.js";
import { upgradeImpact, type ImpactItem } from "../domain/impact.js";
import type { NetworkFlowRecord } from "../knowledge/records.js";
import { parseAsOf, validateCluster } from "../domain/validate.js";
import { newestReleasedOn, releaseStatus, supportedReleases } from "../domain/release-status.js";
import { today } from "../domain/days.js";
import { readKubernetesVersion, readMinor } from "../domain/version-reader.js";
import { NotFoundError } from "../core/errors.js";
import type { ApiRemovalRecord, PortRecord, SkewRuleRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import type { ChatCommand, ClusterOptions, RunOptions } from "./chat-command.js";
import { firstOf, type ChatReplyDoc, type Inline, type Line, type ReplySection } from "./reply.js";

/** The components of the basic cluster `upgrade A -> B` plans for. */
const BASIC_CLUSTER = [
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubelet",
  "kube-proxy",
] as const;

const SEVERITY_EMOJI: Readonly<Record<Severity, string>> = {
  ERROR: "🔴",
  WARNING: "⚠️",
  INFO: "ℹ️",
};

export function revision(snapshot: KbSnapshot): string {
  return `kb revision ${snapshot.revision}`;
}

function sourceLink(url: string | null): Inline[] {
  return url === null ? [] : [" (", { link: url, label: "source" }, ")"];
}

function findingLine(entry: Finding): Line {
  return [
    `${SEVERITY_EMOJI[entry.severity]} `,
    { code: entry.code },
    ` ${entry.message}`,
    ...sourceLink(entry.sourceUrl),
  ];
}

function findingsSection(findings: readonly Finding[], title = "Findings"): ReplySection {
  const { shown, omitted } = firstOf(findings);
  return { title, style: "bullets", lines: shown.map(findingLine), omitted };
}

function countWords(findings: readonly Finding[]): string {
  const count = (severity: Severity): number =>
    findings.filter((entry) => entry.severity === severity).length;
  const parts = [
    [count("ERROR"), "error"],
    [count("WARNING"), "warning"],
    [count("INFO"), "note"],
  ] as const;
  const words = parts
    .filter(([n]) => n > 0)
    .map(([n, word]) => `${n} ${word}${n === 1 ? "" : "s"}`);
  return words.length === 0 ? "no findings" : words.join(", ");
}

/** `kubelet@pool-b 1.26`, with the canonical name when the alias is known. */
export function componentWords(snapshot: KbSnapshot, input: ComponentVersionInput): string {
  const name = snapshot.findComponent(input.component)?.name ?? input.component;
  return `${input.instance ? `${name}@${input.instance}` : name} ${input.version}`;
}

/** A green tick only for SUPPORTED: end of life, warnings and questions that could not be checked say so. */
function verdictHeadline(result: {
  readonly status: string;
  readonly findings: readonly { check: FindingCheck }[];
}): string {
  switch (result.status) {
    case "SUPPORTED":
      return "✅ Supported";
    case "UNSUPPORTED":
      return "❌ Not supported";
    case "NOT_JUDGED":
      return "❔ Not checked";
    default:
      return result.findings.some((finding) => finding.check === "END_OF_LIFE")
        ? "⚠️ End of life"
        : "⚠️ Supported, with warnings";
  }
}

export function runCheck(
  snapshot: KbSnapshot,
  asked: Extract<ChatCommand, { kind: "check" }>,
  options: RunOptions,
): ChatReplyDoc {
  let command = asked;
  const asOf = parseAsOf(command.asOf ?? options.asOf, "asof");
  const fromKubectl =
    command.kubectl === undefined
      ? []
      : planFromKubectl(snapshot, {
          kubectlVersion: command.kubectl.version,
          nodes: command.kubectl.nodes,
        });
  command = { ...command, components: [...command.components, ...fromKubectl] };
  const result = validateCluster(snapshot, command.components, {
    profile: command.profile,
    asOf,
    platform: command.platform,
  });
  const profile = resolveProfile(snapshot, command.profile);
  const headline = verdictHeadline(result);
  return {
    headline,
    fallback: `${headline} (${countWords(result.findings)}): ${command.components.map((input) => componentWords(snapshot, input)).join(", ")}`,
    sections: [
      {
        style: "plain",
        lines: [
          [command.components.map((input) => componentWords(snapshot, input)).join(" · ")],
          [`${countWords(result.findings)}`],
        ],
      },
      ...(result.findings.length > 0 ? [findingsSection(result.findings)] : []),
    ],
    context: [
      revision(snapshot),
      `profile ${profile}`,
      `as of ${asOf}`,
      ...(command.platform === undefined ? [] : [`platform ${command.platform}`]),
    ],
  };
}

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

function removalLine(removal: ApiRemovalRecord): Line {
  const replacement: Inline[] =
    removal.replacement === null ? [" → no replacement"] : [" → ", { code: removal.replacement }];
  return [
    { code: removal.apiVersion },
    ` ${removal.kind}`,
    ...replacement,
    ` (removed in ${removal.removedIn})`,
    ...sourceLink(removal.sourceUrl),
  ];
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
  // Parsed here so a bad version is reported as the version the user typed, not as a component of the implied cluster.
  const from = readKubernetesVersion(snapshot, command.from, "from version");
  readKubernetesVersion(snapshot, command.to, "target version");
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

export function runRemovals(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "removals" }>,
): ChatReplyDoc {
  let removals: readonly ApiRemovalRecord[];
  let title: string;
  if (command.from === undefined) {
    const minor = readMinor(snapshot, command.to, "version");
    removals = listApiRemovals(snapshot, { to: command.to }).filter(
      (removal) => removal.removedIn === minor,
    );
    title = `API versions removed in ${minor}`;
  } else {
    removals = listApiRemovals(snapshot, { from: command.from, to: command.to });
    title = `API versions removed after ${readMinor(snapshot, command.from, "from")} up to ${readMinor(snapshot, command.to, "to")}`;
  }
  const { shown, omitted } = firstOf(removals);
  return {
    headline: `🗑️ ${title}`,
    sections: [
      removals.length === 0
        ? {
            style: "plain",
            lines: [["None: the knowledge base records no API version removed in that range."]],
          }
        : {
            title: `${removals.length} removed`,
            style: "bullets",
            lines: shown.map(removalLine),
            omitted,
          },
    ],
    context: [revision(snapshot)],
  };
}

function portLine(port: PortRecord): Line {
  const range = port.endPort === null ? `${port.port}` : `${port.port}-${port.endPort}`;
  const role = port.nodeRole === "CONTROL_PLANE" ? "control plane" : "worker";
  return [
    { code: `${range}/${port.protocol}` },
    ` ${port.direction.toLowerCase()} on ${role} nodes — ${port.purpose}; used by ${port.usedBy}${port.deprecated ? " (deprecated)" : ""}`,
    ...sourceLink(port.sourceUrl),
  ];
}

export function runPorts(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "ports" }>,
): ChatReplyDoc {
  const component = resolveComponent(snapshot, command.component);
  const ports = listPorts(snapshot, { component: component.name });
  const { shown, omitted } = firstOf(ports);
  return {
    headline: `🔌 Ports of ${component.name}`,
    sections: [
      ports.length === 0
        ? { style: "plain", lines: [[`${component.name} listens on no port of its own.`]] }
        : { style: "bullets", lines: shown.map(portLine), omitted },
    ],
    context: [revision(snapshot)],
  };
}

const ROLE_WORDS: Readonly<Record<NetworkFlowRecord["from"]["role"], string>> = {
  CONTROL_PLANE: "control plane",
  WORKER: "workers",
  EXTERNAL: "outside",
};

function flowLine(flow: NetworkFlowRecord): Line {
  const port =
    flow.port === null
      ? flow.protocol
      : `${flow.endPort === null ? flow.port : `${flow.port}-${flow.endPort}`}/${flow.protocol}`;
  const need =
    flow.need === "REQUIRED"
      ? "required"
      : flow.need === "OPTIONAL"
        ? "optional"
        : `when ${(flow.condition ?? "needed").replace(/\.$/, "")}`;
  const who = (end: NetworkFlowRecord["from"]) =>
    `${ROLE_WORDS[end.role]}${end.component === null ? "" : ` (${end.component})`}`;
  return [
    { code: port },
    ` ${who(flow.from)} → ${who(flow.to)}${flow.cni === null ? "" : ` [${flow.cni}]`} — ${flow.purpose} (${need})`,
    ...sourceLink(flow.sourceUrl),
  ];
}

export function runFlows(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "flows" }>,
): ChatReplyDoc {
  const list = listFlows(snapshot, { from: command.from, to: command.to, cni: command.cni });
  const { shown, omitted } = firstOf(list.flows);
  const headline = `🧱 Flows from ${ROLE_WORDS[list.from!]} to ${ROLE_WORDS[list.to!]}${list.cni === null ? "" : ` with ${list.cni}`}`;
  return {
    headline,
    sections: [
      list.flows.length === 0
        ? { style: "plain", lines: [["None: the knowledge base has no flow between these roles."]] }
        : {
            title: `${list.flows.length} to allow`,
            style: "bullets",
            lines: shown.map(flowLine),
            omitted,
          },
      ...(list.notes.length === 0
        ? []
        : [{ style: "quote" as const, lines: list.notes.map((note): Line => [note.message]) }]),
    ],
    context: [revision(snapshot)],
  };
}

function impactLine(item: ImpactItem): Line {
  return [
    { code: item.change.toLowerCase().replace(/_/g, " ") },
    ` ${item.title} — ${item.beforeUpgrade}`,
    ...sourceLink(item.sourceUrl),
  ];
}

export function runImpact(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "impact" }>,
): ChatReplyDoc {
  const impact = upgradeImpact(snapshot, command.from, command.to, {
    areas: command.areas ?? null,
  });
  const sections: ReplySection[] = impact.releases
    .filter((release) => release.changes.length > 0)
    .map((release) => {
      const { shown, omitted } = firstOf(release.changes);
      return {
        title: `${release.kubernetesVersion} (${release.changes.length})`,
        style: "bullets" as const,
        lines: shown.map(impactLine),
        omitted,
      };
    });
  const areas = impact.areas.length === 0 ? "" : ` for ${impact.areas.join(", ")}`;
  return {
    headline: `🧭 What changes from ${impact.fromVersion} to ${impact.toVersion}${areas}: ${impact.count} change${impact.count === 1 ? "" : "s"}`,
    sections: [
      ...(sections.length === 0
        ? [
            {
              style: "plain" as const,
              lines: [["Nothing the knowledge base records lands on the way."] as Line],
            },
          ]
        : sections),
      ...(impact.notes.length === 0
        ? []
        : [{ style: "quote" as const, lines: impact.notes.map((note): Line => [note.message]) }]),
    ],
    context: [revision(snapshot)],
  };
}

function minors(count: number): string {
  return `${count} minor${count === 1 ? "" : "s"}`;
}

function skewLine(rule: SkewRuleRecord): Line {
  let words: string;
  if (rule.relativeTo === "kube-apiserver-peers") {
    words = `${rule.component} instances: at most ${minors(Math.max(rule.maxNewer, rule.maxOlder))} apart`;
  } else {
    // Rules against the kubelet compare components on the same node; rules against kube-apiserver name which instance counts.
    const reference = (from: SkewRuleRecord["newerMeasuredFrom"]): string =>
      from === null
        ? `the ${rule.relativeTo} on the same node`
        : `the ${from.toLowerCase()} ${rule.relativeTo}`;
    const condition =
      rule.condition === null
        ? ""
        : ` (${minors(rule.condition.maxOlder)} for ${rule.component} older than ${rule.condition.componentOlderThan})`;
    words =
      `${rule.component}: at most ${minors(rule.maxNewer)} newer than ${reference(rule.newerMeasuredFrom)}, ` +
      `at most ${minors(rule.maxOlder)} older than ${reference(rule.olderMeasuredFrom)}${condition}`;
  }
  return [words, " — ", { code: rule.id }, ...sourceLink(rule.sourceUrl)];
}

export function runSkew(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "skew" }>,
): ChatReplyDoc {
  const component = resolveComponent(snapshot, command.component);
  const profile = resolveProfile(snapshot, command.profile);
  // Without a minor, the newest released one (not one that is only scheduled).
  const at = command.at ?? newestReleasedOn(snapshot, today())?.version;
  const minor = at === undefined ? undefined : readMinor(snapshot, at, "at");
  // Rules on either side: `skew kubelet` also shows how far kube-proxy may drift from it.
  const rules = listSkewRules(snapshot, { kubernetesVersion: minor, profile }).filter(
    (rule) => rule.component === component.name || rule.relativeTo === component.name,
  );
  const where = minor === undefined ? "in any version" : `for ${minor} control planes`;
  const { shown, omitted } = firstOf(rules);
  return {
    headline: `📏 Skew rules for ${component.name} ${where}`,
    sections: [
      rules.length === 0
        ? {
            style: "plain",
            lines: [[`No skew rule of profile ${profile} constrains ${component.name} ${where}.`]],
          }
        : { style: "bullets", lines: shown.map(skewLine), omitted },
    ],
    context: [
      revision(snapshot),
      `profile ${profile}`,
      command.at === undefined && minor !== undefined
        ? `${minor} is the newest minor released today`
        : "",
    ].filter((text) => text !== ""),
  };
}

/** The annotations that keep the apiVersion an object was applied with (see src/domain/cluster-evidence.ts). */
const APPLIED_ANNOTATIONS =
  /"(kubectl\.kubernetes\.io\/last-applied-configuration|kapp\.k14s\.io\/original)"\s*:/;

/**
 * What kubectl printed about the running cluster, pasted after `scan to 1.29` instead of manifests: the
 * apiserver's /metrics, audit-log lines, the JSON of `kubectl get secrets -A -l owner=helm -o json`, or
 * that of `kubectl get <kinds> -A -o json` whose objects carry their last-applied apiVersion (judged by it,
 * not by the version the cluster serves them as).
 */
function clusterSnippet(text: string): ClusterInputs | undefined {
  if (/^apiserver_requested_deprecated_apis\{/m.test(text)) return { metrics: text };
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (
    lines.length > 0 &&
    lines.every((line) => line.trimStart().startsWith("{")) &&
    lines.some((line) => line.includes('"k8s.io/deprecated"'))
  )
    return { auditLog: text };
  const list = /"kind":\s*"List"/.test(text);
  if (list && (/"owner":\s*"helm"/.test(text) || APPLIED_ANNOTATIONS.test(text))) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    return /"owner":\s*"helm"/.test(text) ? { helmReleases: parsed } : { objects: parsed };
  }
  return undefined;
}

function phaseWords(phase: string | null | undefined): string {
  return phase === "ALREADY_REMOVED"
    ? " (already removed before the upgrade)"
    : phase === "REMOVED_IN_UPGRADE"
      ? " (breaks within the upgrade)"
      : "";
}

function runClusterScan(snapshot: KbSnapshot, inputs: ClusterInputs, to: string): ChatReplyDoc {
  const report = scanCluster(snapshot, inputs, to);
  const findings: Finding[] = report.findings.map((entry) => ({
    code: entry.code,
    check: checkOf(entry.code),
    severity: entry.severity,
    component: null,
    instance: null,
    message: `[${entry.evidence}] ${entry.message}`,
    sourceUrl: entry.sourceUrl,
    ruleId: null,
  }));
  const all = [...findings, ...report.notes];
  const headline =
    report.status === "NOT_JUDGED"
      ? `❔ Nothing judged for ${report.targetVersion}`
      : report.status === "UNSUPPORTED"
        ? `❌ What runs breaks at ${report.targetVersion}`
        : report.status === "SUPPORTED"
          ? `✅ Nothing that runs breaks at ${report.targetVersion}`
          : `⚠️ Deprecated APIs in use at ${report.targetVersion}`;
  return {
    headline,
    sections: [
      {
        style: "plain",
        lines: [
          [
            `${report.releases.length > 0 ? `${report.releases.length} Helm releases read; ` : ""}${countWords(all)}`,
          ],
        ],
      },
      ...(all.length > 0 ? [findingsSection(all)] : []),
    ],
    context: [revision(snapshot)],
  };
}

export function runScan(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "scan" }>,
): ChatReplyDoc {
  const cluster = clusterSnippet(command.manifests);
  if (cluster !== undefined) return runClusterScan(snapshot, cluster, command.to);
  const report = scanManifests(snapshot, command.manifests, command.to, {
    fromVersion: command.from,
  });
  const findings: Finding[] = [...report.findings, ...report.changeFindings].map((entry) => ({
    code: entry.code,
    check: checkOf(entry.code),
    severity: entry.severity,
    component: null,
    instance: null,
    message: `document ${entry.documentIndex + 1}, line ${entry.line}${phaseWords("phase" in entry ? entry.phase : null)}: ${entry.message}`,
    sourceUrl: entry.sourceUrl,
    ruleId: null,
  }));
  const headline =
    report.status === "NOT_JUDGED"
      ? `❔ Nothing judged for ${report.targetVersion}`
      : report.status === "UNSUPPORTED"
        ? report.findings.some((entry) => entry.code === "API_REMOVED")
          ? `❌ Removed APIs at ${report.targetVersion}`
          : `❌ Not ready for ${report.targetVersion}`
        : report.status === "SUPPORTED"
          ? `✅ Nothing removed at ${report.targetVersion}`
          : `⚠️ Deprecated APIs at ${report.targetVersion}`;
  const all = [...findings, ...report.notes];
  return {
    headline,
    sections: [
      {
        style: "plain",
        lines: [
          [
            `${report.documentsScanned} documents, ${report.objectsScanned} objects scanned${command.from === undefined ? "" : ` for ${command.from} → ${report.targetVersion}`}; ${countWords(all)}${report.complete ? "" : "; some documents could not be read"}`,
          ],
        ],
      },
      ...(all.length > 0 ? [findingsSection(all)] : []),
    ],
    context: [revision(snapshot)],
  };
}

export function runSupported(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "supported" }>,
  options: RunOptions,
): ChatReplyDoc {
  const asOf = parseAsOf(command.asOf ?? options.asOf, "asof");
  const supported = supportedReleases(snapshot, asOf);
  const range =
    supported.length === 0
      ? "no minor is supported"
      : `supported: ${supported[0]!.version} to ${supported[supported.length - 1]!.version}`;
  if (command.version === undefined) {
    return {
      headline: `📅 Kubernetes on ${asOf}`,
      sections: [{ style: "plain", lines: [[range]] }],
      context: [revision(snapshot)],
    };
  }
  const release = getRelease(snapshot, command.version, asOf);
  const { status } = releaseStatus(snapshot, release, asOf);
  const words: Record<typeof status, string> = {
    SUPPORTED: `✅ ${release.version} is supported on ${asOf}${release.endOfStandardSupport === null ? "" : ` (standard support until ${release.endOfStandardSupport})`}`,
    MAINTENANCE: `⚠️ ${release.version} is in maintenance on ${asOf}: critical fixes only, end of life ${release.endOfLife ?? "not set"}`,
    END_OF_LIFE: `❌ ${release.version} is past its end of life (${release.endOfLife ?? "?"}) on ${asOf}`,
    NOT_YET_RELEASED: `🕒 ${release.version} is not released yet on ${asOf} (planned ${release.releaseDate})`,
    UNKNOWN: `❔ ${release.version}: the release calendar has no support dates for it`,
  };
  return {
    headline: words[status],
    sections: [
      { style: "plain", lines: [[range], [{ link: release.sourceUrl, label: "Source" }]] },
    ],
    context: [revision(snapshot)],
  };
}

export function runCoverage(snapshot: KbSnapshot): ChatReplyDoc {
  const lines: Line[] = snapshot.coverage.map((claim) => [
    { bold: `${claim.knowledge}:` },
    ` through ${claim.throughMinor}${claim.stage === "PRERELEASE" ? " (pre-release)" : ""} from ${claim.source}${claim.sourceRevision === null ? "" : ` @ ${claim.sourceRevision}`}${claim.sourceDate === null ? "" : ` (${claim.sourceDate})`} `,
    { link: claim.sourceUrl, label: "source" },
  ]);
  return {
    headline: "🧭 Where the knowledge ends",
    sections: [
      { style: "plain", lines: lines.length > 0 ? lines : [["No coverage is recorded."]] },
      {
        style: "plain",
        lines: [["A question about a minor beyond these gets a KNOWLEDGE_EDGE warning."]],
      },
    ],
    context: [revision(snapshot)],
  };
}

export function runRelease(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "release" }>,
): ChatReplyDoc {
  const version = command.version ?? newestReleasedOn(snapshot, today())?.version;
  if (version === undefined) throw new NotFoundError("the knowledge base holds no release yet");
  const release = getRelease(snapshot, version);
  const unknown = "not published";
  const lines: Line[] = [
    [{ bold: "Released:" }, ` ${release.releaseDate}`],
    [{ bold: "End of standard support:" }, ` ${release.endOfStandardSupport ?? unknown}`],
    [{ bold: "End of life:" }, ` ${release.endOfLife ?? unknown}`],
    [
      { bold: "Latest patch:" },
      ` ${release.latestPatch ?? unknown}${release.latestPatchDate === null ? "" : ` (${release.latestPatchDate})`}`,
    ],
  ];
  if (release.etcdVersion !== null)
    lines.push([
      { bold: "etcd (kubeadm default):" },
      ` ${release.etcdVersion}`,
      ...sourceLink(release.etcdSourceUrl),
    ]);
  lines.push([{ link: release.sourceUrl, label: "Source" }]);
  return {
    headline: `📅 Kubernetes ${release.version}`,
    sections: [{ style: "plain", lines }],
    context: [revision(snapshot)],
  };
}

/** `kubelet 1.29.4 → 1.30.1`, `kube-proxy ipvs`, or nothing when neither side says. */
function change(
  label: string,
  before: string | undefined | null,
  after: string | undefined | null,
): string | null {
  if ((before ?? null) === null && (after ?? null) === null) return null;
  if (before === after) return `${label} ${before}`;
  return `${label} ${before ?? "—"} → ${after ?? "—"}`;
}

function runtimeName(snapshot: KbSnapshot, spec: NodePoolSpecInput): string | null {
  return spec.runtime ? (snapshot.findComponent(spec.runtime)?.name ?? spec.runtime) : null;
}

/** `containerd 1.7.2 → 2.0.1`, or `docker-engine 20.10 → containerd 1.7.2` when the runtime changes. */
function runtimeChange(
  snapshot: KbSnapshot,
  from: NodePoolSpecInput,
  to: NodePoolSpecInput,
): string | null {
  const before = runtimeName(snapshot, from);
  const after = runtimeName(snapshot, to);
  if (before === after)
    return before === null ? null : change(before, from.runtimeVersion, to.runtimeVersion);
  const words = (name: string | null, version: string | null | undefined): string =>
    name === null ? "no runtime named" : `${name} ${version ?? "?"}`;
  return `${words(before, from.runtimeVersion)} → ${words(after, to.runtimeVersion)}`;
}

/** What changes in the pool, in the words of the command: kubelet, kube-proxy, runtime. */
function poolChangeWords(
  snapshot: KbSnapshot,
  from: NodePoolSpecInput,
  to: NodePoolSpecInput,
): string {
  return [
    change("kubelet", from.kubeletVersion, to.kubeletVersion),
    change("kube-proxy", from.kubeProxyVersion, to.kubeProxyVersion),
    change("kube-proxy mode", from.kubeProxyMode, to.kubeProxyMode),
    runtimeChange(snapshot, from, to),
  ]
    .filter((words): words is string => words !== null)
    .join(" · ");
}

function nodePoolStepLine(step: NodePoolStep): Line {
  let what: string;
  if (step.component !== null && (step.fromVersion !== null || step.toVersion !== null)) {
    what = `${step.component} ${step.fromVersion ?? "—"} → ${step.toVersion ?? "—"}`;
  } else {
    what = step.action === step.component ? step.action : step.action.replaceAll("-", " ");
  }
  return [`${step.order}. `, { bold: what }, ` — ${step.note}`];
}

export function runNodePool(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "nodepool-check" | "nodepool-rollback" }>,
): ChatReplyDoc {
  const rollback = command.kind === "nodepool-rollback";
  const result = rollback
    ? checkNodePoolRollback(snapshot, {
        controlPlaneVersion: command.controlPlaneVersion,
        current: command.from,
        rollbackTo: command.to,
        profile: command.profile,
        asOf: command.asOf,
        platform: command.platform,
      })
    : checkNodePoolUpgrade(snapshot, {
        controlPlaneVersion: command.controlPlaneVersion,
        from: command.from,
        to: command.to,
        profile: command.profile,
        asOf: command.asOf,
        platform: command.platform,
      });
  const profile = resolveProfile(snapshot, command.profile);
  const what = rollback ? "rollback" : "upgrade";
  // The domain calls an unnamed pool "pool"; the headline then just says "Node pool".
  const pool = command.from.name || command.to.name ? `Node pool ${result.pool}:` : "Node pool";
  const headline = !result.ok
    ? `❌ ${pool} ${what} not supported as asked`
    : result.status === "SUPPORTED"
      ? `✅ ${pool} ${what} supported`
      : `⚠️ ${pool} ${what} supported, with warnings`;
  const changes = poolChangeWords(snapshot, command.from, command.to);
  const steps = firstOf(result.steps.map(nodePoolStepLine));
  const stepCount = result.steps.length;
  const sections: ReplySection[] = [
    {
      style: "plain",
      lines: [
        [`${changes}, under control plane ${command.controlPlaneVersion}`],
        [`${countWords(result.findings)}, ${stepCount} step${stepCount === 1 ? "" : "s"}`],
      ],
    },
  ];
  if (result.findings.length > 0) sections.push(findingsSection(result.findings));
  sections.push(
    stepCount === 0
      ? {
          style: "plain",
          lines: [["No steps: the pool's versions, flags and kube-proxy mode stay as they are."]],
        }
      : {
          title: rollback ? "Steps back" : "Steps",
          style: "numbered",
          lines: steps.shown,
          omitted: steps.omitted,
        },
  );
  return {
    headline,
    fallback: `${headline} (${countWords(result.findings)}): ${changes}`,
    sections,
    context: [
      revision(snapshot),
      `profile ${profile}`,
      `control plane ${command.controlPlaneVersion}`,
    ],
  };
}
