/**
 * Records of the Kubernetes API and what changes in it between minors: the group/versions the API server
 * serves, the apiVersions removed, behaviour changes that break or weaken a cluster without removing one,
 * and the field-level scan rules that find objects such a change affects.
 */
import { z } from "zod";
import {
  BEHAVIOUR_AREAS,
  behaviourChangeId,
  componentName,
  minorNumber,
  minorVersion,
  optionalText,
  sourceUrl,
  text,
} from "./record-fields.js";

/** A group/version the Kubernetes API server serves or served: objects of it are judged; others are API_NOT_JUDGED. */
export const apiGroupVersionRecord = z
  .strictObject({
    apiVersion: z
      .string()
      .regex(/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/, "must be an apiVersion such as batch/v1"),
    group: z
      .string()
      .regex(/^([a-z0-9.-]+)?$/, 'must be an API group such as "batch", or "" for the core group'),
    version: z.string().regex(/^v\d+((alpha|beta)\d+)?$/, "must be an API version such as v1beta1"),
    sourceUrl,
    notes: optionalText,
  })
  .refine(
    (entry) =>
      entry.apiVersion === (entry.group === "" ? entry.version : `${entry.group}/${entry.version}`),
    {
      message: "must equal group/version (or just version for the core group)",
      path: ["apiVersion"],
    },
  );

export const apiRemovalRecord = z
  .strictObject({
    apiVersion: z
      .string()
      .regex(
        /^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/,
        "must be an apiVersion such as batch/v1beta1",
      ),
    group: z
      .string()
      .regex(/^([a-z0-9.-]+)?$/, 'must be an API group such as "batch", or "" for the core group'),
    version: z.string().regex(/^v\d+((alpha|beta)\d+)?$/, "must be an API version such as v1beta1"),
    kind: z
      .string()
      .regex(/^[A-Z][A-Za-z0-9]{1,62}$/, "must be a Kind in UpperCamelCase such as CronJob"),
    /**
     * The first minor that served this apiVersion and kind (its APILifecycleIntroduced marker), null where
     * no marker says. A scan needs it to advise an interim version that both sides of an upgrade serve.
     */
    introducedIn: minorVersion.nullable().default(null),
    deprecatedIn: minorVersion.nullable().default(null),
    removedIn: minorVersion,
    replacement: z
      .string()
      .regex(/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/, "must be an apiVersion such as batch/v1")
      .nullable()
      .default(null),
    replacementAvailableIn: minorVersion.nullable().default(null),
    /**
     * Whether the apiserver served the version without --runtime-config
     * (GA: yes; alpha: no; beta: only when introduced before 1.24, KEP-3136).
     * Null where the source does not say.
     */
    servedByDefault: z.boolean().nullable().default(null),
    notes: optionalText,
    sourceUrl,
    disagreement: optionalText,
  })
  .refine(
    (removal) =>
      removal.apiVersion ===
      (removal.group === "" ? removal.version : `${removal.group}/${removal.version}`),
    {
      message: "must equal group/version (or just version for the core group)",
      path: ["apiVersion"],
    },
  )
  .refine(
    (removal) =>
      removal.deprecatedIn === null ||
      !(minorNumber(removal.deprecatedIn) > minorNumber(removal.removedIn)),
    { message: "must not be after removedIn", path: ["deprecatedIn"] },
  )
  .refine(
    (removal) =>
      removal.introducedIn === null ||
      !(minorNumber(removal.introducedIn) >= minorNumber(removal.removedIn)),
    { message: "must be before removedIn", path: ["introducedIn"] },
  );

/**
 * A change in a Kubernetes minor that can break or weaken a cluster on upgrade although no apiVersion goes
 * away (issue "Beyond apiVersions"): what happens, what to do before the upgrade, how to detect it, its
 * source, and the design-note claim it confirms or contradicts.
 */
