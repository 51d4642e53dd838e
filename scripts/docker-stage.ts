/**
 * The Dockerfile's runtime stage, replayed without Docker (our build
 * machines have none): its instructions are read from the Dockerfile, so
 * what the image holds is what gets tested. WORKDIR becomes a directory
 * under a temporary root; each COPY copies exactly its sources from the
 * build context (minus .dockerignore), and `COPY --from=<build stage>
 * <workdir>/dist` the output of `npm run build`; each RUN runs with
 * /bin/sh as root with the stage's ENV (npm then uses a throwaway copy of
 * this machine's npm cache, so `npm ci` needs no download and the stage's
 * `npm cache clean --force` empties only the copy); CMD runs with the
 * stage's ENV plus the variables of a `docker run -e` (port, database), as
 * the stage's USER, or, where this machine has no such user, as `nobody`
 * (unprivileged and owning nothing under the app directory, as `node` in
 * the image). Then the server must become ready and serve what reads files
 * at run time (the GraphQL schema, the playground, the REST docs and their
 * assets, the OpenAPI document, the front page, kb/ and the migrations),
 * and stop cleanly on SIGTERM.
 *
 * test/docker-stage.test.ts drives it; `.ci/run` runs it on the `dist/` it
 * builds: `tsx scripts/docker-stage.ts [--dist dist]` (without --dist it
 * runs `npm run build` into the temporary root). With DATABASE_URL set, the
 * server gets a database of its own on that PostgreSQL server (created and
 * dropped here); without it, the embedded PostgreSQL, its data in a
 * directory the server's user owns (a volume, in Docker terms).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const DOCKERFILE = path.join(REPO_ROOT, "Dockerfile");

export type StageStep =
  | { readonly kind: "workdir"; readonly path: string }
  | { readonly kind: "env"; readonly values: Readonly<Record<string, string>> }
  | {
      readonly kind: "copy";
      readonly from: string | undefined;
      readonly sources: readonly string[];
      readonly dest: string;
    }
  | { readonly kind: "run"; readonly command: string }
  | { readonly kind: "user"; readonly user: string };

export interface DockerStage {
  readonly name: string | undefined;
  readonly base: string;
  readonly steps: readonly StageStep[];
  /** ENV of the stage, all of it. */
  readonly env: Readonly<Record<string, string>>;
  /** The working directory CMD runs in (absolute, inside the image). */
  readonly workdir: string;
  readonly user: string | undefined;
  /** CMD in exec form. */
  readonly cmd: readonly string[];
}

/** Every stage of a Dockerfile, in order; instructions the replay does not know are refused, never skipped. */
export function parseDockerfile(text: string): DockerStage[] {
  const lines = text
    .replace(/\\\r?\n/g, " ")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const stages: Array<{
    name: string | undefined;
    base: string;
    steps: StageStep[];
    env: Record<string, string>;
    workdir: string;
    user: string | undefined;
    cmd: string[];
  }> = [];
  for (const line of lines) {
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`Dockerfile: cannot read "${line}"`);
    const instruction = match[1]!.toUpperCase();
    const rest = match[2]!.trim();
    if (instruction === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!from) throw new Error(`Dockerfile: cannot read FROM ${rest}`);
      stages.push({
        name: from[2],
        base: from[1]!,
        steps: [],
        env: {},
        workdir: "/",
        user: undefined,
        cmd: [],
      });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) throw new Error(`Dockerfile: ${instruction} before FROM`);
    switch (instruction) {
      case "ENV": {
        const values: Record<string, string> = {};
        const pairs = [...rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S+)/g)];
        if (pairs.length === 0) {
          const legacy = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$/.exec(rest);
          if (!legacy) throw new Error(`Dockerfile: cannot read ENV ${rest}`);
          values[legacy[1]!] = legacy[2]!;
        }
        for (const pair of pairs)
          values[pair[1]!] = pair[2]!.startsWith('"') ? (JSON.parse(pair[2]!) as string) : pair[2]!;
        Object.assign(stage.env, values);
        stage.steps.push({ kind: "env", values });
        break;
      }
      case "WORKDIR":
        stage.workdir = path.posix.resolve(stage.workdir, rest);
        stage.steps.push({ kind: "workdir", path: stage.workdir });
        break;
      case "COPY": {
        const words = rest.startsWith("[") ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
        let from: string | undefined;
        while (words[0]?.startsWith("--")) {
          const flag = words.shift()!;
          if (flag.startsWith("--from=")) from = flag.slice("--from=".length);
          else
            throw new Error(
              `Dockerfile: COPY ${flag} is not something the replay (scripts/docker-stage.ts) knows how to do`,
            );
        }
        if (words.length < 2)
          throw new Error(`Dockerfile: COPY ${rest} needs a source and a destination`);
        stage.steps.push({ kind: "copy", from, sources: words.slice(0, -1), dest: words.at(-1)! });
        break;
      }
      case "RUN":
        if (rest.startsWith("["))
          throw new Error(
            "Dockerfile: RUN in exec form is not something the replay knows how to do",
          );
        stage.steps.push({ kind: "run", command: rest });
        break;
      case "USER":
        stage.user = rest;
        stage.steps.push({ kind: "user", user: rest });
        break;
      case "CMD":
        if (!rest.startsWith("["))
          throw new Error(
            "Dockerfile: CMD must be in exec form (a JSON array), so signals reach node",
          );
        stage.cmd = JSON.parse(rest) as string[];
        break;
      case "EXPOSE":
      case "HEALTHCHECK":
      case "LABEL":
        // Metadata for the engine; test/deployment-files.test.ts checks them against the app.
        break;
      default:
        throw new Error(
          `Dockerfile: ${instruction} is not something the replay (scripts/docker-stage.ts) knows how to do`,
        );
    }
  }
  return stages;
}

