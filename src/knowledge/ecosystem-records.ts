/**
 * Records of what runs on or around Kubernetes with its own versions: add-ons with the Kubernetes minors
 * each line supports and the lifecycle of their CRD API versions, and the managed platforms (EKS, GKE, AKS)
 * with their own calendars, rules and facts.
 */
import { z } from "zod";
import { isoDate, minorVersion, optionalText, sourceUrl, text } from "./record-fields.js";

/** An add-on's id: lower-case words joined by dashes (ingress-nginx, cert-manager). */
const addonName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{1,62}$/,
    "must be lower-case words joined by dashes, such as ingress-nginx",
  );

/**
 * Which add-on versions a line of a compatibility table covers: a version or its prefix ("1.9" covers
 * 1.9.0 to 1.9.x; "1.15.1" that release and its builds), or ">= 0.37" (that version and every later one:
 * tables of the minimum add-on version per Kubernetes minor).
 */
const addonVersions = z
  .string({
    message: 'must be a quoted version or prefix such as "1.9", or a minimum such as ">= 0.37"',
  })
  .regex(
    /^(>= ?)?\d+(\.\d+){0,2}$/,
    'must be a version or prefix such as "1.9" or "1.15.1", or a minimum such as ">= 0.37"',
  );

export const addonLineRecord = z
  .strictObject({
    versions: addonVersions,
    /** The Kubernetes minors the table gives for these versions, exactly as it gives them. */
    kubernetes: z.array(minorVersion).default([]),
    /** For a table that gives only a lower bound ("1.25+"): the oldest minor, with no newest one stated. */
    minimumKubernetes: minorVersion.nullable().default(null),
    released: isoDate.nullable().default(null),
    endOfLife: isoDate.nullable().default(null),
    notes: optionalText,
  })
  .refine((line) => line.kubernetes.length > 0 !== (line.minimumKubernetes !== null), {
    message:
      "give either the Kubernetes minors (kubernetes) or only the oldest one (minimumKubernetes)",
    path: ["kubernetes"],
  });
export type AddonLineRecord = z.infer<typeof addonLineRecord>;

/**
 * An add-on (ingress controller, CNI, autoscaler, CRD-based operator) with the Kubernetes minors each of its
 * version lines supports, by the project's own table or policy, and what identifies it in a running cluster.
 * `rule`: TABLE (the lines' minors), MATCH_MINOR (the add-on's minor must equal the control plane's, as
 * cluster-autoscaler's), or POLICY (the project states only a policy; nothing can be judged per version).
 * `tableMeans`: SUPPORTED (outside the table is unsupported: an ERROR) or TESTED (outside is untested: a WARNING).
 */
export const addonRecord = z
  .strictObject({
    name: addonName,
    displayName: text,
    aliases: z.array(text).default([]),
    rule: z.enum(["TABLE", "MATCH_MINOR", "POLICY"]),
    tableMeans: z.enum(["SUPPORTED", "TESTED"]),
    policy: optionalText,
    /**
     * Image repositories, without tag or digest, of the add-on's own workloads
     * (registry.k8s.io/ingress-nginx/controller); `<account>` and `<region>` stand for any one name.
     */
    images: z
      .array(
        z
          .string()
          .regex(
            /^[a-z0-9<][a-z0-9._\-/<>]*[a-z0-9]$/,
            "must be an image repository without tag, such as registry.k8s.io/ingress-nginx/controller (<account> and <region> stand for any one name)",
          ),
      )
      .default([]),
    /**
     * Where a running add-on's version is read when its image tags are not the add-on's version (Flux's controllers
     * carry their own versions): this label of the workload. Null: the image tag is the version.
     */
    versionFromLabel: z
      .string()
      .regex(/^[a-z0-9./-]+$/)
      .nullable()
      .default(null),
    /** The day the project stopped maintaining it (no releases, no security fixes). */
    retiredOn: isoDate.nullable().default(null),
    retirement: optionalText,
    /** ONE_MINOR_AT_A_TIME when the project says to upgrade through every minor. */
    upgradeLimit: z.enum(["ONE_MINOR_AT_A_TIME"]).nullable().default(null),
    upgradeLimitNote: optionalText,
    lines: z.array(addonLineRecord).default([]),
    sourceUrl,
    notes: optionalText,
    disagreement: optionalText,
    /** What the project's documentation did not give (release dates, rows after a minor). */
    unsourced: optionalText,
  })
  .refine((addon) => addon.rule === "POLICY" || addon.lines.length > 0, {
    message: "a TABLE or MATCH_MINOR add-on needs its lines",
    path: ["lines"],
  })
  .refine((addon) => addon.rule !== "POLICY" || addon.policy !== null, {
    message: "a POLICY add-on needs its policy",
    path: ["policy"],
  });
