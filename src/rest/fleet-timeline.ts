/**
 * The fleet's timeline for the fleet page, drawn on the server as inline SVG
 * (no script, nothing fetched): one row per cluster, an axis from today to
 * the latest date shown (at most 18 months; later dates sit in a gutter
 * marked as beyond), a bar from the latest day the upgrade must start to the
 * last day of standard support, and a marker on that day. Dates already
 * gone sit in a gutter before today. An overdue start and a past deadline
 * are drawn differently in colour AND in shape or pattern, and each row says
 * them in words too, so nothing is told by colour alone. It draws only what
 * the fleet's judgements say (dates and days counted by FleetService).
 */
import { escape } from "./pictures.js";

/** One cluster's dates as the page read them from its judgement, counted on `today`. */
export interface TimelineRow {
  readonly name: string;
  readonly environment: string;
  readonly status: string | null;
  /** The last day of standard support. */
  readonly deadline: string | null;
  readonly daysLeft: number | null;
  /** The latest day the upgrade must start; null when no upgrade is due (already on the newest minor). */
  readonly latestStart: string | null;
  readonly daysToStart: number | null;
  /** The rollout sentence of the judgement (startBy.explanation). */
  readonly explanation: string | null;
}

const DAY_MS = 86_400_000;
/** About 18 months: past that a date is only said to be later, so near dates keep their room. */
export const AXIS_CAP_DAYS = 548;
const MIN_AXIS_DAYS = 90;

const WIDTH = 1100;
const LABEL_END = 186;
const PAST = { from: 194, to: 264 } as const;
const AXIS = { from: 280, to: 840 } as const;
const BEYOND = { from: 852, to: 902 } as const;
const NOTE_X = 914;
const ROW = 24;
const TOP = 40;

const dayNumber = (date: string): number => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

function clip(text: string, characters: number): string {
  return text.length <= characters ? text : `${text.slice(0, characters - 1)}…`;
}

function days(count: number): string {
  return `${count} day${count === 1 ? "" : "s"}`;
}

/** Where a row's dates stand against today. */
function standing(row: TimelineRow): { past: boolean; overdue: boolean } {
  return {
    past: row.daysLeft !== null && row.daysLeft < 0,
    overdue: row.daysToStart !== null && row.daysToStart < 0,
  };
}

/** What a row's hover text and its note say. */
function rowWords(row: TimelineRow): { title: string; note: string } {
  const { past, overdue } = standing(row);
  const parts = [`${row.name} (${row.environment})${row.status === null ? "" : `: ${row.status}`}`];
  if (row.deadline === null || row.daysLeft === null)
    parts.push("no end of standard support is known");
  else
    parts.push(
      past
        ? `standard support ended: its last day was ${row.deadline}, ${days(-row.daysLeft)} ago`
        : `last day of standard support ${row.deadline}, in ${days(row.daysLeft)}`,
    );
  if (row.latestStart !== null && row.daysToStart !== null)
    parts.push(
      overdue
        ? `the upgrade should have started by ${row.latestStart} (overdue by ${days(-row.daysToStart)})`
        : `start the upgrade by ${row.latestStart}, in ${days(row.daysToStart)}`,
    );
  if (row.explanation !== null) parts.push(row.explanation);
  const note =
    row.deadline === null
      ? "no deadline known"
      : [overdue ? "start overdue" : "", past ? "deadline past" : ""]
          .filter((word) => word !== "")
          .join(", ") || `${days(row.daysLeft!)} left`;
  return { title: parts.join("; "), note };
}

