/**
 * The fleet's configuration (FLEET_*), parsed with the rest of the
 * environment in config.ts: the environments in rollout order with their
 * soak times, how many days before a minor leaves standard support each
 * environment is warned, and how deliveries are retried.
 */
import { z } from "zod";

export interface EnvironmentPolicy {
  readonly environment: string;
  /** Days a hop is soaked in this environment before the next environment takes it. */
  readonly soakDays: number;
  /** Days before the end of standard support at which the clusters of this environment are warned, largest first. */
  readonly warnDays: readonly number[];
}

export interface FleetConfig {
  /** In rollout order: the first upgrades first. */
  readonly environments: readonly EnvironmentPolicy[];
  /** Attempts after the first before a delivery goes to the dead-letter list. */
  readonly deliveryRetries: number;
  /** The first retry's delay; each later one doubles it (pg-boss's backoff). */
  readonly deliveryRetryDelaySeconds: number;
  /** How long one delivery may take before it counts as failed. */
  readonly deliveryTimeoutMs: number;
  /** Whether this instance works the delivery queue (every replica may; pg-boss hands each job to one). */
  readonly deliver: boolean;
}

const NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** "dev:7,staging:14,prod:0": names in rollout order with their soak days. */
const environments = z
  .string()
  .transform((value, context) => {
    const entries: Array<{ environment: string; soakDays: number }> = [];
    for (const part of value.split(",")) {
      const match = /^\s*([^:\s]+)\s*:\s*(\d{1,3})\s*$/.exec(part);
      if (match === null || !NAME.test(match[1]!)) {
        context.addIssue({
          code: "custom",
          message: `"${part.trim()}" is not environment:days; write the environments in rollout order, e.g. dev:7,staging:14,prod:0 (names in lower case)`,
        });
        return z.NEVER;
      }
      if (entries.some((entry) => entry.environment === match[1])) {
        context.addIssue({ code: "custom", message: `${match[1]} is named twice` });
        return z.NEVER;
      }
      entries.push({ environment: match[1]!, soakDays: Number(match[2]) });
    }
    return entries;
  })
  .default([
    { environment: "dev", soakDays: 7 },
    { environment: "staging", soakDays: 14 },
    { environment: "prod", soakDays: 0 },
  ]);

/** "90,30,7" for every environment, or "prod=120,60,30;dev=30" per environment (others keep the default). */
const warnDays = z
  .string()
  .transform((value, context) => {
    const perEnvironment = new Map<string, number[]>();
    for (const part of value.split(";")) {
      const match = /^\s*(?:([^=\s]+)\s*=)?\s*(\d{1,4}(?:\s*,\s*\d{1,4})*)\s*$/.exec(part);
      if (match === null) {
        context.addIssue({
          code: "custom",
          message: `"${part.trim()}" is not a list of days; write e.g. 90,30,7 or prod=120,60,30;dev=30`,
        });
        return z.NEVER;
      }
      const days = [...new Set(match[2]!.split(",").map((day) => Number(day.trim())))].sort(
        (a, b) => b - a,
      );
      perEnvironment.set(match[1] ?? "*", days);
    }
    return perEnvironment;
  })
  .default(new Map([["*", [90, 30, 7]]]));

export const FLEET_VARIABLES = {
  FLEET_ENVIRONMENTS: environments,
  FLEET_WARN_DAYS: warnDays,
  FLEET_DELIVERY_RETRIES: z.coerce.number().int().min(0).max(50).default(8),
  FLEET_DELIVERY_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  FLEET_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  FLEET_DELIVER: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .default(true),
};

type FleetVariables = z.output<z.ZodObject<typeof FLEET_VARIABLES>>;

/** The fleet's settings, and the problems between variables (a warning for an environment not configured). */
export function fleetConfigOf(env: FleetVariables): { config: FleetConfig; problems: string[] } {
  const names = new Set(env.FLEET_ENVIRONMENTS.map((entry) => entry.environment));
  const problems = [...env.FLEET_WARN_DAYS.keys()]
    .filter((name) => name !== "*" && !names.has(name))
    .map(
      (name) =>
        `FLEET_WARN_DAYS: ${name} is not one of FLEET_ENVIRONMENTS (${[...names].join(", ")})`,
    );
  const fallback = env.FLEET_WARN_DAYS.get("*") ?? [90, 30, 7];
  return {
    config: {
      environments: env.FLEET_ENVIRONMENTS.map((entry) => ({
        ...entry,
        warnDays: env.FLEET_WARN_DAYS.get(entry.environment) ?? fallback,
      })),
      deliveryRetries: env.FLEET_DELIVERY_RETRIES,
      deliveryRetryDelaySeconds: env.FLEET_DELIVERY_RETRY_DELAY_SECONDS,
      deliveryTimeoutMs: env.FLEET_DELIVERY_TIMEOUT_MS,
      deliver: env.FLEET_DELIVER,
    },
    problems,
  };
}

/** The defaults, for tests and tools that build the fleet without an environment. */
export const DEFAULT_FLEET_CONFIG: FleetConfig = fleetConfigOf(
  z.object(FLEET_VARIABLES).parse({}),
).config;
