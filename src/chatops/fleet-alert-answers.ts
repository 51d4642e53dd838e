/**
 * Being told in time, in chat: a reviewer's subscriptions (a signed webhook
 * or a Slack incoming webhook, with filters), their list and removal, what
 * became of each delivery (the dead-letter list) and a dead one's replay.
 * Translation only, as REST's routes are: the input is checked by REST's zod
 * schemas (subscribeRequest, deliveryListQuery), so a bad URL or severity
 * gets REST's message, and FleetAlerts stores and replays. Who may is
 * fleet-answers.ts's check (chat-asker.ts's rule).
 *
 * Two things here are secrets: a webhook's signing secret, shown once in the
 * reply to the subscribe (which only the asker sees: ANSWERED_TO_ASKER_ONLY),
 * and a Slack incoming webhook's URL, which lets anyone post to the channel.
 * So lists name a receiver by its host only.
 */
import { parseInput } from "../http/input.js";
import { deliveryListQuery, subscribeRequest } from "../http/schemas/fleet.js";
import type { SubscriptionFilters } from "../domain/fleet-events.js";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../services/fleet-delivery.js";
import type { FleetService } from "../services/fleet.js";
import type { FleetCommand } from "./chat-command.js";
import { firstOf, type ChatReplyDoc, type Line, type ReplySection } from "./reply.js";

/** Deliveries a reply shows, newest first; REST lists up to 500. */
const DELIVERIES_SHOWN = 15;

const STATUS_EMOJI: Readonly<Record<string, string>> = {
  DELIVERED: "✅",
  PENDING: "⏳",
  DEAD: "💀",
};

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`;

/**
 * Where a receiver is, without what makes its URL a secret: the host and port, never the path (a Slack
 * webhook's token), the query or credentials before an `@`.
 */
export function receiverHost(url: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\s]*)/i.exec(url)?.[1] ?? "";
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  return host === "" ? "an unreadable URL" : host;
}

/** `environments prod, staging · owners team-pay · labels team=payments · at least WARNING`. */
function filterWords(filters: SubscriptionFilters): string {
  const words = [
    ...(filters.environments?.length ? [`environments ${filters.environments.join(", ")}`] : []),
    ...(filters.owners?.length ? [`owners ${filters.owners.join(", ")}`] : []),
    ...(filters.labels !== undefined && Object.keys(filters.labels).length > 0
      ? [
          `labels ${Object.entries(filters.labels)
            .map(([key, value]) => `${key}=${value}`)
            .join(",")}`,
        ]
      : []),
    ...(filters.minSeverity === undefined ? [] : [`at least ${filters.minSeverity}`]),
  ];
  return words.length === 0 ? "every event of the fleet" : words.join(" · ");
}

const kindWords = (kind: string): string => (kind === "slack" ? "Slack" : "webhook");

export async function subscribeDoc(
  fleet: FleetService,
  command: Extract<FleetCommand, { kind: "fleet-subscribe" }>,
  createdBy: string,
): Promise<ChatReplyDoc> {
  const body = parseInput(
    subscribeRequest,
    {
      kind: command.slack ? "slack" : "webhook",
      url: command.url,
      filters: {
        ...(command.environments === undefined ? {} : { environments: command.environments }),
        ...(command.owners === undefined ? {} : { owners: command.owners }),
        ...(command.labels === undefined ? {} : { labels: command.labels }),
        ...(command.minSeverity === undefined ? {} : { minSeverity: command.minSeverity }),
      },
    },
    "body",
  );
  const subscription = await fleet.alerts.subscribe({ ...body, createdBy });
  const lines: Line[] = [[`It is told of ${filterWords(subscription.filters)}.`]];
  if (subscription.secret !== null)
    lines.push(
      [{ bold: "Signing secret" }, " (shown this once): ", { code: subscription.secret }],
      [
        "Each delivery carries ",
        { code: `${SIGNATURE_HEADER}: v1=…` },
        `, the hex HMAC-SHA256 of "timestamp.body" under the secret, with the timestamp in `,
        { code: TIMESTAMP_HEADER },
        ": refuse one whose signature differs or whose timestamp is minutes old.",
      ],
    );
  lines.push([
    "What was sent: ",
    { code: "fleet deliveries" },
    " · undo: ",
    { code: `fleet unsubscribe ${subscription.id}` },
  ]);
  return {
    headline: `🔔 Subscription #${subscription.id}: ${kindWords(subscription.kind)} to ${receiverHost(subscription.url)}`,
    sections: [{ style: "plain", lines }],
    context: [
      subscription.secret === null
        ? "only you see this reply, even with --public: a Slack webhook's URL lets anyone post to its channel"
        : "only you see this reply, even with --public: it holds the signing secret",
      `by ${createdBy}`,
    ],
  };
}