/** The stage the image runs: the last one. */
export function runtimeStage(text: string = fs.readFileSync(DOCKERFILE, "utf8")): DockerStage {
  const stage = parseDockerfile(text).at(-1);
  if (stage === undefined) throw new Error("the Dockerfile has no stage");
  if (stage.cmd.length === 0) throw new Error("the Dockerfile's last stage has no CMD");
  return stage;
}

/** .dockerignore as Docker reads it: patterns from the context root, `**` for any depth, `!` to take back. */
export function dockerignore(text: string): (relative: string) => boolean {
  const rules = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const negated = line.startsWith("!");
      const pattern = path.posix
        .normalize((negated ? line.slice(1) : line).replace(/^\/+/, ""))
        .replace(/\/+$/, "");
      const source = pattern
        .split("/")
        .map((segment) =>
          segment === "**"
            ? "(?:.*)"
            : segment
                .replace(/[.+^${}()|[\]\\]/g, "\\$&")
                .replace(/\*/g, "[^/]*")
                .replace(/\?/g, "[^/]"),
        )
        .join("/")
        .replace(/\(\?:\.\*\)\//g, "(?:.*/)?");
      return { negated, expression: new RegExp(`^${source}$`) };
    });
  return (relative) => {
    // A path is excluded when it, or a directory above it, matches; the last matching rule decides.
    const parts = relative.split("/");
    let excluded = false;
    for (const rule of rules) {
      for (let depth = 1; depth <= parts.length; depth += 1) {
        if (rule.expression.test(parts.slice(0, depth).join("/"))) {
          excluded = !rule.negated;
          break;
        }
      }
    }
    return excluded;
  };
}

export interface ReplayedStage {
  readonly stage: DockerStage;
  /** The temporary root standing for the image's /. */
  readonly root: string;
  /** The stage's WORKDIR under `root`. */
  readonly app: string;
  /** Who CMD runs as (undefined: the current user, when not root). */
  readonly runAs: { readonly name: string; readonly uid: number; readonly gid: number } | undefined;
  /** Removes the temporary root. */
  remove(): void;
}

export interface ReplayOptions {
  /** A `npm run build` output to copy from the build stage; without it one is built under the root. */
  readonly dist?: string;
  readonly log?: (line: string) => void;
}

function imagePath(root: string, inside: string): string {
  return path.join(root, ...inside.split("/").filter(Boolean));
}

function userIds(name: string): { uid: number; gid: number } | undefined {
  try {
    return {
      uid: Number(
        execFileSync("id", ["-u", name], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        }).trim(),
      ),
      gid: Number(
        execFileSync("id", ["-g", name], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        }).trim(),
      ),
    };
  } catch {
    return undefined;
  }
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  what: string,
): void {
  const result = spawnSync(command, args, {
    ...options,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `${what} failed (exit ${result.status ?? result.signal}):\n${(result.stdout ?? "").slice(-3000)}\n${(result.stderr ?? "").slice(-3000)}`,
    );
  }
}

