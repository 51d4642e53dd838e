/**
 * Running the real `kubecompat` executable (node bin/kubecompat.js) in a
 * child process, and a recording proxy in front of a test server that keeps
 * each request the CLI sends. Small pieces of test/cli.test.ts, shared so
 * other CLI tests read the same way.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { REPO_ROOT } from "./runtime.js";

export const BIN = path.join(REPO_ROOT, "bin", "kubecompat.js");
const RUN_TIMEOUT_MS = 30_000;

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

/** The environment of the test process without anything that would change the CLI's behaviour. */
function cleanEnvironment(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  // eslint-disable-next-line no-restricted-syntax -- the child CLI inherits the test's environment (PATH, HOME), minus what the test controls
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.KUBECOMPAT_URL;
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  return { ...env, ...overrides };
}

/** Runs an executable the way a shell would; never throws on a non-zero exit. */
export function runExecutable(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: cleanEnvironment(options.env),
      timeout: RUN_TIMEOUT_MS,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

/** Runs the CLI the way a shell would; never throws on a non-zero exit. */
export function kubecompat(
  args: readonly string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<Run> {
  return runExecutable(process.execPath, [BIN, ...args], options);
}

export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await listen(server);
  const { port } = server.address() as AddressInfo;
  await close(server);
  return port;
}

/** A proxy to `target` that keeps every request body it forwards, in order. */
export async function recordingProxy(
  target: string,
): Promise<{ url: string; recorded: RecordedRequest[]; close(): Promise<void> }> {
  const recorded: RecordedRequest[] = [];
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      recorded.push({ method: req.method ?? "", path: req.url ?? "", body: JSON.parse(text) });
      fetch(`${target}${req.url ?? ""}`, {
        method: req.method,
        headers: { "content-type": req.headers["content-type"] ?? "" },
        body: text,
      })
        .then(async (answer) => {
          res.writeHead(answer.status, {
            "content-type": answer.headers.get("content-type") ?? "application/json",
          });
          res.end(await answer.text());
        })
        .catch((error: unknown) => {
          res.writeHead(502).end(String(error));
        });
    });
  });
  const url = await listen(proxy);
  return { url, recorded, close: () => close(proxy) };
}

/** The lines of a table in text output: from `headerLine` up to the next blank line. */
export function tableAt(stdout: string, headerLine: number): string[] {
  const lines = stdout.split("\n").slice(headerLine);
  const end = lines.indexOf("");
  return end === -1 ? lines : lines.slice(0, end);
}

/**
 * Splits table rows at the header's column starts and checks that every
 * column starts exactly there (a space before it, text at it): the table is
 * aligned only if cells land under their headers.
 */
export function cellsOf(lines: readonly string[], headers: readonly string[]): string[][] {
  const [header, ...rows] = lines;
  assert.ok(header !== undefined, "a header line");
  const starts = headers.map((name) => header.indexOf(name));
  assert.ok(
    starts.every((start, index) => start >= 0 && (index === 0 || start > starts[index - 1]!)),
    `headers ${headers.join(", ")} in order: ${header}`,
  );
  return rows.map((row) => {
    for (const start of starts.slice(1)) {
      assert.equal(row[start - 1], " ", `a gap before column ${start} in: ${row}`);
      assert.notEqual(row[start], " ", `a cell starts at column ${start} in: ${row}`);
    }
    return starts.map((start, index) => row.slice(start, starts[index + 1] ?? row.length).trim());
  });
}
