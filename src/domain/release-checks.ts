/**
 * The release calendar: the day a plan is judged on (today, or asOf), and
 * what the release records say on that day of each Kubernetes minor in the
 * plan: a pre-release, newer or older than the knowledge base knows, past
 * its end of life, or in maintenance mode.
 */
import { InputError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { label, type ClusterPlan, type PlannedComponent } from "./cluster-plan.js";
import { finding, type Finding } from "./findings.js";
import { minorIndex, minorOf } from "../core/versions.js";

const DAY_MS = 86_400_000;
let currentDay = "";
let currentDayEnds = 0;

/** Today's date in UTC, `YYYY-MM-DD`; formatted once a day (it is part of every remembered answer's key). */
export function today(): string {
  const now = Date.now();
  if (now >= currentDayEnds || now < currentDayEnds - DAY_MS) {
    currentDay = new Date(now).toISOString().slice(0, 10);
    currentDayEnds = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  }
  return currentDay;
}

export function parseAsOf(asOf: string | null | undefined, field = "asOf"): string {
  if (asOf === undefined || asOf === null || asOf.trim() === "") return today();
  const text = asOf.trim();
  const match = /^(\d{4}-\d{2}-\d{2})(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.exec(text);
  const parsed = match ? new Date(match[2] ? text : `${match[1]}T00:00:00Z`) : undefined;
  if (!match || !parsed || Number.isNaN(parsed.getTime()) || !(match[2] || parsed.toISOString().startsWith(match[1]!))) {
    throw new InputError(`${field} "${text.slice(0, 40)}" is not a date; write it as YYYY-MM-DD, e.g. 2026-01-31`, field);
  }
  return parsed.toISOString().slice(0, 10);
}

/**
 * "1.3" where "1.30" was meant: YAML and JSON read an unquoted 1.30 as the
 * number 1.3. When the minor times ten is a release the knowledge base
 * knows, say so.
 */
function eatenZero(snapshot: KbSnapshot, entry: PlannedComponent): string {
  const version = entry.kubernetes;
  if (version === null || version.patch !== null || version.minor >= 10) return "";
  const meant = `${version.major}.${version.minor * 10}`;
  return snapshot.findRelease(meant) === undefined ? "" : `. Did you mean ${meant}? An unquoted 1.30 in YAML or JSON is the number 1.3: quote versions ("${meant}")`;
}

export function checkReleases(snapshot: KbSnapshot, plan: ClusterPlan, asOf: string): Finding[] {
  const findings: Finding[] = [];
  const oldest = snapshot.releases[0];
  const newest = snapshot.newestRelease;
  const pastEndOfLife = new Map<string, PlannedComponent[]>();
  const inMaintenance = new Map<string, PlannedComponent[]>();
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
      } else if (oldest !== undefined && minorIndex(minor) < minorIndex(oldest.version)) {
        findings.push(
          finding({
            code: "VERSION_OLDER_THAN_KB",
            severity: "WARNING",
            component: entry.component,
            instance: entry.instance,
            message: `${label(entry)} ${entry.version} is older than the oldest release the knowledge base covers (${oldest.version}); ${minor} is long past its end of life${eatenZero(snapshot, entry)}`,
            sourceUrl: oldest.sourceUrl,
          }),
        );
      }
      continue;
    }
    // On a managed platform its own calendar judges the minors it has a row for (platforms.ts), not upstream's.
    if (plan.platform?.releases.some((row) => row.minor === minor)) continue;
    if (release.endOfLife !== null && asOf > release.endOfLife) {
      append(pastEndOfLife, minor, entry);
    } else if (release.endOfStandardSupport !== null && asOf > release.endOfStandardSupport) {
      append(inMaintenance, minor, entry);
    }
  }
  // One finding per minor: the same date repeated for every pool says nothing new.
  const perMinor = (entries: PlannedComponent[]) =>
    entries.length === 1
      ? { component: entries[0]!.component, instance: entries[0]!.instance, who: `${label(entries[0]!)} ${entries[0]!.version}` }
      : { component: null, instance: null, who: entries.map((entry) => label(entry)).join(", ") };
  for (const [minor, entries] of pastEndOfLife) {
    const release = snapshot.findRelease(minor)!;
    const { component, instance, who } = perMinor(entries);
    findings.push(
      finding({
        code: "RELEASE_END_OF_LIFE",
        severity: "WARNING",
        component,
        instance,
        message: `Kubernetes ${minor} reached end of life on ${release.endOfLife} and gets no more patches (${who})`,
        sourceUrl: release.sourceUrl,
      }),
    );
  }
  for (const [minor, entries] of inMaintenance) {
    const release = snapshot.findRelease(minor)!;
    const { component, instance, who } = perMinor(entries);
    findings.push(
      finding({
        code: "RELEASE_MAINTENANCE_MODE",
        severity: "INFO",
        component,
        instance,
        message: `Kubernetes ${minor} left standard support on ${release.endOfStandardSupport} and is in maintenance mode until ${release.endOfLife ?? "its end of life"} (${who})`,
        sourceUrl: release.sourceUrl,
      }),
    );
  }
  return findings;
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
