/**
 * kb/feature-gates.yaml against the gates read from the kubernetes/website
 * pages (feature-gates.ts): a gate the kb lacks is proposed, a kb gate is
 * compared on its stages and removedIn. Pages left out and pages whose title
 * is not their file name are warnings. The proposed YAML writes each record's
 * stages as one-line mappings, which render.ts's flat records cannot.
 */
import { type FeatureGateRecord } from "../../knowledge/records.js";
import {
  explained,
  minorNumber,
  newRecord,
  proposeChange,
  validate,
  type Finding,
  type ProposedRecord,
  type Section,
} from "./compare.js";
import {
  featureGateSourceUrl,
  type DerivedFeatureGate,
  type ParsedFeatureGates,
  type Stage,
} from "./feature-gates.js";
import { renderSection, yamlScalar } from "./render.js";

export interface FeatureGateComparison {
  readonly kb: readonly FeatureGateRecord[];
  readonly parsed: ParsedFeatureGates;
  /** The kubernetes/website commit the pages are from, when known. */
  readonly commit: string | null;
  /** featureGateRecord's fields at run time (schemaFields("featureGates")). */
  readonly fields: readonly string[];
  readonly file: string;
  readonly from: string;
}

/** "ALPHA false 1.4–1.10, BETA true 1.11–, GA true locked 1.19–1.27" */
export function describeStages(stages: readonly Stage[]): string {
  return stages
    .map(
      (stage) =>
        `${stage.stage} ${String(stage.defaultValue)}${stage.locked ? " locked" : ""} ${stage.fromVersion}–${stage.toVersion ?? ""}`,
    )
    .join(", ");
}

const sameStages = (a: readonly Stage[], b: readonly Stage[]): boolean =>
  a.length === b.length &&
  a.every((stage, index) => {
    const other = b[index]!;
    return (
      stage.stage === other.stage &&
      stage.defaultValue === other.defaultValue &&
      stage.locked === other.locked &&
      stage.fromVersion === other.fromVersion &&
      stage.toVersion === other.toVersion
    );
  });

/** The gate's stages as the kb writes them: `locked` only where the page says true (the schema's default is false). */
function recordStages(gate: DerivedFeatureGate): readonly Readonly<Record<string, unknown>>[] {
  return gate.stages.map(({ locked, ...stage }) =>
    locked
      ? {
          stage: stage.stage,
          defaultValue: stage.defaultValue,
          locked,
          fromVersion: stage.fromVersion,
          toVersion: stage.toVersion,
        }
      : stage,
  );
}

function proposeGate(
  gate: DerivedFeatureGate,
  source: string,
  fields: readonly string[],
): { finding: Finding; proposal: ProposedRecord } {
  const values: Record<string, unknown> = {
    name: gate.name,
    stages: recordStages(gate),
    removedIn: gate.removedIn,
    components: [],
    sourceUrl: source,
    notes: gate.notes.length === 0 ? null : gate.notes.join(" "),
    disagreement: null,
  };
  const comments: Record<string, string> = {};
  if (gate.removedIn !== null)
    comments.removedIn = "the minor after the last stage's toVersion (removed: true)";
  const proposed = newRecord(fields, values, comments);
  const removal = gate.removedIn === null ? "" : `, removed in ${gate.removedIn}`;
  return {
    proposal: {
      change: "new",
      key: gate.name,
      record: proposed,
      comments,
      problems: validate("featureGates", proposed),
    },
    finding: {
      status: "missing",
      key: gate.name,
      message: `${gate.name}: ${describeStages(gate.stages)}${removal}`,
      source,
    },
  };
}

