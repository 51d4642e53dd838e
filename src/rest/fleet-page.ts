/**
 * `GET /fleet`: the fleet for people in a browser. Every registered cluster,
 * grouped by environment in rollout order, with its verdict (and the
 * findings a waiver holds out), its blocking findings and their sources, the
 * days to the end of standard support and to the latest day its upgrade must
 * start, its recent events and links to its JSON and its owner's calendar
 * feed; a timeline of the fleet's deadlines (src/rest/fleet-timeline.ts);
 * how old the judgements are. The calendar feed links each entry to
 * /fleet#cluster-<name>. Plain HTML and inline SVG: no script, nothing loaded
 * from elsewhere. Translation only: the FleetService judges and counts.
 */
import { Router, type Request, type Response } from "express";
import { describeError } from "../http/errors.js";
import { clusterListQuery } from "../http/schemas/fleet.js";
import type { ClusterView, FleetService } from "../services/fleet.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import { fleetTimelineSvg, timelineLegend, type TimelineRow } from "./fleet-timeline.js";
import { FRONT_PAGE_POLICY } from "./home.js";
import { inputErrorFrom, queryParameters } from "./parse.js";
import { escape } from "./pictures.js";

export interface FleetPageDependencies {
  readonly fleet: FleetService;
  readonly kb: KnowledgeBase;
}

type FleetFilter = { environment?: string; owner?: string; label?: string };
type FleetEvent = Awaited<ReturnType<FleetService["events"]>>[number];

/** Events counted as recent: the last 30 days of the fleet's calendar. */
export const RECENT_EVENT_DAYS = 30;
const EVENT_PAGE = 500;
/** At most this many events are read to count the recent ones; past it the page says the count is partial. */
const MAX_EVENTS_READ = 5_000;
const DAY_MS = 86_400_000;

