/**
 * Add-ons against the control plane: each add-on version is judged by its
 * project's own compatibility table or rule (kb/addons.yaml), and what the
 * table cannot say (a version in no line, a minor newer than the table, a
 * project that publishes only a policy) is said, never passed as green.
 * Pure: reads only the snapshot.
 */
import type { AddonLineRecord, AddonRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import {
  compareComponentVersions,
  parseComponentVersion,
  type ComponentVersion,
} from "../core/versions.js";
import { finding, type Finding } from "./findings.js";

/** The add-on a name or alias stands for (case-insensitive), or undefined. */
export function findAddon(snapshot: KbSnapshot, name: string): AddonRecord | undefined {
  const wanted = name.trim().toLowerCase();
  return snapshot.addons.find(
    (addon) =>
      addon.name === wanted || addon.aliases.some((alias) => alias.toLowerCase() === wanted),
  );
}

/** An add-on version as written (v1.9.4, 1.9.4, v1.20.1-eksbuild.3), read; `field` names the input in the error. */
export function parseAddonVersion(version: unknown, field: string): ComponentVersion {
  return parseComponentVersion(version, field);
}

/** Minor numbers of "1.30" style minors. */
function minorNumber(minor: string): number {
  return Number(minor.split(".")[1]);
}

function lineBound(line: AddonLineRecord): {
  readonly minimum: boolean;
  readonly version: ComponentVersion;
  readonly parts: number;
} {
  const minimum = line.versions.startsWith(">=");
  const text = line.versions.replace(/^>= ?/, "");
  const parts = text.split(".").length;
  return {
    minimum,
    version: parseComponentVersion(parts === 1 ? `${text}.0` : text, "versions"),
    parts,
  };
}

/** Whether a line of the table covers the version: its prefix, or (">= X") X and later. */
function covers(line: AddonLineRecord, version: ComponentVersion): boolean {
  const bound = lineBound(line);
  if (bound.minimum) return compareComponentVersions(version, bound.version) >= 0;
  if (bound.version.major !== version.major) return false;
  if (bound.parts >= 2 && bound.version.minor !== version.minor) return false;
  return bound.parts < 3 || bound.version.patch === version.patch;
}

/** The minors a line gives: its list, or every minor from its lower bound up to `newest`. */
function minorsOf(line: AddonLineRecord, newest: number): number[] {
  if (line.minimumKubernetes === null) return line.kubernetes.map(minorNumber);
  const minors: number[] = [];
  for (let minor = minorNumber(line.minimumKubernetes); minor <= newest; minor += 1)
    minors.push(minor);
  return minors;
}

/** The newest minor any line of the add-on's table names (a lower bound counts as itself). */
function newestTabled(addon: AddonRecord): number {
  return Math.max(
    ...addon.lines.flatMap((line) =>
      line.minimumKubernetes === null
        ? line.kubernetes.map(minorNumber)
        : [minorNumber(line.minimumKubernetes)],
    ),
  );
}

/** What the add-on's table says about one version: the lines that cover it (by prefix, else its minor) and the minors they give. */
export function addonSupport(
  addon: AddonRecord,
  version: ComponentVersion,
  newestMinor: number,
): {
  readonly lines: readonly AddonLineRecord[];
  readonly minors: ReadonlySet<number>;
  readonly byMinorOnly: boolean;
} {
  let lines = addon.lines.filter((line) => covers(line, version));
  let byMinorOnly = false;
  if (lines.length === 0) {
    // A patch the table has no row of: the rows of the same minor speak for it.
    lines = addon.lines.filter((line) => {
      const bound = lineBound(line);
      return (
        !bound.minimum &&
        bound.version.major === version.major &&
        bound.version.minor === version.minor
      );
    });
    byMinorOnly = lines.length > 0;
  }
  return {
    lines,
    minors: new Set(lines.flatMap((line) => minorsOf(line, newestMinor))),
    byMinorOnly,
  };
}

export interface AddonSubject {
  readonly addon: AddonRecord;
  readonly version: ComponentVersion;
  readonly instance: string | null;
}

function range(minors: ReadonlySet<number>): string {
  const sorted = [...minors].sort((a, b) => a - b);
  if (sorted.length === 0) return "none";
  const first = sorted[0]!;
  const last = sorted.at(-1)!;
  return sorted.length === last - first + 1 && sorted.length > 1
    ? `1.${first}-1.${last}`
    : sorted.map((minor) => `1.${minor}`).join(", ");
}

/**
 * Findings for one add-on at a control-plane minor (`minor`, e.g. 30 for
 * 1.30) on `asOf`. `newestMinor` is the newest Kubernetes minor the
 * knowledge base knows (open-ended lower bounds reach up to it).
 */
export function judgeAddon(
  subject: AddonSubject,
  minor: number,
  asOf: string,
  newestMinor: number,
): Finding[] {
  const { addon, version, instance } = subject;
  const judged: AddonJudgement = {
    addon,
    version,
    minor,
    at: { component: addon.name, instance, sourceUrl: addon.sourceUrl },
    name: `${addon.displayName} ${version.raw}`,
  };
  const findings: Finding[] = [];
  if (addon.retiredOn !== null && asOf >= addon.retiredOn) findings.push(retiredFinding(judged));
  // What the project publishes decides how the version is judged: a policy, its minor, or a table.
  if (addon.rule === "POLICY") findings.push(policyOnlyFinding(judged));
  else if (addon.rule === "MATCH_MINOR") findings.push(...matchMinorFindings(judged));
  else findings.push(...tableFindings(judged, asOf, newestMinor));
  return findings;
}

/** One add-on version judged at a control-plane minor, and how its findings name it. */
interface AddonJudgement {
  readonly addon: AddonRecord;
  readonly version: ComponentVersion;
  readonly minor: number;
  readonly at: { component: string; instance: string | null; sourceUrl: string };
  readonly name: string;
}

/** The project no longer maintains the add-on. */
function retiredFinding({ addon, at }: AddonJudgement): Finding {
  return finding({
    ...at,
    code: "ADDON_RETIRED",
    severity: "WARNING",
    message:
      `${addon.displayName} is retired (since ${addon.retiredOn}): no further releases, bug fixes or security fixes. ${addon.retirement ?? ""}`.trim(),
  });
}

/** The project publishes only a policy, no table per version: nothing can be judged. */
function policyOnlyFinding({ addon, minor, at, name }: AddonJudgement): Finding {
  return finding({
    ...at,
    code: "ADDON_POLICY_ONLY",
    severity: "INFO",
    message:
      `${name} was not judged against Kubernetes 1.${minor}: ${addon.displayName} publishes no table per version, only a policy: ${addon.policy ?? ""}`.trim(),
  });
}

/** The add-on's minor must equal the control plane's (cluster-autoscaler). */
function matchMinorFindings({ addon, version, minor, at, name }: AddonJudgement): Finding[] {
  const findings: Finding[] = [];
  if (version.major !== 1 || version.minor !== minor) {
    findings.push(
      finding({
        ...at,
        code: "ADDON_UNSUPPORTED",
        severity: "ERROR",
        message: `${name} is meant for Kubernetes ${version.major}.${version.minor}, not for the control plane's 1.${minor}: ${addon.displayName}'s minor must equal the control plane's (${addon.policy ?? "the project's rule"}); run the newest 1.${minor} patch of it`,
      }),
    );
  }
  if (minor > newestTabled(addon)) {
    findings.push(
      finding({
        ...at,
        code: "ADDON_BEYOND_KNOWLEDGE",
        severity: "WARNING",
        message: `the knowledge base knows ${addon.displayName} releases up to 1.${newestTabled(addon)}; whether a 1.${minor} release exists is not known`,
      }),
    );
  }
  return findings;
}

/** The project's table: the lines that cover the version, the minors they give, and their end of life. */
function tableFindings(judged: AddonJudgement, asOf: string, newestMinor: number): Finding[] {
  const { addon, version, minor, at, name } = judged;
  const support = addonSupport(addon, version, newestMinor);
  if (support.lines.length === 0) return [notTabledFinding(judged)];
  const findings: Finding[] = [];
  const via = support.byMinorOnly
    ? ` (judged by the table's ${version.major}.${version.minor} rows; it has none for this patch)`
    : "";
  if (!support.minors.has(minor))
    findings.push(minorNotTabledFinding(judged, support.minors, via, newestMinor));
  const ended = support.lines
    .map((line) => line.endOfLife)
    .filter((day): day is string => day !== null && day < asOf);
  if (ended.length > 0 && ended.length === support.lines.length) {
    findings.push(
      finding({
        ...at,
        code: "ADDON_END_OF_LIFE",
        severity: "WARNING",
        message: `${name} reached its end of life on ${ended.sort().at(-1)}: it gets no more fixes; move to a supported line`,
      }),
    );
  }
  return findings;
}

/** No line of the table covers the version: it is not judged, and said so. */
function notTabledFinding({ addon, version, at, name }: AddonJudgement): Finding {
  const newer = addon.lines.every(
    (line) => compareComponentVersions(version, lineBound(line).version) > 0,
  );
  return finding({
    ...at,
    code: "ADDON_VERSION_NOT_JUDGED",
    severity: "WARNING",
    message: `${name} was not judged: ${newer ? "it is newer than every version" : "no line"} of ${addon.displayName}'s compatibility table ${newer ? "the knowledge base knows" : "covers it"}; check the project's own table`,
  });
}

/** The table does not give the control plane's minor for the version: beyond what is known, or unsupported (untested). */
function minorNotTabledFinding(
  { addon, version, minor, at, name }: AddonJudgement,
  minors: ReadonlySet<number>,
  via: string,
  newestMinor: number,
): Finding {
  const newestLine = addon.lines.every(
    (line) =>
      lineBound(line).minimum ||
      compareComponentVersions(lineBound(line).version, version) <= 0 ||
      (lineBound(line).version.major === version.major &&
        lineBound(line).version.minor === version.minor),
  );
  if (minor > newestTabled(addon) && newestLine) {
    return finding({
      ...at,
      code: "ADDON_BEYOND_KNOWLEDGE",
      severity: "WARNING",
      message: `whether ${name} supports Kubernetes 1.${minor} is not known: ${addon.displayName}'s table, as the knowledge base has it, ends at 1.${newestTabled(addon)} (this version: ${range(minors)})${via}`,
    });
  } else {
    const tested = addon.tableMeans === "TESTED";
    const better = addon.lines
      .filter((line) => minorsOf(line, newestMinor).includes(minor))
      .map((line) => line.versions)
      .slice(0, 4);
    return finding({
      ...at,
      code: tested ? "ADDON_UNTESTED" : "ADDON_UNSUPPORTED",
      severity: tested ? "WARNING" : "ERROR",
      message: `${name} ${tested ? "is not tested" : "is not supported"} with Kubernetes 1.${minor}: ${addon.displayName}'s table gives ${range(minors)} for it${via}${better.length === 0 ? "" : `; versions for 1.${minor}: ${better.join(", ")}`}`,
    });
  }
}

/**
 * The versions the planner may move an add-on to: each line's own version
 * (a minimum's bound), oldest first, without duplicates.
 */
export function candidateVersions(addon: AddonRecord): ComponentVersion[] {
  const seen = new Set<string>();
  const versions: ComponentVersion[] = [];
  for (const line of addon.lines) {
    const text = line.versions.replace(/^>= ?/, "");
    const version = parseComponentVersion(
      text.split(".").length === 1 ? `${text}.0` : text,
      "versions",
    );
    const key = `${version.major}.${version.minor}.${version.patch}`;
    if (seen.has(key)) continue;
    seen.add(key);
    versions.push({ ...version, raw: text });
  }
  return versions.sort(compareComponentVersions);
}

/** Whether the add-on at this version has no ERROR at `minor` (what the planner needs of every state it passes through). */
export function addonFits(
  addon: AddonRecord,
  version: ComponentVersion,
  minor: number,
  newestMinor: number,
): boolean {
  return judgeAddon({ addon, version, instance: null }, minor, "0000-01-01", newestMinor).every(
    (entry) => entry.severity !== "ERROR",
  );
}
