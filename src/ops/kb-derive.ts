/**
 * `npm run kb:derive`: reads upstream sources from local copies and prints,
 * per kb file, what the knowledge base lacks or states differently, as a
 * report (--output text) or as proposed YAML (--output yaml). It never
 * writes to kb/: a maintainer reviews the output and edits kb/ by hand.
 *
 *   --kubernetes-api <clone of kubernetes/api> [--tags a,b] [--since 1.33]  → kb/api-removals.yaml
 *   --endoflife <endoflife.date's kubernetes.json>                          → kb/releases.yaml
 *   --containerd-releases <containerd's RELEASES.md> [--containerd-commit]  → kb/runtime-requirements.yaml
 *   --feature-gates <kubernetes/website feature-gates folder> [--website-commit] → kb/feature-gates.yaml
 *   --released <1.N> with any of the above: 1.N's pre-release facts against those released sources → kb/coverage.yaml
 *
 * Exit 0: nothing differs; 1: something to review; 2: bad usage or unreadable input.
 * The parsing and comparing is pure (src/ops/derive/); this file only reads
 * files and runs git (without a shell).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../core/config.js";
import { needsReview, type Section } from "./derive/compare.js";
import { compareApiRemovals } from "./derive/compare-api-removals.js";
import { compareContainerd } from "./derive/compare-containerd.js";
import { compareReleases } from "./derive/compare-releases.js";
import { parseContainerdReleases } from "./derive/containerd.js";
import { parseEndOfLifeJson } from "./derive/endoflife.js";
import { DeriveInputError } from "./derive/errors.js";
import { compareFeatureGates, renderFeatureGatesYaml } from "./derive/compare-feature-gates.js";
import {
  FEATURE_GATES_DIR,
  parseFeatureGatePages,
  type FeatureGatePage,
} from "./derive/feature-gates.js";
import { parseKbEntity, schemaFields } from "./derive/kb-entity.js";
import {
  deriveRemovals,
  lifecyclePath,
  parseGroupName,
  parseKubernetesTag,
  parseLifecycleFile,
  selectDefaultTags,
  compareTags,
  type KubernetesTag,
  type PackageSnapshot,
  type TagSnapshot,
} from "./derive/lifecycle.js";
import { releaseDaySection } from "./derive/prerelease.js";
import { renderText, renderYaml } from "./derive/render.js";
import { type EntityName, type KbBundle } from "../knowledge/records.js";
import { ENTITIES } from "../knowledge/registry.js";

const USAGE = `usage: npm run kb:derive -- [inputs] [options]

Compares upstream sources with kb/ and prints what kb/ lacks or states differently.
It never edits kb/. Give at least one input:

  --kubernetes-api <dir>        a git clone of https://github.com/kubernetes/api (bare or not, with its tags)
      --tags <t1,t2,...>        tags to read (default: every kubernetes-1.N.0 from 1.29 on, plus the newest tag)
      --since <1.N>             propose missing removals from this minor on (default 1.33)
  --endoflife <file>            endoflife.date's https://endoflife.date/api/kubernetes.json, saved
  --containerd-releases <file>  containerd's RELEASES.md
      --containerd-commit <sha> the containerd commit the file is from (found by itself in a clean clone)
  --feature-gates <dir>         kubernetes/website's ${FEATURE_GATES_DIR}
                                folder (or the root of a website checkout), e.g. extracted with git archive
      --website-commit <sha>    the kubernetes/website commit the pages are from (sourceUrl links to the pages there)

Release day:
  --released <1.N>              the pre-release knowledge of 1.N (coverage claims PRERELEASE, notes "Pre-release (1.N)")
                                against the released sources given: confirmed, differs or not yet read; each claim
                                whose kind was read is proposed as RELEASED

Options:
  --output text|yaml            a report (default), or proposed YAML per kb file
  --kb <dir>                    the knowledge base to compare with (default: KB_DIR, else kb/)
  --help

Exit status: 0 nothing differs, 1 something to review, 2 bad usage or unreadable input.
`;

// ---------------------------------------------------------------- files and git

function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)
    ? relative
    : file;
}

function statOrFail(
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

function readText(flag: string, file: string, hint: string): string {
  statOrFail(flag, file, "file", hint);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new DeriveInputError(
      `${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

class GitFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** A repository addressed without discovery: `-C dir` when dir holds .git, else `--git-dir dir` (a bare clone). */
class Repository {
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

// ---------------------------------------------------------------- kubernetes/api

const API_HINT =
  "give a clone of https://github.com/kubernetes/api (git clone https://github.com/kubernetes/api)";

interface TagRef {
  readonly tag: KubernetesTag;
  readonly commit: string;
}

function listKubernetesTags(repository: Repository): Map<string, TagRef> {
  const output = repository.run([
    "for-each-ref",
    "--format=%(refname)%09%(objectname)%09%(*objectname)",
    "refs/tags/kubernetes-1.*",
  ]);
  const tags = new Map<string, TagRef>();
  for (const line of output.split("\n")) {
    const [ref, object, peeled] = line.split("\t");
    if (ref === undefined || object === undefined || !ref.startsWith("refs/tags/")) continue;
    const tag = parseKubernetesTag(ref.slice("refs/tags/".length));
    if (tag !== null)
      tags.set(tag.name, { tag, commit: peeled !== undefined && peeled !== "" ? peeled : object });
  }
  return tags;
}

function chooseTags(repository: Repository, requested: string | undefined): TagRef[] {
  const available = listKubernetesTags(repository);
  if (available.size === 0) {
    throw new DeriveInputError(
      `--kubernetes-api: ${repository.location} has no kubernetes-1.N.P tags; ${API_HINT}, with its tags (git fetch --tags)`,
    );
  }
  if (requested === undefined) {
    const chosen = selectDefaultTags([...available.keys()]);
    if (chosen.length === 0)
      throw new DeriveInputError(
        `--kubernetes-api: ${repository.location} has no kubernetes-1.N.0 tag from 1.29 on; name the tags with --tags`,
      );
    return chosen.map((tag) => available.get(tag.name)!);
  }
  const names = [
    ...new Set(
      requested
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== ""),
    ),
  ];
  if (names.length === 0)
    throw new DeriveInputError(
      "--tags: give one or more tags, comma-separated, e.g. --tags kubernetes-1.33.0,kubernetes-1.34.0",
    );
  const refs: TagRef[] = [];
  for (const name of names) {
    if (parseKubernetesTag(name) === null)
      throw new DeriveInputError(
        `--tags: "${name}" is not a kubernetes-1.N.P tag (such as kubernetes-1.34.0 or kubernetes-1.37.0-beta.0)`,
      );
    const ref = available.get(name);
    if (ref === undefined) {
      const newest = [...available.values()]
        .map((entry) => entry.tag)
        .sort(compareTags)
        .at(-1)!;
      throw new DeriveInputError(
        `--tags: ${name} is not a tag in ${repository.location} (its newest is ${newest.name}; git fetch --tags if it is newer)`,
      );
    }
    refs.push(ref);
  }
  return refs.sort((a, b) => compareTags(a.tag, b.tag));
}

