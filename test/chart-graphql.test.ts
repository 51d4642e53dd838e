/**
 * GraphQL's scanChart against REST's POST /api/v1/scan/chart (the question scan_chart): the chart fixture
 * test/fixtures/charts/webshop asked over both faces of one started runtime, with helm's rendering (the real
 * helm of test/support/helm-binary.ts) and without it, must get the same verdict, the same findings at the
 * same template lines, the same notes and the same completeness; bad input (a target that is not a minor
 * the knowledge base covers, a file path leaving the chart's folder) the same error on both faces. Nothing
 * expected is taken from an answer of one face alone: each face is held to the other, and REST to the
 * fixture's own text for the CronJob's line.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { renderTools } from "./support/helm-binary.js";
import { REPO_ROOT, startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

const WEBSHOP = path.join(REPO_ROOT, "test", "fixtures", "charts", "webshop");

/** The chart's files by path relative to it, as the CLI sends them. */
function filesOf(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of fs.readdirSync(folder, { recursive: true, encoding: "utf8" })) {
    const full = path.join(folder, file);
    if (fs.statSync(full).isFile())
      files[file.split(path.sep).join("/")] = fs.readFileSync(full, "utf8");
  }
  return files;
}

function helmTemplate(folder: string, target: string): string {
  return execFileSync(renderTools().helm, ["template", "shop", folder, "--kube-version", target], {
    encoding: "utf8",
  });
}

interface PlacedFinding {
  readonly code: string;
  readonly severity: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly template: string | null;
  readonly templateLine: number | null;
  readonly condition: string | null;
}

interface FindingWithPhase extends PlacedFinding {
  readonly phase: string;
}

/** What both faces must agree on, the same way from either answer. */
interface Compared {
  readonly status: string;
  readonly complete: boolean;
  readonly rendering: string;
  readonly chart: unknown;
  readonly findings: readonly FindingWithPhase[];
  readonly changeFindings: readonly PlacedFinding[];
  readonly notes: ReadonlyArray<{ readonly code: string }>;
  readonly unreadTemplates: ReadonlyArray<{ template: string; templateLine: number }>;
}

const placedLine = (f: PlacedFinding) =>
  `${f.code} ${f.severity} ${f.template}:${f.templateLine} ${f.apiVersion} ${f.kind} if=${f.condition}`;

function comparable(answer: Compared) {
  return {
    status: answer.status,
    complete: answer.complete,
    rendering: answer.rendering,
    chart: answer.chart,
    findings: answer.findings.map((f) => `${placedLine(f)} ${f.phase}`).sort(),
    changeFindings: answer.changeFindings.map(placedLine).sort(),
    notes: answer.notes.map((note) => note.code).sort(),
    unreadTemplates: answer.unreadTemplates.map((u) => `${u.template}:${u.templateLine}`).sort(),
  };
}

const FINDING = "code severity apiVersion kind template templateLine condition";
const SCAN_CHART = `query ScanChart($files: JSONObject!, $targetVersion: String!, $fromVersion: String, $rendered: String, $detail: Detail) {
  scanChart(files: $files, targetVersion: $targetVersion, fromVersion: $fromVersion, rendered: $rendered, detail: $detail) {
    status complete rendering detail targetVersion kbRevision documentsScanned objectsScanned
    chart { name version apiVersion kubeVersion }
    findings { ${FINDING} phase line documentIndex removedIn replacement message sourceUrl }
    changeFindings { ${FINDING} ruleId message }
    notes { code severity message }
    unreadTemplates { template templateLine reason }
    summary { status allJudged blocking { code } notJudged { code } }
  }
}`;

interface GraphQLAnswer {
  data?: { scanChart: Compared & Record<string, unknown> } | null;
  errors?: Array<{ message: string; extensions?: { code?: string; field?: string } }>;
}

