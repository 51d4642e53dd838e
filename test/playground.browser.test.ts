/**
 * The GraphQL playground in a real headless Chromium (Debian's, driven by
 * playwright-core): the page loads with no request leaving localhost, an
 * example query runs by clicking, and its result appears; every example tab
 * opens with a mouse click (playwright's, which moves the pointer, presses
 * and releases it where the tab is drawn), runs, and answers what it shows.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { PLAYGROUND_EXAMPLES } from "../src/graphql/playground.js";
import { fileProposals } from "../src/db/proposal-store.js";
import { removalProposal } from "./support/proposals.js";
import { startTestRuntime, type TestRuntime } from "./support/runtime.js";
import { watchedPage } from "./support/watched-page.js";

const CHROMIUM = "/usr/bin/chromium";

interface AnsweredFinding {
  readonly code: string;
  readonly instance: string | null;
  readonly message: string;
}

/**
 * What each example tab, by its operation name, must answer: the facts the
 * tab's hint promises. A new tab without an entry here fails the test.
 */
const EXAMPLE_ANSWERS: Readonly<
  Record<string, (data: Record<string, unknown>, runtime: TestRuntime) => void>
> = {
  ValidateCluster(data) {
    const report = data.validateCluster as { ok: boolean; findings: AnsweredFinding[] };
    assert.equal(report.ok, false);
    assert.ok(
      report.findings.some(
        (entry) =>
          entry.code === "SKEW_KUBELET_TOO_OLD_FOR_APISERVER" && entry.instance === "pool-b",
      ),
      "pool-b's kubelet 1.26 is too old for 1.30",
    );
  },
  PlanUpgrade(data) {
    const plan = data.planUpgrade as {
      ok: boolean;
      steps: Array<{ component: string; instance: string | null; toVersion: string }>;
    };
    assert.equal(plan.ok, true);
    const apiserverSteps = plan.steps
      .filter((step) => step.component === "kube-apiserver")
      .map((step) => step.toVersion.split(".").slice(0, 2).join("."));
    assert.deepEqual(
      apiserverSteps,
      ["1.28", "1.29", "1.30"],
      "the control plane moves one minor at a time",
    );
    assert.ok(
      plan.steps.some((step) => step.component === "kubelet" && step.instance === "pool-a"),
      "pool-a's kubelet has to move",
    );
  },
  CheckRollback(data) {
    const report = data.checkRollback as { ok: boolean; findings: AnsweredFinding[] };
    assert.equal(report.ok, false);
    assert.equal(report.findings[0]?.code, "ROLLBACK_TRAP");
    assert.equal(report.findings[0]?.instance, "pool-a");
  },
  ScanManifests(data) {
    const scan = data.scanManifests as {
      targetVersion: string;
      findings: Array<{ code: string; kind: string; replacement: string | null }>;
    };
    assert.equal(scan.targetVersion, "1.25");
    assert.deepEqual(
      scan.findings.map((entry) => [entry.kind, entry.code, entry.replacement]),
      [
        ["CronJob", "API_REMOVED", "batch/v1"],
        ["PodDisruptionBudget", "API_REMOVED", "policy/v1"],
      ],
    );
  },
  CheckNodePoolUpgrade(data) {
    const report = data.checkNodePoolUpgrade as {
      status: string;
      pool: string;
      findings: AnsweredFinding[];
      steps: Array<{ action: string }>;
    };
    assert.equal(report.status, "UNSUPPORTED");
    assert.equal(report.pool, "pool-b");
    assert.ok(
      report.findings.some(
        (entry) =>
          entry.code === "FLAG_REMOVED" &&
          entry.message.includes("--azure-container-registry-config"),
      ),
      "kubelet 1.30 no longer accepts --azure-container-registry-config",
    );
    assert.ok(
      report.findings.some(
        (entry) =>
          entry.code === "FLAG_DEPRECATED" && entry.message.includes("--pod-infra-container-image"),
      ),
    );
    assert.deepEqual(
      report.steps.map((step) => step.action),
      ["drain", "runtime", "kubelet", "kube-proxy", "uncordon"],
    );
  },
  KnowledgeBase(data, runtime) {
    const snapshot = runtime.kb.current();
    const summary = data.knowledgeBase as { revision: number; newestRelease: string };
    assert.equal(summary.revision, snapshot.revision);
    assert.equal(summary.newestRelease, snapshot.newestRelease?.version);
    const component = data.component as { name: string; ports: Array<{ port: number }> };
    assert.equal(component.name, "kube-apiserver");
    assert.ok(component.ports.some((port) => port.port === 6443));
    assert.equal((data.release as { version: string }).version, "1.30");
  },
  Proposals(data) {
    const queue = data.proposals as Array<{ key: string; action: string; source: string }>;
    assert.deepEqual(
      queue.map((entry) => [entry.key, entry.action, entry.source]),
      [[QUEUED.key, "CREATE", QUEUED.source]],
    );
  },
};

/** The proposal the review queue's example finds open. */
const QUEUED = removalProposal("Gizmo");

function operationName(query: string): string {
  const name = /^query (\w+)/m.exec(query)?.[1];
  assert.ok(name !== undefined, `an example without a named query: ${query.slice(0, 80)}`);
  return name;
}

/** The text of the query editor's first line (Monaco draws spaces as no-break spaces). */
function editorFirstLine(): string {
  const lines = [...document.querySelectorAll<HTMLElement>(".graphiql-query-editor .view-line")];
  const first = lines.find((line) => line.style.top === "0px");
  return (first?.textContent ?? "").replace(/\u00a0/g, " ");
}

/**
 * What the query editor's first line reads once it reads `expected`, or when `timeoutMs` has run out:
 * Monaco paints a tab's query in a later animation frame than the one that selects the tab, and on a
 * busy machine several frames later.
 */
