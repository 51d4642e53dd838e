/**
 * The fleet's deadlines as an iCalendar feed (RFC 5545) that a calendar
 * application subscribes to: one all-day event per deadline, with an optional
 * reminder days before. Pure and deterministic: the same entries and
 * generatedAt give the same bytes (no clock is read here), so a feed can be
 * compared, cached and tested.
 *
 * The traps it avoids: TEXT values escape backslash, semicolon, comma and
 * newline (RFC 5545 3.3.11); content lines are folded at 75 octets of UTF-8,
 * never inside a character (3.1); every line ends in CRLF; an all-day event
 * ends on the next day (DTEND is exclusive, 3.6.1).
 */
import { InputError } from "../core/errors.js";

export interface CalendarEntry {
  /** Stable across feeds, so a calendar application updates the event instead of adding another. */
  readonly uid: string;
  /** YYYY-MM-DD: an all-day event. */
  readonly day: string;
  readonly summary: string;
  readonly description: string;
  /** An absolute URL (http, https); written as the URL parser normalises it. */
  readonly url?: string;
  readonly categories?: readonly string[];
  /** A reminder this many whole days before the day (0: on the day). */
  readonly alarmDaysBefore?: number;
}

const CRLF = "\r\n";
const MAX_LINE_OCTETS = 75;
const DEFAULT_PRODUCT_ID = "-//kubecompat//fleet deadlines//EN";

export function icalendar(
  entries: readonly CalendarEntry[],
  options: { readonly name: string; readonly generatedAt: Date; readonly productId?: string },
): string {
  if (!(options.generatedAt instanceof Date) || Number.isNaN(options.generatedAt.getTime()))
    throw new InputError("generatedAt must be a valid time", "generatedAt");
  const stamp = utcStamp(options.generatedAt);
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    `PRODID:${text(options.productId ?? DEFAULT_PRODUCT_ID)}`,
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    // X-WR-CALNAME: not in RFC 5545, but what Google, Apple and Outlook show as a subscribed feed's name.
    `X-WR-CALNAME:${text(options.name)}`,
  ];
  const uids = new Set<string>();
  entries.forEach((entry, position) => {
    // Two events with one UID in a published calendar are one event changed, not two: clients keep either.
    if (uids.has(entry.uid))
      throw new InputError(
        `entries[${position}].uid "${entry.uid.slice(0, 60)}" is used twice; each event needs its own`,
        `entries[${position}].uid`,
      );
    uids.add(entry.uid);
    lines.push(...event(entry, stamp, `entries[${position}]`));
  });
  lines.push("END:VCALENDAR");
  return lines.map(fold).join("");
}

function event(entry: CalendarEntry, stamp: string, field: string): string[] {
  const day = dateValue(entry.day, `${field}.day`);
  const lines = [
    "BEGIN:VEVENT",
    `UID:${text(entry.uid)}`,
    `DTSTAMP:${stamp}`,
    `DTSTART;VALUE=DATE:${day}`,
    `DTEND;VALUE=DATE:${nextDay(entry.day)}`,
    `SUMMARY:${text(entry.summary)}`,
    `DESCRIPTION:${text(entry.description)}`,
  ];
  if (entry.url !== undefined) lines.push(`URL:${uri(entry.url, `${field}.url`)}`);
  const categories = (entry.categories ?? []).filter((category) => category !== "");
  if (categories.length > 0) lines.push(`CATEGORIES:${categories.map(text).join(",")}`);
  // A deadline is a marker, not a meeting: it must not show the day as busy.
  lines.push("TRANSP:TRANSPARENT");
  if (entry.alarmDaysBefore !== undefined) {
    const days = entry.alarmDaysBefore;
    if (!Number.isSafeInteger(days) || days < 0)
      throw new InputError(
        `${field}.alarmDaysBefore must be a whole number of days, 0 or more`,
        `${field}.alarmDaysBefore`,
      );
    lines.push(
      "BEGIN:VALARM",
      "ACTION:DISPLAY",
      `TRIGGER:-P${days}D`,
      // DESCRIPTION is required in a DISPLAY alarm (RFC 5545 3.6.6): what the reminder shows.
      `DESCRIPTION:${text(entry.summary)}`,
      "END:VALARM",
    );
  }
  lines.push("END:VEVENT");
  return lines;
}

/**
 * A TEXT value (RFC 5545 3.3.11). Control characters other than tab are not
 * allowed in a content line and are dropped; CR LF, CR and LF all become the
 * escaped newline.
 */
function text(value: string): string {
  return (
    value
      .replace(/\r\n|\r|\n/g, "\n")
      // eslint-disable-next-line no-control-regex -- removing exactly those characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
      .replace(/[\\;,\n]/g, (character) => (character === "\n" ? "\\n" : `\\${character}`))
  );
}

function uri(value: string, field: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InputError(`${field} "${value.slice(0, 60)}" is not an absolute URL`, field);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new InputError(`${field} must be an http or https URL`, field);
  // The URL parser percent-encodes spaces and controls, so the value is a URI a content line can hold.
  return parsed.href;
}

/** YYYY-MM-DD → YYYYMMDD, refusing a day that is not on the calendar. */
function dateValue(day: string, field: string): string {
  if (
    typeof day !== "string" ||
    !/^\d{4}-\d{2}-\d{2}$/.test(day) ||
    Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ||
    new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day
  )
    throw new InputError(
      `${field} "${String(day).slice(0, 40)}" is not a day; write it as YYYY-MM-DD`,
      field,
    );
  return day.replaceAll("-", "");
}

function nextDay(day: string): string {
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(next))
    throw new InputError(`day "${day}" is the last day a calendar can hold`, "day");
  return next.replaceAll("-", "");
}

/** A UTC DATE-TIME in the basic format: 20260131T093000Z. */
function utcStamp(time: Date): string {
  const iso = time.toISOString();
  if (!/^\d{4}-/.test(iso))
    throw new InputError("generatedAt must be within years 0000-9999", "generatedAt");
  return `${iso.slice(0, 19).replace(/[-:]/g, "")}Z`;
}

/**
 * One content line, folded (RFC 5545 3.1): no physical line longer than 75
 * octets, a continuation starting with one space (which counts), and a break
 * only between characters, so that a multi-byte UTF-8 sequence is never split.
 */
function fold(line: string): string {
  let folded = "";
  let octets = 0;
  for (const character of line) {
    const size = utf8Octets(character.codePointAt(0)!);
    if (octets + size > MAX_LINE_OCTETS) {
      folded += `${CRLF} `;
      octets = 1;
    }
    folded += character;
    octets += size;
  }
  return folded + CRLF;
}

/** Octets of one code point in UTF-8; a lone surrogate is written as U+FFFD, three octets. */
function utf8Octets(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}
