/**
 * The fleet's deadlines (src/domain/fleet-deadlines.ts):
 * - supportEnd, by table on the synthetic knowledge base with a platform written for the test, and by
 *   generation against validateCluster: the calendar findings validate gives (PLATFORM_EXTENDED_SUPPORT,
 *   PLATFORM_END_OF_SUPPORT, RELEASE_MAINTENANCE_MODE, RELEASE_END_OF_LIFE, PLATFORM_VERSION_UNKNOWN) appear
 *   exactly on the days the dates supportEnd returns say, on generated platform calendars and on the real kb/,
 *   so the two readings of the calendar cannot drift;
 * - latestStart, by hand-checked examples and by properties: its lead equals an event simulation of the
 *   rollout (not the recurrence), the start is never after the deadline, more hops or more soak never move it
 *   later, no hop starts on the deadline, an unknown environment is refused naming the configured ones.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import fc from "fast-check";
import { InputError } from "../src/core/errors.js";
import {
  daysLeft,
  latestStart,
  supportEnd,
  type EnvironmentSoak,
} from "../src/domain/fleet-deadlines.js";
import { validateCluster } from "../src/domain/validate.js";
import { platformRecord, type KbBundle, type PlatformRecord } from "../src/knowledge/records.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import { PROPERTY_SEED, propertyRuns } from "./support/cluster-generators.js";
import { kbSnapshot } from "./support/snapshot.js";
import { syntheticBundle } from "./support/synthetic-kb.js";

const DAY_MS = 86_400_000;

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

const SYNTHETIC_URL = "https://example.org/kb-synthetic/releases";
const ACME_URL = "https://example.org/kb-synthetic/acme";

/** A made-up managed platform for the synthetic minors (1.50-1.54): rows for 1.51, 1.52 and 1.55 (unknown upstream), none for 1.50, 1.53, 1.54. */
function acme(releases: readonly unknown[]): PlatformRecord {
  return platformRecord.parse({
    name: "acme",
    displayName: "Acme Kubernetes Service",
    versionPattern: null,
    releases,
    sourceUrl: ACME_URL,
  });
}

const ACME_ROWS = [
  {
    minor: "1.51",
    released: "2031-09-01",
    endOfStandardSupport: "2032-11-15",
    endOfExtendedSupport: "2033-05-15",
    precision: "DAY",
    sourceUrl: `${ACME_URL}/1.51`,
  },
  {
    minor: "1.52",
    released: "2032-01-01",
    endOfStandardSupport: "2033-01-31",
    endOfExtendedSupport: null,
    precision: "MONTH",
    sourceUrl: `${ACME_URL}/1.52`,
  },
  {
    minor: "1.55",
    released: "2033-01-01",
    endOfStandardSupport: "2034-01-31",
    endOfExtendedSupport: "2034-07-31",
    precision: "DAY",
    sourceUrl: `${ACME_URL}/1.55`,
  },
];

function withPlatforms(bundle: KbBundle, platforms: readonly PlatformRecord[]): KbSnapshot {
  return new KbSnapshot({ ...bundle, platforms }, { revision: 1, lastImportAt: null });
}

