/**
 * The fleet as chat shows it: the clusters by environment as short lines
 * (verdict, last day of standard support, days left, start-by date, blocking
 * codes), one cluster in full (waived and blocking findings with their
 * sources, support end, start-by date and its explanation, upgrade target
 * and hops, recent events), the newest events and the waivers. Reads only;
 * the filters and names are checked by REST's zod schemas, so a bad one gets
 * REST's message. fleet-answers.ts dispatches and writes.
 */
import type { Verdict } from "../domain/findings.js";
import type { FindingBrief } from "../domain/fleet.js";
import { parseInput } from "../http/input.js";
import { clusterListQuery, clusterName, eventListQuery } from "../http/schemas/fleet.js";
import type { ClusterView, FleetService } from "../services/fleet.js";
import { sourceLink } from "./answers.js";
import type { FleetCommand } from "./chat-command.js";
import { firstOf, type ChatReplyDoc, type Inline, type Line, type ReplySection } from "./reply.js";

/** Events a reply shows; older ones are paged over REST. */
const EVENTS_SHOWN = 15;
/** A cluster's own recent events under its detail. */
const CLUSTER_EVENTS_SHOWN = 5;

const VERDICT_EMOJI: Readonly<Record<Verdict, string>> = {
  SUPPORTED: "✅",
  SUPPORTED_WITH_WARNINGS: "⚠️",
  UNSUPPORTED: "❌",
  NOT_JUDGED: "❔",
};

