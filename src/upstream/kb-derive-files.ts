/**
 * What `npm run kb:derive` reads, and how: local files (with a message that
 * names the flag and says what to give when one is missing), git clones
 * addressed without discovery and read without a shell, and the kb/ files
 * the sources are compared with. Every failure to read is a
 * DeriveInputError (exit 2), a failing git command a GitFailure.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../core/config.js";
import { parseKbEntity } from "./derive/kb-entity.js";
import { DeriveInputError } from "./derive/errors.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { ENTITIES } from "../knowledge/registry.js";

export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)
    ? relative
    : file;
}

export function statOrFail(
  flag: string,
  location: string,
  expect: "file" | "directory",
  hint: string,
): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(location);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DeriveInputError(
      code === "ENOENT"
        ? `${flag}: ${location} does not exist; ${hint}`
        : `${flag}: cannot read ${location} (${code ?? String(error)})`,
    );
  }
  if (expect === "file" && !stat.isFile())
    throw new DeriveInputError(`${flag}: ${location} is not a file; ${hint}`);
  if (expect === "directory" && !stat.isDirectory())
    throw new DeriveInputError(`${flag}: ${location} is not a directory; ${hint}`);
}

export function readText(flag: string, file: string, hint: string): string {
  statOrFail(flag, file, "file", hint);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new DeriveInputError(
      `${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

export class GitFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** A repository addressed without discovery: `-C dir` when dir holds .git, else `--git-dir dir` (a bare clone). */
export class Repository {
  private constructor(
    readonly location: string,
    private readonly base: readonly string[],
  ) {}

  static open(flag: string, location: string, hint: string): Repository {
    statOrFail(flag, location, "directory", hint);
    const base = fs.existsSync(path.join(location, ".git"))
      ? ["-C", location]
      : ["--git-dir", location];
    const repository = new Repository(location, base);
    try {
      repository.run(["rev-parse", "--git-dir"]);
    } catch (error) {
      if (error instanceof DeriveInputError) throw error;
      throw new DeriveInputError(
        `${flag}: ${location} is not a git repository (git: ${(error as Error).message}); ${hint}`,
      );
    }
    return repository;
  }

  run(args: readonly string[], input?: string): string {
    return this.runBuffer(args, input).toString("utf8");
  }

  runBuffer(args: readonly string[], input?: string): Buffer {
    try {
      return execFileSync("git", [...this.base, ...args], {
        input,
        maxBuffer: 1 << 30,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { status?: number | null; stderr?: Buffer };
      if (failure.code === "ENOENT")
        throw new DeriveInputError(
          "git is not installed (or not on PATH); kb:derive runs git to read the clone",
        );
      const stderr = failure.stderr?.toString("utf8").trim().split("\n")[0] ?? "";
      throw new GitFailure(stderr || failure.message, failure.status ?? null);
    }
  }

  /** Blob texts by "<rev>:<path>" (null: no such file), in one `git cat-file --batch`. */
  readBlobs(specs: readonly string[]): Map<string, string | null> {
    const blobs = new Map<string, string | null>();
    if (specs.length === 0) return blobs;
    const output = this.runBuffer(["cat-file", "--batch"], `${specs.join("\n")}\n`);
    let offset = 0;
    for (const spec of specs) {
      const end = output.indexOf(0x0a, offset);
      const header = output.toString("utf8", offset, end);
      offset = end + 1;
      if (header.endsWith(" missing") || header.endsWith(" ambiguous")) {
        blobs.set(spec, null);
        continue;
      }
      const [, type, size] = header.split(" ");
      const length = Number(size);
      blobs.set(spec, type === "blob" ? output.toString("utf8", offset, offset + length) : null);
      offset += length + 1;
    }
    return blobs;
  }
}

// ---------------------------------------------------------------- kb/

export function readKb<E extends EntityName>(
  entity: E,
  kbDir: string,
): { records: KbBundle[E]; file: string } {
  const location = path.join(kbDir, ENTITIES[entity].file);
  const text = readText("--kb", location, "--kb must name a knowledge-base directory such as kb/");
  return {
    records: parseKbEntity(entity, text, displayPath(location)),
    file: displayPath(location),
  };
}

/**
 * Where kb:derive reads the knowledge base it compares upstream with: the
 * kb/ files (a report for a maintainer), or the database's records
 * (--propose: proposals are applied there). `file` names it in the report.
 */
export type KbReader = <E extends EntityName>(entity: E) => { records: KbBundle[E]; file: string };

export function kbFiles(kbDir: string): KbReader {
  return (entity) => readKb(entity, kbDir);
}

export function kbDirectory(flag: string | undefined): string {
  const directory = flag === undefined ? loadConfig().kb.dir : path.resolve(flag);
  statOrFail(
    "--kb",
    directory,
    "directory",
    "--kb must name a knowledge-base directory such as kb/",
  );
  return directory;
}
