/**
 * Feature gates from the kubernetes/website feature-gate pages
 * (content/en/docs/reference/command-line-tools-reference/feature-gates/<Gate>.md),
 * compared with kb/feature-gates.yaml. Each page's YAML front matter holds:
 *
 *   title: DynamicKubeletConfig        # the gate's name (the page's anchor on the site)
 *   stages:
 *     - stage: alpha                   # alpha | beta | stable | deprecated
 *       defaultValue: false
 *       locked: true                   # optional; only some pages give it
 *       fromVersion: "1.4"
 *       toVersion: "1.10"              # the last minor of the stage; none for the current one
 *   removed: true                      # the gate is gone; the page moves to "Feature Gates (removed)"
 *
 * Read as: a stage's toVersion is the last minor in which it holds, so a removed
 * gate no longer exists from the minor after its last stage's toVersion
 * (removedIn). A stage without toVersion is the current one if it is the last;
 * in the middle, it ends the minor before the next stage starts (noted).
 * Versions written as patch releases ("1.31.1") are kept at their minor (noted).
 * `locked` is taken only from the front matter (absent: false).
 *
 * Pure: the command (src/ops/kb-derive.ts) lists the directory and hands the
 * texts in; compare-feature-gates.ts compares the gates read with the kb.
 */
import { LineCounter, parseDocument } from "yaml";
import {
  MAX_YAML_DEPTH,
  YamlCostMeter,
  firstDuplicateKey,
  yamlShapeProblem,
} from "../../core/yaml-limits.js";
import { type FeatureGateRecord } from "../../knowledge/records.js";
import { DeriveInputError } from "./errors.js";

export const WEBSITE_REPOSITORY = "https://github.com/kubernetes/website";
/** The folder of the pages inside a kubernetes/website checkout. */
export const FEATURE_GATES_DIR =
  "content/en/docs/reference/command-line-tools-reference/feature-gates";
export const FEATURE_GATES_PAGE =
  "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/";
export const REMOVED_FEATURE_GATES_PAGE =
  "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates-removed/";

/** The files of the folder that are not gate pages (the Hugo bundle's own page). */
const NOT_GATE_PAGES = new Set(["index.md", "_index.md"]);

const YAML_OPTIONS = { uniqueKeys: false, maxAliasCount: 100, prettyErrors: false } as const;

const STAGES = { alpha: "ALPHA", beta: "BETA", stable: "GA", deprecated: "DEPRECATED" } as const;
type PageStage = keyof typeof STAGES;
export type Stage = FeatureGateRecord["stages"][number];

export interface FeatureGatePage {
  /** The file name, e.g. DynamicKubeletConfig.md. */
  readonly file: string;
  readonly text: string;
}

export interface DerivedFeatureGate {
  readonly name: string;
  readonly file: string;
  readonly removed: boolean;
  /** The stages the record can hold (each with a default), in page order. */
  readonly stages: readonly Stage[];
  readonly removedIn: string | null;
  /** What was inferred or left out, as full sentences for the record's notes. */
  readonly notes: readonly string[];
}

export interface SkippedPage {
  readonly file: string;
  /** The page's title, when it has one. */
  readonly name: string;
  readonly reason: string;
}

export interface ParsedFeatureGates {
  readonly gates: readonly DerivedFeatureGate[];
  /** Pages that parse but give no record (no stage data, no removal minor): left out, reported. */
  readonly skipped: readonly SkippedPage[];
  /** Pages whose title is not their file name, and the like: reported, not fatal. */
  readonly warnings: readonly string[];
}

const minorNumber = (minor: string): number => Number(minor.split(".")[1]);
const minor = (value: number): string => `1.${value}`;

function fail(file: string, problem: string): never {
  throw new DeriveInputError(`--feature-gates: ${file}: ${problem}`);
}

