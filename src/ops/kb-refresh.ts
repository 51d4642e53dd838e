/**
 * `npm run kb:refresh [-- --source <name> ...]`: one refresh now, as the
 * service's schedule runs it (KB_REFRESH_INTERVAL), from the sources
 * configured (KB_SOURCE_*), into the database of DATABASE_URL (or the
 * embedded one): what differs is filed as proposals for review, never
 * applied. For a cron job, or to see a source's failure at the terminal.
 * Prints one line per source and the message the webhook gets.
 * Exit 0: every source read; 1: a source failed; 2: bad usage or configuration.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../core/config.js";
import { createLogger } from "../core/logger.js";
import { REFRESH_SOURCE_NAMES } from "../core/refresh-config.js";
import { startRuntime } from "../runtime.js";
import { KbRefresh } from "../upstream/scheduled-refresh.js";
import { refreshMessage } from "../upstream/refresh-message.js";

const USAGE = `usage: npm run kb:refresh [-- --source <name> ...]

Reads the configured upstream sources now and files what differs from the database's
knowledge base as proposals (GET /api/v1/proposals). Sources: ${REFRESH_SOURCE_NAMES.join(", ")};
each is configured by KB_SOURCE_* (docs/operations.md), "off" leaves one out.
  --source <name>   read only this source (repeatable)
`;

// `npm run kb:refresh | head -1` closes the pipe early: the reader's choice, not a failure worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
});

function fail(message: string, code = 2): never {
  process.stderr.write(`kubecompat kb:refresh: ${message}\n`);
  process.exit(code);
}

let values: { source?: string[]; help?: boolean };
try {
  ({ values } = parseArgs({
    options: { source: { type: "string", multiple: true }, help: { type: "boolean" } },
    allowPositionals: false,
  }));
} catch (error) {
  fail(`${(error as Error).message}\n\n${USAGE}`);
}
if (values.help === true) {
  process.stdout.write(USAGE);
  process.exit(0);
}
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
const wanted = values.source ?? [];
const unknown = wanted.filter(
  (name) => !(REFRESH_SOURCE_NAMES as readonly string[]).includes(name),
);
if (unknown.length > 0)
  fail(
    `--source: ${unknown.join(", ")} is not a source; the sources are ${REFRESH_SOURCE_NAMES.join(", ")}`,
  );
const sources = config.refresh.sources.filter(
  (source) => wanted.length === 0 || wanted.includes(source.name),
);
const off = wanted.filter((name) => !sources.some((source) => source.name === name));
if (off.length > 0) fail(`--source: ${off.join(", ")} is configured "off" (KB_SOURCE_*)`);
if (sources.length === 0) fail('every source is configured "off" (KB_SOURCE_*): nothing to read');

// What the log would say of the run is printed below: only errors (a bug) are logged besides.
const logger = createLogger(
  config.logLevel === "info" || config.logLevel === "warn" ? "error" : config.logLevel,
);
const runtime = await startRuntime(config, logger, { importKb: false });
try {
  const refresh = new KbRefresh({
    db: runtime.db,
    databaseUrl: runtime.databaseUrl,
    config: { ...config.refresh, sources },
    logger,
  });
  const report = await refresh.runOnce({ force: true });
  if (report.skipped !== null) fail(`not read: ${report.skipped}; try again when it is done`, 1);
  for (const source of report.sources)
    process.stdout.write(
      source.ok
        ? `${source.source}: read at ${source.revision ?? "?"}, filed ${source.filed}, ${source.known} already proposed (or decided)\n`
        : `${source.source}: FAILED (${source.url}): ${source.message ?? "unknown"}\n`,
    );
  process.stdout.write(`${refreshMessage(report)}\n`);
  process.exitCode = report.sources.every((source) => source.ok) ? 0 : 1;
} finally {
  await runtime.stop();
}
