/**
 * Read queries over the knowledge-base snapshot: what the read APIs (REST,
 * GraphQL, chat) serve. Filters are validated here, once, so every face
 * answers bad filters with the same InputError.
 */
import { InputError, NotFoundError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import type {
  ApiRemovalRecord,
  ComponentRecord,
  FlagChangeRecord,
  PortRecord,
  ReleaseRecord,
  SkewRuleRecord,
  KbConflictRecord,
  CoverageRecord,
} from "../knowledge/records.js";
import { compareMinors } from "../core/versions.js";
import { readMinor } from "./version-reader.js";

export const DEFAULT_PROFILE = "upstream";

const PLANES = ["CONTROL", "DATA", "CLIENT"] as const;

export function listComponents(
  snapshot: KbSnapshot,
  filter: { plane?: string | undefined } = {},
): readonly ComponentRecord[] {
  if (filter.plane === undefined) return snapshot.components;
  const plane = filter.plane.trim().toUpperCase();
  if (!(PLANES as readonly string[]).includes(plane)) {
    throw new InputError(`plane "${filter.plane}" is not one of ${PLANES.join(", ")}`, "plane");
  }
  return snapshot.components.filter((component) => component.plane === plane);
}

/** Resolves a canonical name or alias; an unknown name is an InputError that lists the valid ones. */
export function resolveComponent(
  snapshot: KbSnapshot,
  nameOrAlias: string,
  field = "component",
): ComponentRecord {
  const component = snapshot.findComponent(nameOrAlias);
  if (component === undefined) {
    throw new InputError(
      `unknown component "${truncate(nameOrAlias)}"; valid names are ${snapshot.components.map((known) => known.name).join(", ")} (aliases such as apiserver work too)`,
      field,
    );
  }
  return component;
}

export function getComponent(snapshot: KbSnapshot, nameOrAlias: string): ComponentRecord {
  const component = snapshot.findComponent(nameOrAlias);
  if (component === undefined) {
    throw new NotFoundError(
      `no component is called "${truncate(nameOrAlias)}"; known components: ${snapshot.components.map((known) => known.name).join(", ")}`,
    );
  }
  return component;
}

export function listPorts(
  snapshot: KbSnapshot,
  filter: { component?: string | undefined } = {},
): readonly PortRecord[] {
  if (filter.component === undefined) return snapshot.ports;
  const component = resolveComponent(snapshot, filter.component);
  return snapshot.ports.filter((port) => port.component === component.name);
}

export function resolveProfile(
  snapshot: KbSnapshot,
  name: string | undefined,
  field = "profile",
): string {
  const profile = snapshot.findProfile(name ?? DEFAULT_PROFILE);
  if (profile === undefined) {
    throw new InputError(
      `unknown profile "${truncate(name ?? "")}"; known profiles: ${snapshot.profiles.map((known) => known.name).join(", ")}`,
      field,
    );
  }
  return profile.name;
}

/** Whether a rule is the policy for a control plane at `minor`. */
export function ruleAppliesAt(
  rule: Pick<SkewRuleRecord, "appliesFrom" | "appliesUntil">,
  minor: string,
): boolean {
  return (
    (rule.appliesFrom === null || compareMinors(rule.appliesFrom, minor) <= 0) &&
    (rule.appliesUntil === null || compareMinors(minor, rule.appliesUntil) <= 0)
  );
}

/**
 * The skew rules of a profile (and the profiles it extends). With a
 * Kubernetes version, only the rules that are the policy at that minor;
 * without one, the whole history.
 */
export function listSkewRules(
  snapshot: KbSnapshot,
  filter: { kubernetesVersion?: string | undefined; profile?: string | undefined } = {},
): readonly SkewRuleRecord[] {
  const profile = resolveProfile(snapshot, filter.profile);
  const profiles = new Set(snapshot.profileChain(profile).map((entry) => entry.name));
  const minor =
    filter.kubernetesVersion === undefined
      ? undefined
      : readMinor(snapshot, filter.kubernetesVersion, "kubernetesVersion");
  return snapshot.skewRules.filter(
    (rule) => profiles.has(rule.profile) && (minor === undefined || ruleAppliesAt(rule, minor)),
  );
}

export function listFlagChanges(
  snapshot: KbSnapshot,
  filter: { component?: string | undefined } = {},
): readonly FlagChangeRecord[] {
  if (filter.component === undefined) return snapshot.flagChanges;
  const component = resolveComponent(snapshot, filter.component);
  return snapshot.flagChanges.filter((change) => change.component === component.name);
}

/** API removals with from < removedIn <= to (either bound optional). */
export function listApiRemovals(
  snapshot: KbSnapshot,
  range: { from?: string | undefined; to?: string | undefined } = {},
): readonly ApiRemovalRecord[] {
  const from = range.from === undefined ? undefined : readMinor(snapshot, range.from, "from");
  const to = range.to === undefined ? undefined : readMinor(snapshot, range.to, "to");
  if (from !== undefined && to !== undefined && compareMinors(from, to) > 0) {
    throw new InputError(
      `from (${from}) is newer than to (${to}); give the older version as from`,
      "from",
    );
  }
  return snapshot.apiRemovals.filter(
    (removal) =>
      (from === undefined || compareMinors(from, removal.removedIn) < 0) &&
      (to === undefined || compareMinors(removal.removedIn, to) <= 0),
  );
}

/** The release of a version as people name it (1.30, v1.30.4, 1.30.x, latest, oldest-supported on `asOf`). */
export function getRelease(
  snapshot: KbSnapshot,
  version: unknown,
  asOf?: string,
  field = "version",
): ReleaseRecord {
  const minor = readMinor(snapshot, version, field, asOf);
  const release = snapshot.findRelease(minor);
  if (release === undefined) {
    const known = snapshot.releases;
    const range =
      known.length > 0
        ? `; it knows ${known[0]?.version} to ${known[known.length - 1]?.version}`
        : "";
    throw new NotFoundError(`the knowledge base has no release ${minor}${range}`);
  }
  return release;
}

export interface KbSummary {
  readonly revision: number;
  readonly lastImportAt: string | null;
  readonly loadedAt: string;
  readonly newestRelease: string | null;
  readonly counts: Readonly<Record<string, number>>;
  /** Open conflicts between kb/ and run-time edits, each with both values. */
  readonly conflicts: readonly KbConflictRecord[];
  /** Where each kind of knowledge ends, per source (kb/coverage.yaml). */
  readonly coverage: readonly CoverageRecord[];
}

export function summarise(snapshot: KbSnapshot): KbSummary {
  return {
    revision: snapshot.revision,
    lastImportAt: snapshot.lastImportAt,
    loadedAt: snapshot.loadedAt,
    newestRelease: snapshot.newestRelease?.version ?? null,
    counts: snapshot.counts(),
    conflicts: snapshot.conflicts,
    coverage: snapshot.coverage,
  };
}

function truncate(text: string): string {
  const clean = JSON.stringify(text).slice(1, -1);
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}
