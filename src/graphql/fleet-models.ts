/**
 * What the fleet's GraphQL resolvers are handed (codegen.ts maps the SDL's
 * Fleet* types to these): the FleetService's answers as they are, so the
 * resolvers only rename, list labels and write dates, as REST's JSON does.
 */
import type { Waiver } from "../domain/fleet.js";
import type { FleetAlerts } from "../services/fleet-alerts.js";
import type { ClusterView, FleetService } from "../services/fleet.js";

export type FleetClusterModel = ClusterView;
export type FleetJudgementModel = NonNullable<ClusterView["judgement"]>;
export type FleetWaivedFindingModel = FleetJudgementModel["waived"][number];
/**
 * A waiver as listed, or as a judgement kept it: judgements are stored as JSON, so there the time it was made
 * is a string.
 */
export type FleetWaiverModel = Waiver & {
  readonly createdBy?: string | null;
  readonly createdAt?: Date | string;
};
export type FleetVerdictModel = Awaited<
  ReturnType<FleetService["clusterDetail"]>
>["history"][number];
export type FleetEventModel = Awaited<ReturnType<FleetService["events"]>>[number];
export type FleetSubscriptionModel = Awaited<ReturnType<FleetAlerts["subscriptions"]>>[number];
export type FleetDeliveryModel = Awaited<ReturnType<FleetAlerts["deliveries"]>>[number];
export type FleetDeliveryTargetModel = FleetDeliveryModel["subscription"];
