/**
 * Where the knowledge ends. Each kind of knowledge that depends on the
 * Kubernetes minor says, in kb/coverage.yaml, through which minor it is
 * known and from which source; a question about a minor beyond that gets a
 * KNOWLEDGE_EDGE warning naming what is not known, never a silent pass, or,
 * when the calendar says that minor is already out, KNOWLEDGE_STALE: the one
 * judgement every rule asks (knowledgeEdge), so no face or rule says one
 * where another says the other.
 */
import type { EntityName } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { finding, type Finding } from "./findings.js";
import { compareMinors } from "../core/versions.js";
import { coverageOf, prereleaseCoverageOf, type CoverageClaim } from "./coverage-claims.js";
import { minorCadenceMonths, minorOutOn, stalenessOf, type Staleness } from "./staleness.js";

export { coverageOf, prereleaseCoverageOf } from "./coverage-claims.js";

const WHAT: Partial<Record<EntityName, string>> = {
  apiRemovals: "which API versions are removed or deprecated",
  releases: "release dates, support windows and patches",
  skewRules: "the version skew rules",
  runtimeRequirements: "the container runtime versions that minor requires or recommends",
  runtimeReleases: "the container runtimes' own support windows",
  flagChanges: "which flags and configuration fields are deprecated or removed",
  proxyModes: "the kube-proxy modes' lifecycle",
  hostRequirements: "node requirements such as cgroup v1 support",
  featureGates: "which feature gates exist, their stages and defaults",
  configurationApis: "which configuration-file versions the components read",
  behaviourChanges: "the behaviour changes of that minor",
};

/** Where the knowledge says it was read: the source, its revision and date. */
function readAt(claim: CoverageClaim): string {
  const read = [claim.sourceRevision, claim.sourceDate]
    .filter((part): part is string => part !== null)
    .join(", ");
  return `${claim.source}${read === "" ? "" : `, read at ${read}`}`;
}

/**
 * A finding when `minor` is beyond what `knowledge` covers from released sources: KNOWLEDGE_STALE when the
 * calendar says `minor` is out on `asOf` (released, or overdue by the cadence of minors), else KNOWLEDGE_EDGE.
 * Never both for one kind and minor: a stale minor is past the edge by definition. `about` says what asked
 * (e.g. "kubelet@pool-a 1.38.0", "the target 1.41").
 */
export function knowledgeEdge(
  snapshot: KbSnapshot,
  knowledge: EntityName,
  minor: string,
  about: string,
  asOf: string,
  where: { readonly component?: string | null; readonly instance?: string | null } = {},
): Finding | undefined {
  const covered = coverageOf(snapshot, knowledge);
  if (covered === undefined || compareMinors(minor, covered.throughMinor) <= 0) return undefined;
  const prerelease = prereleaseCoverageOf(snapshot, knowledge, minor);
  const at = {
    severity: "WARNING" as const,
    component: where.component ?? null,
    instance: where.instance ?? null,
    ruleId: `coverage:${knowledge}`,
  };
  const stale =
    minorOutOn(snapshot, minor, asOf) === undefined ? null : stalenessOf(snapshot, knowledge, asOf);
  if (stale !== null)
    return finding({
      ...at,
      code: "KNOWLEDGE_STALE",
      sourceUrl: covered.sourceUrl,
      message: `${about}: ${staleMessage(snapshot, stale, covered, prerelease)}`,
    });
  if (prerelease !== undefined) {
    // Pre-release facts are judged (a plan to the next minor is answered), and said to be pre-release, with their date.
    const release = snapshot.findRelease(minor);
    return finding({
      ...at,
      code: "KNOWLEDGE_EDGE",
      sourceUrl: prerelease.sourceUrl,
      message: `${about}: the knowledge base knows ${WHAT[knowledge] ?? knowledge} for ${minor} only from pre-release material (${readAt(prerelease)})${release === undefined ? "" : `; ${minor} is to be released on ${release.releaseDate}`}. What it knows was judged, but may change before the release; released sources are read through ${covered.throughMinor}. Check the ${minor} release notes.`,
    });
  }
  return finding({
    ...at,
    code: "KNOWLEDGE_EDGE",
    sourceUrl: covered.sourceUrl,
    message: `${about}: the knowledge base knows ${WHAT[knowledge] ?? knowledge} only through Kubernetes ${covered.throughMinor} (${readAt(covered)}); for ${minor} they are not known, so nothing was judged there. Check the ${minor} release notes.`,
  });
}

/** A source in a few words: its name and the day it was read. */
function readOn(claim: CoverageClaim): string {
  return `${claim.source}${claim.sourceDate === null ? "" : `, read ${claim.sourceDate}`}`;
}

/** What a stale kind of knowledge misses and since when, in words: the minors out, each with its day, and what was judged of them. */
export function staleMessage(
  snapshot: KbSnapshot,
  stale: Staleness,
  covered: CoverageClaim | undefined,
  prerelease?: CoverageClaim,
): string {
  const cadence = minorCadenceMonths(snapshot);
  const missing = stale.missing
    .map((out) =>
      out.by === "RELEASE_DATE"
        ? `${out.minor} (released ${out.since})`
        : `${out.minor} (overdue since ${out.since}, at a minor every ${cadence} months)`,
    )
    .join(", ");
  const what = WHAT[stale.knowledge] ?? stale.knowledge;
  const judged =
    prerelease === undefined
      ? "nothing was judged there"
      : `what is judged there rests on pre-release material (${readOn(prerelease)}), which may have changed at the release`;
  return `the knowledge of ${what} (${stale.knowledge}) is stale since ${stale.since}: its released sources reach only Kubernetes ${stale.coveredThrough}${covered === undefined ? "" : ` (${readOn(covered)})`}, but ${missing} ${stale.missing.length === 1 ? "is" : "are"} out and not loaded; ${judged}. Check the release notes; the source must be read again.`;
}
