/**
 * The fleet's deadlines: when a registered cluster's Kubernetes minor leaves
 * support on the calendar that governs it, and the latest day its upgrade
 * must start so that a rollout through the fleet's environments (dev, then
 * staging, then prod, each soaking a hop before the next takes it) is done
 * by then. Pure: reads only the snapshot and its arguments; "today" is always
 * passed in (asOf), never read from the clock.
 *
 * The calendar is read as checkReleases (release-checks.ts) reads it for a
 * validation: the platform's own row where the cluster runs on one and that
 * row exists, upstream's release record otherwise. test/fleet-deadlines.test.ts
 * checks by generation that validate's calendar findings appear exactly on
 * the days these dates say, so the two readings cannot drift apart.
 *
 * Which date the fleet works back from: the end of standard support. Past it
 * a platform charges for extended support (EKS) or upstream patches critical
 * fixes only, so that is the day a fleet plans to be off the minor; the end
 * of all support is told beside it, not planned to.
 */
import { readMinor } from "./version-reader.js";
import { InputError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { daysBetween, parseAsOf } from "./days.js";
import { resolvePlatform } from "./platforms.js";

/** The platform name for a self-managed cluster, read as validate reads it (onPlatform in validate.ts). */
const UPSTREAM = "upstream";

/** Far beyond any fleet (Kubernetes has had a few dozen minors); it bounds the work of the recurrence. */
const MAX_HOPS = 1000;

/**
 * When a minor leaves support on the calendar that governs a cluster.
 *
 * The dates are as each calendar states them, and the calendars count them
 * differently (as validate judges them): a platform's date is the first day
 * out of that support (PLATFORM_EXTENDED_SUPPORT and PLATFORM_END_OF_SUPPORT
 * from asOf >= date), upstream's is the last day still in it
 * (RELEASE_MAINTENANCE_MODE and RELEASE_END_OF_LIFE from asOf > date).
 */
export interface SupportEnd {
  /** "1.30" */
  readonly minor: string;
  /** The platform's name (eks, gke, aks), or "upstream". */
  readonly calendar: string;
  /** When standard support ends: the date the fleet works back from. */
  readonly endOfStandardSupport: string | null;
  /** When every support ends: a platform's extended or long-term support, upstream's end of life (maintenance ends). Null when the calendar does not say. */
  readonly endOfSupport: string | null;
  /** MONTH when the platform gives only the month (the date is then the day the platform means by it). */
  readonly precision: "DAY" | "MONTH";
  readonly sourceUrl: string | null;
  /** Why upstream's calendar was read for a cluster on a platform; null otherwise. */
  readonly note: string | null;
}

/**
 * The support end of `minor` ("1.30", or any version of it) on the calendar
 * that governs a cluster on `platformName` (eks, gke, aks; null, "" or
 * "upstream" for a self-managed cluster). Null when the knowledge base does
 * not know the minor: validate judges no calendar for it either
 * (VERSION_UNKNOWN_NEWER, VERSION_OLDER_THAN_KB), and a guessed date would be
 * worse than none. An unknown platform name is an InputError naming the known
 * ones (resolvePlatform).
 */
export function supportEnd(
  snapshot: KbSnapshot,
  minor: string,
  platformName: string | null,
): SupportEnd | null {
  const wanted = readMinor(snapshot, minor, "minor");
  const platform =
    platformName === null ||
    platformName.trim() === "" ||
    platformName.trim().toLowerCase() === UPSTREAM
      ? undefined
      : resolvePlatform(snapshot, platformName);
  const release = snapshot.findRelease(wanted);
  if (release === undefined) return null;
  const row = platform?.releases.find((candidate) => candidate.minor === wanted);
  if (platform !== undefined && row !== undefined) {
    return {
      minor: wanted,
      calendar: platform.name,
      endOfStandardSupport: row.endOfStandardSupport,
      endOfSupport: row.endOfExtendedSupport,
      precision: row.precision,
      sourceUrl: row.sourceUrl,
      note: null,
    };
  }
  return {
    minor: wanted,
    calendar: UPSTREAM,
    endOfStandardSupport: release.endOfStandardSupport,
    endOfSupport: release.endOfLife,
    precision: "DAY",
    sourceUrl: release.sourceUrl,
    // As validate says it (PLATFORM_VERSION_UNKNOWN): the cluster is judged by upstream's calendar instead.
    note:
      platform === undefined
        ? null
        : `${platform.displayName}'s calendar in the knowledge base has no row for ${wanted}; upstream's calendar was read instead`,
  };
}

/** Whole days from asOf to `day` (YYYY-MM-DD): 0 on the day, negative once it is past. */
export function daysLeft(asOf: string, day: string): number {
  return daysBetween(asOf, day);
}

/** One environment of the fleet's rollout and how long a hop soaks there before the next environment takes it. */
export interface EnvironmentSoak {
  readonly environment: string;
  readonly soakDays: number;
}

/** The latest day to start a cluster's upgrade (the first environment's first hop) and how it was worked out. */
export interface StartBy {
  readonly deadline: string;
  /** Minors to climb, one at a time. */
  readonly hops: number;
  /** Days from the first environment starting hop 1 to this environment taking the last hop. */
  readonly leadDays: number;
  readonly latestStart: string;
  /** Days from asOf to latestStart; negative once it is past. */
  readonly daysToStart: number;
  readonly overdue: boolean;
  /** One sentence for a person. */
  readonly explanation: string;
}

/**
 * The latest day the fleet's rollout must start for a cluster in
 * `environment` to have taken its last hop by `deadline` (the end of standard
 * support: see the module comment).
 *
 * The model is a pipelined rollout. The fleet climbs one hop (one minor) at a
 * time in each environment, in `order` (prod last). Environment k takes hop h
 * once environment k-1 has soaked hop h and environment k itself has soaked
 * hop h-1; so dev can start its second hop while staging soaks the first.
 * With F(k,h) the day environment k has soaked hop h and U(k,h) the day it
 * takes it, counted from the day the first environment takes hop 1:
 *   U(k,h) = max(F(k-1,h), F(k,h-1)),  F(k,h) = U(k,h) + soak(k),
 *   F(-1,h) = 0,  F(k,0) = 0.
 * leadDays is U(E,H) for the cluster's environment E and hops H (0 for no
 * hop); latestStart = deadline - leadDays, the day the last hop is taken being
 * the deadline itself. A hop is taken within its day; the soak of the
 * cluster's own environment after its last hop is not waited for.
 */
export function latestStart(input: {
  readonly deadline: string;
  readonly hops: number;
  readonly environment: string;
  readonly order: readonly EnvironmentSoak[];
  readonly asOf: string;
  /** What the deadline is, for the explanation, e.g. "end of standard support of 1.30 on Amazon EKS". */
  readonly deadlineLabel?: string;
}): StartBy {
  const deadline = readDay(input.deadline, "deadline");
  const asOf = readDay(input.asOf, "asOf");
  if (!Number.isSafeInteger(input.hops) || input.hops < 0 || input.hops > MAX_HOPS)
    throw new InputError(`hops must be a whole number of minors, 0 to ${MAX_HOPS}`, "hops");
  const order = readOrder(input.order);
  const index = order.findIndex((entry) => entry.environment === input.environment);
  if (index < 0) {
    throw new InputError(
      `unknown environment "${String(input.environment).slice(0, 40)}"; the environments configured, in rollout order: ${order.map((entry) => entry.environment).join(", ") || "none"}`,
      "environment",
    );
  }
  const leadDays = rolloutLead(
    order.map((entry) => entry.soakDays),
    index,
    input.hops,
  );
  const start = addDays(deadline, -leadDays);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(start)) {
    throw new InputError(
      `the rollout takes ${leadDays} days, which leads back before any calendar day; check hops and soakDays`,
      "order",
    );
  }
  const daysToStart = daysBetween(asOf, start);
  return {
    deadline,
    hops: input.hops,
    leadDays,
    latestStart: start,
    daysToStart,
    overdue: daysToStart < 0,
    explanation: explain(
      order,
      index,
      input.hops,
      start,
      deadline,
      input.deadlineLabel,
      asOf,
      daysToStart,
    ),
  };
}

