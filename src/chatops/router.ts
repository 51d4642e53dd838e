/**
 * The chat face under /chatops: Slack slash commands (POST /chatops/slack)
 * and a JSON endpoint for other bots (POST /chatops/command). It checks who
 * is asking, reads the text and hands it to ./commands.ts; errors of the
 * transport (401, 415, 503, 400) go through the app's REST error middleware,
 * while a verified Slack request always gets a 200 chat message, because
 * Slack shows anything else to the user as a cryptic failure.
 */
import express, { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { Config } from "../core/config.js";
import { InputError, UnauthenticatedError, UnavailableError } from "../core/errors.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import type { Logger } from "../core/logger.js";
import { errorBody } from "../services/errors.js";
import { bearerTokenMatches, slackRequestProblem } from "./auth.js";
import { MAX_COMMAND_TEXT, parseCommand, runCommand, takeVisibility, usageReply } from "./commands.js";
import { renderReply, type ChatReply } from "./reply.js";

export interface ChatopsDependencies {
  readonly kb: KnowledgeBase;
  readonly chatops: Config["chatops"] | undefined;
  readonly logger: Logger;
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

function unsupportedMediaType(res: Response, expected: string): void {
  res.status(415).json(errorBody("UNSUPPORTED_MEDIA_TYPE", `send the request as ${expected}`));
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
  return renderReply({ headline: "⚠️ kubecompat could not answer", sections: [{ style: "plain", lines: [[message]] }], context: [] });
}

export function chatopsRouter(deps: ChatopsDependencies): Router {
  const router = Router();
  const { kb, logger } = deps;

  /** Parses and answers a text; the domain core does the rest. Logged with the request id, as the request's own line is. */
  const reply = (res: Response, text: string, invokedAs: string | undefined, face: string, who: Record<string, string | undefined>): ChatReply => {
    const snapshot = kb.current();
    const parsed = parseCommand(text);
    logger.info({ requestId: requestId(res), chatops: face, command: parsed.ok ? parsed.command.kind : "usage", ...who }, "chat command");
    const options = invokedAs === undefined ? {} : { invokedAs };
    return parsed.ok ? runCommand(snapshot, parsed.command, options) : usageReply(snapshot, parsed, options);
  };

  router.post(
    "/slack",
    (req, res, next) => {
      if (deps.chatops?.slackSigningSecret == null) {
        throw new UnavailableError("Slack commands are not configured; set SLACK_SIGNING_SECRET to the Slack app's signing secret", [], null);
      }
      if (!req.is(SLACK_FORM)) {
        unsupportedMediaType(res, SLACK_FORM);
        return;
      }
      next();
    },
    // Raw, not urlencoded: the signature is over the exact bytes, and nothing is parsed before it is verified.
    express.raw({ type: SLACK_FORM, limit: BODY_LIMIT }),
    (req, res) => {
      const secret = deps.chatops!.slackSigningSecret!;
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const problem = slackRequestProblem(secret, {
        signature: header(req, "x-slack-signature"),
        timestamp: header(req, "x-slack-request-timestamp"),
        rawBody,
      });
      if (problem !== null) throw new UnauthenticatedError(problem);

      const form = new URLSearchParams(rawBody.toString("utf8"));
      const { text, public: inChannel } = takeVisibility(slackUnescape(form.get("text") ?? ""));
      let answer: ChatReply;
      try {
        answer = reply(res, text, form.get("command") ?? undefined, "slack", {
          user: form.get("user_name") ?? undefined,
          channel: form.get("channel_name") ?? undefined,
        });
      } catch (error) {
        if (error instanceof UnavailableError) {
          answer = failureReply(`${error.message}.`);
        } else {
          logger.error({ err: error, requestId: requestId(res) }, "chat command failed");
          answer = failureReply(`Something went wrong; it has been logged with request id ${requestId(res)}.`);
        }
      }
      res.json({ response_type: inChannel ? "in_channel" : "ephemeral", text: answer.fallback, blocks: answer.blocks });
    },
  );

  router.post(
    "/command",
    (req, res, next) => {
      const token = deps.chatops?.botToken;
      if (token == null) throw new UnavailableError("the chat command endpoint is not configured; set CHATOPS_TOKEN to the token bots send", [], null);
      if (!bearerTokenMatches(header(req, "authorization"), token)) {
        res.setHeader("WWW-Authenticate", 'Bearer realm="kubecompat chatops"');
        throw new UnauthenticatedError("send Authorization: Bearer <CHATOPS_TOKEN>");
      }
      if (!req.is("application/json")) {
        unsupportedMediaType(res, "application/json");
        return;
      }
      next();
    },
    // A no-op when the app's global JSON parser already read the body.
    express.json({ limit: BODY_LIMIT }),
    (req, res) => {
      const parsed = commandBody.safeParse(req.body);
      if (!parsed.success) {
        throw new InputError(`the body must be a JSON object {"text": "..."} whose text is a string of at most ${MAX_COMMAND_TEXT} characters`, "text");
      }
      const { text } = takeVisibility(parsed.data.text);
      const answer = reply(res, text, undefined, "command", {});
      res.json({ text: answer.text, blocks: answer.blocks });
    },
  );

  return router;
}
