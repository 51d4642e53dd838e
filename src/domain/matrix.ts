/**
 * The compatibility matrix: Kubernetes minors (columns) against the
 * components and add-ons that must fit them (rows), on one day. A column says
 * where the minor is in its life (supported, maintenance, end of life, not
 * yet released); a cell says what runs with a control plane of that minor:
 * the minors a component may be at (the skew policy of the chosen profile),
 * the runtime versions required, the add-on releases whose own table lists
 * the minor. What the knowledge does not say is UNKNOWN, never left blank
 * as if it were fine. Pure: reads only the snapshot.
 */
import type { AddonRecord, RuntimeRequirementRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { compareMinors } from "../core/versions.js";
import { InputError } from "../core/errors.js";
import { addonFits, candidateVersions } from "./addons.js";
import { resolveProfile } from "./catalog.js";
import { releaseStatusOf, type ReleaseStatus } from "./release-status.js";
import { rulesInForce } from "./skew-checks.js";

export type CellState = "SUPPORTED" | "NONE" | "UNKNOWN";

export interface MatrixColumn {
  readonly minor: string;
  readonly status: ReleaseStatus;
  readonly releaseDate: string;
  readonly endOfLife: string | null;
}

export interface MatrixCell {
  readonly minor: string;
  /** SUPPORTED: something fits (the text says what); NONE: the knowledge says nothing fits; UNKNOWN: it does not say. */
  readonly state: CellState;
  readonly text: string;
}

export interface MatrixRow {
  readonly subject: string;
  readonly kind: "COMPONENT" | "RUNTIME" | "ADD_ON";
  readonly cells: readonly MatrixCell[];
  readonly sourceUrl: string | null;
}

export interface CompatibilityMatrix {
  readonly asOf: string;
  readonly profile: string;
  readonly columns: readonly MatrixColumn[];
  readonly rows: readonly MatrixRow[];
  readonly kbRevision: number;
}

export interface MatrixOptions {
  readonly asOf: string;
  readonly profile?: string | undefined;
  /** How many minors, ending with the newest the knowledge base knows (default 8, at most 40). */
  readonly minors?: number | undefined;
}

const minorNumber = (minor: string): number => Number(minor.split(".")[1]);
const minorAt = (minor: string, offset: number): string =>
  `${minor.split(".")[0]}.${minorNumber(minor) + offset}`;

function skewRows(
  snapshot: KbSnapshot,
  profile: string,
  columns: readonly MatrixColumn[],
): MatrixRow[] {
  const components = [
    ...new Set(
      snapshot.skewRules
        .filter((rule) => rule.relativeTo === "kube-apiserver")
        .map((rule) => rule.component),
    ),
  ];
  return components.map((component) => {
    let sourceUrl: string | null = null;
    const cells = columns.map(({ minor }): MatrixCell => {
      const rules = rulesInForce(snapshot, profile, minor).filter(
        (rule) => rule.component === component && rule.relativeTo === "kube-apiserver",
      );
      if (rules.length === 0) return { minor, state: "UNKNOWN", text: "no rule" };
      // Several rules (a profile over the one it extends): the tightest bounds bind.
      const older = Math.min(...rules.map((rule) => rule.maxOlder));
      const newer = Math.min(...rules.map((rule) => rule.maxNewer));
      sourceUrl ??= rules[0]!.sourceUrl;
      const oldest = minorAt(minor, -older);
      const newest = minorAt(minor, newer);
      return {
        minor,
        state: "SUPPORTED",
        text: oldest === newest ? oldest : `${oldest}–${newest}`,
      };
    });
    return { subject: component, kind: "COMPONENT", cells, sourceUrl };
  });
}

function runtimeText(minor: string, requirements: readonly RuntimeRequirementRecord[]): MatrixCell {
  const latest = (kind: RuntimeRequirementRecord["kind"]) =>
    requirements.filter((entry) => entry.kind === kind).at(-1);
  const parts: string[] = [];
  // UNSUPPORTED names the versions below minVersion (kb/runtime-requirements.yaml); without one, every version.
  const unsupported = latest("UNSUPPORTED");
  if (unsupported !== undefined && unsupported.minVersion === null)
    return { minor, state: "NONE", text: "unsupported" };
  if (unsupported?.minVersion) parts.push(`≥ ${unsupported.minVersion}`);
  const match = latest("MATCH_KUBERNETES_MINOR");
  if (match !== undefined) parts.push(`${minor}.x`);
  const minimum = latest("MIN_VERSION");
  if (minimum?.minVersion) parts.push(`≥ ${minimum.minVersion}`);
  const recommended = latest("RECOMMENDED_MIN_VERSION");
  if (recommended?.minVersion) parts.push(`rec. ≥ ${recommended.minVersion}`);
  const shim = latest("REQUIRES_SHIM");
  if (shim !== undefined) parts.push(`needs ${shim.requires ?? "a shim"}`);
  return parts.length === 0
    ? { minor, state: "UNKNOWN", text: "no requirement known" }
    : { minor, state: "SUPPORTED", text: parts.join(", ") };
}

function runtimeRows(snapshot: KbSnapshot, columns: readonly MatrixColumn[]): MatrixRow[] {
  const components = [...new Set(snapshot.runtimeRequirements.map((entry) => entry.component))];
  return components.map((component) => {
    const all = snapshot.runtimeRequirements.filter((entry) => entry.component === component);
    const cells = columns.map(({ minor }) => {
      const cell = runtimeText(
        minor,
        all
          .filter((entry) => compareMinors(entry.kubernetesFrom, minor) <= 0)
          .sort((a, b) => compareMinors(a.kubernetesFrom, b.kubernetesFrom)),
      );
      // etcd: also the version kubeadm deploys with the minor (kb/releases.yaml), where it is known.
      const kubeadm = component === "etcd" ? snapshot.findRelease(minor)?.etcdVersion : null;
      return kubeadm == null
        ? cell
        : { ...cell, text: `${cell.text}, kubeadm ${kubeadm.replace(/-\d+$/, "")}` };
    });
    return { subject: component, kind: "RUNTIME", cells, sourceUrl: all[0]?.sourceUrl ?? null };
  });
}

function addonRow(
  addon: AddonRecord,
  columns: readonly MatrixColumn[],
  newestMinor: number,
): MatrixRow {
  const versions = addon.rule === "POLICY" ? [] : candidateVersions(addon);
  const tabled = addon.lines
    .flatMap((line) =>
      line.minimumKubernetes === null ? line.kubernetes : [line.minimumKubernetes],
    )
    .map(minorNumber);
  const newestTabled = tabled.length === 0 ? -1 : Math.max(...tabled);
  const openEnded = addon.lines.some((line) => line.minimumKubernetes !== null);
  const cells = columns.map(({ minor }): MatrixCell => {
    if (addon.rule === "POLICY") return { minor, state: "UNKNOWN", text: "policy only" };
    const number = minorNumber(minor);
    if (!openEnded && number > newestTabled)
      return { minor, state: "UNKNOWN", text: "not in its table" };
    // Runs of consecutive releases that fit, so a release in the middle that does not is never hidden in a range.
    const runs: string[] = [];
    let start: number | null = null;
    versions.forEach((version, index) => {
      const fits = addonFits(addon, version, number, newestMinor);
      if (fits && start === null) start = index;
      if ((!fits || index === versions.length - 1) && start !== null) {
        const end = fits ? index : index - 1;
        runs.push(
          start === end ? versions[start]!.raw : `${versions[start]!.raw}–${versions[end]!.raw}`,
        );
        start = null;
      }
    });
    if (runs.length === 0) return { minor, state: "NONE", text: "none listed" };
    return { minor, state: "SUPPORTED", text: runs.join(", ") };
  });
  return { subject: addon.name, kind: "ADD_ON", cells, sourceUrl: addon.sourceUrl };
}

export function compatibilityMatrix(
  snapshot: KbSnapshot,
  options: MatrixOptions,
): CompatibilityMatrix {
  const profile = resolveProfile(snapshot, options.profile);
  const count = options.minors ?? 8;
  if (!Number.isInteger(count) || count < 1 || count > 40)
    throw new InputError("minors must be a whole number from 1 to 40", "minors");
  const releases = snapshot.releases.slice(-count);
  const columns = releases.map((release) => ({
    minor: release.version,
    status: releaseStatusOf(snapshot, release, options.asOf),
    releaseDate: release.releaseDate,
    endOfLife: release.endOfLife,
  }));
  const newestMinor =
    releases.length === 0 ? 0 : minorNumber(releases[releases.length - 1]!.version);
  return {
    asOf: options.asOf,
    profile,
    columns,
    rows: [
      ...skewRows(snapshot, profile, columns),
      ...runtimeRows(snapshot, columns),
      ...snapshot.addons.map((addon) => addonRow(addon, columns, newestMinor)),
    ],
    kbRevision: snapshot.revision,
  };
}
