/** Owns the SQL for API tokens; token changes are audited in the same transaction. */
import type { Role } from "../core/tokens.js";
import type { Database } from "./client.js";

export interface StoredToken {
  readonly id: number;
  readonly name: string;
  readonly role: Role;
  readonly secretHash: string;
  readonly prefix: string;
  readonly createdAt: Date;
  readonly createdBy: string;
  readonly revokedAt: Date | null;
  readonly lastUsedAt: Date | null;
  readonly expiresAt: Date | null;
}

async function currentRevision(db: Pick<Database, "kbState">): Promise<number> {
  return (
    (await db.kbState.findUnique({ where: { id: 1 }, select: { revision: true } }))?.revision ?? 0
  );
}

export async function insertToken(
  db: Database,
  token: { name: string; role: Role; secretHash: string; prefix: string; expiresAt?: Date | null },
  actor: { name: string; role: string },
): Promise<StoredToken> {
  return db.$transaction(async (tx) => {
    const created = await tx.apiToken.create({ data: { ...token, createdBy: actor.name } });
    await tx.auditEntry.create({
      data: {
        actor: actor.name,
        actorRole: actor.role,
        action: "token.create",
        entity: "token",
        key: token.name,
        after: {
          name: token.name,
          role: token.role,
          prefix: token.prefix,
          expiresAt: token.expiresAt?.toISOString() ?? null,
        },
        kbRevision: await currentRevision(tx),
      },
    });
    return created;
  });
}

export async function revokeToken(
  db: Database,
  name: string,
  actor: { name: string; role: string },
): Promise<StoredToken | null> {
  return db.$transaction(async (tx) => {
    const existing = await tx.apiToken.findUnique({ where: { name } });
    if (existing === null || existing.revokedAt !== null) return null;
    const revoked = await tx.apiToken.update({
      where: { id: existing.id },
      data: { revokedAt: new Date() },
    });
    await tx.auditEntry.create({
      data: {
        actor: actor.name,
        actorRole: actor.role,
        action: "token.revoke",
        entity: "token",
        key: name,
        before: { name, role: existing.role, prefix: existing.prefix },
        kbRevision: await currentRevision(tx),
      },
    });
    return revoked;
  });
}

export async function listTokens(db: Database): Promise<StoredToken[]> {
  return db.apiToken.findMany({ orderBy: { createdAt: "asc" } });
}

export async function findTokenByHash(
  db: Database,
  secretHash: string,
): Promise<StoredToken | null> {
  return db.apiToken.findUnique({ where: { secretHash } });
}

export async function markTokenUsed(db: Database, id: number): Promise<void> {
  await db.apiToken.update({ where: { id }, data: { lastUsedAt: new Date() } });
}
