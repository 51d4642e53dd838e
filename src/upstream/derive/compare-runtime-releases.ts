/**
 * kb/runtime-releases.yaml against endoflife.date's runtime products (containerd, etcd;
 * endoflife-products.ts): a line the kb lacks is proposed (unless older than the kb's oldest line of
 * that runtime), a row that cites endoflife.date takes its dates, a row that cites the project's own
 * page (containerd's RELEASES.md, etcd's announcements) keeps them and a difference is reported as a
 * disagreement. endoflife.date writes a month-only end of life ("September 2026") as the month's first
 * day, which the kb writes as endOfLifeMonth: that is no difference. Pure.
 */
import type { RuntimeReleaseRecord } from "../../knowledge/records.js";
import {
  inputWarnings,
  newRecord,
  proposeChange,
  validate,
  type Finding,
  type ProposedRecord,
  type Section,
} from "./compare.js";
import { endoflifePage, type EndOfLifeProduct, type EndOfLifeProductCycle } from "./endoflife.js";
import {
  citesEndoflife,
  compareLines,
  compareValue,
  RUNTIME_PRODUCTS,
} from "./endoflife-products.js";

export interface RuntimeReleaseComparison {
  readonly kb: readonly RuntimeReleaseRecord[];
  readonly products: readonly EndOfLifeProduct[];
  readonly fields: readonly string[];
  readonly file: string;
  readonly from: string;
}

/** endoflife.date's active support only where it ends before the end of life (containerd's pages give the same day for both). */
const activeSupport = (cycle: EndOfLifeProductCycle): string | null =>
  cycle.support !== null && cycle.eol !== null && cycle.support < cycle.eol ? cycle.support : null;

/** kb field → endoflife.date's field and its value. */
function upstreamValues(cycle: EndOfLifeProductCycle): [string, string, unknown][] {
  return [
    ["releaseDate", "releaseDate", cycle.releaseDate],
    ["endOfActiveSupport", "support", activeSupport(cycle)],
    ["endOfLife", "eol", cycle.eol],
    ["lts", "lts", cycle.lts],
  ];
}

function proposeLine(
  component: string,
  product: string,
  cycle: EndOfLifeProductCycle,
  fields: readonly string[],
): ProposedRecord {
  const comments: Record<string, string> = {};
  const record = newRecord(
    fields,
    {
      component,
      line: cycle.cycle,
      lts: cycle.lts,
      releaseDate: cycle.releaseDate,
      endOfActiveSupport: activeSupport(cycle),
      endOfLife: cycle.eol,
      endOfLifeMonth: null,
      tentative: false,
      extendedSupportScope: null,
      upgradeFromLine: null,
      upgradeFromMinVersion: null,
      upgradeSourceUrl: null,
      sourceUrl: endoflifePage(product),
      notes: cycle.latest === null ? null : `Latest release on endoflife.date: ${cycle.latest}.`,
      disagreement: null,
    },
    comments,
  );
  comments.endOfLife = "endoflife.date eol; if the project gives only a month, use endOfLifeMonth";
  comments.upgradeFromLine = "not on endoflife.date: the project's upgrade guide, if it has a rule";
  return {
    change: "new",
    key: `${component} ${cycle.cycle}`,
    record,
    comments,
    problems: validate("runtimeReleases", record),
  };
}

/** A month-only kb end of life that endoflife.date writes as the month's first day. */
function monthOnly(row: RuntimeReleaseRecord, eol: string | null): boolean {
  return (
    row.endOfLife === null && row.endOfLifeMonth !== null && eol === `${row.endOfLifeMonth}-01`
  );
}

function compareLine(
  row: RuntimeReleaseRecord,
  cycle: EndOfLifeProductCycle,
  product: string,
  fields: readonly string[],
): { findings: Finding[]; proposal: ProposedRecord | undefined } {
  const key = `${row.component} ${row.line}`;
  const page = endoflifePage(product);
  const findings: Finding[] = [];
  const changes: Record<string, unknown> = {};
  const comments: Record<string, string> = {};
  const fromEndoflife = citesEndoflife(row.sourceUrl);
  for (const [field, json, upstream] of upstreamValues(cycle)) {
    if (field === "endOfLife" && monthOnly(row, cycle.eol)) {
      findings.push({
        status: "info",
        key,
        message: `${key} endOfLifeMonth ${row.endOfLifeMonth}: endoflife.date writes the month-only end as ${String(cycle.eol)}; no difference`,
        source: page,
      });
      continue;
    }
    const current =
      field === "endOfLife" && row.endOfLifeMonth !== null
        ? row.endOfLifeMonth
        : row[field as keyof RuntimeReleaseRecord];
    const { finding, take } = compareValue({
      key,
      field: field === "endOfLife" && row.endOfLifeMonth !== null ? "endOfLifeMonth" : field,
      upstreamField: json,
      current,
      upstream,
      fromEndoflife,
      rowSource: row.sourceUrl,
      disagreement: row.disagreement,
      page,
    });
    if (finding !== null) findings.push(finding);
    if (!take) continue;
    changes[field] = upstream;
    if (field === "endOfLife") changes.endOfLifeMonth = null;
    comments[field] = `kb: ${String(current)}; endoflife.date ${json}`;
  }
  const proposal = proposeChange("runtimeReleases", key, fields, row, changes, comments);
  return { findings, proposal };
}

export function compareRuntimeReleases(input: RuntimeReleaseComparison): Section {
  const findings: Finding[] = [];
  const proposals: ProposedRecord[] = [];
  for (const product of input.products) {
    findings.push(...inputWarnings(product.warnings));
    const component = RUNTIME_PRODUCTS[product.product]?.component ?? product.product;
    const rows = input.kb.filter((row) => row.component === component);
    if (rows.length === 0) {
      findings.push({
        status: "info",
        key: `(${product.product})`,
        message: `the kb has no release line of ${component}; endoflife.date's ${product.product} is not compared`,
        source: null,
      });
      continue;
    }
    const byLine = new Map(rows.map((row) => [row.line, row]));
    const oldest = [...byLine.keys()].sort(compareLines)[0]!;
    const older: string[] = [];
    for (const cycle of [...product.cycles].sort((a, b) => compareLines(a.cycle, b.cycle))) {
      const row = byLine.get(cycle.cycle);
      if (row !== undefined) {
        const compared = compareLine(row, cycle, product.product, input.fields);
        findings.push(...compared.findings);
        if (compared.proposal !== undefined) proposals.push(compared.proposal);
      } else if (compareLines(cycle.cycle, oldest) < 0) {
        older.push(cycle.cycle);
      } else {
        const proposal = proposeLine(component, product.product, cycle, input.fields);
        proposals.push(proposal);
        findings.push({
          status: "missing",
          key: proposal.key,
          message: `${proposal.key}: released ${String(cycle.releaseDate)}, end of life ${String(cycle.eol)}${cycle.lts ? ", LTS" : ""}`,
          source: endoflifePage(product.product),
        });
      }
    }
    if (older.length > 0)
      findings.push({
        status: "info",
        key: `${component} (older)`,
        message: `endoflife.date ${product.product} also lists ${older.join(", ")}, older than the kb's oldest ${component} line; not proposed`,
        source: null,
      });
  }
  return {
    entity: "runtimeReleases",
    file: input.file,
    from: input.from,
    derivation: "endoflife-runtime-releases",
    findings,
    proposals,
  };
}
