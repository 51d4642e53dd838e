/**
 * Coverage claims are backed: the newest minor a claim says a kind of knowledge covers is reached by a record
 * of that kind, or the source was read on or after that minor's release; and a claim's stage (released or
 * pre-release) agrees with when its source was read.
 */
import type { KbIssue } from "../core/errors.js";
import { type KbBundle } from "./records.js";
import { ENTITIES, ENTITY_NAMES, recordKey } from "./registry.js";
import type { CrossCheck } from "./cross-check-parts.js";

/** The coverage part: it reads the claims, the releases, and each claimed kind's list. */
export function coverageIsBacked({ bundle, part }: CrossCheck): void {
  // A claim reads the kind it claims: the lists are the claims, the releases, and each claimed kind's.
  const claimed = [...new Set(bundle.coverage.map((claim) => claim.knowledge))].flatMap(
    (knowledge) => (isClaimable(knowledge) ? [bundle[knowledge]] : []),
  );
  part("coverage", [bundle.coverage, bundle.releases, ...claimed], ({ add }) =>
    coverageIssues(bundle).forEach(add),
  );
}

function isClaimable(knowledge: string): knowledge is keyof KbBundle {
  return (ENTITY_NAMES as readonly string[]).includes(knowledge) && knowledge !== "coverage";
}

/**
 * A coverage claim must be backed: some record of that kind reaches the
 * claimed minor (a removal, a release, a requirement starting there), or
 * its source was read on or after the day that minor was released.
 */
function coverageIssues(bundle: KbBundle): KbIssue[] {
  const issues: KbIssue[] = [];
  const releaseDate = new Map(
    bundle.releases.map((release) => [release.version, release.releaseDate]),
  );
  bundle.coverage.forEach((claim, index) => {
    const where = {
      file: ENTITIES.coverage.file,
      entry: `coverage[${index}]`,
      key: recordKey("coverage", claim),
    };
    if (
      !(ENTITY_NAMES as readonly string[]).includes(claim.knowledge) ||
      claim.knowledge === "coverage"
    ) {
      issues.push({
        ...where,
        field: "knowledge",
        message: `names no kind of knowledge; use one of ${ENTITY_NAMES.filter((entity) => entity !== "coverage").join(", ")}`,
      });
      return;
    }
    const claimed = minorNumber(claim.throughMinor, 0);
    const reached = newestMinorMentioned(bundle[claim.knowledge as keyof KbBundle]);
    const released = releaseDate.get(claim.throughMinor);
    const readAfterRelease =
      claim.sourceDate !== null && released !== undefined && claim.sourceDate >= released;
    // A claim says truly whether what was read described the minor as released: read before the release day it is pre-release material.
    // (A minor kb/releases.yaml does not know yet, such as a removal schedule's, is pre-release by nature.)
    if (claim.stage === "PRERELEASE" && readAfterRelease) {
      issues.push({
        ...where,
        field: "stage",
        message: `claims pre-release knowledge of ${claim.throughMinor}, but the source was read on ${claim.sourceDate}, on or after its release (${released}); mark it RELEASED`,
      });
      return;
    }
    if (
      claim.stage === "RELEASED" &&
      claim.sourceDate !== null &&
      released !== undefined &&
      claim.sourceDate < released
    ) {
      issues.push({
        ...where,
        field: "stage",
        message: `claims ${claim.knowledge} through ${claim.throughMinor} as released, but the source was read on ${claim.sourceDate}, before ${claim.throughMinor}'s release (${released}); mark it PRERELEASE or claim the minor before`,
      });
      return;
    }
    if (reached < claimed && !readAfterRelease && claim.stage === "RELEASED") {
      issues.push({
        ...where,
        field: "throughMinor",
        message: `claims ${claim.knowledge} through ${claim.throughMinor}, but no ${claim.knowledge} record reaches it (newest: ${Number.isFinite(reached) ? `1.${reached}` : "none"}) and the source was not read on or after ${claim.throughMinor}'s release${released === undefined ? " (not a known release)" : ` (${released})`}`,
      });
    }
  });
  return issues;
}

// A snapshot's records never change (deep-frozen), and a snapshot after an edit reuses every record the edit did
// not touch: their answers are remembered, so checking an edit does not walk every field of the knowledge base again.
const newestMinorOfFrozen = new WeakMap<object, number>();

/** The highest Kubernetes minor written in any field of these records ("1.40" → 40). */
function newestMinorMentioned(records: readonly object[]): number {
  let newest = -Infinity;
  for (const record of records) {
    if (!Object.isFrozen(record)) {
      newest = Math.max(newest, newestMinorIn([record]));
      continue;
    }
    let mentioned = newestMinorOfFrozen.get(record);
    if (mentioned === undefined) {
      mentioned = newestMinorIn([record]);
      newestMinorOfFrozen.set(record, mentioned);
    }
    newest = Math.max(newest, mentioned);
  }
  return newest;
}

function newestMinorIn(records: readonly object[]): number {
  let newest = -Infinity;
  const visit = (value: unknown): void => {
    if (typeof value === "string") {
      const match = /^1\.(\d{1,3})$/.exec(value);
      if (match) newest = Math.max(newest, Number(match[1]));
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(visit);
  };
  records.forEach(visit);
  return newest;
}

export function minorNumber(minor: string | null, open: number): number {
  return minor === null ? open : Number(minor.split(".")[1]);
}
