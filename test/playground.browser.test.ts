/**
 * The GraphQL playground in a real headless Chromium (Debian's, driven by
 * playwright-core): the page loads with no request leaving localhost, an
 * example query runs by clicking, and its result appears.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { startTestRuntime, type TestRuntime } from "./support/runtime.js";

const CHROMIUM = "/usr/bin/chromium";

describe("the GraphQL playground in a browser", () => {
  let runtime: TestRuntime;
  let server: http.Server;
  let browser: Browser;
  let base: string;

  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (npm test installs it when run as root; else apt-get install chromium)`);
    runtime = await startTestRuntime();
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
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (!["127.0.0.1", "localhost"].includes(url.hostname) && url.protocol !== "data:" && url.protocol !== "blob:") foreign.push(request.url());
    });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));

    const response = await page.goto(`${base}/graphql`, { waitUntil: "load" });
    assert.equal(response?.status(), 200);
    assert.equal(await page.title(), "kubecompat GraphQL");
    const run = page.locator(".graphiql-execute-button");
    await run.waitFor({ state: "visible", timeout: 30_000 });
    await run.click();
    // A query with one operation runs at once; with several, GraphiQL asks which one.
    const result = page.locator(".graphiql-response");
    await page.waitForFunction(() => (document.querySelector(".graphiql-response")?.textContent ?? "").includes("kbRevision"), undefined, { timeout: 30_000 });
    const text = (await result.textContent()) ?? "";
    assert.match(text, /"validateCluster"/);
    assert.match(text, /"ok":\s*false/);
    assert.match(text, /SKEW_KUBELET_TOO_OLD_FOR_APISERVER/);
    assert.deepEqual(foreign, [], "no request left localhost");
    assert.deepEqual(pageErrors, []);
    await page.screenshot({ path: path.join(os.tmpdir(), "kubecompat-playground.png") });
  });
});
