/**
 * The shape of every knowledge-base record, as reviewed YAML under kb/ and as
 * served by the read APIs. zod validates each record when kb/ is loaded;
 * cross-record rules (references, natural-key uniqueness) live in
 * src/knowledge/validate.ts. Unknown fields are rejected so that a typo in a
 * reviewed file cannot silently drop a fact.
 */
import { z } from "zod";
import { compareComponentVersions, parseComponentVersion } from "../core/versions.js";

/** The minor number of "1.28"; NaN for anything else (its own field reports that). */
function minorNumber(minor: string): number {
  return Number(minor.split(".")[1]);
}

const text = z.string().trim().min(1, "must not be empty");
const optionalText = text.nullable().default(null);

/** A Kubernetes minor written as a quoted string: "1.28". */
export const minorVersion = z
  .string({ message: 'must be a quoted Kubernetes minor such as "1.28"' })
  .regex(/^1\.(0|[1-9]\d{0,2})$/, 'must be a Kubernetes minor such as "1.28"');

/** A full component version such as "1.30.14" or "3.5.12-0". */
const componentVersion = z
  .string({ message: 'must be a quoted version such as "1.6.0"' })
  .regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'must be a version such as "1.6.0"');

const isoDate = z
  .string({ message: 'must be a quoted date such as "2024-04-17"' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written as "YYYY-MM-DD"')
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
  }, "is not a real calendar date");

/** Every fact names where it came from; only https sources are accepted. */
const sourceUrl = z
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

const componentName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{1,62}$/,
    "must be a canonical component name in lower case, such as kube-apiserver",
  );

export const componentRecord = z.strictObject({
  name: componentName,
  aliases: z.array(text).default([]),
  plane: z.enum(["CONTROL", "DATA", "CLIENT"]),
  category: z.enum([
    "apiserver",
    "datastore",
    "controller",
    "scheduler",
    "node-agent",
    "network-proxy",
    "container-runtime",
    "runtime-shim",
    "client",
  ]),
  nodeRole: z.enum(["CONTROL_PLANE", "WORKER", "ALL_NODES", "CLIENT"]),
  processName: text,
  responsibility: text,
  talksTo: text,
  notes: optionalText,
  sourceUrl,
  disagreement: optionalText,
});

export const portRecord = z
  .strictObject({
    component: componentName,
    port: z.number().int().min(1).max(65535),
    endPort: z.number().int().min(1).max(65535).nullable().default(null),
    protocol: z.enum(["TCP", "UDP"]),
    nodeRole: z.enum(["CONTROL_PLANE", "WORKER"]),
    direction: z.enum(["INBOUND", "OUTBOUND"]),
    purpose: text,
    usedBy: text,
    deprecated: z.boolean().default(false),
    tlsNotes: optionalText,
    configurableWith: optionalText,
    notes: optionalText,
    sourceUrl,
    disagreement: optionalText,
  })
  .refine((port) => port.endPort === null || port.endPort > port.port, {
    message: "must be greater than port (omit it for a single port)",
    path: ["endPort"],
  });

export const linkRecord = z.strictObject({
  from: componentName,
  to: componentName,
  protocol: text,
  port: z.number().int().min(1).max(65535).nullable().default(null),
  authentication: text,
  minTlsVersion: z
    .string()
    .regex(/^1\.[0-3]$/, 'must be a TLS version such as "1.2"')
    .nullable()
    .default(null),
  notes: optionalText,
  sourceUrl,
  disagreement: optionalText,
});

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

const flagName = z
  .string()
  .regex(
    /^--[a-z0-9][a-z0-9-]*(=[A-Za-z0-9._-]+)?$/,
    'must be a command-line flag such as "--max-pods" (or "--proxy-mode=ipvs" for one value)',
  );
const configFieldName = z
  .string()
  .regex(
    /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$/,
    "must be a configuration field such as maxPods",
  );

