/** `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the embedded database). */
import { loadConfig } from "../core/config.js";
import { migrate } from "../db/migrator.js";
import { createLogger } from "../core/logger.js";
import { openDatabase } from "../runtime.js";

const config = loadConfig();
const logger = createLogger(config.logLevel);
const { url, embedded } = await openDatabase(config, logger);
try {
  const result = await migrate(url);
  process.stdout.write(
    result.applied.length > 0
      ? `applied: ${result.applied.join(", ")}\n`
      : `up to date (${result.alreadyApplied.length} migrations)\n`,
  );
} catch (error) {
  process.stderr.write(`kubecompat db:migrate: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await embedded?.stop();
}
