/**
 * The fleet end to end on a real PostgreSQL, real HTTP and pg-boss: ten
 * clusters registered over REST, one knowledge edit that turns three red,
 * the events it causes (exactly one per cluster) and their deliveries
 * (exactly one per matching subscription) to a local receiver that checks
 * each HMAC signature; two replicas judging the same edit deliver once; a
 * restart with deliveries pending loses none; a failing receiver gets its
 * retries, then the dead-letter list and a replay; waivers, deadlines moved
 * with the test's clock, and the calendar feed read with an iCalendar
 * parser. No Kubernetes cluster runs here: states are given as components,
 * as validate takes them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import ICAL from "ical.js";
import request from "supertest";
import { query, type TestDatabase } from "./support/database.js";
import { eventually, sleep } from "./support/eventually.js";
import {
  createFleetDatabase,
  editEksRow,
  startFleetInstance,
  startReceiver,
  type FleetInstance,
  type Receiver,
} from "./support/fleet-instance.js";

const SECRET = "a-test-secret-of-enough-length";
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** name, environment, owner, team label, platform, kube-apiserver and kubelet version. */
const FLEET: ReadonlyArray<readonly [string, string, string, string, string, string]> = [
  ["pay-dev", "dev", "team-pay", "payments", "eks", "v1.32.9-eks-113cf36"],
  ["pay-staging", "staging", "team-pay", "payments", "eks", "v1.32.9-eks-113cf36"],
  ["pay-prod", "prod", "team-pay", "payments", "eks", "v1.32.9-eks-113cf36"],
  ["web-dev", "dev", "team-web", "web", "eks", "v1.35.1-eks-3025e55"],
  ["web-staging", "staging", "team-web", "web", "eks", "v1.35.1-eks-3025e55"],
  ["web-prod", "prod", "team-web", "web", "eks", "v1.34.2-eks-b1b1f8b"],
  ["data-dev", "dev", "team-data", "data", "upstream", "1.34.2"],
  ["data-prod", "prod", "team-data", "data", "upstream", "1.33.5"],
  ["ml-staging", "staging", "team-ml", "ml", "gke", "1.33.5-gke.1080000"],
  ["ml-prod", "prod", "team-ml", "ml", "aks", "1.32.7"],
];

function registration(row: (typeof FLEET)[number]) {
  const [name, environment, owner, team, platform, version] = row;
  return {
    name,
    environment,
    owner,
    labels: { team },
    platform,
    components: [
      { component: "kube-apiserver", version },
      { component: "kubelet", version, instance: "pool-a" },
    ],
  };
}

interface EventRow {
  id: number;
  cluster: string;
  kind: string;
  severity: string;
  summary: string;
  detail: Record<string, unknown>;
}

