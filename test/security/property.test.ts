/**
 * Properties over random input: whatever plan, target or manifests come in,
 * the domain core either answers with a well-formed report (ok is a boolean,
 * ok exactly when there is no ERROR finding, every finding has a code, a
 * severity and a message) or refuses with an InputError. Nothing else may
 * come out, and no single call may take more than a few seconds. Seeded, so
 * a failure replays; the time guard only detects hangs.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import request from "supertest";
import { checkRollback } from "../../src/domain/rollback.js";
import { scanManifests } from "../../src/domain/scan.js";
import { planUpgrade } from "../../src/domain/upgrade.js";
import { validateCluster } from "../../src/domain/validate.js";
import { InputError } from "../../src/core/errors.js";
import type { KbSnapshot } from "../../src/knowledge/snapshot.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "../support/runtime.js";
import { kbSnapshot } from "../support/snapshot.js";

const SEED = 20261129;
const RUNS = 300;
/** Far above any real call (milliseconds); only a hang or a blow-up gets near it. */
const HANG_MS = 5_000;
const SEVERITIES = new Set(["ERROR", "WARNING", "INFO"]);

function timed<T>(call: () => T): T {
  const started = performance.now();
  try {
    return call();
  } finally {
    const elapsed = performance.now() - started;
    assert.ok(elapsed < HANG_MS, `one call took ${Math.round(elapsed)} ms`);
  }
}

/** How the calls of one property ended, so a property can show that it reached both outcomes. */
class Outcomes {
  reports = 0;
  refusals = 0;

  /** Runs a domain call: its report passes `check`, or it threw an InputError; anything else fails the property. */
  answered<T>(call: () => T, check: (report: T) => void): void {
    let result: T;
    try {
      result = timed(call);
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error;
      assert.ok(
        error instanceof InputError,
        `expected a report or an InputError, got ${error instanceof Error ? error.stack : String(error)}`,
      );
      assert.ok(error.message.length > 0);
      this.refusals += 1;
      return;
    }
    check(result);
    this.reports += 1;
  }

  /** Random input that never got past validation would prove little about the rules behind it. */
  assertBoth(minimumReports: number): void {
    assert.ok(
      this.reports >= minimumReports,
      `only ${this.reports} of the runs got a report (${this.refusals} refusals)`,
    );
    assert.ok(this.refusals > 0, "no run was refused: the generators make no bad input");
  }
}

function wellFormedFindings(
  findings: ReadonlyArray<{ code: unknown; severity: unknown; message: unknown }>,
): void {
  for (const entry of findings) {
    assert.equal(typeof entry.code, "string");
    assert.ok((entry.code as string).length > 0);
    assert.ok(SEVERITIES.has(entry.severity as string), `severity ${String(entry.severity)}`);
    assert.equal(typeof entry.message, "string");
    assert.ok((entry.message as string).length > 0);
  }
}

/**
 * A report's verdict means what people read: UNSUPPORTED exactly when a
 * finding is an ERROR, SUPPORTED only when no finding is an ERROR or a
 * WARNING, NOT_JUDGED only when nothing could be checked against a control
 * plane; ok only for the two supported verdicts.
 */
function wellFormedReport(report: {
  ok: unknown;
  status?: unknown;
  findings: ReadonlyArray<{ code: unknown; severity: unknown; message: unknown }>;
}): void {
  assert.equal(typeof report.ok, "boolean");
  const hasError = report.findings.some((entry) => entry.severity === "ERROR");
  const hasWarning = report.findings.some((entry) => entry.severity === "WARNING");
  assert.equal(
    report.status === "UNSUPPORTED",
    hasError,
    `status ${String(report.status)} with ${hasError ? "an" : "no"} ERROR`,
  );
  if (report.status === "SUPPORTED")
    assert.ok(!hasError && !hasWarning, "SUPPORTED with an ERROR or a WARNING");
  if (report.status === "SUPPORTED_WITH_WARNINGS") assert.ok(hasWarning && !hasError);
  if (report.status === "NOT_JUDGED")
    assert.ok(report.findings.some((entry) => entry.code === "NO_APISERVER_IN_PLAN"));
  assert.ok(
    ["SUPPORTED", "SUPPORTED_WITH_WARNINGS", "UNSUPPORTED", "NOT_JUDGED"].includes(
      String(report.status),
    ),
    `status ${String(report.status)}`,
  );
  assert.equal(
    report.ok,
    report.status === "SUPPORTED" || report.status === "SUPPORTED_WITH_WARNINGS",
  );
  wellFormedFindings(report.findings);
}