export const flagChangeRecord = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,100}$/, "must be a stable lower-case id"),
    component: componentName,
    flag: flagName.nullable().default(null),
    configField: configFieldName.nullable().default(null),
    deprecatedIn: minorVersion.nullable().default(null),
    removedIn: minorVersion.nullable().default(null),
    replacementFlag: flagName.nullable().default(null),
    replacementConfigField: configFieldName.nullable().default(null),
    notes: optionalText,
    sourceUrl,
    disagreement: optionalText,
  })
  .refine((change) => change.flag !== null || change.configField !== null, {
    message: "give the flag, the config field, or both",
    path: ["flag"],
  })
  .refine(
    (change) =>
      change.deprecatedIn === null ||
      change.removedIn === null ||
      !(minorNumber(change.deprecatedIn) > minorNumber(change.removedIn)),
    { message: "must not be after removedIn", path: ["deprecatedIn"] },
  );

export const proxyModeRecord = z.strictObject({
  mode: z.enum(["userspace", "iptables", "ipvs", "nftables", "kernelspace"]),
  os: z.enum(["linux", "windows"]),
  availableFrom: minorVersion.nullable().default(null),
  stableFrom: minorVersion.nullable().default(null),
  defaultFrom: minorVersion.nullable().default(null),
  defaultUntil: minorVersion.nullable().default(null),
  deprecatedIn: minorVersion.nullable().default(null),
  removedIn: minorVersion.nullable().default(null),
  featureGate: optionalText,
  notes: optionalText,
  sourceUrl,
  disagreement: optionalText,
});

const releaseLineName = z.string().regex(/^\d+\.\d+$/, 'must be a release line such as "1.7"');

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

/**
 * Where a kind of knowledge ends: the newest Kubernetes minor it covers, and
 * the source it was read from (with its revision and date). A question about
 * a minor beyond it gets a KNOWLEDGE_EDGE warning instead of a silent pass.
 */
export const coverageRecord = z.strictObject({
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
});

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

/**
 * What going back to an older version means for a kind of component: a control plane cannot go back a
 * minor, a node goes back by replacing it (at most maxMinorsBack minors without a warning), etcd needs its
 * own downgrade procedure to cross a minor. Read by checkRollback.
 */
export const rollbackPolicyRecord = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "must be lower-case words joined by dashes"),
    /** Component categories the policy applies to (kb/components.yaml), or none when components names them. */
    categories: z
      .array(
        z.enum([
          "apiserver",
          "datastore",
          "controller",
          "scheduler",
          "node-agent",
          "network-proxy",
          "container-runtime",
          "runtime-shim",
          "client",
        ]),
      )
      .max(10)
      .default([]),
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

const behaviourChangeId = z
  .string()
  .regex(
    /^[a-z0-9]+(-[a-z0-9]+)*$/,
    "must be the id of a behaviour change (kb/behaviour-changes.yaml)",
  );

/**
 * A feature gate's lifecycle, as the kubernetes/website feature-gate pages' front matter lists it: each
 * stage with its default and the minors it spans, and the minor from which the gate no longer exists. A
 * component refuses to start with a gate it does not know, so a gate passed after its removal is an
 * ERROR; a gate locked to its default and set the other way is a WARNING, and so is a deprecated gate.
 */
export const featureGateRecord = z
  .strictObject({
    name: z
      .string()
      .regex(
        /^[A-Z][A-Za-z0-9]{1,100}$/,
        "must be a feature-gate name such as InTreePluginAWSUnregister",
      ),
    stages: z
      .array(
        z.strictObject({
          stage: z.enum(["ALPHA", "BETA", "GA", "DEPRECATED"]),
          defaultValue: z.boolean(),
          /** The stage's value cannot be changed (a GA or deprecated gate locked to its default). */
          locked: z.boolean().default(false),
          fromVersion: minorVersion,
          /** The last minor of the stage (null: still in it in the newest release read). */
          toVersion: minorVersion.nullable().default(null),
        }),
      )
      .min(1, "must list at least one stage"),
    /** The first minor in which the gate no longer exists (null: it still exists). */
    removedIn: minorVersion.nullable().default(null),
    /** The components that read the gate, where the source says (empty: not stated). */
    components: z.array(componentName).max(10).default([]),
    sourceUrl,
    notes: optionalText,
    disagreement: optionalText,
  })
  .refine(
    (gate) =>
      gate.stages.every(
        (stage) =>
          stage.toVersion === null ||
          minorNumber(stage.toVersion) >= minorNumber(stage.fromVersion),
      ),
    {
      message: "a stage's toVersion must not be before its fromVersion",
      path: ["stages"],
    },
  )
  .refine(
    (gate) =>
      gate.removedIn === null ||
      gate.stages.every((stage) => minorNumber(stage.fromVersion) < minorNumber(gate.removedIn!)),
    {
      message: "must be after every stage's fromVersion",
      path: ["removedIn"],
    },
  );

