/**
 * Which coverage claims (kb/coverage.yaml) say where a kind of knowledge ends: the newest minor its released
 * sources cover, and the pre-release claims beyond it. Read by the knowledge's edge and its staleness alike.
 */
import type { EntityName } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { compareMinors } from "../core/versions.js";

export type CoverageClaim = KbSnapshot["coverage"][number];

/** The newest minor a kind of knowledge covers from released sources (the best of them), with that source; undefined when nothing says. */
export function coverageOf(snapshot: KbSnapshot, knowledge: EntityName): CoverageClaim | undefined {
  return claimsOf(snapshot, knowledge).released;
}

/** The pre-release claim (alpha or beta notes, master's markers) that covers `minor` beyond coverageOf: the nearest one that reaches it. */
export function prereleaseCoverageOf(
  snapshot: KbSnapshot,
  knowledge: EntityName,
  minor: string,
): CoverageClaim | undefined {
  return claimsOf(snapshot, knowledge).prerelease.find(
    (claim) => compareMinors(minor, claim.throughMinor) <= 0,
  );
}

interface Claims {
  readonly released: CoverageClaim | undefined;
  /** Beyond the released claim, oldest minor first. */
  readonly prerelease: readonly CoverageClaim[];
}

function claimsOf(snapshot: KbSnapshot, knowledge: EntityName): Claims {
  // Once per list of claims and kind of knowledge: the planner asks at every step.
  const known = perList(coverages, snapshot.coverage, () => new Map<EntityName, Claims>());
  const remembered = known.get(knowledge);
  if (remembered !== undefined) return remembered;
  const mine = snapshot.coverage.filter((claim) => claim.knowledge === knowledge);
  const released = mine
    .filter((claim) => claim.stage === "RELEASED")
    .reduce<
      CoverageClaim | undefined
    >((found, claim) => (found === undefined || compareMinors(claim.throughMinor, found.throughMinor) > 0 ? claim : found), undefined);
  const prerelease = mine
    .filter(
      (claim) =>
        claim.stage === "PRERELEASE" &&
        (released === undefined || compareMinors(claim.throughMinor, released.throughMinor) > 0),
    )
    .sort((a, b) => compareMinors(a.throughMinor, b.throughMinor));
  const claims = { released, prerelease };
  known.set(knowledge, claims);
  return claims;
}

const coverages = new WeakMap<KbSnapshot["coverage"], Map<EntityName, Claims>>();
