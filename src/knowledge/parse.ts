/**
 * Turns the YAML texts of a knowledge-base bundle (the files of kb/) into
 * validated records, or one KbValidationError that lists every problem with
 * its file, line, entry, natural key and field. Pure: reading the files is
 * src/knowledge/load.ts's job, so the same code can validate an uploaded bundle.
 */
import { isMap, isSeq, LineCounter, parseDocument, type Node, type YAMLSeq } from "yaml";
import type { z } from "zod";
import { KbValidationError, type KbIssue } from "../core/errors.js";
import { type EntityName, type KbBundle } from "./records.js";
import { ENTITIES, ENTITY_NAMES } from "./registry.js";
import { crossCheckBundle } from "./validate.js";
import {
  MAX_YAML_DEPTH,
  YamlCostMeter,
  firstDuplicateKey,
  yamlShapeProblem,
} from "../core/yaml-limits.js";

/** File name (e.g. `ports.yaml`) → its text. */
export type KbFiles = Readonly<Record<string, string>>;

// Alias expansion is bounded so that a hostile bundle cannot blow up memory. Duplicate keys are
// refused by firstDuplicateKey, in one pass instead of the library's quadratic uniqueKeys check.
const YAML_OPTIONS = { uniqueKeys: false, maxAliasCount: 100, prettyErrors: false } as const;

export function parseKbFiles(files: KbFiles): KbBundle {
  const issues: KbIssue[] = [];
  const known = new Set<string>(ENTITY_NAMES.map((entity) => ENTITIES[entity].file));
  for (const file of Object.keys(files)) {
    if (!known.has(file)) {
      issues.push({
        file,
        message: `is not a knowledge-base file; expected one of ${[...known].join(", ")}`,
      });
    }
  }

  const bundle: Record<string, unknown[]> = {};
  for (const entity of ENTITY_NAMES) {
    bundle[entity] = parseEntityFile(entity, files[ENTITIES[entity].file], issues);
  }
  if (issues.length === 0) {
    issues.push(...crossCheckBundle(bundle as unknown as KbBundle));
  }
  if (issues.length > 0) throw new KbValidationError(issues);
  return bundle as unknown as KbBundle;
}

function parseEntityFile(
  entity: EntityName,
  source: string | undefined,
  issues: KbIssue[],
): unknown[] {
  const { file } = ENTITIES[entity];
  if (source === undefined) {
    issues.push({ file, message: `is missing; it must hold a top-level "${entity}:" list` });
    return [];
  }
  const shape = shapeIssue(file, source);
  if (shape !== null) {
    issues.push(shape);
    return [];
  }
  const read = readEntityList(entity, source, issues);
  return read === null ? [] : validRecords(entity, read, issues);
}

/** A file too deep, too large or not YAML at all, found before the library parses it. */
function shapeIssue(file: string, source: string): KbIssue | null {
  const shape = yamlShapeProblem(source);
  if (shape === null) return null;
  return {
    file,
    line: shape.line,
    message:
      shape.problem === "syntax"
        ? `is not valid YAML: ${shape.message}`
        : shape.problem === "depth"
          ? `is nested more than ${MAX_YAML_DEPTH} levels deep; knowledge-base files are flat lists of records`
          : `holds more than ${YamlCostMeter.describe(shape.problem)}; knowledge-base files are far smaller`,
  };
}

/** A file's top-level list, as nodes (for lines) and as values. */
interface EntityList {
  readonly list: YAMLSeq;
  readonly values: unknown[];
  readonly lineAt: (offset: number | undefined) => number | undefined;
}

/** The YAML document, its one top-level key and its list, each problem an issue; null when there is no list to read. */
function readEntityList(entity: EntityName, source: string, issues: KbIssue[]): EntityList | null {
  const { file } = ENTITIES[entity];
  const lineCounter = new LineCounter();
  const document = parseDocument(source, { ...YAML_OPTIONS, lineCounter });
  const lineAt = (offset: number | undefined): number | undefined =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;

  if (document.errors.length > 0) {
    for (const error of document.errors) {
      issues.push({
        file,
        line: lineAt(error.pos[0]),
        message: `is not valid YAML: ${error.message.split("\n")[0]}`,
      });
    }
    return null;
  }
  const duplicate = firstDuplicateKey(document);
  if (duplicate !== null) {
    issues.push({
      file,
      line: lineAt(duplicate.range?.[0]),
      message: "is not valid YAML: Map keys must be unique",
    });
    return null;
  }
  const root = document.contents;
  if (!isMap(root)) {
    issues.push({ file, message: `must be a mapping with a top-level "${entity}:" list` });
    return null;
  }
  for (const pair of root.items) {
    const name = (pair.key as { value?: unknown } | null)?.value;
    if (name !== entity) {
      issues.push({
        file,
        line: lineAt((pair.key as Node | null)?.range?.[0]),
        message: `has an unknown top-level key "${String(name)}"; the only key is "${entity}"`,
      });
    }
  }
  const list = root.get(entity, true);
  if (!isSeq(list)) {
    issues.push({ file, message: `must hold a top-level "${entity}:" list` });
    return null;
  }

  let values: unknown[];
  try {
    // toJS enforces maxAliasCount: an alias bomb fails here instead of expanding.
    values =
      (document.toJS({ maxAliasCount: YAML_OPTIONS.maxAliasCount }) as Record<string, unknown[]>)[
        entity
      ] ?? [];
  } catch (error) {
    issues.push({ file, message: `cannot be read: ${(error as Error).message}` });
    return null;
  }
  return { list, values, lineAt };
}

/** Each entry of the list validated by the kind's schema: the records that pass, an issue per problem of the others. */
function validRecords(
  entity: EntityName,
  { list, values, lineAt }: EntityList,
  issues: KbIssue[],
): unknown[] {
  const { file, schema, key } = ENTITIES[entity];
  const records: unknown[] = [];
  list.items.forEach((item, index) => {
    const entry = `${entity}[${index}]`;
    const line = lineAt((item as Node | null)?.range?.[0]);
    const value: unknown = values[index] ?? null;
    const parsed = (schema as z.ZodType).safeParse(value);
    if (parsed.success) {
      records.push(parsed.data);
      return;
    }
    const entryKey = readableKey(key, value);
    for (const issue of parsed.error.issues) {
      issues.push({
        file,
        entry,
        key: entryKey,
        line: lineAt(fieldOffset(item as Node | null, issue.path)) ?? line,
        field: issue.path.length > 0 ? issue.path.join(".") : undefined,
        message: issue.message,
      });
    }
  });
  return records;
}

/** The natural key of a record that failed validation, when its key fields are there. */
function readableKey(key: (record: never) => string, value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  try {
    const text = key(value as never);
    return text.includes("undefined") ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Offset of the value node at `path` inside an entry, for a precise line number. */
function fieldOffset(item: Node | null, path: readonly PropertyKey[]): number | undefined {
  let node: unknown = item;
  for (const segment of path) {
    if (isMap(node) || isSeq(node)) {
      node = node.get(typeof segment === "number" ? segment : String(segment), true);
    } else {
      return undefined;
    }
  }
  return (node as Node | undefined)?.range?.[0];
}
