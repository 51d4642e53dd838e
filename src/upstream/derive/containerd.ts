/**
 * containerd's RELEASES.md, section "Kubernetes Support": the first table
 * under that heading maps a Kubernetes minor to the containerd versions
 * recommended for it, one floor per containerd release line:
 *
 *   | Kubernetes Version | containerd Version               | CRI Version     |
 *   |--------------------|----------------------------------|-----------------|
 *   | 1.34               | 2.1.3+, 2.0.6+, 1.7.28+, 1.6.39+ | v1              |
 *
 * Columns are found by their header (so an added column does not shift
 * them); the section's second table ("Deprecated containerd and kubernetes
 * versions", whose columns run the other way) is not read. Pure.
 */
import { DeriveInputError } from "./errors.js";

export const CONTAINERD_REPOSITORY = "https://github.com/containerd/containerd";

export interface ContainerdSupportRow {
  /** "1.34" */
  readonly kubernetes: string;
  /** The floors in table order, without "v" and "+": ["2.1.3", "2.0.6", "1.7.28", "1.6.39"]. */
  readonly versions: readonly string[];
  /** The CRI column as written ("v1"), null without such a column. */
  readonly cri: string | null;
  /** 1-based line in the file, for a #L<n> source link. */
  readonly line: number;
  /** What could not be read in the row; a row with problems is reported, not compared. */
  readonly problems: readonly string[];
}

export interface ContainerdSupportTable {
  readonly headingLine: number;
  readonly rows: readonly ContainerdSupportRow[];
}

function cells(line: string): string[] {
  const trimmed = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return trimmed.split("|").map((cell) => cell.trim());
}

/** Parses RELEASES.md's text; `file` names the input in messages. */
export function parseContainerdReleases(text: string, file: string): ContainerdSupportTable {
  const lines = text.split(/\r?\n/);
  const headingIndex = lines.findIndex((line) => /^#{1,6}\s+Kubernetes Support\s*$/i.test(line));
  if (headingIndex < 0) {
    throw new DeriveInputError(
      `--containerd-releases: ${file} has no "Kubernetes Support" heading; expected containerd's RELEASES.md (https://github.com/containerd/containerd/blob/main/RELEASES.md)`,
    );
  }
  let start = headingIndex + 1;
  while (start < lines.length && !lines[start]!.trim().startsWith("|")) {
    if (/^#{1,6}\s/.test(lines[start]!)) break;
    start += 1;
  }
  if (start >= lines.length || !lines[start]!.trim().startsWith("|")) {
    throw new DeriveInputError(
      `--containerd-releases: ${file} has a "Kubernetes Support" heading (line ${headingIndex + 1}) but no table under it`,
    );
  }
  const header = cells(lines[start]!);
  const column = (pattern: RegExp): number => header.findIndex((cell) => pattern.test(cell));
  const kubernetesColumn = column(/^kubernetes/i);
  const containerdColumn = column(/^containerd/i);
  const criColumn = column(/^cri/i);
  if (kubernetesColumn < 0 || containerdColumn < 0 || kubernetesColumn > containerdColumn) {
    throw new DeriveInputError(
      `--containerd-releases: ${file} line ${start + 1}: the Kubernetes Support table's header is "${lines[start]!.trim()}"; expected "| Kubernetes Version | containerd Version | CRI Version |"`,
    );
  }
  const separator = lines[start + 1] ?? "";
  if (!/^\s*\|?[\s:|-]+\|?\s*$/.test(separator) || !separator.includes("-")) {
    throw new DeriveInputError(
      `--containerd-releases: ${file} line ${start + 2}: expected the table's |---| separator row under its header`,
    );
  }
  const rows: ContainerdSupportRow[] = [];
  for (
    let index = start + 2;
    index < lines.length && lines[index]!.trim().startsWith("|");
    index += 1
  ) {
    const row = cells(lines[index]!);
    const problems: string[] = [];
    const kubernetesCell = row[kubernetesColumn] ?? "";
    const minor = /^v?1\.(0|[1-9]\d{0,2})$/.exec(kubernetesCell);
    if (minor === null)
      problems.push(`Kubernetes version "${kubernetesCell}" is not a minor such as 1.34`);
    const versions: string[] = [];
    for (const entry of (row[containerdColumn] ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "")) {
      const version = /^v?(\d+\.\d+\.\d+)\+?$/.exec(entry);
      if (version === null)
        problems.push(`containerd version "${entry}" is not a version such as 2.1.3+`);
      else versions.push(version[1]!);
    }
    if (versions.length === 0 && problems.length === 0)
      problems.push("no containerd version listed");
    rows.push({
      kubernetes: minor === null ? kubernetesCell : `1.${minor[1]}`,
      versions,
      cri: criColumn < 0 ? null : (row[criColumn] ?? "").replace(/\s*\*+$/, "") || null,
      line: index + 1,
      problems,
    });
  }
  if (rows.length === 0) {
    throw new DeriveInputError(
      `--containerd-releases: ${file}: the Kubernetes Support table (line ${start + 1}) has no rows`,
    );
  }
  return { headingLine: headingIndex + 1, rows };
}
