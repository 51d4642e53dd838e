/**
 * The fleet's answers on the wire: a cluster as lists show it (its judgement,
 * support end, latest start and days left), its detail, events, subscriptions
 * (the secret only in the answer that creates one), deliveries, waivers and
 * the baseline check, and the JSON a webhook receives. Documented here, not
 * validated: the FleetService is their only author; test/openapi-fleet.test.ts
 * holds real answers to these schemas.
 */
import { upgradePlan } from "./answers.js";
import { verdict, severity } from "./findings.js";
import { subscriptionFilters } from "./fleet.js";
import { z } from "./openapi-zod.js";

/**
 * A component or null. Not `.nullable()`: zod-to-openapi (9.1) writes a nullable $ref as the bare $ref or as
 * `allOf: [$ref, {type: [object, null]}]`, both of which refuse null; a union is written as `anyOf: [$ref, null]`.
 */
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

const day = (description: string) =>
  z.string().openapi({ description: `${description} (YYYY-MM-DD).`, example: "2027-03-26" });
const instant = z
  .string()
  .openapi({ description: "ISO 8601, UTC.", example: "2026-12-06T09:30:00.000Z" });
const nullableDay = (description: string) =>
  z
    .string()
    .nullable()
    .openapi({ description: `${description} (YYYY-MM-DD).` });

/** A finding as the fleet keeps it: what, where, and the record and source behind it. */
export const findingBrief = z
  .object({
    code: z.string().openapi({
      description: "A finding code (docs/finding-codes.md, GET /api/v1/finding-codes).",
      example: "PLATFORM_END_OF_SUPPORT",
    }),
    severity,
    component: z.string().nullable(),
    instance: z.string().nullable(),
    message: z.string(),
    sourceUrl: z.string().nullable(),
    ruleId: z.string().nullable(),
  })
  .openapi("FleetFinding");

export const fleetWaiver = z
  .object({
    id: z.number().int(),
    code: z.string(),
    clusterName: z
      .string()
      .nullable()
      .openapi({ description: "The cluster it holds for, or null." }),
    label: z
      .string()
      .nullable()
      .openapi({ description: "key=value: every cluster with this label; or null." }),
    reason: z.string(),
    owner: z.string(),
    expiresOn: day("The last day it applies"),
    createdBy: z.string().nullable().openapi({ description: "The token's name." }),
    createdAt: instant,
  })
  .openapi("FleetWaiver");

const supportEnd = z
  .object({
    minor: z.string().openapi({ example: "1.32" }),
    calendar: z.string().openapi({
      description:
        "The calendar that governs the cluster: its platform's (eks, gke, aks) or upstream.",
    }),
    endOfStandardSupport: nullableDay(
      "As the calendar states it: a platform's first day out of standard support, upstream's last day in it",
    ),
    endOfSupport: nullableDay(
      "When every support ends (a platform's extended support, upstream's end of life); null when the calendar does not say",
    ),
    precision: z.enum(["DAY", "MONTH"]).openapi({
      description: "MONTH when the platform gives only the month.",
    }),
    sourceUrl: z.string().nullable(),
    note: z
      .string()
      .nullable()
      .openapi({ description: "Why upstream's calendar was read for a cluster on a platform." }),
  })
  .openapi("FleetSupportEnd");

const startBy = z
  .object({
    deadline: day("The last day of standard support the rollout works back from"),
    hops: z.number().int().openapi({ description: "Minors to climb, one at a time." }),
    leadDays: z.number().int().openapi({
      description:
        "Days from the first environment starting hop 1 to this cluster's environment taking the last hop (FLEET_ENVIRONMENTS' soak days).",
    }),
    latestStart: day("The latest day the fleet's rollout must start"),
    daysToStart: z
      .number()
      .int()
      .openapi({ description: "From the judgement's day to latestStart; negative once past." }),
    overdue: z.boolean(),
    explanation: z.string().openapi({ description: "One sentence for a person." }),
  })
  .openapi("FleetStartBy");

const upgradeOutlook = z
  .object({
    targetVersion: z
      .string()
      .openapi({ description: "The newest minor released on the cluster's calendar that day." }),
    hops: z.number().int().openapi({ description: "Control-plane minors to cross." }),
    status: orNull(verdict),
    blocking: z.array(findingBrief),
    problem: z.string().nullable().openapi({ description: "Why no plan could be made." }),
  })
  .openapi("FleetUpgradeOutlook", {
    description:
      "The upgrade to the newest minor on the cluster's calendar: status is the plan's verdict, null with no hop; problem says why no plan could be made.",
  });

