/**
 * `GET /fleet` on a real PostgreSQL with a clock the test holds: an empty
 * fleet says how to register a cluster; a registered fleet is shown grouped
 * by environment in rollout order, each cluster with the dates, days,
 * verdict, waived findings, blocking findings and recent events that
 * GET /api/v1/clusters and /api/v1/events give (compared with that JSON, not
 * with numbers written here), names and labels escaped, under the same
 * Content-Security-Policy as the other pages; filters narrow the list as the
 * REST list's do, an unknown parameter is refused on a page with its status;
 * with REQUIRE_AUTH_FOR_READS the page asks for a token as the other pages do.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import request from "supertest";
import { createApp } from "../src/app.js";
import { createLogger } from "../src/core/logger.js";
import { AXIS_CAP_DAYS, fleetTimelineSvg, type TimelineRow } from "../src/rest/fleet-timeline.js";
import { Authenticator } from "../src/services/authenticator.js";
import { type TestDatabase } from "./support/database.js";
import {
  createFleetDatabase,
  startFleetInstance,
  type FleetInstance,
} from "./support/fleet-instance.js";
import {
  HOSTILE_LABEL,
  HOSTILE_OWNER,
  PAGE_FLEET,
  attribute,
  cellOf,
  listed,
  registerFleet,
  rowOf,
  textOf,
  upgradeDue,
} from "./support/fleet-page.js";

const DAY = "2026-12-06";

async function fleetPage(instance: FleetInstance, query = ""): Promise<string> {
  const answer = await request(instance.app)
    .get(`/fleet${query}`)
    .set("Accept", "text/html")
    .expect(200);
  assert.match(answer.headers["content-type"]!, /^text\/html; charset=utf-8/);
  return answer.text;
}

const rowNames = (html: string): string[] =>
  [...html.matchAll(/<tr id="cluster-([^"]+)"/g)].map((match) => match[1]!);

describe("GET /fleet (the fleet page)", () => {
  let database: TestDatabase;
  let instance: FleetInstance;
  let editor: string;
  let reader: string;

  before(async () => {
    ({
      database,
      tokens: { "fleet-page-editor": editor, "fleet-page-reader": reader },
    } = await createFleetDatabase({
      "fleet-page-editor": "editor",
      "fleet-page-reader": "reader",
    }));
    instance = await startFleetInstance(database.url, { clock: () => DAY });
  });
  after(async () => {
    await instance?.close();
    await database?.drop();
  });

  it("says, for an empty fleet, how to register a cluster, under the other pages' policy", async () => {
    const answer = await request(instance.app).get("/fleet").set("Accept", "text/html").expect(200);
    assert.match(answer.text, /<section id="empty-fleet">/);
    assert.match(answer.text, /curl -X POST "\$KUBECOMPAT_URL\/api\/v1\/clusters"/);
    assert.match(answer.text, /Authorization: Bearer \$KUBECOMPAT_TOKEN/);
    assert.match(answer.text, /<code>kubecompat register<\/code>/);
    assert.doesNotMatch(answer.text, /<svg id="fleet-timeline"/);
    const policy = answer.headers["content-security-policy"]!;
    const home = await request(instance.app).get("/").expect(200);
    const queue = await request(instance.app).get("/proposals").expect(200);
    assert.equal(policy, home.headers["content-security-policy"]);
    assert.equal(policy, queue.headers["content-security-policy"]);
    assert.match(policy, /(^|; )default-src 'none'(;|$)/);
    assert.doesNotMatch(policy, /script-src|unsafe-eval|\*/);
    assert.equal(answer.headers["x-content-type-options"], "nosniff");
  });

  it("shows every cluster in its environment's section, in rollout order, as GET /api/v1/clusters lists them", async () => {
    await registerFleet(instance.app, editor);
    // A waiver holds pay-prod's extended-support warning out of its verdict.
    await request(instance.app)
      .post("/api/v1/waivers")
      .set({ Authorization: `Bearer ${editor}` })
      .send({
        code: "PLATFORM_EXTENDED_SUPPORT",
        cluster: "pay-prod",
        reason: "moving to 1.33 <soon> & safely",
        owner: "pay-lead",
        expiresOn: "2026-12-31",
      })
      .expect(201);
    const clusters = await listed(instance.app);
    assert.equal(clusters.length, PAGE_FLEET.length);
    const html = await fleetPage(instance);

    const sections = [...html.matchAll(/<section class="environment" id="environment-([^"]+)"/g)];
    const environments = ["dev", "staging", "prod"];
    assert.deepEqual(
      sections.map((match) => match[1]),
      environments.filter((name) => clusters.some((cluster) => cluster.environment === name)),
    );
    // Each section holds exactly its environment's clusters, in the list's order.
    const bodies = html.split(/<section class="environment"/).slice(1);
    bodies.forEach((body, index) => {
      const environment = sections[index]![1]!;
      assert.deepEqual(
        rowNames(body),
        clusters
          .filter((cluster) => cluster.environment === environment)
          .map((cluster) => cluster.name),
        environment,
      );
    });
    assert.deepEqual(
      rowNames(html),
      clusters.map((cluster) => cluster.name),
    );

    // The header: how old the judgements are, and the count per verdict, as the JSON says.
    const revisions = [...new Set(clusters.map((cluster) => cluster.judgement.kbRevision))];
    assert.equal(revisions.length, 1);
    assert.match(html, new RegExp(`<strong id="judged-revision">${revisions[0]}</strong>`));
    assert.match(html, new RegExp(`<strong id="judged-day">${DAY}</strong>`));
    const counts = Object.fromEntries(
      [...html.matchAll(/<li data-status="([A-Z_]+)"[^>]*>[^<]*<strong>(\d+)<\/strong>/g)].map(
        (match) => [match[1], Number(match[2])],
      ),
    );
    const expected: Record<string, number> = {};
    for (const cluster of clusters)
      expected[cluster.judgement.status] = (expected[cluster.judgement.status] ?? 0) + 1;
    assert.deepEqual(counts, expected);
    assert.ok(Object.keys(expected).length >= 2, "the fleet has more than one verdict");
  });

  it("shows each cluster's dates and days, verdict, waived and blocking findings as the JSON says", async () => {
    const clusters = await listed(instance.app);
    const html = await fleetPage(instance);
    let past = 0;
    let blocked = 0;
    for (const cluster of clusters) {
      const row = rowOf(html, cluster.name);
      const { judgement } = cluster;
      assert.equal(
        textOf(cellOf(row, "version").html),
        `${judgement.controlPlane} on ${judgement.platform ?? "upstream"}`,
      );
      const support = cellOf(row, "support");
      assert.equal(attribute(support.attributes, "data-deadline"), judgement.deadline);
      assert.equal(attribute(support.attributes, "data-days-left"), String(cluster.daysLeft));
      const supportText = textOf(support.html);
      assert.ok(supportText.startsWith(judgement.deadline!), supportText);
      const left = cluster.daysLeft!;
      if (left < 0) {
        past += 1;
        assert.match(
          supportText,
          new RegExp(`past: ${-left} days? ago`),
          `${cluster.name}: ${supportText}`,
        );
      } else assert.match(supportText, new RegExp(`in ${left} days?$`), cluster.name);

      const start = cellOf(row, "start");
      if (upgradeDue(cluster)) {
        assert.equal(
          attribute(start.attributes, "data-latest-start"),
          judgement.startBy!.latestStart,
        );
        assert.equal(
          attribute(start.attributes, "data-days-to-start"),
          String(cluster.daysToStart),
        );
        const startText = textOf(start.html);
        assert.ok(startText.startsWith(judgement.startBy!.latestStart), startText);
        assert.equal(
          /overdue by \d+ days?/.test(startText),
          cluster.daysToStart! < 0,
          `${cluster.name}: ${startText}`,
        );
        assert.match(startText, new RegExp(`${judgement.upgrade!.hops} hops? to `));
      } else assert.equal(attribute(start.attributes, "data-latest-start"), undefined);

      const verdict = textOf(cellOf(row, "verdict").html);
      assert.ok(verdict.startsWith(judgement.status), verdict);
      assert.equal(
        verdict.includes(`judged ${judgement.judgedStatus}`),
        judgement.judgedStatus !== judgement.status,
        `${cluster.name}: ${verdict}`,
      );
      for (const entry of judgement.waived) assert.ok(verdict.includes(entry.finding.code));

      const blocking = cellOf(row, "blocking").html;
      if (judgement.blocking.length > 0) blocked += 1;
      else assert.equal(textOf(blocking), "none");
      for (const finding of judgement.blocking) {
        assert.ok(textOf(blocking).includes(`${finding.code} ${finding.message}`), finding.code);
        if (finding.sourceUrl !== null && /^https?:/.test(finding.sourceUrl))
          assert.ok(blocking.includes(`href="${finding.sourceUrl.replace(/&/g, "&amp;")}"`));
      }
      const links = cellOf(row, "links").html;
      assert.ok(links.includes(`href="/api/v1/clusters/${encodeURIComponent(cluster.name)}"`));
      assert.ok(
        links.includes(
          `href="/api/v1/calendar.ics?owner=${encodeURIComponent(cluster.owner).replace(/&/g, "&amp;")}"`,
        ),
      );
    }
    // Pinned by the JSON: the fleet chosen has a past deadline, a blocked cluster and a waiver.
    assert.ok(past > 0 && blocked > 0);
    const payProd = clusters.find((cluster) => cluster.name === "pay-prod")!;
    assert.notEqual(payProd.judgement.judgedStatus, payProd.judgement.status);
    assert.match(
      rowOf(html, "pay-prod"),
      /moving to 1\.33 &lt;soon&gt; &amp; safely/,
      "a waiver's reason is escaped",
    );
  });

  it("counts each cluster's events of the last 30 days and shows the newest, as GET /api/v1/events", async () => {
    const html = await fleetPage(instance);
    const events = (await request(instance.app).get("/api/v1/events?limit=500").expect(200)).body
      .items as Array<{ cluster: string; summary: string; asOf: string }>;
    // The waiver changed pay-prod's verdict: at least that event.
    assert.ok(events.some((event) => event.cluster === "pay-prod"));
    for (const cluster of await listed(instance.app)) {
      const mine = events.filter(
        (event) => event.cluster === cluster.name && event.asOf >= "2026-11-06",
      );
      const cell = cellOf(rowOf(html, cluster.name), "events");
      assert.equal(attribute(cell.attributes, "data-recent"), String(mine.length), cluster.name);
      if (mine.length > 0) assert.ok(textOf(cell.html).endsWith(mine[0]!.summary), cluster.name);
    }
  });

  it("escapes names, owners and labels: a label holding a script is text", async () => {
    const html = await fleetPage(instance);
    assert.ok(!html.includes(HOSTILE_LABEL));
    assert.doesNotMatch(html, /<script/i);
    const row = rowOf(html, "ml-staging");
    assert.ok(
      row.includes("note=&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more"),
      row,
    );
    const ml = (await listed(instance.app)).find((cluster) => cluster.name === "ml-staging")!;
    assert.equal(ml.labels.note, HOSTILE_LABEL);
    assert.equal(
      textOf(cellOf(row, "labels").html),
      Object.entries(ml.labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(" "),
    );
    const data = rowOf(html, "data-prod");
    assert.ok(data.includes('<td class="owner">R&amp;D &lt;data&gt;</td>'));
    assert.ok(!html.includes(HOSTILE_OWNER));
  });

  it("narrows the list by environment, owner and label as GET /api/v1/clusters does; blank form fields mean any", async () => {
    for (const query of [
      "?environment=prod",
      "?owner=team-pay",
      "?label=team=web",
      `?owner=${encodeURIComponent(HOSTILE_OWNER)}`,
      "?environment=staging&label=team=ml",
    ]) {
      const expected = (await listed(instance.app, query)).map((cluster) => cluster.name);
      assert.ok(expected.length > 0 && expected.length < PAGE_FLEET.length, query);
      const html = await fleetPage(instance, query);
      assert.deepEqual(rowNames(html), expected, query);
      assert.equal(
        [...html.matchAll(/<g class="timeline-row"/g)].length,
        expected.length,
        `${query}: the timeline is filtered too`,
      );
      assert.match(html, /id="clear-filters"/);
    }
    const blank = await fleetPage(instance, "?environment=&owner=team-pay&label=");
    assert.deepEqual(rowNames(blank), ["pay-dev", "pay-prod"]);
    assert.match(blank, /<option value="" selected>any<\/option>/);
    const none = await fleetPage(instance, "?owner=nobody");
    assert.deepEqual(rowNames(none), []);
    assert.match(none, /<p id="no-match">/);
  });

  it("refuses an unknown query parameter and a malformed filter on a page, with the status REST gives", async () => {
    for (const [query, pattern] of [
      [
        "?colour=red",
        /unknown query parameter &quot;colour&quot;; this route takes only environment, owner, label/,
      ],
      ["?label=no-equals-sign", /label &quot;no-equals-sign&quot; is not key=value/],
      ["?owner=a&owner=b", /given more than once/],
    ] as const) {
      const rest = await request(instance.app).get(`/api/v1/clusters${query}`);
      const answer = await request(instance.app).get(`/fleet${query}`).set("Accept", "text/html");
      assert.equal(answer.status, 400, query);
      assert.equal(answer.status, rest.status, query);
      assert.match(answer.headers["content-type"]!, /^text\/html/);
      assert.match(answer.text, /<h1>Not shown \(BAD_USER_INPUT\)<\/h1>/);
      assert.match(answer.text, pattern, query);
      assert.equal(
        answer.headers["content-security-policy"],
        (await request(instance.app).get("/proposals")).headers["content-security-policy"],
      );
    }
  });

  it("draws one timeline row per cluster, marked overdue and past as the JSON says", async () => {
    const clusters = await listed(instance.app);
    const html = await fleetPage(instance);
    const svg = /<svg id="fleet-timeline"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? "";
    assert.match(
      svg,
      /role="img" aria-label="Fleet timeline of 6 clusters from today \(2026-12-06\)/,
    );
    const rows = [
      ...svg.matchAll(
        /<g class="timeline-row" data-cluster="([^"]+)" data-overdue="(true|false)" data-past="(true|false)">/g,
      ),
    ];
    assert.deepEqual(
      rows.map((match) => match[1]),
      clusters.map((cluster) => cluster.name),
    );
    for (const [, name, overdue, past] of rows) {
      const cluster = clusters.find((entry) => entry.name === name)!;
      assert.equal(past, String(cluster.daysLeft! < 0), name);
      assert.equal(overdue, String(upgradeDue(cluster) && cluster.daysToStart! < 0), name);
    }
  });

  it("is there only with a fleet, and asks for a token as the other pages do when reads need one", async () => {
    const logger = createLogger("silent");
    const without = await createApp({
      kb: instance.kb,
      logger,
      isDatabaseReachable: () => Promise.resolve(true),
    });
    await request(without).get("/fleet").expect(404);
    const guarded = await createApp({
      kb: instance.kb,
      logger,
      isDatabaseReachable: () => Promise.resolve(true),
      authenticator: new Authenticator(instance.db, logger),
      requireAuthForReads: true,
      fleet: instance.fleet.fleet,
    });
    for (const path of ["/fleet", "/proposals"]) {
      const anonymous = await request(guarded).get(path).set("Accept", "text/html");
      assert.equal(anonymous.status, 401, path);
      assert.match(anonymous.headers["www-authenticate"]!, /^Basic realm="kubecompat"/, path);
    }
    // A browser answers the Basic challenge with the token as the password.
    const basic = `Basic ${Buffer.from(`reader:${reader}`).toString("base64")}`;
    const page = await request(guarded).get("/fleet").set("Authorization", basic).expect(200);
    assert.deepEqual(
      rowNames(page.text),
      (await listed(instance.app)).map((cluster) => cluster.name),
    );
    await request(guarded).get("/fleet").set("Authorization", `Bearer ${reader}`).expect(200);
  });
});

