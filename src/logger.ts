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