const garbageText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    "__proto__",
    "constructor",
    "toString",
    `'; DROP TABLE "ApiRemoval"; --`,
    "\u0000",
    "\u202e",
    "\u200b",
    "\ud800",
    "../../etc/passwd",
  ),
  fc.nat({ max: 300 }).map((length) => "9".repeat(length)),
);

const kubernetesVersion = fc
  .record({
    v: fc.constantFrom("", "v", "V"),
    major: fc.oneof(fc.constant(1), fc.nat({ max: 3 }), fc.constant(999)),
    minor: fc.oneof(fc.integer({ min: 15, max: 40 }), fc.nat({ max: 9999 })),
    patch: fc.option(fc.oneof(fc.nat({ max: 20 }), fc.nat({ max: 99999 })), { nil: undefined }),
    suffix: fc.constantFrom("", "-rc.1", "-alpha.0", "-eks-1234", "+k3s1", "-gke.1200", "-", "+"),
  })
  .map(
    ({ v, major, minor, patch, suffix }) =>
      `${v}${major}.${minor}${patch === undefined ? "" : `.${patch}`}${suffix}`,
  );

const runtimeVersion = fc
  .record({
    scheme: fc.constantFrom("", "containerd://", "cri-o://", "docker://"),
    major: fc.nat({ max: 30 }),
    minor: fc.nat({ max: 40 }),
    patch: fc.nat({ max: 30 }),
  })
  .map(({ scheme, major, minor, patch }) => `${scheme}${major}.${minor}.${patch}`);

/** Versions the knowledge base knows, with and without patch. */
const plausibleVersion = fc
  .record({
    minor: fc.integer({ min: 17, max: 39 }),
    patch: fc.option(fc.nat({ max: 12 }), { nil: undefined }),
  })
  .map(({ minor, patch }) => `1.${minor}${patch === undefined ? "" : `.${patch}`}`);
const version = fc.oneof(
  { weight: 8, arbitrary: plausibleVersion },
  { weight: 2, arbitrary: kubernetesVersion },
  { weight: 2, arbitrary: runtimeVersion },
  { weight: 1, arbitrary: garbageText },
);
const profile = fc.option(
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom("upstream", "strict", "STRICT") },
    { weight: 1, arbitrary: garbageText },
  ),
  { nil: undefined },
);
const asOf = fc.option(
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom("2020-01-01", "2026-11-29", "2031-12-31", "2026-11-29T10:00:00Z"),
    },
    { weight: 1, arbitrary: fc.constantFrom("2026-02-30", "29/11/2026") },
    { weight: 1, arbitrary: garbageText },
  ),
  { nil: undefined },
);

interface Entry {
  readonly component: string;
  readonly version: string;
  readonly instance?: string | undefined;
}

function planArbitraries(snapshot: KbSnapshot) {
  const known = snapshot.components.flatMap((component) => [component.name, ...component.aliases]);
  const componentName = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: garbageText },
  );
  const instance = fc.option(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.constantFrom("pool-a", "pool-b", "pool-c", "cp-1", "cp-2", "a", " "),
      },
      { weight: 1, arbitrary: garbageText },
    ),
    {
      nil: undefined,
    },
  );
  const anyEntry: fc.Arbitrary<Entry> = fc.record(
    { component: componentName, version, instance },
    { requiredKeys: ["component", "version"] },
  );
  const goodEntry: fc.Arbitrary<Entry> = fc.record(
    {
      component: fc.constantFrom(...known),
      version: plausibleVersion,
      instance: fc.option(fc.constantFrom("pool-a", "pool-b", "pool-c", "cp-1", "cp-2"), {
        nil: undefined,
      }),
    },
    { requiredKeys: ["component", "version"] },
  );
  // Mostly sound entries with the odd bad one, so that a plan is as often judged as refused.
  const entry = fc.oneof({ weight: 25, arbitrary: goodEntry }, { weight: 1, arbitrary: anyEntry });
  // A plan names each component once per instance; mostly keep to that, so that most plans reach the rules.
  const key = (candidate: Entry) =>
    `${snapshot.findComponent(candidate.component)?.name ?? candidate.component}@${candidate.instance?.trim() ?? ""}`;
  const distinct = fc.uniqueArray(entry, { maxLength: 15, selector: key });
  const withApiserver = fc
    .tuple(
      fc.record({
        component: fc.constantFrom("kube-apiserver", "apiserver", "API Server"),
        version: plausibleVersion,
      }),
      distinct,
    )
    .map(([apiserver, rest]): Entry[] => [
      apiserver,
      ...rest.filter((candidate) => key(candidate) !== key(apiserver)),
    ]);
  const components = fc.oneof(
    { weight: 8, arbitrary: withApiserver },
    { weight: 3, arbitrary: distinct },
    { weight: 2, arbitrary: fc.array(anyEntry, { maxLength: 25 }) },
    // What arrives from JSON is not always a list of objects.
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 5 }) },
  );
  /** A plan and something of it to roll back: mostly one of its entries, sometimes anything. */
  const rollback = withApiserver.chain((plan) =>
    fc.record({
      plan: fc.oneof(
        { weight: 5, arbitrary: fc.constant<unknown>(plan) },
        { weight: 1, arbitrary: components },
      ),
      target: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...plan) },
        { weight: 1, arbitrary: anyEntry },
      ),
      toVersion: version,
    }),
  );
  return { componentName, instance, components, rollback };
}

