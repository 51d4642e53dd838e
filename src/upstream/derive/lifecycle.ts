/**
 * API removals derived from kubernetes/api's prerelease-lifecycle markers.
 *
 * k8s.io/api carries, per API package, a generated
 * `<dir>/<version>/zz_generated.prerelease-lifecycle.go` with up to four
 * methods per type (APILifecycleIntroduced, Deprecated, Replacement, Removed;
 * the format is described in the research note lifecycle/FORMAT.md). Read at
 * several release tags, they give per (apiVersion, kind) when it was
 * introduced, deprecated and removed, and what replaces it; a type that
 * disappears from a later tag is removed there even if its marker said later.
 *
 * Pure: the command (src/ops/kb-derive.ts) reads the tags with git and hands
 * the texts in; everything here is plain string handling.
 */
import semver from "semver";
import { DeriveInputError } from "./errors.js";

export const KUBERNETES_API_REPOSITORY = "https://github.com/kubernetes/api";

/** A type's markers as the generated file states them (minor numbers of Kubernetes 1.x). */
export interface LifecycleMarkers {
  introduced: number | null;
  deprecated: number | null;
  removed: number | null;
  replacement: { group: string; version: string; kind: string } | null;
}

/** `kubernetes-1.34.0`, `kubernetes-1.37.0-beta.0`: the tags the publishing bot puts on kubernetes/api. */
export interface KubernetesTag {
  readonly name: string;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: string | null;
  /** The semver form, for ordering: 1.37.0-beta.0. */
  readonly version: string;
}

export function parseKubernetesTag(name: string): KubernetesTag | null {
  const match = /^kubernetes-1\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?$/.exec(name);
  if (match === null) return null;
  const version = `1.${match[1]}.${match[2]}${match[3] === undefined ? "" : `-${match[3]}`}`;
  if (semver.valid(version) === null) return null;
  return {
    name,
    minor: Number(match[1]),
    patch: Number(match[2]),
    prerelease: match[3] ?? null,
    version,
  };
}

export function compareTags(a: KubernetesTag, b: KubernetesTag): number {
  return semver.compare(a.version, b.version);
}

/** A full x.y.0 release (not a patch, not a pre-release). */
export function isMinorRelease(tag: KubernetesTag): boolean {
  return tag.patch === 0 && tag.prerelease === null;
}

/**
 * The default tags: every kubernetes-1.N.0 from `fromMinor` on, plus the
 * newest tag overall by version order (usually the next minor's newest
 * alpha/beta/rc), oldest first.
 */
export function selectDefaultTags(names: readonly string[], fromMinor = 29): KubernetesTag[] {
  const tags = names
    .map(parseKubernetesTag)
    .filter((tag): tag is KubernetesTag => tag !== null)
    .sort(compareTags);
  const chosen = tags.filter((tag) => isMinorRelease(tag) && tag.minor >= fromMinor);
  const newest = tags.at(-1);
  if (newest !== undefined && !chosen.some((tag) => tag.name === newest.name)) chosen.push(newest);
  return chosen.sort(compareTags);
}

/** `flowcontrol/v1beta3/zz_generated.prerelease-lifecycle.go` → dir and version; null for any other path. */
export function lifecyclePath(path: string): { dir: string; version: string } | null {
  const match =
    /^([a-z0-9][a-z0-9_-]*)\/(v\d+(?:(?:alpha|beta)\d+)?)\/zz_generated\.prerelease-lifecycle\.go$/.exec(
      path,
    );
  return match === null ? null : { dir: match[1]!, version: match[2]! };
}

