/**
 * Turns an `Authorization: Bearer <token>` header into a Principal. Lookups
 * are cached for a few seconds so that authenticated reads do not cost a
 * database round trip each; revoking through this instance clears the cache
 * at once, other replicas see a revocation within the cache's lifetime.
 */
import { findTokenByHash, markTokenUsed, type StoredToken } from "../db/token-store.js";
import type { Database } from "../db/client.js";
import { UnauthenticatedError, UnavailableError } from "../errors.js";
import type { Logger } from "../logger.js";
import { ANONYMOUS, hashSecret, looksLikeSecret, sameHash, type Principal } from "./tokens.js";

const CACHE_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;

export class Authenticator {
  private readonly cache = new Map<string, { token: StoredToken | null; until: number }>();
  private readonly lastUsedWritten = new Map<number, number>();

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  /** ANONYMOUS without a header; UnauthenticatedError for a malformed, unknown or revoked token. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === "") return ANONYMOUS;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new UnauthenticatedError('the Authorization header must be "Bearer <token>"');
    const secret = match[1]!;
    if (!looksLikeSecret(secret)) throw new UnauthenticatedError("the bearer token is not a kubecompat token (kc_...)");
    const hash = hashSecret(secret);
    const token = await this.lookup(hash);
    if (token === null || !sameHash(token.secretHash, hash)) throw new UnauthenticatedError("the bearer token is unknown");
    if (token.revokedAt !== null) throw new UnauthenticatedError(`the token "${token.name}" was revoked on ${token.revokedAt.toISOString()}`);
    this.noteUse(token);
    return { name: token.name, role: token.role };
  }

  forget(): void {
    this.cache.clear();
  }

  private async lookup(hash: string): Promise<StoredToken | null> {
    const cached = this.cache.get(hash);
    if (cached !== undefined && cached.until > Date.now()) return cached.token;
    let token: StoredToken | null;
    try {
      token = await findTokenByHash(this.db, hash);
    } catch (error) {
      this.logger.warn({ err: error }, "token lookup failed");
      throw new UnavailableError("cannot check the token: the database is unavailable; retry shortly");
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { token, until: Date.now() + CACHE_MS });
    return token;
  }

  private noteUse(token: StoredToken): void {
    const last = this.lastUsedWritten.get(token.id) ?? 0;
    if (Date.now() - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWritten.set(token.id, Date.now());
    markTokenUsed(this.db, token.id).catch((error: unknown) => this.logger.debug({ err: error }, "could not record token use"));
  }
}
