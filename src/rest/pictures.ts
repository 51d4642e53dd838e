/**
 * Pictures for the front page, drawn on the server as inline SVG (no script,
 * nothing fetched, so they work offline and in any browser): the release
 * calendar with today marked, the compatibility matrix, and an upgrade plan
 * as a timeline of hops. They only draw what the domain core answered; every
 * colour has a word beside it (legend, cell text, <title>), so nothing is
 * said by colour alone.
 */
import type { CompatibilityMatrix, MatrixCell, MatrixColumn } from "../domain/matrix.js";
import type { ReleaseStatus } from "../domain/release-status.js";
import { stepText, type PlanHop } from "../domain/plan-timeline.js";
import type { Finding } from "../domain/findings.js";

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** Release status → fill and the word the legend gives it. */
export const STATUS_STYLE: Readonly<
  Record<ReleaseStatus, { readonly fill: string; readonly word: string }>
> = {
  SUPPORTED: { fill: "#2da44e", word: "supported" },
  MAINTENANCE: { fill: "#d4a72c", word: "maintenance" },
  END_OF_LIFE: { fill: "#8c959f", word: "end of life" },
  NOT_YET_RELEASED: { fill: "#54aeff", word: "not yet released" },
  UNKNOWN: { fill: "#ffffff", word: "unknown" },
};

const CELL_STYLE: Readonly<
  Record<MatrixCell["state"], { readonly fill: string; readonly word: string }>
> = {
  SUPPORTED: { fill: "#dafbe1", word: "fits" },
  NONE: { fill: "#ffebe9", word: "nothing listed fits" },
  UNKNOWN: { fill: "#f6f8fa", word: "not known" },
};

/** The cell of an end-of-life minor is drawn muted: it may fit, but nobody patches that minor any more. */
const END_OF_LIFE_CELL = "#eaeef2";

const DAY_MS = 86_400_000;
const dayNumber = (date: string): number => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);

function clip(text: string, characters: number): string {
  return text.length <= characters ? text : `${text.slice(0, characters - 1)}…`;
}

/** Each minor's life as a bar on a date axis, today a red line. */
export function calendarSvg(columns: readonly MatrixColumn[], asOf: string): string {
  if (columns.length === 0) return "";
  const left = 60;
  const width = 900;
  const rowHeight = 18;
  const top = 24;
  const start =
    Math.min(...columns.map((column) => dayNumber(column.releaseDate)), dayNumber(asOf)) - 30;
  const end =
    Math.max(
      ...columns.map(
        (column) =>
          dayNumber(column.endOfLife ?? column.releaseDate) + (column.endOfLife === null ? 420 : 0),
      ),
      dayNumber(asOf),
    ) + 30;
  const x = (day: number): number => left + ((day - start) / (end - start)) * (width - left - 10);
  const height = top + columns.length * rowHeight + 24;
  const years: string[] = [];
  for (
    let year = new Date(start * DAY_MS).getUTCFullYear() + 1;
    Date.UTC(year, 0, 1) / DAY_MS <= end;
    year += 1
  ) {
    const at = x(Date.UTC(year, 0, 1) / DAY_MS).toFixed(1);
    years.push(
      `<line x1="${at}" y1="${top - 6}" x2="${at}" y2="${height - 20}" stroke="#d0d7de"/><text x="${at}" y="${top - 10}" text-anchor="middle" class="axis">${year}</text>`,
    );
  }
  const bars = columns.map((column, index) => {
    const y = top + index * rowHeight;
    const from = x(dayNumber(column.releaseDate));
    const until = x(column.endOfLife === null ? end : dayNumber(column.endOfLife));
    const style = STATUS_STYLE[column.status];
    const life = `${column.minor}: released ${column.releaseDate}, end of life ${column.endOfLife ?? "not yet dated"}; ${style.word} on ${asOf}`;
    return `<g class="release" data-minor="${escape(column.minor)}" data-status="${column.status}"><title>${escape(life)}</title>
      <text x="${left - 8}" y="${y + 13}" text-anchor="end">${escape(column.minor)}</text>
      <rect x="${from.toFixed(1)}" y="${y + 3}" width="${Math.max(2, until - from).toFixed(1)}" height="${rowHeight - 6}" rx="3" fill="${style.fill}" stroke="#57606a" stroke-width="0.5"${column.endOfLife === null ? ' stroke-dasharray="4 2"' : ""}/></g>`;
  });
  const today = x(dayNumber(asOf)).toFixed(1);
  return `<svg id="release-calendar" role="img" aria-labelledby="release-calendar-title" viewBox="0 0 ${width} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">
  <title id="release-calendar-title">Kubernetes releases from release to end of life; today (${escape(asOf)}) is the red line</title>
  ${years.join("\n  ")}
  ${bars.join("\n  ")}
  <g id="today" data-date="${escape(asOf)}"><line x1="${today}" y1="${top - 6}" x2="${today}" y2="${height - 18}" stroke="#cf222e" stroke-width="2"/><text x="${today}" y="${height - 4}" text-anchor="middle" fill="#cf222e" class="axis">today ${escape(asOf)}</text></g>
</svg>`;
}

