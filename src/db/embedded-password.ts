/**
 * The embedded PostgreSQL superuser's password. It is made at random when the data directory is,
 * and kept in it (mode 0600): other local users of the machine cannot read it, so cannot connect as
 * superuser (and from there forge tokens or run programs as the postgres OS user). It is never
 * logged nor put in an error. Used by src/db/embedded-postgres.ts.
 */
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/** The superuser, and the OS user PostgreSQL runs as when we are root. */
export const USER = "postgres";
const PASSWORD_FILE = "kubecompat-password";
// What data directories made before 2026-12 were given; only used to replace it with a random one.
const FORMER_PASSWORD = "kubecompat-embedded";

/** The OS user and group files and processes are made for (unset: the current one). */
export interface Identity {
  readonly uid?: number;
  readonly gid?: number;
}

export async function exists(file: string): Promise<boolean> {
  return fs
    .access(file)
    .then(() => true)
    .catch(() => false);
}

export function newPassword(): string {
  return crypto.randomBytes(32).toString("base64url");
}

/** The data directory's password file, written whole or not at all, readable by its owner only. */
export async function writePassword(
  dataDir: string,
  password: string,
  identity: Identity,
): Promise<void> {
  const file = path.join(dataDir, PASSWORD_FILE);
  const partial = `${file}.${crypto.randomBytes(6).toString("hex")}`;
  // "wx": a new file (never one that is there, nor a link's target), 0600 whatever the umask.
  const handle = await fs.open(partial, "wx", 0o600);
  try {
    await handle.writeFile(`${password}\n`);
    await handle.chmod(0o600);
    if (identity.uid !== undefined) await handle.chown(identity.uid, identity.gid ?? identity.uid);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(partial, file);
}

export async function readPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  const stats = await fs.lstat(file).catch(() => undefined);
  if (stats === undefined)
    throw new Error(
      `the embedded database in ${dataDir} has no ${PASSWORD_FILE} file; start the service once as the user that runs it to make one`,
    );
  if (!stats.isFile())
    throw new Error(`${file} is not a regular file; remove it and start the service again`);
  if ((stats.mode & 0o077) !== 0) {
    // Someone loosened it: close it again rather than go on with a password others could read.
    await fs.chmod(file, 0o600);
  }
  const password = (await fs.readFile(file, "utf8")).trim();
  if (password === "")
    throw new Error(
      `${file} is empty; remove the data directory's password file and the service makes a new one`,
    );
  return password;
}

/**
 * The password of an existing data directory. One made before the password was random still has the
 * former built-in one: it is replaced by a random one on this start (nothing else changes).
 */
export async function passwordOf(
  dataDir: string,
  port: number,
  identity: Identity,
  log: (message: string) => void,
): Promise<string> {
  if (await exists(path.join(dataDir, PASSWORD_FILE))) return readPassword(dataDir);
  const client = new pg.Client({
    connectionString: `postgresql://${USER}:${encodeURIComponent(FORMER_PASSWORD)}@127.0.0.1:${port}/postgres`,
  });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `the embedded database in ${dataDir} has no ${PASSWORD_FILE} file and does not take the former built-in password (${(error as Error).message}); ` +
        "if you set its password yourself, write it to that file (mode 0600)",
    );
  }
  try {
    const password = newPassword();
    // The file first: if the change fails, the old password still works and the next start tries again.
    await writePassword(dataDir, password, identity);
    try {
      const quoted = (
        await client.query<{ q: string }>("SELECT quote_literal($1) AS q", [password])
      ).rows[0]!.q;
      await client.query(`ALTER ROLE ${USER} PASSWORD ${quoted}`);
    } catch (error) {
      await fs.rm(path.join(dataDir, PASSWORD_FILE), { force: true });
      throw error;
    }
    log(
      `the embedded database in ${dataDir} had the former built-in password; it now has a random one, kept in ${path.join(dataDir, PASSWORD_FILE)}`,
    );
    return password;
  } finally {
    await client.end();
  }
}
