/**
 * One section of the `npm run kb:derive` report per upstream source: reads
 * the source (kubernetes/api's prerelease-lifecycle files at each tag,
 * containerd's RELEASES.md,
 * kubernetes/website's feature-gate pages) and the kb/ file it speaks
 * about, and hands both to the pure comparison of src/upstream/derive/.
 */
import fs from "node:fs";
import path from "node:path";
import type { Section } from "./derive/compare.js";
import { compareApiRemovals } from "./derive/compare-api-removals.js";
import { compareContainerd } from "./derive/compare-containerd.js";
import { parseContainerdReleases } from "./derive/containerd.js";
import { DeriveInputError } from "./derive/errors.js";
import { compareFeatureGates } from "./derive/compare-feature-gates.js";
import {
  FEATURE_GATES_DIR,
  parseFeatureGatePages,
  type FeatureGatePage,
} from "./derive/feature-gates.js";
import { schemaFields } from "./derive/kb-entity.js";
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
import {
  GitFailure,
  Repository,
  displayPath,
  type KbReader,
  readText,
  statOrFail,
} from "./kb-derive-files.js";

// ---------------------------------------------------------------- kubernetes/api

/** Missing removals are proposed from this minor on unless --since says otherwise. */
export const DEFAULT_REMOVALS_SINCE = "1.33";

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

export function apiRemovalsSection(
  options: { repo: string; tags: string | undefined; since: string },
  kb: KbReader,
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
  const { records, file } = kb("apiRemovals");
  const from = `kubernetes/api at ${refs.map((ref) => `${ref.tag.name} (${ref.commit.slice(0, 12)})`).join(", ")}; removals the kb lacks from ${options.since} on`;
  const section = compareApiRemovals({
    kb: records,
    derived,
    since: options.since,
    fields: schemaFields("apiRemovals"),
    oldestMinor: refs[0]!.tag.minor,
    file,
    from,
    warnings,
  });
  return { ...section, revision: refs.at(-1)!.commit };
}

// ---------------------------------------------------------------- containerd

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

export function containerdSection(
  file: string,
  commitFlag: string | undefined,
  kb: KbReader,
): Section {
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
  const { records, file: kbFile } = kb("runtimeRequirements");
  const section = compareContainerd({
    kb: records,
    rows: table.rows,
    commit,
    fields: schemaFields("runtimeRequirements"),
    file: kbFile,
    from: `containerd RELEASES.md "Kubernetes Support" (${displayPath(location)} line ${table.headingLine}, ${commit === null ? "commit unknown: pass --containerd-commit" : `commit ${commit.slice(0, 12)}`})`,
  });
  return commit === null ? section : { ...section, revision: commit };
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

export function featureGatesSection(
  directory: string,
  commitFlag: string | undefined,
  kb: KbReader,
): Section {
  if (commitFlag !== undefined && !/^[0-9a-f]{7,40}$/.test(commitFlag)) {
    throw new DeriveInputError(
      `--website-commit: "${commitFlag}" is not a git commit id (7 to 40 lower-case hex digits)`,
    );
  }
  const read = readFeatureGatePages(path.resolve(directory));
  const parsed = parseFeatureGatePages(read.pages);
  const commit = commitFlag ?? null;
  const { records, file } = kb("featureGates");
  const removed = parsed.gates.filter((gate) => gate.removed).length;
  const section = compareFeatureGates({
    kb: records,
    parsed,
    commit,
    fields: schemaFields("featureGates"),
    file,
    from: `kubernetes/website feature-gate pages (${displayPath(read.directory)}, ${parsed.gates.length} gates of which ${removed} removed, ${parsed.skipped.length} page${parsed.skipped.length === 1 ? "" : "s"} left out; ${
      commit === null ? "commit unknown: pass --website-commit" : `commit ${commit.slice(0, 12)}`
    })`,
  });
  return commit === null ? section : { ...section, revision: commit };
}
