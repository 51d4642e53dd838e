/**
 * Where the fleet's events go: subscriptions (a signed webhook or a Slack
 * incoming webhook, with filters), and what became of each delivery, with
 * the dead-letter list and its replay. Which events a subscription selects
 * is the domain's rule (subscriptionWants); delivering is fleet-delivery.ts's.
 */
import { randomBytes } from "node:crypto";
import { ConflictError, NotFoundError } from "../core/errors.js";
import type { Database } from "../db/client.js";
import type { EnqueueDeliveries } from "../db/fleet-store.js";
import {
  createSubscription,
  deleteSubscription,
  readDeliveries,
  readDeliveryStatus,
  readSubscriptions,
  replayDelivery,
  type StoredSubscription,
} from "../db/fleet-subscription-store.js";
import type { SubscriptionFilters } from "../domain/fleet-events.js";

export class FleetAlerts {
  constructor(
    private readonly db: Database,
    private readonly enqueue: EnqueueDeliveries,
  ) {}

  /** A new subscription; a webhook without a secret gets one, shown in this answer only. */
  async subscribe(input: {
    kind: "webhook" | "slack";
    url: string;
    secret?: string | null;
    filters: SubscriptionFilters;
    createdBy: string | null;
  }) {
    const secret =
      input.kind === "slack" ? null : (input.secret ?? randomBytes(24).toString("base64url"));
    const stored = await createSubscription(this.db, {
      kind: input.kind,
      url: input.url,
      secret,
      filters: input.filters,
      createdBy: input.createdBy,
    });
    return { ...publicSubscription(stored), secret };
  }

  async subscriptions() {
    return (await readSubscriptions(this.db)).map(publicSubscription);
  }

  async unsubscribe(id: number): Promise<void> {
    if (!(await deleteSubscription(this.db, id)))
      throw new NotFoundError(`no subscription has id ${id}`);
  }

  deliveries(query: { status?: string; eventId?: number; limit: number }) {
    return readDeliveries(this.db, query);
  }

  async replay(id: number): Promise<void> {
    const status = await readDeliveryStatus(this.db, id);
    if (status === undefined) throw new NotFoundError(`no delivery has id ${id}`);
    if (!(await replayDelivery(this.db, id, this.enqueue)))
      throw new ConflictError(
        `delivery ${id} is ${status}, not DEAD: only a dead delivery is replayed (a pending one is queued, a delivered one is not sent twice)`,
      );
  }
}

/** A subscription as it is listed: the secret never leaves the service after its creation. */
function publicSubscription(subscription: StoredSubscription) {
  const { secret, ...rest } = subscription;
  return { ...rest, signed: secret !== null };
}
