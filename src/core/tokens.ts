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
    throw new ForbiddenError(`${action} needs the ${role} role; token "${principal.name}" has ${principal.role ?? "none"}`);
  }
}