function readSnapshot(repository: Repository, ref: TagRef, warnings: string[]): TagSnapshot {
  const paths = repository.run(["ls-tree", "-r", "--name-only", "-z", ref.commit]).split("\0");
  const packages = paths
    .map((file) => ({ file, at: lifecyclePath(file) }))
    .filter((entry) => entry.at !== null);
  const specs: string[] = [];
  for (const { file, at } of packages) {
    specs.push(
      `${ref.commit}:${file}`,
      `${ref.commit}:${at!.dir}/${at!.version}/register.go`,
      `${ref.commit}:${at!.dir}/${at!.version}/doc.go`,
    );
  }
  const blobs = repository.readBlobs(specs);
  const snapshots: PackageSnapshot[] = [];
  for (const { file, at } of packages) {
    const { dir, version } = at!;
    const group = parseGroupName(
      blobs.get(`${ref.commit}:${dir}/${version}/register.go`) ?? null,
      blobs.get(`${ref.commit}:${dir}/${version}/doc.go`) ?? null,
    );
    if (group === null) {
      warnings.push(
        `${dir}/${version} at ${ref.tag.name}: no GroupName in register.go (const GroupName = "...") or doc.go (+groupName=); its types are skipped`,
      );
      continue;
    }
    const text = blobs.get(`${ref.commit}:${file}`);
    if (text === null || text === undefined)
      throw new DeriveInputError(`--kubernetes-api: cannot read ${file} at ${ref.tag.name}`);
    let types;
    try {
      types = parseLifecycleFile(text, `${file} at ${ref.tag.name}`);
    } catch (error) {
      if (error instanceof DeriveInputError)
        throw new DeriveInputError(`--kubernetes-api: ${error.message}`);
      throw error;
    }
    snapshots.push({ dir, version, group, path: file, types });
  }
  return { tag: ref.tag, commit: ref.commit, packages: snapshots };
}

