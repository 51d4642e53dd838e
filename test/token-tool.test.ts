/**
 * `npm run token`, the operator's tool, run as a real process against a
 * database of its own: a token made with an expiry says so when created and
 * listed, and the service refuses it once that time has passed; expiry
 * options it cannot read are refused with what to write instead.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import path from "node:path";
import pg from "pg";
import { runExecutable } from "./support/cli-process.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { REPO_ROOT } from "./support/runtime.js";
import { createDatabase } from "../src/db/client.js";
import { Authenticator } from "../src/services/authenticator.js";
import { createLogger } from "../src/core/logger.js";

const TOOL = path.join(REPO_ROOT, "src", "ops", "token.ts");

describe("npm run token: expiry", () => {
  let database: TestDatabase;
  const token = (args: readonly string[]) =>
    runExecutable(process.execPath, ["--import", "tsx", TOOL, ...args], {
      env: { DATABASE_URL: database.url },
    });

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database.drop());

  it("creates a token valid for 90 days, lists it with its end, and the service refuses it once that end has passed", async () => {
    const created = await token([
      "create",
      "--role",
      "reader",
      "--name",
      "dashboards",
      "--expires-in",
      "90d",
    ]);
    assert.equal(created.code, 0, created.stderr);
    const until = /valid until (\S+)\. Its secret/.exec(created.stdout)?.[1];
    assert.ok(until, created.stdout);
    const days = (new Date(until).getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 89.9 && days <= 90, `${days} days`);
    const secret = /^(kc_\S+)$/m.exec(created.stdout)?.[1];
    assert.ok(secret, "the secret is printed once");

    const forever = await token(["create", "--role", "editor", "--name", "ci-bot"]);
    assert.equal(forever.code, 0, forever.stderr);
    const listed = await token(["list"]);
    assert.match(
      listed.stdout,
      new RegExp(
        `^dashboards\\s+reader\\s+kc_\\S+\\.\\.\\.\\s+active until ${until.replace(/[.]/g, "\\.")}`,
        "m",
      ),
    );
    assert.match(listed.stdout, /^ci-bot\s+editor\s+\S+\s+active, no expiry/m);

    const logger = createLogger("silent");
    const db = createDatabase(database.url, 1, logger);
    try {
      const principal = await new Authenticator(db, logger, { cacheMs: 0 }).authenticate(
        `Bearer ${secret}`,
      );
      assert.deepEqual(principal, { name: "dashboards", role: "reader" });
      // Its end moved to the past, as if 90 days went by.
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(
        `UPDATE "ApiToken" SET "expiresAt" = now() - interval '1 minute' WHERE name = 'dashboards'`,
      );
      await client.end();
      await assert.rejects(
        new Authenticator(db, logger, { cacheMs: 0 }).authenticate(`Bearer ${secret}`),
        /the token "dashboards" expired on/,
      );
      assert.match((await token(["list"])).stdout, /^dashboards\s+reader\s+\S+\s+expired /m);
    } finally {
      await db.$disconnect();
    }
  });

  it("refuses expiry options it cannot read, saying what to write", async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ["--expires-in", "3 months"],
        /--expires-in must be a whole number of hours, days or weeks, such as 12h, 90d or 8w/,
      ],
      [["--expires-at", "2020-01-01"], /--expires-at 2020-01-01 is not in the future/],
      [["--expires-at", "next friday"], /--expires-at must be a date \(2027-03-01\)/],
      [
        ["--expires-in", "1d", "--expires-at", "2099-01-01"],
        /give --expires-in or --expires-at, not both/,
      ],
    ];
    for (const [options, message] of cases) {
      const run = await token(["create", "--role", "reader", "--name", "refused", ...options]);
      assert.equal(run.code, 2, `${options.join(" ")}: ${run.stdout}`);
      assert.match(run.stderr, message);
    }
    assert.doesNotMatch((await token(["list"])).stdout, /refused/, "nothing was created");
  });
});
