/**
 * The embedded PostgreSQL's superuser password: random per data directory,
 * kept in it (0600), never the former built-in one, never logged; the server
 * listens on 127.0.0.1 only. Real embedded servers, each in its own
 * temporary directory and port.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import pg from "pg";
import {
  connectToRunningEmbedded,
  freePort,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from "../../src/db/embedded-postgres.js";

const FORMER_PASSWORD = "kubecompat-embedded";
const PASSWORD_FILE = "kubecompat-password";

async function connects(url: string): Promise<true | string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const passwordOf = (url: string): string => decodeURIComponent(new URL(url).password);
const withPassword = (url: string, password: string): string => {
  const copy = new URL(url);
  copy.password = encodeURIComponent(password);
  return copy.toString();
};

describe("the embedded PostgreSQL's password", () => {
  const roots: string[] = [];
  const running: EmbeddedDatabase[] = [];
  after(async () => {
    for (const server of running) await server.stop().catch(() => undefined);
    for (const root of roots) await fs.rm(root, { recursive: true, force: true });
  });

  async function fresh(): Promise<{
    dataDir: string;
    port: number;
    logged: string[];
    start: () => Promise<EmbeddedDatabase>;
  }> {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-pg-password-"));
    roots.push(root);
    // As root, PostgreSQL runs as the "postgres" OS user, which must be able to enter the directory.
    await fs.chmod(root, 0o755);
    const dataDir = path.join(root, "data");
    const port = await freePort();
    const logged: string[] = [];
    const start = async (): Promise<EmbeddedDatabase> => {
      const server = await startEmbeddedPostgres({
        dataDir,
        port,
        database: "kubecompat_password",
        log: (message) => logged.push(message),
      });
      running.push(server);
      return server;
    };
    return { dataDir, port, logged, start };
  }

  it("is random, kept in the data directory with mode 0600, refuses the former built-in password, listens on 127.0.0.1 only and is never logged", async () => {
    const first = await fresh();
    const server = await first.start();
    const password = passwordOf(server.url);
    assert.notEqual(password, FORMER_PASSWORD);
    assert.ok(password.length >= 32, `a long random password (${password.length} characters)`);

    const file = path.join(first.dataDir, PASSWORD_FILE);
    const stats = await fs.stat(file);
    assert.equal(stats.mode & 0o777, 0o600, `mode ${(stats.mode & 0o777).toString(8)}`);
    if (process.getuid?.() === 0) {
      const owner = (await fs.stat(first.dataDir)).uid;
      assert.equal(stats.uid, owner, "owned by the data directory's owner (the postgres OS user)");
    } else {
      assert.equal(stats.uid, process.getuid?.());
    }
    assert.equal((await fs.readFile(file, "utf8")).trim(), password);

    assert.equal(await connects(server.adminUrl), true);
    assert.equal(
      await connects(withPassword(server.adminUrl, FORMER_PASSWORD)),
      "28P01",
      "the former built-in password is refused",
    );
    const [listen] = await query<{ listen_addresses: string }>(
      server.adminUrl,
      "SHOW listen_addresses",
    );
    assert.equal(listen?.listen_addresses, "127.0.0.1");
    const [socket] = await query<{ unix_socket_directories: string }>(
      server.adminUrl,
      "SHOW unix_socket_directories",
    );
    assert.equal(socket?.unix_socket_directories, "", "no Unix socket either");
    assert.ok(first.logged.length > 0, "the server's own output was passed to the log");
    assert.ok(
      !first.logged.some((line) => line.includes(password)),
      "the password is in no log line",
    );

    const second = await fresh();
    const other = await second.start();
    assert.notEqual(passwordOf(other.url), password, "each data directory has its own");
  });

  it("a data directory made with the former built-in password gets a random one on its next start, keeping its data", async () => {
    const former = await fresh();
    const server = await former.start();
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query("CREATE TABLE kept (value text); INSERT INTO kept VALUES ('still here')");
    await client.query(`ALTER ROLE postgres PASSWORD '${FORMER_PASSWORD}'`);
    await client.end();
    await fs.rm(path.join(former.dataDir, PASSWORD_FILE));
    await server.stop();

    former.logged.length = 0;
    const again = await former.start();
    const password = passwordOf(again.url);
    assert.notEqual(password, FORMER_PASSWORD);
    assert.equal(
      (await fs.readFile(path.join(former.dataDir, PASSWORD_FILE), "utf8")).trim(),
      password,
    );
    assert.equal(await connects(withPassword(again.adminUrl, FORMER_PASSWORD)), "28P01");
    assert.deepEqual(await query(again.url, "SELECT value FROM kept"), [{ value: "still here" }]);
    assert.ok(
      former.logged.some((line) => line.includes("former built-in password")),
      "the change is said",
    );
    assert.ok(!former.logged.some((line) => line.includes(password)), "but not the new password");
  });

  it("a password file someone loosened is closed again; the command-line tools share a running server only with its password file", async () => {
    const shared = await fresh();
    const server = await shared.start();
    const file = path.join(shared.dataDir, PASSWORD_FILE);
    await fs.chmod(file, 0o644);
    const found = await connectToRunningEmbedded({
      dataDir: shared.dataDir,
      port: shared.port,
      database: "kubecompat_shared",
    });
    assert.ok(found, "found with the password file");
    assert.equal(await connects(found.url), true);
    assert.equal((await fs.stat(file)).mode & 0o777, 0o600, "closed again");

    const elsewhere = await fresh();
    await fs.mkdir(elsewhere.dataDir, { recursive: true });
    assert.equal(
      await connectToRunningEmbedded({
        dataDir: elsewhere.dataDir,
        port: shared.port,
        database: "kubecompat_shared",
      }),
      undefined,
      "no password file, nothing shared",
    );
    await server.stop();
  });
});
