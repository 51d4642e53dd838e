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
  const notYetReleased = new Map<string, PlannedComponent[]>();
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
        const older = olderThanKnowledge(snapshot, minor, `${label(entry)} ${entry.version}`, entry);
        if (older !== undefined) findings.push(older);
      }
      continue;
    }
    if (asOf < release.releaseDate && entry.kubernetes.prerelease === null) {
      append(notYetReleased, minor, entry);
      continue;
    }
    append(byMinor, minor, entry);
  }
  for (const [minor, entries] of notYetReleased) {
    const release = snapshot.findRelease(minor)!;
    const { component, instance, who } = entriesNamed(entries);
    findings.push(
      finding({
        code: "VERSION_NOT_YET_RELEASED",
        severity: "WARNING",
        component,
        instance,
        ruleId: `kubernetes ${minor}`,
        message: `Kubernetes ${minor} was not released yet on ${asOf} (released ${release.releaseDate}): ${who} did not exist on the day asked about; judge a day on or after ${release.releaseDate}, or the versions that day had`,
        sourceUrl: release.sourceUrl,
      }),
    );
  }
  for (const [minor, entries] of byMinor) {
    const row = plan.platform?.releases.find((candidate) => candidate.minor === minor);
    if (plan.platform !== undefined && row !== undefined) {
      findings.push(...judgePlatformMinor(plan.platform, row, entries, asOf));
      continue;
    }
    if (plan.platform !== undefined) findings.push(platformWithoutRow(plan.platform, minor, entries));
    findings.push(...upstreamCalendar(snapshot.findRelease(minor)!, entries, asOf));
  }
  return findings;
}

/** Upstream's calendar for the entries of one minor: end of life, or maintenance mode. */
function upstreamCalendar(release: ReleaseRecord, entries: PlannedComponent[], asOf: string): Finding[] {
  const { component, instance, who } = entriesNamed(entries);
  if (release.endOfLife !== null && asOf > release.endOfLife) {
    return [
      finding({
        code: "RELEASE_END_OF_LIFE",
        severity: "WARNING",
        component,
        instance,
        ruleId: `kubernetes ${release.version}`,
        message: `Kubernetes ${release.version} reached end of life on ${release.endOfLife} and gets no more patches (${who})`,
        sourceUrl: release.sourceUrl,
      }),
    ];
  }
  if (release.endOfStandardSupport !== null && asOf > release.endOfStandardSupport) {
    return [
      finding({
        code: "RELEASE_MAINTENANCE_MODE",
        severity: "INFO",
        component,
        instance,
        ruleId: `kubernetes ${release.version}`,
        message: `Kubernetes ${release.version} left standard support on ${release.endOfStandardSupport} and is in maintenance mode until ${release.endOfLife ?? "its end of life"} (${who})`,
        sourceUrl: release.sourceUrl,
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
