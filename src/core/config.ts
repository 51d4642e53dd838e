/**
 * Configuration, parsed once from the environment with zod. Every problem is
 * listed at once so an operator fixes them in one go. Nothing else in the
 * code base reads process.env. `npm start` and the operator tools also read
 * a `.env` file in the working directory when there is one (loadConfig);
 * a variable already in the environment wins over the file.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { z } from "zod";
import { isLoopbackHost } from "./loopback.js";
import { REFRESH_VARIABLES, refreshConfigOf, type RefreshConfig } from "./refresh-config.js";
import { FLEET_VARIABLES, fleetConfigOf, type FleetConfig } from "./fleet-config.js";

const booleanFromEnv = z
  .enum(["true", "false", "1", "0", "yes", "no"], { message: 'must be one of "true" or "false"' })
  .transform((value) => value === "true" || value === "1" || value === "yes");

const portNumber = z.coerce
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be between 1 and 65535")
  .max(65535, "must be between 1 and 65535");

/** A Slack user id as Slack sends it in user_id: U or W, then capitals and digits. */
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,20}$/;

/** Every interface: the service is meant to be reached (in a container, behind a load balancer). */
const DEFAULT_HOST = "0.0.0.0";

const environmentSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: portNumber.default(4000),
  HOST: z.string().min(1).default(DEFAULT_HOST),
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
  SLACK_SIGNING_SECRET: z
    .string()
    .min(16, "must be the Slack app's signing secret (at least 16 characters)")
    .optional(),
  CHATOPS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters so it cannot be guessed")
    .optional(),
  CHATOPS_REVIEWERS: z
    .string()
    .transform((value, context) => {
      const ids = value
        .split(",")
        .map((id) => id.trim())
        .filter((id) => id !== "");
      const bad = ids.filter((id) => !SLACK_USER_ID.test(id));
      if (bad.length > 0) {
        context.addIssue({
          code: "custom",
          message: `must be Slack user ids separated by commas (such as U024BE7LH, from a profile's "Copy member ID"); not ${bad.map((id) => `"${id}"`).join(", ")}`,
        });
        return z.NEVER;
      }
      return ids;
    })
    .optional(),
  // Chat commands without Slack's signature or a token, for trying them on a laptop: loopback only (see devModeProblems).
  CHATOPS_DEV: booleanFromEnv.default(false),
  REQUIRE_AUTH_FOR_READS: booleanFromEnv.default(false),
  METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters so it cannot be guessed")
    .optional(),
  TRUST_PROXY: z
    .string()
    .transform((value, context) => {
      const trust = parseTrustProxy(value);
      if ("problem" in trust) {
        context.addIssue({ code: "custom", message: trust.problem });
        return z.NEVER;
      }
      return trust.trust;
    })
    .optional(),
  HSTS: booleanFromEnv.default(false),
  RATE_LIMIT_WRITES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120),
  RATE_LIMIT_CHAT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  EDIT_GATHER_MS: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number of milliseconds")
    .min(0, "must be 0 (off) or more")
    .max(1_000, "must be at most 1000")
    .default(50),
  READS_PER_TURN: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(0, "must be 0 (no turns) or more")
    .max(1_000, "must be at most 1000")
    .default(4),
  LARGE_REQUESTS_IN_FLIGHT: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(64, "must be at most 64")
    .default(2),
  ANSWER_CACHE_MB: z.coerce
    .number({ message: "must be a number" })
    .min(0, "must be 0 (off) or more")
    .max(1024, "must be at most 1024")
    .default(8),
  ...REFRESH_VARIABLES,
  ...FLEET_VARIABLES,
  // Set by npm for the scripts it runs (`npm start`): the service then ends with that npm process.
  npm_lifecycle_event: z.string().optional(),
});

/** Every variable the service reads; docker-compose.yml and .env.example may use no others. */
export const ENVIRONMENT_VARIABLES: readonly string[] = Object.keys(environmentSchema.shape);

