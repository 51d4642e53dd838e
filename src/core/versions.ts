/**
 * Parsing and comparing Kubernetes versions. Accepts what people and tools
 * actually write: `1.29`, `v1.29.3`, `1.30.0-rc.1`, and vendor builds such as
 * `v1.29.3-eks-1234`, `v1.29.3-gke.1200` or `v1.28.5+k3s1`. Kubernetes'
 * own pre-releases are `alpha.N`, `beta.N` and `rc.N`; any other suffix is a
 * vendor build of that release and sorts equal to it. Anything else is an
 * InputError naming the field, never a crash.
 */
import semver from "semver";
import { InputError } from "./errors.js";

export interface KubernetesVersion {
  readonly major: number;
  readonly minor: number;
  /** null when only a minor was given (`1.29`). */
  readonly patch: number | null;
  /** Kubernetes pre-release (`rc.1`), or null. */
  readonly prerelease: string | null;
  /** Vendor suffix (`eks-1234`, `gke.1200`, `k3s1`), or null. */
  readonly vendorSuffix: string | null;
  /** What was given, trimmed. */
  readonly raw: string;
}

const MAX_VERSION_LENGTH = 64;
const VERSION_PATTERN =
  /^[vV]?(?<major>0|[1-9]\d{0,2})\.(?<minor>0|[1-9]\d{0,3})(?:\.(?<patch>0|[1-9]\d{0,4}))?(?<suffix>[-+][0-9A-Za-z.+_-]{1,48})?$/;
const KUBERNETES_PRERELEASE =
  /^-(?<pre>(?:alpha|beta|rc)\.\d{1,4})(?<rest>[-+.][0-9A-Za-z.+_-]*)?$/;

// Versions repeat endlessly (every rule, release and request names the same few): parse each text once.
const parsedVersions = new Map<string, KubernetesVersion>();
const MAX_CACHED_VERSIONS = 10_000;

/** Parses a Kubernetes version; `field` names the input in the error message. */
export function parseKubernetesVersion(input: unknown, field = "version"): KubernetesVersion {
  if (typeof input === "string") {
    const cached = parsedVersions.get(input);
    if (cached !== undefined) return cached;
  }
  const version = parseUncached(input, field);
  if (parsedVersions.size >= MAX_CACHED_VERSIONS) parsedVersions.clear();
  parsedVersions.set(input as string, version);
  return version;
}

function parseUncached(input: unknown, field: string): KubernetesVersion {
  if (typeof input !== "string") {
    throw new InputError(`${field} must be a string such as "1.29" or "v1.29.3"`, field);
  }
  // "1.30.x" (any patch of the minor) is read as the minor itself.
  const raw = input.trim().replace(/^([vV]?\d+\.\d+)\.[xX*]$/, "$1");
  if (raw.length === 0) {
    throw new InputError(
      `${field} is empty; give a Kubernetes version such as "1.29" or "v1.29.3"`,
      field,
    );
  }
  if (raw.length > MAX_VERSION_LENGTH) {
    throw new InputError(
      `${field} is longer than ${MAX_VERSION_LENGTH} characters; give a version such as "v1.29.3"`,
      field,
    );
  }
  const match = VERSION_PATTERN.exec(raw);
  if (!match?.groups) {
    throw new InputError(
      `${field} "${printable(raw)}" is not a Kubernetes version; expected forms like "1.29", "v1.29.3", "1.30.0-rc.1" or "v1.29.3-eks-1234"`,
      field,
    );
  }
  const { major, minor, patch, suffix } = match.groups;
  let prerelease: string | null = null;
  let vendorSuffix: string | null = null;
  if (suffix !== undefined) {
    if (patch === undefined) {
      throw new InputError(
        `${field} "${printable(raw)}" has a suffix but no patch number; write e.g. "1.30.0-rc.1"`,
        field,
      );
    }
    const pre = KUBERNETES_PRERELEASE.exec(suffix);
    if (pre?.groups?.pre !== undefined) {
      prerelease = pre.groups.pre;
      vendorSuffix = pre.groups.rest ? pre.groups.rest.slice(1) : null;
    } else {
      vendorSuffix = suffix.slice(1);
    }
  }
  const version: KubernetesVersion = Object.freeze({
    major: Number(major),
    minor: Number(minor),
    patch: patch === undefined ? null : Number(patch),
    prerelease,
    vendorSuffix,
    raw,
  });
  if (semver.valid(toSemver(version)) === null) {
    throw new InputError(`${field} "${printable(raw)}" is not a valid version`, field);
  }
  return version;
}

/** Parses a minor such as `1.28` (a patch, if given, is ignored) and returns `"1.28"`. */
export function parseMinor(input: unknown, field = "version"): string {
  return minorOf(parseKubernetesVersion(input, field));
}

/** `"1.29"` for any 1.29.x version. */
export function minorOf(version: KubernetesVersion): string {
  return `${version.major}.${version.minor}`;
}

/** A single number that orders minors: 1.29 → 1029. */
export function minorIndex(version: KubernetesVersion | string): number {
  const parsed = typeof version === "string" ? parseKubernetesVersion(version) : version;
  // (parsing is cached, so this costs a map lookup for the minors rules and releases name)
  return parsed.major * 1000 + parsed.minor;
}

