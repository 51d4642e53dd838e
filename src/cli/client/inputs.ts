/**
 * Everything the CLI reads besides argv: files named on the command line,
 * stdin (`-`, at most once per run, since it can be read only once), the
 * manifest files under a folder, and kubectl's JSON. A missing or unreadable
 * input is an InputFileError (exit 2) that names the path, before any
 * request is sent.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { InputFileError, UsageError } from "./errors.js";

export const STDIN = "-";
export const STDIN_LABEL = "<stdin>";

const MANIFEST_EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/** Reads stdin once; a second `-` in the same run is a usage error rather than an empty read. */
export class InputReader {
  private stdinTakenBy: string | null = null;

  constructor(private readonly readStdin: () => Promise<string>) {}

  /** The text of a file, or of stdin for "-"; `role` says what the input is for, in messages. */
  async read(file: string, role: string): Promise<string> {
    if (file === STDIN) {
      if (this.stdinTakenBy !== null) {
        throw new UsageError(
          `stdin (-) can be read once, but is given for both ${this.stdinTakenBy} and ${role}; save one of them to a file`,
          null,
        );
      }
      this.stdinTakenBy = role;
      return this.readStdin();
    }
    try {
      return await fs.readFile(file, "utf8");
    } catch (error) {
      throw new InputFileError(`cannot read ${role} ${file}: ${describeFsError(error)}`);
    }
  }
}

export function labelOf(file: string): string {
  return file === STDIN ? STDIN_LABEL : file;
}

/**
 * The manifest files named by `paths`: files as given, folders expanded
 * (recursively, *.yaml/*.yml/*.json, sorted; dot-folders such as .git
 * skipped), "-" kept for stdin. Order follows the command line.
 */
export async function manifestFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const given of paths) {
    if (given === STDIN) {
      files.push(STDIN);
      continue;
    }
    let stats;
    try {
      stats = await fs.stat(given);
    } catch (error) {
      throw new InputFileError(`cannot read ${given}: ${describeFsError(error)}`);
    }
    if (!stats.isDirectory()) {
      files.push(given);
      continue;
    }
    const found = await filesUnder(given);
    if (found.length === 0)
      throw new InputFileError(`${given} holds no *.yaml, *.yml or *.json file to scan`);
    files.push(...found);
  }
  return files;
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { withFileTypes: true });
  // Code-point order, not the locale's, so the same tree scans in the same order on every machine.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith(".")) files.push(...(await filesUnder(full)));
    } else if (
      MANIFEST_EXTENSIONS.has(path.extname(entry.name).toLowerCase()) &&
      (entry.isFile() || (await isLinkToFile(full)))
    ) {
      files.push(full);
    }
  }
  return files;
}

/** Links to files are scanned; links to folders are not followed, so a link cycle cannot loop. */
async function isLinkToFile(full: string): Promise<boolean> {
  try {
    return (await fs.lstat(full)).isSymbolicLink() && (await fs.stat(full)).isFile();
  } catch {
    return false;
  }
}

/**
 * kubectl's output as sent to the server: `-o json` (or `-o yaml`) parsed,
 * otherwise untouched. A file that is plainly the other kubectl command's
 * output is refused here, since the server could only say "wrong shape".
 */
export function parseKubectlOutput(
  name: string,
  text: string,
  expected: "version" | "nodes" | "workloads",
): unknown {
  const command =
    expected === "version"
      ? "kubectl version -o json"
      : expected === "nodes"
        ? "kubectl get nodes -o json"
        : "kubectl get deployments,daemonsets -A -o json";
  if (text.trim() === "")
    throw new InputFileError(`${name} is empty; expected the output of \`${command}\``);
  // The plain text people paste: the server reads `kubectl get nodes` (-o wide) and `kubectl version` as they print.
  if (expected === "nodes" && /^\s*NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\b/.test(text)) return text;
  if (expected === "version" && /^(Client|Server) Version:/m.test(text)) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (jsonError) {
    const looksLikeJson = /^\s*[[{]/.test(text);
    try {
      if (looksLikeJson) throw jsonError;
      parsed = parseYaml(text);
    } catch (error) {
      throw new InputFileError(
        `${name} is not JSON (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); expected the output of \`${command}\``,
      );
    }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new InputFileError(`${name} is not a JSON object; expected the output of \`${command}\``);
  }
  const record = parsed as Record<string, unknown>;
  if (
    expected === "version" &&
    !("clientVersion" in record) &&
    !("serverVersion" in record) &&
    "items" in record
  ) {
    throw new InputFileError(
      `${name} looks like \`kubectl get nodes -o json\` output; pass it with --kubectl-nodes`,
    );
  }
  if (
    expected !== "version" &&
    !("items" in record) &&
    ("serverVersion" in record || "clientVersion" in record)
  ) {
    throw new InputFileError(
      `${name} looks like \`kubectl version -o json\` output; pass it with --kubectl-version`,
    );
  }
  return parsed;
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is a folder, not a file";
  return error instanceof Error ? error.message : String(error);
}

/** The kind of the bundle file `kubecompat collect` writes. */
export const BUNDLE_KIND = "KubecompatClusterBundle";

/** A bundle written by collect; anything else is an InputFileError naming the file. */
export function parseBundle(name: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InputFileError(
      `${name} is not JSON; expected a bundle written by \`kubecompat collect\``,
    );
  }
  if (
    parsed === null ||
    typeof parsed !== "object" ||
    (parsed as Record<string, unknown>).kind !== BUNDLE_KIND
  ) {
    throw new InputFileError(
      `${name} is not a bundle written by \`kubecompat collect\` (kind ${BUNDLE_KIND})`,
    );
  }
  return parsed as Record<string, unknown>;
}