/** The YAML between the opening `---` line and the next `---` line, with the line it starts on. */
function frontMatter(file: string, text: string): { yaml: string; firstLine: number } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") {
    fail(
      file,
      'does not start with YAML front matter (a "---" line); a feature-gate page starts with ---, its stages, and a closing ---',
    );
  }
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === "---");
  if (end < 0) fail(file, 'its front matter has no closing "---" line');
  return { yaml: lines.slice(1, end).join("\n"), firstLine: 2 };
}

function parseFrontMatter(file: string, text: string): Record<string, unknown> {
  const { yaml, firstLine } = frontMatter(file, text);
  const shape = yamlShapeProblem(yaml);
  if (shape !== null) {
    const line = shape.line + firstLine - 1;
    if (shape.problem === "syntax")
      fail(
        file,
        `line ${line}: the front matter is not valid YAML (${shape.message.split("\n")[0]})`,
      );
    fail(
      file,
      shape.problem === "depth"
        ? `line ${line}: the front matter is nested more than ${MAX_YAML_DEPTH} levels deep`
        : `the front matter holds more than ${YamlCostMeter.describe(shape.problem)}`,
    );
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(yaml, { ...YAML_OPTIONS, lineCounter });
  const error = document.errors[0];
  if (error !== undefined)
    fail(
      file,
      `line ${lineCounter.linePos(error.pos[0]).line + firstLine - 1}: the front matter is not valid YAML (${error.message.split("\n")[0]})`,
    );
  if (firstDuplicateKey(document) !== null)
    fail(file, "the front matter repeats a key (map keys must be unique)");
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: YAML_OPTIONS.maxAliasCount });
  } catch (error) {
    fail(file, `the front matter cannot be read (${(error as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    fail(file, "the front matter is not a mapping (title:, stages:, ...)");
  return value as Record<string, unknown>;
}

/** "1.31" or "1.31.1" (the site accepts both) → the minor, and whether a patch was given. */
function readVersion(
  file: string,
  where: string,
  value: unknown,
): { minor: string; patch: boolean; text: string } {
  if (typeof value === "number")
    fail(
      file,
      `${where} is the number ${value}; write versions quoted, such as "1.10" (unquoted, 1.10 reads as 1.1)`,
    );
  if (typeof value !== "string") fail(file, `${where} must be a Kubernetes version such as "1.31"`);
  const match = /^1\.(0|[1-9]\d{0,2})(?:\.(0|[1-9]\d{0,3}))?$/.exec(value.trim());
  if (match === null) fail(file, `${where} "${value}" is not a Kubernetes version such as "1.31"`);
  return { minor: `1.${match[1]!}`, patch: match[2] !== undefined, text: value.trim() };
}

interface PageStageEntry {
  readonly stage: PageStage;
  readonly defaultValue: boolean | null;
  readonly locked: boolean | null;
  readonly from: string;
  readonly to: string | null;
  /** The versions as written, when one of them names a patch release. */
  readonly patchText: string | null;
}

function readStage(file: string, index: number, value: unknown): PageStageEntry {
  const where = `stages[${index}]`;
  if (value === null || typeof value !== "object" || Array.isArray(value))
    fail(file, `${where} is not a mapping with stage:, defaultValue:, fromVersion:`);
  const entry = value as Record<string, unknown>;
  const stage = typeof entry.stage === "string" ? entry.stage.trim() : entry.stage;
  if (typeof stage !== "string" || !(stage in STAGES)) {
    fail(
      file,
      `${where}.stage is ${JSON.stringify(stage) ?? "missing"}; it must be one of alpha, beta, stable, deprecated`,
    );
  }
  if (
    entry.defaultValue !== undefined &&
    entry.defaultValue !== null &&
    typeof entry.defaultValue !== "boolean"
  ) {
    fail(
      file,
      `${where}.defaultValue is ${JSON.stringify(entry.defaultValue)}; it must be true or false`,
    );
  }
  if (entry.locked !== undefined && typeof entry.locked !== "boolean")
    fail(file, `${where}.locked is ${JSON.stringify(entry.locked)}; it must be true or false`);
  if (entry.fromVersion === undefined || entry.fromVersion === null)
    fail(file, `${where} has no fromVersion`);
  const from = readVersion(file, `${where}.fromVersion`, entry.fromVersion);
  const to =
    entry.toVersion === undefined || entry.toVersion === null
      ? null
      : readVersion(file, `${where}.toVersion`, entry.toVersion);
  if (to !== null && minorNumber(to.minor) < minorNumber(from.minor))
    fail(file, `${where}: toVersion ${to.minor} is before fromVersion ${from.minor}`);
  const patchText =
    from.patch || to?.patch === true
      ? `from ${from.text}${to === null ? "" : ` to ${to.text}`}`
      : null;
  return {
    stage: stage as PageStage,
    defaultValue: typeof entry.defaultValue === "boolean" ? entry.defaultValue : null,
    locked: typeof entry.locked === "boolean" ? entry.locked : null,
    from: from.minor,
    to: to?.minor ?? null,
    patchText,
  };
}

const stageWords = (entry: PageStageEntry): string =>
  `${entry.stage} stage from ${entry.from}${entry.to === null ? "" : ` to ${entry.to}`}`;

/** The page's stages, checked to be listed in order of their fromVersion. */
function readStages(file: string, pageStages: readonly unknown[]): PageStageEntry[] {
  const entries = pageStages.map((value, index) => readStage(file, index, value));
  entries.forEach((entry, index) => {
    const previous = entries[index - 1];
    if (previous !== undefined && minorNumber(entry.from) < minorNumber(previous.from)) {
      fail(
        file,
        `stages[${index}] starts at ${entry.from}, before stages[${index - 1}] (${previous.from}); list the stages in order`,
      );
    }
  });
  return entries;
}

/**
 * The stages the record can hold, and the notes that say what was inferred
 * (a missing toVersion, an overlap, a patch release kept at its minor) or left
 * out (a stage without a default value).
 */
function recordStages(entries: readonly PageStageEntry[]): { stages: Stage[]; notes: string[] } {
  const notes: string[] = [];
  const stages: Stage[] = [];
  const omitted: string[] = [];
  const inferred: string[] = [];
  const overlaps: string[] = [];
  entries.forEach((entry, index) => {
    const next = entries[index + 1];
    let to = entry.to;
    if (to === null && next !== undefined) {
      to =
        minorNumber(next.from) > minorNumber(entry.from)
          ? minor(minorNumber(next.from) - 1)
          : entry.from;
      inferred.push(
        `the ${stageWords(entry)} has no toVersion, so it is taken to end at ${to}, before the next stage starts at ${next.from}`,
      );
    }
    if (next !== undefined && to !== null && minorNumber(next.from) <= minorNumber(to))
      overlaps.push(
        `the ${stageWords({ ...entry, to })} overlaps the next stage, which starts at ${next.from}`,
      );
    if (entry.defaultValue === null) {
      omitted.push(`a ${stageWords({ ...entry, to })}`);
      return;
    }
    stages.push({
      stage: STAGES[entry.stage],
      defaultValue: entry.defaultValue,
      locked: entry.locked === true,
      fromVersion: entry.from,
      toVersion: to,
    });
  });
  const patches = entries
    .filter((entry) => entry.patchText !== null)
    .map((entry) => `the ${entry.stage} stage ${entry.patchText!}`);
  if (patches.length > 0)
    notes.push(
      `The page gives patch releases for ${patches.join(" and ")}; the record keeps their minors.`,
    );
  for (const sentence of inferred) notes.push(`On the page ${sentence}.`);
  for (const sentence of overlaps) notes.push(`On the page ${sentence}.`);
  if (omitted.length > 0)
    notes.push(
      `The page also lists ${omitted.join(" and ")} without a default value; the record leaves ${omitted.length === 1 ? "it" : "them"} out.`,
    );
  return { stages, notes };
}

/**
 * One page's front matter as a feature gate; a SkippedPage when the page parses
 * but gives no record. Throws DeriveInputError for a page that is not in the format.
 */
export function parseFeatureGatePage(file: string, text: string): DerivedFeatureGate | SkippedPage {
  const matter = parseFrontMatter(file, text);
  const title = matter.title;
  if (typeof title !== "string" || !/^[A-Z][A-Za-z0-9]{1,100}$/.test(title.trim())) {
    fail(
      file,
      `title is ${JSON.stringify(title) ?? "missing"}; it must be the gate's name, such as DynamicKubeletConfig`,
    );
  }
  const name = title.trim();
  if (
    matter.removed !== undefined &&
    matter.removed !== null &&
    typeof matter.removed !== "boolean"
  ) {
    fail(file, `removed is ${JSON.stringify(matter.removed)}; it must be true or false`);
  }
  const removed = matter.removed === true;
  if (matter.stages === undefined || matter.stages === null)
    return { file, name, reason: "the page has no stages in its front matter" };
  if (!Array.isArray(matter.stages))
    fail(file, "stages must be a list of { stage, defaultValue, fromVersion, toVersion }");
  const pageStages = matter.stages as unknown[];
  if (pageStages.length === 0) return { file, name, reason: "the page's stages list is empty" };
  const entries = readStages(file, pageStages);
  const { stages, notes } = recordStages(entries);
  const formerTitles = Array.isArray(matter.former_titles)
    ? (matter.former_titles as unknown[]).filter(
        (value): value is string => typeof value === "string",
      )
    : [];
  if (formerTitles.length > 0)
    notes.push(`The page says the gate was formerly named ${formerTitles.join(", ")}.`);
  if (stages.length === 0)
    return { file, name, reason: "no stage on the page gives a default value" };

  const last = entries.at(-1)!;
  let removedIn: string | null = null;
  if (removed) {
    if (last.to === null) {
      return {
        file,
        name,
        reason: `the page says removed: true, but its last stage (${last.stage} from ${last.from}) has no toVersion, so the minor of the removal is not stated`,
      };
    }
    removedIn = minor(minorNumber(last.to) + 1);
  } else if (last.to !== null) {
    notes.push(
      `The page's last stage ends at ${last.to}, but the page does not mark the gate as removed; the record leaves removedIn empty.`,
    );
  }
  return { name, file, removed, stages, removedIn, notes };
}