function stillDeclaredIn(
  repository: Repository,
): (snapshot: TagSnapshot, dir: string, version: string, kind: string) => boolean {
  return (snapshot, dir, version, kind) => {
    try {
      repository.run([
        "grep",
        "-q",
        "-E",
        `^type ${kind} struct`,
        snapshot.commit,
        "--",
        `${dir}/${version}/`,
      ]);
      return true;
    } catch (error) {
      if (error instanceof GitFailure && error.status === 1) return false;
      throw error;
    }
  };
}

function apiRemovalsSection(
  options: { repo: string; tags: string | undefined; since: string },
  kbDir: string,
): Section {
  const repository = Repository.open("--kubernetes-api", path.resolve(options.repo), API_HINT);
  const refs = chooseTags(repository, options.tags);
  const warnings: string[] = [];
  const snapshots = refs.map((ref) => readSnapshot(repository, ref, warnings));
  if (snapshots.every((snapshot) => snapshot.packages.length === 0) && warnings.length === 0) {
    throw new DeriveInputError(
      `--kubernetes-api: no */*/zz_generated.prerelease-lifecycle.go at ${refs.map((ref) => ref.tag.name).join(", ")}; is ${repository.location} a clone of kubernetes/api?`,
    );
  }
  const derived = deriveRemovals(snapshots, stillDeclaredIn(repository));
  const { records, file } = readKb("apiRemovals", kbDir);
  const from = `kubernetes/api at ${refs.map((ref) => `${ref.tag.name} (${ref.commit.slice(0, 12)})`).join(", ")}; removals the kb lacks from ${options.since} on`;
  return compareApiRemovals({
    kb: records,
    derived,
    since: options.since,
    fields: schemaFields("apiRemovals"),
    oldestMinor: refs[0]!.tag.minor,
    file,
    from,
    warnings,
  });
}

// ---------------------------------------------------------------- endoflife.date and containerd

function releasesSection(file: string, kbDir: string): Section {
  const location = path.resolve(file);
  const text = readText(
    "--endoflife",
    location,
    "download https://endoflife.date/api/kubernetes.json and give its path",
  );
  const parsed = parseEndOfLifeJson(text, displayPath(location));
  const { records, file: kbFile } = readKb("releases", kbDir);
  return compareReleases({
    kb: records,
    cycles: parsed.cycles,
    fields: schemaFields("releases"),
    file: kbFile,
    from: `endoflife.date kubernetes.json (${displayPath(location)}, ${parsed.cycles.length} cycles)`,
    warnings: parsed.warnings,
  });
}

/** The containerd commit of a clean RELEASES.md at the root of a containerd clone; null when that cannot be told. */
function detectContainerdCommit(location: string): string | null {
  const directory = path.dirname(location);
  if (path.basename(location) !== "RELEASES.md" || !fs.existsSync(path.join(directory, ".git")))
    return null;
  try {
    const repository = Repository.open("--containerd-releases", directory, "");
    if (!/containerd\/containerd(\.git)?\s/.test(`${repository.run(["remote", "-v"])}\n`))
      return null;
    if (repository.run(["status", "--porcelain", "--", "RELEASES.md"]).trim() !== "") return null;
    return repository.run(["rev-parse", "HEAD"]).trim();
  } catch {
    return null;
  }
}