/** U(E,H) of the recurrence in latestStart's comment, row by row over the environments up to E. */
function rolloutLead(soaks: readonly number[], environment: number, hops: number): number {
  if (hops === 0) return 0;
  // soakedAbove[h]: F(k-1,h) for the environment before the one computed (F(-1,h) = 0).
  let soakedAbove = new Array<number>(hops + 1).fill(0);
  let taken = 0;
  for (let k = 0; k <= environment; k += 1) {
    const soaked = new Array<number>(hops + 1).fill(0);
    for (let h = 1; h <= hops; h += 1) {
      taken = Math.max(soakedAbove[h]!, soaked[h - 1]!);
      soaked[h] = taken + soaks[k]!;
    }
    soakedAbove = soaked;
  }
  return taken;
}

function readOrder(order: readonly EnvironmentSoak[]): readonly EnvironmentSoak[] {
  // Callers pass configuration read at runtime: the type alone does not make it a list.
  const list: unknown = order;
  if (!Array.isArray(list))
    throw new InputError("order must list the environments in rollout order", "order");
  const seen = new Set<string>();
  order.forEach((entry, position) => {
    const field = `order[${position}]`;
    if (typeof entry?.environment !== "string" || entry.environment.trim() === "")
      throw new InputError(`${field}.environment must name an environment`, field);
    if (seen.has(entry.environment))
      throw new InputError(
        `${field}: environment "${entry.environment.slice(0, 40)}" is listed twice; each environment has one place in the rollout`,
        field,
      );
    seen.add(entry.environment);
    if (!Number.isSafeInteger(entry.soakDays) || entry.soakDays < 0)
      throw new InputError(`${field}.soakDays must be a whole number of days, 0 or more`, field);
  });
  return order;
}