const VERDICTS = ["UNSUPPORTED", "NOT_JUDGED", "SUPPORTED_WITH_WARNINGS", "SUPPORTED"] as const;
const VERDICT_STYLE: Readonly<Record<string, string>> = {
  UNSUPPORTED: "error",
  NOT_JUDGED: "warning",
  SUPPORTED_WITH_WARNINGS: "warning",
  SUPPORTED: "done",
};

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escape(title)}</title>
  <link rel="icon" href="data:,">
  <style>
    body { font-family: system-ui, sans-serif; max-width: 84rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1f23; }
    input, button, select { font: inherit; }
    :focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    table { border-collapse: collapse; width: 100%; margin: 0.5rem 0; font-size: 0.9rem; }
    th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
    tr:target { background: #fff8c5; }
    td code { word-break: break-word; }
    th[scope="row"], td.labels code { white-space: nowrap; }
    ul.findings { margin: 0; padding-left: 1rem; }
    .figure { overflow-x: auto; margin: 0.5rem 0; }
    svg text { font-family: system-ui, sans-serif; font-size: 11px; fill: #1b1f23; }
    svg text.axis { font-size: 10px; fill: #57606a; }
    svg text.today { fill: #cf222e; }
    svg text.note.past { fill: #cf222e; font-weight: 600; }
    svg text.note.overdue { fill: #bc4c00; font-weight: 600; }
    .legend .swatch { white-space: nowrap; margin-right: 0.75rem; }
    .filters label { margin-right: 0.75rem; }
    .error { color: #cf222e; }
    .warning { color: #9a6700; }
    .done { color: #1a7f37; }
    .muted { color: #57606a; }
    pre { background: #f6f8fa; padding: 0.5rem; overflow-x: auto; }
  </style>
</head>
<body>
  <p><a href="/">kubecompat</a> › <a href="/fleet">fleet</a></p>
  ${body}
</body>
</html>
`;
}

function send(res: Response, status: number, html: string): void {
  res.setHeader("Content-Security-Policy", FRONT_PAGE_POLICY);
  res.status(status).type("html").send(html);
}

/**
 * The filters of the page: those of GET /api/v1/clusters, anything else refused as there. A field the
 * form left blank means "any" (a browser sends every field of a GET form), so empty values are dropped.
 */
function filterOf(req: Request): FleetFilter {
  const given = queryParameters(req, Object.keys(clusterListQuery.shape));
  const filled = Object.fromEntries(
    Object.entries(given).filter(([, value]) => value.trim() !== ""),
  );
  const parsed = clusterListQuery.safeParse(filled);
  if (!parsed.success) throw inputErrorFrom(parsed.error, "query");
  return parsed.data;
}

function daysBefore(day: string, count: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - count * DAY_MS).toISOString().slice(0, 10);
}

/** The fleet's events judged on the last RECENT_EVENT_DAYS days, newest first (events are listed newest first). */
async function recentEvents(
  fleet: FleetService,
  today: string,
): Promise<{ events: FleetEvent[]; partial: boolean }> {
  const since = daysBefore(today, RECENT_EVENT_DAYS);
  const events: FleetEvent[] = [];
  let before: number | undefined;
  while (events.length < MAX_EVENTS_READ) {
    const batch = await fleet.events({ limit: EVENT_PAGE, before });
    events.push(...batch.filter((event) => event.asOf >= since));
    if (batch.length < EVENT_PAGE || batch.at(-1)!.asOf < since) return { events, partial: false };
    before = batch.at(-1)!.id;
  }
  return { events, partial: true };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function link(url: string | null, text: string): string {
  return url !== null && /^https?:\/\//i.test(url)
    ? `<a href="${escape(url)}">${escape(text)}</a>`
    : "";
}

/** How old the judgements shown are: the knowledge-base revisions and the days they were judged on. */
function freshness(clusters: readonly ClusterView[], revisionNow: number, today: string): string {
  const judged = clusters.flatMap((cluster) => (cluster.judgement ? [cluster.judgement] : []));
  if (judged.length === 0) return "";
  const revisions = [...new Set(judged.map((entry) => entry.kbRevision))].sort((a, b) => a - b);
  const daysJudged = [...new Set(judged.map((entry) => entry.asOf))].sort();
  const written = judged.map((entry) => entry.judgedAt).sort();
  const revisionWords =
    revisions.length === 1
      ? `knowledge-base revision <strong id="judged-revision">${revisions[0]}</strong>`
      : `knowledge-base revisions <strong id="judged-revision">${revisions[0]}–${revisions.at(-1)}</strong>`;
  const dayWords =
    daysJudged.length === 1
      ? `<strong id="judged-day">${escape(daysJudged[0]!)}</strong>`
      : `<strong id="judged-day">${escape(daysJudged[0]!)} to ${escape(daysJudged.at(-1)!)}</strong>`;
  const behind =
    revisions.at(-1)! < revisionNow || daysJudged[0]! < today
      ? ` <span class="warning">The knowledge base is at revision ${revisionNow} and today is ${escape(today)}: the fleet is being judged again; reload in a moment.</span>`
      : "";
  return `<p id="freshness">Judged at ${revisionWords} on ${dayWords} (last written ${escape(written.at(-1)!)}).${behind}</p>`;
}

function verdictCounts(clusters: readonly ClusterView[]): string {
  const unjudged = clusters.filter((cluster) => cluster.judgement === null).length;
  const items = VERDICTS.map((verdict) => ({
    verdict,
    count: clusters.filter((cluster) => cluster.judgement?.status === verdict).length,
  }))
    .filter((entry) => entry.count > 0)
    .map(
      (entry) =>
        `<li data-status="${entry.verdict}" class="${VERDICT_STYLE[entry.verdict]}">${entry.verdict}: <strong>${entry.count}</strong></li>`,
    );
  if (unjudged > 0)
    items.push(`<li data-status="none">not judged yet: <strong>${unjudged}</strong></li>`);
  return `<ul id="verdict-counts">${items.join("")}</ul>`;
}

function filterForm(environments: readonly string[], filter: FleetFilter): string {
  const options = ["", ...environments]
    .map(
      (name) =>
        `<option value="${escape(name)}"${(filter.environment ?? "") === name ? " selected" : ""}>${name === "" ? "any" : escape(name)}</option>`,
    )
    .join("");
  const active = Object.values(filter).some((value) => value !== undefined);
  return `<form class="filters" method="get" action="/fleet">
    <label>environment <select name="environment">${options}</select></label>
    <label>owner <input name="owner" value="${escape(filter.owner ?? "")}" size="16"></label>
    <label>label <input name="label" value="${escape(filter.label ?? "")}" size="20" placeholder="key=value"></label>
    <button type="submit">Filter</button>${active ? ` <a href="/fleet" id="clear-filters">show every cluster</a>` : ""}
  </form>`;
}

function verdictCell(cluster: ClusterView): string {
  const judgement = cluster.judgement;
  if (judgement === null) return `<td class="verdict muted">not judged yet</td>`;
  const waived =
    judgement.judgedStatus === judgement.status
      ? ""
      : `<br><span class="waived">judged ${escape(judgement.judgedStatus)}; waived: ${judgement.waived
          .map(
            (entry) =>
              `<code>${escape(entry.finding.code)}</code> until ${escape(entry.waiver.expiresOn)} (${escape(entry.waiver.reason)})`,
          )
          .join(", ")}</span>`;
  const problem = judgement.problem === null ? "" : `<br>${escape(judgement.problem)}`;
  return `<td class="verdict"><strong class="${VERDICT_STYLE[judgement.status] ?? ""}" data-status="${escape(judgement.status)}">${escape(judgement.status)}</strong>${waived}${problem}</td>`;
}

function blockingCell(cluster: ClusterView): string {
  const blocking = cluster.judgement?.blocking ?? [];
  if (blocking.length === 0) return `<td class="blocking muted">none</td>`;
  const items = blocking.map((finding) => {
    const source = link(finding.sourceUrl, "source");
    return `<li><code>${escape(finding.code)}</code> ${escape(finding.message)}${source === "" ? "" : ` (${source})`}</li>`;
  });
  return `<td class="blocking"><ul class="findings">${items.join("")}</ul></td>`;
}

function supportCell(cluster: ClusterView): string {
  const deadline = cluster.judgement?.deadline ?? null;
  const left = cluster.daysLeft;
  if (deadline === null || left === null) return `<td class="support muted">not known</td>`;
  const words =
    left < 0
      ? `<strong class="error past">past</strong>: ${plural(-left, "day")} ago`
      : left === 0
        ? `<strong class="warning">today</strong> is the last day`
        : `in ${plural(left, "day")}`;
  const calendar = cluster.judgement?.support?.calendar;
  return `<td class="support" data-deadline="${escape(deadline)}" data-days-left="${left}">${escape(deadline)}${calendar === undefined ? "" : ` (${escape(calendar)})`}<br>${words}</td>`;
}

/** The latest start, shown only when an upgrade is due (as the calendar feed does). */
function startOf(cluster: ClusterView): { latestStart: string; daysToStart: number } | null {
  const judgement = cluster.judgement;
  if (
    judgement === null ||
    judgement.startBy === null ||
    (judgement.upgrade?.hops ?? 0) === 0 ||
    cluster.daysToStart === null
  )
    return null;
  return { latestStart: judgement.startBy.latestStart, daysToStart: cluster.daysToStart };
}

function startCell(cluster: ClusterView): string {
  const start = startOf(cluster);
  if (start === null) {
    const target = cluster.judgement?.upgrade?.targetVersion;
    return `<td class="start muted">${target === undefined ? "no upgrade known" : `on the newest minor (${escape(target)})`}</td>`;
  }
  const { latestStart, daysToStart } = start;
  const upgrade = cluster.judgement!.upgrade!;
  const words =
    daysToStart < 0
      ? `<strong class="error overdue">overdue</strong> by ${plural(-daysToStart, "day")}`
      : daysToStart === 0
        ? `<strong class="warning">today</strong>`
        : `in ${plural(daysToStart, "day")}`;
  return `<td class="start" data-latest-start="${escape(latestStart)}" data-days-to-start="${daysToStart}" title="${escape(cluster.judgement!.startBy!.explanation)}">${escape(latestStart)}<br>${words}<br><span class="muted">${plural(upgrade.hops, "hop")} to ${escape(upgrade.targetVersion)}</span></td>`;
}

function eventsCell(events: readonly FleetEvent[] | undefined, partial: boolean): string {
  if (events === undefined || events.length === 0)
    return `<td class="events muted" data-recent="0">none in ${RECENT_EVENT_DAYS} days</td>`;
  const newest = events[0]!;
  return `<td class="events" data-recent="${events.length}">${plural(events.length, "event")} in ${RECENT_EVENT_DAYS} days${partial ? " (at least)" : ""}; newest (${escape(newest.asOf)}, ${escape(newest.kind)}): ${escape(newest.summary)}</td>`;
}

function clusterRow(
  cluster: ClusterView,
  events: readonly FleetEvent[] | undefined,
  partial: boolean,
): string {
  const labels = Object.entries(cluster.labels)
    .map(([key, value]) => `<code>${escape(key)}=${escape(value)}</code>`)
    .join("<br>");
  const judgement = cluster.judgement;
  const version =
    judgement?.controlPlane == null
      ? `<span class="muted">not known</span>`
      : `${escape(judgement.controlPlane)} on ${escape(judgement.platform ?? "upstream")}`;
  const name = encodeURIComponent(cluster.name);
  return `<tr id="cluster-${escape(cluster.name)}" class="cluster" data-cluster="${escape(cluster.name)}">
        <th scope="row"><a href="#cluster-${escape(cluster.name)}">${escape(cluster.name)}</a></th>
        <td class="owner">${escape(cluster.owner)}</td>
        <td class="labels">${labels}</td>
        <td class="version">${version}</td>
        ${verdictCell(cluster)}
        ${blockingCell(cluster)}
        ${supportCell(cluster)}
        ${startCell(cluster)}
        ${eventsCell(events, partial)}
        <td class="links"><a class="cluster-json" href="/api/v1/clusters/${escape(name)}">JSON and plan</a><br><a class="owner-calendar" href="/api/v1/calendar.ics?owner=${escape(encodeURIComponent(cluster.owner))}">${escape(cluster.owner)}'s calendar</a></td>
      </tr>`;
}

/** The environments in rollout order, then any a cluster names that the configuration no longer lists. */
function environmentSections(
  clusters: readonly ClusterView[],
  environments: readonly string[],
  recent: { events: readonly FleetEvent[]; partial: boolean },
): string {
  const byCluster = new Map<string, FleetEvent[]>();
  for (const event of recent.events)
    byCluster.set(event.cluster, [...(byCluster.get(event.cluster) ?? []), event]);
  const order = [
    ...environments,
    ...new Set(
      clusters.map((cluster) => cluster.environment).filter((name) => !environments.includes(name)),
    ),
  ];
  return order
    .map((environment) => ({
      environment,
      members: clusters.filter((cluster) => cluster.environment === environment),
    }))
    .filter((group) => group.members.length > 0)
    .map(
      ({
        environment,
        members,
      }) => `<section class="environment" id="environment-${escape(environment)}" data-environment="${escape(environment)}">
    <h2>${escape(environment)} <span class="muted">(${plural(members.length, "cluster")})</span></h2>
    <table>
      <thead><tr><th>cluster</th><th>owner</th><th>labels</th><th>control plane</th><th>verdict</th><th>blocking findings</th><th>last day of standard support</th><th>latest start</th><th>recent events</th><th>links</th></tr></thead>
      <tbody>
      ${members.map((cluster) => clusterRow(cluster, byCluster.get(cluster.name), recent.partial)).join("\n      ")}
      </tbody>
    </table>
  </section>`,
    )
    .join("\n  ");
}

function timelineRow(cluster: ClusterView): TimelineRow {
  const start = startOf(cluster);
  return {
    name: cluster.name,
    environment: cluster.environment,
    status: cluster.judgement?.status ?? null,
    deadline: cluster.judgement?.deadline ?? null,
    daysLeft: cluster.daysLeft,
    latestStart: start?.latestStart ?? null,
    daysToStart: start?.daysToStart ?? null,
    explanation: start === null ? null : (cluster.judgement?.startBy?.explanation ?? null),
  };
}

/** What an empty fleet (or an empty selection) says: how to register a cluster. */
function emptyFleet(filtered: boolean): string {
  if (filtered)
    return `<p id="no-match">No registered cluster matches these filters. <a href="/fleet">Show every cluster</a>.</p>`;
  const example = JSON.stringify(
    {
      name: "payments-prod",
      environment: "prod",
      owner: "team-payments",
      labels: { team: "payments" },
      platform: "eks",
      components: [
        { component: "kube-apiserver", version: "1.32.9" },
        { component: "kubelet", version: "1.32.9", instance: "pool-a" },
      ],
    },
    null,
    2,
  );
  return `<section id="empty-fleet">
    <p>No cluster is registered yet. Register one with an editor's token, giving its state as validate takes it
    (components, or kubectl's outputs, or a <code>kubecompat collect</code> bundle):</p>
    <pre>curl -X POST "$KUBECOMPAT_URL/api/v1/clusters" \\
  -H "Authorization: Bearer $KUBECOMPAT_TOKEN" -H "Content-Type: application/json" \\
  -d '${escape(example)}'</pre>
    <p>or from a machine with kubectl access to the cluster: <code>kubecompat register</code>. It is judged at once, then again on every knowledge-base revision and every new day.</p>
  </section>`;
}

export function fleetPage(input: {
  readonly clusters: readonly ClusterView[];
  readonly environments: readonly string[];
  readonly filter: FleetFilter;
  readonly today: string;
  readonly revisionNow: number;
  readonly recent: { events: readonly FleetEvent[]; partial: boolean };
}): string {
  const { clusters, filter, today } = input;
  const filtered = Object.values(filter).some((value) => value !== undefined);
  const intro = `<h1>Fleet</h1>
  <p>The registered clusters, judged by validate and the upgrade plan on every knowledge-base revision and every new day. Today is <strong id="today">${escape(today)}</strong>; ${plural(clusters.length, "cluster")} shown${filtered ? " (filtered)" : ""}.</p>
  ${freshness(clusters, input.revisionNow, today)}
  ${verdictCounts(clusters)}
  ${filterForm(input.environments, filter)}`;
  if (clusters.length === 0) return page("kubecompat fleet", `${intro}\n  ${emptyFleet(filtered)}`);
  const timeline = `<h2>Deadlines</h2>
  <div class="figure">${fleetTimelineSvg(clusters.map(timelineRow), today)}</div>
  ${timelineLegend()}`;
  return page(
    "kubecompat fleet",
    `${intro}\n  ${timeline}\n  ${environmentSections(clusters, input.environments, input.recent)}`,
  );
}

function errorPage(code: string, message: string): string {
  return page(
    `kubecompat fleet: ${code}`,
    `<h1>Not shown (${escape(code)})</h1>
  <p class="error" id="answer" role="alert">${escape(message)}</p>
  <p><a href="/fleet">Back to the fleet</a></p>`,
  );
}

export function fleetPageRoutes(deps: FleetPageDependencies): Router {
  const router = Router();
  router.get("/fleet", async (req, res) => {
    let filter: FleetFilter;
    let clusters: ClusterView[];
    try {
      filter = filterOf(req);
      clusters = await deps.fleet.list(filter);
    } catch (error) {
      // What the caller can fix is said on a page with its status, as the review queue's page does.
      const described = describeError(error);
      if (described.internal) throw error;
      send(res, described.status, errorPage(described.code, described.message));
      return;
    }
    const today = deps.fleet.today();
    send(
      res,
      200,
      fleetPage({
        clusters,
        environments: deps.fleet.environments,
        filter,
        today,
        revisionNow: deps.kb.current().revision,
        recent: await recentEvents(deps.fleet, today),
      }),
    );
  });
  return router;
}
