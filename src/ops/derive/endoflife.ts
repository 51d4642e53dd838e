/**
 * endoflife.date's Kubernetes data as its API serves it
 * (https://endoflife.date/api/kubernetes.json): a JSON array with one object
 * per minor, e.g.
 *   {"cycle": "1.36", "releaseDate": "2026-04-22", "support": "2027-04-28",
 *    "eol": "2027-06-28", "latest": "1.36.4", "latestReleaseDate": "2026-08-20", "lts": false}
 * `support` is the product page's `eoas` (end of active/standard support) and
 * `eol` its maintenance-support end; either may be a boolean instead of a date
 * when the date is not known, which is read as "no date". Pure.
 */
import { DeriveInputError } from "./errors.js";

export const ENDOFLIFE_PAGE = "https://endoflife.date/kubernetes";

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

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Parses the API's JSON text; `file` names the input in messages. */
export function parseEndOfLifeJson(text: string, file: string): ParsedEndOfLife {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DeriveInputError(
      `--endoflife: ${file} is not valid JSON (${(error as Error).message}); save https://endoflife.date/api/kubernetes.json as it is served`,
    );
  }
  if (!Array.isArray(value)) {
    throw new DeriveInputError(
      `--endoflife: ${file} is JSON but not an array of release cycles; expected the v0 API's https://endoflife.date/api/kubernetes.json ([{"cycle": "1.36", "releaseDate": ..., "eol": ...}, ...])`,
    );
  }
  const cycles: EndOfLifeCycle[] = [];
  const warnings: string[] = [];
  value.forEach((entry: unknown, index) => {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      warnings.push(`${file}[${index}] is not an object; skipped`);
      return;
    }
    const record = entry as Record<string, unknown>;
    if (typeof record.cycle !== "string") {
      warnings.push(
        `${file}[${index}] has no string "cycle" (got ${JSON.stringify(record.cycle)}); skipped`,
      );
      return;
    }
    if (!/^1\.(0|[1-9]\d{0,2})$/.test(record.cycle)) {
      warnings.push(
        `${file}[${index}] cycle "${record.cycle}" is not a Kubernetes minor such as "1.36"; skipped`,
      );
      return;
    }
    const date = (field: string): string | null => {
      const raw = record[field];
      if (raw === undefined || raw === null || typeof raw === "boolean") return null;
      if (typeof raw === "string" && DATE.test(raw)) return raw;
      warnings.push(
        `${file} cycle ${String(record.cycle)}: ${field} ${JSON.stringify(raw)} is not a date (YYYY-MM-DD); ignored`,
      );
      return null;
    };
    const latestRaw = record.latest;
    let latest: string | null = null;
    if (typeof latestRaw === "string" && /^\d+\.\d+\.\d+$/.test(latestRaw)) latest = latestRaw;
    else if (latestRaw !== undefined && latestRaw !== null)
      warnings.push(
        `${file} cycle ${record.cycle}: latest ${JSON.stringify(latestRaw)} is not a version such as 1.36.4; ignored`,
      );
    if (latest !== null && !latest.startsWith(`${record.cycle}.`)) {
      warnings.push(
        `${file} cycle ${record.cycle}: latest ${latest} is not a patch of ${record.cycle}; ignored`,
      );
      latest = null;
    }
    cycles.push({
      cycle: record.cycle,
      releaseDate: date("releaseDate"),
      support: date("support"),
      eol: date("eol"),
      latest,
      latestReleaseDate: date("latestReleaseDate"),
    });
  });
  if (cycles.length === 0) {
    throw new DeriveInputError(
      `--endoflife: ${file} holds no Kubernetes release cycle ("cycle": "1.N"); is it endoflife.date's kubernetes.json?`,
    );
  }
  return { cycles, warnings };
}
