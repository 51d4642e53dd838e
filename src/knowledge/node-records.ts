/**
 * Records of what a node runs besides Kubernetes: the container runtime each minor requires, the runtime's
 * own release lines and support window, and facts about the host (cgroup v1) a component depends on.
 */
import { z } from "zod";
import { compareComponentVersions, parseComponentVersion } from "../core/versions.js";
import {
  componentName,
  componentVersion,
  configFieldName,
  isoDate,
  minorVersion,
  optionalText,
  releaseLineName,
  sourceUrl,
  text,
} from "./record-fields.js";

export const runtimeRequirementRecord = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,80}$/, "must be a stable lower-case id"),
    component: componentName,
    kubernetesFrom: minorVersion,
    kind: z.enum([
      "REQUIRES_SHIM",
      "MIN_VERSION",
      "MATCH_KUBERNETES_MINOR",
      "RECOMMENDED_MIN_VERSION",
      "UNSUPPORTED",
      "SUPPORT_ENDING",
    ]),
    minVersion: componentVersion.nullable().default(null),
    /**
     * For RECOMMENDED_MIN_VERSION, when the table lists several release
     * lines: the floor of each (containerd for 1.29: 1.7.11 and 1.6.27).
     * A runtime on a listed line is held to its own line's floor; minVersion
     * is the lowest of them, for older lines.
     */
    lineMinVersions: z.array(componentVersion).max(20).default([]),
    requires: componentName.nullable().default(null),
    /**
     * The managed platform (kb/platforms.yaml) whose own rule this is, where it is stricter than upstream's (EKS:
     * containerd 2.0 from 1.36); null: upstream Kubernetes, in force everywhere.
     */
    platform: z
      .string()
      .regex(/^[a-z][a-z0-9-]{1,30}$/)
      .nullable()
      .default(null),
    summary: text,
    sourceUrl,
    notes: optionalText,
    disagreement: optionalText,
  })
  .refine(
    (requirement) =>
      !(requirement.kind === "MIN_VERSION" || requirement.kind === "RECOMMENDED_MIN_VERSION") ||
      requirement.minVersion !== null,
    {
      message: "is required when kind is MIN_VERSION or RECOMMENDED_MIN_VERSION",
      path: ["minVersion"],
    },
  )
  .refine((requirement) => requirement.kind !== "REQUIRES_SHIM" || requirement.requires !== null, {
    message: "is required when kind is REQUIRES_SHIM",
    path: ["requires"],
  })
  .refine(
    (requirement) =>
      requirement.lineMinVersions.length === 0 || requirement.kind === "RECOMMENDED_MIN_VERSION",
    {
      message:
        "is only for kind RECOMMENDED_MIN_VERSION (a table that lists several release lines)",
      path: ["lineMinVersions"],
    },
  )
  // zod runs these even when an entry failed its own check above; a malformed entry is reported there once.
  .refine(
    (requirement) =>
      !wellFormed(requirement.lineMinVersions) ||
      new Set(requirement.lineMinVersions.map(releaseLine)).size ===
        requirement.lineMinVersions.length,
    {
      message: "must name each release line (major.minor) once",
      path: ["lineMinVersions"],
    },
  )
  .refine(
    (requirement) =>
      requirement.lineMinVersions.length === 0 ||
      !wellFormed(requirement.lineMinVersions) ||
      requirement.minVersion ===
        [...requirement.lineMinVersions].sort((a, b) =>
          compareComponentVersions(parseComponentVersion(a), parseComponentVersion(b)),
        )[0],
    {
      message:
        "must include minVersion as its lowest entry (minVersion is the floor for lines older than all listed)",
      path: ["lineMinVersions"],
    },
  );

function wellFormed(versions: readonly string[]): boolean {
  return versions.every((version) => componentVersion.safeParse(version).success);
}

/** "1.7.11" → "1.7". */
function releaseLine(version: string): string {
  const { major, minor } = parseComponentVersion(version);
  return `${major}.${minor}`;
}

/**
 * A runtime's own release line and its support window (containerd's
 * RELEASES.md "Current State of containerd Releases"), so that a runtime
 * past its own end of life is reported whatever Kubernetes says.
 */
