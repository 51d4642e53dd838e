/**
 * Where `kubecompat collect` puts its bundle, readable by its owner only
 * (it holds Helm release records): --output-file gets a new file of mode
 * 0600 renamed over it, and standard output redirected to a file by the
 * shell is made 0600 before anything is written to it.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { lstat, open, rename, rm, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { InputFileError } from "./errors.js";

const OWNER_ONLY = 0o600;
const STDOUT = 1;

/**
 * Writes `text` to `file` atomically: a new file beside it (mode 0600
 * whatever the umask), written and synced, then renamed over it. An
 * existing file keeps neither its mode nor its inode; a symbolic link or
 * anything but a regular file is refused and nothing is written.
 */
export async function writeBundleFile(file: string, text: string): Promise<void> {
  await refuseUnlessRegularOrNew(file);
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  let handle: FileHandle | undefined;
  let created = false;
  try {
    // "wx" creates a new file and never opens an existing one or a link planted under that name.
    handle = await open(temporary, "wx", OWNER_ONLY);
    created = true;
    await handle.chmod(OWNER_ONLY);
    await handle.writeFile(text, "utf8");
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, file);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (created) await rm(temporary, { force: true }).catch(() => undefined);
    throw new InputFileError(`cannot write ${file}: ${reason(error)}`);
  }
}

async function refuseUnlessRegularOrNew(file: string): Promise<void> {
  let stats: fs.Stats;
  try {
    stats = await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new InputFileError(`cannot write ${file}: ${reason(error)}`);
  }
  if (stats.isSymbolicLink()) {
    throw new InputFileError(
      `${file} is a symbolic link; give the path of a regular file or a new name (the bundle holds Helm release records, so it is not written through links)`,
    );
  }
  if (!stats.isFile()) {
    throw new InputFileError(
      `${file} is ${stats.isDirectory() ? "a directory" : "not a regular file (a FIFO, socket or device)"}; give the path of a regular file or a new name`,
    );
  }
}

/**
 * Makes standard output owner-only when it is a regular file (the shell
 * created it for `> FILE` with the umask's mode, and the file is ours); a
 * pipe or a terminal has no mode to change. Returns a warning when the
 * mode could not be changed.
 */
export function protectStandardOutput(): string | undefined {
  let stats: fs.Stats;
  try {
    stats = fs.fstatSync(STDOUT);
  } catch {
    return undefined;
  }
  const mode = stats.mode & 0o7777;
  if (!stats.isFile() || mode === OWNER_ONLY) return undefined;
  try {
    fs.fchmodSync(STDOUT, OWNER_ONLY);
    return undefined;
  } catch (error) {
    return `standard output is a file of mode ${mode.toString(8).padStart(4, "0")} that could not be made 0600 (${reason(error)}); others may read the Helm release records in it: chmod 600 it, or write with --output-file FILE`;
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is a directory";
  return error instanceof Error ? error.message : String(error);
}
