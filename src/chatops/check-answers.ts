/**
 * The answers to the checks: `check` (is this combination of versions
 * supported?) and `nodepool` (can a node pool move, or go back, from one
 * spec to another under the control plane?), with the verdict as the
 * headline and the findings (and the pool's steps) below it.
 */
import { resolveProfile } from "../domain/catalog.js";
import type { FindingCheck } from "../domain/findings.js";
import { planFromKubectl } from "../domain/kubectl-inputs.js";
import {
  checkNodePoolRollback,
  checkNodePoolUpgrade,
  type NodePoolSpecInput,
  type NodePoolStep,
} from "../domain/node-pool.js";
import { parseAsOf, validateCluster } from "../domain/validate.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { componentWords, countWords, findingsSection, revision } from "./answers.js";
import type { ChatCommand, RunOptions } from "./chat-command.js";
import { firstOf, type ChatReplyDoc, type Line, type ReplySection } from "./reply.js";

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
