/**
 * Where the knowledge ends. Each kind of knowledge that depends on the
 * Kubernetes minor says, in kb/coverage.yaml, through which minor it is
 * known and from which source; a question about a minor beyond that gets a
 * KNOWLEDGE_EDGE warning naming what is not known, never a silent pass.
 */
import type { EntityName } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { finding, type Finding } from "./findings.js";
import { compareMinors } from "../core/versions.js";

type CoverageClaim = KbSnapshot["coverage"][number];

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

/**
 * A KNOWLEDGE_EDGE finding when `minor` is beyond what `knowledge` covers.
 * `about` says what asked (e.g. "kubelet@pool-a 1.38.0", "the target 1.41").
 */
export function knowledgeEdge(
  snapshot: KbSnapshot,
  knowledge: EntityName,
  minor: string,
  about: string,
  where: { readonly component?: string | null; readonly instance?: string | null } = {},
): Finding | undefined {
  const covered = coverageOf(snapshot, knowledge);
  if (covered === undefined || compareMinors(minor, covered.throughMinor) <= 0) return undefined;
  const prerelease = prereleaseCoverageOf(snapshot, knowledge, minor);
  const readAt = (claim: CoverageClaim) => {
    const read = [claim.sourceRevision, claim.sourceDate]
      .filter((part): part is string => part !== null)
      .join(", ");
    return `${claim.source}${read === "" ? "" : `, read at ${read}`}`;
  };
  const at = {
    code: "KNOWLEDGE_EDGE" as const,
    severity: "WARNING" as const,
    component: where.component ?? null,
    instance: where.instance ?? null,
    ruleId: `coverage:${knowledge}`,
  };
  if (prerelease !== undefined) {
    // Pre-release facts are judged (a plan to the next minor is answered), and said to be pre-release, with their date.
    const release = snapshot.findRelease(minor);
    return finding({
      ...at,
      sourceUrl: prerelease.sourceUrl,
      message: `${about}: the knowledge base knows ${WHAT[knowledge] ?? knowledge} for ${minor} only from pre-release material (${readAt(prerelease)})${release === undefined ? "" : `; ${minor} is to be released on ${release.releaseDate}`}. What it knows was judged, but may change before the release; released sources are read through ${covered.throughMinor}. Check the ${minor} release notes.`,
    });
  }
  return finding({
    ...at,
    sourceUrl: covered.sourceUrl,
    message: `${about}: the knowledge base knows ${WHAT[knowledge] ?? knowledge} only through Kubernetes ${covered.throughMinor} (${readAt(covered)}); for ${minor} they are not known, so nothing was judged there. Check the ${minor} release notes.`,
  });
}