function monthTicks(start: number, end: number, height: number, x: (day: number) => number) {
  const first = new Date(start * DAY_MS);
  const months = (end - start) / 30;
  const every = months <= 8 ? 1 : 3;
  const ticks: string[] = [];
  for (
    let month = first.getUTCMonth() + 1, year = first.getUTCFullYear();
    Date.UTC(year, month, 1) / DAY_MS <= end;
    month += 1
  ) {
    const day = Date.UTC(year, month, 1) / DAY_MS;
    const label = dateOf(day).slice(0, 7);
    if (new Date(day * DAY_MS).getUTCMonth() % every !== 0) continue;
    const at = x(day).toFixed(1);
    ticks.push(
      `<line x1="${at}" y1="${TOP - 6}" x2="${at}" y2="${height - 22}" stroke="#d0d7de"/><text x="${at}" y="${TOP - 10}" text-anchor="middle" class="axis">${label}</text>`,
    );
  }
  return ticks.join("\n  ");
}

const DEFS = `<defs>
    <pattern id="overdue-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff1e5"/><line x1="0" y1="0" x2="0" y2="6" stroke="#bc4c00" stroke-width="3"/></pattern>
  </defs>`;

/** A diamond at the last day of standard support; once past, a red square with a cross. */
function deadlineMarker(x: number, y: number, past: boolean): string {
  if (past)
    return `<g class="deadline-marker past"><rect x="${(x - 6).toFixed(1)}" y="${y - 6}" width="12" height="12" fill="#cf222e"/><path d="M${(x - 4).toFixed(1)} ${y - 4} l8 8 M${(x + 4).toFixed(1)} ${y - 4} l-8 8" stroke="#ffffff" stroke-width="2"/></g>`;
  return `<polygon class="deadline-marker" points="${x.toFixed(1)},${y - 7} ${(x + 7).toFixed(1)},${y} ${x.toFixed(1)},${y + 7} ${(x - 7).toFixed(1)},${y}" fill="#0969da" stroke="#ffffff"/>`;
}

/**
 * The timeline of `rows` counted on `today`. Each row is a `<g class="timeline-row">` with
 * data-cluster, data-overdue and data-past, its label and a note in words.
 */
