/** Structured JSON logs (pino). Secrets are redacted wherever they may appear. */
import { pino, type Logger as PinoLogger } from "pino";

export type Logger = PinoLogger;

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "kubecompat" },
    redact: {
      paths: ["req.headers.authorization", "req.headers.cookie", "databaseUrl", "*.password", "*.token", "*.slackSigningSecret", "*.botToken"],
      censor: "[redacted]",
    },
  });
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
    this.logger.warn(suppressed > 0 ? { ...fields, repeatedSinceLastLine: suppressed } : fields, this.message);
  }
}
