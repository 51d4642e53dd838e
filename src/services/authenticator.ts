/**
 * Turns an `Authorization: Bearer <token>` header into a Principal. Lookups
 * are cached for a few seconds so that authenticated reads do not cost a
 * database round trip each; revoking through this instance clears the cache
 * at once, other replicas see a revocation within the cache's lifetime.
 *
 * While the database cannot be asked, what it last said about a token (at
 * most an hour ago) still holds, so callers keep reading from the in-memory
 * snapshot; a token it never saw cannot be checked and gets 503 UNAVAILABLE,
 * not 401 (it may well be valid).
 */
import { findTokenByHash, markTokenUsed, type StoredToken } from "../db/token-store.js";
import type { Database } from "../db/client.js";
import { UnauthenticatedError, UnavailableError } from "../core/errors.js";
import { RepeatedWarning, type Logger } from "../core/logger.js";
import {
  ANONYMOUS,
  hashSecret,
  looksLikeSecret,
  sameHash,
  type Principal,
} from "../core/tokens.js";

const CACHE_MS = 5_000;
const STALE_MS = 60 * 60_000;
const CACHE_ENTRIES = 10_000;
const LAST_USED_EVERY_MS = 60_000;

export interface AuthenticatorOptions {
  /** How long a lookup is trusted while the database answers (default 5 s). */
  readonly cacheMs?: number;
  /** How long a lookup is still trusted while the database does not answer (default 1 h). */
  readonly staleMs?: number;
}

/**
 * The token of an Authorization header: "Bearer <token>", or "Basic" with the token as the password
 * (or as the user name with an empty password, as `curl -u TOKEN:` sends it), so that a browser can
 * open the pages of a service that requires a token for reads: it asks for the token in its own dialog.
 */
function secretOf(authorization: string): string {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (bearer) return bearer[1]!;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon >= 0) {
      const password = decoded.slice(colon + 1);
      return password !== "" ? password : decoded.slice(0, colon);
    }
  }
  throw new UnauthenticatedError(
    'the Authorization header must be "Bearer <token>" (or Basic with the token as the password)',
  );
}

export class Authenticator {
  private readonly cache = new Map<string, { token: StoredToken | null; checkedAt: number }>();
  private readonly lastUsedWritten = new Map<number, number>();
  private readonly cacheMs: number;
  private readonly staleMs: number;
  // During an outage every request with a token fails its lookup: one line, then a summary per window.
  private readonly lookupFailed: RepeatedWarning;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    options: AuthenticatorOptions = {},
  ) {
    this.lookupFailed = new RepeatedWarning(
      logger,
      "token lookup failed: the database does not answer",
    );
    this.cacheMs = options.cacheMs ?? CACHE_MS;
    this.staleMs = Math.max(options.staleMs ?? STALE_MS, this.cacheMs);
  }

  /**
   * ANONYMOUS without a header; UnauthenticatedError for a malformed, unknown or revoked token;
   * UnavailableError when the token could not be checked (the database is unavailable and never saw it lately).
   */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === "") return ANONYMOUS;
    const secret = secretOf(authorization);
    if (!looksLikeSecret(secret))
      throw new UnauthenticatedError("the bearer token is not a kubecompat token (kc_...)");
    const hash = hashSecret(secret);
    const token = await this.lookup(hash);
    if (token === null || !sameHash(token.secretHash, hash))
      throw new UnauthenticatedError("the bearer token is unknown");
    if (token.revokedAt !== null)
      throw new UnauthenticatedError(
        `the token "${token.name}" was revoked on ${token.revokedAt.toISOString()}`,
      );
    if (token.expiresAt !== null && token.expiresAt.getTime() <= Date.now()) {
      throw new UnauthenticatedError(
        `the token "${token.name}" expired on ${token.expiresAt.toISOString()}; ask an admin for a new one`,
      );
    }
    this.noteUse(token);
    return { name: token.name, role: token.role };
  }

  forget(): void {
    this.cache.clear();
  }

  private async lookup(hash: string): Promise<StoredToken | null> {
    const cached = this.cache.get(hash);
    if (cached !== undefined && Date.now() - cached.checkedAt < this.cacheMs) return cached.token;
    let token: StoredToken | null;
    try {
      token = await findTokenByHash(this.db, hash);
    } catch (error) {
      const stale = cached !== undefined && Date.now() - cached.checkedAt < this.staleMs;
      this.lookupFailed.warn({ err: error, answeredFromCache: stale });
      if (stale) return cached.token;
      throw new UnavailableError(
        "cannot check the token: the database is unavailable; retry shortly",
      );
    }
    this.remember(hash, token);
    return token;
  }

  private remember(hash: string, token: StoredToken | null): void {
    this.cache.delete(hash);
    if (this.cache.size >= CACHE_ENTRIES) {
      // Unknown tokens go first, so a flood of made-up ones does not push out the ones in use.
      for (const [key, entry] of this.cache) if (entry.token === null) this.cache.delete(key);
      if (this.cache.size >= CACHE_ENTRIES) this.cache.clear();
    }
    this.cache.set(hash, { token, checkedAt: Date.now() });
  }

  private noteUse(token: StoredToken): void {
    const last = this.lastUsedWritten.get(token.id) ?? 0;
    if (Date.now() - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWritten.set(token.id, Date.now());
    markTokenUsed(this.db, token.id).catch((error: unknown) =>
      this.logger.debug({ err: error }, "could not record token use"),
    );
  }
}
