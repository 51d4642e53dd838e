/**
 * Helm charts as people keep them (issue 40): a chart folder with unrendered templates yields findings with
 * their template file and line, with helm and without it, over REST and through the CLI. The fixtures
 * (test/fixtures/charts/) are a v2 chart with a subchart and a v1 chart; the expected files and lines are
 * computed here from the fixtures' text, never taken from an answer.
 *
 * No cluster runs here: helm only renders (`helm template --kube-version`), from the real helm v4.1.4 of
 * test/support/helm-binary.ts.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createApp } from "../src/app.js";
import { createLogger } from "../src/core/logger.js";
import { chartScanSteps, type ChartScanReport } from "../src/domain/chart-scan.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { FixedKnowledgeBase } from "../src/services/knowledge-base.js";
import { kubecompat } from "./support/cli-process.js";
import { renderTools } from "./support/helm-binary.js";
import { KB_DIR, REPO_ROOT, startListeningRuntime } from "./support/runtime.js";

const CHARTS = path.join(REPO_ROOT, "test", "fixtures", "charts");
const WEBSHOP = path.join(CHARTS, "webshop");
const LEGACY = path.join(CHARTS, "legacy");

function filesOf(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of fs.readdirSync(folder, { recursive: true, encoding: "utf8" })) {
    const full = path.join(folder, file);
    if (fs.statSync(full).isFile())
      files[file.split(path.sep).join("/")] = fs.readFileSync(full, "utf8");
  }
  return files;
}

/** The 1-based line of the first line of `file` (in the chart) that is `text`, at or after line `from`. */
function lineOf(folder: string, file: string, text: string, from = 1): number {
  const lines = fs.readFileSync(path.join(folder, file), "utf8").split("\n");
  const index = lines.findIndex((line, at) => at + 1 >= from && line === text);
  assert.ok(index >= 0, `${file} has a line "${text}"`);
  return index + 1;
}

function helmTemplate(folder: string, target: string): string {
  return execFileSync(renderTools().helm, ["template", "shop", folder, "--kube-version", target], {
    encoding: "utf8",
  });
}

