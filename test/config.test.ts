import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ConfigError, loadConfig, parseConfig, parseEnvFile } from "../src/core/config.js";

/** A directory with this .env in it (or none), for loadConfig. */
function withDotenv(text: string | undefined, run: (directory: string) => void): void {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-dotenv-"));
  try {
    if (text !== undefined) fs.writeFileSync(path.join(directory, ".env"), text);
    run(directory);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

describe("configuration", () => {
  it("defaults to port 4000 and an embedded database", () => {
    const config = parseConfig({}, "/srv/app");
    assert.equal(config.http.port, 4000);
    assert.deepEqual(config.database, {
      kind: "embedded",
      dataDir: "/srv/app/.data/postgres",
      port: 54329,
      portGiven: false,
      poolSize: 10,
    });
    assert.equal(config.kb.dir, "/srv/app/kb");
    assert.equal(config.kb.importOnStart, true);
  });

  it("uses DATABASE_URL when set, and treats an empty value as unset", () => {
    assert.deepEqual(parseConfig({ DATABASE_URL: "postgresql://u@db:5432/kc" }).database, {
      kind: "external",
      url: "postgresql://u@db:5432/kc",
      poolSize: 10,
    });
    assert.equal(parseConfig({ DATABASE_URL: "" }).database.kind, "embedded");
  });

  it("gathers edits for 50 ms unless told otherwise, for a whole number of milliseconds up to a second", () => {
    assert.equal(parseConfig({}).edits.gatherMs, 50);
    assert.equal(parseConfig({ EDIT_GATHER_MS: "0" }).edits.gatherMs, 0);
    assert.equal(parseConfig({ EDIT_GATHER_MS: "40" }).edits.gatherMs, 40);
    for (const [value, message] of [
      ["-1", /EDIT_GATHER_MS: must be 0 \(off\) or more/],
      ["2.5", /EDIT_GATHER_MS: must be a whole number of milliseconds/],
      ["5000", /EDIT_GATHER_MS: must be at most 1000/],
      ["soon", /EDIT_GATHER_MS: must be a number/],
    ] as const) {
      assert.throws(
        () => parseConfig({ EDIT_GATHER_MS: value }),
        (error: unknown) => error instanceof ConfigError && message.test(error.message),
        value,
      );
    }
  });

  it("lets 4 reads in per pass of the event loop unless told otherwise; 0 turns the turns off", () => {
    assert.equal(parseConfig({}).readsPerTurn, 4);
    assert.equal(parseConfig({ READS_PER_TURN: "0" }).readsPerTurn, 0);
    assert.equal(parseConfig({ READS_PER_TURN: "16" }).readsPerTurn, 16);
    for (const [value, message] of [
      ["-1", /READS_PER_TURN: must be 0 \(no turns\) or more/],
      ["1.5", /READS_PER_TURN: must be a whole number/],
      ["5000", /READS_PER_TURN: must be at most 1000/],
      ["many", /READS_PER_TURN: must be a number/],
    ] as const) {
      assert.throws(
        () => parseConfig({ READS_PER_TURN: value }),
        (error: unknown) => error instanceof ConfigError && message.test(error.message),
        value,
      );
    }
  });

  it("refreshes from upstream only when KB_REFRESH_INTERVAL says so, from the sources configured", () => {
    const off = parseConfig({}, "/srv/app").refresh;
    assert.equal(off.intervalMs, null);
    assert.equal(off.cacheDir, "/srv/app/.data/sources");
    assert.equal(off.webhookUrl, null);
    assert.deepEqual(
      off.sources.map((source) => [source.name, source.kind, source.url]),
      [
        ["kubernetes-api", "git", "https://github.com/kubernetes/api.git"],
        ["containerd", "git", "https://github.com/containerd/containerd.git"],
        ["kubernetes-website", "git", "https://github.com/kubernetes/website.git"],
        ["kubernetes", "git", "https://github.com/kubernetes/kubernetes.git"],
        ["endoflife", "http", "https://endoflife.date/api"],
      ],
    );
    const mirrored = parseConfig(
      {
        KB_REFRESH_INTERVAL: "24h",
        KB_SOURCE_KUBERNETES_API: "git@git.corp.example:mirrors/kubernetes-api.git",
        KB_SOURCE_CONTAINERD: "off",
        KB_SOURCE_KUBERNETES_WEBSITE: "/srv/mirrors/website",
        KB_SOURCE_KUBERNETES: "off",
        KB_SOURCE_ENDOFLIFE: "https://eol.corp.example/api/",
        KB_REFRESH_WEBHOOK_URL: "https://hooks.slack.com/services/T0/B0/x",
      },
      "/srv/app",
    ).refresh;
    assert.equal(mirrored.intervalMs, 86_400_000);
    assert.deepEqual(
      mirrored.sources.map((source) => `${source.name} ${source.url}`),
      [
        "kubernetes-api git@git.corp.example:mirrors/kubernetes-api.git",
        "kubernetes-website /srv/mirrors/website",
        "endoflife https://eol.corp.example/api",
      ],
    );
    assert.equal(parseConfig({ KB_REFRESH_INTERVAL: "30m" }).refresh.intervalMs, 1_800_000);
    assert.equal(parseConfig({ KB_REFRESH_INTERVAL: "7d" }).refresh.intervalMs, 604_800_000);
    assert.throws(
      () =>
        parseConfig({
          KB_REFRESH_INTERVAL: "24 hours",
          KB_SOURCE_CONTAINERD: "containerd",
          KB_SOURCE_ENDOFLIFE: "endoflife.date",
          KB_REFRESH_WEBHOOK_URL: "hooks.slack.com",
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.problems.map((problem) => problem.split(":")[0]),
          [
            "KB_REFRESH_INTERVAL",
            "KB_REFRESH_WEBHOOK_URL",
            "KB_SOURCE_CONTAINERD",
            "KB_SOURCE_ENDOFLIFE",
          ],
        );
        assert.match(
          error.message,
          /KB_REFRESH_INTERVAL: must be "off" or a duration between 5m and 90d/,
        );
        return true;
      },
    );
    assert.throws(() => parseConfig({ KB_REFRESH_INTERVAL: "1m" }), /between 5m and 90d/);
  });

  it("lists every problem at once", () => {
    assert.throws(
      () =>
        parseConfig({
          PORT: "80000",
          DATABASE_URL: "mysql://x",
          KB_IMPORT_ON_START: "maybe",
          LOG_LEVEL: "loud",
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.map((problem) => problem.split(":")[0]).sort(), [
          "DATABASE_URL",
          "KB_IMPORT_ON_START",
          "LOG_LEVEL",
          "PORT",
        ]);
        assert.match(error.message, /PORT: must be between 1 and 65535/);
        return true;
      },
    );
  });

  it("turns chat dev mode on only with HOST on loopback, and says what to fix otherwise", () => {
    assert.equal(parseConfig({}).chatops.devMode, false);
    for (const HOST of ["127.0.0.1", "::1", "localhost"])
      assert.equal(parseConfig({ CHATOPS_DEV: "true", HOST }).chatops.devMode, true, HOST);
    assert.equal(parseConfig({ CHATOPS_DEV: "false" }).chatops.devMode, false, "off on any HOST");
    for (const environment of [
      { CHATOPS_DEV: "true", HOST: "0.0.0.0" },
      { CHATOPS_DEV: "yes", HOST: "192.168.1.20" },
      { CHATOPS_DEV: "1" }, // HOST's default is every interface
    ]) {
      assert.throws(
        () => parseConfig(environment),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.equal(error.problems.length, 1);
          assert.match(error.message, /CHATOPS_DEV: chat dev mode answers commands without/);
          assert.match(error.message, new RegExp(`HOST is ${environment.HOST ?? "0\\.0\\.0\\.0"}`));
          assert.match(error.message, /set HOST=127\.0\.0\.1 \(or ::1, localhost\), or unset/);
          return true;
        },
        JSON.stringify(environment),
      );
    }
    // Listed with the other variables' problems, so one run names everything to fix.
    assert.throws(
      () => parseConfig({ CHATOPS_DEV: "true", HOST: "0.0.0.0", PORT: "0" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.some((problem) => problem.startsWith("PORT:")) &&
        error.problems.some((problem) => problem.startsWith("CHATOPS_DEV:")),
    );
  });
  it("reads .env from the working directory, and a variable in the environment wins over it, even empty", () => {
    const dotenv = [
      "# kubecompat",
      "PORT=4100",
      "export LOG_LEVEL=warn",
      "KB_DIR='my kb'   # quoted, with a space",
      'SLACK_SIGNING_SECRET="s3cret with # and \\"quotes\\""',
      "RATE_LIMIT_CHAT_PER_MINUTE = 7",
      "DATABASE_URL=postgresql://kc@db:5432/kc # the team's",
      "",
    ].join("\n");
    withDotenv(dotenv, (directory) => {
      const fromFile = loadConfig({}, directory);
      assert.equal(fromFile.http.port, 4100);
      assert.equal(fromFile.logLevel, "warn");
      assert.equal(fromFile.kb.dir, path.join(directory, "my kb"));
      assert.equal(fromFile.chatops.slackSigningSecret, 's3cret with # and "quotes"');
      assert.equal(fromFile.rateLimits.chatPerMinute, 7);
      assert.deepEqual(fromFile.database, {
        kind: "external",
        url: "postgresql://kc@db:5432/kc",
        poolSize: 10,
      });

      const overridden = loadConfig({ PORT: "4200", DATABASE_URL: "" }, directory);
      assert.equal(overridden.http.port, 4200, "the environment's PORT wins");
      assert.equal(
        overridden.database.kind,
        "embedded",
        "an empty DATABASE_URL in the environment wins too, meaning unset",
      );
      assert.equal(
        overridden.logLevel,
        "warn",
        "what the environment does not set still comes from .env",
      );
    });
  });

  it("without .env, reads the environment alone; a bad .env lists each bad line, without repeating it", () => {
    withDotenv(undefined, (directory) => {
      assert.equal(loadConfig({ PORT: "4300" }, directory).http.port, 4300);
    });
    withDotenv(
      "PORT=4000\nCHATOPS_TOKEN abcdefghijklmnopqrstuvwxyz\nKB_DIR='kb\nPORT=80000\n",
      (directory) => {
        assert.throws(
          () => loadConfig({}, directory),
          (error: unknown) => {
            assert.ok(error instanceof ConfigError);
            assert.deepEqual(error.problems, [
              ".env line 2: expected NAME=value (a # starts a comment line)",
              ".env line 3: KB_DIR's value opens a single quote that is not closed at the end of its line",
            ]);
            assert.ok(
              !error.message.includes("abcdefghij"),
              "a line that may hold a secret is not repeated",
            );
            return true;
          },
        );
      },
    );
    withDotenv("PORT=80000\n", (directory) => {
      assert.throws(
        () => loadConfig({}, directory),
        /PORT: must be between 1 and 65535/,
        "values from .env are checked like the environment's",
      );
    });
  });

  it("parses .env as dotenv does: comments, export, quotes, escapes", () => {
    const { values, problems } = parseEnvFile(
      "A=1\n  # note\nexport B=two words # comment\nC='raw \\n'\nD=\"x\\ny\"\nE=\nF=a#b\n",
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(values, { A: "1", B: "two words", C: "raw \\n", D: "x\ny", E: "", F: "a#b" });
  });
});