export interface Config {
  readonly env: "development" | "production" | "test";
  readonly http: {
    readonly port: number;
    readonly host: string;
    readonly shutdownTimeoutMs: number;
  };
  /** Where the database comes from: a server the operator runs, or one we embed. */
  readonly database:
    | { readonly kind: "external"; readonly url: string; readonly poolSize: number }
    | {
        readonly kind: "embedded";
        readonly dataDir: string;
        readonly port: number;
        /** EMBEDDED_PG_PORT was set: a busy port is then an error, not a reason to take another. */
        readonly portGiven: boolean;
        readonly poolSize: number;
      };
  /** pollMs: how often the revision is checked as a fallback for missed change notifications. */
  readonly kb: { readonly dir: string; readonly importOnStart: boolean; readonly pollMs: number };
  /** The scheduled refresh from upstream sources (src/core/refresh-config.ts). */
  readonly refresh: RefreshConfig;
  /** The fleet: environments in rollout order, deadline warnings, deliveries (src/core/fleet-config.ts). */
  readonly fleet: FleetConfig;
  readonly logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Chat endpoints answer 503 until their secret is configured. */
  readonly chatops: {
    readonly slackSigningSecret: string | null;
    readonly botToken: string | null;
    /**
     * Slack user ids that may approve and reject proposals in chat (acting as editors, recorded as
     * `slack:<user id>`); none: nobody decides in chat. Bots (CHATOPS_TOKEN) never decide: a shared
     * token names no person.
     */
    readonly reviewers?: readonly string[];
    /**
     * CHATOPS_DEV: POST /chatops/dev answers commands from this machine without a signature or token,
     * for trying the chat locally. Only with HOST on loopback; never decides proposals.
     */
    readonly devMode?: boolean;
  };
  /** Reads (and checks) need a reader token too, not only edits. */
  readonly requireAuthForReads: boolean;
  /** A token that Prometheus sends for /metrics (else /metrics follows requireAuthForReads). */
  readonly metricsToken: string | null;
  /**
   * Which proxies in front may say who the client is (X-Forwarded-For), as Express's "trust proxy":
   * false (none: the connection's address is the client), a number of hops, or their addresses.
   */
  readonly trustProxy: TrustProxy;
  /** Send Strict-Transport-Security on every answer (TLS ends at a proxy in front); else only on answers over TLS. */
  readonly hsts: boolean;
  /** Requests per minute per token (or client address) on edits, import and chat. */
  readonly rateLimits: { readonly writesPerMinute: number; readonly chatPerMinute: number };
  /** Under steady writes, a group of edits starts at most every gatherMs (0: as soon as the one before committed). */
  readonly edits: { readonly gatherMs: number };
  /** Bytes of answers each face (REST, GraphQL) remembers per snapshot; 0 turns remembering off. */
  readonly answerCacheBytes: number;
  /** Reads let in per pass of the event loop, so edits and probes go first (src/http/read-turns.ts); 0: no turns. */
  readonly readsPerTurn: number;
  /** Requests with bodies of 1 MiB or more read at a time; the rest wait (src/http/large-requests.ts). */
  readonly largeRequestsInFlight: number;
  /**
   * Started by an npm script (`npm start`, `npm run dev`): that npm process is the service as far
   * as its operator knows, so when the process that started the server goes away (npm killed, even
   * with SIGKILL, or the shell between them), the server stops as on SIGTERM instead of running on,
   * orphaned, with its embedded PostgreSQL.
   */
  readonly stopWhenLauncherExits: boolean;
}

export type TrustProxy = false | number | readonly string[];

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * TRUST_PROXY: "false", a number of proxies in front (1 for one ingress), or a comma-separated list of
 * their addresses, subnets (CIDR) or Express's names (loopback, linklocal, uniquelocal). "true" is
 * refused: trusting every hop lets any client write its own address, and so pick its own rate limit.
 */
