/**
 * Objects of custom resources, which the Kubernetes API lifecycle says
 * nothing about: judged by the add-ons' own API lifecycles
 * (kb/addon-apis.yaml: cert-manager.io/v1alpha2 went away in cert-manager
 * v1.6) and by the CustomResourceDefinitions themselves, from the scan's
 * input or from the cluster (`kubectl get crd -o json`): a version the CRD
 * does not serve, one it marks deprecated, and a CRD update that drops a
 * version the cluster still has objects stored in.
 */
import { InputError } from "../core/errors.js";
import type { AddonApiRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import {
  compareComponentVersions,
  parseComponentVersion,
  type ComponentVersion,
} from "../core/versions.js";
import { findAddon } from "./addons.js";
import { isPlainMap, type PlainMap } from "./manifest-reader.js";

/** A CRD as far as judging its objects needs it. */
export interface CrdFacts {
  readonly name: string;
  readonly group: string;
  readonly kind: string;
  readonly versions: ReadonlyArray<{
    readonly name: string;
    readonly served: boolean;
    readonly deprecated: boolean;
    readonly deprecationWarning: string | null;
  }>;
  /** status.storedVersions (only a CRD read from the cluster has it). */
  readonly storedVersions: readonly string[];
}

/** A CRD from a scanned document (null when the object is not one it can read). */
export function crdOfObject(crd: PlainMap): CrdFacts | null {
  const spec = crd.spec;
  const metadata = crd.metadata;
  if (!isPlainMap(spec) || !isPlainMap(metadata)) return null;
  const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
  const group = text(spec.group);
  const kind = isPlainMap(spec.names) ? text(spec.names.kind) : null;
  const name = text(metadata.name);
  const versions = spec.versions;
  if (group === null || kind === null || name === null || !Array.isArray(versions)) return null;
  const read = versions.flatMap((item: unknown) => {
    const version = isPlainMap(item) ? item : null;
    const versionName = version === null ? null : text(version.name);
    if (version === null || versionName === null) return [];
    return [
      {
        name: versionName,
        served: version.served === true,
        deprecated: version.deprecated === true,
        deprecationWarning: text(version.deprecationWarning),
      },
    ];
  });
  return { name, group, kind, versions: read, storedVersions: [] };
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Json)
    : undefined;

/** The CRDs of `kubectl get crd -o json` (a List), with their stored versions; `field` names the input. */
export function crdsOfClusterJson(input: unknown, at = "crds"): CrdFacts[] {
  const items = object(input)?.items;
  if (!Array.isArray(items))
    throw new InputError(
      `${at} must be the JSON of \`kubectl get crd -o json\` (a List with items)`,
      `${at}.items`,
    );
  return items.map((item, index) => {
    const crd = object(item);
    const spec = object(crd?.spec);
    const name = object(crd?.metadata)?.name;
    const group = spec?.group;
    const kind = object(spec?.names)?.kind;
    const versions = spec?.versions;
    if (
      typeof name !== "string" ||
      typeof group !== "string" ||
      typeof kind !== "string" ||
      !Array.isArray(versions)
    ) {
      throw new InputError(
        `${at}.items[${index}] is not a CustomResourceDefinition with metadata.name, spec.group, spec.names.kind and spec.versions; pass the unmodified JSON of \`kubectl get crd -o json\``,
        `${at}.items[${index}]`,
      );
    }
    const stored = object(crd?.status)?.storedVersions;
    return {
      name,
      group,
      kind,
      versions: versions.flatMap((entry) => {
        const version = object(entry);
        if (typeof version?.name !== "string") return [];
        return [
          {
            name: version.name,
            served: version.served === true,
            deprecated: version.deprecated === true,
            deprecationWarning:
              typeof version.deprecationWarning === "string" ? version.deprecationWarning : null,
          },
        ];
      }),
      storedVersions: Array.isArray(stored)
        ? stored.filter((value): value is string => typeof value === "string")
        : [],
    };
  });
}

/** The add-on versions a scan is told (cert-manager v1.12.0), read and checked against the add-ons the knowledge base knows. */
export function parseScanAddons(
  snapshot: KbSnapshot,
  input: unknown,
  at = "addons",
): ReadonlyMap<string, ComponentVersion> {
  const versions = new Map<string, ComponentVersion>();
  if (input === undefined || input === null) return versions;
  if (!Array.isArray(input))
    throw new InputError(
      `${at} must be a list of {name, version}, e.g. [{"name": "cert-manager", "version": "v1.12.0"}]`,
      at,
    );
  input.forEach((entry, index) => {
    const { name, version } = (object(entry) ?? {}) as { name?: unknown; version?: unknown };
    if (typeof name !== "string")
      throw new InputError(
        `${at}[${index}].name must be an add-on name such as cert-manager`,
        `${at}[${index}].name`,
      );
    const addon = findAddon(snapshot, name);
    if (addon === undefined)
      throw new InputError(
        `${at}[${index}].name: unknown add-on "${name.slice(0, 60)}"; known add-ons: ${snapshot.addons.map((known) => known.name).join(", ")}`,
        `${at}[${index}].name`,
      );
    versions.set(addon.name, parseComponentVersion(version, `${at}[${index}].version`));
  });
  return versions;
}

export interface CustomResourceVerdict {
  readonly code:
    | "ADDON_API_REMOVED"
    | "ADDON_API_DEPRECATED"
    | "ADDON_API_GONE_IN_RELEASE"
    | "CRD_VERSION_NOT_SERVED"
    | "CRD_VERSION_DEPRECATED";
  readonly severity: "ERROR" | "WARNING";
  readonly ruleId: string;
  readonly changesIn: string | null;
  readonly replacement: string | null;
  readonly message: string;
  readonly sourceUrl: string | null;
}

function release(text: string): ComponentVersion {
  const bare = text.replace(/^v/, "");
  return parseComponentVersion(bare.split(".").length === 1 ? `${bare}.0` : bare, "release");
}

/** An object of an add-on's API version, against the add-on's version when it is known. */
export function judgeAddonApi(
  snapshot: KbSnapshot,
  record: AddonApiRecord,
  addonVersion: ComponentVersion | undefined,
  what: string,
): CustomResourceVerdict | null {
  const addon = snapshot.addons.find((candidate) => candidate.name === record.addon);
  const name = addon?.displayName ?? record.addon;
  const key = `${record.apiVersion} ${record.kinds.join(",")}`;
  const instead = record.replacement === null ? "" : `; move to ${record.replacement}`;
  const base = { ruleId: key, replacement: record.replacement, sourceUrl: record.sourceUrl };
  if (addonVersion !== undefined) {
    if (
      record.removedIn !== null &&
      compareComponentVersions(addonVersion, release(record.removedIn)) >= 0
    ) {
      return {
        ...base,
        code: "ADDON_API_REMOVED",
        severity: "ERROR",
        changesIn: `${name} ${record.removedIn}`,
        message:
          `${what} uses ${record.apiVersion}, which ${name} ${addonVersion.raw} no longer serves (since ${record.removedIn})${instead}. ${record.notes ?? ""}`.trim(),
      };
    }
    if (
      record.deprecatedIn !== null &&
      compareComponentVersions(addonVersion, release(record.deprecatedIn)) >= 0
    ) {
      return {
        ...base,
        code: "ADDON_API_DEPRECATED",
        severity: "WARNING",
        changesIn: record.removedIn === null ? null : `${name} ${record.removedIn}`,
        message: `${what} uses ${record.apiVersion}, deprecated in ${name} ${record.deprecatedIn}${record.removedIn === null ? "" : ` and no longer served from ${record.removedIn}`}${instead}`,
      };
    }
    return null;
  }
  if (record.removedIn !== null) {
    return {
      ...base,
      code: "ADDON_API_GONE_IN_RELEASE",
      severity: "WARNING",
      changesIn: `${name} ${record.removedIn}`,
      message:
        `${what} uses ${record.apiVersion}, which ${name} stopped serving in ${record.removedIn}: it cannot be applied with ${name} ${record.removedIn} or later${instead} (name the add-on's version to have it judged). ${record.notes ?? ""}`.trim(),
    };
  }
  if (record.deprecatedIn !== null) {
    return {
      ...base,
      code: "ADDON_API_DEPRECATED",
      severity: "WARNING",
      changesIn: null,
      message: `${what} uses ${record.apiVersion}, deprecated in ${name} ${record.deprecatedIn}${instead}`,
    };
  }
  return null;
}

/** An object against the CRD of its group and kind. */
export function judgeByCrd(
  crd: CrdFacts,
  version: string,
  what: string,
): CustomResourceVerdict | null {
  const served = crd.versions.find((candidate) => candidate.name === version);
  const base = { ruleId: crd.name, changesIn: null, sourceUrl: null };
  const servedNames = crd.versions
    .filter((candidate) => candidate.served)
    .map((candidate) => candidate.name);
  // The version to move to: the most stable one served and not deprecated, as Kubernetes orders versions (v1 > v1beta2 > v1alpha1).
  const preferred = crd.versions
    .filter((candidate) => candidate.served && !candidate.deprecated)
    .sort((a, b) => versionPriority(b.name) - versionPriority(a.name))[0];
  const replacement = preferred === undefined ? null : `${crd.group}/${preferred.name}`;
  if (served === undefined || !served.served) {
    return {
      ...base,
      replacement,
      code: "CRD_VERSION_NOT_SERVED",
      severity: "ERROR",
      message: `${what} uses ${crd.group}/${version}, which its CustomResourceDefinition ${crd.name} ${served === undefined ? "does not define" : "defines with served: false"}; the API server refuses it${servedNames.length === 0 ? "" : ` (served: ${servedNames.join(", ")})`}`,
    };
  }
  if (served.deprecated) {
    return {
      ...base,
      replacement,
      code: "CRD_VERSION_DEPRECATED",
      severity: "WARNING",
      message: `${what} uses ${crd.group}/${version}, which the CustomResourceDefinition ${crd.name} marks deprecated${served.deprecationWarning === null ? "" : `: "${served.deprecationWarning}"`}`,
    };
  }
  return null;
}

/** Kubernetes' order of API versions: GA above beta above alpha, then by number (unknown forms last). */
function versionPriority(name: string): number {
  const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(name);
  if (match === null) return -1;
  const stage = match[2] === undefined ? 2 : match[2] === "beta" ? 1 : 0;
  return stage * 1_000_000 + Number(match[1]) * 1000 + Number(match[3] ?? 0);
}

/** Versions still stored in the cluster that a CRD update no longer lists. */
export function droppedStoredVersions(update: CrdFacts, cluster: CrdFacts): string[] {
  return cluster.storedVersions.filter(
    (stored) => !update.versions.some((version) => version.name === stored),
  );
}

/** The add-on API records by apiVersion and kind. */
export function addonApiIndex(snapshot: KbSnapshot): ReadonlyMap<string, AddonApiRecord> {
  const index = new Map<string, AddonApiRecord>();
  for (const record of snapshot.addonApis)
    for (const kind of record.kinds) index.set(`${record.apiVersion} ${kind}`, record);
  return index;
}