/**
 * How many minors `a` is newer than `b` (negative when older). Kubernetes has
 * only ever had major 1; across majors the distance is not meaningful, so the
 * index keeps any 2.x far away from every 1.x.
 */
export function minorDistance(
  a: KubernetesVersion | string,
  b: KubernetesVersion | string,
): number {
  return minorIndex(a) - minorIndex(b);
}

/** semver form used for ordering: a missing patch counts as .0, vendor suffixes are ignored. */
export function toSemver(version: KubernetesVersion): string {
  const core = `${version.major}.${version.minor}.${version.patch ?? 0}`;
  return version.prerelease === null ? core : `${core}-${version.prerelease}`;
}

/** Orders versions: -1, 0 or 1. Vendor builds of one release compare equal. */
export function compareVersions(
  a: KubernetesVersion | string,
  b: KubernetesVersion | string,
): -1 | 0 | 1 {
  const left = typeof a === "string" ? parseKubernetesVersion(a) : a;
  const right = typeof b === "string" ? parseKubernetesVersion(b) : b;
  const numeric = Math.sign(
    left.major - right.major || left.minor - right.minor || (left.patch ?? 0) - (right.patch ?? 0),
  ) as -1 | 0 | 1;
  // Pre-release order (alpha < beta < rc < release) is semver's business.
  if (numeric !== 0 || (left.prerelease === null && right.prerelease === null)) return numeric;
  return semver.compare(toSemver(left), toSemver(right));
}

/** Compares two minors given as strings (`"1.9"` < `"1.10"`). */
export function compareMinors(a: string, b: string): number {
  return Math.sign(minorIndex(a) - minorIndex(b));
}

/** Canonical text form: `1.29`, `1.29.3`, `1.30.0-rc.1`, `1.29.3-eks-1234`. */
export function formatVersion(version: KubernetesVersion): string {
  let text = `${version.major}.${version.minor}`;
  if (version.patch !== null) text += `.${version.patch}`;
  if (version.prerelease !== null) text += `-${version.prerelease}`;
  if (version.vendorSuffix !== null) text += `-${version.vendorSuffix}`;
  return text;
}

/** Keeps error messages readable when the input holds control characters. */
function printable(text: string): string {
  return JSON.stringify(text).slice(1, -1).slice(0, MAX_VERSION_LENGTH);
}

/** A version of a component that is not versioned like Kubernetes: etcd, containerd, CRI-O, Docker Engine, cri-dockerd. */
export interface ComponentVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** What was given, trimmed and without a `runtime://` prefix. */
  readonly raw: string;
}

const COMPONENT_VERSION_PATTERN =
  /^[vV]?(?<major>\d{1,4})\.(?<minor>\d{1,4})(?:\.(?<patch>\d{1,6}))?(?<suffix>[-+~][0-9A-Za-z.+~_-]{1,48})?$/;

/**
 * Parses `1.7.2`, `v2.0.0`, `3.5.12-0` (kubeadm's etcd image tags) and the
 * `containerd://1.7.2` form that `kubectl get nodes` reports. `field` names
 * the input in the error message. Parsed versions are frozen and remembered
 * by their text: the planner parses the same few at every step.
 */
export function parseComponentVersion(input: unknown, field = "version"): ComponentVersion {
  if (typeof input === "string") {
    const cached = parsedComponentVersions.get(input);
    if (cached !== undefined) return cached;
  }
  const version = Object.freeze(parseComponentUncached(input, field));
  if (parsedComponentVersions.size >= MAX_CACHED_VERSIONS) parsedComponentVersions.clear();
  parsedComponentVersions.set(input as string, version);
  return version;
}

const parsedComponentVersions = new Map<string, ComponentVersion>();

function parseComponentUncached(input: unknown, field: string): ComponentVersion {
  if (typeof input !== "string")
    throw new InputError(`${field} must be a string such as "1.7.2"`, field);
  const raw = input.trim().replace(/^[a-z][a-z0-9-]{0,30}:\/\//, "");
  if (raw.length === 0)
    throw new InputError(`${field} is empty; give a version such as "1.7.2"`, field);
  if (raw.length > MAX_VERSION_LENGTH) {
    throw new InputError(
      `${field} is longer than ${MAX_VERSION_LENGTH} characters; give a version such as "1.7.2"`,
      field,
    );
  }
  const match = COMPONENT_VERSION_PATTERN.exec(raw);
  if (!match?.groups) {
    throw new InputError(
      `${field} "${printable(raw)}" is not a version; expected a form like "1.7.2" or "containerd://1.7.2"`,
      field,
    );
  }
  return {
    major: Number(match.groups.major),
    minor: Number(match.groups.minor),
    patch: match.groups.patch === undefined ? 0 : Number(match.groups.patch),
    raw,
  };
}

/** Orders component versions by major, minor, patch (suffixes such as kubeadm's `-0` are ignored). */
export function compareComponentVersions(a: ComponentVersion, b: ComponentVersion): number {
  return Math.sign(a.major - b.major || a.minor - b.minor || a.patch - b.patch);
}