export const clusterJudgement = z
  .object({
    kbRevision: z.number().int(),
    asOf: day("The day it was judged on"),
    judgedAt: instant,
    status: verdict.openapi({ description: "The verdict with waived findings left out." }),
    judgedStatus: verdict.openapi({
      description: "The verdict as validate gives it, waivers aside.",
    }),
    blocking: z.array(findingBrief).openapi({ description: "The ERRORs not waived." }),
    warnings: z.number().int().openapi({ description: "WARNINGs not waived, counted." }),
    waived: z.array(z.object({ finding: findingBrief, waiver: fleetWaiver })),
    expiredWaivers: z.array(fleetWaiver).openapi({
      description: "Waivers that matched a finding of the cluster but have expired.",
    }),
    controlPlane: z.string().nullable().openapi({
      description: "The oldest kube-apiserver's minor: the one whose support ends first.",
    }),
    platform: z.string().nullable(),
    support: orNull(supportEnd),
    deadline: nullableDay(
      "The last day in standard support (on a platform, the day before its calendar's date)",
    ),
    warnedAt: z.number().int().nullable().openapi({
      description:
        "The smallest warning threshold reached (days before the deadline, FLEET_WARN_DAYS); -1 once the deadline is past; null before any.",
    }),
    upgrade: orNull(upgradeOutlook),
    startBy: orNull(startBy),
    problem: z.string().nullable().openapi({
      description:
        "Why the state could not be judged at this revision (then NOT_JUDGED); the state is kept, never dropped.",
    }),
  })
  .openapi("FleetJudgement");

export const clusterView = z
  .object({
    name: z.string(),
    environment: z.string(),
    owner: z.string(),
    labels: z.record(z.string(), z.string()),
    registeredAt: instant,
    snapshot: z
      .object({
        id: z.number().int(),
        source: z.string().openapi({ description: "components, kubectl or bundle." }),
        takenAt: instant,
      })
      .nullable()
      .openapi({ description: "The newest state submitted." }),
    judgement: orNull(clusterJudgement),
    daysLeft: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Days from today to the deadline, counted when read." }),
    daysToStart: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Days from today to the latest start, counted when read." }),
  })
  .openapi("FleetCluster");

/** Why a judgement was made again: carried by every event's detail. */
const judgementCause = z
  .object({
    kind: z.enum(["knowledge", "snapshot", "calendar", "waiver"]),
    kbRevision: z.object({ from: z.number().int(), to: z.number().int() }),
    asOf: z.object({ from: z.string(), to: z.string() }),
    knowledgeChanges: z
      .array(
        z.object({
          revision: z.number().int().nullable(),
          entity: z.string().nullable(),
          key: z.string().nullable(),
          action: z.string(),
          actor: z.string(),
        }),
      )
      .openapi({
        description:
          "The knowledge-base edits between the two revisions (audit trail), newest first.",
      }),
  })
  .openapi("FleetEventCause");

const eventCommon = {
  cluster: z.string(),
  environment: z.string(),
  owner: z.string(),
  cause: judgementCause,
};

const eventFields = {
  id: z.number().int(),
  cluster: z.string(),
  severity,
  summary: z.string().openapi({ description: "One line for a person (and Slack)." }),
  kbRevision: z.number().int(),
  asOf: day("The day of the judgement that raised it"),
  occurredAt: instant,
};

export const FLEET_EVENT_KINDS = {
  VERDICT_CHANGED:
    "the cluster's verdict changed (detail: from, to, the blocking findings added and resolved, the problem if NOT_JUDGED); severity follows the new verdict",
  BLOCKING_FINDING:
    "new blocking findings under the same verdict (detail: status, added, resolved); always ERROR",
  DEADLINE_NEAR:
    "a FLEET_WARN_DAYS threshold before the end of standard support was crossed, or the day passed (detail: threshold, daysLeft, support, startBy, dayCrossed); ERROR once past",
  WAIVER_EXPIRED: "waivers that held findings of the cluster expired (detail: waivers); WARNING",
} as const;

const eventDetails = {
  VERDICT_CHANGED: z
    .object({
      ...eventCommon,
      from: verdict,
      to: verdict,
      added: z.array(findingBrief),
      resolved: z.array(findingBrief),
      problem: z.string().nullable(),
    })
    .openapi("FleetVerdictChanged"),
  BLOCKING_FINDING: z
    .object({
      ...eventCommon,
      status: verdict,
      added: z.array(findingBrief),
      resolved: z.array(findingBrief),
    })
    .openapi("FleetBlockingFinding"),
  DEADLINE_NEAR: z
    .object({
      ...eventCommon,
      threshold: z.number().int().openapi({ description: "The threshold crossed; -1: past." }),
      daysLeft: z.number().int(),
      support: supportEnd,
      startBy: orNull(startBy),
      dayCrossed: z.object({ from: z.string(), to: z.string() }),
    })
    .openapi("FleetDeadlineNear"),
  WAIVER_EXPIRED: z
    .object({ ...eventCommon, waivers: z.array(fleetWaiver) })
    .openapi("FleetWaiverExpired"),
};

