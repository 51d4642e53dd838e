/**
 * The real server as a child process (`node --import tsx src/server.ts`, or
 * `npm start` as people run it), for tests of what only a process shows:
 * start-up, signals, exit codes and logs. The environment is exactly what
 * the test gives plus PATH and HOME: none of the service's variables leak in
 * from the test runner, nor, for the server run in the repository, from a
 * developer's .env there (each variable the test does not give is set empty:
 * a variable in the environment wins over .env, and empty means its default).
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { ENVIRONMENT_VARIABLES } from "../../src/core/config.js";
import { REPO_ROOT } from "./runtime.js";

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** When the process ended (Date.now()). */
  readonly at: number;
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** The JSON log lines on stdout, parsed (other lines are skipped). */
  logs(): Array<Record<string, unknown>>;
  /** Settles when the process ended. */
  readonly exited: Promise<Exit>;
  /** Ends the process with SIGKILL if it still runs (cleanup after a failed test). */
  kill(): Promise<void>;
}

export function spawnServer(env: Record<string, string>): ServerProcess {
  const unset = Object.fromEntries(ENVIRONMENT_VARIABLES.map((name) => [name, ""]));
  return spawnProcess(
    process.execPath,
    ["--import", "tsx", "src/server.ts"],
    { ...unset, ...env },
    REPO_ROOT,
  );
}

/**
 * `npm start` in `cwd`, a checkout of the test's own (so its .env is the test's too), as the
 * README runs it; `pid` is npm's.
 */
export function spawnNpmStart(env: Record<string, string>, cwd: string): ServerProcess {
  return spawnProcess("npm", ["start"], env, cwd);
}

function spawnProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): ServerProcess {
  const inherited = Object.fromEntries(
    // eslint-disable-next-line no-restricted-syntax -- the child inherits the test's environment (PATH, HOME), minus the service's variables
    Object.entries(process.env).filter(
      ([name, value]) =>
        value !== undefined && !ENVIRONMENT_VARIABLES.includes(name) && !name.startsWith("npm_"),
    ),
  ) as Record<string, string>;
  const child = spawn(command, args, {
    cwd,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<Exit>((resolve) => {
    // "close": the process ended and its output is read to the end.
    child.once("close", (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
  return {
    child,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    logs: () =>
      out
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** GET on 127.0.0.1:port; resolves with the status, or undefined when nothing answers. */
export function probe(port: number, path: string, timeoutMs = 2_000): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: "127.0.0.1", port, path, agent: false, timeout: timeoutMs },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
  });
}

/** Waits until /readyz answers 200; fails early when the process ends, and after `withinMs` (a hang detector). */
export async function waitUntilReady(
  server: ServerProcess,
  port: number,
  withinMs: number,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  let ended: Exit | undefined;
  void server.exited.then((exit) => (ended = exit));
  while (Date.now() < deadline) {
    if ((await probe(port, "/readyz")) === 200) return;
    if (ended !== undefined) {
      throw new Error(
        `the server exited (code ${ended.code}, signal ${ended.signal}) before it was ready:\n${server.stderr()}\n${server.stdout().slice(-4000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `the server was not ready within ${withinMs} ms:\n${server.stderr()}\n${server.stdout().slice(-4000)}`,
  );
}