describe("scanChart over GraphQL answers as POST /api/v1/scan/chart", () => {
  let runtime: SnapshotRuntime;
  const files = filesOf(WEBSHOP);

  const rest = (body: Record<string, unknown>) =>
    request(runtime.app)
      .post("/api/v1/scan/chart")
      .set("Content-Type", "application/json")
      .send(body);
  const graphql = async (variables: Record<string, unknown>): Promise<GraphQLAnswer> => {
    const response = await request(runtime.app)
      .post("/graphql")
      .set("Content-Type", "application/json")
      .send({ query: SCAN_CHART, variables });
    assert.ok(
      response.status === 200 || response.status === 400,
      `status ${response.status}: ${response.text.slice(0, 300)}`,
    );
    return response.body as GraphQLAnswer;
  };

  before(async () => {
    runtime = await startSnapshotRuntime();
  });
  after(async () => runtime.close());

  const cases: ReadonlyArray<{ name: string; body: () => Record<string, unknown> }> = [
    { name: "templates read directly, 1.29", body: () => ({ files, targetVersion: "1.29" }) },
    {
      name: "helm's rendering, 1.29 from 1.24",
      body: () => ({
        files,
        targetVersion: "1.29",
        fromVersion: "1.24",
        rendered: helmTemplate(WEBSHOP, "1.29"),
      }),
    },
    {
      name: "helm's rendering, 1.25 from 1.22",
      body: () => ({
        files,
        targetVersion: "1.25",
        fromVersion: "1.22",
        rendered: helmTemplate(WEBSHOP, "1.25"),
      }),
    },
  ];
  for (const { name, body } of cases) {
    it(`${name}: the same status, findings at the same template lines, notes, complete and rendering`, async () => {
      const asked = body();
      const viaRest = await rest(asked).expect(200);
      const viaGraphql = await graphql(asked);
      assert.equal(viaGraphql.errors, undefined, JSON.stringify(viaGraphql.errors));
      const answer = viaGraphql.data!.scanChart;
      const restAnswer = viaRest.body as Compared;
      assert.deepEqual(comparable(answer), comparable(restAnswer));
      assert.equal(answer.detail, "FULL");
      for (const field of ["targetVersion", "kbRevision", "documentsScanned", "objectsScanned"])
        assert.equal(answer[field], (viaRest.body as Record<string, unknown>)[field], field);
      // The comparison is of something: the chart's removed CronJob is there, at its template's apiVersion line.
      const cronJobLine =
        fs
          .readFileSync(path.join(WEBSHOP, "templates/cronjob.yaml"), "utf8")
          .split("\n")
          .indexOf("apiVersion: batch/v1beta1") + 1;
      assert.ok(cronJobLine > 0);
      assert.ok(
        restAnswer.findings.some(
          (f) =>
            f.code === "API_REMOVED" &&
            f.kind === "CronJob" &&
            f.template === "templates/cronjob.yaml" &&
            f.templateLine === cronJobLine,
        ),
        "the CronJob of templates/cronjob.yaml is found at its apiVersion line",
      );
      assert.equal(restAnswer.rendering, "rendered" in asked ? "HELM" : "TEMPLATES");
      assert.equal(answer.summary !== null, true);
    });
  }

  it("detail SUMMARY: GraphQL's summary is REST's summary answer", async () => {
    const viaRest = await rest({ files, targetVersion: "1.29", detail: "summary" }).expect(200);
    const viaGraphql = await graphql({ files, targetVersion: "1.29", detail: "SUMMARY" });
    assert.equal(viaGraphql.errors, undefined, JSON.stringify(viaGraphql.errors));
    const answer = viaGraphql.data!.scanChart as unknown as {
      detail: string;
      summary: {
        status: string;
        allJudged: boolean;
        blocking: Array<{ code: string }>;
        notJudged: Array<{ code: string }>;
      };
    };
    const summary = viaRest.body as typeof answer.summary;
    assert.equal(answer.detail, "SUMMARY");
    assert.deepEqual(
      {
        status: answer.summary.status,
        allJudged: answer.summary.allJudged,
        blocking: answer.summary.blocking.map((f) => f.code),
        notJudged: answer.summary.notJudged.map((f) => f.code),
      },
      {
        status: summary.status,
        allJudged: summary.allJudged,
        blocking: summary.blocking.map((f) => f.code),
        notJudged: summary.notJudged.map((f) => f.code),
      },
    );
    assert.equal(summary.status, "UNSUPPORTED");
  });

  const badInputs: ReadonlyArray<{ name: string; body: () => Record<string, unknown> }> = [
    { name: 'target "1.3"', body: () => ({ files, targetVersion: "1.3" }) },
    {
      name: "a file path with ../",
      body: () => ({
        files: { ...files, "../outside.yaml": "apiVersion: batch/v1beta1\nkind: CronJob\n" },
        targetVersion: "1.29",
      }),
    },
    {
      name: "an absolute file path",
      body: () => ({ files: { ...files, "/etc/passwd": "root:x:0:0\n" }, targetVersion: "1.29" }),
    },
    {
      name: "a file that is not text",
      body: () => ({ files: { ...files, "templates/x.yaml": 42 }, targetVersion: "1.29" }),
    },
  ];
  for (const { name, body } of badInputs) {
    it(`${name}: BAD_USER_INPUT with the same message and field on both faces`, async () => {
      const asked = body();
      const viaRest = await rest(asked).expect(400);
      const restError = viaRest.body as {
        error: { code: string; message: string; details?: Array<{ field?: string }> };
      };
      const viaGraphql = await graphql(asked);
      assert.equal(viaGraphql.data?.scanChart ?? null, null);
      const error = viaGraphql.errors?.[0];
      assert.ok(error, "GraphQL answers with an error");
      assert.equal(restError.error.code, "BAD_USER_INPUT");
      assert.equal(error.extensions?.code, "BAD_USER_INPUT");
      assert.equal(error.message, restError.error.message);
      assert.equal(error.extensions?.field, restError.error.details?.[0]?.field);
    });
  }
});
