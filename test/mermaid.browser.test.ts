/**
 * The plan as a Mermaid diagram in Markdown answers (CLI --output markdown, chat replies for bots), drawn
 * by the real Mermaid (its browser bundle from node_modules, no network) in headless Chromium: a diagram
 * Mermaid cannot parse fails here, as it would in a pull-request comment. The drawing is kept as a screenshot
 * in test-results/screenshots/.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { answer as chatAnswer } from "../src/chatops/commands.js";
import { planHops, planMermaid, type TimelinePlan } from "../src/domain/plan-timeline.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kubecompat } from "./support/cli-process.js";
import { REPO_ROOT, startListeningRuntime } from "./support/runtime.js";
import { kbSnapshot } from "./support/snapshot.js";

const CHROMIUM = "/usr/bin/chromium";
const MERMAID = path.join(REPO_ROOT, "node_modules", "mermaid", "dist", "mermaid.min.js");
const SCREENSHOTS = path.join(REPO_ROOT, "test-results", "screenshots");
const PLAN_FILE = path.join(import.meta.dirname, "fixtures", "cli", "cluster.yaml");

function mermaidBlock(markdown: string): string {
  const match = /```mermaid\n([\s\S]*?)\n```/.exec(markdown);
  assert.ok(match, `a mermaid block in:\n${markdown.slice(0, 400)}`);
  return match[1]!;
}

/** Mermaid's own parse and render; throws Mermaid's error for a diagram it cannot read. */
async function render(page: Page, diagram: string): Promise<string> {
  return page.evaluate(async (text) => {
    const mermaid = (
      globalThis as unknown as {
        mermaid: {
          initialize(options: object): void;
          render(id: string, text: string): Promise<{ svg: string }>;
        };
      }
    ).mermaid;
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
    const { svg } = await mermaid.render(`d${Math.random().toString(36).slice(2)}`, text);
    const holder = document.createElement("div");
    holder.className = "drawn";
    holder.innerHTML = svg;
    document.body.replaceChildren(holder);
    return svg;
  }, diagram);
}

describe("the plan as a Mermaid diagram", () => {
  let browser: Browser;
  let page: Page;
  let snapshot: KbSnapshot;
  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium`);
    snapshot = await kbSnapshot();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
      ],
    });
    page = await browser.newPage();
    await page.setContent("<!doctype html><html><body></body></html>");
    await page.addScriptTag({ path: MERMAID });
  });
  after(async () => {
    await browser?.close();
  });

  it("is in the CLI's markdown plan, and Mermaid draws one box per hop", async () => {
    const listening = await startListeningRuntime({ inMemory: true });
    try {
      const run = await kubecompat(["plan", PLAN_FILE, "--to", "latest", "--output", "markdown"], {
        env: { KUBECOMPAT_URL: listening.url },
      });
      assert.ok(run.code === 0 || run.code === 1, run.stderr);
      const json = await kubecompat(["plan", PLAN_FILE, "--to", "latest", "--output", "json"], {
        env: { KUBECOMPAT_URL: listening.url },
      });
      const plan = JSON.parse(json.stdout) as TimelinePlan;
      const diagram = mermaidBlock(run.stdout);
      assert.equal(diagram, planMermaid(plan), "the diagram is the plan's");
      const svg = await render(page, diagram);
      const hops = planHops(plan);
      assert.ok(hops.length >= 2, "the plan crosses minors");
      assert.equal(
        await page.locator(".drawn g.node").count(),
        hops.length + 1,
        "a box per hop and one for now",
      );
      for (const hop of hops)
        assert.ok(
          svg.includes(hop.preparing ? `at ${hop.minor}: prepare` : `to ${hop.minor}`),
          `hop ${hop.minor} is labelled`,
        );
      assert.ok(
        (await page.locator(".drawn .edgePath, .drawn path.flowchart-link").count()) >= hops.length,
        "the hops are joined",
      );
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await page
        .locator(".drawn svg")
        .screenshot({ path: path.join(SCREENSHOTS, "plan-mermaid.png") });
    } finally {
      await listening.close();
    }
  });

  it("is in the chat's Markdown plan, not in Slack's blocks", async () => {
    const reply = chatAnswer(snapshot, "upgrade 1.29 -> 1.31");
    const diagram = mermaidBlock(reply.text);
    await render(page, diagram);
    assert.ok((await page.locator(".drawn g.node").count()) >= 3);
    assert.ok(
      !JSON.stringify(reply.blocks).includes("flowchart"),
      "Slack draws no Mermaid: the steps are in the blocks as words",
    );
  });

  it("keeps labels that Mermaid would read as markup: quotes, angle brackets, hashes", async () => {
    const plan: TimelinePlan = {
      targetVersion: "1.31",
      steps: [
        {
          order: 1,
          component: "kube-apiserver",
          instance: 'cp "blue" <1>',
          fromVersion: "1.30.4",
          toVersion: "1.31.2",
        },
        {
          order: 2,
          component: "kubelet",
          instance: "pool#a",
          fromVersion: "1.30.4",
          toVersion: "1.31.2",
        },
      ],
      apiRemovals: [],
    };
    const svg = await render(page, planMermaid(plan));
    const text = await page.locator(".drawn").innerText();
    assert.match(text, /kube-apiserver@cp "blue" <1> → 1\.31\.2/);
    assert.match(text, /kubelet@pool#a → 1\.31\.2/);
    assert.ok(!svg.includes("<1>"), "the bracket is text, not an element");
  });
});
