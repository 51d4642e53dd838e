/**
 * The front page in a real headless Chromium (Debian's, driven by
 * playwright-core): it renders the knowledge-base revision and the coverage
 * table with no request leaving localhost and no script error, and its
 * links take a person to the REST docs and the playground.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { startListeningRuntime, type Listening, type SnapshotRuntime } from "./support/runtime.js";
import { watchedPage } from "./support/watched-page.js";

const CHROMIUM = "/usr/bin/chromium";

describe("the front page in a browser", () => {
  let listening: Listening<SnapshotRuntime>;
  let browser: Browser;

  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (npm test installs it when run as root; else apt-get install chromium)`);
    listening = await startListeningRuntime({ inMemory: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  });
  after(async () => {
    await browser?.close();
    await listening?.close();
  });

  it("shows the revision and coverage, and its links lead to the docs and the playground", async () => {
    const { page, foreign, pageErrors } = await watchedPage(browser);

    const response = await page.goto(`${listening.url}/`, { waitUntil: "load" });
    assert.equal(response?.status(), 200);
    assert.equal(await page.title(), "kubecompat");
    assert.equal(await page.locator("#kb-revision").innerText(), String(listening.runtime.kb.current().revision));
    const rows = await page.locator("#coverage tbody tr").count();
    assert.equal(rows, listening.runtime.kb.current().coverage.length);

    await page.getByRole("link", { name: "REST API docs" }).click();
    await page.waitForURL(`${listening.url}/docs`);
    await page.locator(".swagger-ui").first().waitFor();

    await page.goBack();
    await page.getByRole("link", { name: "GraphQL playground" }).click();
    await page.waitForURL(`${listening.url}/graphql`);
    await page.locator(".graphiql-container").first().waitFor();

    assert.deepEqual(foreign, [], "nothing loaded from outside");
    assert.deepEqual(pageErrors, []);
  });
});