describe("the fleet timeline (drawn from given dates)", () => {
  const DAY_MS = 86_400_000;
  const plus = (day: string, days: number) =>
    new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
  const row = fc
    .record({
      left: fc.option(fc.integer({ min: -800, max: 1200 }), { nil: null }),
      lead: fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }),
    })
    .map(({ left, lead }): TimelineRow => {
      const deadline = left === null ? null : plus(DAY, left);
      const start = left === null || lead === null ? null : plus(DAY, left - lead);
      return {
        name: "named below",
        environment: "prod",
        status: "SUPPORTED",
        deadline,
        daysLeft: left,
        latestStart: start,
        daysToStart: left === null || lead === null ? null : left - lead,
        explanation: null,
      };
    });

  it("marks a row past exactly when its deadline is before today, overdue exactly when its start is, and draws inside its box", () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 12 }), (generated) => {
        const rows = generated.map((entry, index) => ({ ...entry, name: `c${index}` }));
        const svg = fleetTimelineSvg(rows, DAY);
        const width = Number(/viewBox="0 0 (\d+) /.exec(svg)![1]);
        const drawn = [
          ...svg.matchAll(
            /<g class="timeline-row" data-cluster="(c\d+)" data-overdue="(\w+)" data-past="(\w+)">/g,
          ),
        ];
        assert.equal(drawn.length, rows.length);
        for (const [, name, overdue, past] of drawn) {
          const given = rows.find((entry) => entry.name === name)!;
          assert.equal(past, String(given.deadline !== null && given.deadline < DAY));
          assert.equal(overdue, String(given.latestStart !== null && given.latestStart < DAY));
        }
        for (const [, x] of svg.matchAll(/\bx="(-?[\d.]+)"/g))
          assert.ok(Number(x) >= 0 && Number(x) <= width, `x=${x}`);
        for (const [, w] of svg.matchAll(/\bwidth="(-?[\d.]+)"/g)) assert.ok(Number(w) > 0);
        const beyond = rows.filter(
          (entry) => entry.daysLeft !== null && entry.daysLeft > AXIS_CAP_DAYS,
        ).length;
        assert.match(
          svg,
          new RegExp(`, ${beyond} with the deadline after \\d{4}-\\d{2}-\\d{2}\\.`),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("puts the last day of standard support on today, not past; a start today is not overdue", () => {
    const svg = fleetTimelineSvg(
      [
        {
          name: "edge",
          environment: "prod",
          status: "SUPPORTED",
          deadline: DAY,
          daysLeft: 0,
          latestStart: DAY,
          daysToStart: 0,
          explanation: null,
        },
        {
          name: "late",
          environment: "prod",
          status: "SUPPORTED",
          deadline: plus(DAY, 1),
          daysLeft: 1,
          latestStart: plus(DAY, -1),
          daysToStart: -1,
          explanation: null,
        },
      ],
      DAY,
    );
    assert.match(svg, /data-cluster="edge" data-overdue="false" data-past="false"/);
    assert.match(svg, /data-cluster="late" data-overdue="true" data-past="false"/);
    assert.match(svg, /overdue by 1 day\)/);
  });
});