/** One kb gate against its page: the stages as a whole, then removedIn. */
function compareGate(
  record: FeatureGateRecord,
  gate: DerivedFeatureGate,
  source: string,
  fields: readonly string[],
): { findings: Finding[]; proposal: ProposedRecord | undefined } {
  const findings: Finding[] = [];
  const changes: Record<string, unknown> = {};
  const comments: Record<string, string> = {};
  if (!sameStages(record.stages, gate.stages)) {
    const upstream = describeStages(gate.stages);
    const status = explained(record.disagreement, "stages", upstream) ? "known" : "differs";
    findings.push({
      status,
      key: gate.name,
      message: `${gate.name} stages: kb says ${describeStages(record.stages)}; the page says ${upstream}${status === "known" ? "; the kb's disagreement explains it" : ""}`,
      source,
    });
    if (status === "differs") {
      changes.stages = recordStages(gate);
      comments.stages = `kb: ${describeStages(record.stages)}`;
    }
  }
  if (record.removedIn !== gate.removedIn) {
    const says = gate.removedIn ?? "none (the gate still exists)";
    if (record.removedIn === null) {
      findings.push({
        status: "missing",
        key: gate.name,
        message: `${gate.name} lacks removedIn: the page says removed: true, last stage to 1.${minorNumber(gate.removedIn!) - 1}, so ${gate.removedIn}`,
        source,
      });
      changes.removedIn = gate.removedIn;
      comments.removedIn = "kb: none; the minor after the last stage's toVersion";
    } else {
      const status = explained(record.disagreement, "removedIn", gate.removedIn ?? "none")
        ? "known"
        : "differs";
      findings.push({
        status,
        key: gate.name,
        message: `${gate.name} removedIn: kb says ${record.removedIn}, the page says ${says}${status === "known" ? "; the kb's disagreement explains it" : ""}`,
        source,
      });
      if (status === "differs") {
        changes.removedIn = gate.removedIn;
        comments.removedIn = `kb: ${record.removedIn}`;
      }
    }
  }
  return {
    findings,
    proposal: proposeChange("featureGates", gate.name, fields, record, changes, comments),
  };
}

export function compareFeatureGates(input: FeatureGateComparison): Section {
  const findings: Finding[] = [
    ...input.parsed.warnings.map((message) => ({
      status: "warning" as const,
      key: "(input)",
      message,
      source: null,
    })),
    ...input.parsed.skipped.map((page) => ({
      status: "warning" as const,
      key: page.name,
      message: `${page.name} (${page.file}) is left out: ${page.reason}`,
      source: null,
    })),
  ];
  const proposals: ProposedRecord[] = [];
  const kb = new Map(input.kb.map((record) => [record.name, record]));
  const seen = new Set<string>();
  for (const gate of input.parsed.gates) {
    seen.add(gate.name);
    const source = featureGateSourceUrl(gate, input.commit);
    const record = kb.get(gate.name);
    if (record === undefined) {
      const proposed = proposeGate(gate, source, input.fields);
      proposals.push(proposed.proposal);
      findings.push(proposed.finding);
      continue;
    }
    const compared = compareGate(record, gate, source, input.fields);
    findings.push(...compared.findings);
    if (compared.proposal !== undefined) proposals.push(compared.proposal);
  }
  const kbOnly = [...kb.keys()].filter((name) => !seen.has(name)).sort();
  if (kbOnly.length > 0) {
    findings.push({
      status: "info",
      key: "(kb only)",
      message: `the kb has ${kbOnly.join(", ")}, which no page read gives; nothing to compare`,
      source: null,
    });
  }
  return { entity: "featureGates", file: input.file, from: input.from, findings, proposals };
}

// ---------------------------------------------------------------- proposed YAML

const COMMENT_COLUMN = 41;

function withComment(line: string, comment: string | undefined): string {
  return comment === undefined
    ? line
    : `${line.padEnd(Math.max(COMMENT_COLUMN - 1, line.length + 2))} # ${comment.replace(/\s+/g, " ")}`;
}

/** A stage as a one-line flow mapping: { stage: GA, defaultValue: true, locked: true, fromVersion: "1.29", toVersion: null } */
function stageLine(stage: Readonly<Record<string, unknown>>): string {
  return `{ ${Object.entries(stage)
    .map(([field, value]) => `${field}: ${yamlScalar(value)}`)
    .join(", ")} }`;
}

function recordLines(proposal: ProposedRecord): string[] {
  const lines: string[] = [];
  for (const problem of proposal.problems) lines.push(`  # ! does not validate yet: ${problem}`);
  Object.entries(proposal.record).forEach(([field, value], index) => {
    const lead = index === 0 ? "  - " : "    ";
    const comment = proposal.comments[field];
    if (field === "stages" && Array.isArray(value) && value.length > 0) {
      lines.push(withComment(`${lead}${field}:`, comment));
      for (const stage of value as Record<string, unknown>[])
        lines.push(`      - ${stageLine(stage)}`);
      return;
    }
    lines.push(withComment(`${lead}${field}: ${yamlScalar(value)}`, comment));
  });
  return lines;
}

/**
 * The featureGates section as --output yaml prints it: like render.ts's renderYaml, with each
 * record's stages as a list of one-line mappings (renderYaml writes scalars and flat lists only).
 */
export function renderFeatureGatesYaml(section: Section): string {
  return renderSection(section, recordLines);
}
