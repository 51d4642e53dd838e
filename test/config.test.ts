import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, parseConfig } from "../src/config.js";

describe("configuration", () => {
  it("defaults to port 4000 and an embedded database", () => {
    const config = parseConfig({}, "/srv/app");
    assert.equal(config.http.port, 4000);
    assert.deepEqual(config.database, { kind: "embedded", dataDir: "/srv/app/.data/postgres", port: 54329, poolSize: 10 });
    assert.equal(config.kb.dir, "/srv/app/kb");
    assert.equal(config.kb.importOnStart, true);
  });

  it("uses DATABASE_URL when set, and treats an empty value as unset", () => {
    assert.deepEqual(parseConfig({ DATABASE_URL: "postgresql://u@db:5432/kc" }).database, { kind: "external", url: "postgresql://u@db:5432/kc", poolSize: 10 });
    assert.equal(parseConfig({ DATABASE_URL: "" }).database.kind, "embedded");
  });

  it("lists every problem at once", () => {
    assert.throws(
      () => parseConfig({ PORT: "80000", DATABASE_URL: "mysql://x", KB_IMPORT_ON_START: "maybe", LOG_LEVEL: "loud" }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.map((problem) => problem.split(":")[0]).sort(), ["DATABASE_URL", "KB_IMPORT_ON_START", "LOG_LEVEL", "PORT"]);
        assert.match(error.message, /PORT: must be between 1 and 65535/);
        return true;
      },
    );
  });
});
