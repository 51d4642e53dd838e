/**
 * kb/platforms.yaml's calendars (each platform's `releases`) against endoflife.date's managed-platform
 * products (amazon-eks, google-kubernetes-engine, azure-kubernetes-service; endoflife-products.ts):
 * a minor the platform's calendar lacks is proposed (unless older than its oldest row), a row that
 * cites endoflife.date takes endoflife.date's dates, a row that cites the platform's own page keeps
 * its dates and a difference is reported as a disagreement. A proposal is the whole platform record
 * with its releases changed (the platform is the kb's record). Pure.
 */
import type { PlatformRecord } from "../../knowledge/records.js";
import {
  inputWarnings,
  minorNumber,
  proposeChange,
  type Finding,
  type ProposedRecord,
  type Section,
} from "./compare.js";
import { endoflifePage, type EndOfLifeProduct, type EndOfLifeProductCycle } from "./endoflife.js";
import { citesEndoflife, compareValue, PLATFORM_PRODUCTS } from "./endoflife-products.js";

type PlatformRelease = PlatformRecord["releases"][number];

/** kb field → endoflife.date's v0 field (the eol column is each platform's end of standard support). */
const PLATFORM_FIELDS = [
  ["released", "releaseDate"],
  ["endOfStandardSupport", "eol"],
  ["endOfExtendedSupport", "extendedSupport"],
] as const;

export interface PlatformComparison {
  readonly kb: readonly PlatformRecord[];
  readonly products: readonly EndOfLifeProduct[];
  readonly fields: readonly string[];
  readonly file: string;
  readonly from: string;
}

const sameMonth = (kb: string | null, upstream: string | null): boolean =>
  kb !== null && upstream !== null && kb.slice(0, 7) === upstream.slice(0, 7);

function newRow(product: string, cycle: EndOfLifeProductCycle): PlatformRelease {
  return {
    minor: cycle.cycle,
    released: cycle.releaseDate,
    endOfStandardSupport: cycle.eol,
    endOfExtendedSupport: cycle.extendedSupport,
    precision: "DAY",
    sourceUrl: endoflifePage(product),
    disagreement: null,
  };
}

/** One platform's rows against its product's cycles: findings, and its releases as proposed (undefined: unchanged). */
function comparePlatform(
  platform: PlatformRecord,
  product: EndOfLifeProduct,
): { findings: Finding[]; releases: PlatformRelease[] | undefined; notes: string[] } {
  const page = endoflifePage(product.product);
  const findings: Finding[] = [];
  const notes: string[] = [];
  const rows = new Map(platform.releases.map((row) => [row.minor, row]));
  const oldest = Math.min(...platform.releases.map((row) => minorNumber(row.minor)));
  const releases = [...platform.releases];
  const older: string[] = [];
  let changed = false;
  for (const cycle of product.cycles) {
    const key = `${platform.name} ${cycle.cycle}`;
    if (!/^1\.(0|[1-9]\d{0,2})$/.test(cycle.cycle)) {
      findings.push({
        status: "warning",
        key: "(input)",
        message: `${product.name} cycle "${cycle.cycle}" is not a Kubernetes minor such as "1.36"; skipped`,
        source: null,
      });
      continue;
    }
    const row = rows.get(cycle.cycle);
    if (row === undefined) {
      if (platform.releases.length > 0 && minorNumber(cycle.cycle) < oldest) {
        older.push(cycle.cycle);
        continue;
      }
      const added = newRow(product.product, cycle);
      releases.push(added);
      changed = true;
      notes.push(`new ${cycle.cycle}`);
      findings.push({
        status: "missing",
        key,
        message: `${key}: released ${added.released ?? "none"}, endOfStandardSupport ${added.endOfStandardSupport ?? "none"}, endOfExtendedSupport ${added.endOfExtendedSupport ?? "none"}`,
        source: page,
      });
      continue;
    }
    const fromEndoflife = citesEndoflife(row.sourceUrl);
    const updates: Partial<PlatformRelease> = {};
    for (const [field, json] of PLATFORM_FIELDS) {
      // A row the platform dates by month only (AKS) agrees with any day of that month.
      if (row.precision === "MONTH" && sameMonth(row[field], cycle[json])) continue;
      const { finding, take } = compareValue({
        key,
        field,
        upstreamField: json,
        current: row[field],
        upstream: cycle[json],
        fromEndoflife,
        rowSource: row.sourceUrl,
        disagreement: row.disagreement,
        page,
      });
      if (finding !== null) findings.push(finding);
      if (take) Object.assign(updates, { [field]: cycle[json] });
    }
    if (Object.keys(updates).length > 0) {
      releases[releases.indexOf(row)] = { ...row, ...updates, sourceUrl: page, precision: "DAY" };
      changed = true;
      notes.push(`${cycle.cycle} ${Object.keys(updates).join(", ")}`);
    }
  }
  if (older.length > 0)
    findings.push({
      status: "info",
      key: `${platform.name} (older)`,
      message: `endoflife.date ${product.product} also lists ${older.join(", ")}, older than ${platform.name}'s oldest row; not proposed`,
      source: null,
    });
  releases.sort((a, b) => minorNumber(a.minor) - minorNumber(b.minor));
  return { findings, releases: changed ? releases : undefined, notes };
}

export function comparePlatformReleases(input: PlatformComparison): Section {
  const findings: Finding[] = [];
  const proposals: ProposedRecord[] = [];
  for (const product of input.products) {
    findings.push(...inputWarnings(product.warnings));
    const name = PLATFORM_PRODUCTS[product.product]?.platform;
    const platform = input.kb.find((record) => record.name === name);
    if (platform === undefined) {
      findings.push({
        status: "info",
        key: `(${product.product})`,
        message: `the kb has no platform ${String(name)} for endoflife.date's ${product.product}; nothing to compare (a platform record needs its version pattern and node labels, which endoflife.date does not give)`,
        source: null,
      });
      continue;
    }
    const compared = comparePlatform(platform, product);
    findings.push(...compared.findings);
    if (compared.releases === undefined) continue;
    const proposal = proposeChange(
      "platforms",
      platform.name,
      input.fields,
      platform,
      { releases: compared.releases },
      { releases: `endoflife.date ${product.product}: ${compared.notes.join("; ")}` },
    );
    if (proposal !== undefined) proposals.push(proposal);
  }
  return {
    entity: "platforms",
    file: input.file,
    from: input.from,
    derivation: "endoflife-platforms",
    findings,
    proposals,
  };
}
