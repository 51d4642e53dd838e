/**
 * Recognises "the database is not there" among the errors the Prisma client
 * and the pg driver raise (refused or dropped connections, timeouts, a
 * server shutting down, a pool or a transaction that gets no connection in
 * time because the server does not answer), so both error mappers can
 * answer 503 UNAVAILABLE instead of a masked 500.
 */
import { UnavailableError } from "../core/errors.js";

const CONNECTION_CODES = new Set([
  "53300",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08003",
  "08006",
  "P1001",
  "P1002",
  "P1017",
  "P2024",
]);
const CONNECTION_TEXT =
  /can't reach database|connection (terminated|refused|closed|timeout|ended)|terminating connection|server closed the connection|timed out fetching a new connection|the database system is (shutting down|starting up)|ECONNREFUSED|Connection terminated|timeout exceeded when trying to connect|unable to start a transaction in the given time|Connection is not open|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end/i;

// Prisma's driver adapter reports connection trouble as a kind, without a code or a message.
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
  "TransactionAlreadyClosed",
]);

export function asUnavailable(error: unknown): UnavailableError | undefined {
  // Breadth-first over `cause` and Prisma's `meta.driverAdapterError`, a few levels deep.
  const queue: Array<{ value: unknown; depth: number }> = [{ value: error, depth: 0 }];
  while (queue.length > 0) {
    const { value, depth } = queue.shift()!;
    if (value === null || typeof value !== "object" || depth > 5) continue;
    const { code, originalCode, kind, message, cause, meta } = value as {
      code?: unknown;
      originalCode?: unknown;
      kind?: unknown;
      message?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    if (
      (typeof code === "string" && CONNECTION_CODES.has(code)) ||
      (typeof originalCode === "string" && CONNECTION_CODES.has(originalCode)) ||
      (typeof kind === "string" && ADAPTER_KINDS.has(kind)) ||
      (typeof message === "string" && CONNECTION_TEXT.test(message))
    ) {
      return new UnavailableError(
        "the database is unavailable: reads keep answering from memory, writes are refused until it is back; retry shortly",
      );
    }
    queue.push({ value: cause, depth: depth + 1 });
    if (meta !== null && typeof meta === "object")
      queue.push({ value: meta.driverAdapterError, depth: depth + 1 });
  }
  return undefined;
}