export function parseTrustProxy(value: string): { trust: TrustProxy } | { problem: string } {
  const text = value.trim().toLowerCase();
  if (text === "false" || text === "0") return { trust: false };
  if (text === "true")
    return {
      problem:
        "trusting every proxy lets any client choose the address it is counted under; give the number of proxies in front of the service (e.g. 1) or their addresses",
    };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops <= 10 ? { trust: hops } : { problem: "at most 10 proxies in front of the service" };
  }
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const bad = entries.filter((entry) => {
    if (PROXY_NAMES.has(entry)) return false;
    const [address, bits, ...rest] = entry.split("/");
    const family = net.isIP(address ?? "");
    if (family === 0 || rest.length > 0) return true;
    if (bits === undefined) return false;
    const size = Number(bits);
    return !/^\d+$/.test(bits) || size > (family === 4 ? 32 : 128);
  });
  if (entries.length === 0 || bad.length > 0) {
    return {
      problem: `must be false, a number of proxies, or a comma-separated list of addresses, subnets (10.0.0.0/8) or loopback/linklocal/uniquelocal; not ${bad.map((entry) => `"${entry}"`).join(", ") || "empty"}`,
    };
  }
  return { trust: entries };
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
  // Problems between variables are listed with the variables' own, so one run names everything to fix.
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues).map(
      (issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`,
    ),
    ...devModeProblems(present),
    ...(parsed.success ? fleetConfigOf(parsed.data).problems : []),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
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
            portGiven: present.EMBEDDED_PG_PORT !== undefined,
            poolSize: env.DATABASE_POOL_SIZE,
          }
        : { kind: "external", url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE },
    kb: {
      dir: path.resolve(cwd, env.KB_DIR),
      importOnStart: env.KB_IMPORT_ON_START,
      pollMs: env.KB_POLL_MS,
    },
    refresh: refreshConfigOf(env, cwd),
    fleet: fleetConfigOf(env).config,
    logLevel: env.LOG_LEVEL,
    chatops: {
      slackSigningSecret: env.SLACK_SIGNING_SECRET ?? null,
      botToken: env.CHATOPS_TOKEN ?? null,
      reviewers: env.CHATOPS_REVIEWERS ?? [],
      devMode: env.CHATOPS_DEV,
    },
    requireAuthForReads: env.REQUIRE_AUTH_FOR_READS,
    metricsToken: env.METRICS_TOKEN ?? null,
    trustProxy: env.TRUST_PROXY ?? false,
    hsts: env.HSTS,
    rateLimits: {
      writesPerMinute: env.RATE_LIMIT_WRITES_PER_MINUTE,
      chatPerMinute: env.RATE_LIMIT_CHAT_PER_MINUTE,
    },
    edits: { gatherMs: env.EDIT_GATHER_MS },
    answerCacheBytes: Math.round(env.ANSWER_CACHE_MB * 1024 * 1024),
    readsPerTurn: env.READS_PER_TURN,
    largeRequestsInFlight: env.LARGE_REQUESTS_IN_FLIGHT,
    stopWhenLauncherExits: env.npm_lifecycle_event !== undefined,
  };
}

/**
 * CHATOPS_DEV answers chat commands with no proof of who sent them: that is safe only on a service that
 * nobody else can reach, so it needs HOST on loopback (the route also refuses non-loopback peers).
 * Read from the raw values, so the problem is listed even when other variables have their own.
 */
function devModeProblems(present: Record<string, string | undefined>): string[] {
  const asked = ["true", "1", "yes"].includes(present.CHATOPS_DEV ?? "");
  const host = present.HOST ?? DEFAULT_HOST;
  if (!asked || isLoopbackHost(host)) return [];
  return [
    `CHATOPS_DEV: chat dev mode answers commands without a signature or token, so it runs only on a service bound to this machine; HOST is ${host}: set HOST=127.0.0.1 (or ::1, localhost), or unset CHATOPS_DEV`,
  ];
}

/** The file loadConfig reads, in the working directory. */
export const ENV_FILE = ".env";

/**
 * The configuration of `npm start` and the operator tools: the environment,
 * completed by `cwd/.env` when that file exists. A variable present in the
 * environment wins, even when empty (which means its default), as with
 * dotenv and docker compose; problems in the file are listed with their line.
 */
export function loadConfig(
  environment: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): Config {
  const file = path.join(cwd, ENV_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return parseConfig(environment, cwd);
    throw new ConfigError([
      `${ENV_FILE}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    ]);
  }
  const { values, problems } = parseEnvFile(text);
  if (problems.length > 0)
    throw new ConfigError(problems.map((problem) => `${ENV_FILE} ${problem}`));
  const merged: Record<string, string | undefined> = { ...values };
  for (const [name, value] of Object.entries(environment))
    if (value !== undefined) merged[name] = value;
  return parseConfig(merged, cwd);
}

/**
 * The `.env` format as dotenv and docker compose read it: `NAME=value` lines, `#` comments and
 * blank lines, an optional `export ` prefix, values optionally in single quotes (taken as they
 * are) or double quotes (with \n, \t, \" and \\ escapes); an unquoted value ends at ` #`.
 * A line that is none of these is a problem, never silently skipped.
 */
export function parseEnvFile(text: string): { values: Record<string, string>; problems: string[] } {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const where = `line ${index + 1}`;
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(trimmed);
    if (!match) {
      // The line itself is not repeated: it may hold a secret.
      problems.push(`${where}: expected NAME=value (a # starts a comment line)`);
      return;
    }
    const name = match[1]!;
    const raw = match[2]!;
    let value: string;
    if (raw.startsWith("'") || raw.startsWith('"')) {
      const quote = raw[0]!;
      const end = quote === "'" ? raw.indexOf("'", 1) : closingDoubleQuote(raw);
      if (end < 0 || !/^\s*(#.*)?$/.test(raw.slice(end + 1))) {
        problems.push(
          `${where}: ${name}'s value opens a ${quote === "'" ? "single" : "double"} quote that is not closed at the end of its line`,
        );
        return;
      }
      value = raw.slice(1, end);
      if (quote === '"')
        value = value.replace(
          /\\([nrt"\\])/g,
          (_escape, character: string) => ({ n: "\n", r: "\r", t: "\t" })[character] ?? character,
        );
    } else {
      value = raw.replace(/\s+#.*$/, "").trim();
    }
    values[name] = value;
  });
  return { values, problems };
}

function closingDoubleQuote(raw: string): number {
  for (let index = 1; index < raw.length; index += 1) {
    if (raw[index] === "\\") index += 1;
    else if (raw[index] === '"') return index;
  }
  return -1;
}
