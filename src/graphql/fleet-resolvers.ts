/**
 * The fleet over GraphQL: clusters with their verdicts, deadlines, plans and
 * events, subscriptions and their deliveries, waivers. Translation only, as
 * over REST (src/rest/fleet-routes.ts): arguments are turned into REST's
 * body and checked by the same zod schemas (src/http/schemas/fleet.ts) and
 * registrationOf, roles by the same requireEditor, so both faces refuse the
 * same input with the same words; the FleetService judges, stores and
 * delivers. Errors are mapped once by formatError (./errors.ts).
 */
import { InputError, NotFoundError, UnavailableError } from "../core/errors.js";
import { requireEditor } from "../http/auth.js";
import { clusterStateOf, registrationOf, waiverOf } from "../http/fleet-input.js";
import { parseInput } from "../http/input.js";
import {
  clusterListQuery,
  clusterName,
  deliveryListQuery,
  eventListQuery,
  idParameter,
  baselineCheckRequest,
  registerClusterRequest,
  subscribeRequest,
  waiverRequest,
} from "../http/schemas/fleet.js";
import type { FleetService } from "../services/fleet.js";
import { inDetail } from "./answer-detail.js";
import type { GraphQLContext } from "./context.js";
import type {
  FleetLabelInput,
  FleetSubscriptionFiltersInput,
  FleetSubscriptionKind,
  RegisterClusterInput,
  Resolvers,
} from "./generated/resolvers-types.js";
import { kubectlInputs } from "./resolvers.js";

function fleetOf(fleet: FleetService | undefined): FleetService {
  if (fleet === undefined)
    throw new UnavailableError(
      "this instance has no fleet: the fleet lives in the database, and it runs without one",
    );
  return fleet;
}

/** GraphQL's null is REST's absent field: zod's optional fields take undefined, not null. */
function given<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value != null)) as {
    [K in keyof T]?: Exclude<T[K], null>;
  };
}

/** A list of labels as REST's object of them; a key given twice would lose one value unseen, so it is refused. */
function labelsOf(
  list: readonly FleetLabelInput[] | null | undefined,
  field: string,
): Record<string, string> | undefined {
  if (list == null) return undefined;
  const labels: Record<string, string> = {};
  for (const { key, value } of list) {
    if (Object.hasOwn(labels, key))
      throw new InputError(
        `${field}: label key "${key}" is given twice; give each key once`,
        field,
      );
    labels[key] = value;
  }
  return labels;
}

const labelList = (labels: Readonly<Record<string, string>> | undefined) =>
  Object.entries(labels ?? {}).map(([key, value]) => ({ key, value }));

/** The registration as REST's body: kubectl's outputs under REST's names, text or JSON as kubectl printed them. */
function registrationBody(input: RegisterClusterInput): unknown {
  const { labels, kubectl, ...rest } = input;
  const outputs = kubectl == null ? {} : kubectlInputs(kubectl);
  return given({ ...rest, ...outputs, labels: labelsOf(labels, "labels") });
}

function subscriptionBody(input: {
  kind: FleetSubscriptionKind;
  url: string;
  secret?: string | null;
  filters?: FleetSubscriptionFiltersInput | null;
}): unknown {
  const filters =
    input.filters == null
      ? undefined
      : given({ ...input.filters, labels: labelsOf(input.filters.labels, "filters.labels") });
  return given({ ...input, kind: input.kind.toLowerCase(), filters });
}

const iso = (value: Date | string | null | undefined): string | null =>
  value == null ? null : value instanceof Date ? value.toISOString() : value;

const kindOf = (kind: string) => kind.toUpperCase() as FleetSubscriptionKind;

/** A cluster's detail (plan, history, snapshots), read once per request however many of its fields are asked. */
const details = new WeakMap<
  GraphQLContext,
  Map<string, ReturnType<FleetService["clusterDetail"]>>
>();

function detailOf(
  context: GraphQLContext,
  name: string,
): ReturnType<FleetService["clusterDetail"]> {
  let read = details.get(context);
  if (read === undefined) {
    read = new Map<string, ReturnType<FleetService["clusterDetail"]>>();
    details.set(context, read);
  }
  let detail = read.get(name);
  if (detail === undefined) read.set(name, (detail = fleetOf(context.fleet).clusterDetail(name)));
  return detail;
}