const eventKinds = `What a team must hear when a cluster's judgement changed, by kind:\n${Object.entries(
  FLEET_EVENT_KINDS,
)
  .map(([kind, meaning]) => `- \`${kind}\`: ${meaning}`)
  .join("\n")}`;

/** An event with the fields given, one variant per kind: its detail's shape follows the kind. */
function eventOf<Fields extends z.ZodRawShape>(fields: Fields) {
  return z.discriminatedUnion("kind", [
    z.object({
      ...fields,
      kind: z.literal("VERDICT_CHANGED"),
      detail: eventDetails.VERDICT_CHANGED,
    }),
    z.object({
      ...fields,
      kind: z.literal("BLOCKING_FINDING"),
      detail: eventDetails.BLOCKING_FINDING,
    }),
    z.object({ ...fields, kind: z.literal("DEADLINE_NEAR"), detail: eventDetails.DEADLINE_NEAR }),
    z.object({ ...fields, kind: z.literal("WAIVER_EXPIRED"), detail: eventDetails.WAIVER_EXPIRED }),
  ]);
}

/** An event as GET /api/v1/events lists it. */
export const fleetEvent = eventOf({ ...eventFields, clusterId: z.number().int() }).openapi(
  "FleetEvent",
  { description: eventKinds },
);

export const clusterDetail = clusterView
  .extend({
    plan: orNull(upgradePlan),
    history: z
      .array(
        z.object({
          status: verdict,
          kbRevision: z.number().int(),
          asOf: z.string(),
          judgedAt: instant,
          blocking: z.array(z.string()).openapi({ description: "The blocking findings' codes." }),
        }),
      )
      .openapi({ description: "Its verdicts over time, newest first (at most 50)." }),
    snapshots: z
      .array(z.object({ id: z.number().int(), source: z.string(), takenAt: instant }))
      .openapi({ description: "The states submitted, newest first (at most 50)." }),
    events: z.array(fleetEvent).openapi({ description: "Newest first (at most 50)." }),
  })
  .openapi("FleetClusterDetail", {
    description:
      "A cluster as listed, with its plan to the newest minor on its calendar (as POST /api/v1/upgrade-plan answers it; null when no hop is needed), its verdicts over time, its snapshots and events.",
  });

const subscriptionFields = {
  id: z.number().int(),
  kind: z.enum(["webhook", "slack"]),
  url: z.string(),
  filters: subscriptionFilters.unwrap(),
  createdBy: z.string().nullable(),
  createdAt: instant,
  signed: z.boolean().openapi({ description: "Whether deliveries carry a signature." }),
};

/** A subscription as listed: its secret never leaves the service after the answer that created it. */
export const fleetSubscription = z.object(subscriptionFields).openapi("FleetSubscription");

export const createdSubscription = z
  .object({
    ...subscriptionFields,
    secret: z.string().nullable().openapi({
      description:
        "The webhook's signing secret (the one sent, or one made): shown in this answer only. Null for slack.",
    }),
  })
  .openapi("FleetSubscriptionCreated");

export const fleetDelivery = z
  .object({
    id: z.number().int(),
    eventId: z.number().int(),
    subscriptionId: z.number().int(),
    status: z.enum(["PENDING", "DELIVERED", "DEAD"]).openapi({
      description: "DEAD: every attempt failed (the dead-letter list); replay puts it back.",
    }),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    lastAttemptAt: instant.nullable(),
    deliveredAt: instant.nullable(),
    createdAt: instant,
    event: fleetEvent,
    subscription: z.object({
      id: z.number().int(),
      kind: z.enum(["webhook", "slack"]),
      url: z.string(),
    }),
  })
  .openapi("FleetDelivery");

export const baselineAnswer = z
  .object({
    cluster: z.string(),
    baseline: z.object({ snapshot: z.number().int(), takenAt: instant, source: z.string() }),
    kbRevision: z.number().int(),
    asOf: z.string(),
    status: verdict.openapi({ description: "The new state's verdict." }),
    baselineStatus: verdict.openapi({
      description: "The baseline's, judged with today's knowledge.",
    }),
    added: z.array(findingBrief).openapi({
      description:
        "ERRORs and WARNINGs the new state has and the baseline had not: what CI fails on.",
    }),
    resolved: z.array(findingBrief),
    unchanged: z.number().int().openapi({ description: "Findings in both, counted." }),
  })
  .openapi("FleetBaselineAnswer");

/** The JSON POSTed to a webhook subscription. */
export const webhookBody = z
  .object({
    delivery: z
      .number()
      .int()
      .openapi({ description: "The delivery's id (also x-kubecompat-delivery)." }),
    event: eventOf(eventFields).openapi("FleetWebhookEvent", {
      description: `The event as GET /api/v1/events lists it, without clusterId. ${eventKinds}`,
    }),
  })
  .openapi("FleetWebhookBody");
