/**
 * kb/addons.yaml's lines against endoflife.date's add-on products whose cycles carry a Kubernetes
 * range in a custom field (endoflife-products.ts: istio, keda, kyverno, karpenter, knative). A cycle
 * becomes a line: RANGE "1.32 - 1.36" its minors, LOWER_BOUND "1.34" its minimumKubernetes, and
 * MINIMUM_PER_MINOR (Karpenter, whose kb table gives the minimum version per Kubernetes minor) a
 * ">= cycle" line for each minor a cycle is the first to list, where an earlier cycle listed does not.
 *
 * An add-on is the kb's record: a proposal is the record with lines added or changed. A line whose
 * notes say it comes from endoflife.date takes endoflife.date's values; any other line rests on the
 * record's own source (the project's table) and a difference is reported, not proposed. An add-on the
 * kb lacks is only reported: its images, rule and what its table means are not on endoflife.date.
 * Pure.
 */
import type { AddonRecord } from "../../knowledge/records.js";
import {
  inputWarnings,
  proposeChange,
  show,
  type Finding,
  type ProposedRecord,
  type Section,
} from "./compare.js";
import { endoflifePage, type EndOfLifeProduct, type EndOfLifeProductCycle } from "./endoflife.js";
import {
  ADDON_PRODUCTS,
  compareLines,
  compareValue,
  kubernetesRange,
  type AddonFieldReading,
} from "./endoflife-products.js";

type AddonLine = AddonRecord["lines"][number];

export interface AddonProductComparison {
  readonly kb: readonly AddonRecord[];
  readonly products: readonly EndOfLifeProduct[];
  readonly fields: readonly string[];
  readonly file: string;
  readonly from: string;
}

/** A line as endoflife.date gives it, with how to find the kb's line of the same versions. */
interface DerivedLine {
  readonly key: string;
  readonly line: AddonLine;
  readonly matches: (line: AddonLine) => boolean;
  /** kb field, endoflife.date's name of it. */
  readonly compared: readonly (readonly [keyof AddonLine, string])[];
}

const fromEndoflife = (line: AddonLine): boolean => line.notes?.includes("endoflife.date") === true;

function cycleLines(
  product: string,
  field: string,
  reads: AddonFieldReading,
  cycles: readonly EndOfLifeProductCycle[],
  warnings: string[],
): DerivedLine[] {
  const lines: DerivedLine[] = [];
  for (const cycle of cycles) {
    const text = cycle.custom[field];
    if (text === undefined) continue;
    // "1.17+" in a range field is a lower bound too (KEDA's older cycles).
    const bound = /^1\.\d{1,3}\+$/.test(text.trim()) ? text.trim().slice(0, -1) : null;
    const lower = reads === "LOWER_BOUND" || bound !== null;
    const minors = bound !== null ? [bound] : kubernetesRange(text);
    if (minors === null || (reads === "LOWER_BOUND" && minors.length !== 1)) {
      warnings.push(
        `endoflife.date ${product} cycle ${cycle.cycle}: ${field} "${text}" is not ${reads === "RANGE" ? 'a range such as "1.32 - 1.36"' : 'a minor such as "1.34"'}; skipped`,
      );
      continue;
    }
    lines.push({
      key: cycle.cycle,
      line: {
        versions: cycle.cycle,
        kubernetes: lower ? [] : minors,
        minimumKubernetes: lower ? minors[0]! : null,
        released: cycle.releaseDate,
        endOfLife: cycle.eol,
        notes: `from endoflife.date ${product} (${field} "${text}")`,
      },
      matches: (line) => line.versions === cycle.cycle,
      compared: [
        lower ? ["minimumKubernetes", field] : ["kubernetes", field],
        ["released", "releaseDate"],
        ["endOfLife", "eol"],
      ],
    });
  }
  return lines;
}

/** Karpenter's shape: for each minor, the first cycle listing it, where the cycle before it does not (else the true minimum may be older than the list). */
function minimumLines(
  product: string,
  addon: string,
  field: string,
  cycles: readonly EndOfLifeProductCycle[],
  warnings: string[],
): DerivedLine[] {
  const ranges = cycleLines(product, field, "RANGE", cycles, warnings)
    .map((derived) => ({ cycle: derived.key, minors: derived.line.kubernetes }))
    .sort((a, b) => compareLines(a.cycle, b.cycle));
  const lines: DerivedLine[] = [];
  const seen = new Set<string>();
  ranges.forEach(({ cycle, minors }, index) => {
    for (const minor of minors) {
      if (seen.has(minor)) continue;
      seen.add(minor);
      if (index === 0) continue;
      lines.push({
        key: `${minor} (${addon} >= ${cycle})`,
        line: {
          versions: `>= ${cycle}`,
          kubernetes: [minor],
          minimumKubernetes: null,
          released: null,
          endOfLife: null,
          notes: `minimum ${addon} for Kubernetes ${minor} by endoflife.date ${product} (${field}: ${cycle} is the first cycle listing ${minor}); newer ${addon} also supports it`,
        },
        matches: (line) => line.versions.startsWith(">=") && line.kubernetes.includes(minor),
        compared: [["versions", field]],
      });
    }
  });
  return lines;
}

/** ">= 1.0.5" agrees with endoflife.date's ">= 1.0": the cycle is as precise as it can say. */
function sameMinimum(kb: string, derived: string): boolean {
  const current = kb.replace(/^>= ?/, "");
  const cycle = derived.replace(/^>= ?/, "");
  return current === cycle || current.startsWith(`${cycle}.`);
}

