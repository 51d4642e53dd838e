/**
 * The review queue page in a real headless Chromium (Debian's, driven by
 * playwright-core) against a real PostgreSQL: the front page links to it; it
 * lists the open proposals with what each changes (before → after), its
 * source and revision; a reader's token is refused, an editor's approves
 * (the record is in the knowledge base) and rejects with a reason (kept); a
 * record edited since its derivation is a conflict said on the page. Nothing
 * is loaded from elsewhere and no script runs.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { fileProposals } from "../src/db/proposal-store.js";
import { proposalToFile, removalProposal } from "./support/proposals.js";
import { createTestToken, startListeningRuntime, type Listening } from "./support/runtime.js";
import { watchedPage } from "./support/watched-page.js";

const CHROMIUM = "/usr/bin/chromium";

type Removal = Record<string, unknown> & { apiVersion: string; kind: string; revision: number };

describe("the review queue page in a browser", () => {
  let listening: Listening;
  let browser: Browser;
  let editor: string;
  let reader: string;
  let removal: Removal;
  const ids: Record<string, number> = {};

  const removals = async (): Promise<Removal[]> =>
    ((await (await fetch(`${listening.url}/api/v1/api-removals`)).json()) as { items: Removal[] })
      .items;

  /** Fills a proposal's form and sends it; answers the page's status and its answer. */
  async function decide(
    page: Page,
    id: number,
    decision: "approve" | "reject",
    token: string,
    reason?: string,
  ): Promise<{ status: number | undefined; answer: string; heading: string }> {
    await page.goto(`${listening.url}/proposals`, { waitUntil: "load" });
    const form = page.locator(`#proposal-${id} form[action="/proposals/${id}/${decision}"]`);
    await form.getByLabel("Editor token").fill(token);
    if (reason !== undefined) await form.getByLabel("Reason").fill(reason);
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith(`/proposals/${id}/${decision}`)),
      form.getByRole("button").click(),
    ]);
    await page.waitForLoadState("load");
    return {
      status: response.status(),
      answer: await page.locator("#answer").innerText(),
      heading: await page.locator("h1").innerText(),
    };
  }

  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`);
    listening = await startListeningRuntime();
    editor = await createTestToken(listening.runtime, "page-reviewer", "editor");
    reader = await createTestToken(listening.runtime, "page-onlooker", "reader");
    removal = (await removals())[0]!;
    const key = `${removal.apiVersion} ${removal.kind}`;
    const { revision: _revision, ...fields } = removal;
    const filed = await fileProposals(listening.runtime.db, [
      removalProposal("Gizmo"),
      proposalToFile(
        {
          entity: "apiRemovals",
          key,
          action: "update",
          record: { ...fields, notes: "Upstream moved the removal note." },
          changedFields: ["notes"],
        },
        removal.revision,
      ),
      removalProposal("Gadget"),
    ]);
    for (const proposal of filed) ids[proposal.key.split(" ").at(-1)!] = proposal.id;
    ids.update = filed.find((proposal) => proposal.action === "update")!.id;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
  });
  after(async () => {
    await browser?.close();
    await listening?.close();
  });

  it("is linked from the front page and shows each change before → after, with its source and revision", async () => {
    const { page, foreign, pageErrors, refusedByPolicy } = await watchedPage(browser);
    await page.goto(`${listening.url}/`, { waitUntil: "load" });
    await page.getByRole("link", { name: "Review queue" }).click();
    await page.waitForURL(`${listening.url}/proposals`);
    assert.equal(await page.locator("#open-count").innerText(), "3 open proposals, oldest first.");

    const update = page.locator(`#proposal-${ids.update}`);
    assert.match(await update.locator("h2").innerText(), /update apiRemovals/);
    assert.match(
      await update.innerText(),
      /kubernetes\/api at kubernetes-1\.37\.0 \(82c0029e\), revision 82c0029e5b1d/,
    );
    const notes = update.locator("table.changes tbody tr");
    assert.equal(await notes.count(), 1, "an update shows the fields it changes");
    const cells = await notes.first().locator("th, td").allInnerTexts();
    assert.deepEqual(cells, [
      "notes",
      typeof removal.notes === "string" ? removal.notes : "—",
      "Upstream moved the removal note.",
    ]);
    const gizmoRows = await page
      .locator(`#proposal-${ids.Gizmo} table.changes tbody tr`)
      .allInnerTexts();
    assert.ok(
      gizmoRows.some((row) => /removedIn\s+—\s+1\.36/.test(row)),
      gizmoRows.join("\n"),
    );

    assert.deepEqual(foreign, [], "nothing loaded from outside");
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(refusedByPolicy, [], "the page needs nothing its policy refuses");
  });

  it("refuses a reader's token, approves with an editor's and keeps a rejection's reason", async () => {
    const { page, refusedByPolicy } = await watchedPage(browser);
    const weak = await decide(page, ids.Gizmo!, "approve", reader);
    assert.equal(weak.status, 403);
    assert.match(weak.heading, /Not done \(FORBIDDEN\)/);
    assert.match(weak.answer, /editor role/);
    const wrong = await decide(page, ids.Gizmo!, "approve", "kc_not-a-token");
    assert.equal(wrong.status, 401);

    const approved = await decide(page, ids.Gizmo!, "approve", editor);
    assert.equal(approved.status, 200);
    assert.match(approved.answer, /is applied by page-reviewer: knowledge-base revision \d+/);
    assert.ok(
      (await removals()).some((entry) => entry.kind === "Gizmo" && entry.removedIn === "1.36"),
      "the approved record is in the knowledge base",
    );

    const blank = await decide(page, ids.Gadget!, "reject", editor, "   ");
    assert.equal(blank.status, 400);
    assert.match(blank.answer, /give the reason for rejecting/);
    const rejected = await decide(page, ids.Gadget!, "reject", editor, "a made-up kind");
    assert.equal(rejected.status, 200);
    assert.match(rejected.answer, /is rejected by page-reviewer: a made-up kind/);
    const kept = (await (
      await fetch(`${listening.url}/api/v1/proposals/${ids.Gadget}`)
    ).json()) as { item: { status: string; reason: string } };
    assert.deepEqual([kept.item.status, kept.item.reason], ["REJECTED", "a made-up kind"]);

    await page.goto(`${listening.url}/proposals`, { waitUntil: "load" });
    assert.equal(await page.locator("#open-count").innerText(), "1 open proposal, oldest first.");
    assert.deepEqual(refusedByPolicy, []);
  });

  it("says a record edited since the derivation is a conflict, and applies nothing", async () => {
    const key = `${removal.apiVersion} ${removal.kind}`;
    const edited = await fetch(`${listening.url}/api/v1/api-removals/${encodeURIComponent(key)}`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${editor}`, "Content-Type": "application/json" },
      body: JSON.stringify({ ...removal, notes: "Checked by hand." }),
    });
    assert.equal(edited.status, 200, await edited.text());
    const { page } = await watchedPage(browser);
    const conflict = await decide(page, ids.update!, "approve", editor);
    assert.equal(conflict.status, 409);
    assert.match(conflict.heading, /Not done \(CONFLICT\)/);
    assert.match(conflict.answer, /changed it since/);
    const now = (await removals()).find((entry) => `${entry.apiVersion} ${entry.kind}` === key)!;
    assert.equal(now.notes, "Checked by hand.");
    const notAnId = await fetch(`${listening.url}/proposals/abc/approve`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: editor }).toString(),
    });
    assert.equal(notAnId.status, 400);
    assert.match(await notAnId.text(), /&quot;abc&quot; is not a proposal id/);
  });
});