describe("supportEnd on the synthetic knowledge base", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = withPlatforms(await syntheticBundle(), [acme(ACME_ROWS)]);
  });

  const upstream152 = {
    minor: "1.52",
    calendar: "upstream",
    endOfStandardSupport: "2032-12-28",
    endOfSupport: "2033-02-28",
    precision: "DAY",
    sourceUrl: SYNTHETIC_URL,
    note: null,
  };
  const cases: Array<{ why: string; minor: string; platform: string | null; expected: unknown }> = [
    {
      why: "no platform: upstream's release record",
      minor: "1.52",
      platform: null,
      expected: upstream152,
    },
    {
      why: '"upstream" is a self-managed cluster',
      minor: "1.52",
      platform: " Upstream ",
      expected: upstream152,
    },
    { why: "a blank platform is no platform", minor: "1.52", platform: "", expected: upstream152 },
    {
      why: "a patch version is read as its minor",
      minor: "v1.52.4",
      platform: null,
      expected: upstream152,
    },
    {
      why: "the newest minor without dates: known, and its ends unknown (not guessed)",
      minor: "1.54",
      platform: null,
      expected: {
        minor: "1.54",
        calendar: "upstream",
        endOfStandardSupport: null,
        endOfSupport: null,
        precision: "DAY",
        sourceUrl: SYNTHETIC_URL,
        note: null,
      },
    },
    { why: "older than the knowledge base", minor: "1.49", platform: null, expected: null },
    { why: "newer than the knowledge base", minor: "1.55", platform: null, expected: null },
    {
      why: "a platform row: its standard and extended ends, its source",
      minor: "1.51",
      platform: "acme",
      expected: {
        minor: "1.51",
        calendar: "acme",
        endOfStandardSupport: "2032-11-15",
        endOfSupport: "2033-05-15",
        precision: "DAY",
        sourceUrl: `${ACME_URL}/1.51`,
        note: null,
      },
    },
    {
      why: "a platform named by its display name; a month-only row without an extended end",
      minor: "1.52.1",
      platform: "ACME Kubernetes Service",
      expected: {
        minor: "1.52",
        calendar: "acme",
        endOfStandardSupport: "2033-01-31",
        endOfSupport: null,
        precision: "MONTH",
        sourceUrl: `${ACME_URL}/1.52`,
        note: null,
      },
    },
    {
      why: "a platform without a row for the minor: upstream's, and said",
      minor: "1.53",
      platform: "acme",
      expected: {
        minor: "1.53",
        calendar: "upstream",
        endOfStandardSupport: "2033-04-28",
        endOfSupport: "2033-06-28",
        precision: "DAY",
        sourceUrl: SYNTHETIC_URL,
        note: "Acme Kubernetes Service's calendar in the knowledge base has no row for 1.53; upstream's calendar was read instead",
      },
    },
    {
      why: "a platform row for a minor upstream's calendar does not know: validate judges no calendar, so null",
      minor: "1.55",
      platform: "acme",
      expected: null,
    },
  ];
  for (const { why, minor, platform, expected } of cases) {
    it(`${minor} on ${platform ?? "no platform"}: ${why}`, () => {
      assert.deepEqual(supportEnd(snapshot, minor, platform), expected);
    });
  }

  it("an unknown platform or a malformed minor is an InputError that says what to write", () => {
    assert.throws(
      () => supportEnd(snapshot, "1.52", "openshift"),
      (error: unknown) =>
        error instanceof InputError && /known platforms: acme/.test(error.message),
    );
    assert.throws(
      () => supportEnd(snapshot, "banana", null),
      (error: unknown) => error instanceof InputError && error.field === "minor",
    );
  });

  it("daysLeft counts whole days to a date, 0 on it and negative past it", () => {
    assert.equal(daysLeft("2032-12-01", "2032-12-28"), 27);
    assert.equal(daysLeft("2032-12-28", "2032-12-28"), 0);
    assert.equal(daysLeft("2033-01-02", "2032-12-28"), -5);
    // across a leap day: 2032 is a leap year
    assert.equal(daysLeft("2032-02-28", "2032-03-01"), 2);
  });
});

/** The codes validate gives from a minor's calendar. */
const CALENDAR_CODES = [
  "VERSION_NOT_YET_RELEASED",
  "PLATFORM_EXTENDED_SUPPORT",
  "PLATFORM_END_OF_SUPPORT",
  "RELEASE_MAINTENANCE_MODE",
  "RELEASE_END_OF_LIFE",
  "PLATFORM_VERSION_UNKNOWN",
] as const;

/**
 * What validate must say of a cluster at `minor` on `asOf`, worked out from supportEnd's dates (and, for the
 * days before a release, from the release days, which supportEnd does not give). A platform's dates are its
 * first day out (asOf >= date); upstream's are its last day in (asOf > date), as release-status.ts reads them.
 */
