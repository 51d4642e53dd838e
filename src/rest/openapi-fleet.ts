/**
 * The fleet's paths of the OpenAPI document (issue 39): clusters registered
 * and judged, the baseline check, events, subscriptions and their deliveries,
 * waivers and the calendar feed, and the webhook a subscription receives.
 * Requests are the zod schemas src/rest/fleet-routes.ts validates with;
 * answers are src/http/schemas/fleet-answers.ts's.
 */
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { errorResponse } from "../http/schemas/answers.js";
import {
  baselineCheckRequest,
  calendarQuery,
  clusterListQuery,
  clusterName,
  deliveryListQuery,
  eventListQuery,
  idParameter,
  registerClusterRequest,
  subscribeRequest,
  waiverRequest,
} from "../http/schemas/fleet.js";
import {
  FLEET_EVENT_KINDS,
  baselineAnswer,
  clusterDetail,
  clusterView,
  createdSubscription,
  fleetDelivery,
  fleetEvent,
  fleetSubscription,
  fleetWaiver,
  webhookBody,
} from "../http/schemas/fleet-answers.js";
import { z } from "../http/schemas/openapi-zod.js";
import { DELIVERY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../services/fleet-delivery.js";
import type { Security } from "./openapi-curation.js";
import { authErrors, errors, json, readErrors } from "./openapi-responses.js";

/** What a receiver needs to trust a delivery; said on the subscriptions and on the webhook itself. */
const SIGNATURE = `A webhook subscription's deliveries are signed: \`${TIMESTAMP_HEADER}\` is the Unix time in seconds of the attempt, \`${SIGNATURE_HEADER}\` is \`v1=\` followed by the hex HMAC-SHA256, keyed with the subscription's secret, of \`\${timestamp}.\${body}\` (the raw body bytes as received), and \`${DELIVERY_HEADER}\` is the delivery's id (the same on every retry of it, so a receiver can drop a repeat). A receiver recomputes the HMAC over the raw body, compares in constant time, and refuses a timestamp more than a few minutes from its clock (a replayed request). Slack subscriptions get a Slack message instead, unsigned (Slack's URL is the secret).`;

const DELIVERY = `A delivery is one event to one subscription: any answer but 2xx, a timeout (FLEET_DELIVERY_TIMEOUT_MS) or a refused connection is a failed attempt, retried FLEET_DELIVERY_RETRIES times with exponential backoff from FLEET_DELIVERY_RETRY_DELAY_SECONDS; after the last it is DEAD (the dead-letter list, GET /api/v1/deliveries?status=DEAD) until replayed.`;

const EVENT_KINDS = Object.entries(FLEET_EVENT_KINDS)
  .map(([kind, meaning]) => `- \`${kind}\`: ${meaning}`)
  .join("\n");

const named = z.object({ name: clusterName });
const byId = z.object({ id: idParameter });
const noCluster = {
  404: { description: "No cluster has this name", ...json(errorResponse) },
};
const removed = { 204: { description: "Removed" } };
const items = <T extends z.ZodType>(schema: T) => json(z.object({ items: z.array(schema) }));
const item = <T extends z.ZodType>(schema: T) => json(z.object({ item: schema }));

/** Clusters: registered (editor), listed, shown, removed (editor), and checked against a baseline. */
function registerClusters(registry: OpenAPIRegistry, secured: Security): void {
  registry.registerPath({
    method: "post",
    path: "/api/v1/clusters",
    summary: "Register a cluster, or submit a new state of one (editor)",
    description:
      "The state is judged before anything is stored: a state the service cannot read is refused (400, naming what to fix) and nothing is kept. A new state of a registered cluster is a new snapshot of it (200), and a changed judgement an event like any other; registering is the baseline (no event).",
    tags: ["fleet"],
    security: secured,
    request: { body: { required: true, ...json(registerClusterRequest) } },
    responses: {
      201: { description: "Registered", ...item(clusterView) },
      200: { description: "A new state of a registered cluster", ...item(clusterView) },
      ...errors,
      ...authErrors,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/clusters",
    summary:
      "Registered clusters with their verdicts, support end, days left and latest start, by environment in rollout order",
    tags: ["fleet"],
    request: { query: clusterListQuery },
    responses: {
      200: {
        description: "Clusters, and the day the days were counted on",
        ...json(
          z.object({
            items: z.array(clusterView),
            today: z.string().openapi({ description: "YYYY-MM-DD", example: "2026-12-06" }),
          }),
        ),
      },
      ...readErrors,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/clusters/{name}",
    summary:
      "One cluster with its plan to the newest minor, its verdicts over time, snapshots and events",
    tags: ["fleet"],
    request: { params: named },
    responses: {
      200: { description: "The cluster", ...item(clusterDetail) },
      ...readErrors,
      ...noCluster,
    },
  });
  registry.registerPath({
    method: "delete",
    path: "/api/v1/clusters/{name}",
    summary: "Remove a cluster with its snapshots, judgements and events (editor)",
    tags: ["fleet"],
    security: secured,
    request: { params: named },
    responses: { ...removed, ...readErrors, ...authErrors, ...noCluster },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/clusters/{name}/baseline-check",
    summary:
      "A new state compared with a snapshot of the cluster: only what is new (for CI); nothing is stored",
    description:
      "Both states are judged with today's knowledge on the same day, so a finding is added only because the cluster changed, never because the knowledge did. Open as the other checks are. The CLI's `kubecompat check --baseline NAME[@SNAPSHOT]` asks this.",
    tags: ["fleet"],
    request: { params: named, body: { required: true, ...json(baselineCheckRequest) } },
    responses: {
      200: { description: "What the new state adds and resolves", ...json(baselineAnswer) },
      ...errors,
      404: {
        description: "No cluster has this name, or it has no such snapshot",
        ...json(errorResponse),
      },
    },
  });
}

/** Events, subscriptions (editor) and their deliveries (editor), and the webhook itself. */
function registerAlerts(registry: OpenAPIRegistry, secured: Security): void {
  registry.registerPath({
    method: "get",
    path: "/api/v1/events",
    summary: "The fleet's events, newest first",
    description: `An event is raised when a cluster's judgement changes in a way a team must hear (a knowledge-base edit, a new state, the day moving on, a waiver); one judgement change raises at most one event of each kind. Kinds:\n${EVENT_KINDS}`,
    tags: ["fleet"],
    request: { query: eventListQuery },
    responses: { 200: { description: "Events", ...items(fleetEvent) }, ...readErrors },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/subscriptions",
    summary: "Subscribe a webhook or a Slack incoming webhook to the fleet's events (editor)",
    description: `Every event whose cluster and severity match the filters is delivered. ${SIGNATURE}\n\n${DELIVERY}\n\nEvent kinds:\n${EVENT_KINDS}`,
    tags: ["fleet"],
    security: secured,
    request: { body: { required: true, ...json(subscribeRequest) } },
    responses: {
      201: {
        description: "Subscribed; a webhook's secret is in this answer and no other",
        ...item(createdSubscription),
      },
      ...errors,
      ...authErrors,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/subscriptions",
    summary: "Subscriptions, without their secrets (editor)",
    description: SIGNATURE,
    tags: ["fleet"],
    security: secured,
    responses: {
      200: { description: "Subscriptions", ...items(fleetSubscription) },
      ...readErrors,
      ...authErrors,
    },
  });
  registry.registerPath({
    method: "delete",
    path: "/api/v1/subscriptions/{id}",
    summary: "Unsubscribe (editor); its pending deliveries go with it",
    tags: ["fleet"],
    security: secured,
    request: { params: byId },
    responses: {
      ...removed,
      ...readErrors,
      ...authErrors,
      404: { description: "No subscription has this id", ...json(errorResponse) },
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/deliveries",
    summary: "Deliveries, newest first; ?status=DEAD is the dead-letter list (editor)",
    description: DELIVERY,
    tags: ["fleet"],
    security: secured,
    request: { query: deliveryListQuery },
    responses: {
      200: { description: "Deliveries with their events", ...items(fleetDelivery) },
      ...readErrors,
      ...authErrors,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/deliveries/{id}/replay",
    summary: "Put a dead delivery back on the queue (editor)",
    tags: ["fleet"],
    security: secured,
    request: { params: byId },
    responses: {
      202: {
        description: "Queued again",
        ...json(z.object({ id: z.number().int(), status: z.literal("PENDING") })),
      },
      ...readErrors,
      ...authErrors,
      404: { description: "No delivery has this id", ...json(errorResponse) },
      409: {
        description:
          "The delivery is not DEAD: a pending one is queued already, a delivered one is not sent twice",
        ...json(errorResponse),
      },
    },
  });
}

/** What a webhook subscription receives, under the document's webhooks. */
function registerDelivery(registry: OpenAPIRegistry): void {
  registry.registerWebhook({
    method: "post",
    path: "fleetEvent",
    summary: "An event delivered to a webhook subscription",
    description: `${SIGNATURE}\n\n${DELIVERY}`,
    tags: ["fleet"],
    request: {
      headers: z.object({
        [SIGNATURE_HEADER]: z.string().openapi({
          description: "v1= and the hex HMAC-SHA256 of `${timestamp}.${body}` with the secret.",
          example: "v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
        }),
        [TIMESTAMP_HEADER]: z
          .string()
          .openapi({ description: "Unix seconds of the attempt.", example: "1796549400" }),
        [DELIVERY_HEADER]: z
          .string()
          .openapi({ description: "The delivery's id, the same on every retry.", example: "42" }),
      }),
      body: { required: true, ...json(webhookBody) },
    },
    responses: {
      200: { description: "Any 2xx: delivered" },
      500: { description: "Anything else, or no answer in time: retried, then DEAD" },
    },
  });
}

/** Waivers (editor to create and remove) and the deadlines as an iCalendar feed. */
function registerWaiversAndCalendar(registry: OpenAPIRegistry, secured: Security): void {
  registry.registerPath({
    method: "post",
    path: "/api/v1/waivers",
    summary: "Waive a finding for a cluster or a label until a day (editor)",
    description:
      "A waiver holds a finding code out of the verdict of the cluster it names (or of every cluster with the label) until expiresOn, its last day; the finding is still listed under waived. The fleet is judged again before the answer; an expired waiver raises WAIVER_EXPIRED.",
    tags: ["fleet"],
    security: secured,
    request: { body: { required: true, ...json(waiverRequest) } },
    responses: {
      201: { description: "Waived", ...item(fleetWaiver) },
      ...errors,
      ...authErrors,
      ...noCluster,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/waivers",
    summary: "Waivers, expired ones too",
    tags: ["fleet"],
    responses: { 200: { description: "Waivers", ...items(fleetWaiver) }, ...readErrors },
  });
  registry.registerPath({
    method: "delete",
    path: "/api/v1/waivers/{id}",
    summary: "Remove a waiver (editor); the fleet is judged again",
    tags: ["fleet"],
    security: secured,
    request: { params: byId },
    responses: {
      ...removed,
      ...readErrors,
      ...authErrors,
      404: { description: "No waiver has this id", ...json(errorResponse) },
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/calendar.ics",
    summary:
      "The fleet's deadlines as an iCalendar feed: each cluster's last day of standard support and latest start",
    description:
      "Subscribe to it from a calendar application; narrow it to a team with ?owner= (or ?environment=, ?label=key=value).",
    tags: ["fleet"],
    request: { query: calendarQuery },
    responses: {
      200: {
        description: "iCalendar (RFC 5545)",
        content: { "text/calendar": { schema: z.string() } },
      },
      ...readErrors,
    },
  });
}

export function registerFleet(registry: OpenAPIRegistry, secured: Security): void {
  registerClusters(registry, secured);
  registerAlerts(registry, secured);
  registerDelivery(registry);
  registerWaiversAndCalendar(registry, secured);
}
