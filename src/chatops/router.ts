/**
 * The chat face under /chatops: Slack slash commands (POST /chatops/slack),
 * a JSON endpoint for other bots (POST /chatops/command) and, in dev mode
 * only (CHATOPS_DEV), one for a person on this machine (POST /chatops/dev). It checks who
 * is asking, reads the text and hands it to ./commands.ts; errors of the
 * transport (401, 415, 503, 400) go through the app's REST error middleware,
 * while a verified Slack request always gets a 200 chat message, because
 * Slack shows anything else to the user as a cryptic failure.
 *
 * Rate limits count verified requests per Slack workspace and per bot
 * address, and everything else (unsigned, forged, replayed, unconfigured)
 * per address in a budget of its own: forged traffic can use up only its
 * own budget, never the real bots'.
 */
import express, { Router, type Request, type RequestHandler, type Response } from "express";
import { z } from "zod";
import type { Config } from "../core/config.js";
import {
  ForbiddenError,
  InputError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from "../core/errors.js";
import { MinuteBudgets } from "../core/minute-budgets.js";
import { ipKeyGenerator } from "express-rate-limit";
import { giveBackUnlessWorked, overBudget } from "../http/rate-limits.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import type { Logger } from "../core/logger.js";
import {
  SeenSignatures,
  bearerTokenMatches,
  devRequestProblem,
  slackRequestProblem,
} from "./auth.js";
import {
  MAX_COMMAND_TEXT,
  parseCommand,
  runCommand,
  takeVisibility,
  usageReply,
} from "./commands.js";
import { renderReply, type ChatReply } from "./reply.js";
import { ANSWERED_TO_ASKER_ONLY, type ParseResult } from "./chat-command.js";
import type { ChatAsker } from "./chat-asker.js";
import { isFleetCommand, runFleetCommand } from "./fleet-answers.js";
import { isProposalCommand, runProposalCommand } from "./proposal-answers.js";
import type { FleetService } from "../services/fleet.js";
import type { ProposalReview } from "../services/proposals.js";

export interface ChatopsDependencies {
  readonly kb: KnowledgeBase;
  readonly chatops: Config["chatops"] | undefined;
  readonly logger: Logger;
  /** Commands a workspace or bot may send a minute; unverified requests get as many per address. */
  readonly perMinute: number;
  /** The review queue of proposals; without it the queue's commands say there is none. */
  readonly review?: ProposalReview;
  /** The fleet of registered clusters; without it the fleet's commands say there is none. */
  readonly fleet?: FleetService;
}

/** Slack's slash-command payloads are a few hundred bytes; 64 KB leaves room and bounds the HMAC work. */
const BODY_LIMIT = "64kb";
const SLACK_FORM = "application/x-www-form-urlencoded";

const commandBody = z.object({
  text: z.string().max(MAX_COMMAND_TEXT, `must be at most ${MAX_COMMAND_TEXT} characters`),
});

/** Slack escapes &, < and > in a slash command's text (https://docs.slack.dev/messaging/formatting-message-text#escaping). */
function slackUnescape(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
}

function requestId(res: Response): string {
  const id = res.getHeader("x-request-id");
  return typeof id === "string" ? id : "unknown";
}

/** A chat message that says the answer failed, for the one face that must not answer with an error status. */
function failureReply(message: string): ChatReply {
  return renderReply({
    headline: "⚠️ kubecompat could not answer",
    sections: [{ style: "plain", lines: [[message]] }],
    context: [],
  });
}

/** What both chat routes share: the budgets of verified and unverified requests, the signatures seen. */
interface ChatGate {
  readonly verified: MinuteBudgets;
  readonly unverified: MinuteBudgets;
  readonly seen: SeenSignatures;
}

export function chatopsRouter(deps: ChatopsDependencies): Router {
  const router = Router();
  const gate: ChatGate = {
    verified: new MinuteBudgets(deps.perMinute),
    unverified: new MinuteBudgets(deps.perMinute),
    seen: new SeenSignatures(),
  };
  router.post("/slack", ...slackRoute(deps, gate));
  router.post("/command", ...botRoute(deps, gate));
  router.post("/dev", ...devRoute(deps, gate));
  if (deps.chatops?.devMode === true)
    deps.logger.warn(
      { route: "POST /chatops/dev" },
      "chat dev mode (CHATOPS_DEV): chat commands from this machine are answered unauthenticated on localhost",
    );
  return router;
}

/** A request that proved nothing: counted against its address; the error to answer with (past the budget, 429). */
function unverifiedRefusal(gate: ChatGate, req: Request, res: Response, error: Error): Error {
  const use = gate.unverified.take(`address:${ipKeyGenerator(req.ip ?? "0.0.0.0")}`);
  return overBudget(res, gate.unverified, use, "unverified chat") ?? error;
}

/**
 * Parses and answers a text; the domain core does the rest (the review queue: proposal-answers.ts; the
 * fleet: fleet-answers.ts; both write only for a reviewer, chat-asker.ts).
 * Logged with the request id, as the request's own line is. A command that may carry a secret (a
 * subscription's) is answered to the asker only, its usage and refusals too.
 */
async function reply(
  deps: ChatopsDependencies,
  res: Response,
  text: string,
  invokedAs: string | undefined,
  asker: ChatAsker,
  who: Record<string, string | undefined>,
): Promise<ChatReply> {
  const parsed = parseCommand(text);
  const kind = parsed.ok ? parsed.command.kind : parsed.kind;
  const answer = await answerOf(deps, res, parsed, invokedAs, asker, who);
  return kind !== undefined && ANSWERED_TO_ASKER_ONLY.has(kind)
    ? { ...answer, askerOnly: true }
    : answer;
}

async function answerOf(
  deps: ChatopsDependencies,
  res: Response,
  parsed: ParseResult,
  invokedAs: string | undefined,
  asker: ChatAsker,
  who: Record<string, string | undefined>,
): Promise<ChatReply> {
  const snapshot = deps.kb.current();
  deps.logger.info(
    {
      requestId: requestId(res),
      chatops: asker.face === "bot" ? "command" : asker.face,
      command: parsed.ok ? parsed.command.kind : "usage",
      ...who,
    },
    "chat command",
  );
  const options = invokedAs === undefined ? {} : { invokedAs };
  if (!parsed.ok) return usageReply(snapshot, parsed, options);
  if (isProposalCommand(parsed.command)) {
    const chat = {
      review: deps.review,
      reviewers: deps.chatops?.reviewers ?? [],
      latest: () => deps.kb.current(),
    };
    return renderReply(await runProposalCommand(chat, parsed.command, asker, options));
  }
  if (isFleetCommand(parsed.command)) {
    const chat = {
      fleet: deps.fleet,
      reviewers: deps.chatops?.reviewers ?? [],
      latest: () => deps.kb.current(),
    };
    return renderReply(await runFleetCommand(chat, parsed.command, asker, options));
  }
  return runCommand(snapshot, parsed.command, options);
}

/** Slack's slash commands: form-encoded, signed over the raw bytes, answered in Block Kit (never with an error status once verified). */
function slackRoute(deps: ChatopsDependencies, gate: ChatGate): RequestHandler[] {
  return [
    (req, res, next) => {
      if (deps.chatops?.slackSigningSecret == null) {
        throw unverifiedRefusal(
          gate,
          req,
          res,
          new UnavailableError(
            "Slack commands are not configured; set SLACK_SIGNING_SECRET to the Slack app's signing secret",
            [],
            null,
          ),
        );
      }
      if (!req.is(SLACK_FORM)) {
        throw unverifiedRefusal(
          gate,
          req,
          res,
          new UnsupportedMediaTypeError(`send the request as ${SLACK_FORM}`),
        );
      }
      next();
    },
    // Raw, not urlencoded: the signature is over the exact bytes, and nothing is parsed before it is verified.
    express.raw({ type: SLACK_FORM, limit: BODY_LIMIT }),
    async (req, res) => {
      const secret = deps.chatops!.slackSigningSecret!;
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const problem = slackRequestProblem(secret, {
        signature: header(req, "x-slack-signature"),
        timestamp: header(req, "x-slack-request-timestamp"),
        rawBody,
      });
      if (problem !== null) {
        throw unverifiedRefusal(gate, req, res, new UnauthenticatedError(problem));
      }
      if (gate.seen.replayed(header(req, "x-slack-signature")!)) {
        throw unverifiedRefusal(
          gate,
          req,
          res,
          new UnauthenticatedError(
            "this signed request was already received: a replay is not answered twice",
          ),
        );
      }

      const form = new URLSearchParams(rawBody.toString("utf8"));
      const use = gate.verified.take(`slack:${form.get("team_id") ?? "?"}`);
      if (!use.allowed) {
        const busy = failureReply(
          `Too many commands from this workspace: at most ${gate.verified.perMinute} a minute. Try again in ${use.resetSeconds} s.`,
        );
        res.json({ response_type: "ephemeral", text: busy.fallback, blocks: busy.blocks });
        return;
      }
      const { text, public: inChannel } = takeVisibility(slackUnescape(form.get("text") ?? ""));
      let answer: ChatReply;
      try {
        const asker: ChatAsker = { face: "slack", userId: form.get("user_id") ?? "" };
        answer = await reply(deps, res, text, form.get("command") ?? undefined, asker, {
          user: form.get("user_name") ?? undefined,
          channel: form.get("channel_name") ?? undefined,
        });
      } catch (error) {
        if (error instanceof UnavailableError) {
          answer = failureReply(`${error.message}.`);
        } else {
          deps.logger.error({ err: error, requestId: requestId(res) }, "chat command failed");
          answer = failureReply(
            `Something went wrong; it has been logged with request id ${requestId(res)}.`,
          );
        }
      }
      res.json({
        response_type: inChannel && answer.askerOnly !== true ? "in_channel" : "ephemeral",
        text: answer.fallback,
        blocks: answer.blocks,
      });
    },
  ];
}

/** The bot endpoint: JSON with the bot token, answered with the reply's text and blocks. */
function botRoute(deps: ChatopsDependencies, gate: ChatGate): RequestHandler[] {
  return [
    (req, res, next) => {
      const token = deps.chatops?.botToken;
      if (token == null) {
        throw unverifiedRefusal(
          gate,
          req,
          res,
          new UnavailableError(
            "the chat command endpoint is not configured; set CHATOPS_TOKEN to the token bots send",
            [],
            null,
          ),
        );
      }
      if (!bearerTokenMatches(header(req, "authorization"), token)) {
        res.setHeader("WWW-Authenticate", 'Bearer realm="kubecompat chatops"');
        throw unverifiedRefusal(
          gate,
          req,
          res,
          new UnauthenticatedError("send Authorization: Bearer <CHATOPS_TOKEN>"),
        );
      }
      const use = gate.verified.take(`bot:${ipKeyGenerator(req.ip ?? "0.0.0.0")}`);
      const refused = overBudget(res, gate.verified, use, "chat");
      if (refused !== undefined) throw refused;
      giveBackUnlessWorked(res, use);
      if (!req.is("application/json"))
        throw new UnsupportedMediaTypeError("send the request as application/json");
      next();
    },
    // A no-op when the app's global JSON parser already read the body.
    express.json({ limit: BODY_LIMIT }),
    async (req, res) => {
      const parsed = commandBody.safeParse(req.body);
      if (!parsed.success) {
        throw new InputError(
          `the body must be a JSON object {"text": "..."} whose text is a string of at most ${MAX_COMMAND_TEXT} characters`,
          "text",
        );
      }
      const { text } = takeVisibility(parsed.data.text);
      const answer = await reply(deps, res, text, undefined, { face: "bot" }, {});
      res.json({ text: answer.text, blocks: answer.blocks });
    },
  ];
}

const DEV_FORM = "application/x-www-form-urlencoded";

/**
 * Dev mode (CHATOPS_DEV, HOST on loopback): a person on this machine tries commands without Slack or a
 * token, `{"text": "..."}` or the form `text=...`, answered as the bot endpoint answers. Off, it says how
 * to turn it on; from anywhere but this machine, it refuses. It never decides proposals nor changes the
 * fleet (no person is named).
 */
function devRoute(deps: ChatopsDependencies, gate: ChatGate): RequestHandler[] {
  return [
    (req, res, next) => {
      if (deps.chatops?.devMode !== true) {
        throw unverifiedRefusal(
          gate,
          req,
          res,
          new UnavailableError(
            "chat dev mode is off; to try chat commands locally without Slack or a token, start the service with CHATOPS_DEV=true and HOST=127.0.0.1",
            [],
            null,
          ),
        );
      }
      const problem = devRequestProblem({
        peer: req.socket.remoteAddress,
        client: req.ip,
        forwarded: ["forwarded", "x-forwarded-for", "x-real-ip"].some(
          (name) => req.headers[name] !== undefined,
        ),
        host: header(req, "host"),
        origin: header(req, "origin"),
      });
      if (problem !== null) throw unverifiedRefusal(gate, req, res, new ForbiddenError(problem));
      const use = gate.verified.take(`dev:${ipKeyGenerator(req.ip ?? "0.0.0.0")}`);
      const refused = overBudget(res, gate.verified, use, "chat");
      if (refused !== undefined) throw refused;
      giveBackUnlessWorked(res, use);
      if (!req.is("application/json") && !req.is(DEV_FORM))
        throw new UnsupportedMediaTypeError(
          `send the request as application/json ({"text": "..."}) or ${DEV_FORM} (text=...)`,
        );
      next();
    },
    // No-ops for a body already read (the app's global JSON parser) or of the other type.
    express.json({ limit: BODY_LIMIT }),
    express.urlencoded({ extended: false, limit: BODY_LIMIT }),
    async (req, res) => {
      const parsed = commandBody.safeParse(req.body);
      if (!parsed.success) {
        throw new InputError(
          `the body must be {"text": "..."} or text=..., a text of at most ${MAX_COMMAND_TEXT} characters`,
          "text",
        );
      }
      const { text } = takeVisibility(parsed.data.text);
      const answer = await reply(deps, res, text, undefined, { face: "dev" }, {});
      res.json({ text: answer.text, blocks: answer.blocks });
    },
  ];
}
