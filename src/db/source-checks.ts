/**
 * Owns the SQL of the scheduled refresh: the last read of each upstream
 * source (when, its outcome, the revision read, what it filed), and the
 * advisory lock that lets one replica refresh at a time. The lock is held by
 * a connection of its own for the whole refresh (reading a git mirror takes
 * minutes, longer than any pooled transaction should), so it goes with that
 * connection should the process die.
 */
import pg from "pg";
import type { Database } from "./client.js";

/** Taken by the replica that refreshes (any constant, the same everywhere; not the write lock's). */
export const KB_REFRESH_LOCK_ID = 72_707_370;

export interface SourceCheck {
  readonly source: string;
  readonly url: string;
  readonly lastAttemptAt: Date;
  readonly lastSuccessAt: Date | null;
  readonly outcome: "ok" | "failed";
  readonly message: string | null;
  readonly revision: string | null;
  readonly entities: readonly string[];
  readonly filed: number;
  readonly known: number;
}

/** Records one read of a source; a failed read keeps the last success's date, revision and counts. */
export async function recordSourceCheck(
  db: Database,
  check: Omit<SourceCheck, "lastSuccessAt">,
): Promise<void> {
  const succeeded = check.outcome === "ok";
  const fields = {
    url: check.url,
    lastAttemptAt: check.lastAttemptAt,
    outcome: check.outcome,
    message: check.message,
    entities: [...check.entities],
    ...(succeeded
      ? {
          lastSuccessAt: check.lastAttemptAt,
          revision: check.revision,
          filed: check.filed,
          known: check.known,
        }
      : {}),
  };
  await db.kbSourceCheck.upsert({
    where: { source: check.source },
    create: { source: check.source, ...fields },
    update: fields,
  });
}

export async function readSourceChecks(db: Database): Promise<SourceCheck[]> {
  const rows = await db.kbSourceCheck.findMany({ orderBy: { source: "asc" } });
  return rows.map((row) => ({ ...row, outcome: row.outcome === "ok" ? "ok" : "failed" }));
}

/**
 * Runs `work` holding the refresh lock, or answers { ran: false } at once
 * when another replica holds it (it is refreshing now: nothing to wait for).
 */
export async function withRefreshLock<T>(
  url: string,
  work: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_lock($1) AS locked",
      [KB_REFRESH_LOCK_ID],
    );
    if (rows[0]?.locked !== true) return { ran: false };
    try {
      return { ran: true, result: await work() };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [KB_REFRESH_LOCK_ID]);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
