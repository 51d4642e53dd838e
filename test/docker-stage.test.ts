/**
 * The Docker image's stages, read from the Dockerfile with the parser of
 * scripts/docker-stage.ts. Docker cannot run here (no engine, no pull of
 * node:24 images), so this file checks what reading can establish: the build
 * stage compiles, the runtime stage runs the compiled server (no tsx loader)
 * on a Node LTS line that is still supported and that package.json's engines
 * admits, and it copies what its own npm ci and the server read.
 *
 * What reading cannot show, that the stage really runs, scripts/docker-stage.ts
 * shows by replaying the runtime stage without Docker: exactly the files its
 * COPY instructions name, `npm run build`'s dist/ for `COPY --from=build`,
 * its `npm ci --omit=dev ...`, then its CMD with its ENV as an unprivileged
 * user; the server must become ready and serve everything that reads files at
 * run time (schema.graphql, the playground, the REST docs and their assets,
 * the OpenAPI document, the front page, kb/ and the migrations), and stop with
 * exit 0 on SIGTERM. The replay runs on this machine's Node (20 on our build
 * machines), not on the image's: put a Node 24 binary first in PATH to replay
 * it on the image's Node (README, "Node.js versions").
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import semver from "semver";
import {
  DOCKERFILE,
  REPO_ROOT,
  dockerignore,
  parseDockerfile,
  runtimeStage,
  type DockerStage,
} from "../scripts/docker-stage.js";

/**
 * End of life of the Node.js LTS lines (github.com/nodejs/Release, schedule.json). A line not listed
 * here fails the test below until its date is added; the image's line failing it past its date is the
 * reminder to move the image on.
 */
const NODE_END_OF_LIFE: Readonly<Record<number, string>> = {
  20: "2026-04-30",
  22: "2027-04-30",
  24: "2028-04-30",
  26: "2029-04-30",
};

const dockerfileStages = (): DockerStage[] => parseDockerfile(fs.readFileSync(DOCKERFILE, "utf8"));
const packageJson = (): { engines: { node: string }; scripts: Record<string, string> } =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    engines: { node: string };
    scripts: Record<string, string>;
  };
const runs = (stage: DockerStage): string[] =>
  stage.steps.flatMap((step) =>
    step.kind === "run" ? step.command.split("&&").map((part) => part.trim()) : [],
  );

