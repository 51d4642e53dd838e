/**
 * A Helm chart's kubeVersion constraint read the way Helm reads it (Masterminds semver: commas and spaces
 * both mean AND, `||` means OR, partial versions such as `1.19` and `1.19-0`), judged against every patch of
 * the target minor the knowledge base knows, and against the vendor-suffixed versions managed platforms
 * report (`v1.29.3-eks-5e0fdde`, `v1.29.3-gke.1093000`): Masterminds lets a version with a pre-release part
 * through a comparator only when the comparator has one too, hence the charts' `-0` convention. The same
 * reading evaluates a template's `semverCompare "<constraint>" .Capabilities.KubeVersion.GitVersion`.
 */
import semver from "semver";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { finding, type Finding } from "./findings.js";
import { readKubernetesVersion } from "./version-reader.js";

/** A vendor's version as managed platforms report it: a pre-release part the constraint must allow. */
const VENDOR_SUFFIX = "-eks-0a1b2c3";

/** The constraint in node-semver's words, or null when neither Helm nor node-semver can read it. */
export function readConstraint(constraint: string): string | null {
  const words = constraint
    .replaceAll(",", " ")
    // `>= 1.19` is one comparator.
    .replace(/([<>=~^!]+)\s+(?=v?\d)/g, "$1")
    // Masterminds reads `1.19-0` as 1.19.0-0; node-semver wants the patch.
    .replace(/(^|[\s<>=~^|])v?(\d+)\.(\d+)-([0-9A-Za-z.-]+)/g, "$1$2.$3.0-$4")
    .replace(/(^|[\s<>=~^|])v?(\d+)-([0-9A-Za-z.-]+)/g, "$1$2.0.0-$3")
    .trim();
  if (words === "") return null;
  return semver.validRange(words, { includePrerelease: true }) === null ? null : words;
}

/** The patches of the target minor the knowledge base knows (x.y.0 to its latest patch), as plain versions. */
export function targetPatches(snapshot: KbSnapshot, target: string): string[] {
  const latest = snapshot.releases.find((release) => release.version === target)?.latestPatch;
  const last =
    latest === null || latest === undefined
      ? 0
      : (readKubernetesVersion(snapshot, latest, "latestPatch").patch ?? 0);
  return Array.from({ length: last + 1 }, (_, patch) => `${target}.${patch}`);
}

function admits(range: string, version: string): boolean {
  return semver.satisfies(version, range, { includePrerelease: true });
}

/**
 * Whether a version with a vendor's pre-release part passes, as Masterminds decides: some `||` alternative
 * must admit it, and every comparator of that alternative must carry a pre-release part itself.
 */
function admitsVendorVersion(range: string, version: string): boolean {
  return range.split("||").some((alternative) => {
    const comparators = alternative.split(/\s+/).filter((word) => word !== "" && word !== "-");
    return (
      comparators.every((word) => /\d-[0-9A-Za-z]/.test(word)) &&
      admits(alternative, `${version}${VENDOR_SUFFIX}`)
    );
  });
}

/** Where a constraint comes from: the chart or a dependency, and the file and field it is in. */
export interface ConstraintPlace {
  /** "the chart web" or "the dependency redis of web". */
  readonly what: string;
  /** Chart.yaml or charts/redis/Chart.yaml. */
  readonly file: string;
}

/**
 * The constraint against the target's patches: ERROR when it admits none (helm install and upgrade refuse:
 * "chart requires kubeVersion ... which is incompatible with Kubernetes ..."), WARNING when it admits only some,
 * WARNING when it admits them all but not as managed platforms spell them; ERROR when it cannot be read.
 */
export function judgeKubeVersion(
  snapshot: KbSnapshot,
  constraint: string,
  target: string,
  place: ConstraintPlace,
): Finding[] {
  const sourceUrl = snapshot.reference("helm-kube-version");
  const at = `${place.file} kubeVersion "${constraint}"`;
  const range = readConstraint(constraint);
  if (range === null) {
    return [
      finding({
        code: "CHART_KUBE_VERSION_INVALID",
        severity: "ERROR",
        instance: place.file,
        message: `${at}: ${place.what}'s kubeVersion is not a semver constraint Helm can read; helm refuses to install the chart`,
        sourceUrl,
      }),
    ];
  }
  const patches = targetPatches(snapshot, target);
  const admitted = patches.filter((version) => admits(range, version));
  const known = `${patches[0]}${patches.length > 1 ? ` to ${patches.at(-1)}` : ""}`;
  if (admitted.length === 0) {
    return [
      finding({
        code: "CHART_KUBE_VERSION_EXCLUDES_TARGET",
        severity: "ERROR",
        instance: place.file,
        message: `${at}: ${place.what} admits no patch of ${target} (${known}); helm install and helm upgrade refuse it ("chart requires kubeVersion ... which is incompatible with Kubernetes v${patches.at(-1)}")`,
        sourceUrl,
      }),
    ];
  }
  if (admitted.length < patches.length) {
    const refused = patches.filter((version) => !admitted.includes(version));
    return [
      finding({
        code: "CHART_KUBE_VERSION_EXCLUDES_PATCHES",
        severity: "WARNING",
        instance: place.file,
        message: `${at}: ${place.what} admits only some patches of ${target}: helm refuses it on ${refused.join(", ")}`,
        sourceUrl,
      }),
    ];
  }
  const vendorRefused = admitted.filter((version) => !admitsVendorVersion(range, version));
  if (vendorRefused.length === 0) return [];
  return [
    finding({
      code: "CHART_KUBE_VERSION_REFUSES_VENDOR_VERSIONS",
      severity: "WARNING",
      instance: place.file,
      message: `${at}: ${place.what} admits ${target}, but not as managed platforms report it (v${vendorRefused.at(-1)}${VENDOR_SUFFIX} on EKS, -gke. on GKE): Helm lets such a version through a comparator only when the comparator has a pre-release part; write each bound with -0 (">= 1.19.0-0")`,
      sourceUrl: snapshot.reference("helm-kube-version-prerelease"),
    }),
  ];
}

/**
 * A template's `semverCompare "<constraint>" .Capabilities.KubeVersion...` at the target: true or false when
 * every known patch of the target agrees, null when they differ or the test is not of that form.
 */
export function semverCompareAt(
  snapshot: KbSnapshot,
  test: string,
  target: string,
): boolean | null {
  const match =
    /^semverCompare\s+"([^"]+)"\s+\(?\s*\.Capabilities\.KubeVersion(?:\.GitVersion|\.Version)?\s*\)?$/.exec(
      test.trim(),
    );
  if (match === null) return null;
  const range = readConstraint(match[1]!);
  if (range === null) return null;
  const answers = new Set(targetPatches(snapshot, target).map((version) => admits(range, version)));
  return answers.size === 1 ? [...answers][0]! : null;
}
