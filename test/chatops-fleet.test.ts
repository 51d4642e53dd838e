/**
 * The fleet in chat, on a real PostgreSQL and real signed Slack requests
 * (test/support/slack-request.ts), differentially against REST: clusters
 * registered over REST are said in chat (`fleet`, `fleet NAME`) with the
 * verdicts, days left, start dates and blocking codes GET /api/v1/clusters
 * gives, read back out of the reply and compared with the JSON, before and
 * after a knowledge edit turns some red; a registration in chat by a
 * reviewer is what REST's GET then shows, and its bad inputs get REST's
 * messages; a non-reviewer, a bot and dev mode are refused and nothing is
 * stored; a waiver in chat is one REST sees; the edit's events are listed.
 * A subscription made in chat is the one REST lists, its secret (in a reply
 * only the asker sees) signs what a local receiver gets, and `fleet
 * deliveries` and `fleet replay` say and do what GET /api/v1/deliveries and
 * its replay do. Without a fleet, the commands say so.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { createApp } from "../src/app.js";
import { parseCommand, type ChatCommand } from "../src/chatops/commands.js";
import type { Config } from "../src/core/config.js";
import { createLogger } from "../src/core/logger.js";
import { type TestDatabase } from "./support/database.js";
import { eventually } from "./support/eventually.js";
import {
  createFleetDatabase,
  editEksRow,
  startFleetInstance,
  startReceiver,
  type FleetInstance,
  type Receiver,
} from "./support/fleet-instance.js";
import { slackBody, slackEscape, slackSignature, unixNow } from "./support/slack-request.js";

const SECRET = "test-signing-secret-0123456789";
const BOT_TOKEN = "test-bot-token-0123456789abcdef";
const REVIEWER = "U024BE7LH";
const STRANGER = "U0STRANGER";
const CHATOPS: Config["chatops"] = {
  slackSigningSecret: SECRET,
  botToken: BOT_TOKEN,
  reviewers: [REVIEWER],
  devMode: true,
};
const DAY = "2026-12-06";
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** name, environment, owner, team label, platform, kube-apiserver and kubelet version. */
const FLEET: ReadonlyArray<readonly [string, string, string, string, string, string]> = [
  ["pay-dev", "dev", "team-pay", "payments", "eks", "v1.32.9-eks-113cf36"],
  ["pay-prod", "prod", "team-pay", "payments", "eks", "v1.32.9-eks-113cf36"],
  ["web-dev", "dev", "team-web", "web", "eks", "v1.35.1-eks-3025e55"],
  ["web-prod", "prod", "team-web", "web", "eks", "v1.34.2-eks-b1b1f8b"],
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

/** The same registration as a chat command. */
function registerWords(body: ReturnType<typeof registration>): string {
  const labels = Object.entries(body.labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
  const components = body.components
    .map(
      (entry) => `${entry.component}${entry.instance ? `@${entry.instance}` : ""}=${entry.version}`,
    )
    .join(" ");
  return `fleet register ${body.name} env=${body.environment} owner=${body.owner} labels=${labels} platform=${body.platform} ${components}`;
}

interface ClusterJson {
  name: string;
  environment: string;
  owner: string;
  labels: Record<string, string>;
  daysLeft: number | null;
  daysToStart: number | null;
  snapshot: { source: string } | null;
  judgement: {
    status: string;
    judgedStatus: string;
    deadline: string | null;
    blocking: Array<{ code: string; sourceUrl: string | null }>;
    waived: Array<{ finding: { code: string }; waiver: { id: number } }>;
    startBy: { latestStart: string; explanation: string } | null;
    upgrade: { targetVersion: string; hops: number } | null;
  };
}

/** Slack's mrkdwn back to what a person reads: its escapes undone, bold and code marks kept. */
const unescape = (text: string) =>
  text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");

/** `12 days left`, `3 days past`, `last day today` → 12, -3, 0. */
const DAYS_LEFT = String.raw`(?:(\d+) days? (left|past)|(last day today))`;
function daysLeftOf(match: RegExpExecArray, at: number): number {
  if (match[at + 2] !== undefined) return 0;
  const count = Number(match[at]);
  return match[at + 1] === "left" ? count : -count;
}
/** `in 12 days`, `3 days overdue`, `today` → 12, -3, 0. */
const DAYS_TO_START = String.raw`(?:in (\d+) days?|(\d+) days? overdue|(today))`;
function daysToStartOf(match: RegExpExecArray, at: number): number {
  if (match[at + 2] !== undefined) return 0;
  return match[at] !== undefined ? Number(match[at]) : -Number(match[at + 1]);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What a list line says of a cluster, read back: status, deadline and days, start and days, blocking codes. */
function readListLine(line: string) {
  const status = /^• \*[^*]+\* \S+ ([A-Z_]+)/.exec(line)?.[1];
  const support = new RegExp(`standard support until (\\S+) \\(${DAYS_LEFT}\\)`).exec(line);
  const start = new RegExp(`start by (\\S+) \\(${DAYS_TO_START}\\)`).exec(line);
  const blocking = /· blocking ((?:`[A-Z_0-9]+`(?:, )?)+)/.exec(line)?.[1];
  return {
    status,
    deadline: support?.[1] ?? null,
    daysLeft: support === null ? null : daysLeftOf(support, 2),
    latestStart: start?.[1] ?? null,
    daysToStart: start === null ? null : daysToStartOf(start, 2),
    blocking:
      blocking === undefined ? [] : [...blocking.matchAll(/`([A-Z_0-9]+)`/g)].map((m) => m[1]!),
  };
}

describe("fleet commands as chat reads them", () => {
  const read: Array<[string, ChatCommand]> = [
    ["fleet", { kind: "fleet" }],
    [
      "fleet env=prod owner=team-pay label=team=payments",
      { kind: "fleet", environment: "prod", owner: "team-pay", label: "team=payments" },
    ],
    ["@kubecompat fleet pay-prod", { kind: "fleet-show", name: "pay-prod" }],
    ["fleet show pay-prod", { kind: "fleet-show", name: "pay-prod" }],
    ["fleet events", { kind: "fleet-events" }],
    ["fleet events pay-prod", { kind: "fleet-events", cluster: "pay-prod" }],
    [
      // Words are split at commas, so labels= is read from the line itself.
      "fleet register pay-prod env=prod owner=team-pay labels=team=payments,region=eu platform=eks apiserver=1.32.9 kubelet@pool-a 1.32.9",
      {
        kind: "fleet-register",
        name: "pay-prod",
        environment: "prod",
        owner: "team-pay",
        labels: { team: "payments", region: "eu" },
        platform: "eks",
        components: [
          { component: "apiserver", version: "1.32.9" },
          { component: "kubelet", instance: "pool-a", version: "1.32.9" },
        ],
      },
    ],
    [
      "fleet register x env=dev owner=o label=a=b\nServer Version: v1.33.5",
      {
        kind: "fleet-register",
        name: "x",
        environment: "dev",
        owner: "o",
        labels: { a: "b" },
        components: [],
        kubectl: { version: "Server Version: v1.33.5" },
      },
    ],
    [
      'fleet waive PLATFORM_END_OF_SUPPORT label=team=payments until=2027-01-31 reason="moving, soon" then done',
      {
        kind: "fleet-waive",
        code: "PLATFORM_END_OF_SUPPORT",
        label: "team=payments",
        until: "2027-01-31",
        reason: "moving, soon then done",
      },
    ],
    ["fleet unwaive #7", { kind: "fleet-unwaive", id: 7 }],
    ["fleet waivers", { kind: "fleet-waivers" }],
    [
      // The URL is one word whatever it holds (a comma, an =); env= and owner= lists are read from the line.
      "fleet subscribe https://hooks.example.com/k?team=a,b slack env=prod,staging owner=team-pay labels=team=pay,region=eu min=warning",
      {
        kind: "fleet-subscribe",
        url: "https://hooks.example.com/k?team=a,b",
        slack: true,
        environments: ["prod", "staging"],
        owners: ["team-pay"],
        labels: { team: "pay", region: "eu" },
        minSeverity: "WARNING",
      },
    ],
    [
      // As Slack sends a link it recognised.
      "fleet subscribe env=dev <https://hooks.slack.com/services/T0/B0/x|hooks.slack.com/services/T0/B0/x> slack",
      {
        kind: "fleet-subscribe",
        url: "https://hooks.slack.com/services/T0/B0/x",
        slack: true,
        environments: ["dev"],
      },
    ],
    ["fleet subscriptions", { kind: "fleet-subscriptions" }],
    ["fleet unsubscribe #3", { kind: "fleet-unsubscribe", id: 3 }],
    ["fleet deliveries", { kind: "fleet-deliveries" }],
    ["fleet deliveries dead", { kind: "fleet-deliveries", status: "dead" }],
    ["fleet replay 42", { kind: "fleet-replay", id: 42 }],
  ];
  for (const [text, command] of read)
    it(`reads ${JSON.stringify(text.slice(0, 60))}`, () => {
      assert.deepEqual(parseCommand(text), { ok: true, command });
    });

  const refused: Array<[string, string, RegExp]> = [
    ["fleet register", "fleet-register", /the cluster's name first/],
    ["fleet register x env=dev owner=o", "fleet-register", /give the cluster's state/],
    ["fleet register x labels=a=b,a=c kubelet=1.30", "fleet-register", /"a" is given twice/],
    ["fleet register x label=ab kubelet=1.30", "fleet-register", /not key=value/],
    ["fleet waive cluster=x", "fleet-waive", /the finding's code first/],
    ["fleet waive X_Y cluster=x util=2027-01-01", "fleet-waive", /I do not know the option "util=/],
    ["fleet unwaive seven", "fleet-unwaive", /not a waiver id/],
    ["fleet pay-prod extra", "fleet", /I do not know "fleet pay-prod"/],
    ["fleet labels=a=b", "fleet", /labels= is for fleet register/],
    ["fleet nowhere=1", "fleet", /I do not understand "nowhere=1"/],
    ["fleet subscribe slack env=prod", "fleet-subscribe", /give the receiver's URL/],
    ["fleet subscribe https://a.example https://b.example", "fleet-subscribe", /one URL/],
    ["fleet subscribe https://a.example min=", "fleet-subscribe", /min= needs a value/],
    ["fleet replay soon", "fleet-replay", /"soon" is not a delivery id/],
    ["fleet unsubscribe", "fleet-unsubscribe", /`fleet subscriptions` lists them/],
    ["fleet deliveries dead pending", "fleet-deliveries", /at most one status/],
  ];
  for (const [text, kind, problem] of refused)
    it(`explains what is wrong with ${JSON.stringify(text)}`, () => {
      const parsed = parseCommand(text);
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.equal(parsed.kind, kind);
      assert.match(parsed.problem, problem);
    });
});

describe("the fleet in chat", () => {
  let database: TestDatabase;
  let instance: FleetInstance;
  let editor: string;

  /** A signed slash command from `user`, as Slack sends it; the reply as a person reads it. */
  const slack = async (text: string, user = REVIEWER): Promise<string> =>
    (await slackReply(text, user)).said;

  /** The same, with who Slack shows the reply to (`ephemeral`: the asker only). */
  const slackReply = async (
    text: string,
    user = REVIEWER,
  ): Promise<{ said: string; context: string; visibility: string }> => {
    // A trigger id of its own: the same text twice in a second is not a replay.
    const body = slackBody(slackEscape(text), { user_id: user, trigger_id: randomUUID() });
    const timestamp = unixNow();
    const answer = await request(instance.app)
      .post("/chatops/slack")
      .set("X-Slack-Request-Timestamp", String(timestamp))
      .set("X-Slack-Signature", slackSignature(body, timestamp, SECRET))
      .type("form")
      .send(body)
      .expect(200);
    const { blocks, response_type } = answer.body as {
      blocks: Array<{ text?: { text: string }; elements?: Array<{ text: string }> }>;
      response_type: string;
    };
    return {
      said: unescape(blocks.map((block) => block.text?.text ?? "").join("\n")),
      context: unescape(
        blocks
          .flatMap((block) => (block.elements ?? []).map((element) => element.text))
          .join(" · "),
      ),
      visibility: response_type,
    };
  };

  const clusters = async (query = ""): Promise<ClusterJson[]> =>
    (await request(instance.app).get(`/api/v1/clusters${query}`).expect(200)).body
      .items as ClusterJson[];

  /** `fleet` and `fleet NAME` in chat say what GET /api/v1/clusters and GET /api/v1/clusters/NAME say. */
  async function chatAgreesWithRest(): Promise<void> {
    const listed = await clusters();
    const said = await slack("fleet");
    const lines = said.split("\n").filter((line) => line.startsWith("• *"));
    assert.deepEqual(
      lines.map((line) => /^• \*([^*]+)\*/.exec(line)![1]),
      listed.map((item) => item.name),
      "the same clusters, in REST's order (by environment, then name)",
    );
    // One section per environment, in rollout order.
    const titles = said.split("\n").filter((line) => /^\*[a-z]+\*$/.test(line));
    assert.deepEqual(
      titles.map((line) => line.slice(1, -1)),
      [...new Set(listed.map((item) => item.environment))],
    );
    for (const [index, item] of listed.entries()) {
      const read = readListLine(lines[index]!);
      const judgement = item.judgement;
      assert.equal(read.status, judgement.status, item.name);
      assert.equal(read.deadline, judgement.deadline, `${item.name} deadline`);
      assert.equal(read.daysLeft, item.daysLeft, `${item.name} days left`);
      const starts = judgement.startBy !== null && (judgement.upgrade?.hops ?? 0) > 0;
      assert.equal(read.latestStart, starts ? judgement.startBy!.latestStart : null, item.name);
      assert.equal(
        read.daysToStart,
        starts ? item.daysToStart : null,
        `${item.name} days to start`,
      );
      assert.deepEqual(
        read.blocking,
        judgement.blocking.map((entry) => entry.code),
        `${item.name} blocking`,
      );
    }
    for (const item of listed) {
      const detail = (await request(instance.app).get(`/api/v1/clusters/${item.name}`).expect(200))
        .body.item as ClusterJson & { events: Array<{ id: number }> };
      const shown = await slack(`fleet ${item.name}`);
      const judgement = detail.judgement;
      assert.equal(
        shown.split("\n")[0],
        `${verdictEmoji(judgement.status)} ${item.name}: ${judgement.status}`,
      );
      if (judgement.deadline !== null) {
        const support = new RegExp(`last day (\\S+) \\(${DAYS_LEFT}\\)`).exec(shown);
        assert.ok(support, `${item.name}: ${shown}`);
        assert.equal(support[1], judgement.deadline);
        assert.equal(daysLeftOf(support, 2), detail.daysLeft);
      }
      const upgrade = judgement.upgrade!;
      if (upgrade.hops > 0) {
        assert.match(
          shown,
          new RegExp(`To ${escapeRegExp(upgrade.targetVersion)}: ${upgrade.hops} hops?\\b`),
          item.name,
        );
        const start = new RegExp(`\\*Start by (\\S+)\\* \\(${DAYS_TO_START}\\): (.*)`).exec(shown);
        assert.ok(start, `${item.name} start: ${shown}`);
        assert.equal(start[1], judgement.startBy!.latestStart);
        assert.equal(daysToStartOf(start, 2), detail.daysToStart);
        assert.equal(start[5], judgement.startBy!.explanation);
      } else
        assert.match(
          shown,
          new RegExp(`On the newest minor \\(${escapeRegExp(upgrade.targetVersion)}\\)`),
        );
      const blocking = shown.split("*Blocking*\n")[1]?.split("\n*")[0] ?? "";
      assert.deepEqual(
        [...blocking.matchAll(/^• \S+ `([A-Z_0-9]+)`/gm)].map((m) => m[1]),
        judgement.blocking.map((entry) => entry.code),
        `${item.name} blocking in full`,
      );
      for (const entry of judgement.blocking)
        if (entry.sourceUrl !== null) assert.ok(blocking.includes(`<${entry.sourceUrl}|source>`));
      for (const entry of judgement.waived)
        assert.match(shown, new RegExp(`\`${entry.finding.code}\` waiver #${entry.waiver.id} `));
      for (const event of detail.events.slice(0, 5))
        assert.match(shown, new RegExp(`#${event.id} `));
    }
  }

  before(async () => {
    ({
      database,
      tokens: { "platform-team": editor },
    } = await createFleetDatabase({ "platform-team": "editor" }));
    instance = await startFleetInstance(database.url, {
      clock: () => DAY,
      chatops: CHATOPS,
      rateLimits: { writesPerMinute: 1_000, chatPerMinute: 10_000 },
    });
  });
  after(async () => {
    await instance?.close();
    await database?.drop();
  });

  it("answers that the service runs without a fleet when it has none, on every chat endpoint", async () => {
    const app = await createApp({
      kb: instance.kb,
      logger: createLogger("silent"),
      isDatabaseReachable: () => Promise.resolve(true),
      chatops: CHATOPS,
    });
    for (const text of ["fleet", "fleet pay-prod", "fleet events", "fleet unwaive 3"]) {
      const bot = await request(app)
        .post("/chatops/command")
        .set(bearer(BOT_TOKEN))
        .send({ text })
        .expect(200);
      assert.match(bot.body.text, /runs without a fleet/, text);
      const dev = await request(app).post("/chatops/dev").send({ text }).expect(200);
      assert.match(dev.body.text, /runs without a fleet/, text);
    }
  });

  it("says in `fleet` and `fleet NAME` what REST says of every cluster, before and after a knowledge edit", async () => {
    assert.match(await slack("fleet"), /No clusters registered/);
    for (const row of FLEET)
      await request(instance.app)
        .post("/api/v1/clusters")
        .set(bearer(editor))
        .send(registration(row))
        .expect(201);
    await chatAgreesWithRest();
    // EKS moves the end of extended support of 1.32 to a day already past: pay-* turn red.
    await editEksRow(instance.app, editor, "1.32", { endOfExtendedSupport: "2026-12-05" });
    await eventually(
      "pay-prod judged again",
      async () => {
        const payProd = (await clusters()).find((item) => item.name === "pay-prod")!;
        return payProd.judgement.status === "UNSUPPORTED" ? true : undefined;
      },
      { withinMs: 10_000 },
    );
    await instance.fleet.fleet.settled();
    await chatAgreesWithRest();
    // Narrowed as REST narrows.
    for (const query of ["env=prod", "owner=team-pay", "label=team=web"]) {
      const [key, ...value] = query.split("=");
      const rest = await clusters(
        `?${key === "env" ? "environment" : key}=${encodeURIComponent(value.join("="))}`,
      );
      const said = await slack(`fleet ${query}`);
      assert.deepEqual(
        [...said.matchAll(/^• \*([^*]+)\*/gm)].map((m) => m[1]),
        rest.map((item) => item.name),
        query,
      );
    }
  });

  it("lists the edit's events in `fleet events`, newest first, as GET /api/v1/events does", async () => {
    const rest = (await request(instance.app).get("/api/v1/events?limit=15").expect(200)).body
      .items as Array<{ id: number; cluster: string; kind: string; summary: string }>;
    assert.ok(rest.length > 0, "the edit made events");
    const said = await slack("fleet events");
    assert.deepEqual(
      [...said.matchAll(/^• \S+ #(\d+) \S+ \*([^*]+)\* `([A-Z_]+)` (.*)$/gm)].map((m) => [
        Number(m[1]),
        m[2],
        m[3],
        m[4],
      ]),
      rest.map((event) => [event.id, event.cluster, event.kind, event.summary]),
    );
    const mine = await slack("fleet events pay-prod");
    const ids = [...mine.matchAll(/^• \S+ #(\d+) \S+ \*([^*]+)\*/gm)];
    assert.ok(ids.length > 0);
    assert.ok(ids.every((m) => m[2] === "pay-prod"));
    assert.match(await slack("fleet events nowhere"), /no cluster named nowhere is registered/);
  });

  it("registers in chat, for a reviewer, what REST's GET then shows; the same state over REST is judged the same", async () => {
    const body = {
      ...registration(["chat-one", "staging", "team-chat", "chat", "eks", "v1.33.5-eks-1234567"]),
      labels: { team: "chat", region: "eu" },
    };
    const said = await slack(registerWords(body));
    const stored = (await request(instance.app).get("/api/v1/clusters/chat-one").expect(200)).body
      .item as ClusterJson;
    assert.equal(said.split("\n")[0], `🆕 Registered chat-one: ${stored.judgement.status}`);
    assert.equal(stored.environment, "staging");
    assert.equal(stored.owner, "team-chat");
    assert.deepEqual(stored.labels, { team: "chat", region: "eu" });
    assert.equal(stored.snapshot?.source, "components");
    await request(instance.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send({ ...body, name: "rest-one" })
      .expect(201);
    const twin = (await request(instance.app).get("/api/v1/clusters/rest-one").expect(200)).body
      .item as ClusterJson;
    assert.deepEqual(judged(stored), judged(twin));
    // Again: a new state of the same cluster, not a second one.
    assert.match(await slack(registerWords(body)), /^🔄 New state of chat-one/);
    assert.equal((await clusters("?owner=team-chat")).length, 2);

    // What kubectl printed, pasted after the first line, as `check` reads it.
    const version = "Client Version: v1.33.1\nServer Version: v1.33.5";
    const nodes = [
      "NAME     STATUS   ROLES           AGE    VERSION",
      "cp-1     Ready    control-plane   412d   v1.33.5",
      "work-1   Ready    <none>          88d    v1.32.9",
    ].join("\n");
    const pasted = await slack(
      `fleet register chat-paste env=dev owner=team-chat\n\`\`\`\n${version}\n${nodes}\n\`\`\``,
    );
    const paste = (await request(instance.app).get("/api/v1/clusters/chat-paste").expect(200)).body
      .item as ClusterJson;
    assert.equal(paste.snapshot?.source, "kubectl");
    assert.equal(pasted.split("\n")[0], `🆕 Registered chat-paste: ${paste.judgement.status}`);
    await request(instance.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send({
        name: "rest-paste",
        environment: "dev",
        owner: "team-chat",
        kubectlVersion: version,
        nodes,
      })
      .expect(201);
    const restPaste = (await request(instance.app).get("/api/v1/clusters/rest-paste").expect(200))
      .body.item as ClusterJson;
    assert.deepEqual(judged(paste), judged(restPaste));
  });

  it("answers a bad registration with REST's own message, and stores nothing", async () => {
    const good = registration(["bad-one", "dev", "team-bad", "bad", "eks", "1.33.5"]);
    const cases: Array<[string, object, string]> = [
      [
        "a version typo",
        { ...good, components: [{ component: "kube-apiserver", version: "1.3" }] },
        "fleet register bad-one env=dev owner=team-bad labels=team=bad platform=eks kube-apiserver=1.3",
      ],
      [
        "an unknown environment",
        { ...good, environment: "qa" },
        registerWords({ ...good, environment: "qa" }),
      ],
      [
        "a name that is not a DNS label",
        { ...good, name: "Bad_One" },
        registerWords({ ...good, name: "Bad_One" }),
      ],
      [
        "an unknown platform",
        { ...good, platform: "nowhere" },
        registerWords({ ...good, platform: "nowhere" }),
      ],
    ];
    for (const [what, body, words] of cases) {
      const rest = await request(instance.app)
        .post("/api/v1/clusters")
        .set(bearer(editor))
        .send(body)
        .expect(400);
      const said = await slack(words);
      assert.ok(
        said.includes(`>${rest.body.error.message as string}`),
        `${what}: REST says ${rest.body.error.message}; chat says ${said}`,
      );
      assert.match(said, /Usage: `\/kubecompat fleet register/, what);
    }
    assert.match(
      await slack("fleet register bad-one env=dev owner=team-bad kube-apiserver=1.3"),
      /did you mean "1\.30"/,
    );
    await request(instance.app).get("/api/v1/clusters/bad-one").expect(404);
    await request(instance.app).get("/api/v1/clusters/bad_one").expect(400);
  });

  it("refuses a registration from anyone but a reviewer, a bot and dev mode alike, and stores nothing", async () => {
    const words = registerWords(
      registration(["nobody-one", "dev", "team-x", "x", "eks", "1.33.5"]),
    );
    const stranger = await slack(words, STRANGER);
    assert.match(stranger, /only the Slack users named in CHATOPS_REVIEWERS may register clusters/);
    assert.match(stranger, new RegExp(`member id ${STRANGER}`));
    const bot = await request(instance.app)
      .post("/chatops/command")
      .set(bearer(BOT_TOKEN))
      .send({ text: words })
      .expect(200);
    assert.match(
      bot.body.text,
      /shared token \(CHATOPS_TOKEN\) names no person, so it cannot register clusters/,
    );
    const dev = await request(instance.app).post("/chatops/dev").send({ text: words }).expect(200);
    assert.match(
      dev.body.text,
      /dev mode \(CHATOPS_DEV\) proves nobody's identity, so it cannot register clusters/,
    );
    await request(instance.app).get("/api/v1/clusters/nobody-one").expect(404);
    // Reads are open to everyone.
    assert.match(await slack("fleet pay-prod", STRANGER), /^\S+ pay-prod: /);
    const read = await request(instance.app)
      .post("/chatops/dev")
      .send({ text: "fleet" })
      .expect(200);
    assert.match(read.body.text, /pay-prod/);
  });

  it("waives a blocking finding for a reviewer, as REST then shows, and removes the waiver", async () => {
    const before = (await clusters()).find((item) => item.name === "pay-prod")!;
    const code = before.judgement.blocking[0]?.code;
    assert.ok(code, "pay-prod has a blocking finding after the edit");
    const waive = `fleet waive ${code} cluster=pay-prod until=2027-01-31 reason="moving to 1.33 this sprint"`;
    assert.match(await slack(waive, STRANGER), /may waive findings or remove waivers/);
    const dev = await request(instance.app).post("/chatops/dev").send({ text: waive }).expect(200);
    assert.match(dev.body.text, /proves nobody's identity, so it cannot waive findings/);
    assert.deepEqual(
      (await request(instance.app).get("/api/v1/waivers").expect(200)).body.items,
      [],
    );

    const said = await slack(waive);
    const waivers = (await request(instance.app).get("/api/v1/waivers").expect(200)).body
      .items as Array<{
      id: number;
      code: string;
      clusterName: string;
      createdBy: string;
      owner: string;
      reason: string;
    }>;
    assert.equal(waivers.length, 1);
    const [waiver] = waivers;
    assert.deepEqual(
      {
        code: waiver!.code,
        cluster: waiver!.clusterName,
        by: waiver!.createdBy,
        owner: waiver!.owner,
        reason: waiver!.reason,
      },
      {
        code,
        cluster: "pay-prod",
        by: `slack:${REVIEWER}`,
        owner: `slack:${REVIEWER}`,
        reason: "moving to 1.33 this sprint",
      },
    );
    assert.match(
      said,
      new RegExp(`^🙈 Waiver #${waiver!.id}: ${code} for pay-prod until 2027-01-31`),
    );
    assert.match(said, /holds the finding out of the verdict of pay-prod/);
    const after = (await clusters()).find((item) => item.name === "pay-prod")!;
    assert.deepEqual(
      after.judgement.waived.map((entry) => [entry.finding.code, entry.waiver.id]),
      [[code, waiver!.id]],
    );
    assert.equal(after.judgement.judgedStatus, before.judgement.status);
    await chatAgreesWithRest();
    assert.match(
      await slack("fleet waivers"),
      new RegExp(`\\*#${waiver!.id}\\* \`${code}\` for pay-prod`),
    );

    // A bad day gets REST's message; nothing more is stored.
    const past = await request(instance.app)
      .post("/api/v1/waivers")
      .set(bearer(editor))
      .send({ code, cluster: "pay-prod", reason: "too late", owner: "x", expiresOn: "2026-01-01" })
      .expect(400);
    const late = await slack(
      `fleet waive ${code} cluster=pay-prod until=2026-01-01 reason="too late"`,
    );
    assert.ok(late.includes(`>${past.body.error.message as string}`), late);

    assert.match(
      await slack(`fleet unwaive ${waiver!.id}`, STRANGER),
      /may waive findings or remove waivers/,
    );
    assert.equal(
      (await request(instance.app).get("/api/v1/waivers").expect(200)).body.items.length,
      1,
    );
    assert.match(
      await slack(`fleet unwaive ${waiver!.id}`),
      new RegExp(`Waiver #${waiver!.id} removed`),
    );
    assert.deepEqual(
      (await request(instance.app).get("/api/v1/waivers").expect(200)).body.items,
      [],
    );
    const again = (await clusters()).find((item) => item.name === "pay-prod")!;
    assert.deepEqual(again.judgement.waived, []);
    assert.equal(again.judgement.status, before.judgement.status);
    assert.match(
      await slack(`fleet unwaive ${waiver!.id}`),
      new RegExp(`no waiver has id ${waiver!.id}`),
    );
  });

  it("shows at most 15 clusters of an environment, then says how many more", async () => {
    for (let index = 0; index < 17; index += 1)
      await request(instance.app)
        .post("/api/v1/clusters")
        .set(bearer(editor))
        .send(
          registration([
            `many-${String(index).padStart(2, "0")}`,
            "staging",
            "team-many",
            "many",
            "gke",
            "1.33.5-gke.1080000",
          ]),
        )
        .expect(201);
    const staging = await clusters("?environment=staging");
    assert.ok(staging.length > 15);
    const said = await slack("fleet env=staging");
    const lines = [...said.matchAll(/^• \*([^*]+)\*/gm)].map((m) => m[1]);
    assert.deepEqual(
      lines,
      staging.slice(0, 15).map((item) => item.name),
    );
    assert.match(said, new RegExp(`…and ${staging.length - 15} more`));
  });

  it("answers help with the fleet's commands, and a fleet command it cannot read with the fleet's usage", async () => {
    const help = await slack("help");
    for (const words of [
      "fleet [env=",
      "fleet pay-prod",
      "fleet events",
      "fleet register",
      "fleet waive",
      "fleet unwaive",
      "fleet subscribe https://",
      "fleet subscriptions",
      "fleet unsubscribe",
      "fleet deliveries [dead|pending|delivered]",
      "fleet replay",
    ])
      assert.ok(help.includes(`/kubecompat ${words}`), words);
    assert.match(await slack("fleet unwaive soon"), /Usage: `\/kubecompat fleet unwaive 7`/);
    assert.match(await slack("fleet pay-prod extra"), /Usage: `\/kubecompat fleet \[env=/);
  });

  describe("subscriptions and deliveries", () => {
    /** The secret each subscription made in chat told (read back out of its reply), by receiver. */
    const secrets = new Map<Receiver, string>();
    let receiver: Receiver;
    let flaky: Receiver;
    let subscription: number;

    const rest = (path: string) => request(instance.app).get(path).set(bearer(editor));
    const subscriptions = async () =>
      (await rest("/api/v1/subscriptions").expect(200)).body.items as SubscriptionJson[];

    /** A reviewer subscribes `target` in chat; the id and the secret its reply tells. */
    async function subscribeInChat(target: Receiver, options: string) {
      const reply = await slackReply(`fleet subscribe ${target.url}/hook ${options} --public`);
      const id = /^🔔 Subscription #(\d+): webhook to (\S+)$/m.exec(reply.said);
      assert.ok(id, reply.said);
      assert.equal(id[2], new URL(target.url).host, "the receiver by its host");
      const secret = /\*Signing secret\* \(shown this once\): `([^`]+)`/.exec(reply.said)?.[1];
      assert.ok(secret, reply.said);
      secrets.set(target, secret);
      // Asked for the channel, answered to the asker only, and said so.
      assert.equal(reply.visibility, "ephemeral");
      assert.match(reply.context, /only you see this reply, even with --public/);
      return { id: Number(id[1]), reply };
    }

    /** `fleet deliveries [status]` read back as REST's fields. */
    async function deliveriesInChat(status = "") {
      const said = await slack(`fleet deliveries ${status}`.trim());
      return [
        ...said.matchAll(
          /^• \S+ \*#(\d+)\* ([A-Z]+) · event #(\d+) \*([^*]+)\* `([A-Z_]+)` (.*) · subscription #(\d+) \(([^)]+)\) · (\d+) attempts?(?: · last error: (.*))?$/gm,
        ),
      ].map((m) => ({
        id: Number(m[1]),
        status: m[2],
        event: { id: Number(m[3]), cluster: m[4], kind: m[5], summary: m[6] },
        subscription: Number(m[7]),
        host: m[8],
        attempts: Number(m[9]),
        lastError: m[10] ?? null,
      }));
    }

    async function deliveriesOverRest(query: string) {
      const items = (await rest(`/api/v1/deliveries?limit=15${query}`).expect(200)).body
        .items as DeliveryJson[];
      return items.map((item) => ({
        id: item.id,
        status: item.status,
        event: {
          id: item.event.id,
          cluster: item.event.cluster,
          kind: item.event.kind,
          summary: item.event.summary,
        },
        subscription: item.subscription.id,
        host: new URL(item.subscription.url).host,
        attempts: item.attempts,
        lastError: item.lastError,
      }));
    }

    before(async () => {
      receiver = await startReceiver(() => secrets.get(receiver) ?? "none told yet");
      flaky = await startReceiver(() => secrets.get(flaky) ?? "none told yet");
    });
    after(async () => {
      await receiver?.close();
      await flaky?.close();
    });

    it("subscribes a receiver for a reviewer, in a reply only they see, as REST then lists it", async () => {
      const words = `fleet subscribe ${receiver.url}/hook env=prod`;
      const stranger = await slackReply(`${words} --public`, STRANGER);
      assert.match(
        stranger.said,
        /only the Slack users named in CHATOPS_REVIEWERS may subscribe to the fleet's events/,
      );
      assert.equal(stranger.visibility, "ephemeral");
      const bot = await request(instance.app)
        .post("/chatops/command")
        .set(bearer(BOT_TOKEN))
        .send({ text: words })
        .expect(200);
      assert.match(bot.body.text, /names no person, so it cannot subscribe/);
      const dev = await request(instance.app)
        .post("/chatops/dev")
        .send({ text: words })
        .expect(200);
      assert.match(dev.body.text, /proves nobody's identity, so it cannot subscribe/);
      assert.deepEqual(await subscriptions(), []);

      ({ id: subscription } = await subscribeInChat(receiver, "env=prod"));
      const listed = await subscriptions();
      assert.deepEqual(
        listed.map((item) => [
          item.id,
          item.kind,
          item.url,
          item.filters,
          item.createdBy,
          item.signed,
        ]),
        [
          [
            subscription,
            "webhook",
            `${receiver.url}/hook`,
            { environments: ["prod"] },
            `slack:${REVIEWER}`,
            true,
          ],
        ],
      );
      // The same filters REST stores for the same body.
      const twin = await request(instance.app)
        .post("/api/v1/subscriptions")
        .set(bearer(editor))
        .send({ kind: "webhook", url: `${receiver.url}/twin`, filters: { environments: ["prod"] } })
        .expect(201);
      assert.deepEqual(twin.body.item.filters, listed[0]!.filters);
      await request(instance.app)
        .delete(`/api/v1/subscriptions/${twin.body.item.id as number}`)
        .set(bearer(editor))
        .expect(204);

      // Listed by host, never by the path (a Slack webhook's token is in it); for reviewers only.
      const list = await slack("fleet subscriptions");
      assert.match(
        list,
        new RegExp(
          `^• \\*#${subscription}\\* webhook to \`${escapeRegExp(new URL(receiver.url).host)}\` · environments prod · signed · by slack:${REVIEWER} on `,
          "m",
        ),
      );
      assert.ok(!list.includes("/hook"), list);
      assert.match(
        await slack("fleet subscriptions", STRANGER),
        /may list subscriptions or deliveries/,
      );
    });

    it("answers a bad URL or severity with REST's message, and stores nothing", async () => {
      const before = await subscriptions();
      const cases: Array<[string, object, string]> = [
        [
          "a URL that is not http(s)",
          { kind: "webhook", url: "ftp://files.example.com/x", filters: {} },
          "ftp://files.example.com/x",
        ],
        [
          "an unknown severity",
          { kind: "webhook", url: `${receiver.url}/x`, filters: { minSeverity: "LOUD" } },
          `${receiver.url}/x min=loud`,
        ],
      ];
      for (const [what, body, words] of cases) {
        const refused = await request(instance.app)
          .post("/api/v1/subscriptions")
          .set(bearer(editor))
          .send(body)
          .expect(400);
        const reply = await slackReply(`fleet subscribe ${words} --public`);
        assert.ok(
          reply.said.includes(`>${refused.body.error.message as string}`),
          `${what}: REST says ${refused.body.error.message}; chat says ${reply.said}`,
        );
        assert.match(reply.said, /Usage: `\/kubecompat fleet subscribe/, what);
        assert.equal(reply.visibility, "ephemeral", what);
      }
      // A usage problem, which may quote the URL typed, is for the asker only too.
      const usage = await slackReply(
        `fleet subscribe ${receiver.url}/a ${receiver.url}/b --public`,
      );
      assert.match(usage.said, /one URL/);
      assert.equal(usage.visibility, "ephemeral");
      assert.deepEqual(await subscriptions(), before);
    });

    it("tells the receiver of an EKS edit, and lists the delivery as GET /api/v1/deliveries does", async () => {
      // EKS ends the extended support of 1.34 on a day already past: web-prod (prod) turns red.
      await editEksRow(instance.app, editor, "1.34", { endOfExtendedSupport: "2026-12-05" });
      await eventually(
        "the receiver told",
        () => (receiver.received.length > 0 ? true : undefined),
        {
          withinMs: 15_000,
        },
      );
      await instance.fleet.fleet.settled();
      const told = receiver.received.map((entry) => entry.body.event?.cluster);
      assert.ok(told.includes("web-prod"), JSON.stringify(told));
      assert.ok(
        receiver.received.every((entry) => entry.validSignature),
        "signed with the secret chat told",
      );
      const overRest = await deliveriesOverRest("");
      assert.equal(
        overRest.filter((item) => item.status === "DELIVERED").length,
        receiver.received.length,
      );
      assert.deepEqual(await deliveriesInChat(), overRest);
      assert.deepEqual(
        await deliveriesInChat("delivered"),
        await deliveriesOverRest("&status=DELIVERED"),
      );
      assert.match(await slack("fleet deliveries dead"), /No dead deliveries/);
      assert.match(
        await slack("fleet deliveries", STRANGER),
        /may list subscriptions or deliveries/,
      );
      const typo = await rest("/api/v1/deliveries?status=LOST").expect(400);
      assert.ok(
        (await slack("fleet deliveries lost")).includes(`>${typo.body.error.message as string}`),
      );
    });

    it("lists a failing receiver's delivery once dead, replays it when it is back, and refuses a second replay as REST does", async () => {
      flaky.fail = true;
      const { id: flakyId } = await subscribeInChat(flaky, "env=dev min=error");
      assert.deepEqual((await subscriptions()).find((item) => item.id === flakyId)?.filters, {
        environments: ["dev"],
        minSeverity: "ERROR",
      });
      const toldBefore = receiver.received.length;
      // EKS ends all support of 1.35 on days already past: web-dev (dev) turns red.
      await editEksRow(instance.app, editor, "1.35", {
        endOfStandardSupport: "2026-11-01",
        endOfExtendedSupport: "2026-12-05",
      });
      // web-dev's verdict and its support's end are events of their own; both fail every retry.
      // Every delivery to the failing receiver dead first (read over REST), then chat asked: a list read
      // while one of them still retries would be compared with REST's a moment later.
      await eventually(
        "every delivery to the failing receiver dead",
        async () => {
          const mine = (await deliveriesOverRest("")).filter(
            (item) => item.subscription === flakyId,
          );
          return mine.length > 0 && mine.every((item) => item.status === "DEAD") ? true : undefined;
        },
        { withinMs: 20_000 },
      );
      const dead = await deliveriesInChat("dead");
      assert.ok(dead.length > 0);
      assert.deepEqual(dead, await deliveriesOverRest("&status=DEAD"));
      for (const letter of dead) {
        assert.equal(letter.subscription, flakyId);
        assert.equal(letter.event.cluster, "web-dev");
        // The first attempt and two retries (TEST_FLEET_CONFIG).
        assert.equal(letter.attempts, 3);
        assert.match(letter.lastError ?? "", /attempt 3: the receiver answered 500/);
      }
      assert.equal(flaky.attempts, 3 * dead.length);
      assert.equal(
        receiver.received.length,
        toldBefore,
        "a dev event is not told to prod's receiver",
      );
      const [letter, ...others] = dead;
      assert.match(await slack(`fleet replay ${letter!.id}`, STRANGER), /may replay deliveries/);

      flaky.fail = false;
      assert.match(
        await slack(`fleet replay ${letter!.id}`),
        new RegExp(`Delivery #${letter!.id} queued again`),
      );
      await eventually(
        "the replay delivered",
        () => (flaky.received.length > 0 ? true : undefined),
        {
          withinMs: 10_000,
        },
      );
      assert.equal(flaky.received.length, 1);
      assert.ok(flaky.received[0]!.validSignature, "signed with the secret chat told");
      assert.equal(flaky.received[0]!.body.event?.cluster, "web-dev");
      const delivered = await eventually(
        "the replay recorded",
        async () =>
          (await deliveriesInChat()).find(
            (item) => item.id === letter!.id && item.status === "DELIVERED",
          ),
        { withinMs: 10_000 },
      );
      assert.equal(delivered.lastError, null);

      const conflict = await request(instance.app)
        .post(`/api/v1/deliveries/${letter!.id}/replay`)
        .set(bearer(editor))
        .expect(409);
      const again = await slack(`fleet replay ${letter!.id}`);
      assert.ok(
        again.includes(`>${conflict.body.error.message as string}`),
        `REST says ${conflict.body.error.message}; chat says ${again}`,
      );
      assert.match(again, /DELIVERED, not DEAD/);
      assert.deepEqual(
        (await deliveriesInChat("dead")).map((item) => item.id),
        others.map((item) => item.id),
        "the others are still dead",
      );
      const missing = await request(instance.app)
        .post("/api/v1/deliveries/999999/replay")
        .set(bearer(editor))
        .expect(404);
      assert.ok(
        (await slack("fleet replay 999999")).includes(`>${missing.body.error.message as string}`),
      );
    });

    it("removes a subscription for a reviewer only, as REST then lists them", async () => {
      assert.match(
        await slack(`fleet unsubscribe ${subscription}`, STRANGER),
        /may subscribe to the fleet's events or remove subscriptions/,
      );
      assert.ok((await subscriptions()).some((item) => item.id === subscription));
      assert.match(
        await slack(`fleet unsubscribe ${subscription}`),
        new RegExp(`Subscription #${subscription} removed`),
      );
      assert.ok(!(await subscriptions()).some((item) => item.id === subscription));
      assert.ok(
        !(await deliveriesInChat()).some((item) => item.subscription === subscription),
        "its deliveries went with it",
      );
      const gone = await request(instance.app)
        .delete(`/api/v1/subscriptions/${subscription}`)
        .set(bearer(editor))
        .expect(404);
      assert.ok(
        (await slack(`fleet unsubscribe ${subscription}`)).includes(
          `>${gone.body.error.message as string}`,
        ),
      );
    });
  });
});

interface SubscriptionJson {
  id: number;
  kind: string;
  url: string;
  filters: object;
  createdBy: string | null;
  signed: boolean;
}

interface DeliveryJson {
  id: number;
  status: string;
  attempts: number;
  lastError: string | null;
  event: { id: number; cluster: string; kind: string; summary: string };
  subscription: { id: number; url: string };
}

/** A judgement as what was judged, not when. */
function judged(cluster: ClusterJson): object {
  const { judgedAt: _judgedAt, ...rest } = cluster.judgement as ClusterJson["judgement"] & {
    judgedAt: string;
  };
  return rest;
}

function verdictEmoji(status: string): string {
  return (
    { SUPPORTED: "✅", SUPPORTED_WITH_WARNINGS: "⚠️", UNSUPPORTED: "❌", NOT_JUDGED: "❔" }[
      status
    ] ?? "?"
  );
}
