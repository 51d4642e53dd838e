/**
 * Recognises "the database is not there" among the errors the Prisma client
 * and the pg driver raise (refused or dropped connections, timeouts, a
 * server shutting down, a pool or a transaction that gets no connection in
 * time because the server does not answer), so both error mappers can
 * answer 503 UNAVAILABLE instead of a masked 500.
 */
import { UnavailableError } from "../errors.js";

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "57P01", "57P02", "57P03", "08000", "08003", "08006", "P1001", "P1002", "P1017", "P2024"]);
const CONNECTION_TEXT = /can't reach database|connection (terminated|refused|closed|timeout|ended)|terminating connection|server closed the connection|timed out fetching a new connection|the database system is (shutting down|starting up)|ECONNREFUSED|Connection terminated|timeout exceeded when trying to connect|unable to start a transaction in the given time/i;

export function asUnavailable(error: unknown): UnavailableError | undefined {
  for (let current: unknown = error, depth = 0; current !== null && typeof current === "object" && depth < 5; depth += 1) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if ((typeof code === "string" && CONNECTION_CODES.has(code)) || (typeof message === "string" && CONNECTION_TEXT.test(message))) {
      return new UnavailableError("the database is unavailable: reads keep answering from memory, writes are refused until it is back; retry shortly");
    }
    current = cause;
  }
  return undefined;
}
