/**
 * Configuration, parsed once from the environment with zod. Every problem is
 * listed at once so an operator fixes them in one go. Nothing else in the
 * code base reads process.env.
 */
import path from "node:path";
import { z } from "zod";

const booleanFromEnv = z
  .enum(["true", "false", "1", "0", "yes", "no"], { message: 'must be one of "true" or "false"' })
  .transform((value) => value === "true" || value === "1" || value === "yes");

const portNumber = z.coerce
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be between 1 and 65535")
  .max(65535, "must be between 1 and 65535");

const environmentSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: portNumber.default(4000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, "must be a postgresql:// connection URL")
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  EMBEDDED_PG_DIR: z.string().min(1).default(".data/postgres"),
  EMBEDDED_PG_PORT: portNumber.default(54329),
  KB_DIR: z.string().min(1).default("kb"),
  KB_IMPORT_ON_START: booleanFromEnv.default(true),
  KB_POLL_MS: z.coerce.number().int().min(200).max(600_000).default(5_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  SLACK_SIGNING_SECRET: z.string().min(16, "must be the Slack app's signing secret (at least 16 characters)").optional(),
  CHATOPS_TOKEN: z.string().min(16, "must be at least 16 characters so it cannot be guessed").optional(),
  REQUIRE_AUTH_FOR_READS: booleanFromEnv.default(false),
  RATE_LIMIT_WRITES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120),
  RATE_LIMIT_CHAT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  LARGE_REQUESTS_IN_FLIGHT: z.coerce.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(64, "must be at most 64").default(2),
  ANSWER_CACHE_MB: z.coerce.number({ message: "must be a number" }).min(0, "must be 0 (off) or more").max(1024, "must be at most 1024").default(8),
});

/** Every variable the service reads; docker-compose.yml and .env.example may use no others. */
export const ENVIRONMENT_VARIABLES: readonly string[] = Object.keys(environmentSchema.shape);

export interface Config {
  readonly env: "development" | "production" | "test";
  readonly http: { readonly port: number; readonly host: string; readonly shutdownTimeoutMs: number };
  /** Where the database comes from: a server the operator runs, or one we embed. */
  readonly database:
    | { readonly kind: "external"; readonly url: string; readonly poolSize: number }
    | { readonly kind: "embedded"; readonly dataDir: string; readonly port: number; readonly poolSize: number };
  /** pollMs: how often the revision is checked as a fallback for missed change notifications. */
  readonly kb: { readonly dir: string; readonly importOnStart: boolean; readonly pollMs: number };
  readonly logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Chat endpoints answer 503 until their secret is configured. */
  readonly chatops: { readonly slackSigningSecret: string | null; readonly botToken: string | null };
  /** Reads (and checks) need a reader token too, not only edits. */
  readonly requireAuthForReads: boolean;
  /** Requests per minute per token (or client address) on edits, import and chat. */
  readonly rateLimits: { readonly writesPerMinute: number; readonly chatPerMinute: number };
  /** Bytes of answers each face (REST, GraphQL) remembers per snapshot; 0 turns remembering off. */
  readonly answerCacheBytes: number;
  /** Requests with bodies of 1 MiB or more read at a time; the rest wait (src/rest/large-requests.ts). */
  readonly largeRequestsInFlight: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Parses the environment (process.env by default); relative paths resolve against `cwd`. */
export function parseConfig(
  environment: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): Config {
  // Empty strings count as unset, as in most twelve-factor tooling.
  const present = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`),
    );
  }
  const env = parsed.data;
  return {
    env: env.NODE_ENV,
    http: { port: env.PORT, host: env.HOST, shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS },
    database:
      env.DATABASE_URL === undefined
        ? {
            kind: "embedded",
            dataDir: path.resolve(cwd, env.EMBEDDED_PG_DIR),
            port: env.EMBEDDED_PG_PORT,
            poolSize: env.DATABASE_POOL_SIZE,
          }
        : { kind: "external", url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE },
    kb: { dir: path.resolve(cwd, env.KB_DIR), importOnStart: env.KB_IMPORT_ON_START, pollMs: env.KB_POLL_MS },
    logLevel: env.LOG_LEVEL,
    chatops: { slackSigningSecret: env.SLACK_SIGNING_SECRET ?? null, botToken: env.CHATOPS_TOKEN ?? null },
    requireAuthForReads: env.REQUIRE_AUTH_FOR_READS,
    rateLimits: { writesPerMinute: env.RATE_LIMIT_WRITES_PER_MINUTE, chatPerMinute: env.RATE_LIMIT_CHAT_PER_MINUTE },
    answerCacheBytes: Math.round(env.ANSWER_CACHE_MB * 1024 * 1024),
    largeRequestsInFlight: env.LARGE_REQUESTS_IN_FLIGHT,
  };
}