/** The oldest kb line a derived line may be added after (older ones are not proposed). */
function isOlder(derived: DerivedLine, addon: AddonRecord, reads: AddonFieldReading): boolean {
  if (reads === "MINIMUM_PER_MINOR") {
    const minors = addon.lines.flatMap((line) => line.kubernetes);
    return (
      minors.length > 0 &&
      minors.every((minor) => compareLines(derived.line.kubernetes[0]!, minor) < 0)
    );
  }
  return addon.lines.every(
    (line) => compareLines(derived.line.versions, line.versions.replace(/^>= ?/, "")) < 0,
  );
}

function compareAddon(
  addon: AddonRecord,
  product: string,
  reads: AddonFieldReading,
  derivedLines: readonly DerivedLine[],
): { findings: Finding[]; lines: AddonLine[] | undefined; notes: string[] } {
  const page = endoflifePage(product);
  const findings: Finding[] = [];
  const notes: string[] = [];
  const lines = [...addon.lines];
  const added: AddonLine[] = [];
  const older: string[] = [];
  let changed = false;
  for (const derived of derivedLines) {
    const key = `${addon.name} ${derived.key}`;
    const line = addon.lines.find(derived.matches);
    if (line === undefined) {
      if (isOlder(derived, addon, reads)) {
        older.push(derived.key);
        continue;
      }
      added.push(derived.line);
      notes.push(`new ${derived.key}`);
      findings.push({
        status: "missing",
        key,
        message: `${key}: ${describeLine(derived.line)}`,
        source: page,
      });
      continue;
    }
    const updates: Partial<AddonLine> = {};
    for (const [field, upstreamField] of derived.compared) {
      if (field === "versions" && sameMinimum(line.versions, derived.line.versions)) continue;
      const { finding, take } = compareValue({
        key,
        field,
        upstreamField,
        current: line[field],
        upstream: derived.line[field],
        fromEndoflife: fromEndoflife(line),
        rowSource: addon.sourceUrl,
        disagreement: addon.disagreement,
        page,
      });
      if (finding !== null) findings.push(finding);
      if (take) Object.assign(updates, { [field]: derived.line[field] });
    }
    if (Object.keys(updates).length > 0) {
      lines[lines.indexOf(line)] = { ...line, ...updates, notes: derived.line.notes };
      changed = true;
      notes.push(`${derived.key} ${Object.keys(updates).join(", ")}`);
    }
  }
  if (older.length > 0)
    findings.push({
      status: "info",
      key: `${addon.name} (older)`,
      message: `endoflife.date ${product} also gives ${older.join(", ")}, older than the kb's oldest ${addon.name} line; not proposed`,
      source: null,
    });
  if (added.length === 0 && !changed) return { findings, lines: undefined, notes };
  // New lines go where the kb's newest line is: first in a list newest first, else last.
  const newestFirst =
    lines.length > 1 &&
    compareLines(
      lines[0]!.versions.replace(/^>= ?/, ""),
      lines.at(-1)!.versions.replace(/^>= ?/, ""),
    ) > 0;
  return {
    findings,
    lines: newestFirst ? [...added.reverse(), ...lines] : [...lines, ...added],
    notes,
  };
}

const newest = (lines: readonly DerivedLine[]): AddonLine =>
  [...lines].sort((a, b) => compareLines(b.line.versions, a.line.versions))[0]!.line;

function describeLine(line: AddonLine): string {
  const minors =
    line.minimumKubernetes === null
      ? `Kubernetes ${show(line.kubernetes)}`
      : `Kubernetes ${line.minimumKubernetes}+`;
  return `versions ${line.versions}: ${minors}, released ${show(line.released)}, end of life ${show(line.endOfLife)}`;
}

export function compareAddonProducts(input: AddonProductComparison): Section {
  const findings: Finding[] = [];
  const proposals: ProposedRecord[] = [];
  for (const product of input.products) {
    const mapping = ADDON_PRODUCTS[product.product];
    if (mapping === undefined) continue;
    const warnings = [...product.warnings];
    const derived =
      mapping.reads === "MINIMUM_PER_MINOR"
        ? minimumLines(product.product, mapping.addon, mapping.field, product.cycles, warnings)
        : cycleLines(product.product, mapping.field, mapping.reads, product.cycles, warnings);
    findings.push(...inputWarnings(warnings));
    const addon = input.kb.find((record) => record.name === mapping.addon);
    if (addon === undefined) {
      findings.push({
        status: "missing",
        key: mapping.addon,
        message: `the kb has no add-on ${mapping.addon}; endoflife.date ${product.product} gives ${derived.length} lines${derived.length === 0 ? "" : `, the newest ${describeLine(newest(derived))}`}. Not proposed: add the record by hand (its images, rule and whether its table means SUPPORTED or TESTED are not on endoflife.date)`,
        source: endoflifePage(product.product),
      });
      continue;
    }
    const compared = compareAddon(addon, product.product, mapping.reads, derived);
    findings.push(...compared.findings);
    if (compared.lines === undefined) continue;
    const proposal = proposeChange(
      "addons",
      addon.name,
      input.fields,
      addon,
      { lines: compared.lines },
      { lines: `endoflife.date ${product.product}: ${compared.notes.join("; ")}` },
    );
    if (proposal !== undefined) proposals.push(proposal);
  }
  return {
    entity: "addons",
    file: input.file,
    from: input.from,
    derivation: "endoflife-addons",
    findings,
    proposals,
  };
}
