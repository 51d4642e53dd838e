/**
 * What an upgrade plan says besides its steps: why a plan is refused before any step, what the minors it
 * crosses change (API removals, runtime requirements, platform changes, recommendations, what each hop
 * changes) and where the knowledge base ends on the way, and the same finding said once.
 */
import type { ApiRemovalRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { minorIndex } from "../core/versions.js";
import { listApiRemovals } from "./catalog.js";
import type { ClusterPlan } from "./cluster-plan.js";
import { finding, type Finding } from "./findings.js";
import { changesBetween, impactEdges, type ImpactRelease } from "./impact.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import { platformChanges } from "./platforms.js";
import { minorWords, sameFinding } from "./upgrade-in-progress.js";

/** The changes of each minor after `fromMinor` up to `toMinor`, one entry per minor. */
export function hopChanges(
  snapshot: KbSnapshot,
  major: number,
  fromMinor: number,
  toMinor: number,
): ImpactRelease[] {
  const items = changesBetween(snapshot, `${major}.${fromMinor}`, `${major}.${toMinor}`);
  const hops: ImpactRelease[] = [];
  for (let minor = fromMinor + 1; minor <= toMinor; minor += 1) {
    const version = `${major}.${minor}`;
    hops.push({
      kubernetesVersion: version,
      changes: items.filter((item) => item.kubernetesVersion === version),
    });
  }
  return hops;
}

/**
 * Why no plan is made, when none is: the target is older than the control plane, newer than any release the
 * knowledge base knows, or the cluster today is not a supported combination (validate's errors, `now`).
 */
export function refusalOf(
  snapshot: KbSnapshot,
  now: readonly Finding[],
  { targetMinor, newestMinor, asOf }: { targetMinor: number; newestMinor: number; asOf: string },
): Finding | undefined {
  const targetText = minorWords(targetMinor);
  if (targetMinor < newestMinor) {
    return finding({
      code: "DOWNGRADE_NOT_SUPPORTED",
      severity: "ERROR",
      component: "kube-apiserver",
      message: `the target ${targetText} is older than the running control plane (${minorWords(newestMinor)}); Kubernetes does not support downgrading the control plane (stored objects may already use newer API versions). To undo a node pool upgrade, use checkRollback.`,
      sourceUrl: snapshot.reference("skew-policy-upgrade-order"),
    });
  }
  // A target the knowledge base has no release for cannot be planned: a green plan to 1.45 would be a guess.
  const newestKnown = snapshot.newestRelease;
  if (newestKnown !== undefined && targetMinor > minorIndex(newestKnown.version)) {
    return finding({
      code: "TARGET_UNKNOWN",
      severity: "ERROR",
      message: `the target ${targetText} is not a release the knowledge base knows: the newest it knows is ${newestKnown.version}${newestKnown.releaseDate > asOf ? ` (planned for ${newestKnown.releaseDate})` : ` (released ${newestKnown.releaseDate})`}. Plan to ${newestKnown.version} or older, or refresh the knowledge base once ${targetText} is out.`,
      sourceUrl: newestKnown.sourceUrl,
    });
  }
  // A platform's end of support is why a cluster needs the plan, not a reason to refuse one.
  const currentErrors = now.filter(
    (entry) => entry.severity === "ERROR" && entry.check !== "PLATFORM",
  );
  if (currentErrors.length > 0) {
    return finding({
      code: "PLAN_CURRENT_STATE_INVALID",
      severity: "ERROR",
      message: `the current cluster is not a supported combination (${currentErrors.length} error${currentErrors.length === 1 ? "" : "s"} below); bring it into skew before planning an upgrade`,
    });
  }
  return undefined;
}

/** What validate says of the cluster today that a plan repeats, prefixed "now:". */
export function findingsNow(now: readonly Finding[]): Finding[] {
  const findings: Finding[] = [];
  // Said, as a WARNING: the cluster today is past its platform's support, which the plan is there to end.
  for (const past of now.filter((entry) => entry.code === "PLATFORM_END_OF_SUPPORT")) {
    findings.push({ ...past, severity: "WARNING", message: `now: ${past.message}` });
  }
  // What could not be judged today (versions beyond either end of the knowledge base, not yet released) is not judged on the way either.
  for (const unjudged of now.filter(
    (entry) =>
      entry.severity !== "INFO" && (entry.check === "VERSION" || entry.check === "COVERAGE"),
  )) {
    findings.push({ ...unjudged, message: `now: ${unjudged.message}` });
  }
  return findings;
}

/** The API versions that stop being served between the control plane's minor and the target. */
export function apiRemovalsCrossed(
  snapshot: KbSnapshot,
  startMinor: number,
  targetMinor: number,
): readonly ApiRemovalRecord[] {
  return targetMinor > startMinor
    ? listApiRemovals(snapshot, { from: minorWords(startMinor), to: minorWords(targetMinor) })
    : [];
}

/**
 * What the minors from `startMinor` to `targetMinor` change for this cluster, and what the knowledge base
 * could not judge on the way, in the order a plan says them.
 */
export function findingsOfTheWay(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  { startMinor, targetMinor, asOf }: { startMinor: number; targetMinor: number; asOf: string },
  removals: readonly ApiRemovalRecord[],
): Finding[] {
  const targetText = minorWords(targetMinor);
  const findings: Finding[] = [];
  const oldestKnown = snapshot.releases[0];
  if (
    oldestKnown !== undefined &&
    startMinor < minorIndex(oldestKnown.version) &&
    targetMinor > startMinor
  ) {
    findings.push(
      finding({
        code: "KNOWLEDGE_EDGE",
        severity: "WARNING",
        component: "kube-apiserver",
        ruleId: "coverage:releases",
        sourceUrl: oldestKnown.sourceUrl,
        message: `the steps from ${minorWords(startMinor)} to ${oldestKnown.version} cross minors older than the knowledge base covers (${oldestKnown.version} onward): their API removals, runtime requirements and behaviour changes were not judged; read each minor's release notes, or rebuild the cluster at a supported minor`,
      }),
    );
  }
  if (removals.length > 0) {
    const kinds = [...new Set(removals.map((removal) => `${removal.apiVersion} ${removal.kind}`))];
    findings.push(
      finding({
        code: "API_REMOVED_IN_UPGRADE",
        severity: "WARNING",
        message: `${removals.length} API version${removals.length === 1 ? "" : "s"} stop being served between ${minorWords(startMinor)} and ${targetText} (${kinds.slice(0, 6).join(", ")}${kinds.length > 6 ? ", …" : ""}); migrate manifests and clients before the control plane reaches each removal (scan them with scanManifests)`,
        sourceUrl: snapshot.reference("deprecation-guide"),
      }),
    );
  }
  findings.push(...crossedRequirements(snapshot, plan, startMinor, targetMinor));
  if (plan.platform !== undefined)
    findings.push(...platformChanges(plan.platform, startMinor % 1000, targetMinor % 1000));
  const targetRelease = snapshot.findRelease(targetText);
  if (targetRelease?.endOfLife != null && asOf > targetRelease.endOfLife) {
    const oldestSupported = snapshot.releases.find(
      (release) =>
        release.releaseDate <= asOf && release.endOfLife !== null && release.endOfLife >= asOf,
    );
    findings.push(
      finding({
        code: "TARGET_END_OF_LIFE",
        severity: "WARNING",
        component: "kube-apiserver",
        message: `the target ${targetText} reached its end of life on ${targetRelease.endOfLife} and gets no more patches${oldestSupported === undefined ? "" : `; the oldest minor still supported on ${asOf} is ${oldestSupported.version}: plan to it or newer`}`,
        sourceUrl: targetRelease.sourceUrl,
      }),
    );
  }
  // What the plan could not judge at the target: the API removals crossed. (The final state's validation says it for skew, runtimes and nodes.)
  const removalsEdge = knowledgeEdge(
    snapshot,
    "apiRemovals",
    targetText,
    `the target ${targetText}`,
    asOf,
  );
  if (removalsEdge !== undefined) findings.push(removalsEdge);
  // What each hop changes beyond apiVersions is known only as far as its knowledge goes: said as upgrade-impact says it.
  if (targetMinor > startMinor)
    findings.push(...impactEdges(snapshot, minorWords(startMinor), targetText, asOf));
  findings.push(...recommendations(snapshot, plan, startMinor, targetMinor));
  return findings;
}

const SEVERITY_RANK = { ERROR: 0, WARNING: 1, INFO: 2 } as const;

/**
 * Findings that say the same thing once (a "now:" finding the end state repeats), at the place of the first and
 * with the gravest severity any of them has: a blocked plan ends where it began, and what validate calls an
 * ERROR there is not softened by the "now:" WARNING said of the same state.
 */
export function dedupeFindings(findings: readonly Finding[]): Finding[] {
  const kept = new Map<string, Finding>();
  for (const entry of findings) {
    const key = sameFinding(entry);
    const first = kept.get(key);
    if (first === undefined) kept.set(key, entry);
    else if (SEVERITY_RANK[entry.severity] < SEVERITY_RANK[first.severity])
      kept.set(key, { ...first, severity: entry.severity, message: entry.message });
  }
  return [...kept.values()];
}

function crossedRequirements(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  from: number,
  to: number,
): Finding[] {
  const present = new Set(plan.entries.map((entry) => entry.component));
  const anyRuntime = plan.entries.some(
    (entry) => entry.category === "container-runtime" || entry.category === "runtime-shim",
  );
  return snapshot.runtimeRequirements
    .filter(
      (requirement) =>
        minorIndex(requirement.kubernetesFrom) > from &&
        minorIndex(requirement.kubernetesFrom) <= to,
    )
    .filter((requirement) => requirement.kind !== "RECOMMENDED_MIN_VERSION")
    .filter(
      (requirement) =>
        present.has(requirement.component) || (!anyRuntime && requirement.component !== "etcd"),
    )
    .map((requirement) =>
      finding({
        code: "RUNTIME_REQUIREMENT_IN_UPGRADE",
        severity: "INFO",
        component: requirement.component,
        message: `from Kubernetes ${requirement.kubernetesFrom}: ${requirement.summary}`,
        sourceUrl: requirement.sourceUrl,
        ruleId: requirement.id,
      }),
    );
}

function recommendations(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  from: number,
  to: number,
): Finding[] {
  if (
    to <= from &&
    plan.entries.every((entry) => entry.kubernetes === null || minorIndex(entry.kubernetes) >= to)
  )
    return [];
  const present = new Set(plan.entries.map((entry) => entry.component));
  return snapshot.recommendations
    .filter((recommendation) =>
      recommendation.components.some(
        (component) => present.has(component) || component === "kube-apiserver",
      ),
    )
    .filter(
      (recommendation) =>
        (recommendation.appliesFrom === null || minorIndex(recommendation.appliesFrom) <= to) &&
        (recommendation.appliesUntil === null || minorIndex(recommendation.appliesUntil) > from),
    )
    .map((recommendation) =>
      finding({
        code: "RECOMMENDATION",
        severity: "INFO",
        component: recommendation.components[0] ?? null,
        message: `${recommendation.title}: ${recommendation.text}`,
        sourceUrl: recommendation.sourceUrl,
        ruleId: recommendation.id,
      }),
    );
}