export const behaviourChangeRecord = z.strictObject({
  id: z
    .string()
    .regex(
      /^[a-z0-9]+(-[a-z0-9]+)*$/,
      "must be lower-case words joined by dashes, such as psp-removed",
    ),
  /** The minor in which the change takes effect. */
  kubernetesVersion: minorVersion,
  change: z.enum([
    "REMOVED",
    "DEPRECATED",
    "DISABLED_BY_DEFAULT",
    "DEFAULT_CHANGED",
    "BEHAVIOUR_CHANGED",
  ]),
  components: z.array(componentName).min(1, "must name the component(s) the change is in").max(10),
  areas: z.array(z.enum(BEHAVIOUR_AREAS)).min(1).max(7),
  title: text,
  whatHappens: text,
  beforeUpgrade: text,
  /** How a user (or a rule) can tell whether the cluster is affected. */
  detection: z.strictObject({
    method: z.enum(["SCAN_RULE", "FLAG", "FEATURE_GATE", "CONFIG_FIELD", "METRIC", "ASK"]),
    detail: text,
  }),
  sourceUrl,
  /** A claim of the platform team's design notes (../shared/design-notes) this change confirms or contradicts. */
  designNote: z
    .strictObject({ claim: text, verdict: z.enum(["CONFIRMS", "CONTRADICTS"]) })
    .nullable()
    .default(null),
  notes: optionalText,
  disagreement: optionalText,
});

/**
 * A field-level scan rule: objects (or the pods of workloads) whose field or annotation a behaviour change
 * breaks or weakens, with the severity from each minor on. A path is dotted field names, `[]` after a
 * list's name to look into each item (spec.volumes[].gitRepo); the rule matches when the field is set
 * (not null, not empty), or, with `equals`, when it has one of the values, or, with `keys`, when the map
 * there has one of the keys (a key ending in `*` matches any key it starts).
 */
export const fieldRuleRecord = z
  .strictObject({
    id: z
      .string()
      .regex(
        /^[a-z0-9]+(-[a-z0-9]+)*$/,
        "must be lower-case words joined by dashes, such as service-external-ips",
      ),
    behaviourChange: behaviourChangeId,
    /** OBJECT: the path is read from objects of `kinds`; POD: from every pod, a Pod's own or a workload's pod template. */
    scope: z.enum(["OBJECT", "POD"]).default("OBJECT"),
    kinds: z
      .array(z.string().regex(/^[A-Z][A-Za-z0-9]{1,80}$/, "must be a kind such as Service"))
      .max(20)
      .default([]),
    path: z
      .string()
      .regex(
        /^[A-Za-z][A-Za-z0-9]*(\[\])?(\.[A-Za-z][A-Za-z0-9]*(\[\])?)*$/,
        "must be a field path such as spec.volumes[].gitRepo",
      ),
    equals: z.array(text).max(50).default([]),
    keys: z.array(text).max(50).default([]),
    /** The severity from each minor on, oldest first; before the first, the change is INFO (scheduled). */
    severities: z
      .array(z.strictObject({ from: minorVersion, severity: z.enum(["ERROR", "WARNING", "INFO"]) }))
      .min(1, "must say from which minor the rule applies and how severe it is"),
    /** What is wrong and what to do, after the object's name. */
    advice: text,
    sourceUrl,
    notes: optionalText,
  })
  .refine((rule) => rule.scope === "POD" || rule.kinds.length > 0, {
    message: "an OBJECT rule must name the kinds it reads",
    path: ["kinds"],
  })
  .refine((rule) => rule.equals.length === 0 || rule.keys.length === 0, {
    message: "give equals or keys, not both",
    path: ["keys"],
  })
  .refine(
    (rule) =>
      rule.severities.every(
        (entry, index) =>
          index === 0 || minorNumber(entry.from) > minorNumber(rule.severities[index - 1]!.from),
      ),
    {
      message: "must be in increasing order of from",
      path: ["severities"],
    },
  );

export type ApiGroupVersionRecord = z.infer<typeof apiGroupVersionRecord>;
export type ApiRemovalRecord = z.infer<typeof apiRemovalRecord>;
export type BehaviourChangeRecord = z.infer<typeof behaviourChangeRecord>;
export type FieldRuleRecord = z.infer<typeof fieldRuleRecord>;
