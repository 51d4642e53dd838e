/**
 * One kb/ file's records, validated with its entity's schema from
 * src/knowledge/records.ts. kb:derive reads only the files it compares (not the
 * whole bundle), so a half-finished edit elsewhere in kb/ does not stop it;
 * `npm run kb:check` remains the full validation. Pure.
 */
import { parse } from "yaml";
import type { z } from "zod";
import { type EntityName, type KbBundle } from "../../knowledge/records.js";
import { ENTITIES } from "../../knowledge/registry.js";
import { DeriveInputError } from "./errors.js";

export function parseKbEntity<E extends EntityName>(
  entity: E,
  text: string,
  file: string,
): KbBundle[E] {
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    throw new DeriveInputError(
      `--kb: ${file} is not valid YAML (${(error as Error).message.split("\n")[0]}); run npm run kb:check`,
    );
  }
  const list = (document as Record<string, unknown> | null)?.[entity];
  if (!Array.isArray(list))
    throw new DeriveInputError(`--kb: ${file} has no top-level "${entity}:" list`);
  const schema = ENTITIES[entity].schema as unknown as z.ZodType;
  const problems: string[] = [];
  const records: unknown[] = [];
  list.forEach((value: unknown, index) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
    else
      for (const issue of parsed.error.issues)
        problems.push(
          `${entity}[${index}]${issue.path.length > 0 ? `.${issue.path.join(".")}` : ""}: ${issue.message}`,
        );
  });
  if (problems.length > 0) {
    throw new DeriveInputError(
      `--kb: ${file} does not validate (run npm run kb:check):\n  ${problems.slice(0, 20).join("\n  ")}`,
    );
  }
  return records as unknown as KbBundle[E];
}

/** The fields of an entity's record schema, in schema order (read at run time, so a new field shows up by itself). */
export function schemaFields(entity: EntityName): string[] {
  const shape = (ENTITIES[entity].schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape === undefined ? [] : Object.keys(shape);
}
