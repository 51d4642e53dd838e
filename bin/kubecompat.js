#!/usr/bin/env node
// The `kubecompat` executable (package.json "bin"): the CLI of src/cli/kubecompat.ts, composed in
// src/cli.ts. It runs the compiled dist/cli.js when dist/ is current: built (npm run build, or npm
// start, which builds first) after the last change to any file under src/ (scripts/build.mjs dates
// dist/.build-stamp to the start of the build). Otherwise, a checkout being edited, it runs the
// TypeScript through tsx's loader, so the CLI needs no build step; where tsx is not installed
// (production dependencies only) it runs dist/ as it is.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, "dist", "cli.js");
const source = path.join(root, "src");

/** When dist/ was last built, or undefined when it is missing or its build failed. */
function builtAt() {
  try {
    fs.accessSync(compiled);
    return fs.statSync(path.join(root, "dist", ".build-stamp")).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether a file under src/ (or a tsconfig) changed after `built`. */
function changedSince(built) {
  const inputs = [path.join(root, "tsconfig.json"), path.join(root, "tsconfig.build.json")];
  const files = fs.existsSync(source)
    ? fs
        .readdirSync(source, { recursive: true, encoding: "utf8" })
        .map((file) => path.join(source, file))
    : [];
  return [...inputs, ...files].some((file) => {
    try {
      return fs.statSync(file).mtimeMs > built;
    } catch {
      return false;
    }
  });
}

const built = builtAt();
if (built !== undefined && !changedSince(built)) {
  await import(pathToFileURL(compiled).href);
} else {
  let register;
  try {
    ({ register } = await import("tsx/esm/api"));
  } catch {
    register = undefined;
  }
  if (register !== undefined && fs.existsSync(path.join(source, "cli.ts"))) {
    register();
    // A dynamic import: the loader must be registered before src/cli.ts loads.
    await import("../src/cli.ts");
  } else if (fs.existsSync(compiled)) {
    await import(pathToFileURL(compiled).href);
  } else {
    process.stderr.write(
      "kubecompat: dist/ is not built and tsx is not installed: run npm run build (with the dev dependencies installed)\n",
    );
    process.exit(1);
  }
}