export type AddonRecord = z.infer<typeof addonRecord>;

/** An add-on release as its project names it: "v1.6", "0.33", "2.7.0". */
const addonRelease = z
  .string()
  .regex(/^v?\d+(\.\d+){0,2}$/, 'must be an add-on release such as "v1.6" or "0.33"');

/**
 * The lifecycle of an add-on's CRD API version (cert-manager.io/v1alpha2): the add-on releases in which it was
 * deprecated and stopped being served, and its replacement. `removedIn` is the first release that no longer
 * serves it (deleting it from the CRD may come later; the notes say so).
 */
export const addonApiRecord = z.strictObject({
  addon: addonName,
  apiVersion: z
    .string()
    .regex(
      /^[a-z0-9.-]+\.[a-z]+\/v\d+((alpha|beta)\d+)?$/,
      "must be a custom resource's group/version such as cert-manager.io/v1alpha2",
    ),
  kinds: z
    .array(z.string().regex(/^[A-Z][A-Za-z0-9]*$/, "must be a kind such as Certificate"))
    .min(1),
  introducedIn: addonRelease.nullable().default(null),
  deprecatedIn: addonRelease.nullable().default(null),
  removedIn: addonRelease.nullable().default(null),
  replacement: z
    .string()
    .regex(/^[a-z0-9.-]+\.[a-z]+\/v\d+((alpha|beta)\d+)?$/)
    .nullable()
    .default(null),
  notes: optionalText,
  sourceUrl,
  disagreement: optionalText,
});
export type AddonApiRecord = z.infer<typeof addonApiRecord>;

export const platformReleaseRecord = z.strictObject({
  minor: minorVersion,
  released: isoDate.nullable().default(null),
  endOfStandardSupport: isoDate.nullable().default(null),
  /** Extended (EKS), long-term (AKS LTS) or extended-channel (GKE) support; null where the platform has none or it is not published. */
  endOfExtendedSupport: isoDate.nullable().default(null),
  /**
   * DAY, or MONTH when the source gives only the month. A month-only date is written as the day the platform
   * means by it: AKS defines a month-only date as the month's last day (supported-kubernetes-versions, "dates
   * with only a month and year").
   */
  precision: z.enum(["DAY", "MONTH"]).default("DAY"),
  sourceUrl,
  disagreement: optionalText,
});

export const platformRuleRecord = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9.]+)*$/),
  kind: z.enum(["UPGRADE", "SKEW", "AUTO_UPGRADE", "DOWNGRADE", "SUPPORT"]),
  text,
  /**
   * What the upgrade planner does because of the rule; null for a rule that is only told.
   * NODES_MATCH_CONTROL_PLANE: every node pool is brought to the control plane's minor before the control plane
   * moves to the next one (EKS refuses a control-plane update while managed nodes are older).
   */
  plan: z.enum(["NODES_MATCH_CONTROL_PLANE"]).nullable().default(null),
  sourceUrl,
});

export const platformFactRecord = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9.]+)*$/),
  /** The first minor it applies to (an upgrade crossing into it is told). */
  fromMinor: minorVersion,
  text,
  sourceUrl,
  /**
   * Where upstream Kubernetes says otherwise: what upstream says, with its source. The platform's own statement
   * applies on the platform; answers say both.
   */
  disagreement: optionalText,
});

/**
 * A managed platform (EKS, GKE, AKS): how to recognise it (version strings, node labels), its own calendar per
 * Kubernetes minor, the rules where it differs from upstream, and the facts that break upgrades on it.
 */
export const platformRecord = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9-]{1,30}$/),
  displayName: text,
  /** A regular expression matched against a kube-apiserver or kubelet gitVersion (v1.29.3-eks-1234567); null when the platform uses plain versions. */
  versionPattern: z
    .string()
    .refine((pattern) => {
      try {
        new RegExp(pattern);
        return true;
      } catch {
        return false;
      }
    }, "must be a valid regular expression")
    .nullable()
    .default(null),
  nodeLabels: z.array(text).default([]),
  releases: z.array(platformReleaseRecord).default([]),
  rules: z.array(platformRuleRecord).default([]),
  facts: z.array(platformFactRecord).default([]),
  sourceUrl,
  notes: optionalText,
});
export type PlatformRecord = z.infer<typeof platformRecord>;