function containerdSection(file: string, commitFlag: string | undefined, kbDir: string): Section {
  const location = path.resolve(file);
  const text = readText(
    "--containerd-releases",
    location,
    "give the path of containerd's RELEASES.md (https://github.com/containerd/containerd/blob/main/RELEASES.md)",
  );
  if (commitFlag !== undefined && !/^[0-9a-f]{7,40}$/.test(commitFlag)) {
    throw new DeriveInputError(
      `--containerd-commit: "${commitFlag}" is not a git commit id (7 to 40 lower-case hex digits)`,
    );
  }
  const table = parseContainerdReleases(text, displayPath(location));
  const commit = commitFlag ?? detectContainerdCommit(location);
  const { records, file: kbFile } = readKb("runtimeRequirements", kbDir);
  return compareContainerd({
    kb: records,
    rows: table.rows,
    commit,
    fields: schemaFields("runtimeRequirements"),
    file: kbFile,
    from: `containerd RELEASES.md "Kubernetes Support" (${displayPath(location)} line ${table.headingLine}, ${commit === null ? "commit unknown: pass --containerd-commit" : `commit ${commit.slice(0, 12)}`})`,
  });
}

// ---------------------------------------------------------------- kubernetes/website feature gates

const FEATURE_GATES_HINT = `give the ${FEATURE_GATES_DIR} folder of a kubernetes/website checkout (or the checkout itself)`;
/** A feature-gate page is a paragraph or two; anything this large is not one. */
const MAX_PAGE_BYTES = 1 << 20;

