/**
 * Records of what a component is started with, and how that changes between minors: command-line flags
 * and configuration fields, kube-proxy modes, feature gates, and the versions of configuration-file APIs.
 */
import { z } from "zod";
import {
  BEHAVIOUR_AREAS,
  componentName,
  configFieldName,
  minorNumber,
  minorVersion,
  optionalText,
  sourceUrl,
  text,
} from "./record-fields.js";

const flagName = z
  .string()
  .regex(
    /^--[a-z0-9][a-z0-9-]*(=[A-Za-z0-9._-]+)?$/,
    'must be a command-line flag such as "--max-pods" (or "--proxy-mode=ipvs" for one value)',
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

export type FlagChangeRecord = z.infer<typeof flagChangeRecord>;
export type ProxyModeRecord = z.infer<typeof proxyModeRecord>;
export type FeatureGateRecord = z.infer<typeof featureGateRecord>;
export type ConfigurationApiRecord = z.infer<typeof configurationApiRecord>;
