#!/usr/bin/env node
// The `kubecompat` executable (package.json "bin"): runs the TypeScript CLI in
// src/cli/kubecompat.ts (composed in src/cli.ts) through tsx's loader, so the CLI needs no build step.
import { register } from "tsx/esm/api";

register();
// A dynamic import: a static one would be hoisted above register() and load before the loader exists.
await import("../src/cli.ts");