const METHOD =
  /func \(in \*(\w+)\) APILifecycle(Introduced|Deprecated|Removed|Replacement)\(\)[^{\n]*\{\s*return ([^\n]+?)\s*\n\s*\}/g;
const METHOD_START = /func \(in \*\w+\) APILifecycle\w*\(/g;
const INT_PAIR = /^(\d+),\s*(\d+)$/;
const GVK =
  /^schema\.GroupVersionKind\{Group:\s*"([^"]*)",\s*Version:\s*"([^"]*)",\s*Kind:\s*"([^"]*)"\}$/;

/**
 * Parses one zz_generated.prerelease-lifecycle.go. Throws DeriveInputError
 * naming the file and the method when a body is not in the generator's form,
 * so a format change upstream is noticed instead of silently dropping types.
 */
export function parseLifecycleFile(text: string, file: string): Map<string, LifecycleMarkers> {
  const types = new Map<string, LifecycleMarkers>();
  if (!text.includes("package ")) {
    throw new DeriveInputError(
      `${file} is not a Go file (no package clause); expected a generated zz_generated.prerelease-lifecycle.go`,
    );
  }
  let parsed = 0;
  for (const match of text.matchAll(METHOD)) {
    const [, type, method, body] = match as unknown as [string, string, string, string];
    parsed += 1;
    const markers = types.get(type) ?? {
      introduced: null,
      deprecated: null,
      removed: null,
      replacement: null,
    };
    types.set(type, markers);
    if (method === "Replacement") {
      const gvk = GVK.exec(body);
      if (gvk === null)
        throw new DeriveInputError(
          `${file}: cannot read ${type}.APILifecycleReplacement: "return ${body}"`,
        );
      markers.replacement = { group: gvk[1]!, version: gvk[2]!, kind: gvk[3]! };
      continue;
    }
    const pair = INT_PAIR.exec(body);
    if (pair === null)
      throw new DeriveInputError(
        `${file}: cannot read ${type}.APILifecycle${method}: "return ${body}"`,
      );
    if (pair[1] !== "1")
      throw new DeriveInputError(
        `${file}: ${type}.APILifecycle${method} returns major ${pair[1]}; only Kubernetes 1.x is understood`,
      );
    const minor = Number(pair[2]);
    if (method === "Introduced") markers.introduced = minor;
    else if (method === "Deprecated") markers.deprecated = minor;
    else markers.removed = minor;
  }
  const declared = [...text.matchAll(METHOD_START)].length;
  if (declared !== parsed) {
    throw new DeriveInputError(
      `${file}: ${declared - parsed} APILifecycle method(s) are not in the generator's form (a one-line "return 1, N" or schema.GroupVersionKind{...} body)`,
    );
  }
  return types;
}

/** The API group of a package: register.go's `const GroupName = "..."`, else doc.go's `+groupName=`. Null when neither says. */
export function parseGroupName(registerGo: string | null, docGo: string | null): string | null {
  const fromRegister =
    registerGo === null ? null : /const GroupName\s*=\s*"([^"]*)"/.exec(registerGo);
  if (fromRegister !== null) return fromRegister[1]!;
  const fromDoc = docGo === null ? null : /^\s*\/\/\s*\+groupName=(\S*)\s*$/m.exec(docGo);
  return fromDoc === null ? null : fromDoc[1]!;
}

