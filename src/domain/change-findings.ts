/**
 * Findings of changes other than API removals: a field or annotation a behaviour change touches
 * (kb/field-rules.yaml), a configuration file of a version its component no longer reads
 * (kb/configuration-apis.yaml), and custom resources judged by their add-on's API lifecycle or by their CRD.
 */
import type { ConfigurationApiRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { compareMinors, type ComponentVersion } from "../core/versions.js";
import { severityAt, type FieldRuleHit } from "./field-rules.js";
import {
  addonApiIndex,
  droppedStoredVersions,
  judgeAddonApi,
  judgeByCrd,
  type CrdFacts,
  type CustomResourceVerdict,
} from "./custom-resources.js";
import {
  describeObject,
  placeOf,
  type ChangeFinding,
  type ManifestObject,
} from "./scan-findings.js";
import { removalKey } from "./api-removal-findings.js";

const configurationIndexes = new WeakMap<
  readonly ConfigurationApiRecord[],
  ReadonlyMap<string, ConfigurationApiRecord>
>();

export function configurationIndex(
  snapshot: KbSnapshot,
): ReadonlyMap<string, ConfigurationApiRecord> {
  return perList(
    configurationIndexes,
    snapshot.configurationApis,
    (list) => new Map(list.map((record) => [removalKey(record.apiVersion, record.kind), record])),
  );
}

export function fieldFinding(
  snapshot: KbSnapshot,
  hit: FieldRuleHit,
  target: string,
  object: ManifestObject,
): ChangeFinding {
  const { rule } = hit;
  const { severity, from, scheduled } = severityAt(rule, target);
  const change = snapshot.behaviourChanges.find(
    (candidate) => candidate.id === rule.behaviourChange,
  );
  const what =
    hit.matched === null
      ? `sets ${hit.at}`
      : hit.at.endsWith(`["${hit.matched}"]`)
        ? `has ${hit.at}`
        : `has ${hit.at}: ${hit.matched}`;
  const when = scheduled
    ? `from Kubernetes ${from} (after the target ${target})`
    : `at Kubernetes ${target} (from ${from})`;
  return {
    code: scheduled ? "FIELD_CHANGE_SCHEDULED" : "FIELD_CHANGED",
    severity,
    ...placeOf(object),
    field: hit.at,
    behaviourChange: rule.behaviourChange,
    ruleId: rule.id,
    changesIn: from,
    replacement: null,
    message: `${describeObject(object)} ${what}, which ${change === undefined ? "a behaviour change" : `"${change.title}"`} touches ${when}: ${rule.advice}`,
    sourceUrl: rule.sourceUrl,
  };
}

function customFinding(
  verdict: Omit<CustomResourceVerdict, "code"> & { readonly code: ChangeFinding["code"] },
  object: ManifestObject,
  snapshot: KbSnapshot,
): ChangeFinding {
  return {
    code: verdict.code,
    severity: verdict.severity,
    ...placeOf(object),
    field: null,
    behaviourChange: null,
    ruleId: verdict.ruleId,
    changesIn: verdict.changesIn,
    replacement: verdict.replacement,
    message: verdict.message,
    sourceUrl: verdict.sourceUrl ?? snapshot.reference("crd-versioning") ?? "",
  };
}

/** A configuration file (not an API object) of a version the target's component reads, deprecates or no longer reads. */
export function configurationFinding(
  record: ConfigurationApiRecord,
  target: string,
  object: ManifestObject,
): ChangeFinding | null {
  const base = {
    ...placeOf(object),
    field: null,
    behaviourChange: null,
    ruleId: `${record.kind} ${record.apiVersion}`,
    replacement: record.replacement,
    sourceUrl: record.sourceUrl,
  };
  const file = `the ${record.kind} file (${record.usedWith})`;
  const moveTo = record.replacement === null ? "" : `; move it to ${record.replacement}`;
  if (record.removedIn !== null && compareMinors(record.removedIn, target) <= 0) {
    return {
      ...base,
      code: "CONFIG_API_REMOVED",
      severity: "ERROR",
      changesIn: record.removedIn,
      message: `${file} uses ${record.apiVersion}, which ${record.component} no longer reads from Kubernetes ${record.removedIn}: at ${target} it refuses to start with it${moveTo}.`,
    };
  }
  if (record.introducedIn !== null && compareMinors(record.introducedIn, target) > 0) {
    return {
      ...base,
      code: "CONFIG_API_NOT_AVAILABLE",
      severity: "ERROR",
      changesIn: record.introducedIn,
      replacement: null,
      message: `${file} uses ${record.apiVersion}, which ${record.component} reads only from Kubernetes ${record.introducedIn}: at ${target} it refuses to start with it.`,
    };
  }
  if (record.deprecatedIn !== null && compareMinors(record.deprecatedIn, target) <= 0) {
    const removal = record.removedIn === null ? "" : ` and no longer read from ${record.removedIn}`;
    return {
      ...base,
      code: "CONFIG_API_DEPRECATED",
      severity: "WARNING",
      changesIn: record.deprecatedIn,
      message: `${file} uses ${record.apiVersion}, deprecated since Kubernetes ${record.deprecatedIn}${removal}${moveTo}.`,
    };
  }
  if (record.removedIn !== null) {
    return {
      ...base,
      code: "CONFIG_API_REMOVAL_SCHEDULED",
      severity: "INFO",
      changesIn: record.removedIn,
      message: `${file} uses ${record.apiVersion}, which ${record.component} no longer reads from Kubernetes ${record.removedIn}${moveTo}.`,
    };
  }
  return null;
}

/** Custom resources' group/versions that nothing judged: how many objects, of which kinds. */
export type NotJudged = Map<string, { objects: number; kinds: Set<string> }>;

/**
 * Custom resources: by the add-on's API lifecycle, else by their CRD (the input's own, else the cluster's), else
 * not judged (returned, for the report's API_NOT_JUDGED notes).
 */
export function judgeCustomResources(
  snapshot: KbSnapshot,
  seen: {
    readonly custom: readonly ManifestObject[];
    readonly inputCrds: ReadonlyArray<{ crd: CrdFacts; object: ManifestObject }>;
    readonly changeFindings: ChangeFinding[];
  },
  addonVersions: ReadonlyMap<string, ComponentVersion>,
  clusterCrds: readonly CrdFacts[],
): NotJudged {
  const { custom, inputCrds, changeFindings } = seen;
  const addonApis = addonApiIndex(snapshot);
  const notJudged: NotJudged = new Map();
  const crdOf = new Map<string, CrdFacts>();
  for (const crd of clusterCrds) crdOf.set(`${crd.group} ${crd.kind}`, crd);
  for (const { crd } of inputCrds) crdOf.set(`${crd.group} ${crd.kind}`, crd);
  for (const object of custom) {
    const what = describeObject(object);
    const addonApi = addonApis.get(removalKey(object.apiVersion, object.kind));
    const slash = object.apiVersion.lastIndexOf("/");
    const crd =
      slash < 0 ? undefined : crdOf.get(`${object.apiVersion.slice(0, slash)} ${object.kind}`);
    if (addonApi === undefined && crd === undefined) {
      const seen = notJudged.get(object.apiVersion) ?? { objects: 0, kinds: new Set<string>() };
      seen.objects += 1;
      seen.kinds.add(object.kind);
      notJudged.set(object.apiVersion, seen);
      continue;
    }
    const verdicts = [
      addonApi === undefined
        ? null
        : judgeAddonApi(snapshot, addonApi, addonVersions.get(addonApi.addon), what),
      crd === undefined ? null : judgeByCrd(crd, object.apiVersion.slice(slash + 1), what),
    ];
    for (const verdict of verdicts)
      if (verdict !== null) changeFindings.push(customFinding(verdict, object, snapshot));
  }
  return notJudged;
}

/** CRDs in the input that drop a version the cluster still has objects stored in. */
export function judgeStoredVersions(
  snapshot: KbSnapshot,
  seen: {
    readonly inputCrds: ReadonlyArray<{ crd: CrdFacts; object: ManifestObject }>;
    readonly changeFindings: ChangeFinding[];
  },
  clusterCrds: readonly CrdFacts[],
): void {
  const { inputCrds, changeFindings } = seen;
  for (const { crd, object } of inputCrds) {
    const cluster = clusterCrds.find((candidate) => candidate.name === crd.name);
    const dropped = cluster === undefined ? [] : droppedStoredVersions(crd, cluster);
    if (dropped.length === 0) continue;
    changeFindings.push(
      customFinding(
        {
          code: "CRD_STORED_VERSION_DROPPED",
          severity: "ERROR",
          ruleId: crd.name,
          changesIn: null,
          replacement: null,
          message: `the CustomResourceDefinition ${crd.name} drops ${dropped.join(", ")}, which the cluster still lists in status.storedVersions: the API server refuses the update (or objects stored in it become unreadable). Run a storage version migration first (rewrite every object in a served version, then remove ${dropped.join(", ")} from status.storedVersions)`,
          sourceUrl: snapshot.reference("crd-versioning"),
        },
        object,
        snapshot,
      ),
    );
  }
}