function expectedCodes(
  snapshot: KbSnapshot,
  minor: string,
  platformName: string | null,
  asOf: string,
): { readonly known: boolean; readonly codes: readonly string[] } {
  const end = supportEnd(snapshot, minor, platformName);
  if (end === null) return { known: false, codes: [] };
  const release = snapshot.findRelease(end.minor)!;
  if (asOf < release.releaseDate) return { known: true, codes: ["VERSION_NOT_YET_RELEASED"] };
  if (end.calendar !== "upstream") {
    const row = snapshot.platforms
      .find((platform) => platform.name === end.calendar)!
      .releases.find((candidate) => candidate.minor === end.minor)!;
    if (row.released !== null && asOf < row.released)
      return { known: true, codes: ["VERSION_NOT_YET_RELEASED"] };
    if (end.endOfSupport !== null && asOf >= end.endOfSupport)
      return { known: true, codes: ["PLATFORM_END_OF_SUPPORT"] };
    if (end.endOfStandardSupport !== null && asOf >= end.endOfStandardSupport)
      return { known: true, codes: ["PLATFORM_EXTENDED_SUPPORT"] };
    return { known: true, codes: [] };
  }
  const codes: string[] = end.note === null ? [] : ["PLATFORM_VERSION_UNKNOWN"];
  if (end.endOfSupport !== null && asOf > end.endOfSupport) codes.push("RELEASE_END_OF_LIFE");
  else if (end.endOfStandardSupport !== null && asOf > end.endOfStandardSupport)
    codes.push("RELEASE_MAINTENANCE_MODE");
  return { known: true, codes: codes.sort() };
}

function validatedCodes(
  snapshot: KbSnapshot,
  minor: string,
  platformName: string | null,
  asOf: string,
): { readonly known: boolean; readonly codes: readonly string[] } {
  const report = validateCluster(
    snapshot,
    [
      { component: "kube-apiserver", version: minor },
      { component: "kubelet", version: minor },
    ],
    { platform: platformName, asOf },
  );
  const codes = report.findings.map((finding) => finding.code);
  return {
    known: !codes.some(
      (code) => code === "VERSION_UNKNOWN_NEWER" || code === "VERSION_OLDER_THAN_KB",
    ),
    codes: CALENDAR_CODES.filter((code) => codes.includes(code)).sort(),
  };
}

/** An asOf: any day of a span, or one of the calendar's own dates moved by -1, 0 or +1 day (the boundaries). */
function asOfAmong(
  days: readonly string[],
  choice: { near: boolean; index: number; shift: number; free: string },
): string {
  if (!choice.near || days.length === 0) return choice.free;
  return addDays(days[choice.index % days.length]!, choice.shift);
}

const dayIn = (from: string, to: string) =>
  fc
    .integer({
      min: Date.parse(`${from}T00:00:00Z`) / DAY_MS,
      max: Date.parse(`${to}T00:00:00Z`) / DAY_MS,
    })
    .map((day) => new Date(day * DAY_MS).toISOString().slice(0, 10));

const asOfChoice = (from: string, to: string) =>
  fc.record({
    near: fc.boolean(),
    index: fc.nat(),
    shift: fc.integer({ min: -1, max: 1 }),
    free: dayIn(from, to),
  });

function calendarDays(snapshot: KbSnapshot): string[] {
  return [
    ...snapshot.releases.flatMap((release) => [
      release.releaseDate,
      release.endOfStandardSupport,
      release.endOfLife,
    ]),
    ...snapshot.platforms.flatMap((platform) =>
      platform.releases.flatMap((row) => [
        row.released,
        row.endOfStandardSupport,
        row.endOfExtendedSupport,
      ]),
    ),
  ].filter((day): day is string => day !== null);
}