function readFeatureGatePages(directory: string): { pages: FeatureGatePage[]; directory: string } {
  statOrFail("--feature-gates", directory, "directory", FEATURE_GATES_HINT);
  const nested = path.join(directory, ...FEATURE_GATES_DIR.split("/"));
  const folder = fs.existsSync(nested) && fs.statSync(nested).isDirectory() ? nested : directory;
  let names: string[];
  try {
    names = fs
      .readdirSync(folder)
      .filter((name) => name.endsWith(".md"))
      .sort();
  } catch (error) {
    throw new DeriveInputError(
      `--feature-gates: cannot list ${folder} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const pages: FeatureGatePage[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    if (!fs.statSync(file).isFile()) continue;
    if (fs.statSync(file).size > MAX_PAGE_BYTES)
      throw new DeriveInputError(
        `--feature-gates: ${displayPath(file)} is over ${MAX_PAGE_BYTES} bytes; it is not a feature-gate page`,
      );
    pages.push({ file: name, text: readText("--feature-gates", file, FEATURE_GATES_HINT) });
  }
  if (pages.length === 0)
    throw new DeriveInputError(
      `--feature-gates: ${displayPath(folder)} holds no .md pages; ${FEATURE_GATES_HINT}`,
    );
  return { pages, directory: folder };
}

function featureGatesSection(
  directory: string,
  commitFlag: string | undefined,
  kbDir: string,
): Section {
  if (commitFlag !== undefined && !/^[0-9a-f]{7,40}$/.test(commitFlag)) {
    throw new DeriveInputError(
      `--website-commit: "${commitFlag}" is not a git commit id (7 to 40 lower-case hex digits)`,
    );
  }
  const read = readFeatureGatePages(path.resolve(directory));
  const parsed = parseFeatureGatePages(read.pages);
  const commit = commitFlag ?? null;
  const { records, file } = readKb("featureGates", kbDir);
  const removed = parsed.gates.filter((gate) => gate.removed).length;
  return compareFeatureGates({
    kb: records,
    parsed,
    commit,
    fields: schemaFields("featureGates"),
    file,
    from: `kubernetes/website feature-gate pages (${displayPath(read.directory)}, ${parsed.gates.length} gates of which ${removed} removed, ${parsed.skipped.length} page${parsed.skipped.length === 1 ? "" : "s"} left out; ${
      commit === null ? "commit unknown: pass --website-commit" : `commit ${commit.slice(0, 12)}`
    })`,
  });
}

// ---------------------------------------------------------------- kb/

function readKb<E extends EntityName>(
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

function kbDirectory(flag: string | undefined): string {
  const directory = flag === undefined ? loadConfig().kb.dir : path.resolve(flag);
  statOrFail(
    "--kb",
    directory,
    "directory",
    "--kb must name a knowledge-base directory such as kb/",
  );
  return directory;
}

// ---------------------------------------------------------------- main

function run(argv: readonly string[]): { code: number; stdout: string; stderr: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        "kubernetes-api": { type: "string" },
        tags: { type: "string" },
        since: { type: "string" },
        endoflife: { type: "string" },
        "containerd-releases": { type: "string" },
        "containerd-commit": { type: "string" },
        "feature-gates": { type: "string" },
        "website-commit": { type: "string" },
        released: { type: "string" },
        output: { type: "string" },
        kb: { type: "string" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    return { code: 2, stdout: "", stderr: `kb:derive: ${(error as Error).message}\n\n${USAGE}` };
  }
  if (values.help === true) return { code: 0, stdout: USAGE, stderr: "" };
  try {
    const output = values.output ?? "text";
    if (output !== "text" && output !== "yaml")
      throw new DeriveInputError(`--output: "${output}" is not text or yaml`);
    const since = values.since ?? "1.33";
    if (!/^1\.(0|[1-9]\d{0,2})$/.test(since))
      throw new DeriveInputError(`--since: "${since}" is not a Kubernetes minor such as 1.33`);
    if (
      values["kubernetes-api"] === undefined &&
      (values.tags !== undefined || values.since !== undefined)
    ) {
      throw new DeriveInputError("--tags and --since go with --kubernetes-api");
    }
    if (values["containerd-releases"] === undefined && values["containerd-commit"] !== undefined) {
      throw new DeriveInputError("--containerd-commit goes with --containerd-releases");
    }
    if (values["feature-gates"] === undefined && values["website-commit"] !== undefined) {
      throw new DeriveInputError("--website-commit goes with --feature-gates");
    }
    if (
      values["kubernetes-api"] === undefined &&
      values.endoflife === undefined &&
      values["containerd-releases"] === undefined &&
      values["feature-gates"] === undefined
    ) {
      throw new DeriveInputError(
        "give at least one input: --kubernetes-api <dir>, --endoflife <file> or --containerd-releases <file> (or --feature-gates <dir>)",
      );
    }
    const kbDir = kbDirectory(values.kb);
    const sections: Section[] = [];
    if (values["kubernetes-api"] !== undefined)
      sections.push(
        apiRemovalsSection({ repo: values["kubernetes-api"], tags: values.tags, since }, kbDir),
      );
    if (values.endoflife !== undefined) sections.push(releasesSection(values.endoflife, kbDir));
    if (values["containerd-releases"] !== undefined)
      sections.push(
        containerdSection(values["containerd-releases"], values["containerd-commit"], kbDir),
      );
    if (values["feature-gates"] !== undefined)
      sections.push(featureGatesSection(values["feature-gates"], values["website-commit"], kbDir));
    if (values.released !== undefined) {
      if (!/^1\.(0|[1-9]\d{0,2})$/.test(values.released))
        throw new DeriveInputError(
          `--released: "${values.released}" is not a Kubernetes minor such as 1.38`,
        );
      sections.push(
        releaseDaySection({
          minor: values.released,
          coverage: readKb("coverage", kbDir).records,
          records: {
            featureGates: readKb("featureGates", kbDir).records,
            apiRemovals: readKb("apiRemovals", kbDir).records,
            releases: readKb("releases", kbDir).records,
          },
          sections: [...sections],
          file: readKb("coverage", kbDir).file,
        }),
      );
    }
    const yaml = (): string =>
      sections
        .map((section) =>
          section.entity === "featureGates"
            ? renderFeatureGatesYaml(section)
            : renderYaml([section]),
        )
        .join("---\n");
    return {
      code: needsReview(sections) ? 1 : 0,
      stdout: output === "yaml" ? yaml() : renderText(sections),
      stderr: "",
    };
  } catch (error) {
    if (error instanceof DeriveInputError)
      return { code: 2, stdout: "", stderr: `kb:derive: ${error.message}\n` };
    if (error instanceof ConfigError)
      return { code: 2, stdout: "", stderr: `kb:derive: ${error.message}\n` };
    if (error instanceof GitFailure)
      return { code: 2, stdout: "", stderr: `kb:derive: git failed: ${error.message}\n` };
    throw error;
  }
}

const result = run(process.argv.slice(2));
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.code;