export const fleetResolvers: Resolvers = {
  Query: {
    fleetClusters: (_parent, args, { fleet }) =>
      fleetOf(fleet).list(parseInput(clusterListQuery, given(args), "arguments")),
    fleetCluster: async (_parent, { name }, { fleet }) => {
      try {
        return await fleetOf(fleet).cluster(parseInput(clusterName, name, "name"));
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    },
    fleetEvents: (_parent, args, { fleet }) =>
      fleetOf(fleet).events(parseInput(eventListQuery, given(args), "arguments")),
    fleetSubscriptions: (_parent, _args, { fleet, principal }) => {
      const alerts = fleetOf(fleet).alerts;
      requireEditor(principal, "listing subscriptions");
      return alerts.subscriptions();
    },
    fleetDeliveries: (_parent, args, { fleet, principal }) => {
      const alerts = fleetOf(fleet).alerts;
      const { event, ...rest } = parseInput(deliveryListQuery, given(args), "arguments");
      requireEditor(principal, "reading deliveries");
      return alerts.deliveries({ ...rest, eventId: event });
    },
    fleetWaivers: (_parent, _args, { fleet }) => fleetOf(fleet).waivers(),
    fleetBaselineCheck: async (_parent, { name, state, baseline }, { fleet }) => {
      const { kubectl, ...rest } = state;
      const body = parseInput(
        baselineCheckRequest,
        given({ ...rest, ...(kubectl == null ? {} : kubectlInputs(kubectl)), baseline }),
        "state",
      );
      const answer = await fleetOf(fleet).baselineCheck(
        parseInput(clusterName, name, "name"),
        clusterStateOf(body).state,
        body.baseline,
      );
      return {
        ...answer,
        added: [...answer.added],
        resolved: [...answer.resolved],
        baselineSnapshot: String(answer.baseline.snapshot),
        baselineTakenAt: answer.baseline.takenAt,
      };
    },
  },
  Mutation: {
    registerCluster: (_parent, { input }, { fleet, principal }) => {
      const fleeting = fleetOf(fleet);
      const body = parseInput(registerClusterRequest, registrationBody(input), "input");
      requireEditor(principal, "registering a cluster");
      return fleeting.register(registrationOf(body));
    },
    removeCluster: async (_parent, { name }, { fleet, principal }) => {
      const fleeting = fleetOf(fleet);
      const checked = parseInput(clusterName, name, "name");
      requireEditor(principal, "removing a cluster");
      await fleeting.remove(checked);
      return true;
    },
    subscribeFleet: async (_parent, { input }, { fleet, principal }) => {
      const alerts = fleetOf(fleet).alerts;
      const body = parseInput(subscribeRequest, subscriptionBody(input), "input");
      const createdBy = requireEditor(principal, "subscribing to the fleet's events");
      const { secret, ...subscription } = await alerts.subscribe({ ...body, createdBy });
      return { subscription, secret };
    },
    unsubscribeFleet: async (_parent, { id }, { fleet, principal }) => {
      const alerts = fleetOf(fleet).alerts;
      const checked = parseInput(idParameter, id, "id");
      requireEditor(principal, "removing a subscription");
      await alerts.unsubscribe(checked);
      return true;
    },
    replayDelivery: async (_parent, { id }, { fleet, principal }) => {
      const alerts = fleetOf(fleet).alerts;
      const checked = parseInput(idParameter, id, "id");
      requireEditor(principal, "replaying a delivery");
      await alerts.replay(checked);
      return { id: String(checked), status: "PENDING" };
    },
    waiveFinding: (_parent, { input }, { fleet, principal }) => {
      const fleeting = fleetOf(fleet);
      const body = parseInput(waiverRequest, given(input), "input");
      return fleeting.waive(waiverOf(body, requireEditor(principal, "waiving a finding")));
    },
    removeWaiver: async (_parent, { id }, { fleet, principal }) => {
      const fleeting = fleetOf(fleet);
      const checked = parseInput(idParameter, id, "id");
      requireEditor(principal, "removing a waiver");
      await fleeting.unwaive(checked);
      return true;
    },
  },
  FleetCluster: {
    labels: (cluster) => labelList(cluster.labels),
    plan: async (cluster, { detail }, context) => {
      const { plan } = await detailOf(context, cluster.name);
      return plan === null ? null : inDetail(plan, detail);
    },
    history: async (cluster, _args, context) => (await detailOf(context, cluster.name)).history,
    snapshots: async (cluster, _args, context) =>
      (await detailOf(context, cluster.name)).snapshots.map((row) => ({
        ...row,
        id: String(row.id),
      })),
    events: (cluster, { limit }, { fleet }) =>
      fleetOf(fleet).events(
        parseInput(eventListQuery, given({ cluster: cluster.name, limit }), "arguments"),
      ),
  },
  FleetJudgement: {
    blocking: (judgement) => [...judgement.blocking],
    waived: (judgement) => [...judgement.waived],
    expiredWaivers: (judgement) => [...judgement.expiredWaivers],
  },
  FleetUpgradeOutlook: {
    blocking: (outlook) => [...outlook.blocking],
  },
  FleetWaiver: {
    cluster: (waiver) => waiver.clusterName,
    createdBy: (waiver) => waiver.createdBy ?? null,
    // A waiver a judgement kept has the time it was made as JSON wrote it.
    createdAt: (waiver) => iso(waiver.createdAt),
  },
  FleetEvent: {
    occurredAt: (event) => event.occurredAt.toISOString(),
  },
  FleetSubscription: {
    kind: (subscription) => kindOf(subscription.kind),
    createdAt: (subscription) => subscription.createdAt.toISOString(),
  },
  FleetSubscriptionFilters: {
    environments: (filters) => [...(filters.environments ?? [])],
    owners: (filters) => [...(filters.owners ?? [])],
    labels: (filters) => labelList(filters.labels),
    minSeverity: (filters) => filters.minSeverity ?? "INFO",
  },
  FleetDelivery: {
    status: (delivery) => delivery.status as "PENDING" | "DELIVERED" | "DEAD",
    lastAttemptAt: (delivery) => iso(delivery.lastAttemptAt),
    deliveredAt: (delivery) => iso(delivery.deliveredAt),
    createdAt: (delivery) => delivery.createdAt.toISOString(),
  },
  FleetDeliveryTarget: {
    kind: (target) => kindOf(target.kind),
  },
};
