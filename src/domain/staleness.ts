/**
 * Staleness said out loud: which Kubernetes minors the calendar says are out on a day (their release date has
 * passed, or, beyond the newest release the calendar dates, the cadence of minors says they are overdue), and,
 * per kind of knowledge with coverage rows, which of them its released sources do not reach yet and since
 * when. Pure over the snapshot, with the day as input.
 */
import type { EntityName } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { compareMinors } from "../core/versions.js";
import { coverageOf } from "./coverage-claims.js";

/** A minor the calendar says is out on the day asked about. */
export interface CalendarMinor {
  readonly minor: string;
  /** The day it was released (RELEASE_DATE) or became overdue by the cadence (CADENCE). */
  readonly since: string;
  readonly by: "RELEASE_DATE" | "CADENCE";
}

/** A kind of knowledge whose released sources end before minors the calendar says are out. */
export interface Staleness {
  readonly knowledge: EntityName;
  /** The newest minor its released sources cover. */
  readonly coveredThrough: string;
  /** The minors out but not covered, oldest first. */
  readonly missing: readonly CalendarMinor[];
  /** Since when: the day the oldest missing minor came out (or became overdue). */
  readonly since: string;
}

// A calendar years behind would otherwise count a minor per cadence without end; the oldest missing minor and
// its day are what matters, and this many minors (eight years at three a year) are more than enough to say it.
const MOST_OVERDUE_MINORS = 24;

/** The months between two minors, as the release calendar's coverage row gives them (kb/coverage.yaml); null when none does. */
export function minorCadenceMonths(snapshot: KbSnapshot): number | null {
  const months = snapshot.coverage
    .filter((claim) => claim.knowledge === "releases" && claim.minorCadenceMonths !== null)
    .map((claim) => claim.minorCadenceMonths as number);
  return months.length === 0 ? null : Math.min(...months);
}

/** The day `months` after `day` (YYYY-MM-DD), on the same day of the month or the month's last day. */
function monthsAfter(day: string, months: number): string {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  const lastDay = new Date(Date.UTC(year, month - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month - 1 + months, Math.min(date, lastDay)))
    .toISOString()
    .slice(0, 10);
}

/**
 * Every minor out on `asOf`, oldest first: those the calendar dates on or before that day, then those after
 * its newest release that the cadence says are overdue (the newest release day plus the cadence per minor).
 */
export function minorsOutOn(snapshot: KbSnapshot, asOf: string): CalendarMinor[] {
  const dated = [...snapshot.releases].sort((a, b) => compareMinors(a.version, b.version));
  const out: CalendarMinor[] = dated
    .filter((release) => release.releaseDate <= asOf)
    .map((release) => ({ minor: release.version, since: release.releaseDate, by: "RELEASE_DATE" }));
  const newest = dated[dated.length - 1];
  const cadence = minorCadenceMonths(snapshot);
  if (newest === undefined || cadence === null) return out;
  const [major, minor] = newest.version.split(".").map(Number) as [number, number];
  for (let step = 1; step <= MOST_OVERDUE_MINORS; step += 1) {
    const due = monthsAfter(newest.releaseDate, cadence * step);
    if (due > asOf) break;
    out.push({ minor: `${major}.${minor + step}`, since: due, by: "CADENCE" });
  }
  return out;
}

/** When `minor` is out on `asOf` by the calendar: its day and why; undefined when it is not out yet. */
export function minorOutOn(
  snapshot: KbSnapshot,
  minor: string,
  asOf: string,
): CalendarMinor | undefined {
  const release = snapshot.findRelease(minor);
  // A dated release is out on its day, and not before, whatever the cadence would say.
  if (release !== undefined)
    return release.releaseDate <= asOf
      ? { minor, since: release.releaseDate, by: "RELEASE_DATE" }
      : undefined;
  return minorsOutOn(snapshot, asOf).find((out) => out.minor === minor);
}

/** Whether the knowledge of `knowledge` is stale on `asOf`: the minors out that its released sources do not reach; null when none (or no released source says where it ends). */
export function stalenessOf(
  snapshot: KbSnapshot,
  knowledge: EntityName,
  asOf: string,
): Staleness | null {
  const covered = coverageOf(snapshot, knowledge);
  if (covered === undefined) return null;
  const missing = minorsOutOn(snapshot, asOf).filter(
    (out) => compareMinors(out.minor, covered.throughMinor) > 0,
  );
  const oldest = missing[0];
  return oldest === undefined
    ? null
    : { knowledge, coveredThrough: covered.throughMinor, missing, since: oldest.since };
}

/** Every kind of knowledge with coverage rows, in the order kb/coverage.yaml first names it, with its staleness on `asOf` (null: up to date). */
export function knowledgeStaleness(
  snapshot: KbSnapshot,
  asOf: string,
): Array<{ readonly knowledge: EntityName; readonly stale: Staleness | null }> {
  const kinds = [...new Set(snapshot.coverage.map((claim) => claim.knowledge as EntityName))];
  return kinds.map((knowledge) => ({ knowledge, stale: stalenessOf(snapshot, knowledge, asOf) }));
}
