/**
 * `npm start`: parse the configuration, bring up the runtime, listen, and
 * drain in-flight requests on SIGTERM/SIGINT before closing the database.
 */
import http from "node:http";
import { createApp } from "./app.js";
import { ConfigError, parseConfig } from "./config.js";
import { pingDatabase } from "./db/health.js";
import { poolStats } from "./db/client.js";
import { KubecompatError } from "./errors.js";
import { createLogger } from "./logger.js";
import { startRuntime } from "./runtime.js";
import { Authenticator } from "./auth/authenticator.js";
import { Curator } from "./kb/curation.js";

async function main(): Promise<void> {
  let config;
  try {
    config = parseConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`kubecompat: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let runtime;
  try {
    runtime = await startRuntime(config, logger);
  } catch (error) {
    const message = error instanceof KubecompatError || error instanceof Error ? error.message : String(error);
    logger.fatal({ err: error }, "start-up failed");
    process.stderr.write(`kubecompat: start-up failed: ${message}\n`);
    process.exit(1);
  }
  const { db, kb } = runtime;
  const app = await createApp({
    kb,
    isDatabaseReachable: () => pingDatabase(db),
    logger,
    chatops: config.chatops,
    curator: new Curator(db, kb),
    authenticator: new Authenticator(db, logger),
    requireAuthForReads: config.requireAuthForReads,
    rateLimits: config.rateLimits,
    production: config.env === "production",
    freshness: runtime.sync,
    poolStats: () => poolStats(db),
  });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.http.port, config.http.host, () => resolve());
  }).catch(async (error: NodeJS.ErrnoException) => {
    logger.fatal({ err: error }, "cannot listen");
    process.stderr.write(
      `kubecompat: cannot listen on ${config.http.host}:${config.http.port}: ${error.code ?? error.message}; set PORT to a free port\n`,
    );
    await runtime.stop();
    process.exit(1);
  });
  logger.info({ port: config.http.port, host: config.http.host, pid: process.pid }, "kubecompat listening");

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: draining requests");
    const force = setTimeout(() => server.closeAllConnections(), config.http.shutdownTimeoutMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      runtime
        .stop()
        .then(() => {
          logger.info("stopped");
          process.exit(0);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, "error while stopping");
          process.exit(1);
        });
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

await main();
