/**
 * kb:derive's kubeadm sections: the etcd (kb/releases.yaml) and CoreDNS (kb/addons.yaml) that kubeadm
 * installs per Kubernetes minor, read from cmd/kubeadm/app/constants/constants.go at each minor's
 * v1.N.0 and newest v1.N.P tag of a kubernetes/kubernetes clone (--kubernetes), in one
 * `git cat-file --batch`.
 *
 * kubeadmSectionsFrom takes the constants.go texts already in hand ({tag, commit, text}), so a
 * scheduled refresh that fetched them calls it directly; kubeadmSections reads them from the clone.
 */
import path from "node:path";
import type { Section } from "./derive/compare.js";
import { compareKubeadmCoreDns, compareKubeadmEtcd } from "./derive/compare-kubeadm.js";
import { DeriveInputError } from "./derive/errors.js";
import { schemaFields } from "./derive/kb-entity.js";
import {
  KUBEADM_CONSTANTS,
  kubeadmMinors,
  parseKubeadmConstants,
  parseReleaseTag,
  selectReleaseTags,
  type KubeadmSnapshot,
} from "./derive/kubeadm.js";
import { Repository, type KbReader } from "./kb-derive-files.js";

/** The add-on whose lines say which CoreDNS kubeadm installs. */
const COREDNS_ADDON = "coredns";

const HINT =
  "give a clone of https://github.com/kubernetes/kubernetes with its tags (git clone --filter=blob:none https://github.com/kubernetes/kubernetes)";

/** constants.go at one release tag, as a refresh hands it over. */
export interface KubeadmConstantsAt {
  /** "v1.31.3" */
  readonly tag: string;
  readonly commit: string;
  readonly text: string;
}

/** Both sections (etcd, then CoreDNS) from the constants.go texts of released tags (v1.N.P; others are refused). */
export function kubeadmSectionsFrom(files: readonly KubeadmConstantsAt[], kb: KbReader): Section[] {
  const snapshots: KubeadmSnapshot[] = files.map((file) => {
    const tag = parseReleaseTag(file.tag);
    if (tag === null)
      throw new DeriveInputError(`--kubernetes: ${file.tag} is not a released tag such as v1.31.3`);
    return {
      tag: file.tag,
      ...tag,
      commit: file.commit,
      constants: parseKubeadmConstants(file.text, `${KUBEADM_CONSTANTS} at ${file.tag}`),
    };
  });
  const minors = kubeadmMinors(snapshots);
  const read = minors
    .map(({ first, newest }) =>
      first === null || first === newest ? newest.tag : `${first.tag}, ${newest.tag}`,
    )
    .join(", ");
  const from = `kubeadm ${KUBEADM_CONSTANTS} at ${read}`;
  const releases = kb("releases");
  const addons = kb("addons");
  return [
    compareKubeadmEtcd({
      kb: releases.records,
      minors,
      fields: schemaFields("releases"),
      file: releases.file,
      from,
    }),
    compareKubeadmCoreDns({
      kb: addons.records,
      minors,
      fields: schemaFields("addons"),
      file: addons.file,
      from,
      addon: COREDNS_ADDON,
    }),
  ];
}

/** Tag name → the commit it points at (annotated tags peeled). */
function releaseTags(repository: Repository): Map<string, string> {
  const output = repository.run([
    "for-each-ref",
    "--format=%(refname:strip=2)%09%(objectname)%09%(*objectname)",
    "refs/tags/v1.*",
  ]);
  const tags = new Map<string, string>();
  for (const line of output.split("\n")) {
    const [name, object, peeled] = line.split("\t");
    if (name === undefined || object === undefined || parseReleaseTag(name) === null) continue;
    tags.set(name, peeled !== undefined && peeled !== "" ? peeled : object);
  }
  return tags;
}

/** Both sections from a clone: constants.go at each minor's v1.N.0 and newest v1.N.P tag. */
export function kubeadmSections(clone: string, kb: KbReader): Section[] {
  const repository = Repository.open("--kubernetes", path.resolve(clone), HINT);
  const tags = releaseTags(repository);
  const chosen = selectReleaseTags([...tags.keys()]).flatMap(({ first, newest }) =>
    first === null || first === newest ? [newest] : [first, newest],
  );
  if (chosen.length === 0)
    throw new DeriveInputError(
      `--kubernetes: ${repository.location} has no v1.N.P release tag; ${HINT} (git fetch --tags)`,
    );
  const specs = chosen.map((tag) => `${tags.get(tag)!}:${KUBEADM_CONSTANTS}`);
  const blobs = repository.readBlobs(specs);
  const files: KubeadmConstantsAt[] = [];
  chosen.forEach((tag, index) => {
    const text = blobs.get(specs[index]!);
    // Tags from before kubeadm had this file are not kubeadm releases to compare.
    if (text !== null && text !== undefined) files.push({ tag, commit: tags.get(tag)!, text });
  });
  if (files.length === 0)
    throw new DeriveInputError(
      `--kubernetes: no ${KUBEADM_CONSTANTS} at ${chosen.slice(-3).join(", ")}; is ${repository.location} a clone of kubernetes/kubernetes?`,
    );
  return kubeadmSectionsFrom(files, kb);
}
