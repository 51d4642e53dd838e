/**
 * Records of what a cluster is made of and how its parts talk: components, the ports they listen on, the
 * links between them, the network flows a firewall must allow, and the controllers and admission plugins
 * tenant isolation relies on.
 */
import { z } from "zod";
import {
  behaviourChangeId,
  componentName,
  minorVersion,
  optionalText,
  sourceUrl,
  text,
} from "./record-fields.js";

/** What part a component plays; rollback policies name components by it. */
export const componentCategory = z.enum([
  "apiserver",
  "datastore",
  "controller",
  "scheduler",
  "node-agent",
  "network-proxy",
  "container-runtime",
  "runtime-shim",
  "client",
]);

export const componentRecord = z.strictObject({
  name: componentName,
  aliases: z.array(text).default([]),
  plane: z.enum(["CONTROL", "DATA", "CLIENT"]),
  category: componentCategory,
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

export type ComponentRecord = z.infer<typeof componentRecord>;
export type PortRecord = z.infer<typeof portRecord>;
export type LinkRecord = z.infer<typeof linkRecord>;
export type NetworkFlowRecord = z.infer<typeof networkFlowRecord>;
export type ControllerRecord = z.infer<typeof controllerRecord>;
