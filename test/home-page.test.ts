/**
 * `GET /` over real HTTP: an HTML page for people that says what the
 * service is, shows the knowledge base it answers from (the revision of
 * /api/v1/kb and every row of /api/v1/coverage), and links to the
 * playground, the REST docs and the OpenAPI document, each of which answers.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { summarise } from "../src/domain/catalog.js";
import { HOME_LINKS, homePage } from "../src/rest/home.js";
import { startListeningRuntime, type Listening, type SnapshotRuntime } from "./support/runtime.js";

describe("GET / (the front page)", () => {
  let base: string;
  let runtime: SnapshotRuntime;
  let listening: Listening<SnapshotRuntime>;
  before(async () => {
    listening = await startListeningRuntime({ inMemory: true });
    ({ url: base, runtime } = listening);
  });
  after(async () => listening.close());

  it("is HTML that says what the service is and which knowledge base answers, as /api/v1/kb and /api/v1/coverage say", async () => {
    const answer = await fetch(`${base}/`, { headers: { Accept: "text/html" } });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get("content-type") ?? "", /^text\/html; charset=utf-8/);
    const page = await answer.text();
    assert.match(page, /<title>kubecompat<\/title>/);
    assert.match(page, /Kubernetes upgrade/);

    const kb = (await (await fetch(`${base}/api/v1/kb`)).json()) as {
      revision: number;
      newestRelease: string;
    };
    assert.ok(kb.revision >= 1);
    assert.match(page, new RegExp(`<strong id="kb-revision">${kb.revision}</strong>`));
    assert.match(
      page,
      new RegExp(
        `newest Kubernetes release it knows is <strong>${kb.newestRelease.replace(".", "\\.")}</strong>`,
      ),
    );

    const coverage = (await (await fetch(`${base}/api/v1/coverage`)).json()) as {
      items: Array<{ knowledge: string; throughMinor: string; stage: string; source: string }>;
    };
    const table = /<table id="coverage">[\s\S]*?<\/table>/.exec(page)?.[0] ?? "";
    const rows = [...table.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map(
      (row) => `${row[1]} ${row[2]}`,
    );
    assert.ok(coverage.items.length >= 5);
    // A claim read before its minor's release says so.
    assert.deepEqual(
      rows,
      coverage.items.map(
        (claim) =>
          `${claim.knowledge} ${claim.throughMinor}${claim.stage === "PRERELEASE" ? " (pre-release)" : ""}`,
      ),
    );
    assert.ok(coverage.items.some((claim) => claim.stage === "PRERELEASE"));
  });

  it("links to the playground, the REST docs and the OpenAPI document, and each link answers", async () => {
    const page = await (await fetch(`${base}/`)).text();
    const list = /<ul id="links">[\s\S]*?<\/ul>/.exec(page)?.[0] ?? "";
    const hrefs = [...list.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!);
    for (const required of ["/graphql", "/docs", "/openapi.json"])
      assert.ok(hrefs.includes(required), `links to ${required}`);
    assert.deepEqual(
      hrefs,
      HOME_LINKS.map((entry) => entry.href),
    );
    for (const href of hrefs) {
      // As a browser follows a link: asking for a page.
      const followed = await fetch(new URL(href, base), {
        headers: { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
      });
      assert.equal(followed.status, 200, `${href} answers`);
    }
    const playground = await (
      await fetch(`${base}/graphql`, { headers: { Accept: "text/html" } })
    ).text();
    assert.match(playground, /graphiql/i, "the playground link opens GraphiQL");
    const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string };
    assert.equal(openapi.openapi, "3.1.0");
  });

  it("shows run-time knowledge as text, never as markup", () => {
    // A record curated at run time with markup in it: the page escapes it rather than rendering it.
    const summary = summarise(runtime.kb.current());
    const claim = {
      ...summary.coverage[0]!,
      source: "<script>alert(1)</script>",
      sourceUrl: "javascript:alert(1)",
    };
    const page = homePage({ ...summary, coverage: [claim] });
    assert.ok(!page.includes("<script>alert(1)</script>"));
    assert.ok(page.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert.ok(!page.includes('href="javascript:'), "only http(s) sources become links");
  });
});
