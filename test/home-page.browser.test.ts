/**
 * The front page in a real headless Chromium (Debian's, driven by
 * playwright-core): it renders the knowledge-base revision and the coverage
 * table with no request leaving localhost and no script error, and its
 * links take a person to the REST docs and the playground; it draws the
 * release calendar (today marked) and the compatibility matrix, and a pasted
 * `kubectl get nodes -o wide`, typed with the keyboard alone, becomes a drawn
 * plan. Screenshots are kept in test-results/screenshots/ for people to look at.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { compatibilityMatrix } from "../src/domain/matrix.js";
import { today } from "../src/domain/validate.js";
import {
  REPO_ROOT,
  startListeningRuntime,
  type Listening,
  type SnapshotRuntime,
} from "./support/runtime.js";
import { watchedPage } from "./support/watched-page.js";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = path.join(REPO_ROOT, "test-results", "screenshots");

const NODES_WIDE = `NAME         STATUS   ROLES           AGE    VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME
cp-1         Ready    control-plane   412d   v1.31.4   10.0.0.11     <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.7.13
pool-a-x1    Ready    <none>          88d    v1.29.6   10.0.1.21     <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.6.20
pool-a-x2    Ready    <none>          88d    v1.29.6   10.0.1.22     <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.6.20
`;

describe("the front page in a browser", () => {
  let listening: Listening<SnapshotRuntime>;
  let browser: Browser;

  before(async () => {
    assert.ok(
      fs.existsSync(CHROMIUM),
      `${CHROMIUM} is missing: install Debian's chromium (npm test installs it when run as root; else apt-get install chromium)`,
    );
    listening = await startListeningRuntime({ inMemory: true });
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
    await listening?.close();
  });

  it("shows the revision and coverage, and its links lead to the docs and the playground", async () => {
    const { page, foreign, pageErrors, refusedByPolicy } = await watchedPage(browser);

    const response = await page.goto(`${listening.url}/`, { waitUntil: "load" });
    assert.equal(response?.status(), 200);
    assert.equal(await page.title(), "kubecompat");
    assert.equal(
      await page.locator("#kb-revision").innerText(),
      String(listening.runtime.kb.current().revision),
    );
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
    assert.deepEqual(
      refusedByPolicy,
      [],
      "the page needs nothing its Content-Security-Policy refuses",
    );
  });

  it("draws the release calendar with today marked and the compatibility matrix the domain answers", async () => {
    const { page, foreign } = await watchedPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${listening.url}/`, { waitUntil: "load" });
    const snapshot = listening.runtime.kb.current();
    const matrix = compatibilityMatrix(snapshot, { asOf: today() });
    // The calendar: one bar per minor, coloured by its status on today's date, and today's line.
    assert.equal(await page.locator("#release-calendar .release").count(), matrix.columns.length);
    assert.equal(await page.locator("#today").getAttribute("data-date"), today());
    const todayBox = await page.locator("#today line").boundingBox();
    assert.ok(todayBox !== null && todayBox.height > 50, "today's line is drawn across the bars");
    for (const column of matrix.columns) {
      assert.equal(
        await page
          .locator(`#release-calendar .release[data-minor="${column.minor}"]`)
          .getAttribute("data-status"),
        column.status,
      );
    }
    // End of life in colour: an end-of-life minor's header is grey, a supported one's green.
    const fillOf = (status: string) =>
      page.locator(`#matrix .minor[data-status="${status}"] rect`).first().getAttribute("fill");
    assert.equal(await fillOf("END_OF_LIFE"), "#8c959f");
    assert.equal(await fillOf("SUPPORTED"), "#2da44e");
    // Every row the domain gives, each cell with its text: kubelet under the newest minor reaches back three minors upstream.
    assert.equal(await page.locator("#matrix .row").count(), matrix.rows.length);
    const newest = matrix.columns[matrix.columns.length - 1]!.minor;
    const kubeletCell = matrix.rows.find((row) => row.subject === "kubelet")!.cells.at(-1)!;
    assert.match(
      kubeletCell.text,
      new RegExp(`^1\\.${Number(newest.split(".")[1]) - 3}–${newest.replace(".", "\\.")}$`),
    );
    assert.equal(
      await page
        .locator(`#matrix .row[data-subject="kubelet"] .cell[data-minor="${newest}"] text`)
        .textContent(),
      kubeletCell.text,
    );
    assert.ok(
      (await page.locator('#matrix .row[data-kind="ADD_ON"]').count()) >= 10,
      "the add-ons are rows",
    );
    assert.ok(
      (await page.locator('#matrix .cell[data-state="UNKNOWN"]').count()) > 0,
      "what the knowledge does not say is drawn as unknown, not left out",
    );
    const matrixBox = await page.locator("#matrix").boundingBox();
    assert.ok(
      matrixBox !== null && matrixBox.width > 600 && matrixBox.height > 300,
      `the matrix is drawn at a readable size (${JSON.stringify(matrixBox)})`,
    );
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.locator("#matrix").screenshot({ path: path.join(SCREENSHOTS, "matrix.png") });
    await page
      .locator("#release-calendar")
      .screenshot({ path: path.join(SCREENSHOTS, "release-calendar.png") });
    assert.ok(
      fs.statSync(path.join(SCREENSHOTS, "matrix.png")).size > 10_000,
      "the screenshot holds a picture",
    );
    assert.deepEqual(foreign, []);
  });

  it("turns a pasted `kubectl get nodes -o wide` into a drawn plan, with the keyboard alone", async () => {
    const { page, foreign, pageErrors, refusedByPolicy } = await watchedPage(browser);
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.goto(`${listening.url}/`, { waitUntil: "load" });
    // Keyboard only: focus the first field, then Tab from field to field, paste (insertText) and type.
    await page.locator("#nodes").focus();
    await page.keyboard.insertText(NODES_WIDE);
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "version");
    await page.keyboard.type("v1.31.4");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "target");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("1.33");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "profile");
    await page.keyboard.press("Tab");
    // The platform and the day, as every other face takes them; left empty: recognised, and today.
    assert.equal(await page.evaluate(() => document.activeElement?.id), "platform");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "asOf");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Draw the plan");
    await Promise.all([page.waitForLoadState("load"), page.keyboard.press("Enter")]);
    await page.locator("#plan-timeline").waitFor();

    // The hops: prepare at 1.31 (the 1.29 pool must move before the control plane leaves it behind), 1.32, 1.33.
    const hops = await page
      .locator("#plan-timeline .hop")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-minor")));
    assert.deepEqual(hops.slice(-2), ["1.32", "1.33"]);
    const steps = await page.locator("#plan-timeline .hop .step title").allTextContents();
    assert.ok(
      steps.some((text) => /kube-apiserver → 1\.32/.test(text)),
      steps.join(" | "),
    );
    assert.ok(
      steps.some((text) => /kubelet@workers → 1\.3\d/.test(text)),
      steps.join(" | "),
    );
    // Each control-plane hop says the last point it can be undone (upstream: only before its step).
    const undo = await page
      .locator('#plan-timeline .hop[data-minor="1.32"] .undo title')
      .allTextContents();
    assert.equal(undo.length, 1, undo.join(" | "));
    assert.match(
      undo[0]!,
      /^undo: no control-plane minor downgrade: the last point to stay on 1\.31 is before this step/,
    );
    assert.ok(
      (await page.locator("#plan-findings .finding").count()) > 0,
      "the plan's findings are listed",
    );
    assert.match(await page.locator("#plan-status").innerText(), /SUPPORTED|UNSUPPORTED/);
    // The form keeps what was pasted, so a person can change the target and draw again.
    assert.equal(await page.locator("#nodes").inputValue(), NODES_WIDE);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.locator("#plan").screenshot({ path: path.join(SCREENSHOTS, "plan-timeline.png") });

    // A mistake is said beside the form, which keeps the input.
    await page.locator("#version").fill("");
    await Promise.all([
      page.waitForLoadState("load"),
      page.getByRole("button", { name: "Draw the plan" }).click(),
    ]);
    assert.match(
      await page.getByRole("alert").innerText(),
      /paste the output of `kubectl version`/,
    );
    assert.equal(await page.locator("#nodes").inputValue(), NODES_WIDE);
    assert.deepEqual(foreign, []);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(
      refusedByPolicy,
      [],
      "the page needs nothing its Content-Security-Policy refuses",
    );
  });
});
