/**
 * Import of reviewed knowledge-base data into the database. The whole
 * bundle is validated first (nothing is written when any record is bad).
 * The kb/ directory is merged (src/knowledge/merge.ts): what kb/ changed since its
 * last import is applied, run-time edits are kept, and records both sides
 * changed become open conflicts; an unchanged kb/ writes nothing. Forcing
 * kb/ (`kb:import --prefer-kb`) or uploading a bundle makes the database
 * hold exactly that bundle and resolves every conflict.
 */
import { syncKnowledgeBase, type SyncResult } from "./bundle-import.js";
import { mergeKbDirectory, type MergeResult } from "./kb-merge.js";
import type { Database } from "../db/client.js";
import { loadKbDirectory } from "../knowledge/load.js";
import type { KbBundle } from "../knowledge/records.js";
import { crossCheckBundle } from "../knowledge/validate.js";

export async function importKbDirectory(db: Database, directory: string): Promise<MergeResult> {
  const bundle = await loadKbDirectory(directory);
  return mergeKbDirectory(db, bundle, `directory:${directory}`, crossCheckBundle);
}

/** Makes the database hold exactly kb/ (run-time edits and conflicts are overwritten) and makes it the merge base. */
export async function forceKbDirectory(db: Database, directory: string): Promise<SyncResult> {
  const bundle = await loadKbDirectory(directory);
  return syncKnowledgeBase(
    db,
    bundle,
    `directory:${directory}`,
    { name: "system:import", role: "admin" },
    { asDirectoryImport: true },
  );
}

export async function importBundle(
  db: Database,
  bundle: KbBundle,
  source: string,
): Promise<SyncResult> {
  return syncKnowledgeBase(db, bundle, source);
}
