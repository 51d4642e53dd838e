/**
 * Records of the rules an upgrade is judged by: version-skew rules and the profiles that group them, the
 * order components are upgraded in, recommendations per phase, and what going back to an older version
 * means for each kind of component.
 */
import { z } from "zod";
import { componentCategory } from "./cluster-records.js";
import {
  componentName,
  minorNumber,
  minorVersion,
  optionalText,
  sourceUrl,
  text,
} from "./record-fields.js";

export const profileRecord = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]{1,62}$/, "must be a lower-case profile name such as strict"),
  extends: z.string().nullable().default(null),
  description: text,
  sourceUrl,
  notes: optionalText,
});

export const skewRuleRecord = z
  .strictObject({
    id: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9-]{2,80}$/,
        "must be a stable lower-case id such as upstream-kubelet-vs-apiserver-n3",
      ),
    profile: text,
    component: componentName,
    relativeTo: z.enum(["kube-apiserver", "kube-apiserver-peers", "kubelet"]),
    maxNewer: z.number().int().min(0).max(10),
    maxOlder: z.number().int().min(0).max(10),
    newerMeasuredFrom: z.enum(["OLDEST", "NEWEST"]).nullable().default(null),
    olderMeasuredFrom: z.enum(["OLDEST", "NEWEST"]).nullable().default(null),
    condition: z
      .strictObject({ componentOlderThan: minorVersion, maxOlder: z.number().int().min(0).max(10) })
      .nullable()
      .default(null),
    appliesFrom: minorVersion.nullable().default(null),
    appliesUntil: minorVersion.nullable().default(null),
    sourceUrl,
    notes: optionalText,
    disagreement: optionalText,
  })
  .refine(
    (rule) =>
      rule.appliesFrom === null ||
      rule.appliesUntil === null ||
      !(minorNumber(rule.appliesFrom) > minorNumber(rule.appliesUntil)),
    { message: "must not be before appliesFrom", path: ["appliesUntil"] },
  )
  .refine(
    (rule) =>
      rule.relativeTo === "kube-apiserver"
        ? rule.newerMeasuredFrom !== null && rule.olderMeasuredFrom !== null
        : rule.newerMeasuredFrom === null && rule.olderMeasuredFrom === null,
    {
      message: "must be OLDEST or NEWEST when relativeTo is kube-apiserver, and null otherwise",
      path: ["newerMeasuredFrom"],
    },
  )
  .refine((rule) => rule.condition === null || rule.condition.maxOlder < rule.maxOlder, {
    message: "a condition must narrow the rule: its maxOlder must be below the rule's maxOlder",
    path: ["condition", "maxOlder"],
  });

export const upgradeDependencyRecord = z
  .strictObject({
    before: componentName,
    after: componentName,
    reason: text,
    sourceUrl,
    notes: optionalText,
  })
  .refine((dependency) => dependency.before !== dependency.after, {
    message: "a component cannot have to be upgraded before itself",
    path: ["after"],
  });

export const recommendationRecord = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,80}$/, "must be a stable lower-case id"),
  title: text,
  components: z.array(componentName).min(1, "must name at least one component"),
  phase: z.enum(["ANY", "CONTROL_PLANE_UPGRADE", "NODE_UPGRADE"]),
  appliesFrom: minorVersion.nullable().default(null),
  appliesUntil: minorVersion.nullable().default(null),
  text,
  sourceUrl,
  notes: optionalText,
});

/**
 * What going back to an older version means for a kind of component: a control plane cannot go back a
 * minor, a node goes back by replacing it (at most maxMinorsBack minors without a warning), etcd needs its
 * own downgrade procedure to cross a minor. Read by checkRollback.
 */
export const rollbackPolicyRecord = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "must be lower-case words joined by dashes"),
    /** Component categories the policy applies to (kb/components.yaml), or none when components names them. */
    categories: z.array(componentCategory).max(10).default([]),
    components: z.array(componentName).max(20).default([]),
    /**
     * UNSUPPORTED: no minor downgrade at all; REPLACE_NODES: go back on new nodes; OWN_PROCEDURE: the component's own
     * downgrade procedure (or a restore); PLATFORM_ROLLBACK: the managed platform takes the control plane back, at most
     * maxMinorsBack minors, within windowDays of the upgrade.
     */
    minorDowngrade: z.enum(["UNSUPPORTED", "REPLACE_NODES", "OWN_PROCEDURE", "PLATFORM_ROLLBACK"]),
    /** How many minors back are judged without a warning (0: any minor downgrade is the finding). */
    maxMinorsBack: z.number().int().min(0).max(10),
    /** The managed platform (kb/platforms.yaml) the policy holds on; null: upstream Kubernetes, wherever no platform policy applies. */
    platform: z
      .string()
      .regex(/^[a-z][a-z0-9-]{1,30}$/)
      .nullable()
      .default(null),
    /**
     * PLATFORM_ROLLBACK: the days after the minor upgrade during which the platform still takes it back; null when
     * the platform sets the window per upgrade (GKE's soak), so that it cannot be judged from the day of the upgrade.
     */
    windowDays: z.number().int().min(1).max(366).nullable().default(null),
    /** The first minor a control plane can be taken back from for the policy to hold (GKE: two-step upgrades from 1.33, so from 1.34); null: any. */
    fromMinor: minorVersion.nullable().default(null),
    /** PLATFORM_ROLLBACK: what the platform requires of the cluster, told with every answer (not judged). */
    conditions: z.array(text).max(20).default([]),
    summary: text,
    sourceUrl,
    notes: optionalText,
  })
  .refine((policy) => policy.categories.length + policy.components.length > 0, {
    message: "must name categories or components",
    path: ["categories"],
  })
  .refine((policy) => policy.minorDowngrade !== "PLATFORM_ROLLBACK" || policy.platform !== null, {
    message: "a PLATFORM_ROLLBACK policy must name its platform",
    path: ["minorDowngrade"],
  })
  .refine(
    (policy) =>
      policy.minorDowngrade === "PLATFORM_ROLLBACK" ||
      (policy.windowDays === null && policy.conditions.length === 0),
    {
      message: "windowDays and conditions are only for a PLATFORM_ROLLBACK policy",
      path: ["windowDays"],
    },
  );

export type ProfileRecord = z.infer<typeof profileRecord>;
export type SkewRuleRecord = z.infer<typeof skewRuleRecord>;
export type UpgradeDependencyRecord = z.infer<typeof upgradeDependencyRecord>;
export type RecommendationRecord = z.infer<typeof recommendationRecord>;
export type RollbackPolicyRecord = z.infer<typeof rollbackPolicyRecord>;