export function apiVersionOf(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

export function stabilityOf(version: string): "alpha" | "beta" | "ga" {
  return version.includes("alpha") ? "alpha" : version.includes("beta") ? "beta" : "ga";
}

/** One API package at one tag. */
export interface PackageSnapshot {
  readonly dir: string;
  readonly version: string;
  readonly group: string;
  /** The lifecycle file's path in the repository. */
  readonly path: string;
  readonly types: ReadonlyMap<string, LifecycleMarkers>;
}

export interface TagSnapshot {
  readonly tag: KubernetesTag;
  readonly commit: string;
  readonly packages: readonly PackageSnapshot[];
}

export interface DerivedRemoval {
  readonly apiVersion: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly stability: "alpha" | "beta" | "ga";
  readonly introducedIn: string | null;
  readonly deprecatedIn: string | null;
  readonly removedIn: string;
  /** What decided removedIn: the APILifecycleRemoved marker, or the type being gone at a tag. */
  readonly removedBy: "marker" | "type-gone";
  readonly markerRemovedIn: string | null;
  readonly goneAt: { readonly tag: string; readonly commit: string } | null;
  readonly replacement: string | null;
  readonly replacementKind: string | null;
  readonly replacementAvailableIn: string | null;
  readonly servedByDefault: boolean | null;
  readonly servedByDefaultReason: string;
  /** The newest tag with the type, whose markers are used. */
  readonly sourceTag: string;
  readonly sourceCommit: string;
  readonly sourcePath: string;
  readonly sourceUrl: string;
  /** True when a value comes from a pre-release tag and may change before the x.y.0 release. */
  readonly provisional: boolean;
  readonly notes: readonly string[];
}

/**
 * Whether a type is still declared (`type X struct`) in its package at a tag
 * although its lifecycle markers are gone there. The command answers it with
 * `git grep`; without it (tests of the pure part) a type without markers is gone.
 */
export type StillDeclared = (
  snapshot: TagSnapshot,
  dir: string,
  version: string,
  kind: string,
) => boolean;

/**
 * Betas introduced before KEP-3136 (1.24) that are on by default, and the
 * grandfathered exception: flowcontrol v1beta3 (introduced 1.26) is listed in
 * kube-apiserver's legacyBetaEnabledByDefaultResources.
 */
const SERVED_OVERRIDES: Readonly<Record<string, { served: boolean; reason: string }>> = {
  "flowcontrol.apiserver.k8s.io/v1beta3": {
    served: true,
    reason:
      "on by default although introduced in 1.26: listed in kube-apiserver's legacyBetaEnabledByDefaultResources (https://github.com/kubernetes/kubernetes/blob/0138c8288042f10a191f349be6178aa9f64fb294/pkg/controlplane/instance.go)",
  },
};

function servedByDefault(
  apiVersion: string,
  version: string,
  introduced: number | null,
): { served: boolean | null; reason: string } {
  const override = SERVED_OVERRIDES[apiVersion];
  if (override !== undefined) return override;
  const stability = stabilityOf(version);
  if (stability === "ga") return { served: true, reason: "GA versions are served by default" };
  if (stability === "alpha")
    return {
      served: false,
      reason: "alpha versions are off by default (--runtime-config turns them on)",
    };
  if (introduced === null)
    return {
      served: null,
      reason: "a beta without an introduced marker: KEP-3136 cannot be applied",
    };
  return introduced >= 24
    ? {
        served: false,
        reason: `a beta introduced in 1.${introduced}: off by default since 1.24 (KEP-3136)`,
      }
    : {
        served: true,
        reason: `a beta introduced in 1.${introduced}, before KEP-3136 (1.24): on by default`,
      };
}

const minor = (value: number | null): string | null => (value === null ? null : `1.${value}`);

function describeMarkers(markers: LifecycleMarkers): string {
  const replacement =
    markers.replacement === null
      ? "none"
      : `${apiVersionOf(markers.replacement.group, markers.replacement.version)} ${markers.replacement.kind}`;
  return `deprecated ${minor(markers.deprecated) ?? "none"}, removed ${minor(markers.removed) ?? "none"}, replacement ${replacement}`;
}

/** One tag at which a type was read, with its markers there. */
interface Sighting {
  readonly index: number;
  readonly pkg: PackageSnapshot;
  readonly markers: LifecycleMarkers;
}

/** A type (package directory, version, kind) and every tag it was read at, oldest first. */
interface TypeSightings {
  readonly dir: string;
  readonly version: string;
  readonly kind: string;
  readonly sightings: Sighting[];
}

/**
 * Every non-List type across the snapshots, and the introduced minor of every
 * (apiVersion, kind), List kinds included, for the replacements' availability.
 */
function collectSightings(snapshots: readonly TagSnapshot[]): {
  types: Map<string, TypeSightings>;
  introducedOf: Map<string, number>;
} {
  const types = new Map<string, TypeSightings>();
  const introducedOf = new Map<string, number>();
  snapshots.forEach((snapshot, index) => {
    for (const pkg of snapshot.packages) {
      for (const [kind, markers] of pkg.types) {
        if (markers.introduced !== null)
          introducedOf.set(`${apiVersionOf(pkg.group, pkg.version)} ${kind}`, markers.introduced);
        if (kind.endsWith("List")) continue;
        const id = `${pkg.dir}/${pkg.version} ${kind}`;
        const entry = types.get(id) ?? {
          dir: pkg.dir,
          version: pkg.version,
          kind,
          sightings: [],
        };
        entry.sightings.push({ index, pkg, markers });
        types.set(id, entry);
      }
    }
  });
  return { types, introducedOf };
}

/**
 * The first tag after the type's last sighting that no longer declares it
 * (null: every later tag does). A later tag that declares it without markers
 * is noted.
 */
function goneAt(
  snapshots: readonly TagSnapshot[],
  type: TypeSightings,
  lastIndex: number,
  stillDeclared: StillDeclared,
  notes: string[],
): TagSnapshot | null {
  for (let index = lastIndex + 1; index < snapshots.length; index += 1) {
    const snapshot = snapshots[index]!;
    if (!stillDeclared(snapshot, type.dir, type.version, type.kind)) return snapshot;
    notes.push(`${snapshot.tag.name} still declares the type but has no lifecycle markers for it`);
  }
  return null;
}

/** Whether the removal rests on a pre-release tag (read at one, or gone in one), noted. */
function provisionalBy(
  lastSnapshot: TagSnapshot,
  gone: TagSnapshot | null,
  removedBy: DerivedRemoval["removedBy"],
  notes: string[],
): boolean {
  let provisional = false;
  if (lastSnapshot.tag.prerelease !== null) {
    provisional = true;
    notes.push(
      `values read at the pre-release tag ${lastSnapshot.tag.name}; they may change before kubernetes-1.${lastSnapshot.tag.minor}.0`,
    );
  }
  if (removedBy === "type-gone" && gone !== null && !isMinorRelease(gone.tag)) {
    provisional = true;
    notes.push(
      `the type is absent from ${gone.tag.name}, not a full release: provisional until kubernetes-1.${gone.tag.minor}.0`,
    );
  }
  return provisional;
}

/** The type's markers at its first tag and at each tag where they changed. */
function markerHistory(snapshots: readonly TagSnapshot[], type: TypeSightings): string[] {
  const history: string[] = [];
  let previous: string | null = null;
  for (const sighting of type.sightings) {
    const described = describeMarkers(sighting.markers);
    if (described !== previous)
      history.push(`${snapshots[sighting.index]!.tag.name}: ${described}`);
    previous = described;
  }
  return history;
}

/** One type's removal, or null when nothing removes it (no marker, never gone). */
function deriveRemoval(
  snapshots: readonly TagSnapshot[],
  type: TypeSightings,
  introducedOf: ReadonlyMap<string, number>,
  stillDeclared: StillDeclared,
): DerivedRemoval | null {
  const last = type.sightings.at(-1)!;
  const lastSnapshot = snapshots[last.index]!;
  const notes: string[] = [];
  const gone = goneAt(snapshots, type, last.index, stillDeclared, notes);
  const { markers } = last;
  const goneMinor = gone === null ? null : gone.tag.minor;
  if (markers.removed === null && goneMinor === null) return null;
  const removed = Math.min(markers.removed ?? Infinity, goneMinor ?? Infinity);
  const removedBy = markers.removed !== null && markers.removed <= removed ? "marker" : "type-gone";
  const group = last.pkg.group;
  const apiVersion = apiVersionOf(group, type.version);
  const served = servedByDefault(apiVersion, type.version, markers.introduced);
  const replacement = markers.replacement;
  const replacementApiVersion =
    replacement === null ? null : apiVersionOf(replacement.group, replacement.version);
  const replacementIntroduced =
    replacement === null
      ? undefined
      : introducedOf.get(`${replacementApiVersion} ${replacement.kind}`);

  const gaps = type.sightings
    .slice(1)
    .filter((sighting, position) => sighting.index !== type.sightings[position]!.index + 1);
  if (gaps.length > 0)
    notes.push("the type is missing at some tags between its first and last appearance");
  if (removedBy === "type-gone") {
    notes.push(
      markers.removed === null
        ? `no APILifecycleRemoved marker: removedIn is where the type is gone (${gone!.tag.name})`
        : `the type is gone at ${gone!.tag.name}, before its marker removal ${minor(markers.removed)}`,
    );
    if (stabilityOf(type.version) === "ga") {
      notes.push(
        "a GA type disappeared from k8s.io/api; GA APIs are not removed under the deprecation policy, so check whether it was ever served",
      );
    }
  }
  const provisional = provisionalBy(lastSnapshot, gone, removedBy, notes);
  let deprecated = markers.deprecated;
  if (deprecated !== null && deprecated > removed) {
    notes.push(
      `the deprecation marker (${minor(deprecated)}) is after the removal, so deprecatedIn is left empty`,
    );
    deprecated = null;
  }
  const history = markerHistory(snapshots, type);
  if (history.length > 1) notes.push(`the markers changed between tags (${history.join("; ")})`);

  return {
    apiVersion,
    group,
    version: type.version,
    kind: type.kind,
    stability: stabilityOf(type.version),
    introducedIn: minor(markers.introduced),
    deprecatedIn: minor(deprecated),
    removedIn: `1.${removed}`,
    removedBy,
    markerRemovedIn: minor(markers.removed),
    goneAt: gone === null ? null : { tag: gone.tag.name, commit: gone.commit },
    replacement: replacementApiVersion,
    replacementKind:
      replacement !== null && replacement.kind !== type.kind ? replacement.kind : null,
    replacementAvailableIn:
      replacementIntroduced === undefined ? null : `1.${replacementIntroduced}`,
    servedByDefault: served.served,
    servedByDefaultReason: served.reason,
    sourceTag: lastSnapshot.tag.name,
    sourceCommit: lastSnapshot.commit,
    sourcePath: last.pkg.path,
    sourceUrl: `${KUBERNETES_API_REPOSITORY}/blob/${lastSnapshot.commit}/${last.pkg.path}`,
    provisional,
    notes,
  };
}

/**
 * Every (apiVersion, kind) with a scheduled or past removal across the
 * snapshots (oldest first). List kinds are skipped: they go with their kind.
 * removedIn is the earlier of the APILifecycleRemoved marker (as the newest
 * tag with the type has it) and the minor of the first later tag where the
 * type is gone.
 */
export function deriveRemovals(
  snapshots: readonly TagSnapshot[],
  stillDeclared: StillDeclared = () => false,
): DerivedRemoval[] {
  const { types, introducedOf } = collectSightings(snapshots);
  const removals: DerivedRemoval[] = [];
  for (const type of types.values()) {
    const removal = deriveRemoval(snapshots, type, introducedOf, stillDeclared);
    if (removal !== null) removals.push(removal);
  }
  const minorOf = (version: string): number => Number(version.split(".")[1]);
  return removals.sort(
    (a, b) =>
      minorOf(a.removedIn) - minorOf(b.removedIn) ||
      a.apiVersion.localeCompare(b.apiVersion) ||
      a.kind.localeCompare(b.kind),
  );
}
