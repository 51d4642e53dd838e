/**
 * Findings of API removals: an object whose apiVersion the target no longer serves, deprecates or will stop
 * serving, with the API to migrate to, followed along the replacement chain to one the target serves (and,
 * when that is served only after the target, the interim version both sides serve).
 */
import type { ApiRemovalRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { perList } from "../knowledge/lists.js";
import { compareMinors } from "../core/versions.js";
import {
  describeObject,
  placeOf,
  type ManifestFinding,
  type ManifestObject,
  type RemovalPhase,
} from "./scan-findings.js";

/** Built once per list; lists are immutable, so the index never goes stale. */
const removalIndexes = new WeakMap<
  readonly ApiRemovalRecord[],
  ReadonlyMap<string, ApiRemovalRecord>
>();

const knownApiVersionSets = new WeakMap<
  KbSnapshot["apiGroupVersions"],
  WeakMap<KbSnapshot["apiRemovals"], ReadonlySet<string>>
>();

/** The apiVersions the knowledge base can judge: those the API server serves or served, and those with removal records. */
export function knownApiVersions(snapshot: KbSnapshot): ReadonlySet<string> {
  const { apiGroupVersions, apiRemovals } = snapshot;
  const byRemovals = perList(
    knownApiVersionSets,
    apiGroupVersions,
    () => new WeakMap<KbSnapshot["apiRemovals"], ReadonlySet<string>>(),
  );
  return perList(
    byRemovals,
    apiRemovals,
    () =>
      new Set([
        ...apiGroupVersions.map((entry) => entry.apiVersion),
        ...apiRemovals.map((record) => record.apiVersion),
      ]),
  );
}

export function removalIndex(snapshot: KbSnapshot): ReadonlyMap<string, ApiRemovalRecord> {
  return perList(
    removalIndexes,
    snapshot.apiRemovals,
    (list) => new Map(list.map((record) => [removalKey(record.apiVersion, record.kind), record])),
  );
}

/** The knowledge base's natural key of an API removal (see ENTITIES in records.ts). */
export function removalKey(apiVersion: string, kind: string): string {
  return `${apiVersion} ${kind}`;
}

export function findingFor(
  record: ApiRemovalRecord,
  target: string,
  from: string | null,
  object: ManifestObject,
  removals: ReadonlyMap<string, ApiRemovalRecord>,
): ManifestFinding {
  const removed = compareMinors(record.removedIn, target) <= 0;
  const alreadyRemoved = removed && from !== null && compareMinors(record.removedIn, from) <= 0;
  const deprecated =
    !removed && record.deprecatedIn !== null && compareMinors(record.deprecatedIn, target) <= 0;
  const code = removed ? "API_REMOVED" : deprecated ? "API_DEPRECATED" : "API_REMOVAL_SCHEDULED";
  const severity = removed ? "ERROR" : deprecated ? "WARNING" : "INFO";

  const phase: RemovalPhase = alreadyRemoved
    ? "ALREADY_REMOVED"
    : removed
      ? from === null
        ? "REMOVED"
        : "REMOVED_IN_UPGRADE"
      : code === "API_DEPRECATED"
        ? "DEPRECATED"
        : "SCHEDULED";
  const status = alreadyRemoved
    ? `which is not served at ${from} already (removed in ${record.removedIn}): this manifest cannot be applied to the cluster as it is today either`
    : removed
      ? `which is no longer served from Kubernetes ${record.removedIn}${from === null ? "" : `: it breaks on the way from ${from} to ${target}`}`
      : deprecated
        ? `which is deprecated since Kubernetes ${record.deprecatedIn} and no longer served from ${record.removedIn}`
        : `which will no longer be served from Kubernetes ${record.removedIn}`;
  const advice = resolvedAtTarget(record, target, removals);
  const message = `${describeObject(object)} uses ${object.apiVersion}, ${status}${migrationAdvice(record, target, from, removed, advice)}`;
  const interim = advice.interim?.record ?? null;

  return {
    code,
    phase,
    severity,
    ...placeOf(object),
    removedIn: record.removedIn,
    deprecatedIn: record.deprecatedIn,
    // The API to migrate to that the target serves: the end of the replacement chain, as the message says.
    // (or, when that is first served after the target, the interim version both sides serve).
    replacement: interim === null ? advice.advised.replacement : interim.apiVersion,
    replacementAvailableIn:
      interim === null ? advice.advised.replacementAvailableIn : interim.introducedIn,
    message,
    sourceUrl: record.sourceUrl,
  };
}

/**
 * A listed replacement may itself be gone by the target (extensions/v1beta1 → policy/v1beta1 PodSecurityPolicy,
 * flowcontrol v1beta1 → v1beta2): the record where the chain ends is the one to advise, for the message and the
 * structured `replacement` alike, rather than an API the target does not serve.
 */
interface MigrationAdvice {
  /** The record where the replacement chain ends at the target. */
  readonly advised: ApiRemovalRecord;
  /** The message's account of the replacements passed over on the way. */
  readonly detour: string;
  /** A version to move to meanwhile when the advised replacement is first served after the target, or deprecated at it. */
  readonly interim: Interim | null;
}

function resolvedAtTarget(
  record: ApiRemovalRecord,
  target: string,
  removals: ReadonlyMap<string, ApiRemovalRecord>,
): MigrationAdvice {
  let advised = record;
  let detour = "";
  const visited = new Set([record]);
  for (;;) {
    const next =
      advised.replacement === null
        ? undefined
        : removals.get(removalKey(advised.replacement, advised.kind));
    if (next === undefined || visited.has(next) || compareMinors(next.removedIn, target) > 0) break;
    detour += `; its replacement ${advised.replacement} is no longer served from ${next.removedIn} either`;
    visited.add(next);
    advised = next;
  }
  return { advised, detour, interim: interimAtTarget(advised, target, removals) };
}

/**
 * When the API to migrate to is first served after the target (flowcontrol v1beta2 → v1, served from 1.29), or is
 * itself deprecated at the target (flowcontrol v1beta1 → v1beta2 at 1.28), the version to move to meanwhile is the
 * longest-lived version of the same group and kind that the target serves by default and that outlives it
 * (v1beta3, introduced in 1.26, removed in 1.32), found from the records' own introducedIn and removedIn.
 */
function interimAtTarget(
  advised: ApiRemovalRecord,
  target: string,
  removals: ReadonlyMap<string, ApiRemovalRecord>,
): Interim | null {
  if (advised.replacement === null) return null;
  const availableIn = advised.replacementAvailableIn;
  const notServedYet = availableIn !== null && compareMinors(availableIn, target) > 0;
  const replacement = removals.get(removalKey(advised.replacement, advised.kind));
  const deprecated =
    !notServedYet &&
    replacement?.deprecatedIn != null &&
    compareMinors(replacement.deprecatedIn, target) <= 0
      ? replacement
      : undefined;
  if (!notServedYet && deprecated === undefined) return null;
  // What the interim must outlive: the replacement it stands in for, else the advised version itself.
  const outlive = deprecated?.removedIn ?? advised.removedIn;
  let best: ApiRemovalRecord | null = null;
  for (const candidate of removals.values()) {
    if (
      candidate === advised ||
      candidate === deprecated ||
      candidate.group !== advised.group ||
      candidate.kind !== advised.kind
    )
      continue;
    if (
      candidate.introducedIn === null ||
      compareMinors(candidate.introducedIn, target) > 0 ||
      candidate.servedByDefault === false
    )
      continue;
    if (
      compareMinors(candidate.removedIn, target) <= 0 ||
      compareMinors(candidate.removedIn, outlive) <= 0
    )
      continue;
    if (best === null || compareMinors(candidate.removedIn, best.removedIn) > 0) best = candidate;
  }
  return best === null
    ? null
    : {
        record: best,
        because: deprecated === undefined ? { notServedUntil: availableIn! } : { deprecated },
      };
}

interface Interim {
  readonly record: ApiRemovalRecord;
  /** Why the listed replacement is not the one to move to at the target. */
  readonly because: { readonly notServedUntil: string } | { readonly deprecated: ApiRemovalRecord };
}

/** The rest of the message, from the separator after the status to the final period. */
function migrationAdvice(
  record: ApiRemovalRecord,
  target: string,
  from: string | null,
  removed: boolean,
  { advised, detour, interim }: MigrationAdvice,
): string {
  const deadline = removed ? "" : ` before upgrading to ${record.removedIn}`;
  if (interim !== null) {
    const { record: meanwhile, because } = interim;
    const why =
      "notServedUntil" in because
        ? `is first served in ${because.notServedUntil}, after ${target}`
        : `is deprecated since ${because.deprecated.deprecatedIn} and no longer served from ${because.deprecated.removedIn}`;
    const then =
      meanwhile.replacement === null
        ? ""
        : `, and to ${meanwhile.replacement} before upgrading to ${meanwhile.removedIn}`;
    return `${detour}; its replacement ${advised.replacement} ${why}, so migrate to ${meanwhile.apiVersion} meanwhile (served from ${meanwhile.introducedIn} until ${meanwhile.removedIn})${deadline}${then}.`;
  }

  const notes = advised.notes === null ? `See ${advised.sourceUrl}` : `Notes: ${advised.notes}`;
  if (advised.replacement === null) {
    const plan = removed ? "" : `; plan for that${deadline}`;
    return `${detour}. There is no replacement API${plan}. ${withPeriod(notes)}`;
  }
  const availableIn = advised.replacementAvailableIn;
  if (availableIn !== null && compareMinors(availableIn, target) > 0) {
    if (compareMinors(availableIn, advised.removedIn) >= 0) {
      // No release serves both versions, so there is no moment to switch safely; the notes say how to cross.
      return `${detour}; its replacement ${advised.replacement} is first served in ${availableIn}, so no release serves both. ${withPeriod(notes)}`;
    }
    const andDeadline = removed ? "" : `, and before upgrading to ${record.removedIn}`;
    return `${detour}; migrate to ${advised.replacement} once the cluster runs ${availableIn} (it is not served in ${target})${andDeadline}.`;
  }
  if (from !== null && availableIn !== null && compareMinors(availableIn, from) > 0) {
    // The cluster as it runs today does not serve the replacement yet: say from which minor on it does.
    const bothServe = compareMinors(availableIn, advised.removedIn) < 0;
    return bothServe
      ? `${detour}; its replacement ${advised.replacement} is not served at ${from}: migrate to it once the cluster runs ${availableIn}, before it reaches ${advised.removedIn}.`
      : `${detour}; its replacement ${advised.replacement} is first served in ${availableIn}, not at ${from}, and no release serves both. ${withPeriod(advised.notes === null ? `See ${advised.sourceUrl}` : `Notes: ${advised.notes}`)}`;
  }
  const since = availableIn === null ? "" : ` (available since ${availableIn})`;
  return `${detour}; migrate to ${advised.replacement}${since}${deadline}.`;
}

function withPeriod(sentence: string): string {
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
