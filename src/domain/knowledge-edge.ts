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

/** The newest minor a kind of knowledge covers (the best of its sources), with that source; undefined when nothing says. */
export function coverageOf(snapshot: KbSnapshot, knowledge: EntityName): KbSnapshot["coverage"][number] | undefined {
  // Once per list of claims and kind of knowledge: the planner asks at every step.
  const known = perList(coverages, snapshot.coverage, () => new Map<EntityName, KbSnapshot["coverage"][number] | undefined>());
  if (known.has(knowledge)) return known.get(knowledge);
  const best = snapshot.coverage
    .filter((claim) => claim.knowledge === knowledge)
    .reduce<KbSnapshot["coverage"][number] | undefined>((found, claim) => (found === undefined || compareMinors(claim.throughMinor, found.throughMinor) > 0 ? claim : found), undefined);
  known.set(knowledge, best);
  return best;
}

const coverages = new WeakMap<KbSnapshot["coverage"], Map<EntityName, KbSnapshot["coverage"][number] | undefined>>();

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
  const read = [covered.sourceRevision, covered.sourceDate].filter((part): part is string => part !== null).join(", ");
  return finding({
    code: "KNOWLEDGE_EDGE",
    severity: "WARNING",
    component: where.component ?? null,
    instance: where.instance ?? null,
    ruleId: `coverage:${knowledge}`,
    sourceUrl: covered.sourceUrl,
    message: `${about}: the knowledge base knows ${WHAT[knowledge] ?? knowledge} only through Kubernetes ${covered.throughMinor} (${covered.source}${read === "" ? "" : `, read at ${read}`}); for ${minor} they are not known, so nothing was judged there. Check the ${minor} release notes.`,
  });
}
