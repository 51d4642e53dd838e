/**
 * A PostgreSQL server of the test's own (the embedded binaries, on a free
 * port, data under the OS temporary directory) that the test may stop and
 * start again without disturbing the server the other test files share.
 * The data survives a stop, so a restart finds the same database; destroy()
 * stops the server and deletes its data.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  freePort,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from "../../src/db/embedded-postgres.js";

export interface OwnPostgres {
  /** Connection URL of the test database (stable across restarts). */
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  /** Fast shutdown (SIGINT): sessions are aborted, as in a database outage. */
  stop(): Promise<void>;
  /** Starts the server again on the same port with the same data. */
  start(): Promise<void>;
  /** Stops the server (when running) and deletes its data directory. */
  destroy(): Promise<void>;
}

export async function startOwnPostgres(database = "kubecompat_own"): Promise<OwnPostgres> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-own-pg-"));
  // As root, PostgreSQL runs as the "postgres" OS user, which must be able to enter the directory.
  await fs.chmod(root, 0o755);
  const port = await freePort();
  const options = { dataDir: path.join(root, "data"), port, database, ephemeral: false } as const;
  let server: EmbeddedDatabase | undefined;
  try {
    server = await startEmbeddedPostgres(options);
  } catch (error) {
    await fs.rm(root, { recursive: true, force: true });
    throw error;
  }
  const url = server.url;
  return {
    url,
    port,
    get running() {
      return server !== undefined;
    },
    async stop() {
      const running = server;
      server = undefined;
      await running?.stop();
    },
    async start() {
      if (server !== undefined) return;
      server = await startEmbeddedPostgres(options);
    },
    async destroy() {
      const running = server;
      server = undefined;
      try {
        await running?.stop();
      } finally {
        await fs.rm(root, { recursive: true, force: true });
      }
    },
  };
}