export function fleetTimelineSvg(rows: readonly TimelineRow[], today: string): string {
  const start = dayNumber(today);
  const dated = rows.flatMap((row) =>
    [row.deadline, row.latestStart].flatMap((date) => (date === null ? [] : [dayNumber(date)])),
  );
  const latest = Math.max(start, ...dated);
  const end = Math.min(start + AXIS_CAP_DAYS, Math.max(start + MIN_AXIS_DAYS, latest + 14));
  const axis = (day: number): number =>
    AXIS.from + ((day - start) / (end - start)) * (AXIS.to - AXIS.from);
  // Before today: the gutter before the axis (an overdue start at its left, so its hatched bar shows even
  // when the deadline is gone too); after the cap: the gutter after it.
  const x = (day: number, what: "start" | "deadline"): number =>
    day < start
      ? what === "start"
        ? PAST.from + 6
        : PAST.to - 22
      : day > end
        ? (BEYOND.from + BEYOND.to) / 2
        : axis(day);
  const height = TOP + rows.length * ROW + 28;
  const drawn = rows.map((row, index) => {
    const y = TOP + index * ROW + ROW / 2;
    const { past, overdue } = standing(row);
    const words = rowWords(row);
    const pieces: string[] = [];
    if (row.deadline !== null) {
      const until = x(dayNumber(row.deadline), "deadline");
      if (row.latestStart !== null) {
        const from = x(dayNumber(row.latestStart), "start");
        pieces.push(
          `<rect class="rollout${overdue ? " overdue" : ""}" x="${from.toFixed(1)}" y="${y - 5}" width="${Math.max(2, until - from).toFixed(1)}" height="10" rx="2" fill="${overdue ? "url(#overdue-hatch)" : "#b6e3ff"}" stroke="${overdue ? "#bc4c00" : "#0969da"}"/>`,
        );
      }
      pieces.push(deadlineMarker(until, y, past));
    }
    const noteClass = past ? "note past" : overdue ? "note overdue" : "note";
    return `<g class="timeline-row" data-cluster="${escape(row.name)}" data-overdue="${overdue}" data-past="${past}"><title>${escape(words.title)}</title>
    <text x="${LABEL_END}" y="${y + 4}" text-anchor="end" class="label">${escape(clip(`${row.name} (${row.environment})`, 30))}</text>
    <line x1="${PAST.from}" y1="${y}" x2="${BEYOND.to}" y2="${y}" stroke="#eaeef2"/>
    ${pieces.join("\n    ")}
    <text x="${NOTE_X}" y="${y + 4}" class="${noteClass}">${escape(words.note)}</text></g>`;
  });
  const counts = rows.map(standing);
  const past = counts.filter((entry) => entry.past).length;
  const overdue = counts.filter((entry) => entry.overdue).length;
  const beyond = rows.filter(
    (row) => row.deadline !== null && dayNumber(row.deadline) > end,
  ).length;
  const summary = `Fleet timeline of ${rows.length} cluster${rows.length === 1 ? "" : "s"} from today (${today}) to ${dateOf(end)}: a bar from the latest day each upgrade must start to the last day of standard support. ${past} past the end of standard support, ${overdue} with the upgrade start overdue, ${beyond} with the deadline after ${dateOf(end)}.`;
  const todayX = AXIS.from.toFixed(1);
  return `<svg id="fleet-timeline" role="img" aria-label="${escape(summary)}" viewBox="0 0 ${WIDTH} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">
  ${DEFS}
  <rect x="${PAST.from}" y="${TOP - 6}" width="${PAST.to - PAST.from}" height="${height - TOP - 16}" fill="#fff0ee"/>
  <text x="${(PAST.from + PAST.to) / 2}" y="${TOP - 10}" text-anchor="middle" class="axis">before today</text>
  <rect x="${BEYOND.from}" y="${TOP - 6}" width="${BEYOND.to - BEYOND.from}" height="${height - TOP - 16}" fill="#f6f8fa"/>
  <text x="${(BEYOND.from + BEYOND.to) / 2}" y="${TOP - 22}" text-anchor="middle" class="axis" id="timeline-beyond">after</text>
  <text x="${(BEYOND.from + BEYOND.to) / 2}" y="${TOP - 10}" text-anchor="middle" class="axis">${dateOf(end)}</text>
  ${monthTicks(start, end, height, axis)}
  ${drawn.join("\n  ")}
  <g id="timeline-today" data-date="${escape(today)}"><line x1="${todayX}" y1="${TOP - 6}" x2="${todayX}" y2="${height - 20}" stroke="#cf222e" stroke-width="2"/><text x="${todayX}" y="${height - 6}" text-anchor="middle" class="axis today">today ${escape(today)}</text></g>
</svg>`;
}

/** The legend of the timeline: each mark with its words (the hatch is the timeline's own pattern, so it follows the timeline). */
export function timelineLegend(): string {
  const mark = (svg: string, words: string) =>
    `<span class="swatch"><svg width="26" height="14" aria-hidden="true">${svg}</svg> ${escape(words)}</span>`;
  return `<p class="legend">${[
    mark(
      `<rect x="1" y="2" width="24" height="10" rx="2" fill="#b6e3ff" stroke="#0969da"/>`,
      "from the latest start to the last day of standard support",
    ),
    mark(
      `<rect x="1" y="2" width="24" height="10" rx="2" fill="url(#overdue-hatch)" stroke="#bc4c00"/>`,
      "start overdue (hatched)",
    ),
    mark(`<polygon points="13,0 20,7 13,14 6,7" fill="#0969da"/>`, "last day of standard support"),
    mark(
      `<rect x="7" y="1" width="12" height="12" fill="#cf222e"/><path d="M9 3 l8 8 M17 3 l-8 8" stroke="#ffffff" stroke-width="2"/>`,
      "deadline past (crossed)",
    ),
  ].join(" ")}</p>`;
}
