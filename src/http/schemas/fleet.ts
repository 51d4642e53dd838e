/**
 * The fleet's inputs: a cluster's registration (its name, environment,
 * owner, labels and its state as validate or validate/from-kubectl takes it,
 * or a `kubecompat collect` bundle), subscriptions, waivers and the queries
 * of the lists. Every face that registers or subscribes checks with these.
 */
import { components, platform, profile } from "./cluster-fields.js";
import { filterValue } from "./read-queries.js";
import { shortText, z } from "./openapi-zod.js";

const NAME = /^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/;

export const clusterName = z
  .string()
  .regex(
    NAME,
    "must be a DNS label-like name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 63 characters",
  )
  .openapi({ description: "The cluster's name in the fleet (unique).", example: "payments-prod" });

const labelKey = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/,
    "must be a label key such as team or app.kubernetes.io/part-of",
  );

export const labels = z
  .record(labelKey, z.string().max(63, "must be at most 63 characters"))
  .refine((value) => Object.keys(value).length <= 32, "must have at most 32 labels")
  .default({})
  .openapi({
    description: "Free labels to select on.",
    example: { team: "payments", region: "eu" },
  });

const kubectlJson = z.record(z.string(), z.unknown());

/** A cluster's state, as validate or validate/from-kubectl takes it, or a collect bundle: exactly one of them. */
const clusterState = {
  platform,
  profile,
  components: components.optional(),
  kubectlVersion: z
    .union([kubectlJson, z.string().max(100_000)])
    .optional()
    .openapi({ description: "As validate/from-kubectl: `kubectl version -o json`." }),
  nodes: z
    .union([kubectlJson, z.string().max(5_000_000)])
    .optional()
    .openapi({ description: "As validate/from-kubectl: `kubectl get nodes -o json`." }),
  workloads: kubectlJson.optional().openapi({
    description: "As validate/from-kubectl: `kubectl get deployments,daemonsets -A -o json`.",
  }),
  bundle: kubectlJson.optional().openapi({
    description:
      "A `kubecompat collect` bundle (its kubectlVersion, nodes and workloads are read; the rest is not stored).",
  }),
};

type StateFields = {
  components?: unknown;
  kubectlVersion?: unknown;
  nodes?: unknown;
  workloads?: unknown;
  bundle?: unknown;
};

function oneState(body: StateFields, context: z.core.$RefinementCtx): void {
  const given = [
    body.components !== undefined,
    body.kubectlVersion !== undefined || body.nodes !== undefined || body.workloads !== undefined,
    body.bundle !== undefined,
  ].filter(Boolean).length;
  if (given !== 1)
    context.addIssue({
      code: "custom",
      path: ["components"],
      message:
        given === 0
          ? "give the cluster's state: components (as validate takes them), kubectl's outputs (kubectlVersion, nodes, workloads) or a collect bundle"
          : "give one state: components, kubectl's outputs or a bundle, not several",
    });
}

export const registerClusterRequest = z
  .strictObject({
    name: clusterName,
    environment: shortText(
      "Where the cluster stands in the rollout order (FLEET_ENVIRONMENTS).",
      "prod",
    ),
    owner: shortText("The team or person who answers for it.", "team-payments"),
    labels,
    ...clusterState,
  })
  .superRefine(oneState)
  .openapi("RegisterClusterRequest");

export const baselineCheckRequest = z
  .strictObject({
    ...clusterState,
    baseline: z.coerce
      .number()
      .int()
      .min(1)
      .max(2_147_483_647)
      .optional()
      .openapi({ description: "The snapshot to compare with (default: the cluster's newest)." }),
  })
  .superRefine(oneState)
  .openapi("BaselineCheckRequest");

export const clusterListQuery = z.strictObject({
  environment: filterValue.optional(),
  owner: filterValue.optional(),
  label: filterValue.optional().openapi({ description: "key=value", example: "team=payments" }),
});

const positiveId = (what: string) =>
  z.coerce.number().int().min(1).max(2_147_483_647).openapi({ description: what });

export const eventListQuery = z.strictObject({
  cluster: filterValue.optional(),
  before: positiveId("Events with an id below this one (paging back).").optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

const severity = z.enum(["ERROR", "WARNING", "INFO"]);

export const subscriptionFilters = z
  .strictObject({
    environments: z.array(z.string().max(40)).max(20).optional(),
    owners: z.array(z.string().max(200)).max(50).optional(),
    labels: z.record(labelKey, z.string().max(63)).optional(),
    minSeverity: severity.optional(),
  })
  .default({})
  .openapi({
    description:
      "Which events it receives: every field given must match (environments, owners, labels, lowest severity).",
    example: { environments: ["prod"], minSeverity: "WARNING" },
  });

export const subscribeRequest = z
  .strictObject({
    kind: z.enum(["webhook", "slack"]).openapi({
      description:
        "webhook: the event as JSON, HMAC-signed (x-kubecompat-signature v1=hex of HMAC-SHA256(secret, timestamp.body)); slack: a message to a Slack incoming webhook.",
    }),
    url: z
      .string()
      .max(2000)
      .regex(/^https?:\/\/\S+$/, "must be an http(s) URL")
      .openapi({ example: "https://hooks.example.com/kubecompat" }),
    secret: z.string().min(16, "must be at least 16 characters").max(200).optional().openapi({
      description: "The webhook's signing secret; one is made and shown once when left out.",
    }),
    filters: subscriptionFilters,
  })
  .openapi("SubscribeRequest");

export const deliveryListQuery = z.strictObject({
  status: z.enum(["PENDING", "DELIVERED", "DEAD"]).optional(),
  event: positiveId("Deliveries of one event.").optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const waiverRequest = z
  .strictObject({
    code: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{1,60}$/, "must be a finding code such as PLATFORM_EXTENDED_SUPPORT")
      .openapi({ example: "PLATFORM_EXTENDED_SUPPORT" }),
    cluster: clusterName.optional(),
    label: z
      .string()
      .max(130)
      .regex(/^[^=]+=.*$/, "must be key=value")
      .optional()
      .openapi({ example: "team=payments" }),
    reason: z.string().trim().min(3, "say why").max(2000),
    owner: shortText("Who answers for the waiver.", "jane@example.com"),
    expiresOn: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a day, YYYY-MM-DD")
      .openapi({ description: "The last day it applies.", example: "2027-03-31" }),
  })
  .openapi("WaiverRequest");

export const calendarQuery = z.strictObject({
  environment: filterValue.optional(),
  owner: filterValue.optional(),
  label: filterValue.optional(),
});

export const idParameter = positiveId("The id.");
