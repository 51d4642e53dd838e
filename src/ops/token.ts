/**
 * `npm run token -- <command>`: manages API tokens.
 *   create --role reader|editor|admin --name NAME [--expires-in 90d | --expires-at 2027-03-01]
 *                                                   prints the secret once
 *   list                                            names, roles, prefixes, state, expiry
 *   revoke --name NAME
 * Uses DATABASE_URL, or the embedded database (the running service's, when
 * `npm start` is up). Every change is recorded in the audit trail.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import {
  ROLES,
  generateSecret,
  hashSecret,
  secretPrefix,
  tokenExpiry,
  type Role,
} from "../core/tokens.js";
import { loadConfig } from "../core/config.js";
import { createDatabase } from "../db/client.js";
import { migrate } from "../db/migrator.js";
import { insertToken, listTokens, revokeToken, type StoredToken } from "../db/token-store.js";
import { createLogger } from "../core/logger.js";
import { openDatabase } from "../runtime.js";

const USAGE = `usage: npm run token -- create --role reader|editor|admin --name NAME [--expires-in 12h|90d|8w | --expires-at 2027-03-01]
       npm run token -- list
       npm run token -- revoke --name NAME`;

function tokenState(token: StoredToken, now = Date.now()): string {
  if (token.revokedAt) return `revoked ${token.revokedAt.toISOString()}`;
  if (token.expiresAt === null) return "active, no expiry";
  return token.expiresAt.getTime() <= now
    ? `expired ${token.expiresAt.toISOString()}`
    : `active until ${token.expiresAt.toISOString()}`;
}

function fail(message: string): never {
  process.stderr.write(`kubecompat token: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const { positionals, values } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        role: { type: "string" },
        name: { type: "string" },
        "expires-in": { type: "string" },
        "expires-at": { type: "string" },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
const command = positionals[0];
if (command === undefined || !["create", "list", "revoke"].includes(command))
  fail(command === undefined ? "give a command" : `unknown command "${command}"`);
const name = values.name?.trim();
if (
  (command === "create" || command === "revoke") &&
  (name === undefined || !/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/.test(name))
) {
  fail("--name must be 1-64 letters, digits or . _ : @ -");
}
if (command === "create" && !(ROLES as readonly string[]).includes(values.role ?? ""))
  fail(`--role must be one of ${ROLES.join(", ")}`);
if (
  command !== "create" &&
  (values["expires-in"] !== undefined || values["expires-at"] !== undefined)
)
  fail("--expires-in and --expires-at are for create");
const expiry = tokenExpiry({ expiresIn: values["expires-in"], expiresAt: values["expires-at"] });
if ("problem" in expiry) fail(expiry.problem);

const config = loadConfig();
const logger = createLogger("warn");
const { url, embedded } = await openDatabase(config, logger, { shareRunning: true });
await migrate(url);
const db = createDatabase(url, 2, logger);
const actor = { name: `cli:${os.userInfo().username}`, role: "admin" };
try {
  if (command === "create") {
    const secret = generateSecret();
    await insertToken(
      db,
      {
        name: name!,
        role: values.role as Role,
        secretHash: hashSecret(secret),
        prefix: secretPrefix(secret),
        expiresAt: expiry.expiresAt,
      },
      actor,
    ).catch((error: unknown) => {
      if ((error as { code?: string }).code === "P2002")
        fail(`a token named "${name}" exists already; revoke it or choose another name`);
      throw error;
    });
    const until =
      expiry.expiresAt === null ? "" : `, valid until ${expiry.expiresAt.toISOString()}`;
    process.stdout.write(
      `created token "${name}" with role ${values.role}${until}. Its secret is shown only now:\n\n${secret}\n\nSend it as: Authorization: Bearer ${secretPrefix(secret)}...\n`,
    );
  } else if (command === "revoke") {
    const revoked = await revokeToken(db, name!, actor);
    if (revoked === null) fail(`no active token is named "${name}"`);
    process.stdout.write(`revoked token "${name}"\n`);
  } else {
    const tokens = await listTokens(db);
    if (tokens.length === 0) process.stdout.write("no tokens\n");
    for (const token of tokens) {
      process.stdout.write(
        `${token.name.padEnd(24)} ${token.role.padEnd(7)} ${token.prefix}...  ${tokenState(token)}${token.lastUsedAt ? `, last used ${token.lastUsedAt.toISOString()}` : ""}\n`,
      );
    }
  }
} finally {
  await db.$disconnect();
  await embedded?.stop();
}