/** Builds the runtime stage's file system under a new temporary root (see the module comment). */
export function replayRuntimeStage(options: ReplayOptions = {}): ReplayedStage {
  const log = options.log ?? (() => undefined);
  const stage = runtimeStage();
  const stages = parseDockerfile(fs.readFileSync(DOCKERFILE, "utf8"));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-image-"));
  // The image's / is open to every user; mkdtemp's is not.
  fs.chmodSync(root, 0o755);
  const remove = (): void => fs.rmSync(root, { recursive: true, force: true });
  try {
    const ignored = fs.existsSync(path.join(REPO_ROOT, ".dockerignore"))
      ? dockerignore(fs.readFileSync(path.join(REPO_ROOT, ".dockerignore"), "utf8"))
      : () => false;
    const home = path.join(root, "root");
    const npmCache = path.join(root, "npm-cache");
    fs.mkdirSync(home, { recursive: true });
    // This machine's npm cache, hard-linked (instant, and what the stage's `npm cache clean` deletes is only the links).
    const machineCache = path.join(os.homedir(), ".npm", "_cacache");
    if (fs.existsSync(machineCache)) {
      fs.mkdirSync(npmCache, { recursive: true });
      run(
        "cp",
        ["-al", machineCache, path.join(npmCache, "_cacache")],
        { cwd: root, env: process.env },
        "linking the npm cache",
      );
    }
    let workdir = "/";
    const env: Record<string, string> = {};
    for (const step of stage.steps) {
      switch (step.kind) {
        case "workdir":
          workdir = step.path;
          fs.mkdirSync(imagePath(root, workdir), { recursive: true, mode: 0o755 });
          break;
        case "env":
          Object.assign(env, step.values);
          break;
        case "user":
          break;
        case "copy": {
          const destination = imagePath(root, path.posix.resolve(workdir, step.dest));
          if (step.from !== undefined) {
            const build = stages.find((candidate) => candidate.name === step.from);
            const source = step.sources.length === 1 ? step.sources[0]! : "";
            if (build === undefined || source !== path.posix.join(build.workdir, "dist")) {
              throw new Error(
                `COPY --from=${step.from} ${step.sources.join(" ")}: the replay provides only the build stage's dist/ (npm run build)`,
              );
            }
            const dist = options.dist ?? buildDist(root, log);
            log(`COPY --from=${step.from} ${source} ${step.dest} (from ${dist})`);
            fs.cpSync(dist, destination, { recursive: true });
            break;
          }
          for (const source of step.sources) {
            const from = path.join(REPO_ROOT, source);
            if (!fs.existsSync(from))
              throw new Error(`COPY ${source}: no such file in the build context`);
            const relative = path.relative(REPO_ROOT, from).split(path.sep).join("/");
            if (ignored(relative)) throw new Error(`COPY ${source}: excluded by .dockerignore`);
            // As Docker: a directory's contents go into the destination; a file goes into it when it
            // names a directory (a trailing slash, or several sources), else becomes it.
            const intoDirectory = step.dest.endsWith("/") || step.sources.length > 1;
            const target =
              fs.statSync(from).isDirectory() || !intoDirectory
                ? destination
                : path.join(destination, path.basename(from));
            fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
            fs.cpSync(from, target, {
              recursive: true,
              filter: (file) => !ignored(path.relative(REPO_ROOT, file).split(path.sep).join("/")),
            });
          }
          log(`COPY ${step.sources.join(" ")} ${step.dest}`);
          break;
        }
        case "run": {
          log(`RUN ${step.command}`);
          const started = Date.now();
          run(
            "/bin/sh",
            ["-c", step.command],
            {
              cwd: imagePath(root, workdir),
              env: {
                PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
                HOME: home,
                npm_config_cache: npmCache,
                ...env,
              },
            },
            `RUN ${step.command}`,
          );
          log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
          break;
        }
      }
    }
    const app = imagePath(root, stage.workdir);
    let runAs: ReplayedStage["runAs"];
    if (process.getuid?.() === 0) {
      const name =
        stage.user !== undefined && userIds(stage.user) !== undefined ? stage.user : "nobody";
      runAs = { name, ...userIds(name)! };
      if (name !== stage.user)
        log(
          `USER ${stage.user ?? "(none)"}: no such user here; CMD runs as ${name}, unprivileged as ${stage.user ?? "root"} is in the image`,
        );
    }
    return { stage, root, app, runAs, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

function buildDist(root: string, log: (line: string) => void): string {
  const dist = path.join(root, "build", "dist");
  log(`npm run build -- --outDir ${dist}`);
  const started = Date.now();
  run(
    "npm",
    ["run", "-s", "build", "--", "--outDir", dist],
    { cwd: REPO_ROOT, env: process.env },
    "npm run build",
  );
  log(`  built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dist;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

export interface RunningStage {
  readonly child: ChildProcess;
  readonly port: number;
  readonly base: string;
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then the exit (SIGKILL after `withinMs`). */
  stop(withinMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs the stage's CMD in its WORKDIR with its ENV and `runEnv` (what `docker run -e` adds),
 * as the stage's user; waits until /readyz answers 200.
 */
export async function startStage(
  replayed: ReplayedStage,
  runEnv: Record<string, string>,
  options: { readyWithinMs?: number } = {},
): Promise<RunningStage> {
  const port = Number(runEnv.PORT ?? replayed.stage.env.PORT);
  const [command, ...args] = replayed.stage.cmd;
  const home = path.join(replayed.root, "home");
  fs.mkdirSync(home, { recursive: true });
  if (replayed.runAs) fs.chownSync(home, replayed.runAs.uid, replayed.runAs.gid);
  const child = spawn(command!, args, {
    cwd: replayed.app,
    env: {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: home,
      ...replayed.stage.env,
      ...runEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
    ...(replayed.runAs ? { uid: replayed.runAs.uid, gid: replayed.runAs.gid } : {}),
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  const base = `http://127.0.0.1:${port}`;
  const running: RunningStage = {
    child,
    port,
    base,
    output: () => output,
    exited,
    async stop(withinMs = 30_000) {
      if (!ended) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), withinMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
  const deadline = Date.now() + (options.readyWithinMs ?? 120_000);
  for (;;) {
    if (ended)
      throw new Error(`the image's CMD exited before it was ready:\n${output.slice(-6000)}`);
    const status = await fetch(`${base}/readyz`).then(
      (answer) => answer.status,
      () => undefined,
    );
    if (status === 200) return running;
    if (Date.now() > deadline) {
      await running.stop();
      throw new Error(
        `the image's CMD was not ready within ${options.readyWithinMs ?? 120_000} ms:\n${output.slice(-6000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface Probe {
  readonly what: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** What reads files at run time, asked of a running image; each probe says what it saw. */
export async function probeStage(base: string): Promise<Probe[]> {
  const probes: Probe[] = [];
  const check = async (
    what: string,
    url: string,
    init: RequestInit,
    expect: (status: number, body: string, type: string) => boolean,
  ): Promise<string> => {
    try {
      const answer = await fetch(`${base}${url}`, init);
      const body = await answer.text();
      const ok = expect(answer.status, body, answer.headers.get("content-type") ?? "");
      probes.push({
        what,
        ok,
        detail: `${init.method ?? "GET"} ${url} -> ${answer.status}${ok ? "" : `: ${body.slice(0, 300)}`}`,
      });
      return body;
    } catch (error) {
      probes.push({ what, ok: false, detail: `${url}: ${(error as Error).message}` });
      return "";
    }
  };
  await check(
    "ready, with kb/ imported and migrations applied",
    "/readyz",
    {},
    (status, body) => status === 200 && /"loaded":true/.test(body),
  );
  await check(
    "GraphQL answers (schema.graphql)",
    "/graphql",
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: "{ coverage { knowledge throughMinor } }" }),
    },
    (status, body) => status === 200 && /"knowledge"/.test(body),
  );
  await check(
    "the playground page (GraphiQL from node_modules)",
    "/graphql",
    { headers: { Accept: "text/html" } },
    (status, body, type) =>
      status === 200 && type.startsWith("text/html") && /graphiql/i.test(body),
  );
  const docs = await check(
    "the REST docs page",
    "/docs",
    {},
    (status, _body, type) => status === 200 && type.startsWith("text/html"),
  );
  for (const asset of [...docs.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map(
    (match) => match[1]!,
  )) {
    await check(
      `REST docs asset ${asset} (swagger-ui-dist)`,
      asset,
      {},
      (status) => status === 200,
    );
  }
  await check(
    "the OpenAPI document",
    "/openapi.json",
    {},
    (status, body) => status === 200 && body.includes('"openapi":"3.1.0"'),
  );
  await check(
    "the front page",
    "/",
    { headers: { Accept: "text/html" } },
    (status, body) => status === 200 && body.includes('id="kb-revision"'),
  );
  await check(
    "a REST check against kb/",
    "/api/v1/validate",
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        components: [
          { component: "kube-apiserver", version: "1.30" },
          { component: "kubelet", version: "1.26", instance: "pool-a" },
        ],
      }),
    },
    (status, body) => status === 200 && /"findings"/.test(body),
  );
  return probes;
}

/** A database of its own on the server in `serverUrl`, and how to drop it. */
export async function scratchDatabase(
  serverUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `kc_image_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * The environment a `docker run` of the image adds: a free port, and DATABASE_URL (a scratch
 * database on `serverUrl`) or the embedded PostgreSQL with its data in a directory of the server's user.
 */
export async function runEnvironment(
  replayed: ReplayedStage,
  serverUrl: string | undefined,
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const env: Record<string, string> = { PORT: String(await freePort()), LOG_LEVEL: "info" };
  if (serverUrl !== undefined) {
    const database = await scratchDatabase(serverUrl);
    return { env: { ...env, DATABASE_URL: database.url }, cleanup: () => database.drop() };
  }
  const data = path.join(replayed.root, "data");
  fs.mkdirSync(data, { recursive: true, mode: 0o755 });
  if (replayed.runAs) fs.chownSync(data, replayed.runAs.uid, replayed.runAs.gid);
  return {
    env: {
      ...env,
      EMBEDDED_PG_DIR: path.join(data, "postgres"),
      EMBEDDED_PG_PORT: String(await freePort()),
    },
    cleanup: () => Promise.resolve(),
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const distFlag = argv.indexOf("--dist");
  const dist = distFlag >= 0 ? path.resolve(argv[distFlag + 1] ?? "") : undefined;
  if (dist !== undefined && !fs.existsSync(path.join(dist, "server.js"))) {
    process.stderr.write(
      `docker-stage: --dist ${argv[distFlag + 1] ?? ""} holds no server.js; run npm run build first\n`,
    );
    return 2;
  }
  const log = (line: string): void => void process.stdout.write(`docker-stage: ${line}\n`);
  const started = Date.now();
  const replayed = replayRuntimeStage({ dist, log });
  try {
    // As the test runner: the machine's PostgreSQL when one is given.
    const serverUrl = process.env.DATABASE_URL || undefined;
    const { env, cleanup } = await runEnvironment(replayed, serverUrl);
    try {
      log(
        `CMD ${JSON.stringify(replayed.stage.cmd)} as ${replayed.runAs?.name ?? "this user"}, ${serverUrl ? "on a scratch database" : "on the embedded PostgreSQL"}`,
      );
      const running = await startStage(replayed, env);
      const probes = await probeStage(running.base);
      const exit = await running.stop();
      for (const probe of probes)
        log(`${probe.ok ? "ok  " : "FAIL"} ${probe.what}: ${probe.detail}`);
      const stopped = exit.code === 0 && running.output().includes('"msg":"stopped"');
      log(`${stopped ? "ok  " : "FAIL"} SIGTERM: exit ${exit.code ?? exit.signal}`);
      const failed = probes.filter((probe) => !probe.ok).length + (stopped ? 0 : 1);
      if (failed > 0) process.stdout.write(running.output().slice(-6000));
      log(
        `${failed === 0 ? "the runtime stage runs" : `${failed} problem(s)`} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
      return failed === 0 ? 0 : 1;
    } finally {
      await cleanup();
    }
  } finally {
    replayed.remove();
  }
}

if (
  process.argv[1] !== undefined &&
  path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
) {
  try {
    process.exit(await main(process.argv.slice(2)));
  } catch (error) {
    process.stderr.write(`docker-stage: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
