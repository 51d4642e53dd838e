/**
 * Records of Kubernetes releases and of the knowledge about them: each minor's dates, latest patch and etcd,
 * where each kind of knowledge ends (coverage), and the primary sources the rules cite.
 */
import { z } from "zod";
import {
  componentVersion,
  isoDate,
  minorVersion,
  optionalText,
  sourceUrl,
  text,
} from "./record-fields.js";

export const releaseRecord = z
  .strictObject({
    version: minorVersion,
    releaseDate: isoDate,
    endOfStandardSupport: isoDate.nullable().default(null),
    endOfLife: isoDate.nullable().default(null),
    latestPatch: componentVersion.nullable().default(null),
    latestPatchDate: isoDate.nullable().default(null),
    etcdVersion: componentVersion.nullable().default(null),
    etcdSourceUrl: sourceUrl.nullable().default(null),
    sourceUrl,
    disagreement: optionalText,
  })
  .refine((release) => release.endOfLife === null || release.endOfLife > release.releaseDate, {
    message: "must be after releaseDate",
    path: ["endOfLife"],
  })
  .refine(
    (release) =>
      release.endOfStandardSupport === null ||
      release.endOfLife === null ||
      release.endOfStandardSupport <= release.endOfLife,
    { message: "must not be after endOfLife", path: ["endOfStandardSupport"] },
  )
  .refine(
    (release) =>
      release.latestPatch === null || release.latestPatch.startsWith(`${release.version}.`),
    {
      message: "must be a patch of this release's minor",
      path: ["latestPatch"],
    },
  )
  .refine((release) => (release.etcdVersion === null) === (release.etcdSourceUrl === null), {
    message: "etcdVersion and etcdSourceUrl go together",
    path: ["etcdSourceUrl"],
  });

/**
 * Where a kind of knowledge ends: the newest Kubernetes minor it covers, and
 * the source it was read from (with its revision and date). A question about
 * a minor beyond it gets a KNOWLEDGE_EDGE warning instead of a silent pass.
 */
export const coverageRecord = z
  .strictObject({
    knowledge: z
      .string()
      .regex(/^[a-z][A-Za-z]+$/, "must name a kind of knowledge (an entity such as apiRemovals)"),
    throughMinor: minorVersion,
    /**
     * RELEASED: the source describes throughMinor as released. PRERELEASE: it was read before throughMinor's
     * release (alpha or beta notes, master's markers, a release schedule): its facts are judged, with a
     * KNOWLEDGE_EDGE that says they may change until the release.
     */
    stage: z.enum(["RELEASED", "PRERELEASE"]).default("RELEASED"),
    source: text,
    sourceRevision: optionalText,
    sourceDate: isoDate.nullable().default(null),
    sourceUrl,
    notes: optionalText,
    /**
     * On the release calendar's claim (knowledge: releases) only: the months between two minors (Kubernetes
     * releases three minors a year, KEP-2572). A minor beyond the newest release the calendar dates is counted
     * as released, for the staleness of the knowledge, once the newest release date plus this many months per
     * minor has passed. Null: the calendar's dates only.
     */
    minorCadenceMonths: z.number().int().min(1).max(24).nullable().default(null),
  })
  .refine((claim) => claim.minorCadenceMonths === null || claim.knowledge === "releases", {
    message: "only the release calendar's claim (knowledge: releases) gives the cadence of minors",
    path: ["minorCadenceMonths"],
  });

/**
 * A primary source the rules cite where no record of their own carries one (the skew policy's upgrade
 * order, the deprecation guide, the release page): kept here so that no URL lives in src/.
 */
export const referenceRecord = z.strictObject({
  id: z
    .string()
    .regex(
      /^[a-z0-9]+(-[a-z0-9]+)*$/,
      "must be lower-case words joined by dashes, such as skew-policy",
    ),
  title: text,
  sourceUrl,
  notes: optionalText,
});

export type ReleaseRecord = z.infer<typeof releaseRecord>;
export type CoverageRecord = z.infer<typeof coverageRecord>;
export type ReferenceRecord = z.infer<typeof referenceRecord>;
