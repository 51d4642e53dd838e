/**
 * The usage and help texts of the chat commands: an example and a line of
 * purpose per command, the whole help, and the replies to a text that is not
 * a command and to a command whose input the domain refused.
 */
import type { KubecompatError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { revision } from "./answers.js";
import type { CommandKind, RunOptions, UsageProblem } from "./chat-command.js";
import { renderReply, type ChatReply, type ChatReplyDoc, type Line } from "./reply.js";

const USAGE: Readonly<Record<Exclude<CommandKind, "help">, string>> = {
  check:
    "check kube-apiserver=1.30 kubelet=1.27 kubelet@pool-b=1.26 kubelet@pool-b:cgroup=v1 containerd=1.7.2 [profile=strict] [platform=eks] [asof=2026-12-01]",
  upgrade: "upgrade 1.27 -> 1.30 [profile=strict] [platform=eks] [asof=2026-12-01]",
  plan: "plan apiserver=1.27 kubelet=1.26 to 1.30 [profile=strict] [platform=eks] [asof=2026-12-01]",
  removals: "removals 1.25 1.29",
  ports: "ports kubelet",
  flows: "ports workers -> control-plane [calico]",
  impact: "impact 1.24 -> 1.29 [tenant-isolation]",
  skew: "skew kubelet [at 1.29] [profile=strict]",
  release: "release 1.30",
  coverage: "coverage",
  supported: "supported 1.28 [asof=2026-12-01]",
  scan: "scan [from 1.24] to 1.29, then the manifests on the next lines (or in a ``` block)",
  "nodepool-check":
    'nodepool check cp=1.30 [profile=strict] [platform=eks] [asof=2026-12-01] from kubelet=1.29.4 proxy=ipvs containerd=1.7.2 to kubelet=1.30.1 proxy=nftables containerd=2.0.1 flags="--max-pods=110"',
  "nodepool-rollback":
    "nodepool rollback cp=1.30 [profile=strict] [platform=eks] [asof=2026-12-01] from kubelet=1.29.4 to kubelet=1.28.9",
  proposals: "proposals",
  proposal: "proposal 12",
  approve: "approve 12 [13 ...]",
  reject: "reject 12 the reason, kept with the proposal",
  fleet: "fleet [env=prod] [owner=team-pay] [label=team=payments]",
  "fleet-show": "fleet pay-prod",
  "fleet-events": "fleet events [pay-prod]",
  "fleet-waivers": "fleet waivers",
  "fleet-register":
    "fleet register pay-prod env=prod owner=team-pay [labels=team=payments,region=eu] [platform=eks] kube-apiserver=1.32.9 kubelet@pool-a=1.32.9",
  "fleet-waive":
    'fleet waive PLATFORM_EXTENDED_SUPPORT cluster=pay-prod|label=team=payments until=2027-03-31 reason="moving to 1.33 this sprint" [owner=jane]',
  "fleet-unwaive": "fleet unwaive 7",
  "fleet-subscribe":
    "fleet subscribe https://hooks.example.com/kubecompat [slack] [env=prod,staging] [owner=team-pay,team-web] [labels=team=payments,region=eu] [min=warning]",
  "fleet-subscriptions": "fleet subscriptions",
  "fleet-unsubscribe": "fleet unsubscribe 3",
  "fleet-deliveries": "fleet deliveries [dead|pending|delivered]",
  "fleet-replay": "fleet replay 42",
};

const WHAT_IT_DOES: Readonly<Record<Exclude<CommandKind, "help">, string>> = {
  check: "is this combination of versions supported?",
  upgrade: "the steps from one minor to another for a basic cluster",
  plan: "the steps that take your cluster to a target minor",
  removals: "API versions removed after the first version, up to the second",
  ports: "the ports a component listens on",
  flows: "the flows a firewall between two node roles must allow, for Kubernetes and the CNI",
  impact:
    "what changes between two minors beyond apiVersions (behaviour changes, configuration files, feature gates), optionally for some areas",
  skew: "the version-skew rules in force for a component",
  release: "release dates, end of life and the latest patch",
  coverage:
    "where the knowledge ends: the newest Kubernetes minor each kind of knowledge covers, and its sources",
  supported: "is a minor supported today (or on a date)? Without a version: which minors are",
  scan: "which objects of the pasted manifests use API versions removed or deprecated at the target",
  "nodepool-check":
    "can a node pool (kubelet, its flags, kube-proxy mode, runtime, chart) move to its new spec? Findings and steps",
  "nodepool-rollback":
    "can a node pool go back to its old spec under the control plane as it is now?",
  proposals:
    "the review queue: open proposals derived from upstream (id, what changes, from where)",
  proposal: "one proposal in full: each field before → after, its source and revision",
  approve: "apply proposals to the knowledge base, together (reviewers named in CHATOPS_REVIEWERS)",
  reject: "turn a proposal down with its reason (reviewers named in CHATOPS_REVIEWERS)",
  fleet:
    "the registered clusters by environment: verdict, last day of standard support, days left, start-by date, blocking codes",
  "fleet-show":
    "one cluster in full (also fleet show NAME): verdict and waived findings, blocking findings and their sources, support end, start-by date, upgrade target and hops, recent events",
  "fleet-events": "the fleet's newest events (of one cluster when named)",
  "fleet-waivers": "the waivers that hold findings out of verdicts, with their ids",
  "fleet-register":
    "register a cluster, or a new state of one, judged at once: components as check takes them, or `kubectl version` and `kubectl get nodes` pasted on the next lines (reviewers named in CHATOPS_REVIEWERS)",
  "fleet-waive":
    "hold a finding out of a cluster's (or a label's) verdict until a day (reviewers named in CHATOPS_REVIEWERS)",
  "fleet-unwaive": "remove a waiver (reviewers named in CHATOPS_REVIEWERS)",
  "fleet-subscribe":
    "tell a webhook (signed; its secret is shown once) or, with slack, a Slack incoming webhook of the fleet's events, filtered; the reply is only for you (reviewers named in CHATOPS_REVIEWERS)",
  "fleet-subscriptions":
    "the subscriptions: id, kind, the receiver's host, filters (reviewers named in CHATOPS_REVIEWERS)",
  "fleet-unsubscribe": "remove a subscription (reviewers named in CHATOPS_REVIEWERS)",
  "fleet-deliveries":
    "the newest deliveries (dead: the dead-letter list) with their event, subscription, attempts and last error (reviewers named in CHATOPS_REVIEWERS)",
  "fleet-replay": "send a dead delivery again (reviewers named in CHATOPS_REVIEWERS)",
};

function usageLine(kind: Exclude<CommandKind, "help">, invokedAs: string): Line {
  return [{ code: `${invokedAs}${USAGE[kind]}` }];
}

function prefixOf(options: RunOptions): string {
  return options.invokedAs ? `${options.invokedAs} ` : "";
}

export function helpDoc(snapshot: KbSnapshot, options: RunOptions, intro?: Line): ChatReplyDoc {
  const prefix = prefixOf(options);
  const kinds = Object.keys(USAGE) as Array<Exclude<CommandKind, "help">>;
  return {
    headline: "kubecompat: Kubernetes version compatibility",
    sections: [
      ...(intro === undefined ? [] : [{ style: "plain" as const, lines: [intro] }]),
      {
        title: "Commands",
        style: "bullets",
        lines: kinds.map((kind) => [...usageLine(kind, prefix), ` — ${WHAT_IT_DOES[kind]}`]),
      },
      {
        style: "plain",
        lines: [
          [
            "A node pool is described with ",
            { code: "kubelet=1.30.1" },
            ", ",
            { code: "proxy=nftables" },
            " (the mode; ",
            { code: "kube-proxy=1.30.1" },
            " its version), ",
            { code: "containerd=2.0.1" },
            " / ",
            { code: "cri-o=" },
            " / ",
            { code: "docker=" },
            ", ",
            { code: 'flags="--max-pods=110 --node-ip=10.0.0.7"' },
            ", ",
            { code: 'chart=">=1.27.0-0 <1.31.0-0"' },
            ", ",
            { code: "os=windows" },
            " and ",
            { code: "name=pool-a" },
            ".",
          ],
          [
            "Wherever a version goes, ",
            { code: "latest" },
            " (the newest minor released on the day asked about, ",
            { code: "asof=" },
            " or today) and ",
            { code: "oldest-supported" },
            " work too: ",
            { code: "upgrade 1.31 to latest" },
            ". ",
            { code: "platform=" },
            " names a managed platform (",
            ...snapshot.platforms.flatMap((platform): Line => [{ code: platform.name }, ", "]),
            "or ",
            { code: "upstream" },
            " for a self-managed cluster), whose calendar then judges each minor.",
          ],
          [
            "Component aliases (apiserver, kcm, proxy) and v prefixes work. In Slack, add --public to answer in the channel.",
          ],
        ],
      },
    ],
    context: [revision(snapshot)],
  };
}

function problemDoc(
  snapshot: KbSnapshot,
  problem: UsageProblem,
  options: RunOptions,
): ChatReplyDoc {
  if (problem.kind === undefined)
    return helpDoc(snapshot, options, [`🤔 ${problem.problem}. Here is what I understand:`]);
  return {
    headline: `🤔 I did not understand that ${problem.kind.replace(/-(?:show$)?/, " ").trim()} command`,
    sections: [
      {
        style: "plain",
        lines: [
          [`${problem.problem}.`],
          ["Usage: ", ...usageLine(problem.kind, prefixOf(options))],
        ],
      },
    ],
    context: [revision(snapshot)],
  };
}

export function errorDoc(
  snapshot: KbSnapshot,
  error: KubecompatError,
  kind: CommandKind,
  options: RunOptions,
): ChatReplyDoc {
  const hint: Line =
    kind === "help"
      ? ["Try ", { code: `${prefixOf(options)}help` }]
      : ["Usage: ", ...usageLine(kind, prefixOf(options))];
  return {
    headline: "⚠️ I could not answer that",
    sections: [
      { style: "quote", lines: [[error.message]] },
      { style: "plain", lines: [hint] },
    ],
    context: [revision(snapshot)],
  };
}

/** The reply to a text that is not a command: what was wrong and how to write it. */
export function usageReply(
  snapshot: KbSnapshot,
  problem: UsageProblem,
  options: RunOptions = {},
): ChatReply {
  return renderReply(problemDoc(snapshot, problem, options));
}
