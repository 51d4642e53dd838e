/**
 * The fleet page in a real headless Chromium (Debian's, driven by
 * playwright-core) against a fleet on a real PostgreSQL, served on a
 * loopback port: nothing is loaded from elsewhere, no console error, nothing
 * the page's policy refuses; the timeline draws one row per cluster and marks
 * the overdue starts and past deadlines the JSON says; the anchors the
 * calendar feed links to exist and are the row a browser scrolls to; the
 * cluster's JSON link and the owner's calendar answer; the filter form
 * narrows the list. A screenshot is kept in test-results/screenshots/.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { createDatabase } from "../src/db/client.js";
import { migrate } from "../src/db/migrator.js";
import { createLogger } from "../src/core/logger.js";
import { importKbDirectory } from "../src/services/import.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { startFleetInstance, type FleetInstance } from "./support/fleet-instance.js";
import { listed, registerFleet, upgradeDue, type ListedCluster } from "./support/fleet-page.js";
import { KB_DIR, REPO_ROOT, createTestToken } from "./support/runtime.js";
import { watchedPage, type WatchedPage } from "./support/watched-page.js";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = path.join(REPO_ROOT, "test-results", "screenshots");

describe("the fleet page in a browser", () => {
  let database: TestDatabase;
  let instance: FleetInstance;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let clusters: ListedCluster[];

  /** A watched page that also records every console error, not only the policy's. */
  async function openFleet(
    query = "",
  ): Promise<WatchedPage & { consoleErrors: string[]; page: Page }> {
    const watched = await watchedPage(browser);
    const consoleErrors: string[] = [];
    watched.page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    const answer = await watched.page.goto(`${base}/fleet${query}`, { waitUntil: "load" });
    assert.equal(answer?.status(), 200);
    return { ...watched, consoleErrors };
  }

  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`);
    database = await createTestDatabase();
    await migrate(database.url);
    const seed = createDatabase(database.url, 2, createLogger("silent"));
    await importKbDirectory(seed, KB_DIR);
    const editor = await createTestToken({ db: seed }, "fleet-browser-editor", "editor");
    await seed.$disconnect();
    instance = await startFleetInstance(database.url, { clock: () => "2026-12-06" });
    await registerFleet(instance.app, editor);
    clusters = await listed(instance.app);
    server = http.createServer(instance.app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
  });
  after(async () => {
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
    await instance?.close();
    await database?.drop();
  });

  it("loads nothing from elsewhere, logs no error, and draws one timeline row per cluster with the overdue and past marks the JSON says", async () => {
    const { page, foreign, pageErrors, refusedByPolicy, consoleErrors } = await openFleet();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "fleet-page.png"), fullPage: true });

    const timeline = page.locator("svg#fleet-timeline");
    assert.equal(await timeline.getAttribute("role"), "img");
    assert.match(
      (await timeline.getAttribute("aria-label")) ?? "",
      /^Fleet timeline of 6 clusters/,
    );
    const rows = timeline.locator("g.timeline-row");
    assert.equal(await rows.count(), clusters.length);
    assert.deepEqual(
      await rows.evaluateAll((groups) => groups.map((group) => group.getAttribute("data-cluster"))),
      clusters.map((cluster) => cluster.name),
    );
    assert.ok(await timeline.locator("#timeline-today").isVisible());

    const overdue = clusters
      .filter((cluster) => upgradeDue(cluster) && cluster.daysToStart! < 0)
      .map((cluster) => cluster.name);
    const past = clusters.filter((cluster) => cluster.daysLeft! < 0).map((cluster) => cluster.name);
    assert.ok(
      overdue.length > 0 && past.length > 0,
      "the fleet has an overdue start and a past deadline",
    );
    for (const cluster of clusters) {
      const row = timeline.locator(`g.timeline-row[data-cluster="${cluster.name}"]`);
      const note = await row.locator("text.note").textContent();
      const isOverdue = overdue.includes(cluster.name);
      const isPast = past.includes(cluster.name);
      // Said in words, and drawn differently: a hatched bar, a crossed marker.
      assert.equal(/start overdue/.test(note ?? ""), isOverdue, `${cluster.name}: ${note}`);
      assert.equal(/deadline past/.test(note ?? ""), isPast, `${cluster.name}: ${note}`);
      assert.equal(
        await row.locator("rect.rollout.overdue").count(),
        isOverdue ? 1 : 0,
        cluster.name,
      );
      assert.equal(
        await row.locator(".deadline-marker.past").count(),
        isPast ? 1 : 0,
        cluster.name,
      );
      assert.match(
        (await row.locator("title").textContent()) ?? "",
        new RegExp(`^${cluster.name} \\(`),
      );
      // The table says the same.
      const tableRow = page.locator(`tr#cluster-${cluster.name}`);
      assert.equal(await tableRow.locator("td.start strong.overdue").count(), isOverdue ? 1 : 0);
      assert.equal(await tableRow.locator("td.support strong.past").count(), isPast ? 1 : 0);
    }

    assert.deepEqual(foreign, [], "nothing loaded from outside");
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(refusedByPolicy, []);
    await page.close();
  });

  it("has the anchors the calendar feed links to, and a browser scrolls to the row", async () => {
    const { page } = await openFleet();
    for (const cluster of clusters)
      assert.equal(await page.locator(`#cluster-${cluster.name}`).count(), 1, cluster.name);
    const feed = await (await fetch(`${base}/api/v1/calendar.ics`)).text();
    const linked = [...feed.matchAll(/\/fleet#cluster-([a-z0-9.-]+)/g)].map((match) => match[1]!);
    assert.ok(linked.length > 0);
    for (const name of new Set(linked))
      assert.ok(clusters.some((cluster) => cluster.name === name));
    await page.goto(`${base}/fleet#cluster-${linked[0]}`, { waitUntil: "load" });
    assert.equal(await page.locator("tr:target").getAttribute("data-cluster"), linked[0]);
    assert.ok(await page.locator(`#cluster-${linked[0]}`).isVisible());
    await page.close();
  });

  it("follows a cluster's JSON link to its detail, and its owner's calendar answers", async () => {
    const { page, foreign } = await openFleet();
    const target = clusters.find((cluster) => cluster.name === "pay-prod")!;
    const row = page.locator(`tr#cluster-${target.name}`);
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith(`/api/v1/clusters/${target.name}`)),
      row.locator("a.cluster-json").click(),
    ]);
    assert.equal(response.status(), 200);
    await page.waitForURL(`${base}/api/v1/clusters/${target.name}`);
    const detail = (await response.json()) as { item: { name: string; plan: unknown } };
    assert.equal(detail.item.name, target.name);
    assert.ok(detail.item.plan !== undefined);

    await page.goBack({ waitUntil: "load" });
    for (const cluster of clusters) {
      const href = await page
        .locator(`tr#cluster-${cluster.name} a.owner-calendar`)
        .getAttribute("href");
      const calendar = await fetch(new URL(href!, base));
      assert.equal(calendar.status, 200, href!);
      assert.match(calendar.headers.get("content-type") ?? "", /^text\/calendar/);
      const text = await calendar.text();
      // Only the owner's clusters are in it.
      for (const other of clusters)
        assert.equal(
          text.includes(`/fleet#cluster-${other.name}`),
          other.owner === cluster.owner && other.judgement.deadline !== null,
          `${href}: ${other.name}`,
        );
    }
    assert.deepEqual(foreign, []);
    await page.close();
  });

  it("narrows the list with the filter form (no script: a GET form)", async () => {
    const { page, refusedByPolicy } = await openFleet();
    await page.locator("form.filters select[name=environment]").selectOption("prod");
    await Promise.all([
      page.waitForURL(/\/fleet\?environment=prod/),
      page.locator("form.filters button[type=submit]").click(),
    ]);
    const shown = await page
      .locator("tr.cluster")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-cluster")));
    assert.deepEqual(
      shown,
      clusters.filter((cluster) => cluster.environment === "prod").map((cluster) => cluster.name),
    );
    assert.equal(await page.locator("svg#fleet-timeline g.timeline-row").count(), shown.length);
    assert.deepEqual(refusedByPolicy, []);
    await page.close();
  });
});
