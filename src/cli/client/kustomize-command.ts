/**
 * `kubecompat scan --to VERSION DIR`, where DIR holds a kustomization (kustomization.yaml, .yml or
 * Kustomization): built with the user's kubectl (`kubectl kustomize`, --kubectl PATH, else $KUBECTL, else
 * kubectl on PATH) through a temporary kustomization that wraps DIR and asks for
 * `buildMetadata: [originAnnotations]`, so each built object says which base or overlay file it came from.
 * The build is scanned by POST /api/v1/scan and each finding is shown at that file and the line of the
 * object's apiVersion there.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { asManifestFinding, asScanAnswer, type ScanRow } from "./answers.js";
import { flagValue, type CommandLine } from "./command-line.js";
import { ask, defined, type CliContext } from "./commands.js";
import { CliError, InputFileError } from "./errors.js";
import type { FileFinding } from "./scan-format.js";

const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];
const MAX_BUILD = 256 * 1024 * 1024;

export async function isKustomization(given: string): Promise<boolean> {
  for (const name of KUSTOMIZATION_FILES) {
    try {
      if ((await fs.stat(path.join(given, name))).isFile()) return true;
    } catch {
      // not this name
    }
  }
  return false;
}

function runKubectl(kubectl: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(kubectl, args, { maxBuffer: MAX_BUILD, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(Object.assign(new Error(error.message), { code: error.code, stderr }));
    });
  });
}

/** The build of DIR with each object's origin annotated; the wrapper folder is removed afterwards. */
async function build(
  kubectl: string,
  folder: string,
): Promise<{ text: string; wrapper: string; done: () => Promise<void> }> {
  const wrapper = await fs.mkdtemp(path.join(os.tmpdir(), "kubecompat-kustomize-"));
  // kustomize refuses an absolute resource root: the wrapper names DIR relative to itself.
  const relative = path.relative(wrapper, path.resolve(folder)).split(path.sep).join("/");
  await fs.writeFile(
    path.join(wrapper, "kustomization.yaml"),
    `resources:\n  - ${JSON.stringify(relative)}\nbuildMetadata: [originAnnotations]\n`,
  );
  const done = () => fs.rm(wrapper, { recursive: true, force: true });
  try {
    const text = await runKubectl(kubectl, [
      "kustomize",
      wrapper,
      "--load-restrictor",
      "LoadRestrictionsNone",
    ]);
    return { text, wrapper, done };
  } catch (error) {
    await done();
    const { code, stderr } = error as { code?: unknown; stderr?: string };
    if (code === "ENOENT")
      throw new InputFileError(
        `${folder} is a kustomization, and building it needs kubectl (kubectl kustomize): none at "${kubectl}"; give --kubectl PATH, or build it yourself: kubectl kustomize ${folder} | kubecompat scan --to VERSION -`,
      );
    const said = (stderr ?? "").trim();
    throw new CliError(
      `kubectl kustomize failed for ${folder}`,
      said === "" ? [] : said.split("\n"),
    );
  }
}

/** The origin file of each built document, in order (kubectl kustomize separates documents with ---). */
function originsOf(text: string, wrapper: string): Array<string | null> {
  return text
    .split(/^---\s*$/m)
    .filter((document) => document.trim() !== "")
    .map((document) => {
      const origin = /config\.kubernetes\.io\/origin: \|\n\s+path: (.+)$/m.exec(document)?.[1];
      return origin === undefined ? null : path.resolve(wrapper, origin.trim());
    });
}

/** The line of the object's apiVersion in its origin file: the document of its kind whose name the built name ends with. */
async function originLine(file: string, row: ScanRow): Promise<number | null> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch {
    return null;
  }
  const lines = text.split("\n");
  const documents: Array<{ apiVersion: number | null; kind: string | null; name: string | null }> =
    [];
  let current = {
    apiVersion: null as number | null,
    kind: null as string | null,
    name: null as string | null,
  };
  lines.forEach((line, index) => {
    if (/^---\s*$/.test(line)) {
      documents.push(current);
      current = { apiVersion: null, kind: null, name: null };
    } else if (/^apiVersion:/.test(line)) current.apiVersion = index + 1;
    else if (/^kind:/.test(line)) current.kind = line.slice(5).trim();
    else if (current.name === null && /^ {2}name:/.test(line)) current.name = line.slice(7).trim();
  });
  documents.push(current);
  const ofKind = documents.filter((document) => document.kind === row.kind);
  const named = ofKind.find(
    (document) => document.name !== null && row.name !== null && row.name.endsWith(document.name),
  );
  return (named ?? ofKind[0])?.apiVersion ?? null;
}

/** Scans the kustomization's build; the findings placed at their origin files, as the scan report shows them. */
export async function scanKustomization(
  commandLine: CommandLine,
  context: CliContext,
  folder: string,
  targetVersion: string,
  kubectlFromEnvironment: string | undefined,
): Promise<{ answer: ReturnType<typeof asScanAnswer>; findings: FileFinding[] }> {
  const kubectl = flagValue(commandLine, "kubectl") ?? kubectlFromEnvironment ?? "kubectl";
  const built = await build(kubectl, folder);
  try {
    const route = "/api/v1/scan";
    const raw = await ask(
      context,
      route,
      defined({
        manifests: built.text,
        targetVersion,
        fromVersion: flagValue(commandLine, "from"),
      }),
      { file: folder },
    );
    const answer = asScanAnswer(raw, context.api.server, route);
    const origins = originsOf(built.text, built.wrapper);
    const findings: FileFinding[] = [];
    // Fields and configuration files a change touches are findings too, placed the same way.
    for (const row of [
      ...answer.findings,
      ...(answer.changeFindings ?? []).map(asManifestFinding),
    ]) {
      const origin = origins[row.documentIndex] ?? null;
      const line = origin === null ? null : await originLine(origin, row);
      findings.push({
        ...row,
        file:
          origin === null ? folder : path.relative(process.cwd(), origin).split(path.sep).join("/"),
        line: line ?? row.line,
      });
    }
    return { answer, findings };
  } finally {
    await built.done();
  }
}
