/**
 * The fleet in chat: the registered clusters by environment (verdict, last
 * day of standard support, days left, start-by date, blocking codes), one
 * cluster in full, the newest events and the waivers, and a reviewer's
 * registrations and waivers, subscriptions and deliveries
 * (fleet-alert-answers.ts). Translation only, as REST's and GraphQL's
 * faces are: input is checked by the same zod schemas and turned into the
 * FleetService's by the same functions (src/http/fleet-input.ts), so a bad
 * version or day gets the message REST gives; the FleetService judges and
 * stores. Who may write is chat-asker.ts's rule (CHATOPS_REVIEWERS); how the
 * fleet reads in chat is fleet-views.ts's.
 */
import { UnavailableError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { describeError } from "../http/errors.js";
import { registrationOf, waiverOf } from "../http/fleet-input.js";
import { parseInput } from "../http/input.js";
import { registerClusterRequest, waiverRequest } from "../http/schemas/fleet.js";
import type { FleetService } from "../services/fleet.js";
import { chatEditorOf, type ChatAsker, type ChatWrite } from "./chat-asker.js";
import type { ChatCommand, FleetCommand, RunOptions } from "./chat-command.js";
import {
  deliveriesDoc,
  replayDoc,
  subscribeDoc,
  subscriptionsDoc,
  unsubscribeDoc,
} from "./fleet-alert-answers.js";
import { eventsDoc, listDoc, showDoc, waiversDoc } from "./fleet-views.js";
import type { ChatReplyDoc } from "./reply.js";
import { errorDoc } from "./usage.js";

export interface ChatFleet {
  /** Absent when the service runs without a fleet (no database): the commands say so. */
  readonly fleet: FleetService | undefined;
  /** Slack user ids that may register clusters and waive findings (CHATOPS_REVIEWERS). */
  readonly reviewers: readonly string[];
  readonly latest: () => KbSnapshot;
}

const FLEET_KINDS: ReadonlySet<string> = new Set<FleetCommand["kind"]>([
  "fleet",
  "fleet-show",
  "fleet-events",
  "fleet-waivers",
  "fleet-register",
  "fleet-waive",
  "fleet-unwaive",
  "fleet-subscribe",
  "fleet-subscriptions",
  "fleet-unsubscribe",
  "fleet-deliveries",
  "fleet-replay",
]);

export function isFleetCommand(command: ChatCommand): command is FleetCommand {
  return FLEET_KINDS.has(command.kind);
}

const REGISTERING: ChatWrite = {
  action: "register clusters",
  elsewhere:
    "or register with an editor token over REST (POST /api/v1/clusters), GraphQL (registerCluster) or the CLI (kubecompat register)",
};
const WAIVING: ChatWrite = {
  action: "waive findings or remove waivers",
  elsewhere:
    "or waive with an editor token over REST (POST /api/v1/waivers, DELETE /api/v1/waivers/{id}) or GraphQL (waiveFinding, removeWaiver)",
};

const SUBSCRIBING: ChatWrite = {
  action: "subscribe to the fleet's events or remove subscriptions",
  elsewhere:
    "or subscribe with an editor token over REST (POST /api/v1/subscriptions, DELETE /api/v1/subscriptions/{id}) or the CLI (kubecompat subscribe)",
};
/** REST asks an editor's token to list subscriptions and deliveries too: they name receivers. */
const READING_ALERTS: ChatWrite = {
  action: "list subscriptions or deliveries",
  elsewhere:
    "or list them with an editor token over REST (GET /api/v1/subscriptions, GET /api/v1/deliveries)",
};
const REPLAYING: ChatWrite = {
  action: "replay deliveries",
  elsewhere: "or replay with an editor token over REST (POST /api/v1/deliveries/{id}/replay)",
};

async function registerDoc(
  fleet: FleetService,
  command: Extract<FleetCommand, { kind: "fleet-register" }>,
  registeredBy: string,
): Promise<ChatReplyDoc> {
  const body = parseInput(
    registerClusterRequest,
    {
      name: command.name,
      environment: command.environment,
      owner: command.owner,
      labels: command.labels,
      platform: command.platform,
      profile: command.profile,
      ...(command.components.length === 0 ? {} : { components: command.components }),
      ...(command.kubectl === undefined
        ? {}
        : { kubectlVersion: command.kubectl.version, nodes: command.kubectl.nodes }),
    },
    "body",
  );
  const { cluster, created } = await fleet.register(registrationOf(body));
  const shown = await showDoc(fleet, cluster.name);
  return {
    ...shown,
    headline: `${created ? "🆕 Registered" : "🔄 New state of"} ${cluster.name}: ${cluster.judgement?.status ?? "NOT_JUDGED"}`,
    context: [...shown.context, `by ${registeredBy}`],
  };
}

async function waiveDoc(
  fleet: FleetService,
  command: Extract<FleetCommand, { kind: "fleet-waive" }>,
  createdBy: string,
): Promise<ChatReplyDoc> {
  const body = parseInput(
    waiverRequest,
    {
      code: command.code,
      cluster: command.cluster,
      label: command.label,
      reason: command.reason,
      owner: command.owner ?? createdBy,
      expiresOn: command.until,
    },
    "body",
  );
  const waiver = await fleet.waive(waiverOf(body, createdBy));
  const held = (await fleet.list(waiver.label === null ? {} : { label: waiver.label })).filter(
    (view) =>
      (waiver.clusterName === null || view.name === waiver.clusterName) &&
      view.judgement?.waived.some((entry) => entry.waiver.id === waiver.id) === true,
  );
  return {
    headline: `🙈 Waiver #${waiver.id}: ${waiver.code} for ${waiver.clusterName ?? `label ${waiver.label ?? "?"}`} until ${waiver.expiresOn}`,
    sections: [
      {
        style: "plain",
        lines: [
          [`${waiver.owner}: ${waiver.reason}`],
          [
            held.length === 0
              ? "It holds no finding out of a verdict today."
              : `It holds the finding out of the verdict of ${held.map((view) => view.name).join(", ")}.`,
          ],
          ["Undo: ", { code: `fleet unwaive ${waiver.id}` }],
        ],
      },
    ],
    context: [`by ${createdBy}`, `today ${fleet.today()}`],
  };
}

async function answerDoc(
  chat: ChatFleet,
  command: FleetCommand,
  asker: ChatAsker,
): Promise<ChatReplyDoc> {
  const fleet = chat.fleet;
  if (fleet === undefined)
    throw new UnavailableError(
      "this instance runs without a fleet: registered clusters live in the database, and it runs without one",
    );
  switch (command.kind) {
    case "fleet":
      return listDoc(fleet, command);
    case "fleet-show":
      return showDoc(fleet, command.name);
    case "fleet-events":
      return eventsDoc(fleet, command.cluster);
    case "fleet-waivers":
      return waiversDoc(fleet);
    case "fleet-register": {
      const editor = chatEditorOf(asker, chat.reviewers, REGISTERING);
      return registerDoc(fleet, command, editor.name);
    }
    case "fleet-waive": {
      const editor = chatEditorOf(asker, chat.reviewers, WAIVING);
      return waiveDoc(fleet, command, editor.name);
    }
    case "fleet-unwaive": {
      const editor = chatEditorOf(asker, chat.reviewers, WAIVING);
      await fleet.unwaive(command.id);
      return {
        headline: `🗑️ Waiver #${command.id} removed`,
        sections: [
          {
            style: "plain",
            lines: [
              [
                "The fleet was judged again without it: ",
                { code: "fleet" },
                " shows the verdicts now.",
              ],
            ],
          },
        ],
        context: [`by ${editor.name}`, `today ${fleet.today()}`],
      };
    }
    case "fleet-subscribe":
      return subscribeDoc(fleet, command, chatEditorOf(asker, chat.reviewers, SUBSCRIBING).name);
    case "fleet-subscriptions":
      chatEditorOf(asker, chat.reviewers, READING_ALERTS);
      return subscriptionsDoc(fleet);
    case "fleet-unsubscribe":
      return unsubscribeDoc(
        fleet,
        command.id,
        chatEditorOf(asker, chat.reviewers, SUBSCRIBING).name,
      );
    case "fleet-deliveries":
      chatEditorOf(asker, chat.reviewers, READING_ALERTS);
      return deliveriesDoc(fleet, command.status);
    case "fleet-replay":
      return replayDoc(fleet, command.id, chatEditorOf(asker, chat.reviewers, REPLAYING).name);
  }
}

/**
 * Answers a fleet command. What the caller must fix (a bad name or day, an
 * unknown cluster, a refusal, no fleet here) is answered with its message
 * and the usage; anything else is a bug and propagates.
 */
export async function runFleetCommand(
  chat: ChatFleet,
  command: FleetCommand,
  asker: ChatAsker,
  options: RunOptions = {},
): Promise<ChatReplyDoc> {
  try {
    return await answerDoc(chat, command, asker);
  } catch (error) {
    const described = describeError(error);
    if (described.internal) throw error;
    return errorDoc(chat.latest(), error as never, command.kind, options);
  }
}
