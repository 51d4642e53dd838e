/**
 * Slack slash-command requests as Slack sends them: the payload of
 * test/fixtures/slack/slash-command.form with another text, form-encoded,
 * signed with Slack's documented recipe (HMAC-SHA256 over
 * `v0:{timestamp}:{body}`), computed here rather than with the code under test.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./runtime.js";

const FIXTURE = fs.readFileSync(
  path.join(REPO_ROOT, "test/fixtures/slack/slash-command.form"),
  "utf8",
);

/** Slack escapes &, < and > in a slash command's text before it sends it. */
export function slackEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The fixture's payload with another text (and other fields, such as user_id), encoded the way Slack encodes it. */
export function slackBody(text: string, fields: Readonly<Record<string, string>> = {}): string {
  const form = new URLSearchParams(FIXTURE);
  form.set("text", text);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form.toString();
}

export function slackSignature(body: string, timestamp: number | string, secret: string): string {
  return `v0=${crypto.createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}
