/**
 * The summary form of answers (issue 38), by generation: over generated clusters (validate, plans, rollbacks),
 * node pools and manifest scans, the summary of every answer
 *
 *  - has the full answer's status and ok;
 *  - shows every ERROR finding's code in blocking, and counts the ERROR findings it does not show;
 *  - counts every finding, by severity and by code, to the full answer's numbers;
 *  - has exactly one line per step of a plan or a node-pool change, in the steps' order;
 *  - keeps everything that says the answer is incomplete (every COVERAGE code: NOT_JUDGED's NOTHING_JUDGED and
 *    NO_APISERVER_IN_PLAN, KNOWLEDGE_EDGE, KNOWLEDGE_STALE, API_NOT_JUDGED, DOCUMENT_UNREADABLE ...) and never says
 *    allJudged when one is there;
 *  - shows messages as the domain wrote them.
 *
 * Generators: test/support/cluster-generators.ts, and manifests drawn from kb/'s API removals below.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import fc from "fast-check";
import { InputError } from "../src/core/errors.js";
import {
  MAX_SHOWN,
  summariseAnswer,
  type AnswerSummary,
  type OperationAnswer,
} from "../src/domain/answer-summary.js";
import { checkOf, isOk, type FindingCode, type Severity } from "../src/domain/findings.js";
import { checkNodePoolUpgrade } from "../src/domain/node-pool.js";
import { checkRollback } from "../src/domain/rollback.js";
import { scanManifests } from "../src/domain/scan.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import {
  clusterQuestion,
  nodePoolQuestion,
  propertyRuns,
  PROPERTY_SEED,
  type ClusterQuestion,
} from "./support/cluster-generators.js";
import { kbSnapshot } from "./support/snapshot.js";

interface Entry {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  readonly check?: string;
}

/** Every finding of an answer, of whatever list, as verdictOf judges them. */
function entriesOf(answer: OperationAnswer): Entry[] {
  if ("changeFindings" in answer)
    return [...answer.notes, ...answer.findings, ...answer.changeFindings];
  if ("releases" in answer) return [...answer.notes, ...answer.findings];
  return [...answer.findings];
}

const coverage = (entry: Entry): boolean =>
  (entry.check ?? checkOf(entry.code as FindingCode)) === "COVERAGE";

/** Which incompleteness codes the runs met, so a generator that stopped reaching them fails the test. */
type Seen = Map<string, number>;

function checkSummary(answer: OperationAnswer, seen: Seen, asked: string): AnswerSummary {
  const summary = summariseAnswer(answer);
  const entries = entriesOf(answer);
  const where = `${asked}\nsummary ${JSON.stringify(summary)}`;
  assert.equal(summary.status, answer.status, where);
  assert.equal(summary.ok, "ok" in answer ? answer.ok : isOk(answer.status), where);
  assert.equal(summary.kbRevision, answer.kbRevision, where);

  // Blocking: every ERROR shown or counted, every ERROR code shown unless there are more codes than room.
  const errors = entries.filter((entry) => entry.severity === "ERROR");
  assert.equal(summary.blocking.length + summary.blockingNotShown, errors.length, where);
  assert.ok(summary.blocking.length <= MAX_SHOWN, where);
  const errorCodes = new Set(errors.map((entry) => entry.code));
  for (const code of errorCodes)
    assert.ok(
      summary.blocking.some((shown) => shown.code === code) || errorCodes.size > MAX_SHOWN,
      `ERROR ${code} is not in blocking\n${where}`,
    );

  // Counts add up to the full answer's findings, by severity and by code.
  for (const severity of ["ERROR", "WARNING", "INFO"] as const)
    assert.equal(
      summary.counts.findings[severity],
      entries.filter((entry) => entry.severity === severity).length,
      `${severity} count\n${where}`,
    );
  for (const entry of entries)
    assert.equal(
      summary.counts.byCode.find(
        (count) => count.code === entry.code && count.severity === entry.severity,
      )?.count,
      entries.filter((other) => other.code === entry.code && other.severity === entry.severity)
        .length,
      `count of ${entry.severity} ${entry.code}\n${where}`,
    );
  assert.equal(
    summary.counts.byCode.reduce((sum, count) => sum + count.count, 0),
    entries.length,
    where,
  );

  // Nothing that says the answer is incomplete goes missing.
  const uncovered = entries.filter(coverage);
  assert.equal(summary.notJudged.length + summary.notJudgedNotShown, uncovered.length, where);
  for (const code of new Set(uncovered.map((entry) => entry.code))) {
    seen.set(code, (seen.get(code) ?? 0) + 1);
    assert.ok(
      summary.notJudged.some((shown) => shown.code === code),
      `${code} (not judged) is not in the summary\n${where}`,
    );
  }
  if (uncovered.length > 0 || answer.status === "NOT_JUDGED")
    assert.equal(summary.allJudged, false);
  if (answer.status === "NOT_JUDGED")
    seen.set("status NOT_JUDGED", (seen.get("status NOT_JUDGED") ?? 0) + 1);

  // Messages as the domain wrote them.
  for (const shown of [...summary.blocking, ...summary.notJudged])
    assert.ok(
      entries.some((entry) => entry.code === shown.code && entry.message === shown.message),
      `${shown.code}: "${shown.message}" is not the answer's\n${where}`,
    );

  // One line per step, in order.
  if ("steps" in answer) {
    assert.equal(summary.steps?.length, answer.steps.length, where);
    answer.steps.forEach((step, index) => {
      const line = summary.steps![index]!;
      assert.ok(line.startsWith(`${step.order}. `), `line ${line} for step ${step.order}`);
      assert.ok(!line.includes("\n"), line);
      if (step.component !== null) assert.ok(line.includes(step.component), line);
    });
    assert.equal(summary.counts.steps, answer.steps.length);
  } else assert.equal(summary.steps, null);
  return summary;
}

