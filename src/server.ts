/**
 * `npm start`: parse the configuration, bring up the runtime, listen, and
 * drain in-flight requests on SIGTERM/SIGINT before closing the database.
 *
 * Draining: every request that reached the server is answered; each answer
 * from then on says `Connection: close`, so keep-alive connections end
 * after their request instead of holding the process open; the listener
 * closes once the connections already on their way are taken (idle
 * keep-alive connections are closed a turn later), so requests already in
 * the socket buffers are read and answered rather than cut off. Connections still open after
 * SHUTDOWN_TIMEOUT_MS are closed; should stopping the runtime then hang,
 * the process exits 1 after STOP_RUNTIME_GRACE_MS more. A repeated signal
 * only logs: npm relays Ctrl-C to a process that the terminal has
 * already sent it to, so one keypress arrives twice.
 *
 * Only the configuration is loaded before it is checked: a bad one exits 2
 * in a fraction of a second, before the rest of the service (Prisma,
 * Apollo, ...) is even imported, let alone a database touched.
 *
 * Under `npm start` the npm process is what operators signal. The start
 * script execs node, so npm's relay of SIGTERM/SIGINT reaches this process
 * and npm waits for it; should the launcher still vanish (npm killed with
 * SIGKILL, a shell in between that dies on the signal), the server notices
 * it has been re-parented and stops as on SIGTERM rather than running on,
 * orphaned, with its embedded PostgreSQL and both ports.
 */
import type http from "node:http";
import net from "node:net";
import { ConfigError, loadConfig, type Config } from "./core/config.js";
import { createLogger, type Logger } from "./core/logger.js";
import type { FleetRuntime } from "./fleet-runtime.js";
import type { Runtime } from "./runtime.js";
import { DEFAULT_LARGE_REQUEST_LIMITS } from "./http/large-requests.js";
import { createAppServer } from "./http/app-server.js";
import { ResponsesInFlight } from "./http/in-flight.js";

/** How long stopping the runtime (listener, pool, embedded PostgreSQL) may take after the drain. */
const STOP_RUNTIME_GRACE_MS = 15_000;
/** How long, after the signal, connections that were already on their way are still accepted. */
const LAST_ACCEPTS_MS = 500;
/** How often the parent process is looked at (stopWhenLauncherExits). */
const LAUNCHER_CHECK_MS = 500;

/** What stops the server: a signal, or the process that launched it going away. */
type StopCause = NodeJS.Signals | "launcher exited";

