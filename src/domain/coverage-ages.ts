/**
 * How old each kind of knowledge is: every coverage row (kb/coverage.yaml) with its age on a day (days since
 * its source's date), the day its source was last checked, and its kind's staleness (the minors out and not
 * loaded, since when). What GET /api/v1/coverage, GraphQL's coverage and the front page show alike.
 */
import type { EntityName } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { coverageOf, prereleaseCoverageOf, type CoverageClaim } from "./coverage-claims.js";
import { daysBetween } from "./days.js";
import { staleMessage } from "./knowledge-edge.js";
import { stalenessOf, type CalendarMinor } from "./staleness.js";

/** The day each kind of knowledge's sources were last checked (by a scheduled refresh), by kind. */
export type LastChecks = ReadonlyMap<string, string>;

/** A kind's staleness as answered: what is missing, since when, and the same in words. */
export interface StaleAnswer {
  readonly coveredThrough: string;
  readonly since: string;
  readonly missing: readonly CalendarMinor[];
  readonly message: string;
}

export type AgedCoverage = CoverageClaim & {
  /** Days from the source's date to the day asked about; null when the source has no date. */
  readonly ageDays: number | null;
  readonly lastChecked: string | null;
  /** The kind's staleness (the same on each of its rows); null when it is up to date. */
  readonly stale: StaleAnswer | null;
};

/**
 * The day a kind's source was last checked: the refresh's record of it when `lastChecks` has one, else the
 * date of the source read (the only check the knowledge base records by itself).
 */
export function lastCheckedOf(claim: CoverageClaim, lastChecks?: LastChecks): string | null {
  const checked = lastChecks?.get(claim.knowledge);
  if (checked === undefined) return claim.sourceDate;
  // The later of the two: a refresh older than the source read by hand says nothing newer.
  return claim.sourceDate !== null && claim.sourceDate > checked ? claim.sourceDate : checked;
}

/** Days from the source's date to `asOf`; null when the source has no date. */
export function ageDaysOf(claim: CoverageClaim, asOf: string): number | null {
  return claim.sourceDate === null ? null : daysBetween(claim.sourceDate, asOf);
}

/** The staleness of one kind on `asOf`, as answered; null when it is up to date. */
export function staleAnswer(
  snapshot: KbSnapshot,
  knowledge: EntityName,
  asOf: string,
): StaleAnswer | null {
  const stale = stalenessOf(snapshot, knowledge, asOf);
  if (stale === null) return null;
  const oldest = stale.missing[0]!.minor;
  const message = staleMessage(
    snapshot,
    stale,
    coverageOf(snapshot, knowledge),
    prereleaseCoverageOf(snapshot, knowledge, oldest),
  );
  return {
    coveredThrough: stale.coveredThrough,
    since: stale.since,
    missing: stale.missing,
    message,
  };
}

/** Every coverage row in kb/coverage.yaml's order, with its age, last check and kind's staleness on `asOf`. */
export function agedCoverage(
  snapshot: KbSnapshot,
  asOf: string,
  lastChecks?: LastChecks,
): AgedCoverage[] {
  const staleness = new Map<string, StaleAnswer | null>();
  const staleOf = (knowledge: string) => {
    if (!staleness.has(knowledge))
      staleness.set(knowledge, staleAnswer(snapshot, knowledge as EntityName, asOf));
    return staleness.get(knowledge) ?? null;
  };
  return snapshot.coverage.map((claim) => ({
    ...claim,
    ageDays: ageDaysOf(claim, asOf),
    lastChecked: lastCheckedOf(claim, lastChecks),
    stale: staleOf(claim.knowledge),
  }));
}
