/**
 * `npm run kb:import`: validates kb/ and brings the database in line with it.
 * Prints what changed; exit 1 (nothing written) when any record is invalid.
 */
import { parseConfig } from "../config.js";
import { KbValidationError } from "../errors.js";
import { importKbDirectory } from "../kb/import.js";
import { createLogger } from "../logger.js";
import { startRuntime } from "../runtime.js";

const config = parseConfig();
const logger = createLogger(config.logLevel === "info" ? "warn" : config.logLevel);
try {
  const runtime = await startRuntime(config, logger, { importKb: false });
  try {
    const result = await importKbDirectory(runtime.db, config.kb.dir);
    if (!result.changed) {
      process.stdout.write(`knowledge base unchanged at revision ${result.revision}\n`);
    } else {
      process.stdout.write(`knowledge base revision ${result.revisionBefore} -> ${result.revision}:\n`);
      for (const change of result.changes) {
        process.stdout.write(`  ${change.action} ${change.entity} ${change.key}${change.fields ? ` (${change.fields.join(", ")})` : ""}\n`);
      }
    }
  } finally {
    await runtime.stop();
  }
} catch (error) {
  process.stderr.write(`kubecompat kb:import: ${(error as Error).message}\n`);
  process.exitCode = error instanceof KbValidationError ? 1 : 2;
}