/**
 * A version of a configuration-file API (KubeletConfiguration, KubeSchedulerConfiguration, kubeadm's
 * configuration, audit policy, EncryptionConfiguration ...): files on nodes read by a component at start,
 * not objects in the API, so a component refuses to start once the version is removed.
 */
export const configurationApiRecord = z.strictObject({
  kind: z.string().regex(/^[A-Z][A-Za-z0-9]{1,80}$/, "must be a kind such as KubeletConfiguration"),
  apiVersion: z
    .string()
    .regex(
      /^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/,
      "must be an apiVersion such as kubelet.config.k8s.io/v1beta1",
    ),
  /** The component that reads the file. */
  component: componentName,
  /** How the file reaches the component, e.g. "kube-scheduler --config". */
  usedWith: text,
  introducedIn: minorVersion.nullable().default(null),
  deprecatedIn: minorVersion.nullable().default(null),
  /** The first minor whose component no longer reads this version. */
  removedIn: minorVersion.nullable().default(null),
  /** The apiVersion to move to. */
  replacement: z.string().nullable().default(null),
  /** The areas (as behaviour changes name them) a change of this file touches, for upgrade impact by area. */
  areas: z.array(z.enum(BEHAVIOUR_AREAS)).max(7).default([]),
  sourceUrl,
  notes: optionalText,
  disagreement: optionalText,
});

/**
 * A controller of kube-controller-manager or an admission plugin of kube-apiserver the design notes
 * rely on for tenant isolation, with what it means for isolation and the behaviour changes that touch it.
 */
export const controllerRecord = z.strictObject({
  name: z
    .string()
    .regex(
      /^[A-Za-z][A-Za-z0-9-]{1,80}$/,
      "must be a controller name (namespace-controller) or an admission plugin name (NamespaceLifecycle)",
    ),
  kind: z.enum(["CONTROLLER", "ADMISSION_PLUGIN"]),
  component: componentName,
  summary: text,
  tenantIsolation: text,
  /** Admission plugins: on by default in the newest release read (controllers: false, see notes). */
  enabledByDefault: z.boolean().default(false),
  /** Admission plugins on by default: the first minor they are, where a source names it (null: before the oldest minor covered, or unknown). */
  enabledByDefaultFrom: minorVersion.nullable().default(null),
  /** The first minor in which it no longer exists (PodSecurityPolicy: 1.25). */
  removedIn: minorVersion.nullable().default(null),
  behaviourChanges: z.array(behaviourChangeId).max(30).default([]),
  designNote: z
    .strictObject({ claim: text, verdict: z.enum(["CONFIRMS", "CONTRADICTS"]) })
    .nullable()
    .default(null),
  sourceUrl,
  notes: optionalText,
  disagreement: optionalText,
});

const flowEnd = z.strictObject({
  /** Where the traffic starts or ends: a node role, or EXTERNAL (clients, load balancers outside the cluster). */
  role: z.enum(["CONTROL_PLANE", "WORKER", "EXTERNAL"]),
  /** The process on that side, where one is known (kube-apiserver, kubelet, calico-node ...). */
  component: componentName.nullable().default(null),
});

/**
 * A network flow a firewall between nodes must allow: from a role (and component) to a role, a port or
 * range, a protocol, whether it is required, and the CNI or Kubernetes minors it applies to.
 */
