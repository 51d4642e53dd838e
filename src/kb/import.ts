/**
 * Import of reviewed knowledge-base data into the database: validate the
 * whole bundle first (nothing is written when any record is bad), then bring
 * the database in line with it in one transaction. Idempotent: importing the
 * same data again changes nothing and keeps the revision.
 */
import { syncKnowledgeBase, type SyncResult } from "../db/kb-store.js";
import type { Database } from "../db/client.js";
import { loadKbDirectory } from "./load.js";
import type { KbBundle } from "./records.js";

export async function importKbDirectory(db: Database, directory: string): Promise<SyncResult> {
  const bundle = await loadKbDirectory(directory);
  return importBundle(db, bundle, `directory:${directory}`);
}

export async function importBundle(db: Database, bundle: KbBundle, source: string): Promise<SyncResult> {
  return syncKnowledgeBase(db, bundle, source);
}
