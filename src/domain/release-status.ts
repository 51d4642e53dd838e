/**
 * Is a Kubernetes minor supported on a given day? Read from the release
 * calendar (kb/releases.yaml): NOT_YET_RELEASED before its release date,
 * SUPPORTED until the end of standard support, MAINTENANCE until the end of
 * life (patched for critical fixes only), END_OF_LIFE after, and UNKNOWN
 * when the calendar has no dates for a released minor that is not the
 * newest (the newest released minor is always supported upstream). Also
 * "latest" and "oldest-supported", accepted wherever a version is expected.
 */
import { InputError } from "../core/errors.js";
import type { ReleaseRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { compareMinors } from "../core/versions.js";

export type ReleaseStatus =
  | "SUPPORTED"
  | "MAINTENANCE"
  | "END_OF_LIFE"
  | "NOT_YET_RELEASED"
  | "UNKNOWN";

export interface ReleaseStatusReport {
  readonly status: ReleaseStatus;
  readonly asOf: string;
  /** The oldest and newest minors still patched (SUPPORTED or MAINTENANCE) on asOf. */
  readonly oldestSupported: string | null;
  readonly newestSupported: string | null;
}

export function releaseStatusOf(
  snapshot: KbSnapshot,
  release: ReleaseRecord,
  asOf: string,
): ReleaseStatus {
  if (asOf < release.releaseDate) return "NOT_YET_RELEASED";
  if (release.endOfLife !== null && asOf > release.endOfLife) return "END_OF_LIFE";
  if (release.endOfStandardSupport !== null && asOf > release.endOfStandardSupport)
    return "MAINTENANCE";
  if (release.endOfLife !== null || release.endOfStandardSupport !== null) return "SUPPORTED";
  const newestReleased = [...snapshot.releases]
    .reverse()
    .find((candidate) => candidate.releaseDate <= asOf);
  return newestReleased?.version === release.version ? "SUPPORTED" : "UNKNOWN";
}

/** The newest minor released on or before asOf (a scheduled one, such as a release a few days off, is not). */
export function newestReleasedOn(snapshot: KbSnapshot, asOf: string): ReleaseRecord | undefined {
  return [...snapshot.releases]
    .sort((a, b) => compareMinors(a.version, b.version))
    .reverse()
    .find((release) => release.releaseDate <= asOf);
}

/** The minors still patched on asOf, oldest first. */
export function supportedReleases(snapshot: KbSnapshot, asOf: string): ReleaseRecord[] {
  return snapshot.releases.filter((release) => {
    const status = releaseStatusOf(snapshot, release, asOf);
    return status === "SUPPORTED" || status === "MAINTENANCE";
  });
}

export function releaseStatus(
  snapshot: KbSnapshot,
  release: ReleaseRecord,
  asOf: string,
): ReleaseStatusReport {
  const supported = supportedReleases(snapshot, asOf);
  return {
    status: releaseStatusOf(snapshot, release, asOf),
    asOf,
    oldestSupported: supported[0]?.version ?? null,
    newestSupported: supported[supported.length - 1]?.version ?? null,
  };
}

const ALIASES = new Set(["latest", "oldest-supported"]);

export function isVersionAlias(text: unknown): boolean {
  return typeof text === "string" && ALIASES.has(text.trim().toLowerCase());
}

/**
 * "latest" (the newest released minor's latest patch) and
 * "oldest-supported" (the oldest minor still patched on asOf); any other
 * text is returned as it is, for the version parser to judge.
 */
export function resolveVersionAlias(
  snapshot: KbSnapshot,
  text: unknown,
  asOf: string,
  field: string,
): unknown {
  if (!isVersionAlias(text)) return text;
  const word = (text as string).trim().toLowerCase();
  const pick =
    word === "oldest-supported"
      ? supportedReleases(snapshot, asOf)[0]
      : newestReleasedOn(snapshot, asOf);
  if (pick === undefined)
    throw new InputError(
      `${field} "${word}": the knowledge base knows no ${word === "oldest-supported" ? "supported" : "released"} minor on ${asOf}`,
      field,
    );
  return pick.latestPatch ?? pick.version;
}