export async function subscriptionsDoc(fleet: FleetService): Promise<ChatReplyDoc> {
  const subscriptions = await fleet.alerts.subscriptions();
  const { shown, omitted } = firstOf(subscriptions);
  return {
    headline:
      subscriptions.length === 0
        ? "🔕 No subscriptions"
        : `🔔 ${plural(subscriptions.length, "subscription")}`,
    sections:
      subscriptions.length === 0
        ? [
            {
              style: "plain",
              lines: [
                [
                  "Nobody is told of the fleet's events. Subscribe: ",
                  { code: "fleet subscribe https://hooks.example.com/kubecompat env=prod" },
                ],
              ],
            },
          ]
        : [
            {
              style: "bullets",
              lines: shown.map((subscription) => [
                { bold: `#${subscription.id}` },
                ` ${kindWords(subscription.kind)} to `,
                { code: receiverHost(subscription.url) },
                ` · ${filterWords(subscription.filters as SubscriptionFilters)}`,
                subscription.signed ? " · signed" : "",
                ` · by ${subscription.createdBy ?? "unknown"} on ${subscription.createdAt.toISOString().slice(0, 10)}`,
              ]),
              omitted,
            },
            { style: "plain", lines: [["Remove one: ", { code: "fleet unsubscribe ID" }]] },
          ],
    context: ["receivers by host only: a URL's path may be a secret"],
  };
}

export async function unsubscribeDoc(
  fleet: FleetService,
  id: number,
  removedBy: string,
): Promise<ChatReplyDoc> {
  await fleet.alerts.unsubscribe(id);
  return {
    headline: `🔕 Subscription #${id} removed`,
    sections: [
      {
        style: "plain",
        lines: [["No event goes to it any more; its deliveries went with it."]],
      },
    ],
    context: [`by ${removedBy}`],
  };
}

export async function deliveriesDoc(
  fleet: FleetService,
  status: string | undefined,
): Promise<ChatReplyDoc> {
  // Typed in lower case; the schema names the statuses as REST's JSON carries them.
  const query = parseInput(
    deliveryListQuery,
    { ...(status === undefined ? {} : { status: status.toUpperCase() }), limit: DELIVERIES_SHOWN },
    "query",
  );
  const deliveries = await fleet.alerts.deliveries(query);
  const which = query.status === undefined ? "" : ` ${query.status.toLowerCase()}`;
  const sections: ReplySection[] = [
    {
      style: "bullets",
      lines: deliveries.map(
        (delivery): Line => [
          `${STATUS_EMOJI[delivery.status] ?? ""} `,
          { bold: `#${delivery.id}` },
          ` ${delivery.status} · event #${delivery.event.id} `,
          { bold: delivery.event.cluster },
          " ",
          { code: delivery.event.kind },
          ` ${delivery.event.summary} · subscription #${delivery.subscription.id} (${receiverHost(delivery.subscription.url)}) · ${plural(delivery.attempts, "attempt")}`,
          delivery.lastError === null ? "" : ` · last error: ${delivery.lastError}`,
        ],
      ),
    },
  ];
  const more: Line[] = [];
  if (deliveries.some((delivery) => delivery.status === "DEAD"))
    more.push(["Send a dead one again: ", { code: "fleet replay ID" }]);
  if (deliveries.length === DELIVERIES_SHOWN)
    more.push([
      "Older ones: ",
      {
        code: `GET /api/v1/deliveries?limit=500${query.status === undefined ? "" : `&status=${query.status}`}`,
      },
    ]);
  if (more.length > 0) sections.push({ style: "plain", lines: more });
  return {
    headline:
      deliveries.length === 0
        ? `📭 No${which} deliveries`
        : `📬 The ${deliveries.length === 1 ? `newest${which} delivery` : `${deliveries.length} newest${which} deliveries`}`,
    sections:
      deliveries.length === 0
        ? [
            {
              style: "plain",
              lines: [["A delivery is made for each event a subscription is told of."]],
            },
          ]
        : sections,
    context: ["receivers by host only: a URL's path may be a secret"],
  };
}

export async function replayDoc(
  fleet: FleetService,
  id: number,
  replayedBy: string,
): Promise<ChatReplyDoc> {
  await fleet.alerts.replay(id);
  return {
    headline: `🔁 Delivery #${id} queued again`,
    sections: [
      {
        style: "plain",
        lines: [
          [
            "It is PENDING again and sent now; ",
            { code: "fleet deliveries" },
            " shows what became of it.",
          ],
        ],
      },
    ],
    context: [`by ${replayedBy}`],
  };
}
