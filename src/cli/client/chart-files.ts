/**
 * A Helm chart's files as the chart scan takes them (path relative to the chart → text), read from a chart
 * folder (one with Chart.yaml) or a packaged chart (`helm package`'s .tgz: gzip over tar, whose entries
 * sit under the chart's name). Subcharts packaged under charts/ are unpacked the same way, into
 * charts/<name>/. Binary files and the chart's VCS folders are left out; only text is sent.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { InputFileError } from "./errors.js";

export type ChartFileTexts = Record<string, string>;

/** More than a chart holds; beyond it the folder is probably not a chart. */
const MAX_FILES = 2000;
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const SKIPPED_FOLDERS = new Set([".git", ".svn", ".hg", "node_modules"]);

export async function isChartFolder(given: string): Promise<boolean> {
  try {
    return (await fs.stat(path.join(given, "Chart.yaml"))).isFile();
  } catch {
    return false;
  }
}

export function isPackagedChart(given: string): boolean {
  return /\.(tgz|tar\.gz)$/.test(given);
}

/** Text, or null for a binary file (a NUL byte, or not UTF-8). */
function textOf(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  const text = bytes.toString("utf8");
  return text.includes("\uFFFD") ? null : text;
}

function octal(block: Buffer, start: number, length: number): number {
  const text = block
    .subarray(start, start + length)
    .toString("ascii")
    .replace(/\0.*$/s, "")
    .trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

function cString(block: Buffer, start: number, length: number): string {
  return block
    .subarray(start, start + length)
    .toString("utf8")
    .replace(/\0.*$/s, "");
}

/** The regular files of a tar archive, by path: ustar names and prefixes, PAX and GNU long names. */
export function tarEntries(archive: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  let longName: string | null = null;
  for (let offset = 0; offset + 512 <= archive.length; ) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    const body = archive.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "x" || type === "L") {
      const text = body.toString("utf8");
      longName =
        type === "L"
          ? text.replace(/\0.*$/s, "")
          : (/(?:^|\n)\d+ path=([^\n]*)\n/.exec(text)?.[1] ?? null);
      continue;
    }
    const prefix = cString(header, 345, 155);
    const name =
      longName ??
      (prefix === "" ? cString(header, 0, 100) : `${prefix}/${cString(header, 0, 100)}`);
    longName = null;
    if (type === "0" || type === "\0") entries.set(name, Buffer.from(body));
  }
  return entries;
}

/** The files of a packaged chart (its entries under `<name>/`), relative to the chart, subcharts unpacked. */
export function packagedChartFiles(bytes: Buffer, label: string): ChartFileTexts {
  let archive: Buffer;
  try {
    archive = gunzipSync(bytes);
  } catch (error) {
    throw new InputFileError(`${label} is not a gzipped chart: ${(error as Error).message}`);
  }
  const files: ChartFileTexts = {};
  for (const [name, body] of tarEntries(archive)) {
    const relative = name.split("/").slice(1).join("/");
    if (relative === "") continue;
    addFile(files, relative, body, label);
  }
  if (files["Chart.yaml"] === undefined)
    throw new InputFileError(`${label} holds no <chart>/Chart.yaml: is it a packaged Helm chart?`);
  return files;
}

/** A file of the chart; a packaged subchart under charts/ is unpacked into charts/<name>/. */
function addFile(files: ChartFileTexts, relative: string, body: Buffer, label: string): void {
  if (Object.keys(files).length >= MAX_FILES)
    throw new InputFileError(`${label} holds more than ${MAX_FILES} files; is it a chart?`);
  const packed = /^((?:charts\/[^/]+\/)*charts\/)[^/]+\.tgz$/.exec(relative);
  if (packed !== null) {
    const sub = packagedChartFiles(body, `${label}: ${relative}`);
    const name =
      /^name:\s*["']?([^"'\s#]+)/m.exec(sub["Chart.yaml"]!)?.[1] ?? path.basename(relative, ".tgz");
    for (const [file, text] of Object.entries(sub)) files[`${packed[1]}${name}/${file}`] = text;
    return;
  }
  if (body.length > MAX_FILE_BYTES) return;
  const text = textOf(body);
  if (text !== null) files[relative] = text;
}

/** The files of a chart folder, relative to it. */
export async function chartFolderFiles(folder: string): Promise<ChartFileTexts> {
  const files: ChartFileTexts = {};
  const walk = async (relative: string): Promise<void> => {
    const entries = await fs.readdir(path.join(folder, relative), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const inner = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) await walk(inner);
      } else if (entry.isFile()) {
        addFile(files, inner, await fs.readFile(path.join(folder, inner)), folder);
      }
    }
  };
  await walk("");
  return files;
}