function judged<T>(ask: () => T): T | undefined {
  try {
    return ask();
  } catch (error) {
    if (error instanceof InputError) return undefined;
    throw error;
  }
}

const runs = (base: number) => ({
  seed: PROPERTY_SEED,
  numRuns: propertyRuns(base),
  endOnFailure: true,
  includeErrorInReport: true,
});

/** Documents of a scan: objects on APIs kb/ removes, on APIs it does not know, unreadable ones, and empty ones. */
function manifests(snapshot: KbSnapshot): fc.Arbitrary<{ text: string; target: string }> {
  const removals = snapshot.apiRemovals;
  const minors = snapshot.releases.map((release) => release.version);
  const document = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...removals), fc.nat(99))
        .map(
          ([removal, n]) =>
            `apiVersion: ${removal.apiVersion}\nkind: ${removal.kind}\nmetadata:\n  name: app-${n}\n  namespace: team-${n % 3}\n`,
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom("apps/v1 Deployment", "v1 ConfigMap", "example.com/v1 Widget")
        .map(
          (text) =>
            `apiVersion: ${text.split(" ")[0]}\nkind: ${text.split(" ")[1]}\nmetadata:\n  name: x\n`,
        ),
    },
    { weight: 1, arbitrary: fc.constant("apiVersion: v1\nkind: [unclosed\n") },
    { weight: 1, arbitrary: fc.constant("# only a comment\n") },
  );
  return fc.record({
    text: fc
      .array(document, { maxLength: 60, size: "max" })
      .map((documents) => documents.join("---\n")),
    target: fc.oneof(fc.constantFrom(...minors), fc.constant("1.99")),
  });
}

