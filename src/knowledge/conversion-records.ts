/**
 * Conversions of objects from a removed apiVersion to its replacement (kb/api-conversions.yaml): the
 * fields that move, get a default or are dropped, as data with their source, so that `fix` rewrites a
 * manifest by reviewed knowledge and not by code. Paths are read relative to each place named by `at`:
 * dotted keys, `[]` for every element of a list, `["a.b/c"]` for a key holding dots or slashes.
 */
import { z } from "zod";
import { optionalText, sourceUrl, text } from "./record-fields.js";

const SEGMENT = String.raw`(?:[A-Za-z][A-Za-z0-9]*(?:\[\])?|\["[^"\]]+"\])`;
const PATH = new RegExp(String.raw`^${SEGMENT}(?:\.?${SEGMENT})*$`);

/** A field path such as `spec.rules[].http.paths[]` or `topology["kubernetes.io/hostname"]`. */
export const conversionPath = z
  .string()
  .regex(
    PATH,
    'must be a field path such as spec.rules[].http.paths[].backend or topology["kubernetes.io/hostname"]',
  );

const apiVersionText = z
  .string()
  .regex(/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/, "must be an apiVersion such as batch/v1");

/** Where a step applies: the object itself when absent, else each place the paths reach. */
const at = z
  .union([conversionPath, z.array(conversionPath).max(10)])
  .optional()
  .transform((value) => (value === undefined ? [] : typeof value === "string" ? [value] : value));

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** Moves a field (with its value) to another path under the same place, optionally only for values of one type. */
const moveStep = z.strictObject({
  at,
  move: conversionPath,
  to: conversionPath,
  /** Only a value of this YAML type moves (IntOrString: a number is a port number, a string a port name). */
  when: z.enum(["integer", "string"]).optional(),
  /** When the destination already holds the same value, the moved field is dropped (else it stays where it is). */
  whenTaken: z.literal("drop-if-equal").optional(),
  /** Fields set beside the moved one, e.g. `target.type: Utilization`. */
  set: z.record(conversionPath, scalar).optional(),
  note: text.optional(),
});

/** Adds a field where it is absent: the value the old version defaulted it to, so the meaning stays. */
const defaultStep = z.strictObject({
  at,
  default: conversionPath,
  value: scalar,
  /** The sibling the new field follows (at the start of the map when the sibling is absent); last when not given. */
  after: z.string().min(1).optional(),
  note: text.optional(),
});

/** Drops a field the target has no counterpart for; `lossy` says what is lost when its value is not empty. */
const dropStep = z.strictObject({
  at,
  drop: conversionPath,
  whenEquals: scalar.optional(),
  lossy: text.optional(),
  note: text.optional(),
});

/**
 * Replaces a field's value where it has one (whenEquals, or an empty map), unless a field of the object is
 * present: the form the API server itself stores the old value in, so that the meaning stays.
 */
const replaceStep = z
  .strictObject({
    at,
    replace: conversionPath,
    whenEquals: scalar.optional(),
    /** The field is an empty map, `{}`. */
    whenEmptyMap: z.literal(true).optional(),
    /** A path from the object's root, e.g. an annotation that asks for the old value to be kept. */
    unlessPresent: conversionPath.optional(),
    with: z.union([scalar, z.record(z.string(), z.unknown())]),
    note: text,
  })
  .refine((step) => (step.whenEquals === undefined) !== (step.whenEmptyMap === undefined), {
    message: "give whenEquals or whenEmptyMap: true, one of them",
    path: ["whenEquals"],
  });

export const conversionStep = z.union([moveStep, defaultStep, dropStep, replaceStep]);

export const apiConversionRecord = z.strictObject({
  fromApiVersion: apiVersionText,
  kind: z.string().regex(/^[A-Z][A-Za-z0-9]{1,80}$/, "must be a kind such as Ingress"),
  toApiVersion: apiVersionText,
  /** In order; none for a move of the apiVersion only. */
  steps: z.array(conversionStep).max(40).default([]),
  sourceUrl,
  notes: optionalText,
});

export type ConversionStep = z.infer<typeof conversionStep>;
export type ApiConversionRecord = z.infer<typeof apiConversionRecord>;
