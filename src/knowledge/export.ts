/**
 * The knowledge base written back out: as the YAML layout of kb/ (one
 * document per file, each with its single top-level list, fields in the
 * order of the record schemas), so a reviewed pull request can carry data
 * changes made at run time back into the repository. (The API removals in
 * Pluto's versions.yaml format are src/knowledge/pluto-export.ts.)
 */
import { isMap, isScalar, parseAllDocuments, stringify } from "yaml";
import { InputError } from "../core/errors.js";
import type { KbFiles } from "./parse.js";
import {
  MAX_YAML_DEPTH,
  YamlCostMeter,
  firstDuplicateKey,
  yamlShapeProblem,
} from "../core/yaml-limits.js";
import { type EntityName } from "./records.js";
import { ENTITIES, ENTITY_NAMES } from "./registry.js";
import type { KbSnapshot } from "./snapshot.js";

function fieldOrder(entity: EntityName): string[] {
  const schema = ENTITIES[entity].schema as unknown as { shape?: Record<string, unknown> };
  return Object.keys(schema.shape ?? {});
}

/** One kb/ file's text. */
export function exportFile(snapshot: KbSnapshot, entity: EntityName): string {
  const order = fieldOrder(entity);
  const records = (snapshot.records(entity) as readonly object[]).map((record) =>
    Object.fromEntries(
      order
        .filter((field) => field in record)
        .map((field) => [field, (record as Record<string, unknown>)[field]]),
    ),
  );
  return stringify(
    { [entity]: records },
    { lineWidth: 0, defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" },
  );
}

/** The whole knowledge base as one multi-document YAML stream, a `# kb/<file>` comment before each document. */
export function exportBundle(snapshot: KbSnapshot): string {
  const header = `# kubecompat knowledge base, revision ${snapshot.revision}. One document per kb/ file.\n`;
  return (
    header +
    ENTITY_NAMES.map(
      (entity) => `---\n# kb/${ENTITIES[entity].file}\n${exportFile(snapshot, entity)}`,
    ).join("")
  );
}

export function entityForFile(file: string): EntityName | undefined {
  const name = file.replace(/^kb\//, "");
  return ENTITY_NAMES.find((entity) => ENTITIES[entity].file === name);
}

/**
 * Splits an exported stream (or any multi-document YAML whose documents each
 * hold one entity's top-level list) back into kb/ files for import.
 */
export function filesFromBundle(text: string): KbFiles {
  const files: Record<string, string> = {};
  const shape = yamlShapeProblem(text);
  if (shape?.problem === "depth") {
    throw new InputError(
      `the bundle is nested more than ${MAX_YAML_DEPTH} levels deep (line ${shape.line}); a knowledge-base bundle holds flat lists of records`,
      "bundle",
    );
  }
  if (shape?.problem === "syntax")
    throw new InputError(
      `the bundle is not valid YAML (line ${shape.line}): ${shape.message}`,
      "bundle",
    );
  if (shape !== null) {
    throw new InputError(
      `the bundle holds more than ${YamlCostMeter.describe(shape.problem)} (line ${shape.line}); a knowledge-base bundle is far smaller`,
      "bundle",
    );
  }
  // Duplicate keys are refused by firstDuplicateKey, in one pass instead of the library's quadratic check.
  const documents = parseAllDocuments(text, { uniqueKeys: false });
  if (!Array.isArray(documents)) throw new InputError("the bundle is not a YAML stream", "bundle");
  documents.forEach((document, index) => {
    if (document.errors.length > 0) {
      throw new InputError(
        `bundle document ${index + 1} is not valid YAML: ${document.errors[0]!.message.split("\n")[0]}`,
        "bundle",
      );
    }
    if (firstDuplicateKey(document) !== null)
      throw new InputError(
        `bundle document ${index + 1} is not valid YAML: Map keys must be unique`,
        "bundle",
      );
    // Empty and comment-only documents (`---` then only a comment) hold nothing to import.
    if (
      document.contents === null ||
      (isScalar(document.contents) && document.contents.value === null)
    )
      return;
    if (!isMap(document.contents) || document.contents.items.length !== 1) {
      throw new InputError(
        `bundle document ${index + 1} must hold exactly one top-level list such as "apiRemovals:"`,
        "bundle",
      );
    }
    const key = String((document.contents.items[0]!.key as { value?: unknown } | null)?.value);
    const entity = ENTITY_NAMES.find((name) => name === key);
    if (entity === undefined) {
      throw new InputError(
        `bundle document ${index + 1} has the unknown top-level key "${key}"; expected one of ${ENTITY_NAMES.join(", ")}`,
        "bundle",
      );
    }
    const file = ENTITIES[entity].file;
    if (files[file] !== undefined)
      throw new InputError(`bundle has two documents for ${entity}`, "bundle");
    files[file] = document.toString();
  });
  return files;
}