describe("the fleet", () => {
  let database: TestDatabase;
  let first: FleetInstance;
  let editor: string;
  let receiver: Receiver;
  let flaky: Receiver;
  let day = "2026-12-06";
  const clock = () => day;

  async function events(instance: FleetInstance = first): Promise<EventRow[]> {
    const answer = await request(instance.app).get("/api/v1/events?limit=500").expect(200);
    return answer.body.items as EventRow[];
  }

  async function deliveryCount(): Promise<number> {
    const rows = await query<{ count: string }>(
      database.url,
      `SELECT count(*) FROM "FleetDelivery"`,
    );
    return Number(rows[0]!.count);
  }

  async function allSettled(status = "DELIVERED"): Promise<void> {
    await eventually(
      `every delivery ${status}`,
      async () => {
        const rows = await query<{ count: string }>(
          database.url,
          `SELECT count(*) FROM "FleetDelivery" WHERE "status" <> $1`,
          [status],
        );
        return rows[0]!.count === "0" ? true : undefined;
      },
      { withinMs: 20_000 },
    );
  }

  before(async () => {
    ({
      database,
      tokens: { "platform-team": editor },
    } = await createFleetDatabase({ "platform-team": "editor" }));
    receiver = await startReceiver(SECRET);
    flaky = await startReceiver(SECRET);
    first = await startFleetInstance(database.url, { clock });
  });
  after(async () => {
    await first?.close();
    await receiver?.close();
    await flaky?.close();
    await database?.drop();
  });

  it("refuses a registration it cannot judge, with what to fix, and stores nothing", async () => {
    const typo = await request(first.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send({
        ...registration(FLEET[0]!),
        components: [{ component: "kube-apiserver", version: "1.3" }],
      })
      .expect(400);
    assert.equal(typo.body.error.code, "BAD_USER_INPUT");
    assert.match(typo.body.error.message, /did you mean "1\.30"/);
    const environment = await request(first.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send({ ...registration(FLEET[0]!), environment: "qa" })
      .expect(400);
    assert.match(environment.body.error.message, /dev, staging, prod/);
    const twoStates = await request(first.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send({ ...registration(FLEET[0]!), nodes: { items: [] } })
      .expect(400);
    assert.match(twoStates.body.error.message, /one state/);
    await request(first.app).post("/api/v1/clusters").send(registration(FLEET[0]!)).expect(401);
    await request(first.app).get("/api/v1/clusters/pay-dev").expect(404);
    assert.deepEqual((await request(first.app).get("/api/v1/clusters").expect(200)).body.items, []);
  });

  it("registers ten clusters; each is listed with its verdict, support end, days left and start date", async () => {
    for (const row of FLEET) {
      const answer = await request(first.app)
        .post("/api/v1/clusters")
        .set(bearer(editor))
        .send(registration(row))
        .expect(201);
      assert.equal(answer.body.item.name, row[0]);
    }
    // A new state of a registered cluster is a snapshot of it, not a second cluster.
    await request(first.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send(registration(FLEET[0]!))
      .expect(200);
    const list = await request(first.app).get("/api/v1/clusters").expect(200);
    const names = list.body.items.map((item: { name: string }) => item.name);
    // Grouped by environment in rollout order, then by name.
    assert.deepEqual(names, [
      "data-dev",
      "pay-dev",
      "web-dev",
      "ml-staging",
      "pay-staging",
      "web-staging",
      "data-prod",
      "ml-prod",
      "pay-prod",
      "web-prod",
    ]);
    const payProd = list.body.items.find((item: { name: string }) => item.name === "pay-prod");
    // EKS 1.32 left standard support on 2026-03-23 (its calendar's first day out): extended support.
    assert.equal(payProd.judgement.status, "SUPPORTED_WITH_WARNINGS");
    assert.equal(payProd.judgement.platform, "eks");
    assert.equal(payProd.judgement.support.calendar, "eks");
    assert.equal(payProd.judgement.deadline, "2026-03-22");
    assert.equal(payProd.daysLeft, -259);
    assert.equal(payProd.judgement.warnedAt, -1);
    const webDev = list.body.items.find((item: { name: string }) => item.name === "web-dev");
    assert.equal(webDev.judgement.deadline, "2027-03-26");
    assert.equal(webDev.daysLeft, 110);
    assert.ok(webDev.judgement.upgrade.targetVersion >= "1.35");
    const dataProd = list.body.items.find((item: { name: string }) => item.name === "data-prod");
    assert.equal(dataProd.judgement.support.calendar, "upstream");
    // Registration is the baseline: no events yet.
    assert.deepEqual(await events(), []);
    const detail = await request(first.app).get("/api/v1/clusters/pay-prod").expect(200);
    assert.equal(detail.body.item.history.length, 1);
    assert.ok(detail.body.item.plan.steps.length > 0, "the plan to the newest minor");
    const labelled = await request(first.app)
      .get("/api/v1/clusters?label=team=payments")
      .expect(200);
    assert.equal(labelled.body.items.length, 3);
  });

  it("one knowledge edit that turns three clusters red makes three events and one delivery per matching subscription, signed", async () => {
    const subscribe = (body: object) =>
      request(first.app).post("/api/v1/subscriptions").set(bearer(editor)).send(body).expect(201);
    await subscribe({
      kind: "webhook",
      url: `${receiver.url}/prod`,
      secret: SECRET,
      filters: { environments: ["prod"] },
    });
    await subscribe({
      kind: "webhook",
      url: `${receiver.url}/payments`,
      secret: SECRET,
      filters: { labels: { team: "payments" }, minSeverity: "ERROR" },
    });
    await subscribe({
      kind: "slack",
      url: `${receiver.url}/slack`,
      filters: { environments: ["dev"] },
    });
    await subscribe({
      kind: "webhook",
      url: `${receiver.url}/web`,
      secret: SECRET,
      filters: { owners: ["team-web"] },
    });
    const generated = await subscribe({
      kind: "webhook",
      url: `${flaky.url}/x`,
      filters: { owners: ["nobody"] },
    });
    assert.match(generated.body.item.secret, /^[A-Za-z0-9_-]{32}$/);
    const listed = await request(first.app)
      .get("/api/v1/subscriptions")
      .set(bearer(editor))
      .expect(200);
    assert.ok(listed.body.items.every((item: object) => !("secret" in item)));

    // EKS moves the end of extended support of 1.32 to a day already past.
    const revision = await editEksRow(first.app, editor, "1.32", {
      endOfExtendedSupport: "2026-12-05",
    });
    const raised = await eventually(
      "three events",
      async () => {
        const seen = await events();
        return seen.length >= 3 ? seen : undefined;
      },
      { withinMs: 10_000 },
    );
    await sleep(500);
    const all = await events();
    assert.equal(all.length, 3, JSON.stringify(all.map((event) => event.summary)));
    assert.deepEqual(all.map((event) => event.cluster).sort(), [
      "pay-dev",
      "pay-prod",
      "pay-staging",
    ]);
    for (const event of raised) {
      assert.equal(event.kind, "VERDICT_CHANGED");
      assert.equal(event.severity, "ERROR");
      const detail = event.detail as {
        from: string;
        to: string;
        added: Array<{ code: string; sourceUrl: string; ruleId: string }>;
        cause: {
          kind: string;
          kbRevision: { to: number };
          knowledgeChanges: Array<{ entity: string; key: string }>;
        };
      };
      assert.equal(detail.from, "SUPPORTED_WITH_WARNINGS");
      assert.equal(detail.to, "UNSUPPORTED");
      assert.deepEqual(
        detail.added.map((entry) => entry.code),
        ["PLATFORM_END_OF_SUPPORT"],
      );
      assert.match(detail.added[0]!.sourceUrl, /docs\.aws\.amazon\.com/);
      assert.equal(detail.added[0]!.ruleId, "eks 1.32");
      assert.equal(detail.cause.kind, "knowledge");
      assert.equal(detail.cause.kbRevision.to, revision);
      assert.ok(
        detail.cause.knowledgeChanges.some(
          (change) => change.entity === "platforms" && change.key === "eks",
        ),
      );
    }
    await allSettled();
    // prod: pay-prod; payments (ERROR): the three; dev (Slack): pay-dev; team-web: none.
    const paths = receiver.received.map((entry) => entry.path).sort();
    assert.deepEqual(paths, ["/payments", "/payments", "/payments", "/prod", "/slack"]);
    for (const entry of receiver.received) {
      if (entry.path === "/slack") {
        assert.equal(entry.signed, false);
        assert.match(entry.body.text!, /pay-dev: SUPPORTED_WITH_WARNINGS → UNSUPPORTED/);
      } else assert.ok(entry.validSignature, `signature of ${entry.path}`);
    }
    assert.equal(new Set(receiver.received.map((entry) => entry.delivery)).size, 5);
    const list = await request(first.app).get("/api/v1/clusters?environment=prod").expect(200);
    const payProd = list.body.items.find((item: { name: string }) => item.name === "pay-prod");
    assert.equal(payProd.judgement.status, "UNSUPPORTED");
    assert.deepEqual(
      payProd.judgement.blocking.map((entry: { code: string }) => entry.code),
      ["PLATFORM_END_OF_SUPPORT"],
    );
    const history = await request(first.app).get("/api/v1/clusters/pay-prod").expect(200);
    assert.deepEqual(
      history.body.item.history.map((entry: { status: string }) => entry.status),
      ["UNSUPPORTED", "SUPPORTED_WITH_WARNINGS"],
    );
  });

  it("two replicas judging the same edit write its events and deliver them once", async () => {
    const second = await startFleetInstance(database.url, { clock });
    try {
      const before = receiver.received.length;
      const eventsBefore = (await events()).length;
      // 1.35's standard support ends in 14 days: web-dev and web-staging cross the 30-day warning.
      await editEksRow(first.app, editor, "1.35", { endOfStandardSupport: "2026-12-21" });
      await eventually(
        "both replicas at the edit's revision and the events written",
        async () => ((await events(second)).length >= eventsBefore + 2 ? true : undefined),
        { withinMs: 10_000 },
      );
      await second.fleet.fleet.settled();
      await first.fleet.fleet.settled();
      await sleep(500);
      const added = (await events()).slice(0, (await events()).length - eventsBefore);
      assert.deepEqual(added.map((event) => `${event.cluster} ${event.kind}`).sort(), [
        "web-dev DEADLINE_NEAR",
        "web-staging DEADLINE_NEAR",
      ]);
      const near = added.find((event) => event.cluster === "web-dev")!;
      assert.equal((near.detail as { threshold: number }).threshold, 30);
      assert.equal((near.detail as { daysLeft: number }).daysLeft, 14);
      await allSettled();
      await sleep(1_000);
      // team-web's webhook: both; dev's Slack: web-dev (WARNING passes its filter); nothing twice.
      const fresh = receiver.received
        .slice(before)
        .map((entry) => entry.path)
        .sort();
      assert.deepEqual(fresh, ["/slack", "/web", "/web"]);
    } finally {
      await second.close();
    }
  });

  it("deliveries pending across a restart are delivered by the next instance, none lost", async () => {
    await first.close();
    // An instance that does not deliver: events and their deliveries wait in the outbox.
    const quiet = await startFleetInstance(database.url, { clock, config: { deliver: false } });
    const before = receiver.received.length;
    const deliveries = await deliveryCount();
    await request(quiet.app)
      .get("/api/v1/platforms")
      .expect(200)
      .then(async (list) => {
        const eks = list.body.items.find((item: { name: string }) => item.name === "eks");
        const releases = eks.releases.map((row: { minor: string }) =>
          row.minor === "1.34" ? { ...row, endOfExtendedSupport: "2026-12-01" } : row,
        );
        await request(quiet.app)
          .put("/api/v1/platforms/eks")
          .set(bearer(editor))
          .send({ ...eks, releases })
          .expect(200);
      });
    await eventually(
      "web-prod's event and its delivery in the outbox",
      async () => ((await deliveryCount()) > deliveries ? true : undefined),
      { withinMs: 10_000 },
    );
    await quiet.fleet.fleet.settled();
    const pending = await query<{ count: string }>(
      database.url,
      `SELECT count(*) FROM "FleetDelivery" WHERE "status" = 'PENDING'`,
    );
    // web-prod's event goes to the prod webhook and to team-web's.
    assert.equal(pending[0]!.count, "2");
    await sleep(1_500);
    assert.equal(receiver.received.length, before, "nothing delivered while no worker runs");
    await quiet.close();
    first = await startFleetInstance(database.url, { clock });
    await allSettled();
    const fresh = receiver.received.slice(before);
    assert.deepEqual(fresh.map((entry) => entry.path).sort(), ["/prod", "/web"]);
    for (const entry of fresh) {
      assert.equal(entry.body.event?.cluster, "web-prod");
      assert.ok(entry.validSignature);
    }
  });

  it("a failing receiver gets its retries, then the dead-letter list, and a replay delivers", async () => {
    flaky.fail = true;
    await request(first.app)
      .post("/api/v1/subscriptions")
      .set(bearer(editor))
      .send({
        kind: "webhook",
        url: `${flaky.url}/hook`,
        secret: SECRET,
        filters: { owners: ["team-data"] },
      })
      .expect(201);
    // A new state of data-prod: upgraded to 1.34 with a kubelet left at 1.30, an unsupported skew in prod.
    await request(first.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send({
        ...registration(FLEET[7]!),
        components: [
          { component: "kube-apiserver", version: "1.34.2" },
          { component: "kubelet", version: "1.30.4", instance: "pool-a" },
        ],
      })
      .expect((answer) => assert.equal(answer.status, 200, JSON.stringify(answer.body)));
    const dead = await eventually(
      "the dead-letter list",
      async () => {
        const answer = await request(first.app)
          .get("/api/v1/deliveries?status=DEAD")
          .set(bearer(editor))
          .expect(200);
        const items = answer.body.items as Array<{
          id: number;
          attempts: number;
          lastError: string;
          event: { cluster: string };
        }>;
        return items.length > 0 ? items : undefined;
      },
      { withinMs: 20_000 },
    );
    assert.equal(dead.length, 1);
    // The first attempt and two retries.
    assert.equal(dead[0]!.attempts, 3);
    assert.equal(flaky.attempts, 3);
    assert.match(dead[0]!.lastError, /attempt 3: the receiver answered 500/);
    assert.equal(dead[0]!.event.cluster, "data-prod");
    const conflict = await request(first.app)
      .post(`/api/v1/deliveries/${receiverDelivered()}/replay`)
      .set(bearer(editor))
      .expect(409);
    assert.match(conflict.body.error.message, /DELIVERED, not DEAD/);
    flaky.fail = false;
    await request(first.app)
      .post(`/api/v1/deliveries/${dead[0]!.id}/replay`)
      .set(bearer(editor))
      .expect(202);
    await allSettled();
    assert.equal(flaky.received.length, 1);
    assert.ok(flaky.received[0]!.validSignature);
    assert.equal(flaky.received[0]!.body.event?.cluster, "data-prod");
  });

  function receiverDelivered(): string {
    return receiver.received[0]!.delivery;
  }

  it("a waiver holds a finding out of the verdict until it expires, and its expiry is an event", async () => {
    const bad = await request(first.app)
      .post("/api/v1/waivers")
      .set(bearer(editor))
      .send({
        code: "PLATFORM_END_OF_SUPORT",
        label: "team=payments",
        reason: "migrating",
        owner: "pay-lead",
        expiresOn: "2026-12-08",
      })
      .expect(400);
    assert.match(bad.body.error.message, /not a finding code/);
    const both = await request(first.app)
      .post("/api/v1/waivers")
      .set(bearer(editor))
      .send({
        code: "PLATFORM_END_OF_SUPPORT",
        label: "team=payments",
        cluster: "pay-dev",
        reason: "x y z",
        owner: "pay-lead",
        expiresOn: "2026-12-08",
      })
      .expect(400);
    assert.match(both.body.error.message, /not both/);
    await request(first.app)
      .post("/api/v1/waivers")
      .set(bearer(editor))
      .send({
        code: "PLATFORM_END_OF_SUPPORT",
        label: "team=payments",
        reason: "moving to 1.33 this week",
        owner: "pay-lead",
        expiresOn: "2026-12-08",
      })
      .expect(201);
    const list = await request(first.app).get("/api/v1/clusters?label=team=payments").expect(200);
    for (const item of list.body.items) {
      // The waived ERROR was their only finding: the verdict says so, and what was waived stays in view.
      assert.equal(item.judgement.status, "SUPPORTED", item.name);
      assert.equal(item.judgement.judgedStatus, "UNSUPPORTED");
      assert.deepEqual(
        item.judgement.waived.map((entry: { finding: { code: string } }) => entry.finding.code),
        ["PLATFORM_END_OF_SUPPORT"],
      );
    }
    const before = (await events()).length;
    day = "2026-12-09";
    await eventually(
      "the waiver's expiry",
      async () => {
        const seen = await events();
        return seen.length >= before + 6 ? seen : undefined;
      },
      { withinMs: 10_000 },
    );
    await first.fleet.fleet.settled();
    const added = (await events()).slice(0, (await events()).length - before);
    assert.deepEqual(added.map((event) => `${event.cluster} ${event.kind}`).sort(), [
      "pay-dev VERDICT_CHANGED",
      "pay-dev WAIVER_EXPIRED",
      "pay-prod VERDICT_CHANGED",
      "pay-prod WAIVER_EXPIRED",
      "pay-staging VERDICT_CHANGED",
      "pay-staging WAIVER_EXPIRED",
    ]);
  });

  it("publishes the deadlines as an iCalendar feed, per owner", async () => {
    const feed = await request(first.app).get("/api/v1/calendar.ics?owner=team-web").expect(200);
    assert.match(feed.headers["content-type"]!, /^text\/calendar/);
    const calendar = new ICAL.Component(ICAL.parse(feed.text));
    const entries = calendar.getAllSubcomponents("vevent").map((event) => ({
      uid: String(event.getFirstPropertyValue("uid")),
      start: String(event.getFirstPropertyValue("dtstart")),
      summary: String(event.getFirstPropertyValue("summary")),
    }));
    const clusters = (await request(first.app).get("/api/v1/clusters?owner=team-web").expect(200))
      .body.items as Array<{
      name: string;
      judgement: {
        deadline: string;
        startBy: { latestStart: string } | null;
        upgrade: { hops: number };
      };
    }>;
    assert.equal(clusters.length, 3);
    for (const cluster of clusters) {
      const end = entries.find((entry) => entry.uid.startsWith(`end-${cluster.name}-`));
      assert.equal(end?.start, cluster.judgement.deadline, cluster.name);
      const start = entries.find((entry) => entry.uid.startsWith(`start-${cluster.name}-`));
      if (cluster.judgement.upgrade.hops > 0)
        assert.equal(start?.start, cluster.judgement.startBy!.latestStart, cluster.name);
      else assert.equal(start, undefined);
    }
    assert.ok(entries.every((entry) => entry.summary.includes("web-")));
  });
});
