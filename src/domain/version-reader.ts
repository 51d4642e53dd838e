/**
 * The one reader of Kubernetes versions that people type: every field of
 * every operation (components, targets, from-versions, rollback versions,
 * release look-ups, node pools) and every face (REST, GraphQL, chat, the CLI,
 * the page, plan files) goes through it, so a typo gets the same answer
 * wherever it is typed. It resolves the aliases `latest` and
 * `oldest-supported` on the day asked about, parses the version (InputError
 * naming the field on anything else), and refuses a minor that looks like a
 * lost zero: an unquoted 1.30 in YAML or JSON is the number 1.3, and a green
 * answer about Kubernetes 1.3 (2016) for a question about 1.30 is the worst
 * kind of wrong answer. test/version-reader.test.ts checks that no domain
 * module or face parses a user's version any other way.
 */
import { InputError } from "../core/errors.js";
import {
  minorIndex,
  minorOf,
  parseKubernetesVersion,
  type KubernetesVersion,
} from "../core/versions.js";
import { finding, type Finding } from "./findings.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { resolveVersionAlias } from "./release-status.js";
import { today } from "./days.js";

/** A Kubernetes version from a person or a file: an alias, a version, or an InputError that says what to write. */
export function readKubernetesVersion(
  snapshot: KbSnapshot,
  input: unknown,
  field: string,
  asOf: string = today(),
): KubernetesVersion {
  if (typeof input === "number") {
    const meant = lostZero(snapshot, String(input));
    throw new InputError(
      `${field} must be a string such as "1.30", not the number ${input}${meant === null ? "" : `: did you mean "${meant}"?`} (YAML and JSON read an unquoted 1.30 as the number 1.3; quote versions)`,
      field,
    );
  }
  const version = parseKubernetesVersion(resolveVersionAlias(snapshot, input, asOf, field), field);
  if (version.patch === null && version.prerelease === null) {
    const meant = lostZero(snapshot, minorOf(version));
    if (meant !== null) {
      const oldest = snapshot.releases[0]?.version;
      throw new InputError(
        `${field} "${version.raw}" is Kubernetes ${minorOf(version)}, older than anything the knowledge base covers${oldest === undefined ? "" : ` (${oldest} onward)`}: did you mean "${meant}"? An unquoted 1.30 in YAML or JSON is the number 1.3; quote versions ("${meant}")`,
        field,
      );
    }
  }
  return version;
}

/** The minor (`"1.30"`) of a version read as readKubernetesVersion reads it. */
export function readMinor(
  snapshot: KbSnapshot,
  input: unknown,
  field: string,
  asOf: string = today(),
): string {
  return minorOf(readKubernetesVersion(snapshot, input, field, asOf));
}

/**
 * VERSION_OLDER_THAN_KB when `minor` is older than the oldest release the knowledge base covers: what is asked
 * about it (a component, a target) was not judged with anything the knowledge base knows of later minors.
 */
export function olderThanKnowledge(
  snapshot: KbSnapshot,
  minor: string,
  about: string,
  where: { readonly component?: string | null; readonly instance?: string | null } = {},
): Finding | undefined {
  const oldest = snapshot.releases[0];
  if (oldest === undefined || minorIndex(minor) >= minorIndex(oldest.version)) return undefined;
  return finding({
    code: "VERSION_OLDER_THAN_KB",
    severity: "WARNING",
    component: where.component ?? null,
    instance: where.instance ?? null,
    message: `${about} is older than the oldest release the knowledge base covers (${oldest.version}); ${minor} is long past its end of life, and nothing the knowledge base knows of later minors was judged for it`,
    sourceUrl: oldest.sourceUrl,
  });
}

/** Whether text is absent (undefined, null or blank), for the optional version fields. */
export function isAbsent(input: unknown): input is undefined | null | "" {
  return (
    input === undefined || input === null || (typeof input === "string" && input.trim() === "")
  );
}

/**
 * "1.3" when "1.30" was meant: a minor below ten that the knowledge base does
 * not know, whose tenfold it does. Returns the minor meant, or null.
 */
function lostZero(snapshot: KbSnapshot, text: string): string | null {
  const match = /^v?(\d+)\.(\d)$/.exec(text.trim());
  if (match === null) return null;
  const minor = `${match[1]}.${match[2]}`;
  const meant = `${match[1]}.${match[2]}0`;
  if (snapshot.findRelease(minor) !== undefined || snapshot.findRelease(meant) === undefined)
    return null;
  return meant;
}
