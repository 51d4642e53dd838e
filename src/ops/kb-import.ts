/**
 * `npm run kb:import [-- --prefer-kb]`: validates kb/ and merges it into the
 * database as start-up does (run-time edits kept, conflicts reported), or
 * with --prefer-kb makes the database hold exactly kb/ (overwriting run-time
 * edits and resolving every conflict). Prints what changed; exit 1 (nothing
 * written) when any record is invalid, 2 on any other failure.
 */
import { loadConfig } from "../core/config.js";
import { KbValidationError } from "../core/errors.js";
import { forceKbDirectory, importKbDirectory } from "../services/import.js";
import { createLogger } from "../core/logger.js";
import { startRuntime } from "../runtime.js";

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== "--prefer-kb");
if (unknown.length > 0) {
  process.stderr.write(
    `kubecompat kb:import: unknown argument ${unknown.map((arg) => `"${arg}"`).join(", ")}; the only option is --prefer-kb\n`,
  );
  process.exit(2);
}
const preferKb = args.includes("--prefer-kb");
const config = loadConfig();
const logger = createLogger(config.logLevel === "info" ? "warn" : config.logLevel);
try {
  const runtime = await startRuntime(config, logger, { importKb: false });
  try {
    const merged = preferKb ? undefined : await importKbDirectory(runtime.db, config.kb.dir);
    const result = merged ?? (await forceKbDirectory(runtime.db, config.kb.dir));
    if (!result.changed) {
      process.stdout.write(`knowledge base unchanged at revision ${result.revision}\n`);
    } else {
      process.stdout.write(
        `knowledge base revision ${result.revisionBefore} -> ${result.revision}:\n`,
      );
      for (const change of result.changes) {
        process.stdout.write(
          `  ${change.action} ${change.entity} ${change.key}${change.fields ? ` (${change.fields.join(", ")})` : ""}\n`,
        );
      }
    }
    if (merged !== undefined) {
      if (merged.keptRuntime > 0)
        process.stdout.write(
          `kept ${merged.keptRuntime} record(s) as edited at run time (kb/ did not change them)\n`,
        );
      for (const conflict of merged.conflicts) {
        process.stdout.write(
          `  conflict ${conflict.entity} ${conflict.key}: kb/ and a run-time edit differ; the database's value is kept\n`,
        );
      }
      if (merged.conflicts.length > 0)
        process.stdout.write(
          `resolve conflicts with an edit, or run kb:import -- --prefer-kb to take kb/\n`,
        );
    }
  } finally {
    await runtime.stop();
  }
} catch (error) {
  process.stderr.write(`kubecompat kb:import: ${(error as Error).message}\n`);
  process.exitCode = error instanceof KbValidationError ? 1 : 2;
}
