/** Reads the reviewed knowledge-base files from a kb/ directory. */
import fs from "node:fs/promises";
import path from "node:path";
import { type KbBundle } from "./records.js";
import { ENTITIES, ENTITY_NAMES } from "./registry.js";
import { parseKbFiles } from "./parse.js";

export async function readKbFiles(directory: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entity of ENTITY_NAMES) {
    const file = ENTITIES[entity].file;
    try {
      files[file] = await fs.readFile(path.join(directory, file), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return files;
}

/** Loads and validates kb/; throws KbValidationError listing every bad record. */
export async function loadKbDirectory(directory: string): Promise<KbBundle> {
  return parseKbFiles(await readKbFiles(directory));
}
