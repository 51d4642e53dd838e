/**
 * The synthetic knowledge base under test/fixtures/kb-synthetic/: made-up minors (1.50-1.54),
 * versions and dates in the real kb/ format, for tests of a rule rather than of the reviewed data
 * (as Pluto keeps pkg/api/test_data/versions.yaml beside its real versions.yaml). Its values never
 * change when kb/ grows, so a test on it breaks only when the rule does. A kind of knowledge with no
 * file there (a kind added after the fixture was written) is read as an empty list, and the bundle is
 * parsed and cross-checked by the same code as kb/.
 */
import path from "node:path";
import { readKbFiles } from "../../src/knowledge/load.js";
import { parseKbFiles } from "../../src/knowledge/parse.js";
import type { KbBundle } from "../../src/knowledge/records.js";
import { ENTITIES, ENTITY_NAMES } from "../../src/knowledge/registry.js";
import { KbSnapshot } from "../../src/knowledge/snapshot.js";
import { REPO_ROOT } from "./runtime.js";

export const SYNTHETIC_KB_DIR = path.join(REPO_ROOT, "test", "fixtures", "kb-synthetic");

let cachedBundle: Promise<KbBundle> | undefined;
let cachedSnapshot: Promise<KbSnapshot> | undefined;

/** The files of a kb/ directory, with `<kind>: []` for every kind that has none. */
export async function readFilledKbFiles(directory: string): Promise<Record<string, string>> {
  const files = await readKbFiles(directory);
  for (const entity of ENTITY_NAMES) files[ENTITIES[entity].file] ??= `${entity}: []\n`;
  return files;
}

export function syntheticBundle(): Promise<KbBundle> {
  cachedBundle ??= readFilledKbFiles(SYNTHETIC_KB_DIR).then(parseKbFiles);
  return cachedBundle;
}

/** The synthetic knowledge base as a snapshot, for tests of the pure domain core. */
export function syntheticSnapshot(): Promise<KbSnapshot> {
  cachedSnapshot ??= syntheticBundle().then(
    (bundle) => new KbSnapshot(bundle, { revision: 3, lastImportAt: null }),
  );
  return cachedSnapshot;
}
