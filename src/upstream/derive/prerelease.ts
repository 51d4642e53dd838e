/**
 * Release day (`kb:derive --released 1.38`): the knowledge of a minor read before its release (coverage
 * claims with stage PRERELEASE, records whose notes start "Pre-release (1.38)") against the released
 * sources read in the same run. Each pre-release fact is said to be confirmed (its section has nothing
 * to say of it: drop the pre-release note), to differ (its section shows the released value, or that it
 * did not ship), or to be still unread (no released source of its kind was given). Each claim whose kind
 * was read from a released source is proposed as RELEASED. Nothing is written: a reviewer applies it.
 */
import type { CoverageRecord, EntityName, KbBundle } from "../../knowledge/records.js";
import { ENTITIES } from "../../knowledge/registry.js";
import type { Finding, ProposedRecord, Section } from "./compare.js";

/** How the sections' records are named (their findings' keys), per kind that has a released source. */
const KEY: Partial<Record<EntityName, (record: never) => string>> = {
  featureGates: (gate: KbBundle["featureGates"][number]) => gate.name,
  apiRemovals: (removal: KbBundle["apiRemovals"][number]) =>
    `${removal.apiVersion} ${removal.kind}`,
  releases: (release: KbBundle["releases"][number]) => release.version,
};

/** The flag that reads a released source of each kind, for the reviewer told that one is missing. */
const FLAG: Partial<Record<EntityName, string>> = {
  featureGates: "--feature-gates <the website at the release>",
  apiRemovals: "--kubernetes-api <clone> --tags kubernetes-<minor>.0",
  releases: "--endoflife <kubernetes.json>",
};

export interface ReleaseDayInput {
  readonly minor: string;
  readonly coverage: readonly CoverageRecord[];
  /** The records of each kind that carry pre-release facts. */
  readonly records: Partial<{ [E in EntityName]: KbBundle[E] }>;
  /** The sections computed in this run from released sources. */
  readonly sections: readonly Section[];
  readonly file: string;
}

/** A record is a pre-release fact of `minor` when its notes say so, or (a release) it is that minor's row. */
function isPrerelease(entity: EntityName, record: Record<string, unknown>, minor: string): boolean {
  const notes = typeof record.notes === "string" ? record.notes : "";
  if (
    notes.startsWith(`Pre-release (${minor})`) ||
    new RegExp(`pre-release fact until ${minor.replace(".", "\\.")}`).test(notes)
  )
    return true;
  return entity === "releases" && record.version === minor;
}

/** Each PRERELEASE claim of the minor: RELEASED when its kind was read from a released source, else a warning. */
function claimFindings(
  input: ReleaseDayInput,
  read: ReadonlyMap<EntityName, Section>,
): { findings: Finding[]; proposals: ProposedRecord[] } {
  const findings: Finding[] = [];
  const proposals: ProposedRecord[] = [];
  const claims = input.coverage.filter(
    (claim) => claim.stage === "PRERELEASE" && claim.throughMinor === input.minor,
  );
  if (claims.length === 0) {
    findings.push({
      status: "info",
      key: input.minor,
      message: `kb/coverage.yaml claims no pre-release knowledge of ${input.minor}; nothing to turn into released knowledge`,
      source: null,
    });
  }
  for (const claim of claims) {
    const section = read.get(claim.knowledge as EntityName);
    const key = `${claim.knowledge} ${claim.throughMinor}`;
    if (section === undefined) {
      const flag = FLAG[claim.knowledge as EntityName];
      findings.push({
        status: "warning",
        key,
        message: `${claim.knowledge} of ${input.minor} stays pre-release (${claim.source}): no released source of it was read in this run${flag === undefined ? " (kb:derive reads none for this kind: re-read it by hand)" : `; give ${flag}`}`,
        source: claim.sourceUrl,
      });
      continue;
    }
    findings.push({
      status: "differs",
      key,
      message: `${claim.knowledge} of ${input.minor} was read from a released source (${section.from}): the claim becomes RELEASED`,
      source: claim.sourceUrl,
    });
    proposals.push({
      change: "changed",
      key,
      record: {
        ...claim,
        stage: "RELEASED",
        source: `${claim.knowledge} of ${input.minor} read from released sources`,
        sourceRevision: section.from,
        sourceDate: null,
      },
      comments: {
        stage: `was PRERELEASE (${claim.source})`,
        sourceDate: "the day the released source was read: fill in",
        sourceUrl: "the pre-release source: replace it with the released one",
      },
      problems: [],
    });
  }
  return { findings, proposals };
}

/**
 * One pre-release fact against the released source's section: not mentioned
 * there (did it ship?), confirmed (nothing said of it), or said otherwise.
 */
function factFinding(key: string, where: string, section: Section, minor: string): Finding {
  const seen = section.findings.filter(
    (finding) =>
      finding.key === key && (finding.status === "differs" || finding.status === "missing"),
  );
  // A fact the released source does not mention at all is not confirmed by it.
  const unmentioned = section.findings.some(
    (finding) =>
      finding.key === "(kb only)" &&
      (key.includes(" ")
        ? finding.message.includes(key)
        : finding.message.split(/[\s,]+/).includes(key)),
  );
  if (unmentioned) {
    return {
      status: "differs",
      key: where,
      message: `${key}: the released source does not mention it; check whether it shipped in ${minor}, or drop it`,
      source: null,
    };
  }
  return seen.length === 0
    ? {
        status: "info",
        key: where,
        message: `${key}: the released source confirms it; drop its pre-release note`,
        source: null,
      }
    : {
        status: "differs",
        key: where,
        message: `${key}: the released source says otherwise (${seen.map((finding) => finding.message).join("; ")}); take the released value, or drop the fact if it did not ship`,
        source: seen[0]!.source,
      };
}

/** Every pre-release fact of the minor in the records of each kind with a released source. */
function factFindings(input: ReleaseDayInput, read: ReadonlyMap<EntityName, Section>): Finding[] {
  const findings: Finding[] = [];
  for (const [entity, keyOf] of Object.entries(KEY) as [EntityName, (record: never) => string][]) {
    const records = (input.records[entity] ?? []) as readonly Record<string, unknown>[];
    const facts = records.filter((record) => isPrerelease(entity, record, input.minor));
    const section = read.get(entity);
    for (const record of facts) {
      const key = keyOf(record as never);
      const where = `${ENTITIES[entity].file} ${key}`;
      if (section === undefined) {
        findings.push({
          status: "warning",
          key: where,
          message: `${key}: a pre-release fact of ${input.minor}, not checked (no released source of ${entity} was read)`,
          source: null,
        });
        continue;
      }
      findings.push(factFinding(key, where, section, input.minor));
    }
  }
  return findings;
}

export function releaseDaySection(input: ReleaseDayInput): Section {
  // A kind's released source is its own derivation's section (kubeadm's etcd also speaks of
  // releases, but is not the release calendar a coverage claim rests on).
  const read = new Map(
    input.sections
      .filter((section) => section.derivation === undefined)
      .map((section) => [section.entity, section]),
  );
  const claims = claimFindings(input, read);
  return {
    entity: "coverage",
    file: input.file,
    from: `the pre-release knowledge of ${input.minor} against the released sources read in this run`,
    findings: [...claims.findings, ...factFindings(input, read)],
    proposals: claims.proposals,
  };
}