function readDay(day: string, field: string): string {
  // parseAsOf reads a missing day as today; a deadline or an asOf here is never implied.
  if (typeof day !== "string" || day.trim() === "")
    throw new InputError(`${field} must be a date such as 2026-01-31`, field);
  return parseAsOf(day, field);
}

function addDays(day: string, days: number): string {
  const time = Date.parse(`${day}T00:00:00Z`) + days * 86_400_000;
  return Number.isFinite(time) && Math.abs(time) <= 8.64e15
    ? new Date(time).toISOString().slice(0, 10)
    : "";
}

function explain(
  order: readonly EnvironmentSoak[],
  index: number,
  hops: number,
  start: string,
  deadline: string,
  deadlineLabel: string | undefined,
  asOf: string,
  daysToStart: number,
): string {
  const environment = order[index]!.environment;
  const label =
    deadlineLabel === undefined || deadlineLabel.trim() === "" ? "" : ` (${deadlineLabel.trim()})`;
  const when =
    daysToStart < 0
      ? `; ${-daysToStart} ${-daysToStart === 1 ? "day" : "days"} overdue on ${asOf}`
      : "";
  if (hops === 0)
    return `No hop to take in ${environment}: nothing to start before ${deadline}${label}.`;
  const soaks = order
    .slice(0, index)
    .map((entry) => `${entry.environment} ${entry.soakDays} d`)
    .join(" → ");
  const path =
    index > 0
      ? `each soaked ${soaks} before ${environment}`
      : hops > 1
        ? `each soaked ${environment} ${order[index]!.soakDays} d before the next`
        : `taken first in ${environment}`;
  return `${hops} ${hops === 1 ? "hop" : "hops"}, ${path}: start by ${start} to finish by ${deadline}${label}${when}.`;
}