/** Every page of the folder (index.md and _index.md are the folder's own page, not gates). */
export function parseFeatureGatePages(pages: readonly FeatureGatePage[]): ParsedFeatureGates {
  const gates: DerivedFeatureGate[] = [];
  const skipped: SkippedPage[] = [];
  const warnings: string[] = [];
  const byName = new Map<string, string>();
  for (const page of [...pages].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    if (NOT_GATE_PAGES.has(page.file) || !page.file.endsWith(".md")) continue;
    const parsed = parseFeatureGatePage(page.file, page.text);
    if ("reason" in parsed) {
      skipped.push(parsed);
      continue;
    }
    const earlier = byName.get(parsed.name);
    if (earlier !== undefined)
      fail(
        page.file,
        `its title ${parsed.name} is also the title of ${earlier}; each gate has one page`,
      );
    byName.set(parsed.name, page.file);
    if (`${parsed.name}.md` !== page.file)
      warnings.push(
        `${page.file}: the title is ${parsed.name}, not the file name; the gate is read as ${parsed.name}`,
      );
    gates.push(parsed);
  }
  if (gates.length === 0 && skipped.length === 0) {
    throw new DeriveInputError(
      `--feature-gates: no feature-gate pages (<Gate>.md); give the ${FEATURE_GATES_DIR} folder of a kubernetes/website checkout`,
    );
  }
  return { gates, skipped, warnings };
}

/** The record's source: the page at the commit when it is known, else the gate's entry on kubernetes.io. */
export function featureGateSourceUrl(
  gate: Pick<DerivedFeatureGate, "name" | "file" | "removed">,
  commit: string | null,
): string {
  if (commit !== null)
    return `${WEBSITE_REPOSITORY}/blob/${commit}/${FEATURE_GATES_DIR}/${gate.file}`;
  return `${gate.removed ? REMOVED_FEATURE_GATES_PAGE : FEATURE_GATES_PAGE}#${gate.name}`;
}
