/**
 * Who may talk to the chat endpoints: Slack proves a request with an HMAC of
 * its raw body (https://docs.slack.dev/authentication/verifying-requests-from-slack),
 * other bots with a shared bearer token. Both comparisons are constant-time
 * so that timing does not reveal how much of a guess was right. In dev mode
 * (CHATOPS_DEV), a person on this machine, proven by nothing but the
 * loopback interface: devRequestProblem.
 */
import crypto from "node:crypto";
import { isLoopbackAddress, isLoopbackHost } from "../core/loopback.js";

/** Slack's own advice: refuse requests older (or newer) than five minutes, so a captured one cannot be replayed later. */
export const SLACK_MAX_CLOCK_SKEW_SECONDS = 5 * 60;

const SIGNATURE = /^v0=([0-9a-f]{64})$/;
const TIMESTAMP = /^\d{1,12}$/;

export interface SlackRequestProof {
  readonly signature: string | undefined;
  readonly timestamp: string | undefined;
  /** The body exactly as received: the HMAC is over these bytes, not over a re-encoding of the parsed form. */
  readonly rawBody: Buffer;
}

/** The HMAC Slack sends in X-Slack-Signature for a body sent at `timestamp`. */
export function slackSignature(
  secret: string,
  timestamp: string,
  rawBody: Buffer | string,
): string {
  const hmac = crypto.createHmac("sha256", secret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(rawBody);
  return `v0=${hmac.digest("hex")}`;
}

/** Why a request is not from Slack, or null when it is. */
export function slackRequestProblem(
  secret: string,
  proof: SlackRequestProof,
  nowSeconds = Math.floor(Date.now() / 1000),
): string | null {
  if (proof.signature === undefined || proof.timestamp === undefined) {
    return "the request is not signed; Slack sends X-Slack-Signature and X-Slack-Request-Timestamp";
  }
  if (!TIMESTAMP.test(proof.timestamp))
    return "X-Slack-Request-Timestamp is not a Unix time in seconds";
  const given = SIGNATURE.exec(proof.signature)?.[1];
  if (given === undefined) return "X-Slack-Signature is not of the form v0=<64 hex digits>";
  if (Math.abs(nowSeconds - Number(proof.timestamp)) > SLACK_MAX_CLOCK_SKEW_SECONDS) {
    return "X-Slack-Request-Timestamp is more than five minutes from now; the request may be a replay (or a clock is wrong)";
  }
  const expected = Buffer.from(
    slackSignature(secret, proof.timestamp, proof.rawBody).slice(3),
    "hex",
  );
  // Both are 32 bytes: the header pattern admits exactly 64 hex digits.
  if (!crypto.timingSafeEqual(Buffer.from(given, "hex"), expected))
    return "X-Slack-Signature does not match the request body";
  return null;
}

/**
 * Whether an Authorization header carries the token. Both sides are hashed
 * first: timingSafeEqual needs equal lengths, and comparing digests does not
 * reveal the token's length either.
 */
export function bearerTokenMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "")?.[1];
  if (given === undefined) return false;
  const digest = (text: string): Buffer =>
    crypto.createHash("sha256").update(text, "utf8").digest();
  return crypto.timingSafeEqual(digest(given), digest(token));
}

/**
 * Slack's signatures seen within the five minutes a signed request is accepted: a captured request
 * sent again is refused, not answered twice. Bounded, oldest first out, so a flood cannot grow it.
 */
export class SeenSignatures {
  private readonly seen = new Map<string, number>();

  constructor(private readonly capacity = 100_000) {}

  /** Whether the signature was seen before within the window; remembers it either way. */
  replayed(signature: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
    const seenAt = this.seen.get(signature);
    if (seenAt !== undefined && nowSeconds - seenAt <= 2 * SLACK_MAX_CLOCK_SKEW_SECONDS)
      return true;
    for (const [oldest, at] of this.seen) {
      if (nowSeconds - at <= 2 * SLACK_MAX_CLOCK_SKEW_SECONDS && this.seen.size < this.capacity)
        break;
      this.seen.delete(oldest);
    }
    this.seen.delete(signature);
    this.seen.set(signature, nowSeconds);
    return false;
  }
}

/** Where a dev-mode request came from, as the connection and its headers say. */
export interface DevRequestOrigin {
  /** The connection's peer (the socket's remote address). */
  readonly peer: string | undefined;
  /** The client as Express names it: the peer, or the address a trusted proxy (TRUST_PROXY) forwarded. */
  readonly client: string | undefined;
  /** Whether a proxy header (Forwarded, X-Forwarded-For, X-Real-IP) came with it. */
  readonly forwarded: boolean;
  /** The Host header. */
  readonly host: string | undefined;
  /** The Origin header a browser sends with a cross-site form post. */
  readonly origin: string | undefined;
}

/** A Host or Origin's host name without its port or brackets: `[::1]:4000` → `::1`. */
function hostName(host: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed !== null) return bracketed[1]!;
  return host.split(":").length === 2 ? host.slice(0, host.lastIndexOf(":")) : host;
}

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return undefined;
  }
}

/**
 * Why a request may not use the dev route, or null when it came from this machine: the peer and the client
 * are loopback, no proxy carried it (a local tunnel or reverse proxy would let anyone in as 127.0.0.1), the
 * Host names this machine (a DNS-rebinding page names its own) and a browser's Origin, if any, is local too.
 */
export function devRequestProblem(request: DevRequestOrigin): string | null {
  const refused = "chat dev mode answers only requests made on this machine";
  if (!isLoopbackAddress(request.peer) || !isLoopbackAddress(request.client))
    return `${refused}, and this one came from ${request.client ?? request.peer ?? "an unknown address"}`;
  if (request.forwarded)
    return `${refused}, and this one came through a proxy (it carries Forwarded or X-Forwarded-For); send it to the service directly`;
  if (request.host === undefined || !isLoopbackHost(hostName(request.host)))
    return `${refused}: send it to http://127.0.0.1 or http://localhost, not to ${request.host ?? "no Host"}`;
  if (request.origin !== undefined) {
    const from = originHost(request.origin);
    if (from === undefined || !isLoopbackHost(from))
      return `${refused}, and this one was sent by a page of ${request.origin}`;
  }
  return null;
}
