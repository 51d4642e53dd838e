/**
 * Staleness said out loud (issue 37 item 4). By generation, over made-up calendars (minors with release
 * days, with or without the cadence of minors), coverage claims and days:
 *  - a kind is stale iff a minor out by the calendar (dated and passed, or overdue by the cadence) is beyond
 *    what its released sources cover, and its staleness lists exactly those minors, since the oldest one's day;
 *  - a question about a minor beyond the coverage gets KNOWLEDGE_STALE iff that minor is out, else
 *    KNOWLEDGE_EDGE: never KNOWLEDGE_STALE for a minor not yet released by date or cadence, never both.
 * Then examples: GET /api/v1/coverage gives each row its age and its kind's staleness; a scan and a plan to a
 * minor out but not loaded say what is missing and since when; and the reviewed kb/ on 2026-12-06.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import request from "supertest";
import { knowledgeEdge } from "../src/domain/knowledge-edge.js";
import { scanManifests } from "../src/domain/scan.js";
import { knowledgeStaleness, stalenessOf } from "../src/domain/staleness.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import type { KbBundle } from "../src/knowledge/records.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import { propertyRuns, PROPERTY_SEED } from "./support/cluster-generators.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";
import { kbSnapshot, plan } from "./support/snapshot.js";
import { syntheticBundle } from "./support/synthetic-kb.js";

const DAY_MS = 86_400_000;
const dayAfter = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The model's own month arithmetic: months counted as year * 12 + month, the day kept or cut to the month's end. */
function modelMonthsAfter(day: string, months: number): string {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  const count = year * 12 + (month - 1) + months;
  const [y, m] = [Math.floor(count / 12), (count % 12) + 1];
  const daysInMonth = [
    31,
    y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28,
    31,
    30,
    31,
    30,
    31,
    31,
    30,
    31,
    30,
    31,
  ][m - 1]!;
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(Math.min(date, daysInMonth)).padStart(2, "0")}`;
}

interface Calendar {
  /** Release days of 1.50, 1.51, ... in order. */
  readonly days: readonly string[];
  readonly cadence: number | null;
  /** The minor index (50 + n) the released claim of apiRemovals reaches, and a pre-release claim's, if any. */
  readonly covered: number;
  readonly prerelease: number | null;
  readonly asOf: string;
}

const calendar: fc.Arbitrary<Calendar> = fc
  .record({
    start: fc.integer({ min: 0, max: 2000 }),
    gaps: fc.array(fc.integer({ min: 30, max: 200 }), { minLength: 0, maxLength: 6 }),
    cadence: fc.option(fc.integer({ min: 1, max: 8 }), { nil: null }),
    covered: fc.integer({ min: 0, max: 9 }),
    prerelease: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
    offset: fc.integer({ min: -150, max: 1500 }),
  })
  .map(({ start, gaps, cadence, covered, prerelease, offset }) => {
    const days = [dayAfter("2030-01-01", start)];
    for (const gap of gaps) days.push(dayAfter(days[days.length - 1]!, gap));
    return {
      days,
      cadence,
      covered: 50 + Math.min(covered, days.length - 1 + 3),
      prerelease: prerelease === null ? null : 50 + Math.min(covered, days.length + 2) + prerelease,
      asOf: dayAfter(days[0]!, offset + (days.length - 1) * 60),
    };
  });

/** The model of the calendar: the day minor 1.<index> is out, or null when it is not out on asOf. */
function modelOut(c: Calendar, index: number): string | null {
  const dated = c.days[index - 50];
  if (dated !== undefined) return dated <= c.asOf ? dated : null;
  const newest = c.days.length - 1;
  if (c.cadence === null || index - 50 <= newest) return null;
  const due = modelMonthsAfter(c.days[newest]!, c.cadence * (index - 50 - newest));
  return due <= c.asOf ? due : null;
}

function snapshotOf(bundle: KbBundle, c: Calendar): KbSnapshot {
  const template = bundle.releases[0]!;
  const releases = c.days.map((day, index) => ({
    ...template,
    version: `1.${50 + index}`,
    releaseDate: day,
    endOfStandardSupport: null,
    endOfLife: null,
    latestPatch: null,
    latestPatchDate: null,
  }));
  const claim = (knowledge: string, throughMinor: number, stage: "RELEASED" | "PRERELEASE") => ({
    knowledge,
    throughMinor: `1.${throughMinor}`,
    stage,
    source: `generated ${knowledge} ${stage}`,
    sourceRevision: null,
    sourceDate: null,
    sourceUrl: "https://example.org/generated",
    notes: null,
    minorCadenceMonths: knowledge === "releases" ? c.cadence : null,
  });
  const coverage = [
    claim("releases", 50 + c.days.length - 1, "RELEASED"),
    claim("apiRemovals", c.covered, "RELEASED"),
    ...(c.prerelease === null ? [] : [claim("apiRemovals", c.prerelease, "PRERELEASE")]),
  ];
  return new KbSnapshot({ ...bundle, releases, coverage }, { revision: 1, lastImportAt: null });
}

describe("staleness, by generation over calendars, coverage and days", () => {
  let bundle: KbBundle;
  before(async () => {
    bundle = await syntheticBundle();
  });

  it("a kind is stale iff a minor out by date or cadence is beyond its released coverage; it lists exactly those, since the oldest", () => {
    fc.assert(
      fc.property(calendar, (c) => {
        const snapshot = snapshotOf(bundle, c);
        const expected: Array<{ minor: string; since: string }> = [];
        for (let index = c.covered + 1; index <= 50 + c.days.length + 30; index += 1) {
          const out = modelOut(c, index);
          if (out !== null) expected.push({ minor: `1.${index}`, since: out });
        }
        const stale = stalenessOf(snapshot, "apiRemovals", c.asOf);
        assert.equal(stale !== null, expected.length > 0, JSON.stringify({ c, stale }));
        if (stale === null) return;
        assert.deepEqual(
          stale.missing.map(({ minor, since }) => ({ minor, since })),
          expected.slice(0, stale.missing.length),
        );
        // Only a calendar years behind is cut short: at 24 minors after its newest release; the oldest missing minor
        // and its day are always there.
        const newest = 50 + c.days.length - 1;
        assert.ok(
          stale.missing.length === expected.length ||
            stale.missing[stale.missing.length - 1]!.minor === `1.${newest + 24}`,
          JSON.stringify({ c, stale }),
        );
        assert.equal(stale.since, expected[0]!.since);
        assert.equal(stale.coveredThrough, `1.${c.covered}`);
      }),
      { seed: PROPERTY_SEED, numRuns: propertyRuns(300) },
    );
  });

  it("a minor beyond the coverage gets KNOWLEDGE_STALE iff it is out, else KNOWLEDGE_EDGE, never both, never for one not out", () => {
    fc.assert(
      fc.property(calendar, fc.integer({ min: 0, max: 14 }), (c, beyond) => {
        const snapshot = snapshotOf(bundle, c);
        const index = 48 + beyond;
        const said = knowledgeEdge(snapshot, "apiRemovals", `1.${index}`, "the target", c.asOf);
        if (index <= c.covered) return assert.equal(said, undefined);
        const out = modelOut(c, index);
        assert.equal(
          said?.code,
          out === null ? "KNOWLEDGE_EDGE" : "KNOWLEDGE_STALE",
          JSON.stringify({ c, index, said }),
        );
        if (out !== null) {
          // It names the kind, what is missing and since when.
          assert.match(said.message, /\(apiRemovals\) is stale since \d{4}-\d{2}-\d{2}/);
          assert.ok(said.message.includes(`1.${index} (`), said.message);
          assert.ok(said.message.includes(out), said.message);
        }
      }),
      { seed: PROPERTY_SEED, numRuns: propertyRuns(300) },
    );
  });
});

describe("staleness on the faces and in the reviewed kb/", () => {
  let runtime: SnapshotRuntime;
  before(async () => {
    runtime = await startSnapshotRuntime();
  });
  after(() => runtime.close());

  it("on 2026-12-06, 1.37 (released 2026-08-26) is out: every kind whose released sources end before it is stale", async () => {
    const snapshot = await kbSnapshot();
    const stale = knowledgeStaleness(snapshot, "2026-12-06")
      .filter((kind) => kind.stale !== null)
      .map((kind) => `${kind.knowledge} ${kind.stale!.coveredThrough} since ${kind.stale!.since}`);
    // What kb/coverage.yaml says today; re-reading a source moves its kind out of this list.
    assert.deepEqual(stale, [
      "apiRemovals 1.36 since 2026-08-26",
      "runtimeRequirements 1.36 since 2026-08-26",
      "runtimeReleases 1.36 since 2026-08-26",
      "flagChanges 1.35 since 2026-04-22",
      "proxyModes 1.35 since 2026-04-22",
      "behaviourChanges 1.36 since 2026-08-26",
      "configurationApis 1.36 since 2026-08-26",
      "featureGates 1.36 since 2026-08-26",
      "addons 1.36 since 2026-08-26",
      "platforms 1.36 since 2026-08-26",
    ]);
    // 1.38 is dated 2026-12-16: the day before, the releases and skew rules (through 1.37) are up to date.
    const dayBefore = knowledgeStaleness(snapshot, "2026-12-15");
    assert.equal(dayBefore.find((kind) => kind.knowledge === "skewRules")?.stale, null);
    const onTheDay = knowledgeStaleness(snapshot, "2026-12-16");
    assert.equal(
      onTheDay.find((kind) => kind.knowledge === "skewRules")?.stale?.since,
      "2026-12-16",
    );
  });

  it("GET /api/v1/coverage gives each row its age, last check and its kind's staleness on asOf", async () => {
    const response = await request(runtime.app).get("/api/v1/coverage?asOf=2026-12-06").expect(200);
    const rows = response.body.items as Array<{
      knowledge: string;
      source: string;
      sourceDate: string | null;
      ageDays: number | null;
      lastChecked: string | null;
      stale: {
        since: string;
        missing: Array<{ minor: string; since: string; by: string }>;
        message: string;
      } | null;
    }>;
    const removals = rows.find(
      (row) => row.knowledge === "apiRemovals" && row.sourceDate === "2026-04-22",
    )!;
    assert.equal(removals.ageDays, 228);
    assert.equal(removals.lastChecked, "2026-04-22");
    assert.deepEqual(removals.stale?.missing, [
      { minor: "1.37", since: "2026-08-26", by: "RELEASE_DATE" },
    ]);
    assert.match(
      removals.stale?.message ?? "",
      /stale since 2026-08-26.*1\.37 \(released 2026-08-26\) is out and not loaded/,
    );
    const undated = rows.find((row) => row.sourceDate === null)!;
    assert.equal(undated.ageDays, null);
    const skew = rows.find((row) => row.knowledge === "skewRules")!;
    assert.equal(skew.stale, null);
    assert.equal(skew.ageDays, 102);
    // Every row of a kind carries the same staleness.
    for (const row of rows)
      assert.deepEqual(row.stale, rows.find((other) => other.knowledge === row.knowledge)!.stale);
    const bad = await request(runtime.app).get("/api/v1/coverage?asOf=yesterday").expect(400);
    assert.match(bad.body.error.message, /asOf "yesterday" is not a date; write it as YYYY-MM-DD/);
  });

  it("GraphQL's coverage gives the same ages and staleness (on today)", async () => {
    const response = await request(runtime.app)
      .post("/graphql")
      .send({
        query:
          "{ coverage { knowledge source ageDays lastChecked stale { since missing { minor since by } } } }",
      })
      .expect(200);
    assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
    const rest = await request(runtime.app).get("/api/v1/coverage").expect(200);
    assert.deepEqual(
      response.body.data.coverage,
      (
        rest.body.items as Array<
          Record<string, unknown> & { stale: { since: string; missing: unknown[] } | null }
        >
      ).map((row) => ({
        knowledge: row.knowledge,
        source: row.source,
        ageDays: row.ageDays,
        lastChecked: row.lastChecked,
        stale: row.stale === null ? null : { since: row.stale.since, missing: row.stale.missing },
      })),
    );
  });

  it("the front page shows each row's age and a warning for each stale kind", async () => {
    const page = (await request(runtime.app).get("/").expect(200)).text;
    assert.match(page, /<th>age \(days\)<\/th>/);
    const rest = await request(runtime.app).get("/api/v1/coverage").expect(200);
    const stale = [
      ...new Set(
        (rest.body.items as Array<{ knowledge: string; stale: unknown }>)
          .filter((row) => row.stale !== null)
          .map((row) => row.knowledge),
      ),
    ];
    for (const knowledge of stale)
      assert.match(
        page,
        new RegExp(`<p class="warning stale" data-knowledge="${knowledge}">Stale: `),
      );
    assert.equal((page.match(/class="warning stale"/g) ?? []).length, stale.length);
  });

  it("a scan and a plan to a minor out but not loaded carry KNOWLEDGE_STALE naming what is missing and since when", async () => {
    const snapshot = await kbSnapshot();
    const manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";
    const scan = scanManifests(snapshot, manifest, "1.37", { asOf: "2026-12-06" });
    assert.deepEqual(
      scan.notes.map((note) => note.code),
      ["KNOWLEDGE_STALE"],
    );
    assert.match(
      scan.notes[0]!.message,
      /^the target 1\.37: the knowledge of which API versions are removed or deprecated \(apiRemovals\) is stale since 2026-08-26: its released sources reach only Kubernetes 1\.36 .*but 1\.37 \(released 2026-08-26\) is out and not loaded; what is judged there rests on pre-release material/,
    );
    // Before 1.37's release the same scan is at the knowledge's edge, not stale.
    assert.deepEqual(
      scanManifests(snapshot, manifest, "1.37", { asOf: "2026-08-25" }).notes.map(
        (note) => note.code,
      ),
      ["KNOWLEDGE_EDGE"],
    );
    const result = planUpgrade(snapshot, plan("apiserver=1.36 kcm=1.36 kubelet=1.36"), "1.37", {
      asOf: "2026-12-06",
    });
    const removals = result.findings.filter((finding) => finding.ruleId === "coverage:apiRemovals");
    assert.deepEqual(
      removals.map((finding) => finding.code),
      ["KNOWLEDGE_STALE"],
    );
    // Over REST, the same plan says the same.
    const rest = await request(runtime.app)
      .post("/api/v1/upgrade-plan")
      .send({
        current: { components: plan("apiserver=1.36 kcm=1.36 kubelet=1.36") },
        targetVersion: "1.37",
        asOf: "2026-12-06",
      })
      .expect(200);
    const restRemovals = (
      rest.body.findings as Array<{ code: string; ruleId: string; message: string }>
    ).filter((finding) => finding.ruleId === "coverage:apiRemovals");
    assert.deepEqual(
      restRemovals.map((finding) => finding.code),
      ["KNOWLEDGE_STALE"],
    );
    assert.equal(restRemovals[0]!.message, removals[0]!.message);
  });

  it("add-ons and the platform at a minor out but not loaded carry KNOWLEDGE_STALE too, from their own kinds", async () => {
    const snapshot = await kbSnapshot();
    const codes = (cluster: string, asOf: string) =>
      validateCluster(snapshot, plan(cluster), { asOf })
        .findings.filter((finding) => finding.ruleId?.startsWith("coverage:"))
        .map((finding) => `${finding.code} ${finding.ruleId}`);
    assert.deepEqual(codes("apiserver=1.37.0 cluster-autoscaler=1.37.0", "2026-12-06"), [
      "KNOWLEDGE_STALE coverage:addons",
    ]);
    assert.deepEqual(codes("apiserver=v1.37.2-eks-abc1234", "2026-12-06"), [
      "KNOWLEDGE_STALE coverage:platforms",
    ]);
    // Before 1.37's release day: beyond the knowledge, not stale.
    assert.deepEqual(codes("apiserver=v1.37.0-eks-abc1234", "2026-08-25"), [
      "KNOWLEDGE_EDGE coverage:platforms",
    ]);
    // Within the coverage: nothing about it.
    assert.deepEqual(
      codes("apiserver=v1.35.2-eks-abc1234 cluster-autoscaler=1.35.0", "2026-12-06"),
      [],
    );
  });
});