async function settledFirstLine(page: Page, expected: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shown = await page.evaluate(editorFirstLine);
    if (shown === expected || Date.now() > deadline) return shown;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the GraphQL playground in a browser", () => {
  let runtime: TestRuntime;
  let server: http.Server;
  let browser: Browser;
  let base: string;

  before(async () => {
    assert.ok(
      fs.existsSync(CHROMIUM),
      `${CHROMIUM} is missing: install Debian's chromium (npm test installs it when run as root; else apt-get install chromium)`,
    );
    // With a database: the review queue's example reads proposals, one of them filed here.
    runtime = await startTestRuntime();
    await fileProposals(runtime.db, [QUEUED]);
    server = http.createServer(runtime.app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    // playwright-core starts it with a fresh, empty profile of its own.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await runtime?.close();
  });

  it("loads offline, runs the example query on click and shows the result", async () => {
    const { page, foreign, pageErrors } = await watchedPage(browser);

    const response = await page.goto(`${base}/graphql`, { waitUntil: "load" });
    assert.equal(response?.status(), 200);
    assert.equal(await page.title(), "kubecompat GraphQL");
    const run = page.locator(".graphiql-execute-button");
    await run.waitFor({ state: "visible", timeout: 30_000 });
    await run.click();
    // A query with one operation runs at once; with several, GraphiQL asks which one.
    const result = page.locator(".graphiql-response");
    await page.waitForFunction(
      () =>
        (document.querySelector(".graphiql-response")?.textContent ?? "").includes("kbRevision"),
      undefined,
      { timeout: 30_000 },
    );
    const text = (await result.textContent()) ?? "";
    assert.match(text, /"validateCluster"/);
    assert.match(text, /"ok":\s*false/);
    assert.match(text, /SKEW_KUBELET_TOO_OLD_FOR_APISERVER/);
    assert.deepEqual(foreign, [], "no request left localhost");
    assert.deepEqual(pageErrors, []);
    await page.screenshot({ path: path.join(os.tmpdir(), "kubecompat-playground.png") });
  });

  it("opens every example tab with a mouse click, runs it and shows its answer", async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${base}/graphql`, { waitUntil: "load" });
    const run = page.locator(".graphiql-execute-button");
    await run.waitFor({ state: "visible", timeout: 30_000 });
    // A resize is what shifts GraphiQL's tabs off their place (src/graphql/playground.ts): they must stay clickable after one.
    await page.setViewportSize({ width: 1100, height: 720 });
    const tabs = page.locator(".graphiql-tab");
    assert.equal(await tabs.count(), PLAYGROUND_EXAMPLES.length, "one tab per example");
    assert.ok(
      PLAYGROUND_EXAMPLES.some((example) => example.query.includes("checkNodePoolUpgrade(")),
      "a node-pool example",
    );

    for (const [index, example] of PLAYGROUND_EXAMPLES.entries()) {
      const operation = operationName(example.query);
      const expectAnswer = EXAMPLE_ANSWERS[operation];
      assert.ok(expectAnswer !== undefined, `no expected answer for the ${operation} tab`);
      const hint = example.query.split("\n")[0]!;
      assert.match(hint, /^# \S.{10,}$/, `the ${operation} tab starts with a one-line hint`);

      const tab = tabs.nth(index);
      await tab.locator(".graphiql-tab-button").click();
      const opened = await page
        .waitForFunction(
          (at) =>
            document.querySelectorAll(".graphiql-tab")[at]?.getAttribute("aria-selected") ===
            "true",
          index,
          { timeout: 30_000 },
        )
        .then(
          () => true,
          () => false,
        );
      assert.ok(opened, `a mouse click on the ${operation} tab did not open it`);
      assert.equal(
        await settledFirstLine(page, hint, 30_000),
        hint,
        `the ${operation} tab shows its own query`,
      );
      // GraphiQL takes in a changed editor 100 ms later (debounced): it then stores the query as
      // "graphiql:query" and learns the operation's name in the same step. A run inside that window
      // sends the previous tab's operation name, which the page's fetcher refuses ("Cannot infer
      // operation"); a person moving the pointer from the tab to the run button is slower than that.
      const settled = await page
        .waitForFunction(
          (query) => window.localStorage.getItem("graphiql:query") === query,
          example.query,
          { timeout: 30_000 },
        )
        .then(
          () => true,
          () => false,
        );
      assert.ok(settled, `GraphiQL never took in the ${operation} tab's query`);

      // GraphiQL sends the document with the ignored characters stripped: `query PlanUpgrade{...}`.
      const sent = new RegExp(`^query\\s*${operation}\\b`);
      const answered = page.waitForResponse(
        (response) =>
          response.url().endsWith("/graphql") &&
          response.request().method() === "POST" &&
          sent.test((response.request().postDataJSON() as { query?: string } | null)?.query ?? ""),
        { timeout: 30_000 },
      );
      await run.click();
      const body = (await (
        await answered.catch((error: unknown) => {
          throw new Error(
            `the ${operation} tab's run sent no answered POST /graphql: ${(error as Error).message}; page errors: ${JSON.stringify(pageErrors)}`,
          );
        })
      ).json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      assert.equal(body.errors, undefined, `${operation}: ${JSON.stringify(body.errors)}`);
      expectAnswer(body.data!, runtime);
      // And the page shows that answer, not the one of another tab.
      const rootField = Object.keys(body.data!)[0]!;
      await page.waitForFunction(
        (field) =>
          (document.querySelector(".graphiql-response")?.textContent ?? "").includes(`"${field}"`),
        rootField,
        { timeout: 30_000 },
      );
    }
    assert.deepEqual(pageErrors, []);
  });
});
