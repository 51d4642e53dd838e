/**
 * Brings the configured upstream sources onto this machine for the
 * scheduled refresh: git repositories kept as local copies between
 * refreshes (fetched again, never cloned twice), and endoflife.date's API
 * read over HTTP. Every command runs without a shell and without a prompt
 * (a mirror that asks for a password fails instead of hanging), with a time
 * limit; every failure says which source and what went wrong.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { RefreshSourceConfig } from "../core/refresh-config.js";

const run = promisify(execFile);

/** A git command may take this long (a first clone of kubernetes/api over a slow link included). */
const GIT_TIMEOUT_MS = 15 * 60_000;
/** An HTTP answer may take this long, and be this large. */
const HTTP_TIMEOUT_MS = 60_000;
const HTTP_MAX_BYTES = 8 * 1024 * 1024;

export class UpstreamFailure extends Error {
  override readonly name = "UpstreamFailure";
}

async function git(args: readonly string[], cwd?: string, signal?: AbortSignal): Promise<string> {
  try {
    const { stdout } = await run("git", [...args], {
      cwd,
      signal,
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
      // Not configuration: git inherits the environment (PATH, HOME, proxies), with prompts turned off.
      // eslint-disable-next-line no-restricted-syntax
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" },
    });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string; killed?: boolean };
    if (signal?.aborted === true)
      throw new UpstreamFailure("stopped: the service is shutting down");
    if (failure.code === "ENOENT")
      throw new UpstreamFailure("git is not installed (or not on PATH)");
    if (failure.killed === true)
      throw new UpstreamFailure(
        `git ${args[0]} took longer than ${GIT_TIMEOUT_MS / 60_000} minutes`,
      );
    // git's own diagnosis is its "fatal:" (or "error:") line; the lines after it are advice.
    const lines = (failure.stderr ?? "").split("\n").map((line) => line.trim());
    const said =
      lines.find((line) => /^(fatal|error):/.test(line))?.replace(/^(fatal|error):\s*/, "") ??
      lines.find((line) => line !== "" && !/^(warning|hint):/.test(line)) ??
      failure.message;
    throw new UpstreamFailure(`git ${args[0]} failed: ${said}`);
  }
}

async function exists(location: string): Promise<boolean> {
  return fs.stat(location).then(
    () => true,
    () => false,
  );
}

/** git honours --depth and --filter only over a transport: a local path is cloned as a file:// URL. */
function filterableUrl(url: string): string {
  return url.startsWith("/") ? `file://${url}` : url;
}

/**
 * A mirror with every tag (kubernetes/api: the lifecycle markers are read at
 * each release tag): cloned once, then fetched, pruning what upstream removed.
 */
export async function mirrorRepository(
  source: RefreshSourceConfig,
  cacheDir: string,
  signal?: AbortSignal,
  options: { withoutBlobs?: boolean } = {},
) {
  const location = path.join(cacheDir, `${source.name}.git`);
  if (await exists(path.join(location, "HEAD"))) {
    await git(
      ["--git-dir", location, "remote", "set-url", "origin", source.url],
      undefined,
      signal,
    );
    await git(
      ["--git-dir", location, "fetch", "--prune", "--prune-tags", "--tags", "origin"],
      undefined,
      signal,
    );
  } else {
    await fs.rm(location, { recursive: true, force: true });
    await fs.mkdir(cacheDir, { recursive: true });
    // kubernetes/kubernetes is large: its trees and tags only, each blob read fetched when read.
    const filter = options.withoutBlobs === true ? ["--filter=blob:none"] : [];
    const url = options.withoutBlobs === true ? filterableUrl(source.url) : source.url;
    await git(["clone", "--quiet", "--mirror", ...filter, url, location], undefined, signal);
  }
  const commit = (
    await git(["--git-dir", location, "rev-parse", "HEAD"], undefined, signal)
  ).trim();
  return { location, commit };
}

/**
 * The newest commit of the default branch, checked out with only `folders`
 * (kubernetes/website is large: one folder of it is read), shallow and
 * without the other blobs where the server allows it.
 */
export async function checkoutTip(
  source: RefreshSourceConfig,
  cacheDir: string,
  folders: readonly string[],
  signal?: AbortSignal,
) {
  const location = path.join(cacheDir, source.name);
  if (!(await exists(path.join(location, ".git")))) {
    await fs.rm(location, { recursive: true, force: true });
    await fs.mkdir(cacheDir, { recursive: true });
    const url = filterableUrl(source.url);
    await git(
      ["clone", "--quiet", "--depth", "1", "--filter=blob:none", "--no-checkout", url, location],
      undefined,
      signal,
    );
  } else {
    await git(["remote", "set-url", "origin", source.url], location, signal);
    await git(["fetch", "--quiet", "--depth", "1", "origin", "HEAD"], location, signal);
    await git(["update-ref", "HEAD", "FETCH_HEAD"], location, signal);
  }
  // Cone mode: the root's files, and each folder named (none: the root's files only).
  await git(["sparse-checkout", "set", "--cone", ...folders], location, signal);
  await git(["checkout", "--quiet", "--force", "HEAD"], location, signal);
  const commit = (await git(["rev-parse", "HEAD"], location, signal)).trim();
  return { location, commit };
}

/** A JSON document of an HTTP source: its text, and the URL it came from (what messages name). */
export async function downloadJson(
  source: RefreshSourceConfig,
  relative: string,
  signal?: AbortSignal,
): Promise<{ text: string; url: string }> {
  const url = `${source.url}/${relative}`;
  let response: Response;
  try {
    response = await fetch(url, {
      signal:
        signal === undefined
          ? AbortSignal.timeout(HTTP_TIMEOUT_MS)
          : AbortSignal.any([signal, AbortSignal.timeout(HTTP_TIMEOUT_MS)]),
      headers: { accept: "application/json" },
      redirect: "follow",
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new UpstreamFailure(`GET ${url} failed: ${cause}`);
  }
  if (!response.ok) throw new UpstreamFailure(`GET ${url} answered ${response.status}`);
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > HTTP_MAX_BYTES)
    throw new UpstreamFailure(
      `GET ${url}: ${declared} bytes, more than the ${HTTP_MAX_BYTES} read`,
    );
  const body = Buffer.from(await response.arrayBuffer());
  if (body.length > HTTP_MAX_BYTES)
    throw new UpstreamFailure(`GET ${url}: more than the ${HTTP_MAX_BYTES} bytes read`);
  return { text: body.toString("utf8"), url };
}