describe("supportEnd agrees with validate's calendar findings, by generation", () => {
  let bundle: KbBundle;
  before(async () => {
    bundle = await syntheticBundle();
  });

  it("on generated platform calendars over the synthetic minors", () => {
    const optionalDay = fc.option(dayIn("2031-01-01", "2034-12-31"), { nil: null });
    const row = (minor: string) =>
      fc.option(
        fc.record({
          minor: fc.constant(minor),
          released: optionalDay,
          endOfStandardSupport: optionalDay,
          endOfExtendedSupport: optionalDay,
          precision: fc.constantFrom("DAY", "MONTH"),
          sourceUrl: fc.constant(`${ACME_URL}/${minor}`),
        }),
        { nil: undefined },
      );
    const reached = new Set<string>();
    fc.assert(
      fc.property(
        fc.tuple(...["1.50", "1.51", "1.52", "1.53", "1.54", "1.55"].map(row)),
        fc.constantFrom("1.49", "1.50", "1.51", "1.52", "1.53", "1.54", "1.55"),
        fc.constantFrom(null, "upstream", "acme"),
        asOfChoice("2031-01-01", "2034-12-31"),
        (rows, minor, platformName, choice) => {
          const snapshot = withPlatforms(bundle, [
            acme(rows.filter((entry) => entry !== undefined)),
          ]);
          const asOf = asOfAmong(calendarDays(snapshot), choice);
          const expected = expectedCodes(snapshot, minor, platformName, asOf);
          const actual = validatedCodes(snapshot, minor, platformName, asOf);
          assert.deepEqual(actual, expected, JSON.stringify({ minor, platformName, asOf, rows }));
          for (const code of expected.codes) reached.add(code);
          if (!expected.known) reached.add("unknown minor");
        },
      ),
      { numRuns: propertyRuns(300), seed: PROPERTY_SEED },
    );
    // A reading never reached proves nothing.
    assert.deepEqual([...reached].sort(), [...CALENDAR_CODES, "unknown minor"].sort());
  });

  it("on the real kb/: every minor it knows and one beyond each end, on every platform", async () => {
    const snapshot = await kbSnapshot();
    const minors = snapshot.releases.map((release) => release.version);
    const before = `1.${Number(minors[0]!.split(".")[1]) - 1}`;
    const beyond = `1.${Number(minors.at(-1)!.split(".")[1]) + 1}`;
    const days = calendarDays(snapshot);
    const reached = new Set<string>();
    fc.assert(
      fc.property(
        fc.constantFrom(before, ...minors, beyond),
        fc.constantFrom(null, "upstream", ...snapshot.platforms.map((platform) => platform.name)),
        asOfChoice("2015-01-01", "2030-12-31"),
        (minor, platformName, choice) => {
          const asOf = asOfAmong(days, choice);
          const expected = expectedCodes(snapshot, minor, platformName, asOf);
          assert.deepEqual(
            validatedCodes(snapshot, minor, platformName, asOf),
            expected,
            JSON.stringify({ minor, platformName, asOf }),
          );
          for (const code of expected.codes) reached.add(code);
        },
      ),
      { numRuns: propertyRuns(400), seed: PROPERTY_SEED },
    );
    assert.deepEqual([...reached].sort(), [...CALENDAR_CODES].sort());
  });

  it("on the real kb/: EKS 1.30 is read from the EKS calendar, its extended end included", async () => {
    const snapshot = await kbSnapshot();
    // kb/platforms.yaml, from the EKS user guide's version table.
    assert.deepEqual(supportEnd(snapshot, "1.30", "eks"), {
      minor: "1.30",
      calendar: "eks",
      endOfStandardSupport: "2025-07-23",
      endOfSupport: "2026-07-23",
      precision: "DAY",
      sourceUrl: "https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html",
      note: null,
    });
    // GKE publishes no per-minor end of extended support: unknown, never guessed.
    assert.equal(supportEnd(snapshot, "1.30", "gke")?.endOfSupport, null);
    assert.equal(supportEnd(snapshot, "1.30", null)?.calendar, "upstream");
  });
});

const DEV_STAGING_PROD: readonly EnvironmentSoak[] = [
  { environment: "dev", soakDays: 7 },
  { environment: "staging", soakDays: 14 },
  { environment: "prod", soakDays: 0 },
];

/**
 * The rollout played day by day: each day, every environment takes its next hop as soon as the environment
 * before it has soaked that hop and it has soaked its own previous one (soaks of 0 let hops cascade within the
 * day). Returns the day `environment` takes hop `hops`, counted from the first environment's first hop.
 */
function simulateRollout(soaks: readonly number[], environment: number, hops: number): number {
  if (hops === 0) return 0;
  const taken = soaks.map(() => 0);
  const takenOn = soaks.map(() => new Map<number, number>());
  const soakedBy = (k: number, hop: number, day: number) => {
    const on = takenOn[k]!.get(hop);
    return on !== undefined && on + soaks[k]! <= day;
  };
  for (let day = 0; day < 1_000_000; day += 1) {
    for (let moved = true; moved; ) {
      moved = false;
      for (let k = 0; k < soaks.length; k += 1) {
        const next = taken[k]! + 1;
        if (next > hops) continue;
        const ownReady = taken[k] === 0 || soakedBy(k, taken[k]!, day);
        const previousReady = k === 0 || soakedBy(k - 1, next, day);
        if (!ownReady || !previousReady) continue;
        taken[k] = next;
        takenOn[k]!.set(next, day);
        moved = true;
        if (k === environment && next === hops) return day;
      }
    }
  }
  throw new Error("the simulated rollout never finished");
}