async function main(): Promise<void> {
  const config = configOrExit();
  const logger = createLogger(config.logLevel);
  const [{ pingDatabase }, { KubecompatError }, { startRuntime }] = await Promise.all([
    import("./db/health.js"),
    import("./core/errors.js"),
    import("./runtime.js"),
  ]);

  // Until it listens there is nothing to drain: a signal ends the start at once. Migrations and the
  // import run in transactions, which the database rolls back; an embedded PostgreSQL is sent its
  // shutdown signal on exit (src/db/embedded-postgres.ts).
  let onSignal = (signal: StopCause): void => {
    logger.info({ signal }, "signal during start-up: exiting");
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  if (config.stopWhenLauncherExits) watchLauncher(() => onSignal("launcher exited"));

  let runtime: Runtime;
  try {
    runtime = await startRuntime(config, logger);
  } catch (error) {
    const message =
      error instanceof KubecompatError || error instanceof Error ? error.message : String(error);
    logger.fatal({ err: error }, "start-up failed");
    process.stderr.write(`kubecompat: start-up failed: ${message}\n`);
    process.exit(1);
  }

  const { startFleet } = await import("./fleet-runtime.js");
  const fleet = await startFleet({
    db: runtime.db,
    kb: runtime.kb,
    databaseUrl: runtime.databaseUrl,
    config: config.fleet,
    logger,
  });
  const handle = await appHandleFor(config, runtime, logger, () => pingDatabase(runtime.db), fleet);
  const server = createAppServer(handle.app);
  server.keepAliveTimeout = 65_000;
  const connections = watchConnections(server);

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
  const urls = serviceUrls(config);
  logger.info(
    { port: config.http.port, host: config.http.host, pid: process.pid, ...urls },
    `kubecompat listening on ${urls.url} (playground ${urls.playground}, REST docs ${urls.docs})`,
  );
  const refresh = await scheduleRefresh(config, runtime, logger);
  onSignal = drainThenStop(server, connections, config, logger, (started) =>
    stopAndExit(
      {
        stop: async () => void (await Promise.all([handle.stop(), refresh?.stop(), fleet.stop()])),
      },
      runtime,
      logger,
      started,
    ),
  );
}

/**
 * The scheduled refresh from upstream (KB_REFRESH_INTERVAL), when it is on:
 * its first run a minute after start, so a restart loop does not hammer the
 * sources; undefined when it is off (the default).
 */
async function scheduleRefresh(config: Config, runtime: Runtime, logger: Logger) {
  if (config.refresh.intervalMs === null) return undefined;
  const { KbRefresh } = await import("./upstream/scheduled-refresh.js");
  const refresh = new KbRefresh({
    db: runtime.db,
    databaseUrl: runtime.databaseUrl,
    config: config.refresh,
    logger,
  });
  refresh.start();
  logger.info(
    {
      intervalMs: config.refresh.intervalMs,
      sources: config.refresh.sources.map((source) => `${source.name} ${source.url}`),
      webhook: config.refresh.webhookUrl === null ? null : new URL(config.refresh.webhookUrl).host,
    },
    "knowledge refresh scheduled: proposals are filed for review, never applied",
  );
  return refresh;
}

/** The configuration, or exit 2 with what to fix: before anything else is imported or touched. */
function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`kubecompat: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** The app over the runtime, configured as the operator said. */
async function appHandleFor(
  config: Config,
  runtime: Runtime,
  logger: Logger,
  isDatabaseReachable: () => Promise<boolean>,
  fleet: FleetRuntime,
) {
  const [
    { createAppHandle },
    { Authenticator },
    { Curator },
    { ProposalReview },
    { RefreshLedger },
    { poolStats },
  ] = await Promise.all([
    import("./app.js"),
    import("./services/authenticator.js"),
    import("./services/curation.js"),
    import("./services/proposals.js"),
    import("./services/refresh-state.js"),
    import("./db/client.js"),
  ]);
  const { db, kb } = runtime;
  const curator = new Curator(db, kb, { gatherMs: config.edits.gatherMs });
  return createAppHandle({
    kb,
    isDatabaseReachable,
    logger,
    chatops: config.chatops,
    curator,
    proposals: new ProposalReview(db, curator),
    refreshLedger: new RefreshLedger(db),
    authenticator: new Authenticator(db, logger),
    requireAuthForReads: config.requireAuthForReads,
    metricsToken: config.metricsToken,
    trustProxy: config.trustProxy,
    hsts: config.hsts,
    rateLimits: config.rateLimits,
    answerCacheBytes: config.answerCacheBytes,
    readsPerTurn: config.readsPerTurn,
    largeRequests: { ...DEFAULT_LARGE_REQUEST_LIMITS, inFlight: config.largeRequestsInFlight },
    production: config.env === "production",
    freshness: runtime.sync,
    poolStats: () => poolStats(db),
    fleet: fleet.fleet,
  });
}

/** What the drain needs to know of the connections: how many were accepted, which answers are under way. */
interface ConnectionWatch {
  stopping: boolean;
  accepted: number;
  readonly inFlight: ResponsesInFlight;
}

function watchConnections(server: http.Server): ConnectionWatch {
  const watch: ConnectionWatch = {
    stopping: false,
    accepted: 0,
    inFlight: new ResponsesInFlight(),
  };
  server.on("connection", () => {
    watch.accepted += 1;
  });
  // Runs before the app: while draining, every answer closes its connection.
  server.prependListener("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (watch.stopping) {
      res.setHeader("Connection", "close");
      return;
    }
    watch.inFlight.add(res);
  });
  return watch;
}

/** The first stop signal drains the server and then calls `drained`; a repeated one only logs. */
function drainThenStop(
  server: http.Server,
  watch: ConnectionWatch,
  config: Config,
  logger: Logger,
  drained: (started: number) => Promise<void>,
): (signal: StopCause) => void {
  return (signal) => {
    if (watch.stopping) {
      logger.info(
        { signal, timeoutMs: config.http.shutdownTimeoutMs },
        "already shutting down: still draining requests",
      );
      return;
    }
    watch.stopping = true;
    const started = Date.now();
    logger.info({ signal, inFlight: watch.inFlight.size }, "shutting down: draining requests");
    // Requests already being handled close their connection too, unless their answer has begun.
    for (const res of watch.inFlight) {
      if (!res.headersSent) res.setHeader("Connection", "close");
      // An answer that had begun with keep-alive leaves an idle connection behind: close it once answered.
      else res.once("finish", () => setImmediate(() => server.closeIdleConnections()));
    }
    const force = setTimeout(() => {
      logger.warn(
        { timeoutMs: config.http.shutdownTimeoutMs },
        "drain timeout: closing the remaining connections",
      );
      server.closeAllConnections();
    }, config.http.shutdownTimeoutMs);
    // Connections that arrived before the signal may still wait to be accepted (one is taken per pass of
    // the event loop), and the ones taken in the last pass have not been read yet, so they look idle.
    // Closing the listener and the idle connections at once (as http.Server.close does) would reset
    // requests sent whole before the signal: so the listener stays open until a pass takes no new
    // connection (at most LAST_ACCEPTS_MS), and idle connections are closed one pass after that.
    const closeWhenQuiet = (seen: number): void => {
      setImmediate(() => {
        if (watch.accepted !== seen && Date.now() - started < LAST_ACCEPTS_MS) {
          closeWhenQuiet(watch.accepted);
          return;
        }
        net.Server.prototype.close.call(server, () => {
          clearTimeout(force);
          logger.info({ ms: Date.now() - started }, "requests drained; stopping");
          void drained(started);
        });
        setImmediate(() => setImmediate(() => server.closeIdleConnections()));
      });
    };
    closeWhenQuiet(-1);
  };
}

/** Calls `gone` once the parent process has exited (this process was re-parented). */
function watchLauncher(gone: () => void): void {
  const launcher = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    gone();
  }, LAUNCHER_CHECK_MS);
  // Never what keeps the process alive.
  timer.unref();
}

/** Where people reach the service: a wildcard listen address is reached as localhost. */
function serviceUrls(config: Config): {
  url: string;
  playground: string;
  docs: string;
  openapi: string;
} {
  const { host, port } = config.http;
  const name =
    host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  const url = `http://${name}:${port}`;
  return {
    url: `${url}/`,
    playground: `${url}/graphql`,
    docs: `${url}/docs`,
    openapi: `${url}/openapi.json`,
  };
}

/** Stops the runtime and exits: 0 when it stopped, 1 when it failed or did not stop within STOP_RUNTIME_GRACE_MS. */
async function stopAndExit(
  handle: { stop(): Promise<void> },
  runtime: Runtime,
  logger: Logger,
  started: number,
): Promise<void> {
  // Deliberately not unref'd: the process must not end quietly (with code 0) while this waits.
  const deadline = setTimeout(() => {
    logger.error(
      { ms: Date.now() - started },
      "could not stop the runtime in time; exiting anyway",
    );
    process.exit(1);
  }, STOP_RUNTIME_GRACE_MS);
  try {
    await handle.stop();
    await runtime.stop();
    clearTimeout(deadline);
    logger.info({ ms: Date.now() - started }, "stopped");
    process.exit(0);
  } catch (error) {
    clearTimeout(deadline);
    logger.error({ err: error }, "error while stopping");
    process.exit(1);
  }
}

await main();
