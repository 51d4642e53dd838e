/**
 * The Docker image's runtime stage, replayed without Docker
 * (scripts/docker-stage.ts): exactly the files its COPY instructions name,
 * `npm run build`'s dist/ for `COPY --from=build`, its `npm ci --omit=dev`,
 * then its CMD with its ENV as an unprivileged user. The server must become
 * ready and serve everything that reads files at run time (schema.graphql,
 * the playground, the REST docs and their assets, the OpenAPI document, the
 * front page, kb/ and the migrations), and stop with exit 0 on SIGTERM.
 * Without DATABASE_URL it runs on the embedded PostgreSQL, with its data in
 * a directory of the server's user, as a volume would be.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../src/config.js";
import { dockerignore, probeStage, replayRuntimeStage, runEnvironment, runtimeStage, startStage, type ReplayedStage, type RunningStage } from "../scripts/docker-stage.js";

// Hang detectors: npm ci (from the npm cache) and the build take a minute or two on 2 busy cores.
const READY_WITHIN_MS = 180_000;

describe("the Dockerfile's runtime stage, replayed", () => {
  let replayed: ReplayedStage;
  let running: RunningStage | undefined;
  let cleanup: (() => Promise<void>) | undefined;

  before(() => {
    replayed = replayRuntimeStage();
  });
  after(async () => {
    await running?.stop();
    await cleanup?.();
    replayed?.remove();
  });

  it("holds only what its COPY instructions name, with production dependencies only", () => {
    const stage = runtimeStage();
    const copied = stage.steps.flatMap((step) => (step.kind === "copy" && step.from === undefined ? step.sources : []));
    const top = fs.readdirSync(replayed.app).sort();
    const expected = [...new Set([...copied.map((source) => path.basename(source)), "dist", "node_modules", ...(top.includes("src") ? ["src"] : [])])].sort();
    assert.deepEqual(top, expected, "nothing but the COPY sources, dist/ and node_modules/ (and the Prisma client that npm ci's postinstall generates)");
    assert.ok(fs.existsSync(path.join(replayed.app, "node_modules/pg")), "a production dependency");
    assert.ok(!fs.existsSync(path.join(replayed.app, "node_modules/eslint")), "no development dependency");
    assert.ok(fs.existsSync(path.join(replayed.app, "dist/server.js")));
  });

  it("runs its CMD with its ENV as an unprivileged user: ready, and serving everything it reads at run time", async () => {
    const config = parseConfig();
    const run = await runEnvironment(replayed, config.database.kind === "external" ? config.database.url : undefined);
    cleanup = run.cleanup;
    running = await startStage(replayed, run.env, { readyWithinMs: READY_WITHIN_MS });
    const probes = await probeStage(running.base);
    const failed = probes.filter((probe) => !probe.ok);
    assert.deepEqual(failed, [], `\n${running.output().slice(-4000)}`);
    for (const what of ["GraphQL answers (schema.graphql)", "the playground page (GraphiQL from node_modules)", "the front page"]) {
      assert.ok(probes.some((probe) => probe.what === what), `probed: ${what}`);
    }
    assert.ok(probes.filter((probe) => probe.what.startsWith("REST docs asset")).length >= 2, "the docs' assets were probed");
    assert.equal(replayed.stage.env.NODE_ENV, "production");
    if (replayed.runAs) {
      const status = fs.readFileSync(`/proc/${running.child.pid}/status`, "utf8");
      assert.match(status, new RegExp(`^Uid:\\s+${replayed.runAs.uid}\\b`, "m"), `the server runs as ${replayed.runAs.name}`);
    }
    const exit = await running.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, running.output().slice(-3000));
    assert.match(running.output(), /"msg":"stopped"/);
    running = undefined;
  });

  it("reads .dockerignore as Docker does", () => {
    const ignored = dockerignore("node_modules\n*.log\n**/*.tmp\ndocs\n!docs/keep.md\n");
    assert.equal(ignored("node_modules"), true);
    assert.equal(ignored("node_modules/pg/index.js"), true);
    assert.equal(ignored("server.log"), true);
    assert.equal(ignored("kb/server.log"), false, "a pattern without ** is anchored at the context root");
    assert.equal(ignored("kb/a/b.tmp"), true);
    assert.equal(ignored("docs/other.md"), true);
    assert.equal(ignored("docs/keep.md"), false);
    assert.equal(ignored("kb/releases.yaml"), false);
  });
});
