/**
 * The field types every kind of knowledge-base record is written with: versions, dates, sources, names.
 * One definition each, so that "1.28", a date or a source URL is checked the same way in every kind.
 */
import { z } from "zod";

/** The minor number of "1.28"; NaN for anything else (its own field reports that). */
export function minorNumber(minor: string): number {
  return Number(minor.split(".")[1]);
}

export const text = z.string().trim().min(1, "must not be empty");
export const optionalText = text.nullable().default(null);

/** A Kubernetes minor written as a quoted string: "1.28". */
export const minorVersion = z
  .string({ message: 'must be a quoted Kubernetes minor such as "1.28"' })
  .regex(/^1\.(0|[1-9]\d{0,2})$/, 'must be a Kubernetes minor such as "1.28"');

/** A full component version such as "1.30.14" or "3.5.12-0". */
export const componentVersion = z
  .string({ message: 'must be a quoted version such as "1.6.0"' })
  .regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'must be a version such as "1.6.0"');

export const isoDate = z
  .string({ message: 'must be a quoted date such as "2024-04-17"' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written as "YYYY-MM-DD"')
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
  }, "is not a real calendar date");

/** Every fact names where it came from; only https sources are accepted. */
export const sourceUrl = z
  .string({ message: "is required: every fact needs the URL of its primary source" })
  .regex(/^https:\/\/[^\s/]+\.[^\s/]+\/\S*$/, "must be an https:// URL of the primary source");

/** What a behaviour change can break or weaken: the areas upgrade impact is grouped by. */
export const BEHAVIOUR_AREAS = [
  "tenant-isolation",
  "security",
  "networking",
  "storage",
  "scheduling",
  "node",
  "observability",
] as const;
export type BehaviourArea = (typeof BEHAVIOUR_AREAS)[number];

export const componentName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{1,62}$/,
    "must be a canonical component name in lower case, such as kube-apiserver",
  );

export const configFieldName = z
  .string()
  .regex(
    /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$/,
    "must be a configuration field such as maxPods",
  );

export const releaseLineName = z
  .string()
  .regex(/^\d+\.\d+$/, 'must be a release line such as "1.7"');

export const behaviourChangeId = z
  .string()
  .regex(
    /^[a-z0-9]+(-[a-z0-9]+)*$/,
    "must be the id of a behaviour change (kb/behaviour-changes.yaml)",
  );
