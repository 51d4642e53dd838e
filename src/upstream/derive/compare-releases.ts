/**
 * kb/releases.yaml against endoflife.date's Kubernetes cycles (endoflife.ts):
 * a cycle the kb lacks is proposed (unless older than the kb's oldest
 * release), a kb release is compared on its dates and latest patch. A kb
 * latest patch newer than endoflife.date's is not a difference: the copy read
 * is older than the kb.
 */
import semver from "semver";
import { type ReleaseRecord } from "../../knowledge/records.js";
import {
  explained,
  inputWarnings,
  minorNumber,
  newRecord,
  proposeChange,
  show,
  validate,
  type Finding,
  type ProposedRecord,
  type Section,
} from "./compare.js";
import { ENDOFLIFE_PAGE, type EndOfLifeCycle } from "./endoflife.js";

export interface ReleaseComparison {
  readonly kb: readonly ReleaseRecord[];
  readonly cycles: readonly EndOfLifeCycle[];
  readonly fields: readonly string[];
  readonly file: string;
  readonly from: string;
  readonly warnings?: readonly string[];
}

/** kb field → endoflife.date's JSON field. */
const RELEASE_FIELDS = [
  ["releaseDate", "releaseDate"],
  ["endOfStandardSupport", "support"],
  ["endOfLife", "eol"],
  ["latestPatch", "latest"],
  ["latestPatchDate", "latestReleaseDate"],
] as const;

function proposeRelease(cycle: EndOfLifeCycle, fields: readonly string[]): ProposedRecord {
  const values: Record<string, unknown> = {
    version: cycle.cycle,
    releaseDate: cycle.releaseDate,
    endOfStandardSupport: cycle.support,
    endOfLife: cycle.eol,
    latestPatch: cycle.latest,
    latestPatchDate: cycle.latestReleaseDate,
    etcdVersion: null,
    etcdSourceUrl: null,
    sourceUrl: ENDOFLIFE_PAGE,
    disagreement: null,
  };
  const comments: Record<string, string> = {};
  for (const [field] of RELEASE_FIELDS)
    comments[field] = values[field] === null ? "not on endoflife.date yet" : "endoflife.date";
  comments.etcdVersion =
    "not derived: kubeadm's SupportedEtcdVersion (cmd/kubeadm/app/constants/constants.go)";
  const record = newRecord(fields, values, comments);
  return {
    change: "new",
    key: cycle.cycle,
    record,
    comments,
    problems: validate("releases", record),
  };
}

function missingRelease(cycle: EndOfLifeCycle): Finding {
  const facts = RELEASE_FIELDS.map(([field, json]) => `${field} ${show(cycle[json])}`);
  return {
    status: "missing",
    key: cycle.cycle,
    message: `${cycle.cycle}: ${facts.join(", ")}`,
    source: ENDOFLIFE_PAGE,
  };
}

/** One kb release against its endoflife.date cycle, field by field. */
function compareRelease(
  record: ReleaseRecord,
  cycle: EndOfLifeCycle,
  fields: readonly string[],
): { findings: Finding[]; proposal: ProposedRecord | undefined } {
  const findings: Finding[] = [];
  const changes: Record<string, unknown> = {};
  const comments: Record<string, string> = {};
  let kbAhead = false;
  for (const [field, json] of RELEASE_FIELDS) {
    const value = cycle[json];
    const current = record[field];
    if (value === null || value === current) continue;
    // The date of a patch the kb is already past says nothing either.
    if (field === "latestPatchDate" && kbAhead) continue;
    if (
      field === "latestPatch" &&
      current !== null &&
      semver.valid(current) !== null &&
      semver.gt(current, value)
    ) {
      kbAhead = true;
      findings.push({
        status: "info",
        key: cycle.cycle,
        message: `${cycle.cycle} latestPatch: kb says ${current}, endoflife.date says ${value}; the endoflife.date copy is older, nothing to change`,
        source: ENDOFLIFE_PAGE,
      });
      continue;
    }
    if (current === null) {
      findings.push({
        status: "missing",
        key: cycle.cycle,
        message: `${cycle.cycle} lacks ${field}: endoflife.date says ${value}`,
        source: ENDOFLIFE_PAGE,
      });
    } else {
      const status = explained(record.disagreement, field, value) ? "known" : "differs";
      const suffix = status === "known" ? "; the kb's disagreement explains it" : "";
      findings.push({
        status,
        key: cycle.cycle,
        message: `${cycle.cycle} ${field}: kb says ${current}, endoflife.date says ${value}${suffix}`,
        source: ENDOFLIFE_PAGE,
      });
      if (status === "known") continue;
    }
    changes[field] = value;
    comments[field] = `kb: ${show(current)}; endoflife.date ${json}`;
  }
  return {
    findings,
    proposal: proposeChange("releases", cycle.cycle, fields, record, changes, comments),
  };
}

/** Cycles older than the kb, and kb releases this copy does not list: seen, not compared. */
function leftOut(input: ReleaseComparison, older: readonly string[]): Finding[] {
  const findings: Finding[] = [];
  if (older.length > 0) {
    findings.push({
      status: "info",
      key: "(older)",
      message: `endoflife.date also lists ${older.join(", ")}, older than the kb's oldest release; not proposed`,
      source: null,
    });
  }
  const upstream = new Set(input.cycles.map((cycle) => cycle.cycle));
  const onlyKb = input.kb
    .filter((record) => !upstream.has(record.version))
    .map((record) => record.version);
  if (onlyKb.length > 0) {
    findings.push({
      status: "info",
      key: "(kb only)",
      message: `the kb has ${onlyKb.join(", ")}, which this endoflife.date copy does not list; nothing to compare`,
      source: null,
    });
  }
  return findings;
}

export function compareReleases(input: ReleaseComparison): Section {
  const findings = inputWarnings(input.warnings);
  const proposals: ProposedRecord[] = [];
  const kb = new Map(input.kb.map((record) => [record.version, record]));
  const oldestKb = Math.min(...input.kb.map((record) => minorNumber(record.version)));
  const older: string[] = [];
  const sorted = [...input.cycles].sort((a, b) => minorNumber(a.cycle) - minorNumber(b.cycle));
  for (const cycle of sorted) {
    const record = kb.get(cycle.cycle);
    if (record === undefined) {
      if (minorNumber(cycle.cycle) < oldestKb) {
        older.push(cycle.cycle);
        continue;
      }
      proposals.push(proposeRelease(cycle, input.fields));
      findings.push(missingRelease(cycle));
      continue;
    }
    const compared = compareRelease(record, cycle, input.fields);
    findings.push(...compared.findings);
    if (compared.proposal !== undefined) proposals.push(compared.proposal);
  }
  findings.push(...leftOut(input, older));
  return { entity: "releases", file: input.file, from: input.from, findings, proposals };
}