/** Minors across, components, runtimes and add-ons down; each cell says in words what fits. */
export function matrixSvg(matrix: CompatibilityMatrix): string {
  const label = 190;
  const cell = 112;
  const rowHeight = 26;
  const header = 40;
  const width = label + matrix.columns.length * cell + 2;
  const height = header + matrix.rows.length * rowHeight + 2;
  const heads = matrix.columns.map((column, index) => {
    const x = label + index * cell;
    const style = STATUS_STYLE[column.status];
    return `<g class="minor" data-minor="${escape(column.minor)}" data-status="${column.status}"><title>${escape(`${column.minor}: ${style.word} on ${matrix.asOf}`)}</title>
      <rect x="${x}" y="0" width="${cell}" height="${header - 4}" fill="${style.fill}" stroke="#ffffff"/>
      <text x="${x + cell / 2}" y="16" text-anchor="middle" class="head">${escape(column.minor)}</text>
      <text x="${x + cell / 2}" y="30" text-anchor="middle" class="small">${escape(style.word)}</text></g>`;
  });
  const rows = matrix.rows.map((row, rowIndex) => {
    const y = header + rowIndex * rowHeight;
    const cells = row.cells.map((entry, index) => {
      const x = label + index * cell;
      const column = matrix.columns[index]!;
      const style = CELL_STYLE[entry.state];
      const fill =
        entry.state === "SUPPORTED" && column.status === "END_OF_LIFE"
          ? END_OF_LIFE_CELL
          : style.fill;
      return `<g class="cell" data-state="${entry.state}" data-minor="${escape(entry.minor)}"><title>${escape(`${row.subject} with a ${entry.minor} control plane: ${entry.text} (${style.word}${column.status === "END_OF_LIFE" ? `; ${entry.minor} is past its end of life` : ""})`)}</title>
        <rect x="${x}" y="${y}" width="${cell}" height="${rowHeight}" fill="${fill}" stroke="#d0d7de"/>
        <text x="${x + 6}" y="${y + 17}" class="${entry.state === "UNKNOWN" ? "unknown" : "value"}">${escape(clip(entry.text, 17))}</text></g>`;
    });
    return `<g class="row" data-subject="${escape(row.subject)}" data-kind="${row.kind}">
      <text x="${label - 8}" y="${y + 17}" text-anchor="end" class="subject">${escape(row.subject)}</text>
      ${cells.join("\n      ")}</g>`;
  });
  return `<svg id="matrix" role="img" aria-labelledby="matrix-title" viewBox="0 0 ${width} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">
  <title id="matrix-title">Compatibility matrix on ${escape(matrix.asOf)}, profile ${escape(matrix.profile)}: what runs with a control plane of each Kubernetes minor</title>
  ${heads.join("\n  ")}
  ${rows.join("\n  ")}
</svg>`;
}

const SEVERITY_FILL: Readonly<Record<Finding["severity"], string>> = {
  ERROR: "#cf222e",
  WARNING: "#9a6700",
  INFO: "#57606a",
};

