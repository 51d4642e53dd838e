/**
 * The release calendar: the day a plan is judged on (today, or asOf), and
 * what the calendars say on that day of each Kubernetes minor in the plan:
 * not released yet, a pre-release, newer or older than the knowledge base
 * knows, past its end of life or in maintenance mode (upstream), in extended
 * support or past it (a managed platform's own calendar).
 */
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { entriesNamed, label, type ClusterPlan, type PlannedComponent } from "./cluster-plan.js";
import { finding, type Finding } from "./findings.js";
import { minorIndex, minorOf } from "../core/versions.js";
import type { ReleaseRecord } from "../knowledge/records.js";
import { judgePlatformMinor, platformWithoutRow } from "./platforms.js";
import { olderThanKnowledge } from "./version-reader.js";
import { releaseStatusOf, type ReleaseStatus } from "./release-status.js";

/**
 * Every Kubernetes component's minor on the calendar that governs it: the
 * platform's own (EKS, GKE, AKS) where the cluster runs on one and its
 * calendar has a row for the minor, upstream's otherwise (and then, on a
 * platform, that its calendar says nothing of the minor). The control plane,
 * the nodes and the clients are judged alike: a kubelet in EKS extended
 * support is as much a finding as a control plane there. Also versions not
 * released yet on the day asked about, pre-releases, and minors beyond
 * either end of the knowledge base.
 */
export function checkReleases(snapshot: KbSnapshot, plan: ClusterPlan, asOf: string): Finding[] {
  const findings: Finding[] = [];
  const newest = snapshot.newestRelease;
  const byMinor = new Map<string, PlannedComponent[]>();
  for (const entry of plan.entries) {
    if (entry.kubernetes === null) continue;
    const minor = minorOf(entry.kubernetes);
    const release = snapshot.findRelease(minor);
    if (entry.kubernetes.prerelease !== null) {
      findings.push(
        finding({
          code: "VERSION_PRERELEASE",
          severity: "WARNING",
          component: entry.component,
          instance: entry.instance,
          message: `${label(entry)} ${entry.version} is a pre-release (${entry.kubernetes.prerelease}); pre-releases are for testing, not production`,
          sourceUrl: snapshot.reference("release-cycle"),
        }),
      );
    }
    if (release === undefined) {
      if (newest !== undefined && minorIndex(minor) > minorIndex(newest.version)) {
        findings.push(
          finding({
            code: "VERSION_UNKNOWN_NEWER",
            severity: "WARNING",
            component: entry.component,
            instance: entry.instance,
            message: `${label(entry)} ${entry.version} is newer than the newest release the knowledge base knows (${newest.version}); its skew was judged by the newest rules, its API removals and support dates are unknown`,
            sourceUrl: newest.sourceUrl,
          }),
        );
      } else {
        const older = olderThanKnowledge(
          snapshot,
          minor,
          `${label(entry)} ${entry.version}`,
          entry,
        );
        if (older !== undefined) findings.push(older);
      }
      continue;
    }
    append(byMinor, minor, entry);
  }
  for (const [minor, entries] of byMinor) {
    const release = snapshot.findRelease(minor)!;
    // One reading of the calendar, release-status.ts's, for every operation: the same as GET /releases/{minor} says.
    const status = releaseStatusOf(snapshot, release, asOf);
    if (status === "NOT_YET_RELEASED") {
      // A pre-release before its release day is what pre-releases are (VERSION_PRERELEASE says so).
      const released = entries.filter((entry) => entry.kubernetes!.prerelease === null);
      if (released.length > 0) findings.push(notYetReleased(release, released, asOf));
      continue;
    }
    const row = plan.platform?.releases.find((candidate) => candidate.minor === minor);
    if (plan.platform !== undefined && row !== undefined) {
      findings.push(...judgePlatformMinor(plan.platform, row, entries, asOf));
      continue;
    }
    if (plan.platform !== undefined)
      findings.push(platformWithoutRow(plan.platform, minor, entries));
    findings.push(...upstreamCalendar(release, entries, status));
  }
  return findings;
}

function notYetReleased(
  release: ReleaseRecord,
  entries: readonly PlannedComponent[],
  asOf: string,
): Finding {
  const { component, instance, who } = entriesNamed(entries);
  return finding({
    code: "VERSION_NOT_YET_RELEASED",
    severity: "WARNING",
    component,
    instance,
    ruleId: `kubernetes ${release.version}`,
    message: `Kubernetes ${release.version} was not released yet on ${asOf} (released ${release.releaseDate}): ${who} did not exist on the day asked about; judge a day on or after ${release.releaseDate}, or the versions that day had`,
    sourceUrl: release.sourceUrl,
  });
}

/** Upstream's calendar for the entries of one minor, by its status on the day: end of life, or maintenance mode. */
function upstreamCalendar(
  release: ReleaseRecord,
  entries: readonly PlannedComponent[],
  status: ReleaseStatus,
): Finding[] {
  const { component, instance, who } = entriesNamed(entries);
  const at = {
    component,
    instance,
    ruleId: `kubernetes ${release.version}`,
    sourceUrl: release.sourceUrl,
  };
  if (status === "END_OF_LIFE") {
    return [
      finding({
        ...at,
        code: "RELEASE_END_OF_LIFE",
        severity: "WARNING",
        message: `Kubernetes ${release.version} reached end of life on ${release.endOfLife} and gets no more patches (${who})`,
      }),
    ];
  }
  if (status === "MAINTENANCE") {
    return [
      finding({
        ...at,
        code: "RELEASE_MAINTENANCE_MODE",
        severity: "INFO",
        message: `Kubernetes ${release.version} left standard support on ${release.endOfStandardSupport} and is in maintenance mode until ${release.endOfLife ?? "its end of life"} (${who})`,
      }),
    ];
  }
  return [];
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