describe("the Dockerfile's runtime stage", () => {
  // The full replay (npm ci --omit=dev, the build, the CMD until /readyz and SIGTERM) takes two minutes of a
  // shared machine, so it runs once per CI run as a step of .ci/run (npx tsx scripts/docker-stage.ts), not
  // in every npm test; these checks read the same Dockerfile with the same parser.
  it("copies everything the server reads at run time besides dist/ and node_modules/", () => {
    const stage = runtimeStage();
    const copied = new Set(
      stage.steps.flatMap((step) =>
        step.kind === "copy" && step.from === undefined
          ? step.sources.map((source) => path.basename(source))
          : [],
      ),
    );
    for (const needed of ["schema.graphql", "kb", "prisma", "package.json", "package-lock.json"])
      assert.ok(copied.has(needed), `the runtime stage does not copy ${needed}`);
    assert.ok(
      stage.steps.some(
        (step) =>
          step.kind === "copy" &&
          step.from === "build" &&
          step.sources.some((source) => source.endsWith("/dist")),
      ),
      "dist/ comes from the build stage",
    );
    assert.equal(stage.env.NODE_ENV, "production");
  });

  it("compiles in a build stage, and the runtime stage runs the compiled server with node, no TypeScript loader", () => {
    const all = dockerfileStages();
    const runtime = all.at(-1)!;
    const copied = runtime.steps.find((step) => step.kind === "copy" && step.from !== undefined);
    const build = all.find((stage) => copied?.kind === "copy" && stage.name === copied.from);
    assert.ok(
      build !== undefined && build !== runtime,
      "dist/ is copied from a build stage of its own",
    );
    assert.ok(
      runs(build).includes("npm ci"),
      "the build stage installs every dependency (TypeScript, the Prisma CLI)",
    );
    assert.ok(
      runs(build).includes("npm run build"),
      "the build stage compiles src/ (npm run build)",
    );
    const [command, ...args] = runtime.cmd;
    assert.equal(command, "node");
    const loaders = args.filter(
      (arg) =>
        /^--(import|loader|experimental-loader|require|experimental-strip-types|experimental-transform-types)\b|^-r$/.test(
          arg,
        ) || /tsx|ts-node/.test(arg),
    );
    assert.deepEqual(loaders, [], "the server runs compiled, without a loader");
    const script = args.find((arg) => !arg.startsWith("-"));
    assert.match(script ?? "", /^dist\/.+\.js$/, "CMD runs a compiled script from dist/");
    // tsconfig.build.json compiles src/ into dist/ file for file (rootDir src).
    assert.ok(
      fs.existsSync(
        path.join(REPO_ROOT, "src", script!.slice("dist/".length).replace(/\.js$/, ".ts")),
      ),
      `${script} is compiled from a file in src/`,
    );
  });

  it("runs both stages on one supported Node.js LTS line, which package.json's engines admits", () => {
    const majors = dockerfileStages().map((stage) => {
      const match = /^node:(\d+)(?:[.-]|$)/.exec(stage.base);
      assert.ok(match, `FROM ${stage.base}: an official node image of a named major`);
      return Number(match[1]);
    });
    assert.equal(
      new Set(majors).size,
      1,
      `the build and the runtime stage run the same Node major (${majors.join(", ")})`,
    );
    const major = majors[0]!;
    const endOfLife = NODE_END_OF_LIFE[major];
    assert.ok(
      endOfLife !== undefined,
      `Node ${major} is not an LTS line listed in NODE_END_OF_LIFE`,
    );
    assert.ok(
      Date.now() < Date.parse(`${endOfLife}T00:00:00Z`),
      `Node ${major} reached its end of life on ${endOfLife}: move the image to a supported LTS line`,
    );
    assert.ok(
      semver.intersects(packageJson().engines.node, `^${major}`),
      `engines.node "${packageJson().engines.node}" does not admit Node ${major}`,
    );
  });

  it("copies what its own npm ci runs (the postinstall), and that step succeeds without the Prisma CLI", () => {
    const runtime = runtimeStage();
    const postinstall = /^node (\S+)$/.exec(packageJson().scripts.postinstall ?? "");
    assert.ok(postinstall, "package.json's postinstall runs one script with node");
    const script = postinstall[1]!;
    const install = runtime.steps.findIndex(
      (step) => step.kind === "run" && step.command.startsWith("npm ci"),
    );
    const copiedBefore = runtime.steps
      .slice(0, install)
      .some(
        (step) =>
          step.kind === "copy" &&
          step.from === undefined &&
          step.sources.some(
            (source) => script === source || script.startsWith(`${source.replace(/\/$/, "")}/`),
          ),
      );
    assert.ok(
      install >= 0 && copiedBefore,
      `the runtime stage copies ${script} before its npm ci, which runs it`,
    );
    // As in the image: the script with no node_modules/prisma beside it.
    const app = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-postinstall-"));
    try {
      fs.mkdirSync(path.join(app, path.dirname(script)), { recursive: true });
      fs.copyFileSync(path.join(REPO_ROOT, script), path.join(app, script));
      const result = spawnSync(process.execPath, [script], { cwd: app, encoding: "utf8" });
      assert.equal(
        result.status,
        0,
        `${script} without the Prisma CLI: ${result.stdout}${result.stderr}`,
      );
      assert.match(result.stdout, /not installed/);
    } finally {
      fs.rmSync(app, { recursive: true, force: true });
    }
  });

  it("names, for an operator, compiled tools that the build produces", () => {
    const text = fs.readFileSync(DOCKERFILE, "utf8");
    const tools = [
      ...new Set([...text.matchAll(/\bnode (dist\/[\w/.-]+\.js)/g)].map((match) => match[1]!)),
    ];
    for (const tool of ["dist/ops/db-migrate.js", "dist/ops/kb-import.js", "dist/ops/token.js"])
      assert.ok(tools.includes(tool), `the Dockerfile says how to run ${tool}`);
    for (const tool of tools)
      assert.ok(
        fs.existsSync(
          path.join(REPO_ROOT, "src", tool.slice("dist/".length).replace(/\.js$/, ".ts")),
        ),
        `${tool}: no such source in src/`,
      );
  });

  it("keeps the machine's dist/ and generated client out of the build context, so the build stage compiles afresh", () => {
    const ignored = dockerignore(fs.readFileSync(path.join(REPO_ROOT, ".dockerignore"), "utf8"));
    // A dist/ with its .tsbuildinfo in the context would make the incremental build skip what it holds.
    for (const entry of [
      "dist",
      "dist/.tsbuildinfo",
      "dist/server.js",
      "node_modules",
      "src/db/generated/client.ts",
    ])
      assert.equal(ignored(entry), true, `${entry} is in the build context`);
    assert.equal(ignored("src/server.ts"), false);
  });

  it("reads the stages of a Dockerfile (pure)", () => {
    const stages = parseDockerfile(
      'FROM node:24 AS build\nCOPY . .\nFROM node:24-slim AS runtime\nENV A=1 B=2\nCOPY --from=build /app/dist ./dist\nCOPY kb ./kb\nCMD ["node", "dist/server.js"]\n',
    );
    assert.equal(stages.length, 2);
    const runtime = stages[1]!;
    assert.deepEqual(runtime.env, { A: "1", B: "2" });
    assert.deepEqual(
      runtime.steps
        .filter((step) => step.kind === "copy")
        .map((step) =>
          step.kind === "copy" ? `${step.from ?? ""}:${step.sources.join(",")}` : "",
        ),
      ["build:/app/dist", ":kb"],
    );
  });

  it("reads .dockerignore as Docker does", () => {
    const ignored = dockerignore("node_modules\n*.log\n**/*.tmp\ndocs\n!docs/keep.md\n");
    assert.equal(ignored("node_modules"), true);
    assert.equal(ignored("node_modules/pg/index.js"), true);
    assert.equal(ignored("server.log"), true);
    assert.equal(
      ignored("kb/server.log"),
      false,
      "a pattern without ** is anchored at the context root",
    );
    assert.equal(ignored("kb/a/b.tmp"), true);
    assert.equal(ignored("docs/other.md"), true);
    assert.equal(ignored("docs/keep.md"), false);
    assert.equal(ignored("kb/releases.yaml"), false);
  });
});