const SEVERITY_EMOJI: Readonly<Record<string, string>> = {
  ERROR: "🔴",
  WARNING: "⚠️",
  INFO: "ℹ️",
};

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`;

/** Days to the last day of standard support, as a person counts them (0: today is the last day). */
function daysLeftWords(daysLeft: number | null): string {
  if (daysLeft === null) return "days not counted";
  if (daysLeft === 0) return "last day today";
  return daysLeft > 0 ? `${plural(daysLeft, "day")} left` : `${plural(-daysLeft, "day")} past`;
}

function daysToStartWords(daysToStart: number | null): string {
  if (daysToStart === null) return "not counted";
  if (daysToStart === 0) return "today";
  return daysToStart > 0
    ? `in ${plural(daysToStart, "day")}`
    : `${plural(-daysToStart, "day")} overdue`;
}

function codes(findings: readonly FindingBrief[]): Inline[] {
  return findings.flatMap((entry, index): Inline[] => [
    ...(index === 0 ? [] : [", "]),
    { code: entry.code },
  ]);
}

/** `pay-prod ❌ UNSUPPORTED · 1.32 on eks · standard support until 2026-03-22 (259 days past) · start by … · blocking …`. */
function clusterLine(view: ClusterView): Line {
  const judgement = view.judgement;
  if (judgement === null) return [{ bold: view.name }, " ❔ not judged yet"];
  const line: Inline[] = [
    { bold: view.name },
    ` ${VERDICT_EMOJI[judgement.status]} ${judgement.status}`,
  ];
  if (judgement.controlPlane !== null)
    line.push(
      ` · ${judgement.controlPlane}${judgement.platform === null ? "" : ` on ${judgement.platform}`}`,
    );
  if (judgement.deadline !== null)
    line.push(` · standard support until ${judgement.deadline} (${daysLeftWords(view.daysLeft)})`);
  if (judgement.startBy !== null && (judgement.upgrade?.hops ?? 0) > 0)
    line.push(
      ` · start by ${judgement.startBy.latestStart} (${daysToStartWords(view.daysToStart)})`,
    );
  if (judgement.blocking.length > 0) line.push(" · blocking ", ...codes(judgement.blocking));
  if (judgement.waived.length > 0) line.push(` · ${judgement.waived.length} waived`);
  if (judgement.problem !== null) line.push(` · ${judgement.problem}`);
  return line;
}

export async function listDoc(
  fleet: FleetService,
  command: Extract<FleetCommand, { kind: "fleet" }>,
) {
  const filter = {
    ...(command.environment === undefined ? {} : { environment: command.environment }),
    ...(command.owner === undefined ? {} : { owner: command.owner }),
    ...(command.label === undefined ? {} : { label: command.label }),
  };
  const clusters = await fleet.list(parseInput(clusterListQuery, filter, "query"));
  const environments = [...new Set(clusters.map((view) => view.environment))];
  const red = clusters.filter((view) => view.judgement?.status === "UNSUPPORTED").length;
  const sections: ReplySection[] = environments.map((environment) => {
    const { shown, omitted } = firstOf(clusters.filter((view) => view.environment === environment));
    return { title: environment, style: "bullets", lines: shown.map(clusterLine), omitted };
  });
  const narrowed = Object.entries(filter).map(([key, value]) => `${key} ${String(value)}`);
  return {
    headline:
      clusters.length === 0
        ? "🛰️ No clusters registered"
        : `🛰️ ${plural(clusters.length, "cluster")}${red > 0 ? `, ${red} unsupported` : ""}`,
    sections:
      clusters.length === 0
        ? [
            {
              style: "plain" as const,
              lines: [
                [
                  "Register one: ",
                  { code: "fleet register NAME env=ENV owner=OWNER kube-apiserver=1.32 …" },
                ],
              ],
            },
          ]
        : [
            ...sections,
            { style: "plain" as const, lines: [["One in full: ", { code: "fleet NAME" }]] },
          ],
    context: [`today ${fleet.today()}`, ...narrowed],
  };
}

function findingLine(entry: FindingBrief): Line {
  return [
    `${SEVERITY_EMOJI[entry.severity] ?? ""} `,
    { code: entry.code },
    ` ${entry.message}`,
    ...sourceLink(entry.sourceUrl),
  ];
}

export async function showDoc(fleet: FleetService, name: string): Promise<ChatReplyDoc> {
  const detail = await fleet.clusterDetail(parseInput(clusterName, name, "name"));
  const judgement = detail.judgement;
  const labels = Object.entries(detail.labels).map(([key, value]) => `${key}=${value}`);
  const about: Line[] = [
    [
      `${detail.environment} · owner ${detail.owner}`,
      ...(labels.length === 0 ? [] : [" · ", { code: labels.join(",") }]),
    ],
  ];
  const sections: ReplySection[] = [{ style: "plain", lines: about }];
  if (judgement === null) {
    about.push(["Not judged yet."]);
  } else {
    about.push([
      judgement.controlPlane === null
        ? "control plane not read"
        : `control plane ${judgement.controlPlane}${judgement.platform === null ? "" : ` on ${judgement.platform}`}`,
      ` · ${plural(judgement.blocking.length, "blocking finding")}, ${plural(judgement.warnings, "warning")}`,
    ]);
    if (judgement.problem !== null) about.push([`Not judged: ${judgement.problem}`]);
    if (judgement.status !== judgement.judgedStatus)
      about.push([
        `Judged ${judgement.judgedStatus} before waivers; the waived findings are held out of the verdict.`,
      ]);
    if (judgement.blocking.length > 0) {
      const { shown, omitted } = firstOf(judgement.blocking);
      sections.push({
        title: "Blocking",
        style: "bullets",
        lines: shown.map(findingLine),
        omitted,
      });
    }
    if (judgement.waived.length > 0) {
      const { shown, omitted } = firstOf(judgement.waived);
      sections.push({
        title: "Waived",
        style: "bullets",
        lines: shown.map(({ finding, waiver }) => [
          { code: finding.code },
          ` waiver #${waiver.id} until ${waiver.expiresOn}, ${waiver.owner}: ${waiver.reason}`,
        ]),
        omitted,
      });
    }
    sections.push(supportSection(detail));
    const upgrade = upgradeSection(detail);
    if (upgrade !== undefined) sections.push(upgrade);
  }
  if (detail.events.length > 0) {
    const recent = detail.events.slice(0, CLUSTER_EVENTS_SHOWN);
    sections.push({
      title: "Recent events",
      style: "bullets",
      lines: recent.map(eventLine),
      omitted: detail.events.length - recent.length,
    });
  }
  const status = judgement?.status ?? "NOT_JUDGED";
  return {
    headline: `${VERDICT_EMOJI[status]} ${detail.name}: ${status}`,
    sections,
    context: [
      ...(judgement === null
        ? []
        : [`judged at kb revision ${judgement.kbRevision} on ${judgement.asOf}`]),
      `today ${fleet.today()}`,
      ...(detail.snapshot === null ? [] : [`state from ${detail.snapshot.source}`]),
    ],
  };
}