describe("summaries of answers (generated questions)", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  it("validate, plans and rollbacks: same verdict, every ERROR and not-judged code, counts and step lines", () => {
    const seen: Seen = new Map();
    let planned = 0;
    fc.assert(
      fc.property(clusterQuestion(snapshot), (question: ClusterQuestion) => {
        const asked = `question ${JSON.stringify(question)}`;
        const report = judged(() => validateCluster(snapshot, question.components, question));
        if (report !== undefined) checkSummary(report, seen, asked);
        // Without a control plane too: NO_APISERVER_IN_PLAN makes it NOT_JUDGED.
        const headless = question.components.filter(
          (entry) => entry.component !== "kube-apiserver",
        );
        const unjudged = judged(() => validateCluster(snapshot, headless, question));
        if (unjudged !== undefined) checkSummary(unjudged, seen, `${asked} (no kube-apiserver)`);
        const plan = judged(() =>
          planUpgrade(snapshot, question.components, question.target, question),
        );
        if (plan !== undefined) {
          planned += 1;
          checkSummary(plan, seen, `${asked}\nplan of ${plan.steps.length} steps`);
        }
        const kubelet = question.components.find((entry) => entry.component === "kubelet");
        if (kubelet !== undefined) {
          const rollback = judged(() =>
            checkRollback(snapshot, {
              ...question,
              current: question.components,
              component: "kubelet",
              instance: kubelet.instance,
              toVersion: "1.25.0",
            }),
          );
          if (rollback !== undefined) checkSummary(rollback, seen, `${asked} (rollback)`);
        }
      }),
      runs(150),
    );
    assert.ok(planned > 50, `only ${planned} plans were made`);
    for (const code of ["NO_APISERVER_IN_PLAN", "status NOT_JUDGED", "KNOWLEDGE_STALE"])
      assert.ok(
        (seen.get(code) ?? 0) > 0,
        `no generated answer had ${code}: ${[...seen.keys()].join(", ")}`,
      );
  });

  it("node pools: same verdict, every ERROR code, one line per step", () => {
    const seen: Seen = new Map();
    let withSteps = 0;
    fc.assert(
      fc.property(nodePoolQuestion(snapshot), (question) => {
        const report = judged(() => checkNodePoolUpgrade(snapshot, question));
        if (report === undefined) return;
        if (report.steps.length > 0) withSteps += 1;
        checkSummary(report, seen, `pool ${JSON.stringify(question)}`);
      }),
      runs(150),
    );
    assert.ok(withSteps > 20, `only ${withSteps} pools had steps`);
  });

  it("manifest scans: capped lists, every code shown, unreadable and unknown APIs kept", () => {
    const seen: Seen = new Map();
    let capped = 0;
    fc.assert(
      fc.property(manifests(snapshot), ({ text, target }) => {
        const scan = judged(() => scanManifests(snapshot, text, target));
        if (scan === undefined) return;
        const summary = checkSummary(scan, seen, `scan to ${target}:\n${text}`);
        if (summary.blockingNotShown > 0) {
          capped += 1;
          assert.equal(summary.blocking.length, MAX_SHOWN);
        }
        assert.equal(summary.counts.objects, scan.objectsScanned);
        if (!scan.complete) assert.equal(summary.allJudged, false);
      }),
      runs(150),
    );
    assert.ok(capped > 0, "no generated scan had more ERROR findings than are shown");
    for (const code of [
      "DOCUMENT_UNREADABLE",
      "API_NOT_JUDGED",
      "NOTHING_JUDGED",
      "KNOWLEDGE_EDGE",
    ])
      assert.ok(
        (seen.get(code) ?? 0) > 0,
        `no generated scan had ${code}: ${[...seen.keys()].join(", ")}`,
      );
  });

  it("a capped list shows every code: a change finding after 30 removed APIs is in blocking", () => {
    const cronJobs = Array.from(
      { length: 30 },
      (_, n) => `apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: job-${n}\n`,
    );
    const gitRepo =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  volumes:\n  - name: g\n    gitRepo:\n      repository: x\n";
    const scan = scanManifests(snapshot, [...cronJobs, gitRepo].join("---\n"), "1.33");
    assert.deepEqual(
      scan.changeFindings.map((entry) => `${entry.severity} ${entry.code}`),
      ["ERROR FIELD_CHANGED"],
    );
    const summary = checkSummary(scan, new Map(), "30 CronJobs and a gitRepo volume");
    assert.equal(summary.blocking.length, MAX_SHOWN);
    assert.equal(summary.blockingNotShown, 31 - MAX_SHOWN);
    assert.deepEqual(
      [...new Set(summary.blocking.map((entry) => entry.code))],
      ["API_REMOVED", "FIELD_CHANGED"],
    );
    assert.equal(summary.blocking.at(-1)!.object, "Pod p (document 30, line 151)");
  });

  it("a scan of 10 000 removed objects is summarised in a few KB, and says how many are not shown", () => {
    const removal = snapshot.apiRemovals.find((entry) => entry.apiVersion === "batch/v1beta1")!;
    const text = Array.from(
      { length: 10_000 },
      (_, n) =>
        `apiVersion: ${removal.apiVersion}\nkind: ${removal.kind}\nmetadata:\n  name: job-${n}\n`,
    ).join("---\n");
    const scan = scanManifests(snapshot, text, "1.30");
    const summary = checkSummary(scan, new Map(), "10 000 objects");
    assert.equal(summary.status, "UNSUPPORTED");
    assert.equal(summary.blocking.length, MAX_SHOWN);
    assert.equal(summary.blockingNotShown, scan.findings.length - MAX_SHOWN);
    assert.equal(summary.blocking[0]!.object, `${removal.kind} job-0 (document 0, line 1)`);
    assert.ok(JSON.stringify(summary).length < 8 * 1024, `${JSON.stringify(summary).length} bytes`);
  });
});