function scanChart(
  snapshot: KbSnapshot,
  files: Record<string, string>,
  target: string,
  rendered: string | null,
): ChartScanReport {
  const steps = chartScanSteps(snapshot, files, target, { rendered });
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** Each API finding as `template:line apiVersion kind severity`, sorted. */
function placed(report: {
  findings: ReadonlyArray<{
    template: string | null;
    templateLine: number | null;
    apiVersion: string;
    kind: string;
    severity: string;
  }>;
}): string[] {
  return report.findings
    .map((f) => `${f.template}:${f.templateLine} ${f.apiVersion} ${f.kind} ${f.severity}`)
    .sort();
}

/** What the webshop fixture's removed APIs are, at their lines: the same with helm and without. */
function removedAtTheirLines(): string[] {
  const at = (file: string, text: string, from?: number) =>
    `${file}:${lineOf(WEBSHOP, file, text, from)}`;
  return [
    `${at("templates/cronjob.yaml", "apiVersion: batch/v1beta1")} batch/v1beta1 CronJob ERROR`,
    `${at("templates/pdb.yaml", "apiVersion: policy/v1beta1")} policy/v1beta1 PodDisruptionBudget ERROR`,
    `${at("charts/cache/templates/pdb.yaml", "apiVersion: policy/v1beta1")} policy/v1beta1 PodDisruptionBudget ERROR`,
    // The second document of the multi-document template, not the first.
    `${at("templates/extras.yaml", "apiVersion: autoscaling/v2beta2")} autoscaling/v2beta2 HorizontalPodAutoscaler ERROR`,
  ];
}

describe("a chart scanned for removed APIs, placed at template file and line", () => {
  let snapshot: KbSnapshot;
  let app: Express;
  before(async () => {
    const kb = FixedKnowledgeBase.fromBundle(await loadKbDirectory(KB_DIR));
    snapshot = kb.current();
    app = await createApp({
      kb,
      isDatabaseReachable: () => Promise.resolve(true),
      logger: createLogger("silent"),
    });
  });

  it("with helm's rendering: every removed API at its template's apiVersion line (the kind line when templated)", () => {
    const report = scanChart(snapshot, filesOf(WEBSHOP), "1.29", helmTemplate(WEBSHOP, "1.29"));
    assert.equal(report.rendering, "HELM");
    assert.equal(report.complete, true);
    assert.deepEqual(report.chart, {
      name: "webshop",
      version: "1.4.2",
      apiVersion: "v2",
      kubeVersion: ">=1.19.0-0",
    });
    // helm template's capabilities lack networking.k8s.io/v1/NetworkPolicy, so the helper chooses the old API:
    // the finding points at the kind line, the apiVersion being templated.
    const networkPolicy = `templates/networkpolicy.yaml:${lineOf(WEBSHOP, "templates/networkpolicy.yaml", "kind: NetworkPolicy")} extensions/v1beta1 NetworkPolicy ERROR`;
    assert.deepEqual(placed(report), [...removedAtTheirLines(), networkPolicy].sort());
    // The Ingress rendered at 1.29 is networking.k8s.io/v1: nothing said of it.
    assert.ok(!report.findings.some((f) => f.kind === "Ingress"));
    assert.equal(report.status, "UNSUPPORTED");
  });

  it("without helm: apiVersion and kind read from the templates, conditions said, the unreadable listed", () => {
    const report = scanChart(snapshot, filesOf(WEBSHOP), "1.29", null);
    assert.equal(report.rendering, "TEMPLATES");
    assert.equal(report.complete, false);
    assert.ok(report.notes.some((note) => note.code === "CHART_NOT_RENDERED"));
    const ingressElse = lineOf(WEBSHOP, "templates/ingress.yaml", "apiVersion: extensions/v1beta1");
    const psp = lineOf(WEBSHOP, "templates/extras.yaml", "apiVersion: policy/v1beta1");
    assert.deepEqual(
      placed(report),
      [
        ...removedAtTheirLines(),
        // The PodSecurityPolicy inside {{ if .Values.psp.enabled }} counts, and says it is conditional.
        `templates/extras.yaml:${psp} policy/v1beta1 PodSecurityPolicy ERROR`,
        // The else branch of semverCompare ">=1.19-0" is judged, but helm does not take it at 1.29.
        `templates/ingress.yaml:${ingressElse} extensions/v1beta1 Ingress INFO`,
      ].sort(),
    );
    const pspFinding = report.findings.find((f) => f.kind === "PodSecurityPolicy")!;
    assert.match(pspFinding.condition ?? "", /if \.Values\.psp\.enabled/);
    const ingress = report.findings.find((f) => f.kind === "Ingress")!;
    assert.match(ingress.condition ?? "", /semverCompare ">=1\.19-0"/);
    assert.match(ingress.message, /helm does not take at 1\.29/);
    // The fully templated apiVersion is listed, never passed over; helpers and NOTES.txt are no objects.
    assert.deepEqual(
      report.unreadTemplates.map((entry) => `${entry.template}:${entry.templateLine}`),
      [
        `templates/networkpolicy.yaml:${lineOf(WEBSHOP, "templates/networkpolicy.yaml", 'apiVersion: {{ include "webshop.networkPolicy.apiVersion" . }}')}`,
      ],
    );
    assert.ok(report.notes.some((note) => note.code === "TEMPLATE_NOT_READ"));
  });

  it("an old target takes the other branch: at 1.18 the Ingress's extensions/v1beta1 is the one judged", () => {
    const report = scanChart(snapshot, filesOf(WEBSHOP), "1.18", null);
    const ingress = report.findings.filter((f) => f.kind === "Ingress");
    assert.ok(ingress.every((f) => f.apiVersion === "extensions/v1beta1" && f.severity !== "INFO"));
    // And the chart's kubeVersion >=1.19.0-0 excludes 1.18: helm refuses it.
    assert.ok(
      report.notes.some(
        (note) =>
          note.code === "CHART_KUBE_VERSION_EXCLUDES_TARGET" &&
          note.severity === "ERROR" &&
          note.instance === "Chart.yaml",
      ),
    );
  });

  it("the subchart's kubeVersion is a WARNING (helm checks only the top chart's), the v1 chart is said", () => {
    const report = scanChart(snapshot, filesOf(WEBSHOP), "1.29", null);
    const sub = report.notes.find((note) => note.instance === "charts/cache/Chart.yaml");
    assert.equal(sub?.code, "CHART_KUBE_VERSION_EXCLUDES_TARGET");
    assert.equal(sub?.severity, "WARNING");
    const legacy = scanChart(snapshot, filesOf(LEGACY), "1.29", helmTemplate(LEGACY, "1.29"));
    assert.equal(legacy.chart.apiVersion, "v1");
    assert.ok(legacy.notes.some((note) => note.code === "CHART_API_VERSION_V1"));
    assert.deepEqual(placed(legacy), [
      `templates/deployment.yaml:${lineOf(LEGACY, "templates/deployment.yaml", "apiVersion: extensions/v1beta1")} extensions/v1beta1 Deployment ERROR`,
    ]);
  });

  it("kubeVersion as Helm reads it: all patches, some patches, vendor versions, unreadable", () => {
    const chartWith = (kubeVersion: string) => ({
      "Chart.yaml": `apiVersion: v2\nname: c\nversion: 1.0.0\nkubeVersion: "${kubeVersion}"\n`,
    });
    const codes = (kubeVersion: string) =>
      scanChart(snapshot, chartWith(kubeVersion), "1.29", null)
        .notes.filter((note) => note.code.startsWith("CHART_KUBE_VERSION"))
        .map((note) => `${note.code} ${note.severity}`);
    assert.deepEqual(codes(">=1.19.0-0, <1.30.0-0"), []);
    assert.deepEqual(codes(">= 1.30-0"), ["CHART_KUBE_VERSION_EXCLUDES_TARGET ERROR"]);
    assert.deepEqual(codes(">=1.29.4-0 <1.30.0-0"), [
      "CHART_KUBE_VERSION_EXCLUDES_PATCHES WARNING",
    ]);
    assert.deepEqual(codes(">=1.19.0"), ["CHART_KUBE_VERSION_REFUSES_VENDOR_VERSIONS WARNING"]);
    assert.deepEqual(codes("not a range"), ["CHART_KUBE_VERSION_INVALID ERROR"]);
  });

  it("REST: POST /api/v1/scan/chart places findings, with and without rendered; a malformed Chart.yaml is a 400 naming it", async () => {
    const files = filesOf(WEBSHOP);
    const rendered = await request(app)
      .post("/api/v1/scan/chart")
      .send({ files, targetVersion: "1.29", rendered: helmTemplate(WEBSHOP, "1.29") })
      .expect(200);
    assert.equal(rendered.body.rendering, "HELM");
    const cron = (
      rendered.body.findings as Array<{ kind: string; template: string; templateLine: number }>
    ).find((f) => f.kind === "CronJob")!;
    assert.deepEqual(
      [cron.template, cron.templateLine],
      [
        "templates/cronjob.yaml",
        lineOf(WEBSHOP, "templates/cronjob.yaml", "apiVersion: batch/v1beta1"),
      ],
    );
    const read = await request(app)
      .post("/api/v1/scan/chart")
      .send({ files, targetVersion: "1.29" })
      .expect(200);
    assert.equal(read.body.rendering, "TEMPLATES");
    assert.equal(read.body.complete, false);
    assert.deepEqual(
      placed(read.body as ChartScanReport)
        .slice()
        .sort(),
      placed(scanChart(snapshot, files, "1.29", null)),
    );
    const broken = await request(app)
      .post("/api/v1/scan/chart")
      .send({ files: { ...files, "Chart.yaml": "name: [webshop\n" }, targetVersion: "1.29" })
      .expect(400);
    assert.match(broken.body.error.message, /Chart\.yaml is not valid YAML/);
  });
});

describe("kubecompat scan of a chart folder and a packaged chart", () => {
  let listening: { url: string; close(): Promise<void> };
  let url: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-chart-"));
  before(async () => {
    listening = await startListeningRuntime({ inMemory: true });
    url = listening.url;
  });
  after(async () => {
    await listening.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const cronLine = () => lineOf(WEBSHOP, "templates/cronjob.yaml", "apiVersion: batch/v1beta1");

  it("renders with --helm and prints templates/x.yaml:LINE; exit 1 on the ERRORs", async () => {
    const run = await kubecompat([
      "scan",
      "--server",
      url,
      "--to",
      "1.29",
      "--helm",
      renderTools().helm,
      WEBSHOP,
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /rendered by helm/);
    assert.ok(run.stdout.includes(`templates/cronjob.yaml:${cronLine()} `), run.stdout);
    assert.ok(
      run.stdout.includes(
        `templates/extras.yaml:${lineOf(WEBSHOP, "templates/extras.yaml", "apiVersion: autoscaling/v2beta2")} `,
      ),
    );
  });

  it("--no-helm reads the templates and says the reading was partial; SARIF carries file and line", async () => {
    const run = await kubecompat([
      "scan",
      "--server",
      url,
      "--to",
      "1.29",
      "--no-helm",
      "-o",
      "sarif",
      WEBSHOP,
    ]);
    assert.equal(run.code, 1, run.stderr);
    const sarif = JSON.parse(run.stdout) as {
      runs: Array<{
        results: Array<{
          ruleId: string;
          locations?: Array<{
            physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } };
          }>;
        }>;
      }>;
    };
    const results = sarif.runs[0]!.results;
    const where = results.map((result) => {
      const location = result.locations?.[0]?.physicalLocation;
      return `${result.ruleId} ${location?.artifactLocation.uri ?? "-"}:${location?.region?.startLine ?? "-"}`;
    });
    assert.ok(
      where.some(
        (entry) =>
          entry.startsWith("API_REMOVED ") &&
          entry.endsWith(`templates/cronjob.yaml:${cronLine()}`),
      ),
      where.join("\n"),
    );
    assert.ok(where.some((entry) => entry.startsWith("CHART_NOT_RENDERED ")));
    assert.ok(
      where.some(
        (entry) =>
          entry.startsWith("TEMPLATE_NOT_READ ") &&
          entry.includes("templates/networkpolicy.yaml:1"),
      ),
    );
  });

  it("a packaged chart (.tgz, as helm package writes it) is scanned like its folder", async () => {
    execFileSync(renderTools().helm, ["package", WEBSHOP, "--destination", scratch], {
      stdio: "ignore",
    });
    const packaged = path.join(scratch, "webshop-1.4.2.tgz");
    const run = await kubecompat([
      "scan",
      "--server",
      url,
      "--to",
      "1.29",
      "--no-helm",
      "-o",
      "json",
      packaged,
    ]);
    assert.equal(run.code, 1, run.stderr);
    const answer = JSON.parse(run.stdout) as ChartScanReport;
    assert.equal(answer.chart.name, "webshop");
    assert.deepEqual(
      placed(answer),
      placed(scanChart(await snapshotOf(), filesOf(WEBSHOP), "1.29", null)),
    );
  });

  it("helm failing to render (bad values) is exit 2 with helm's stderr", async () => {
    const values = path.join(scratch, "bad-values.yaml");
    fs.writeFileSync(values, "extraServices: 12\n");
    const run = await kubecompat([
      "scan",
      "--server",
      url,
      "--to",
      "1.29",
      "--helm",
      renderTools().helm,
      "--values",
      values,
      WEBSHOP,
    ]);
    assert.equal(run.code, 2, run.stdout);
    assert.match(run.stderr, /helm template failed/);
    assert.match(run.stderr, /range can't iterate over 12|services\.yaml/);
  });
});

async function snapshotOf(): Promise<KbSnapshot> {
  return FixedKnowledgeBase.fromBundle(await loadKbDirectory(KB_DIR)).current();
}