function supportSection(view: ClusterView): ReplySection {
  const judgement = view.judgement!;
  const support = judgement.support;
  if (support === null || judgement.deadline === null)
    return {
      title: "Support",
      style: "plain",
      lines: [["The knowledge base gives no end of support for this minor."]],
    };
  const lines: Line[] = [
    [
      `Standard support of ${support.minor} on the ${support.calendar} calendar: last day ${judgement.deadline} (${daysLeftWords(view.daysLeft)})`,
      ...sourceLink(support.sourceUrl),
    ],
  ];
  if (support.endOfSupport !== null) lines.push([`All support ends ${support.endOfSupport}`]);
  if (support.precision === "MONTH") lines.push(["The calendar gives the month only."]);
  if (support.note !== null) lines.push([support.note]);
  return { title: "Support", style: "plain", lines };
}

function upgradeSection(detail: Awaited<ReturnType<FleetService["clusterDetail"]>>) {
  const upgrade = detail.judgement?.upgrade;
  if (upgrade === null || upgrade === undefined) return undefined;
  const lines: Line[] = [];
  if (upgrade.hops === 0)
    lines.push([`On the newest minor (${upgrade.targetVersion}): nothing to climb.`]);
  else {
    lines.push([
      `To ${upgrade.targetVersion}: ${plural(upgrade.hops, "hop")}${
        detail.plan === null ? "" : `, ${plural(detail.plan.steps.length, "step")}`
      }${upgrade.status === null ? "" : ` · the upgraded cluster would be ${upgrade.status}`}`,
      ...(upgrade.blocking.length === 0 ? [] : [" · blocking ", ...codes(upgrade.blocking)]),
    ]);
    const startBy = detail.judgement!.startBy;
    if (startBy !== null)
      lines.push([
        { bold: `Start by ${startBy.latestStart}` },
        ` (${daysToStartWords(detail.daysToStart)}): ${startBy.explanation}`,
      ]);
  }
  if (upgrade.problem !== null) lines.push([`No plan: ${upgrade.problem}`]);
  return { title: "Upgrade", style: "plain" as const, lines };
}

function eventLine(event: {
  id: number;
  cluster: string;
  kind: string;
  severity: string;
  summary: string;
  occurredAt: Date;
}): Line {
  return [
    `${SEVERITY_EMOJI[event.severity] ?? ""} #${event.id} ${event.occurredAt.toISOString().slice(0, 10)} `,
    { bold: event.cluster },
    " ",
    { code: event.kind },
    ` ${event.summary}`,
  ];
}

export async function eventsDoc(
  fleet: FleetService,
  cluster: string | undefined,
): Promise<ChatReplyDoc> {
  const query = parseInput(
    eventListQuery,
    { ...(cluster === undefined ? {} : { cluster }), limit: EVENTS_SHOWN },
    "query",
  );
  if (cluster !== undefined) await fleet.cluster(parseInput(clusterName, cluster, "name"));
  const events = await fleet.events(query);
  const oldest = events[events.length - 1];
  return {
    headline:
      events.length === 0
        ? `📭 No events${cluster === undefined ? "" : ` of ${cluster}`}`
        : `📜 The ${events.length === 1 ? "newest event" : `${events.length} newest events`}${cluster === undefined ? "" : ` of ${cluster}`}`,
    sections:
      events.length === 0
        ? [
            {
              style: "plain",
              lines: [["A cluster's events come when its verdict or deadline changes."]],
            },
          ]
        : [
            { style: "bullets", lines: events.map(eventLine) },
            ...(events.length === EVENTS_SHOWN && oldest !== undefined
              ? [
                  {
                    style: "plain" as const,
                    lines: [["Older ones: ", { code: `GET /api/v1/events?before=${oldest.id}` }]],
                  },
                ]
              : []),
          ],
    context: [`today ${fleet.today()}`],
  };
}

export async function waiversDoc(fleet: FleetService): Promise<ChatReplyDoc> {
  const waivers = await fleet.waivers();
  const { shown, omitted } = firstOf(waivers);
  return {
    headline: waivers.length === 0 ? "🙈 No waivers" : `🙈 ${plural(waivers.length, "waiver")}`,
    sections:
      waivers.length === 0
        ? [{ style: "plain", lines: [["No finding is held out of a verdict."]] }]
        : [
            {
              style: "bullets",
              lines: shown.map((waiver) => [
                { bold: `#${waiver.id}` },
                " ",
                { code: waiver.code },
                ` for ${waiver.clusterName ?? `label ${waiver.label ?? "?"}`} until ${waiver.expiresOn}, ${waiver.owner}: ${waiver.reason}`,
              ]),
              omitted,
            },
            { style: "plain", lines: [["Remove one: ", { code: "fleet unwaive ID" }]] },
          ],
    context: [`today ${fleet.today()}`],
  };
}