/** Manifest-like text: fragments of real YAML, hostile constructs and garbage, glued at random. */
const manifestFragment = fc.oneof(
  fc.constantFrom(
    "apiVersion: batch/v1beta1\n",
    "apiVersion: policy/v1beta1\n",
    "apiVersion: apps/v1\n",
    "kind: CronJob\n",
    "kind: PodSecurityPolicy\n",
    "kind: List\nitems:\n",
    "metadata:\n  name: x\n  namespace: y\n",
    "---\n",
    "...\n",
    "# Source: chart/templates/x.yaml\n",
    "- ",
    "  ",
    "\t",
    "&a ",
    "*a ",
    "<<: *a\n",
    "[",
    "]",
    "{",
    "}",
    ": ",
    "? ",
    "!!binary ",
    "!custom ",
    '"',
    "'",
    "|\n",
    ">\n",
    "%YAML 1.1\n",
    "\u0000",
    "\ufeff",
  ),
  fc.string({ maxLength: 12 }),
);
const hostileManifests = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.array(manifestFragment, { maxLength: 60 }).map((parts) => parts.join("")),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
);
const targetVersion = fc.oneof(
  { weight: 6, arbitrary: plausibleVersion },
  { weight: 2, arbitrary: kubernetesVersion },
  { weight: 1, arbitrary: garbageText },
);

/** Valid YAML documents of objects the knowledge base knows removals of (and some it does not), with names, Lists and comments. */
function manifestDocuments(snapshot: KbSnapshot): fc.Arbitrary<string> {
  const api = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        ...snapshot.apiRemovals.map((removal) => ({
          apiVersion: removal.apiVersion,
          kind: removal.kind,
        })),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { apiVersion: "apps/v1", kind: "Deployment" },
        { apiVersion: "v1", kind: "ConfigMap" },
        { apiVersion: "example.com/v1", kind: "Widget" },
      ),
    },
  );
  const object = fc
    .record({
      api,
      name: fc.option(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), { nil: undefined }),
      comment: fc.boolean(),
    })
    .map(
      ({ api: { apiVersion, kind }, name, comment }) =>
        `${comment ? "# Source: chart/templates/x.yaml\n" : ""}apiVersion: ${apiVersion}\nkind: ${kind}\n${name === undefined ? "" : `metadata:\n  name: ${name}\n`}`,
    );
  const list = fc
    .array(object, { minLength: 1, maxLength: 4 })
    .map(
      (items) =>
        `apiVersion: v1\nkind: List\nitems:\n${items.map((item) => `- ${item.replaceAll("\n", "\n  ").trimEnd()}\n`).join("")}`,
    );
  return fc
    .array(fc.oneof({ weight: 4, arbitrary: object }, { weight: 1, arbitrary: list }), {
      minLength: 1,
      maxLength: 8,
    })
    .map((documents) => documents.join("---\n"));
}

