/** Structured JSON logs (pino). Secrets are redacted wherever they may appear. */
import { pino, type Logger as PinoLogger } from "pino";

export type Logger = PinoLogger;

/** @param destination where the lines go (standard output unless given, e.g. a test's sink). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = {
    level,
    base: { service: "kubecompat" },
    serializers: { err: errorForLog },
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        "databaseUrl",
        "*.password",
        "*.token",
        "*.slackSigningSecret",
        "*.botToken",
      ],
      censor: "[redacted]",
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

/**
 * What libraries hang on the errors they emit, and a log line must not
 * carry: pg gives an idle connection's error its whole client (the pool,
 * the socket, the connection parameters with the password), tens of
 * kilobytes a line during an outage.
 */
const ATTACHED_TO_ERRORS = ["client", "connection", "pool", "socket"];

/** An error as logged: pino's standard fields (type, message, stack, code, cause), without what was attached to it. */
function errorForLog(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  for (const field of ATTACHED_TO_ERRORS) delete serialized[field];
  return serialized;
}

/**
 * A warning that would otherwise repeat once per request during an outage:
 * the first occurrence is logged at once, the rest of each window is counted
 * and summarised in one line when the next window begins.
 */
export class RepeatedWarning {
  private windowStart = 0;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly message: string,
    private readonly windowMs = 30_000,
  ) {}

  warn(fields: Record<string, unknown>): void {
    const now = Date.now();
    if (now - this.windowStart < this.windowMs) {
      this.suppressed += 1;
      return;
    }
    const suppressed = this.suppressed;
    this.windowStart = now;
    this.suppressed = 0;
    this.logger.warn(
      suppressed > 0 ? { ...fields, repeatedSinceLastLine: suppressed } : fields,
      this.message,
    );
  }
}