export const networkFlowRecord = z
  .strictObject({
    id: z
      .string()
      .regex(
        /^[a-z0-9]+(-[a-z0-9]+)*$/,
        "must be lower-case words joined by dashes, such as workers-to-apiserver",
      ),
    from: flowEnd,
    to: flowEnd,
    /** TCP, UDP, SCTP, or an IP protocol without ports (IPIP, ESP). */
    protocol: z.enum(["TCP", "UDP", "SCTP", "IPIP", "ESP"]),
    port: z.number().int().min(1).max(65535).nullable().default(null),
    endPort: z.number().int().min(1).max(65535).nullable().default(null),
    purpose: text,
    /** REQUIRED always; OPTIONAL for a feature the cluster may not use; CONDITIONAL when `condition` holds. */
    need: z.enum(["REQUIRED", "OPTIONAL", "CONDITIONAL"]),
    condition: optionalText,
    /** The CNI whose flow this is (null: Kubernetes itself). */
    cni: z
      .string()
      .regex(/^[a-z][a-z0-9-]{1,40}$/)
      .nullable()
      .default(null),
    fromVersion: minorVersion.nullable().default(null),
    untilVersion: minorVersion.nullable().default(null),
    /** What goes wrong during or after an upgrade when the flow is blocked. */
    whenBlocked: optionalText,
    sourceUrl,
    notes: optionalText,
    disagreement: optionalText,
  })
  .refine(
    (flow) => (flow.protocol === "IPIP" || flow.protocol === "ESP") === (flow.port === null),
    {
      message: "give a port for TCP, UDP and SCTP, and none for IPIP or ESP",
      path: ["port"],
    },
  )
  .refine((flow) => flow.endPort === null || (flow.port !== null && flow.endPort > flow.port), {
    message: "must be greater than port (omit it for a single port)",
    path: ["endPort"],
  });

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
    /** Image repositories, without tag or digest, of the add-on's own workloads (registry.k8s.io/ingress-nginx/controller); `<account>` and `<region>` stand for any one name. */
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

export type FieldRuleRecord = z.infer<typeof fieldRuleRecord>;
export type FeatureGateRecord = z.infer<typeof featureGateRecord>;
export type ConfigurationApiRecord = z.infer<typeof configurationApiRecord>;
export type ControllerRecord = z.infer<typeof controllerRecord>;
export type NetworkFlowRecord = z.infer<typeof networkFlowRecord>;
export type BehaviourChangeRecord = z.infer<typeof behaviourChangeRecord>;
export type ReferenceRecord = z.infer<typeof referenceRecord>;
export type RollbackPolicyRecord = z.infer<typeof rollbackPolicyRecord>;
export type ApiGroupVersionRecord = z.infer<typeof apiGroupVersionRecord>;
export type RuntimeReleaseRecord = z.infer<typeof runtimeReleaseRecord>;
export type HostRequirementRecord = z.infer<typeof hostRequirementRecord>;
export type CoverageRecord = z.infer<typeof coverageRecord>;
export type ComponentRecord = z.infer<typeof componentRecord>;
export type FlagChangeRecord = z.infer<typeof flagChangeRecord>;
export type ProxyModeRecord = z.infer<typeof proxyModeRecord>;
export type PortRecord = z.infer<typeof portRecord>;
export type LinkRecord = z.infer<typeof linkRecord>;
export type ProfileRecord = z.infer<typeof profileRecord>;
export type SkewRuleRecord = z.infer<typeof skewRuleRecord>;
export type ApiRemovalRecord = z.infer<typeof apiRemovalRecord>;
export type ReleaseRecord = z.infer<typeof releaseRecord>;
export type UpgradeDependencyRecord = z.infer<typeof upgradeDependencyRecord>;
export type RuntimeRequirementRecord = z.infer<typeof runtimeRequirementRecord>;
export type RecommendationRecord = z.infer<typeof recommendationRecord>;

export type { EntityName, KbBundle } from "./built-in-kinds.js";
import type { EntityName } from "./built-in-kinds.js";

/**
 * A record that kb/ and a run-time edit changed differently (found by the
 * merge at start-up): the database's value is what is served until an edit
 * of the record or an import resolves it.
 */
export interface KbConflictRecord {
  readonly entity: EntityName;
  readonly key: string;
  /** The record as kb/ had it at the import before (null: kb/ did not have it). */
  readonly base: object | null;
  /** The record as kb/ has it now (null: kb/ removed it). */
  readonly kb: object | null;
  /** The record the database keeps and serves (null: retired at run time). */
  readonly database: object | null;
  readonly detectedAt: string;
  /** The import that found it, e.g. "directory:kb". */
  readonly source: string;
}