describe("properties of the domain core under random input", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });
  const options = { numRuns: RUNS, seed: SEED, endOnFailure: true } as const;

  it("validateCluster answers a well-formed report or refuses with an InputError", () => {
    const { components } = planArbitraries(snapshot);
    const outcomes = new Outcomes();
    fc.assert(
      fc.property(components, profile, asOf, (plan, chosenProfile, day) => {
        outcomes.answered(
          () => validateCluster(snapshot, plan, { profile: chosenProfile, asOf: day }),
          wellFormedReport,
        );
      }),
      options,
    );
    outcomes.assertBoth(RUNS / 4);
  });

  it("planUpgrade answers well-formed steps and findings or refuses with an InputError", () => {
    const { components } = planArbitraries(snapshot);
    const outcomes = new Outcomes();
    fc.assert(
      fc.property(components, targetVersion, profile, (plan, target, chosenProfile) => {
        outcomes.answered(
          () => planUpgrade(snapshot, plan, target, { profile: chosenProfile }),
          (result) => {
            wellFormedReport(result);
            assert.equal(typeof result.targetVersion, "string");
            for (const step of result.steps) {
              assert.ok(Number.isInteger(step.order) && step.order > 0);
              assert.equal(typeof step.fromVersion, "string");
              assert.equal(typeof step.toVersion, "string");
            }
            // A plan that is not refused ends in a state without an ERROR: the steps, applied, validate.
            if (result.ok) {
              const final = (
                plan as Array<{ component: string; version: string; instance?: string | null }>
              ).map((entry) => {
                const canonicalName =
                  snapshot.findComponent(entry.component)?.name ?? entry.component;
                const last = [...result.steps]
                  .reverse()
                  .find(
                    (step) =>
                      step.component === canonicalName &&
                      (step.instance ?? null) ===
                        (entry.instance?.trim() ? entry.instance.trim() : null),
                  );
                return last === undefined ? entry : { ...entry, version: last.toVersion };
              });
              const verdict = validateCluster(snapshot, final, { profile: chosenProfile });
              assert.ok(
                !verdict.findings.some((entry) => entry.severity === "ERROR"),
                `the plan's final state has an ERROR: ${verdict.findings
                  .filter((entry) => entry.severity === "ERROR")
                  .map((entry) => entry.message)
                  .join(" | ")}`,
              );
            }
          },
        );
      }),
      options,
    );
    outcomes.assertBoth(RUNS / 4);
  });

  it("checkRollback answers a well-formed report or refuses with an InputError", () => {
    const { rollback } = planArbitraries(snapshot);
    const outcomes = new Outcomes();
    fc.assert(
      fc.property(rollback, profile, ({ plan, target, toVersion }, chosenProfile) => {
        outcomes.answered(
          () =>
            checkRollback(snapshot, {
              current: plan,
              component: target.component,
              instance: target.instance,
              toVersion,
              profile: chosenProfile,
            }),
          wellFormedReport,
        );
      }),
      options,
    );
    outcomes.assertBoth(RUNS / 4);
  });

  it("scanManifests answers a well-formed report or refuses with an InputError", () => {
    const manifests = fc.oneof(
      { weight: 2, arbitrary: manifestDocuments(snapshot) },
      { weight: 3, arbitrary: hostileManifests },
    );
    const outcomes = new Outcomes();
    fc.assert(
      fc.property(manifests, targetVersion, (text, target) => {
        outcomes.answered(
          () => scanManifests(snapshot, text, target),
          (report) => {
            assert.ok(Number.isInteger(report.documentsScanned) && report.documentsScanned >= 0);
            assert.ok(Number.isInteger(report.objectsScanned) && report.objectsScanned >= 0);
            assert.ok(report.findings.length <= report.objectsScanned);
            wellFormedFindings(report.findings);
          },
        );
      }),
      options,
    );
    outcomes.assertBoth(RUNS / 4);
  });
});

describe("a property of POST /api/v1/validate under random JSON", () => {
  let runtime: SnapshotRuntime;
  before(async () => {
    runtime = await startSnapshotRuntime();
  });
  after(async () => runtime.close());

  it("answers 200 with a report or 4xx with an error code, never 5xx", async () => {
    const snapshot = runtime.kb.current();
    const { components } = planArbitraries(snapshot);
    const body = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({ components, profile, asOf }, { requiredKeys: ["components"] }),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
      {
        weight: 1,
        arbitrary: fc.dictionary(garbageText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
      },
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const response = await request(runtime.app)
          .post("/api/v1/validate")
          .set("Content-Type", "application/json")
          .timeout({ deadline: HANG_MS })
          .send(JSON.stringify(payload) ?? "null");
        assert.ok(
          response.status === 200 || (response.status >= 400 && response.status < 500),
          `${response.status}: ${response.text.slice(0, 300)}`,
        );
        if (response.status === 200) wellFormedReport(response.body);
        else assert.match(String(response.body.error?.code), /^[A-Z_]+$/);
      }),
      { numRuns: 120, seed: SEED, endOnFailure: true },
    );
  });
});