export const runtimeReleaseRecord = z
  .strictObject({
    component: componentName,
    line: releaseLineName,
    lts: z.boolean(),
    releaseDate: isoDate.nullable().default(null),
    /** When the runtime's own maintainers stop supporting it, if the source gives it apart from the end of life. */
    endOfActiveSupport: isoDate.nullable().default(null),
    endOfLife: isoDate.nullable().default(null),
    /** When the source gives only a month ("September 2026"): the line is supported through that month. */
    endOfLifeMonth: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month written as "YYYY-MM"')
      .nullable()
      .default(null),
    tentative: z.boolean().default(false),
    /** Who extends support beyond the maintainers, and for what. */
    extendedSupportScope: optionalText,
    /**
     * The one line a running cluster may upgrade onto this line from (etcd: the previous minor; a minor is never
     * skipped), null where the project states no such rule.
     */
    upgradeFromLine: releaseLineName.nullable().default(null),
    /** The lowest version of upgradeFromLine that may move onto this line (etcd 3.5.32 before 3.6); null where none is stated. */
    upgradeFromMinVersion: z
      .string()
      .regex(/^\d+\.\d+\.\d+$/, "must be a version such as 3.5.32")
      .nullable()
      .default(null),
    /** The project's upgrade guide or advisory that states the two fields above. */
    upgradeSourceUrl: sourceUrl.nullable().default(null),
    sourceUrl,
    notes: optionalText,
    disagreement: optionalText,
  })
  .refine((release) => release.endOfLife === null || release.endOfLifeMonth === null, {
    message: "give the end of life as a day or as a month, not both",
    path: ["endOfLifeMonth"],
  })
  .refine(
    (release) =>
      release.endOfActiveSupport === null ||
      release.endOfLife === null ||
      release.endOfActiveSupport <= release.endOfLife,
    { message: "must not be after endOfLife", path: ["endOfActiveSupport"] },
  )
  .refine(
    (release) =>
      release.upgradeFromMinVersion === null ||
      (release.upgradeFromLine !== null &&
        release.upgradeFromMinVersion.startsWith(`${release.upgradeFromLine}.`)),
    {
      message: "must be a version of upgradeFromLine",
      path: ["upgradeFromMinVersion"],
    },
  )
  .refine((release) => (release.upgradeFromLine === null) === (release.upgradeSourceUrl === null), {
    message: "an upgrade rule needs its source, and a source needs the rule",
    path: ["upgradeSourceUrl"],
  });

/**
 * A fact about the node a component runs on rather than about a version of
 * it: cgroup v1 in maintenance mode (1.31), failing the kubelet by default
 * (1.35, unless KubeletConfiguration failCgroupV1 is false).
 */
export const hostRequirementRecord = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,80}$/, "must be a stable lower-case id"),
    component: componentName,
    subject: z.enum(["CGROUP_V1"]),
    /** The Kubernetes minor the fact starts at (null: a fact about the component's own line, see componentLineFrom). */
    kubernetesFrom: minorVersion.nullable().default(null),
    componentLineFrom: releaseLineName.nullable().default(null),
    status: z.enum(["MAINTENANCE_MODE", "DEPRECATED", "FAILS_BY_DEFAULT", "REMOVED"]),
    /** The configuration field that restores the old behaviour, and its value (failCgroupV1: "false"). */
    overrideConfigField: configFieldName.nullable().default(null),
    overrideValue: optionalText,
    removalNotBefore: minorVersion.nullable().default(null),
    removalTarget: optionalText,
    summary: text,
    sourceUrl,
    notes: optionalText,
    disagreement: optionalText,
  })
  .refine((fact) => (fact.kubernetesFrom === null) !== (fact.componentLineFrom === null), {
    message:
      "give kubernetesFrom (a Kubernetes minor) or componentLineFrom (the component's own line), one of them",
    path: ["kubernetesFrom"],
  });

export type RuntimeRequirementRecord = z.infer<typeof runtimeRequirementRecord>;
export type RuntimeReleaseRecord = z.infer<typeof runtimeReleaseRecord>;
export type HostRequirementRecord = z.infer<typeof hostRequirementRecord>;
