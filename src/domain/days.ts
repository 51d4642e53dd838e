/**
 * The day a question is judged on: today (UTC), or the asOf a caller gives,
 * read as YYYY-MM-DD. Every calendar judgement (end of life, releases not yet
 * out, runtimes' own support) is made on this day.
 */
import { InputError } from "../core/errors.js";

const DAY_MS = 86_400_000;
let currentDay = "";
let currentDayEnds = 0;

/** Today's date in UTC, `YYYY-MM-DD`; formatted once a day (it is part of every remembered answer's key). */
export function today(): string {
  const now = Date.now();
  if (now >= currentDayEnds || now < currentDayEnds - DAY_MS) {
    currentDay = new Date(now).toISOString().slice(0, 10);
    currentDayEnds = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  }
  return currentDay;
}

export function parseAsOf(asOf: string | null | undefined, field = "asOf"): string {
  if (asOf === undefined || asOf === null || asOf.trim() === "") return today();
  const text = asOf.trim();
  const match = /^(\d{4}-\d{2}-\d{2})(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.exec(text);
  const parsed = match ? new Date(match[2] ? text : `${match[1]}T00:00:00Z`) : undefined;
  if (
    !match ||
    !parsed ||
    Number.isNaN(parsed.getTime()) ||
    !(match[2] || parsed.toISOString().startsWith(match[1]!))
  ) {
    throw new InputError(
      `${field} "${text.slice(0, 40)}" is not a date; write it as YYYY-MM-DD, e.g. 2026-01-31`,
      field,
    );
  }
  return parsed.toISOString().slice(0, 10);
}

/** Whole days from one day (YYYY-MM-DD) to a later one; negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}
