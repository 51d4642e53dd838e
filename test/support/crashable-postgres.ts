/**
 * A PostgreSQL server of the test's own, as test/support/own-postgres.ts
 * starts one (the embedded binaries, a free port, data under the OS
 * temporary directory), that the test may also crash: kill() sends SIGKILL
 * to the postmaster (its pid read from postmaster.pid in the data directory
 * the server reports), as when the machine or the container dies, and
 * waits until its backends are gone too. start() then starts it again on
 * the same data directory and port: PostgreSQL runs crash recovery and
 * replays its write-ahead log, so what it committed survives.
 */
import fsSync from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  freePort,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from "../../src/db/embedded-postgres.js";

export interface CrashablePostgres {
  /** Connection URL of the test database (stable across restarts). */
  readonly url: string;
  readonly port: number;
  /** The data directory the server runs on (as it reports it: SHOW data_directory). */
  readonly dataDir: string;
  readonly running: boolean;
  /** SIGKILL to the postmaster; resolves once it and its backends are gone. Returns the postmaster's pid. */
  kill(): Promise<{ pid: number; backendsLeft: number }>;
  /** Starts the server again on the same port with the same data (crash recovery after kill()). */
  start(): Promise<void>;
  /** Stops the server (when running) and deletes its data directory. */
  destroy(): Promise<void>;
}

const BACKENDS_EXIT_WITHIN_MS = 5_000;

export async function startCrashablePostgres(
  database = "kubecompat_crash",
): Promise<CrashablePostgres> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-crash-pg-"));
  // As root, PostgreSQL runs as the "postgres" OS user, which must be able to enter the directory.
  await fs.chmod(root, 0o755);
  const port = await freePort();
  const options = { dataDir: path.join(root, "data"), port, database, ephemeral: false } as const;
  let server: EmbeddedDatabase | undefined;
  let dataDir: string;
  try {
    server = await startEmbeddedPostgres(options);
    dataDir = await reportedDataDir(server.adminUrl);
  } catch (error) {
    await server?.stop().catch(() => undefined);
    await fs.rm(root, { recursive: true, force: true });
    throw error;
  }
  const url = server.url;
  return {
    url,
    port,
    dataDir,
    get running() {
      return server !== undefined;
    },
    async kill() {
      if (server === undefined) throw new Error("the PostgreSQL server is not running");
      const pid = await postmasterPid(dataDir);
      process.kill(pid, "SIGKILL");
      // Nothing to stop any more: forget it (its child-process handle sees the exit by itself).
      server = undefined;
      await until(
        () => !alive(pid),
        BACKENDS_EXIT_WITHIN_MS,
        `the postmaster ${pid} did not exit after SIGKILL`,
      );
      // Backends notice their postmaster's death and exit by themselves; a restart needs them gone.
      let backendsLeft = 0;
      try {
        await until(
          async () => (backendsLeft = (await groupMembers(pid)).length) === 0,
          BACKENDS_EXIT_WITHIN_MS,
          "",
        );
      } catch {
        // Those that did not notice in time: kill them too (the container died with them).
        for (const member of await groupMembers(pid)) {
          try {
            process.kill(member, "SIGKILL");
          } catch {
            // gone meanwhile
          }
        }
        await until(
          async () => (await groupMembers(pid)).length === 0,
          BACKENDS_EXIT_WITHIN_MS,
          `backends of the postmaster ${pid} did not exit`,
        );
      }
      return { pid, backendsLeft };
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
        if (dataDir !== options.dataDir) await fs.rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

async function reportedDataDir(adminUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const result = await client.query<{ data_directory: string }>("SHOW data_directory");
    return result.rows[0]!.data_directory;
  } finally {
    await client.end();
  }
}

/** The first line of postmaster.pid is the postmaster's pid. */
async function postmasterPid(dataDir: string): Promise<number> {
  const text = await fs.readFile(path.join(dataDir, "postmaster.pid"), "utf8");
  const pid = Number(text.split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0)
    throw new Error(
      `no pid in ${path.join(dataDir, "postmaster.pid")}: ${JSON.stringify(text.slice(0, 100))}`,
    );
  return pid;
}

/** Running (not a zombie) process. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return processState(pid) !== "Z";
}

function processState(pid: number): string | undefined {
  return readProcStat(pid)?.state;
}

function readProcStat(pid: number): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    // Synchronous on purpose: one small /proc read.
    text = fsSync.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", pgrp: Number(fields[2]) };
}

/**
 * Processes still running (not zombies) in the postmaster's process group:
 * the embedded server is started detached, so the group is the postmaster's
 * and holds its backends and auxiliary processes. Without /proc (not
 * Linux) nothing can be listed: then it is assumed empty.
 */
async function groupMembers(pgid: number): Promise<number[]> {
  let entries: string[];
  try {
    entries = await fs.readdir("/proc");
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== "Z") members.push(Number(entry));
  }
  return members;
}

async function until(
  check: () => boolean | Promise<boolean>,
  withinMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() >= deadline) throw new Error(`${what} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
