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
import path from "node:path";
import { describe, it } from "node:test";
import { dockerignore, parseDockerfile, runtimeStage } from "../scripts/docker-stage.js";


describe("the Dockerfile's runtime stage", () => {
  // The full replay (npm ci --omit=dev, the build, the CMD until /readyz and SIGTERM) takes two minutes of a
  // shared machine, so it runs once per CI run as a step of .ci/run (npx tsx scripts/docker-stage.ts), not
  // in every npm test; these checks read the same Dockerfile with the same parser.
  it("copies everything the server reads at run time besides dist/ and node_modules/", () => {
    const stage = runtimeStage();
    const copied = new Set(stage.steps.flatMap((step) => (step.kind === "copy" && step.from === undefined ? step.sources.map((source) => path.basename(source)) : [])));
    for (const needed of ["schema.graphql", "kb", "prisma", "package.json", "package-lock.json"]) assert.ok(copied.has(needed), `the runtime stage does not copy ${needed}`);
    assert.ok(stage.steps.some((step) => step.kind === "copy" && step.from === "build" && step.sources.some((source) => source.endsWith("/dist"))), "dist/ comes from the build stage");
    assert.equal(stage.env.NODE_ENV, "production");
  });

  it("reads the stages of a Dockerfile (pure)", () => {
    const stages = parseDockerfile("FROM node:20 AS build\nCOPY . .\nFROM node:20-slim AS runtime\nENV A=1 B=2\nCOPY --from=build /app/dist ./dist\nCOPY kb ./kb\nCMD [\"node\", \"dist/server.js\"]\n");
    assert.equal(stages.length, 2);
    const runtime = stages[1]!;
    assert.deepEqual(runtime.env, { A: "1", B: "2" });
    assert.deepEqual(runtime.steps.filter((step) => step.kind === "copy").map((step) => (step.kind === "copy" ? `${step.from ?? ""}:${step.sources.join(",")}` : "")), ["build:/app/dist", ":kb"]);
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
