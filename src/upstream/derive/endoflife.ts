/**
 * endoflife.date's data as its API serves it, in either of its two shapes:
 *
 * - v0, https://endoflife.date/api/<product>.json: a JSON array with one object per release cycle, e.g.
 *     {"cycle": "1.36", "releaseDate": "2026-04-22", "support": "2027-04-28",
 *      "eol": "2027-06-28", "latest": "1.36.4", "latestReleaseDate": "2026-08-20", "lts": false}
 *   where `support` is the product page's `eoas` (end of active/standard support) and
 *   `extendedSupport` its `eoes` (present only for products with that column); a product's custom
 *   fields (istio's supportedKubernetesVersions) sit in the cycle object itself.
 * - v1, https://endoflife.date/api/v1/products/<product>/: {"result": {"name": "<product>",
 *   "releases": [{"name", "releaseDate", "eoasFrom", "eolFrom", "eoesFrom", "isLts",
 *   "latest": {"name", "date"}, "custom": {...}}]}}.
 *
 * Any date may be a boolean instead (v0) or null (v1) when the date is not known, which is read as
 * "no date". Pure: the file is read elsewhere (kb-derive-endoflife.ts).
 */
import { DeriveInputError } from "./errors.js";

export const ENDOFLIFE_PAGE = "https://endoflife.date/kubernetes";

/** The page of a product on endoflife.date, what a record derived from it cites. */
export const endoflifePage = (product: string): string => `https://endoflife.date/${product}`;

/** One release cycle of any product, in the v0 API's terms. */
export interface EndOfLifeProductCycle {
  /** "1.36", "2.3" */
  readonly cycle: string;
  readonly releaseDate: string | null;
  /** End of active/standard support (the page's eoas, v0's support, v1's eoasFrom). */
  readonly support: string | null;
  /** The page's eol (v1's eolFrom): what it means is the product's own (see each product's mapping). */
  readonly eol: string | null;
  /** End of extended support (the page's eoes, v0's extendedSupport, v1's eoesFrom). */
  readonly extendedSupport: string | null;
  readonly latest: string | null;
  readonly latestReleaseDate: string | null;
  readonly lts: boolean;
  /** The product's custom fields with a text value (supportedKubernetesVersions: "1.32 - 1.36"). */
  readonly custom: Readonly<Record<string, string>>;
}

/** One product as the comparisons take it: its name on endoflife.date, what was read (a file or URL), its cycles. */
export interface EndOfLifeProduct {
  /** The endoflife.date product, e.g. amazon-eks. */
  readonly product: string;
  readonly name: string;
  readonly cycles: readonly EndOfLifeProductCycle[];
  readonly warnings: readonly string[];
}