describe("latestStart", () => {
  // Worked by hand. dev takes hop h on day 7(h-1). staging takes hop 1 on day 7 (dev soaked it), hop 2 on
  // day 21 (its own 14-day soak of hop 1 ends after dev's of hop 2, day 14), hop 3 on day 35. prod takes each
  // hop the day staging has soaked it: 21, 35, 49.
  const handChecked: Array<[string, number, number]> = [
    ["dev", 1, 0],
    ["dev", 2, 7],
    ["dev", 3, 14],
    ["staging", 1, 7],
    ["staging", 2, 21],
    ["staging", 3, 35],
    ["prod", 1, 21],
    ["prod", 2, 35],
    ["prod", 3, 49],
  ];
  for (const [environment, hops, leadDays] of handChecked) {
    it(`${environment}, ${hops} hop(s): the last hop is taken ${leadDays} days after dev starts`, () => {
      const start = latestStart({
        deadline: "2027-03-01",
        hops,
        environment,
        order: DEV_STAGING_PROD,
        asOf: "2026-12-01",
      });
      assert.equal(start.leadDays, leadDays);
      assert.equal(start.latestStart, addDays("2027-03-01", -leadDays));
      assert.equal(start.deadline, "2027-03-01");
      assert.equal(start.hops, hops);
    });
  }

  it("prod, 3 hops: the start day, the days to it, overdue, and the sentence", () => {
    const start = latestStart({
      deadline: "2027-03-01",
      hops: 3,
      environment: "prod",
      order: DEV_STAGING_PROD,
      asOf: "2026-12-01",
      deadlineLabel: "end of standard support of 1.30 on Amazon EKS",
    });
    // 49 days before 1 March 2027 (February 2027 has 28 days) is 11 January; 1 December to 11 January is 41 days.
    assert.deepEqual(start, {
      deadline: "2027-03-01",
      hops: 3,
      leadDays: 49,
      latestStart: "2027-01-11",
      daysToStart: 41,
      overdue: false,
      explanation:
        "3 hops, each soaked dev 7 d → staging 14 d before prod: start by 2027-01-11 to finish by 2027-03-01 (end of standard support of 1.30 on Amazon EKS).",
    });
    const onTheDay = latestStart({
      deadline: "2027-03-01",
      hops: 3,
      environment: "prod",
      order: DEV_STAGING_PROD,
      asOf: "2027-01-11",
    });
    assert.equal(onTheDay.daysToStart, 0);
    assert.equal(onTheDay.overdue, false);
    const late = latestStart({
      deadline: "2027-03-01",
      hops: 3,
      environment: "prod",
      order: DEV_STAGING_PROD,
      asOf: "2027-01-13",
    });
    assert.equal(late.daysToStart, -2);
    assert.equal(late.overdue, true);
    assert.match(late.explanation, /2 days overdue on 2027-01-13/);
  });

  it("the sentence for the first environment and for no hop", () => {
    assert.equal(
      latestStart({
        deadline: "2027-03-01",
        hops: 2,
        environment: "dev",
        order: DEV_STAGING_PROD,
        asOf: "2026-12-01",
      }).explanation,
      "2 hops, each soaked dev 7 d before the next: start by 2027-02-22 to finish by 2027-03-01.",
    );
    assert.equal(
      latestStart({
        deadline: "2027-03-01",
        hops: 1,
        environment: "dev",
        order: DEV_STAGING_PROD,
        asOf: "2026-12-01",
      }).explanation,
      "1 hop, taken first in dev: start by 2027-03-01 to finish by 2027-03-01.",
    );
    assert.match(
      latestStart({
        deadline: "2027-03-01",
        hops: 0,
        environment: "prod",
        order: DEV_STAGING_PROD,
        asOf: "2026-12-01",
      }).explanation,
      /^No hop to take in prod/,
    );
  });

  it("refuses malformed input with an InputError naming the field", () => {
    const base = {
      deadline: "2027-03-01",
      hops: 1,
      environment: "prod",
      order: DEV_STAGING_PROD,
      asOf: "2026-12-01",
    };
    const refused = (input: Parameters<typeof latestStart>[0], field: string) =>
      assert.throws(
        () => latestStart(input),
        (error: unknown) => error instanceof InputError && error.field === field,
        JSON.stringify(input),
      );
    refused({ ...base, hops: -1 }, "hops");
    refused({ ...base, hops: 1.5 }, "hops");
    refused({ ...base, deadline: "2027-02-30" }, "deadline");
    refused({ ...base, deadline: "" }, "deadline");
    refused({ ...base, asOf: "soon" }, "asOf");
    refused(
      {
        ...base,
        order: [
          { environment: "dev", soakDays: -1 },
          { environment: "prod", soakDays: 0 },
        ],
      },
      "order[0]",
    );
    refused({ ...base, order: [{ environment: "prod", soakDays: 0.5 }] }, "order[0]");
    refused(
      {
        ...base,
        order: [
          { environment: "prod", soakDays: 1 },
          { environment: "prod", soakDays: 0 },
        ],
      },
      "order[1]",
    );
  });

  const order = fc
    .uniqueArray(fc.constantFrom("dev", "test", "qa", "staging", "canary", "prod", "dr"), {
      minLength: 1,
      maxLength: 6,
    })
    .chain((names) =>
      fc.tuple(
        ...names.map((environment) =>
          fc.integer({ min: 0, max: 30 }).map((soakDays) => ({ environment, soakDays })),
        ),
      ),
    );
  const question = order.chain((environments) =>
    fc.record({
      order: fc.constant(environments),
      environment: fc.constantFrom(...environments.map((entry) => entry.environment)),
      hops: fc.integer({ min: 0, max: 8 }),
      deadline: dayIn("2025-01-01", "2035-12-31"),
      asOf: dayIn("2024-01-01", "2036-12-31"),
    }),
  );

  it("the lead is the day the simulated rollout takes the last hop; the start is that many days before the deadline", () => {
    fc.assert(
      fc.property(question, (input) => {
        const start = latestStart(input);
        const index = input.order.findIndex((entry) => entry.environment === input.environment);
        assert.equal(
          start.leadDays,
          simulateRollout(
            input.order.map((entry) => entry.soakDays),
            index,
            input.hops,
          ),
        );
        assert.equal(start.latestStart, addDays(input.deadline, -start.leadDays));
        assert.ok(start.latestStart <= input.deadline);
        assert.equal(
          start.daysToStart,
          (Date.parse(start.latestStart) - Date.parse(input.asOf)) / DAY_MS,
        );
        assert.equal(start.overdue, input.asOf > start.latestStart);
        assert.ok(
          start.explanation.includes(start.latestStart) &&
            start.explanation.includes(input.deadline),
        );
        if (input.hops === 0) {
          assert.equal(start.leadDays, 0);
          assert.equal(start.latestStart, input.deadline);
        }
      }),
      { numRuns: propertyRuns(300), seed: PROPERTY_SEED },
    );
  });

  it("more hops, or more soak anywhere, never moves the start later", () => {
    fc.assert(
      fc.property(question, fc.nat(), fc.integer({ min: 1, max: 20 }), (input, which, extra) => {
        const start = latestStart(input).latestStart;
        assert.ok(latestStart({ ...input, hops: input.hops + 1 }).latestStart <= start);
        const position = which % input.order.length;
        const longer = input.order.map((entry, index) =>
          index === position ? { ...entry, soakDays: entry.soakDays + extra } : entry,
        );
        assert.ok(latestStart({ ...input, order: longer }).latestStart <= start);
      }),
      { numRuns: propertyRuns(200), seed: PROPERTY_SEED },
    );
  });

  it("an environment not configured is refused, naming the ones configured in order", () => {
    fc.assert(
      fc.property(question, fc.string({ minLength: 1, maxLength: 12 }), (input, environment) => {
        fc.pre(!input.order.some((entry) => entry.environment === environment));
        assert.throws(
          () => latestStart({ ...input, environment }),
          (error: unknown) =>
            error instanceof InputError &&
            error.field === "environment" &&
            error.message.includes(input.order.map((entry) => entry.environment).join(", ")),
        );
      }),
      { numRuns: propertyRuns(100), seed: PROPERTY_SEED },
    );
  });
});
