/**
 * The answers that read the knowledge base's records: API versions removed
 * in a range, a component's ports, the network flows between node roles,
 * what changes between two minors beyond apiVersions, and the skew rules a
 * component is held to.
 */
import {
  listApiRemovals,
  listPorts,
  listSkewRules,
  resolveComponent,
  resolveProfile,
} from "../domain/catalog.js";
import { today } from "../domain/days.js";
import { listFlows } from "../domain/firewall.js";
import { upgradeImpact, type ImpactItem } from "../domain/impact.js";
import { newestReleasedOn } from "../domain/release-status.js";
import { readMinor } from "../domain/version-reader.js";
import type {
  ApiRemovalRecord,
  NetworkFlowRecord,
  PortRecord,
  SkewRuleRecord,
} from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { removalLine, revision, sourceLink } from "./answers.js";
import type { ChatCommand } from "./chat-command.js";
import { firstOf, type ChatReplyDoc, type Line, type ReplySection } from "./reply.js";

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
