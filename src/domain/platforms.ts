/**
 * Managed platforms (EKS, GKE, AKS): which one a cluster runs on (named, or
 * recognised from its version strings), and the platform's own calendar
 * for each minor a cluster runs, which replaces upstream's end-of-life dates
 * in a judgement (EKS patches 1.29 in extended support long after upstream
 * stopped). Pure: reads only the snapshot.
 */
import { InputError } from "../core/errors.js";
import type { PlatformRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { entriesNamed, type PlannedComponent } from "./cluster-plan.js";
import { finding, type Finding } from "./findings.js";

/** The platform named (eks, EKS, "Amazon EKS"); an InputError naming the known ones otherwise. */
export function resolvePlatform(
  snapshot: KbSnapshot,
  name: unknown,
  field = "platform",
): PlatformRecord {
  if (typeof name !== "string" || name.trim() === "")
    throw new InputError(`${field} must be a platform name such as eks, gke or aks`, field);
  const wanted = name.trim().toLowerCase();
  const platform = snapshot.platforms.find(
    (candidate) => candidate.name === wanted || candidate.displayName.toLowerCase() === wanted,
  );
  if (platform === undefined) {
    throw new InputError(
      `unknown platform "${name.trim().slice(0, 40)}"; known platforms: ${snapshot.platforms.map((known) => known.name).join(", ")} (or upstream for a self-managed cluster)`,
      field,
    );
  }
  return platform;
}

/** The platform whose version pattern a Kubernetes component's version matches (v1.29.3-eks-1234567), if any. */
export function recognisePlatform(
  snapshot: KbSnapshot,
  entries: readonly PlannedComponent[],
): PlatformRecord | undefined {
  const patterns = versionPatterns(snapshot);
  for (const entry of entries) {
    if (entry.kubernetes === null) continue;
    const found = patterns.find(({ pattern }) => pattern.test(entry.kubernetes!.raw));
    if (found !== undefined) return found.platform;
  }
  return undefined;
}

// Every validation asks: the patterns are compiled once per list.
const compiledPatterns = new WeakMap<
  readonly PlatformRecord[],
  ReadonlyArray<{ readonly platform: PlatformRecord; readonly pattern: RegExp }>
>();

function versionPatterns(
  snapshot: KbSnapshot,
): ReadonlyArray<{ readonly platform: PlatformRecord; readonly pattern: RegExp }> {
  return perList(compiledPatterns, snapshot.platforms, (list) =>
    list.flatMap((platform) =>
      platform.versionPattern === null
        ? []
        : [{ platform, pattern: new RegExp(platform.versionPattern) }],
    ),
  );
}

/** The platform a node's labels show (eks.amazonaws.com/nodegroup ...), if any. */
export function platformOfLabels(
  snapshot: KbSnapshot,
  labels: Readonly<Record<string, unknown>>,
): PlatformRecord | undefined {
  return snapshot.platforms.find((platform) =>
    platform.nodeLabels.some((label) => label in labels),
  );
}

type PlatformRelease = PlatformRecord["releases"][number];

/** The control plane's components: past a platform's support, the platform upgrades them on its own. */
const CONTROL_PLANE = new Set(["apiserver", "controller", "scheduler"]);

/**
 * A platform's calendar for the entries of one minor (the control plane's, a
 * node pool's, a client's) on `asOf`: past every support it gives (an ERROR:
 * the platform no longer supports it), in extended or long-term support (a
 * WARNING), or not yet available on the platform.
 */
export function judgePlatformMinor(
  platform: PlatformRecord,
  release: PlatformRelease,
  entries: readonly PlannedComponent[],
  asOf: string,
): Finding[] {
  const { component, instance, who } = entriesNamed(entries);
  const minor = release.minor;
  // The calendar row is the rule: one finding per minor, whichever components of it a state holds.
  const at = {
    component,
    instance,
    sourceUrl: release.sourceUrl,
    ruleId: `${platform.name} ${minor}`,
  };
  const month =
    release.precision === "MONTH"
      ? " (the platform gives the month only and means its last day)"
      : "";
  const standard = release.endOfStandardSupport;
  const extended = release.endOfExtendedSupport;
  const controlPlane = entries.some((entry) => CONTROL_PLANE.has(entry.category));
  if (release.released !== null && asOf < release.released) {
    return [
      finding({
        ...at,
        code: "VERSION_NOT_YET_RELEASED",
        severity: "WARNING",
        message: `${platform.displayName} ${minor} was not available yet on ${asOf} (the platform released it on ${release.released}): ${who}`,
      }),
    ];
  }
  // Without a known end of extended support, past standard support is a WARNING with the end unknown, never a guessed ERROR.
  if (extended !== null && asOf >= extended) {
    return [
      finding({
        ...at,
        code: "PLATFORM_END_OF_SUPPORT",
        severity: "ERROR",
        message: `${platform.displayName} ${minor} is past the end of extended support (${extended}${month}): the platform no longer supports it (${who})${controlPlane ? " and upgrades the control plane on its own; upgrade before it does" : "; upgrade these to a minor the platform supports"}`,
      }),
    ];
  }
  if (standard !== null && asOf >= standard) {
    return [
      finding({
        ...at,
        code: "PLATFORM_EXTENDED_SUPPORT",
        severity: "WARNING",
        message: `${platform.displayName} ${minor} left standard support on ${standard}${month} and is in extended support (where the cluster is enrolled in it) until ${extended ?? "a date the knowledge base does not know"}${platform.name === "eks" ? " (charged per cluster hour)" : ""}: ${who}; plan the upgrade before then`,
      }),
    ];
  }
  return [];
}

/** A minor the platform's calendar has no row for: judged by upstream's calendar instead, and said. */
export function platformWithoutRow(
  platform: PlatformRecord,
  minor: string,
  entries: readonly PlannedComponent[],
): Finding {
  const { component, instance, who } = entriesNamed(entries);
  const known = platform.releases.map((candidate) => candidate.minor);
  return finding({
    component,
    instance,
    sourceUrl: platform.sourceUrl,
    ruleId: `${platform.name} ${minor}`,
    code: "PLATFORM_VERSION_UNKNOWN",
    severity: "WARNING",
    message: `${platform.displayName}'s calendar in the knowledge base has no row for ${minor} (it knows ${known[0] ?? "none"} to ${known.at(-1) ?? "none"}); ${who} ${entries.length === 1 ? "was" : "were"} judged by upstream's calendar, not ${platform.displayName}'s`,
  });
}

/** Platform facts that take effect at a minor after `fromMinor`, up to `toMinor` (both "1.NN"). */
export function platformChanges(
  platform: PlatformRecord,
  fromMinor: number,
  toMinor: number,
): Finding[] {
  return platform.facts
    .filter((fact) => {
      const minor = Number(fact.fromMinor.split(".")[1]);
      return minor > fromMinor && minor <= toMinor;
    })
    .map((fact) =>
      finding({
        code: "PLATFORM_CHANGE_IN_UPGRADE",
        severity: "WARNING",
        // On the platform its own statement applies; where upstream says otherwise, both are said.
        message: `${platform.displayName} from ${fact.fromMinor}: ${fact.text}${fact.disagreement === null ? "" : ` On ${platform.displayName} this statement applies; upstream Kubernetes differs: ${fact.disagreement}`}`,
        sourceUrl: fact.sourceUrl,
        ruleId: fact.id,
      }),
    );
}
