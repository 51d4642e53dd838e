/**
 * Delivers one event to one subscription, as the delivery queue asks
 * (src/db/fleet-outbox.ts): a webhook gets the event as JSON, signed with
 * HMAC-SHA256 over "timestamp.body" (the scheme of Slack's and Stripe's
 * signatures, so receivers can refuse replays older than a few minutes); a
 * Slack incoming webhook gets the event as a message. Any answer but 2xx,
 * a timeout or a refused connection is a failed attempt: retried with
 * backoff, and on the last attempt the delivery is recorded as dead.
 */
import { createHmac } from "node:crypto";
import type { Logger } from "../core/logger.js";
import type { Database } from "../db/client.js";
import type { Attempt } from "../db/fleet-outbox.js";
import type { StoredEvent } from "../db/fleet-store.js";
import { readDeliveryWork, recordAttempt } from "../db/fleet-subscription-store.js";

export const SIGNATURE_HEADER = "x-kubecompat-signature";
export const TIMESTAMP_HEADER = "x-kubecompat-timestamp";
export const DELIVERY_HEADER = "x-kubecompat-delivery";

/** `v1=` and the hex HMAC-SHA256 of `${timestamp}.${body}` with the subscription's secret. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** The JSON a webhook receives. */
export function webhookBody(event: StoredEvent, deliveryId: number): string {
  return JSON.stringify({
    delivery: deliveryId,
    event: {
      id: event.id,
      cluster: event.cluster,
      kind: event.kind,
      severity: event.severity,
      summary: event.summary,
      detail: event.detail,
      kbRevision: event.kbRevision,
      asOf: event.asOf,
      occurredAt: event.occurredAt.toISOString(),
    },
  });
}

const SLACK_ICON: Readonly<Record<string, string>> = {
  ERROR: ":red_circle:",
  WARNING: ":large_yellow_circle:",
  INFO: ":large_blue_circle:",
};

/** A Slack incoming webhook's message: the summary, and the findings that caused it with their sources. */
export function slackBody(event: StoredEvent): string {
  const detail = event.detail as {
    added?: ReadonlyArray<{ code: string; message: string; sourceUrl: string | null }>;
  };
  const lines = (detail.added ?? [])
    .slice(0, 5)
    .map(
      (finding) =>
        `• ${finding.code}: ${finding.message}${finding.sourceUrl === null ? "" : ` (<${finding.sourceUrl}|source>)`}`,
    );
  return JSON.stringify({
    text: [`${SLACK_ICON[event.severity] ?? ""} ${event.summary}`.trim(), ...lines].join("\n"),
  });
}

export class FleetDelivery {
  constructor(
    private readonly db: Database,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    /** Unix seconds (tests move it). */
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** One attempt; throws to have the queue retry it, returns once delivered or dead. */
  readonly attempt = async (job: Attempt): Promise<void> => {
    const work = await readDeliveryWork(this.db, job.deliveryId);
    // Its event or subscription was deleted since: nothing left to deliver.
    if (work === undefined) return;
    // Delivered already (a job retried after its worker stopped mid-way): never sent twice by us.
    if (work.delivery.status === "DELIVERED") return;
    const { subscription, event } = work;
    const body =
      subscription.kind === "slack" ? slackBody(event) : webhookBody(event, work.delivery.id);
    const timestamp = this.now();
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "kubecompat-fleet",
      [DELIVERY_HEADER]: String(work.delivery.id),
    };
    if (subscription.secret !== null) {
      headers[TIMESTAMP_HEADER] = String(timestamp);
      headers[SIGNATURE_HEADER] = signature(subscription.secret, timestamp, body);
    }
    let failure: string | undefined;
    try {
      const response = await fetch(subscription.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status < 200 || response.status > 299)
        failure = `the receiver answered ${response.status}`;
    } catch (error) {
      failure =
        (error as Error).name === "TimeoutError"
          ? `no answer within ${this.timeoutMs} ms`
          : `could not reach the receiver: ${(error as { cause?: Error }).cause?.message ?? (error as Error).message}`;
    }
    if (failure === undefined) {
      await recordAttempt(this.db, job.deliveryId, { delivered: true });
      return;
    }
    await recordAttempt(this.db, job.deliveryId, {
      delivered: false,
      error: `attempt ${job.number}: ${failure}`,
      dead: job.last,
    });
    if (job.last) {
      this.logger.warn(
        { delivery: job.deliveryId, subscription: subscription.id, error: failure },
        "a fleet event could not be delivered: it is on the dead-letter list (GET /api/v1/deliveries?status=DEAD)",
      );
      return;
    }
    throw new Error(failure);
  };
}
