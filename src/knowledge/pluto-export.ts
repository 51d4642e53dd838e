/**
 * The API removals as a file for `pluto --additional-versions` (Pluto's
 * versions.yaml format), following the rules of Pluto's own code
 * (FairwindsOps/pluto cmd/root.go and pkg/api/versions.go):
 *
 * - CombineAdditionalVersions refuses the whole file when one entry has the
 *   kind and version of an entry in Pluto's built-in list ("duplicate cannot
 *   be added to defaults"), so an export that is to load must leave those out.
 *   Which entries a user's Pluto has built in depends on its release: it
 *   prints them with `pluto list-versions -o json`, and an export given that
 *   list leaves exactly those out and names, in comments, where the two lists
 *   disagree on a release (Pluto keeps its own entry).
 * - Additional target-versions never replace a built-in component's (k8s is
 *   built in), so none are written: the target is chosen with `-t k8s=v1.NN.0`.
 * - Versions are semver with a leading v (`v1.25.0`); an empty deprecated-in
 *   means "never deprecated", so an unknown deprecation is written as the
 *   removal release.
 */
import { parse, stringify } from "yaml";
import { InputError } from "../core/errors.js";
import type { ApiRemovalRecord } from "./records.js";
import type { KbSnapshot } from "./snapshot.js";

/** One entry of Pluto's list, as `pluto list-versions -o json` prints it (pkg/api.Version). */
export interface PlutoVersion {
  readonly version: string;
  readonly kind: string;
  readonly "deprecated-in": string;
  readonly "removed-in": string;
  readonly "replacement-api": string;
  readonly "replacement-available-in": string;
  readonly component: string;
}

const PLUTO_FIELDS = [
  "version",
  "kind",
  "deprecated-in",
  "removed-in",
  "replacement-api",
  "replacement-available-in",
  "component",
] as const;
/** At most this many entries are read from a user's list (Pluto's own holds about a hundred). */
const MAX_PLUTO_ENTRIES = 5000;

/** `1.22` → `v1.22.0`, the form Pluto's versions.yaml uses. */
function plutoVersion(minor: string | null): string {
  return minor === null ? "" : `v${minor}.0`;
}

const WHAT =
  'expected what `pluto list-versions -o json` prints: {"deprecated-versions": [{"version", "kind", ...}], "target-versions": {...}}';

const pairOf = (kind: string, version: string): string => `${kind} ${version}`;

/**
 * Reads what `pluto list-versions -o json` (or `-o yaml`) printed, as text or as parsed JSON. Mistakes name the entry and field, since
 * a list that is not Pluto's would make the export leave out the wrong entries.
 */
export function parsePlutoVersionList(given: unknown): readonly PlutoVersion[] {
  let document = given;
  if (typeof given === "string") {
    try {
      document = parse(given, { maxAliasCount: 0, uniqueKeys: true });
    } catch (error) {
      throw new InputError(
        `the Pluto version list is not JSON or YAML (${(error as Error).message.split("\n")[0]}); ${WHAT}`,
        "deprecated-versions",
      );
    }
  }
  const list =
    document !== null && typeof document === "object" && !Array.isArray(document)
      ? (document as Record<string, unknown>)["deprecated-versions"]
      : undefined;
  if (!Array.isArray(list))
    throw new InputError(
      `the Pluto version list has no "deprecated-versions" list; ${WHAT}`,
      "deprecated-versions",
    );
  if (list.length > MAX_PLUTO_ENTRIES)
    throw new InputError(
      `the Pluto version list has ${list.length} entries; at most ${MAX_PLUTO_ENTRIES} are read`,
      "deprecated-versions",
    );
  return list.map((entry, index) => {
    const field = `deprecated-versions[${index}]`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry))
      throw new InputError(`${field} is not an object; ${WHAT}`, field);
    const record = entry as Record<string, unknown>;
    // Pluto matches entries by kind and version; its own list has entries with an empty kind (a whole group/version).
    if (typeof record.version !== "string" || record.version === "")
      throw new InputError(
        `${field}.version must be an apiVersion such as batch/v1beta1 (Pluto matches entries by kind and version)`,
        `${field}.version`,
      );
    if (typeof record.kind !== "string")
      throw new InputError(
        `${field}.kind must be a string (Pluto matches entries by kind and version)`,
        `${field}.kind`,
      );
    return Object.fromEntries(
      PLUTO_FIELDS.map((name) => [name, typeof record[name] === "string" ? record[name] : ""]),
    ) as unknown as PlutoVersion;
  });
}

function plutoEntry(removal: ApiRemovalRecord): PlutoVersion {
  return {
    version: removal.apiVersion,
    kind: removal.kind,
    "deprecated-in": plutoVersion(removal.deprecatedIn ?? removal.removedIn),
    "removed-in": plutoVersion(removal.removedIn),
    "replacement-api": removal.replacement ?? "",
    "replacement-available-in": plutoVersion(removal.replacementAvailableIn),
    component: "k8s",
  };
}

export interface PlutoExport {
  /** The file for `pluto --additional-versions`. */
  readonly text: string;
  /** Our entries written; those Pluto has built in are left out. */
  readonly written: number;
  readonly leftOut: number;
  /** Built-in entries whose releases differ from ours, for the comments. */
  readonly disagreements: readonly string[];
}

/**
 * The API removals Pluto lacks. Without `builtIn` every removal is written, and the header says that Pluto
 * refuses the file unless the entries it has built in are left out (give its list to leave them out).
 */
export function exportPlutoVersions(
  snapshot: KbSnapshot,
  builtIn?: readonly PlutoVersion[],
): PlutoExport {
  const known = new Map((builtIn ?? []).map((entry) => [pairOf(entry.kind, entry.version), entry]));
  const written: PlutoVersion[] = [];
  const seen = new Set<string>();
  const disagreements: string[] = [];
  let leftOut = 0;
  for (const removal of snapshot.apiRemovals) {
    const entry = plutoEntry(removal);
    const pair = pairOf(entry.kind, entry.version);
    // One entry per kind and version: Pluto would report a second one twice.
    if (seen.has(pair)) continue;
    seen.add(pair);
    const theirs = known.get(pair);
    if (theirs === undefined) {
      written.push(entry);
      continue;
    }
    leftOut += 1;
    for (const field of ["removed-in", "deprecated-in"] as const) {
      if (theirs[field] !== entry[field]) {
        disagreements.push(
          `${pair}: Pluto says ${field} ${theirs[field] || "(none)"}, kubecompat ${entry[field] || "(none)"} (${removal.sourceUrl})`,
        );
      }
    }
  }
  const header = [
    `Generated by kubecompat from knowledge-base revision ${snapshot.revision}, for pluto --additional-versions (-f).`,
    builtIn === undefined
      ? "Pluto refuses a file with an entry it has built in: POST the output of `pluto list-versions -o json` to this route to leave those out."
      : `${written.length} entries Pluto lacks; ${leftOut} it has built in are left out (Pluto refuses duplicates).`,
    "Choose the target with -t k8s=v1.NN.0: Pluto keeps its built-in target for k8s whatever this file says.",
    ...(disagreements.length === 0
      ? []
      : [
          "Where Pluto's built-in entries disagree with kubecompat (Pluto uses its own):",
          ...disagreements.map((line) => `  ${line}`),
        ]),
  ];
  const text = `${header.map((line) => `# ${line}`).join("\n")}\n${stringify({ "deprecated-versions": written }, { lineWidth: 0 })}`;
  return { text, written: written.length, leftOut, disagreements };
}
