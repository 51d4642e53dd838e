/**
 * API tokens: what a secret looks like, how it is hashed and compared, and
 * which role may do what. Secrets are 32 random bytes; only their SHA-256 is
 * stored (a slow password hash buys nothing for secrets this long), and
 * hashes are compared in constant time.
 */
import crypto from "node:crypto";
import { ForbiddenError } from "./errors.js";

export const ROLES = ["reader", "editor", "admin"] as const;
export type Role = (typeof ROLES)[number];

export interface Principal {
  /** Token name, or "anonymous". */
  readonly name: string;
  readonly role: Role | null;
}

export const ANONYMOUS: Principal = Object.freeze({ name: "anonymous", role: null });

const PREFIX = "kc_";
const SECRET_PATTERN = /^kc_[A-Za-z0-9_-]{43}$/;

export function generateSecret(): string {
  return `${PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
}

export function looksLikeSecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}

export function hashSecret(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && crypto.timingSafeEqual(left, right);
}

/** Shown next to a token so people can tell tokens apart without the secret. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, PREFIX.length + 6);
}

export function atLeast(principal: Principal, role: Role): boolean {
  return principal.role !== null && ROLES.indexOf(principal.role) >= ROLES.indexOf(role);
}

/** Throws Forbidden when the caller's role is too weak (callers without a token are turned away earlier). */
export function requireRole(principal: Principal, role: Role, action: string): void {
  if (!atLeast(principal, role)) {
    throw new ForbiddenError(
      `${action} needs the ${role} role; token "${principal.name}" has ${principal.role ?? "none"}`,
    );
  }
}

const LIFETIME = /^(\d{1,5})([hdw])$/;
const HOURS_PER_UNIT: Readonly<Record<string, number>> = { h: 1, d: 24, w: 24 * 7 };

/**
 * When a new token stops working: `--expires-in` a number of hours, days or weeks (12h, 90d, 8w), or
 * `--expires-at` an ISO date or time (2027-03-01 means its start, UTC). A problem comes back as a message.
 */
export function tokenExpiry(
  given: { readonly expiresIn?: string | undefined; readonly expiresAt?: string | undefined },
  now = new Date(),
): { expiresAt: Date | null } | { problem: string } {
  if (given.expiresIn !== undefined && given.expiresAt !== undefined)
    return { problem: "give --expires-in or --expires-at, not both" };
  if (given.expiresIn !== undefined) {
    const match = LIFETIME.exec(given.expiresIn.trim());
    if (match === null || Number(match[1]) === 0)
      return {
        problem: `--expires-in must be a whole number of hours, days or weeks, such as 12h, 90d or 8w (not "${given.expiresIn}")`,
      };
    return {
      expiresAt: new Date(
        now.getTime() + Number(match[1]) * HOURS_PER_UNIT[match[2]!]! * 3_600_000,
      ),
    };
  }
  if (given.expiresAt !== undefined) {
    const text = given.expiresAt.trim();
    const at = /^\d{4}-\d{2}-\d{2}$/.test(text)
      ? new Date(`${text}T00:00:00Z`)
      : /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(text)
        ? new Date(text)
        : new Date(Number.NaN);
    if (Number.isNaN(at.getTime()))
      return {
        problem: `--expires-at must be a date (2027-03-01) or a time with its zone (2027-03-01T12:00:00Z), not "${given.expiresAt}"`,
      };
    if (at.getTime() <= now.getTime())
      return { problem: `--expires-at ${text} is not in the future` };
    return { expiresAt: at };
  }
  return { expiresAt: null };
}