/** The hops left to right, joined by arrows; each box lists its steps, then what the minor removes and changes. */
export function planSvg(hops: readonly PlanHop[], currentMinor: string): string {
  const box = 250;
  const gap = 40;
  const line = 15;
  const maxLines = 14;
  const linesOf = (hop: PlanHop): Array<{ text: string; kind: string }> => {
    // A hop's control-plane step says how far it can be undone (the full words in the line's title).
    const undo = [
      ...new Set(hop.steps.flatMap((step) => (typeof step.undo === "string" ? [step.undo] : []))),
    ];
    const lines = [
      ...hop.steps.map((step) => ({ text: stepText(step), kind: "step" })),
      ...undo.map((text) => ({ text: `undo: ${text}`, kind: "undo" })),
      ...hop.removals.map((text) => ({ text: `removed: ${text}`, kind: "removal" })),
      ...hop.changes.map((text) => ({ text: `changes: ${text}`, kind: "change" })),
    ];
    return lines.length <= maxLines
      ? lines
      : [
          ...lines.slice(0, maxLines - 1),
          { text: `… and ${lines.length - maxLines + 1} more (see below)`, kind: "more" },
        ];
  };
  const height = 44 + maxLines * line + 16;
  const width = hops.length * (box + gap) - gap + 2;
  const drawn = hops.map((hop, index) => {
    const x = index * (box + gap) + 1;
    const title = hop.preparing ? `at ${hop.minor}: prepare` : `to ${hop.minor}`;
    const lines = linesOf(hop);
    const text = lines
      .map(
        (entry, lineIndex) =>
          `<text x="${x + 8}" y="${44 + lineIndex * line}" class="${entry.kind}">${escape(clip(entry.text, 36))}<title>${escape(entry.text)}</title></text>`,
      )
      .join("\n      ");
    const arrow =
      index < hops.length - 1
        ? `<path d="M${x + box + 4} ${height / 2} h${gap - 10}" stroke="#57606a" stroke-width="2" marker-end="url(#arrow)"/>`
        : "";
    return `<g class="hop" data-minor="${escape(hop.minor)}" data-steps="${hop.steps.length}">
      <rect x="${x}" y="1" width="${box}" height="${height - 2}" rx="6" fill="#f6f8fa" stroke="#0969da"/>
      <text x="${x + 8}" y="22" class="head">${escape(title)}</text>
      ${text}
      ${arrow}</g>`;
  });
  return `<svg id="plan-timeline" role="img" aria-labelledby="plan-title" viewBox="0 0 ${width} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">
  <title id="plan-title">Upgrade plan from ${escape(currentMinor)}: ${hops.length} hop(s), left to right</title>
  <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#57606a"/></marker></defs>
  ${drawn.join("\n  ")}
</svg>`;
}

/** The plan's findings as a list, worst first, each with its severity in words and its source. */
export function findingsList(findings: readonly Finding[]): string {
  const order = { ERROR: 0, WARNING: 1, INFO: 2 } as const;
  const items = [...findings]
    .sort((a, b) => order[a.severity] - order[b.severity])
    .map((entry) => {
      const source =
        entry.sourceUrl !== null && /^https?:\/\//i.test(entry.sourceUrl)
          ? ` <a href="${escape(entry.sourceUrl)}">source</a>`
          : "";
      return `<li class="finding" data-severity="${entry.severity}"><strong style="color:${SEVERITY_FILL[entry.severity]}">${entry.severity}</strong> <code>${escape(entry.code)}</code> ${escape(entry.message)}${source}</li>`;
    });
  return items.length === 0
    ? "<p>No findings.</p>"
    : `<ul id="plan-findings">\n    ${items.join("\n    ")}\n  </ul>`;
}

/** The legend: every colour with its word. */
export function legend(): string {
  const swatch = (fill: string, word: string) =>
    `<span class="swatch"><svg width="14" height="14" aria-hidden="true"><rect width="14" height="14" fill="${fill}" stroke="#57606a" stroke-width="0.5"/></svg> ${escape(word)}</span>`;
  return `<p class="legend">Minors: ${Object.values(STATUS_STYLE)
    .map((style) => swatch(style.fill, style.word))
    .join(" ")}. Cells: ${Object.values(CELL_STYLE)
    .map((style) => swatch(style.fill, style.word))
    .join(" ")} ${swatch(END_OF_LIFE_CELL, "fits, but the minor is past its end of life")}.</p>`;
}