export interface ParsedEndOfLifeProduct {
  readonly shape: "v0" | "v1";
  /** The product the file says it is (v1's result.name); null for v0, which does not say. */
  readonly product: string | null;
  readonly cycles: readonly EndOfLifeProductCycle[];
  /** Entries that were not understood (named, not fatal). */
  readonly warnings: readonly string[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** v0 fields that are not a product's custom fields. */
const V0_FIELDS = new Set([
  "cycle",
  "releaseDate",
  "support",
  "eol",
  "extendedSupport",
  "latest",
  "latestReleaseDate",
  "lts",
  "link",
  "codename",
  "discontinued",
  "releaseLabel",
]);

type Entry = Record<string, unknown>;

function isEntry(value: unknown): value is Entry {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Parses the API's JSON text; `flag` and `file` name the input in messages. */
export function parseEndOfLifeProduct(
  text: string,
  file: string,
  flag: string,
): ParsedEndOfLifeProduct {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DeriveInputError(
      `${flag}: ${file} is not valid JSON (${(error as Error).message}); save endoflife.date's API answer as it is served`,
    );
  }
  const warnings: string[] = [];
  if (Array.isArray(value)) {
    const cycles = value.flatMap((entry: unknown, index) =>
      v0Cycle(entry, `${file}[${index}]`, warnings),
    );
    return { shape: "v0", product: null, cycles, warnings };
  }
  const result = isEntry(value) ? value.result : undefined;
  if (isEntry(result) && Array.isArray(result.releases)) {
    const cycles = result.releases.flatMap((entry: unknown, index) =>
      v1Cycle(entry, `${file} result.releases[${index}]`, warnings),
    );
    const product = typeof result.name === "string" ? result.name : null;
    return { shape: "v1", product, cycles, warnings };
  }
  throw new DeriveInputError(
    `${flag}: ${file} is JSON but not an array of release cycles (the v0 API's https://endoflife.date/api/<product>.json: [{"cycle": "1.36", ...}]) nor a v1 product ({"result": {"releases": [...]}} from https://endoflife.date/api/v1/products/<product>/)`,
  );
}

/** A date field: a YYYY-MM-DD text, else no date (a boolean or null means "not known"); anything else is warned of. */
function dateOf(raw: unknown, where: string, field: string, warnings: string[]): string | null {
  if (raw === undefined || raw === null || typeof raw === "boolean") return null;
  if (typeof raw === "string" && DATE.test(raw)) return raw;
  warnings.push(`${where}: ${field} ${JSON.stringify(raw)} is not a date (YYYY-MM-DD); ignored`);
  return null;
}

function cycleName(raw: unknown, where: string, field: string, warnings: string[]): string | null {
  if (typeof raw === "string" && raw.trim() !== "") return raw.trim();
  warnings.push(`${where} has no string "${field}" (got ${JSON.stringify(raw)}); skipped`);
  return null;
}

const textOrNull = (raw: unknown): string | null =>
  typeof raw === "string" && raw.trim() !== "" ? raw.trim() : null;

function customTexts(entries: Iterable<[string, unknown]>): Record<string, string> {
  const custom: Record<string, string> = {};
  for (const [field, raw] of entries) {
    const text = textOrNull(raw);
    if (text !== null) custom[field] = text;
  }
  return custom;
}

function v0Cycle(entry: unknown, where: string, warnings: string[]): EndOfLifeProductCycle[] {
  if (!isEntry(entry)) {
    warnings.push(`${where} is not an object; skipped`);
    return [];
  }
  const cycle = cycleName(entry.cycle, where, "cycle", warnings);
  if (cycle === null) return [];
  const at = `${where.replace(/\[\d+\]$/, "")} cycle ${cycle}`;
  return [
    {
      cycle,
      releaseDate: dateOf(entry.releaseDate, at, "releaseDate", warnings),
      support: dateOf(entry.support, at, "support", warnings),
      eol: dateOf(entry.eol, at, "eol", warnings),
      extendedSupport: dateOf(entry.extendedSupport, at, "extendedSupport", warnings),
      latest: textOrNull(entry.latest),
      latestReleaseDate: dateOf(entry.latestReleaseDate, at, "latestReleaseDate", warnings),
      lts: entry.lts === true,
      custom: customTexts(Object.entries(entry).filter(([field]) => !V0_FIELDS.has(field))),
    },
  ];
}

function v1Cycle(entry: unknown, where: string, warnings: string[]): EndOfLifeProductCycle[] {
  if (!isEntry(entry)) {
    warnings.push(`${where} is not an object; skipped`);
    return [];
  }
  const cycle = cycleName(entry.name, where, "name", warnings);
  if (cycle === null) return [];
  const at = `${where.replace(/ result\.releases\[\d+\]$/, "")} cycle ${cycle}`;
  const latest = isEntry(entry.latest) ? entry.latest : {};
  return [
    {
      cycle,
      releaseDate: dateOf(entry.releaseDate, at, "releaseDate", warnings),
      support: dateOf(entry.eoasFrom, at, "eoasFrom", warnings),
      eol: dateOf(entry.eolFrom, at, "eolFrom", warnings),
      extendedSupport: dateOf(entry.eoesFrom, at, "eoesFrom", warnings),
      latest: textOrNull(latest.name),
      latestReleaseDate: dateOf(latest.date, at, "latest.date", warnings),
      lts: entry.isLts === true,
      custom: isEntry(entry.custom) ? customTexts(Object.entries(entry.custom)) : {},
    },
  ];
}

// ---------------------------------------------------------------- Kubernetes itself

export interface EndOfLifeCycle {
  /** "1.36" */
  readonly cycle: string;
  readonly releaseDate: string | null;
  /** End of standard support (the page's eoas, the API's support). */
  readonly support: string | null;
  readonly eol: string | null;
  readonly latest: string | null;
  readonly latestReleaseDate: string | null;
}

export interface ParsedEndOfLife {
  readonly cycles: readonly EndOfLifeCycle[];
  /** Entries that were not understood (named, not fatal). */
  readonly warnings: readonly string[];
}

/** endoflife.date's kubernetes product (v0 or v1): Kubernetes minors and their patches; `file` names the input in messages. */
export function parseEndOfLifeJson(
  text: string,
  file: string,
  flag = "--endoflife",
): ParsedEndOfLife {
  const parsed = parseEndOfLifeProduct(text, file, flag);
  const warnings = [...parsed.warnings];
  const cycles: EndOfLifeCycle[] = [];
  for (const entry of parsed.cycles) {
    if (!/^1\.(0|[1-9]\d{0,2})$/.test(entry.cycle)) {
      warnings.push(
        `${file} cycle "${entry.cycle}" is not a Kubernetes minor such as "1.36"; skipped`,
      );
      continue;
    }
    let latest = entry.latest;
    if (latest !== null && !/^\d+\.\d+\.\d+$/.test(latest)) {
      warnings.push(
        `${file} cycle ${entry.cycle}: latest ${JSON.stringify(latest)} is not a version such as 1.36.4; ignored`,
      );
      latest = null;
    }
    if (latest !== null && !latest.startsWith(`${entry.cycle}.`)) {
      warnings.push(
        `${file} cycle ${entry.cycle}: latest ${latest} is not a patch of ${entry.cycle}; ignored`,
      );
      latest = null;
    }
    const { cycle, releaseDate, support, eol, latestReleaseDate } = entry;
    cycles.push({ cycle, releaseDate, support, eol, latest, latestReleaseDate });
  }
  if (cycles.length === 0) {
    throw new DeriveInputError(
      `${flag}: ${file} holds no Kubernetes release cycle ("cycle": "1.N"); is it endoflife.date's kubernetes.json?`,
    );
  }
  return { cycles, warnings };
}
