// `npm run build`, and the first step of `npm start`: compiles src/ to dist/ (tsconfig.build.json,
// rootDir src, so dist/graphql/server.js sits as deep as src/graphql/server.ts and the paths the code
// resolves from its own file, ../../schema.graphql, ../../prisma/migrations, ../kb/, hold for both).
//
// Incremental: `tsc --build` keeps its state in dist/.tsbuildinfo and, when no input changed since,
// only compares timestamps (about half a second); deleting dist/ starts from scratch. Two things tsc
// --build does not do are done here: it does not notice an output deleted by hand (then this forces a
// full build), and it never removes the output of a source file that is gone (removed here after a
// successful build, so dist/ holds nothing src/ does not).
//
// On success it writes dist/.build-stamp, dated when the build started: bin/kubecompat.js runs dist/
// only when that stamp is newer than every file under src/. Type errors fail the build (exit 1 with
// tsc's messages), and with it `npm start`: what runs is what type-checks.
//
// Where TypeScript is not installed (`npm ci --omit=dev`, as in the Docker image's runtime stage), an
// existing dist/ is used as it is; without one it says how to build it.
//
//   node scripts/build.mjs [--outDir DIR] [tsc --build flags, e.g. --verbose, --force]
// --outDir (scripts/docker-stage.ts builds the image's dist/ into a temporary directory) compiles in
// full into DIR, its build state in DIR too, leaving dist/ alone.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SOURCE = path.join(root, "src");
const CONFIG = path.join(root, "tsconfig.build.json");
const STAMP = ".build-stamp";
const BUILD_INFO = ".tsbuildinfo";

const args = process.argv.slice(2);
const outFlag = args.indexOf("--outDir");
const outDir = outFlag >= 0 ? path.resolve(args[outFlag + 1] ?? "") : path.join(root, "dist");
const extra =
  outFlag >= 0 ? args.filter((_, index) => index !== outFlag && index !== outFlag + 1) : args;

/** Every .ts file under src/, relative to it ("graphql/server.ts"). */
function sources() {
  return fs
    .readdirSync(SOURCE, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => file.split(path.sep).join("/"));
}

const compiledName = (source) => source.replace(/\.ts$/, ".js");

const tsc = (() => {
  try {
    return path.join(
      path.dirname(fileURLToPath(import.meta.resolve("typescript/package.json"))),
      "bin",
      "tsc",
    );
  } catch {
    return undefined;
  }
})();

if (tsc === undefined || !fs.existsSync(tsc)) {
  if (fs.existsSync(path.join(outDir, "server.js"))) {
    process.stderr.write(
      `build: TypeScript is not installed (production dependencies only): running ${path.relative(root, outDir) || "."}/ as it was built\n`,
    );
    process.exit(0);
  }
  process.stderr.write(
    "build: TypeScript is not installed and there is no dist/ to run: build where the dev dependencies are installed (npm ci && npm run build) and ship dist/ with the production install\n",
  );
  process.exit(1);
}

const started = new Date();
// Outputs deleted after the last build (a source newer than the build state is tsc's to compile anyway).
const lastBuild = (() => {
  try {
    return fs.statSync(path.join(outDir, BUILD_INFO)).mtimeMs;
  } catch {
    return undefined;
  }
})();
const missing =
  lastBuild === undefined
    ? []
    : sources().filter(
        (source) =>
          !fs.existsSync(path.join(outDir, compiledName(source))) &&
          fs.statSync(path.join(SOURCE, source)).mtimeMs <= lastBuild,
      );
const tscArgs =
  outFlag >= 0
    ? [
        "-p",
        CONFIG,
        "--outDir",
        outDir,
        "--tsBuildInfoFile",
        path.join(outDir, BUILD_INFO),
        ...extra,
      ]
    : ["--build", CONFIG, ...(missing.length > 0 ? ["--force"] : []), ...extra];
if (missing.length > 0 && outFlag < 0)
  process.stderr.write(
    `build: ${missing.length} compiled file(s) missing from dist/ (${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", ..." : ""}): building everything\n`,
  );
const result = spawnSync(process.execPath, [tsc, ...tscArgs], { cwd: root, stdio: "inherit" });
if (result.status !== 0) {
  fs.rmSync(path.join(outDir, STAMP), { force: true });
  process.stderr.write(
    `build: tsc failed (exit ${result.status ?? result.signal}); dist/ is not up to date\n`,
  );
  process.exit(result.status ?? 1);
}

// Outputs whose source is gone (a file deleted or renamed in src/).
const expected = new Set(sources().map(compiledName));
for (const file of fs.readdirSync(outDir, { recursive: true, encoding: "utf8" })) {
  const relative = file.split(path.sep).join("/");
  if (
    /\.(js|js\.map|d\.ts)$/.test(relative) &&
    !expected.has(relative.replace(/\.js\.map$|\.d\.ts$/, ".js"))
  ) {
    fs.rmSync(path.join(outDir, file), { force: true });
  }
}
const stamp = path.join(outDir, STAMP);
fs.writeFileSync(stamp, `${started.toISOString()}\n`);
fs.utimesSync(stamp, started, started);
