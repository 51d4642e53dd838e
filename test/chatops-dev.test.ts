/**
 * Chat without the ceremony in development (issue 38, part 3): POST /chatops/dev answers a person on
 * this machine without Slack's signature or a token, only in dev mode (CHATOPS_DEV, HOST on loopback),
 * the same reply the signed endpoints give; and the chat words `platform=` and `latest` mean what
 * REST's `platform` and `latest` mean. Real HTTP through supertest; the review queue on a real database.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createApp } from "../src/app.js";
import { devRequestProblem, type DevRequestOrigin } from "../src/chatops/auth.js";
import { parseCommand } from "../src/chatops/commands.js";
import type { Config } from "../src/core/config.js";
import { createLogger } from "../src/core/logger.js";
import { isLoopbackAddress, isLoopbackHost } from "../src/core/loopback.js";
import { fileProposals } from "../src/db/proposal-store.js";
import { captureLogs } from "./support/log-sink.js";
import { removalProposal } from "./support/proposals.js";
import { startSnapshotRuntime, startTestRuntime, type TestRuntime } from "./support/runtime.js";
import { slackBody, slackSignature, unixNow } from "./support/slack-request.js";

const SECRET = "dev-test-signing-secret-0123456789";
const TOKEN = "dev-test-bot-token-0123456789abcdef";
const SIGNED: Config["chatops"] = { slackSigningSecret: SECRET, botToken: TOKEN };
const DEV: Config["chatops"] = { ...SIGNED, devMode: true };
const AS_OF = "2026-12-06";

// ---------------------------------------------------------------- pure: what counts as this machine

describe("loopback addresses and hosts", () => {
  const addresses: Array<[string | undefined, boolean]> = [
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["::1", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["[::1]", true],
    ["128.0.0.1", false],
    ["10.0.0.7", false],
    ["::ffff:10.0.0.7", false],
    ["::2", false],
    ["0.0.0.0", false],
    ["::", false],
    ["localhost", false],
    [undefined, false],
  ];
  for (const [address, loopback] of addresses)
    it(`${String(address)} is ${loopback ? "" : "not "}a loopback address`, () =>
      assert.equal(isLoopbackAddress(address), loopback));

  it("a HOST to listen on is loopback when it is localhost or a loopback address", () => {
    for (const host of ["127.0.0.1", "::1", "localhost", "LOCALHOST", "127.0.0.2"])
      assert.equal(isLoopbackHost(host), true, host);
    for (const host of ["0.0.0.0", "::", "192.168.1.4", "localhost.example.com", "my-laptop"])
      assert.equal(isLoopbackHost(host), false, host);
  });
});

describe("devRequestProblem", () => {
  const local: DevRequestOrigin = {
    peer: "127.0.0.1",
    client: "127.0.0.1",
    forwarded: false,
    host: "127.0.0.1:4000",
    origin: undefined,
  };
  it("lets in a request made on this machine, to any loopback Host spelling", () => {
    for (const host of ["127.0.0.1:4000", "localhost:4000", "[::1]:4000", "localhost"])
      assert.equal(devRequestProblem({ ...local, host }), null, host);
    assert.equal(devRequestProblem({ ...local, origin: "http://localhost:4000" }), null);
    assert.equal(devRequestProblem({ ...local, peer: "::1", client: "::1" }), null);
  });

  const refusals: Array<[string, Partial<DevRequestOrigin>, RegExp]> = [
    ["another machine", { peer: "10.0.0.7", client: "10.0.0.7" }, /came from 10\.0\.0\.7/],
    ["a trusted proxy's client", { client: "203.0.113.7" }, /came from 203\.0\.113\.7/],
    ["a local proxy or tunnel", { forwarded: true }, /through a proxy/],
    ["a DNS-rebinding page", { host: "attacker.example:4000" }, /not to attacker\.example:4000/],
    ["no Host", { host: undefined }, /not to no Host/],
    ["a page elsewhere", { origin: "https://attacker.example" }, /page of https:\/\/attacker/],
    ["an opaque origin", { origin: "null" }, /page of null/],
  ];
  for (const [who, change, message] of refusals)
    it(`refuses ${who}`, () => {
      const problem = devRequestProblem({ ...local, ...change });
      assert.match(problem ?? "", /chat dev mode answers only requests made on this machine/);
      assert.match(problem ?? "", message);
    });
});

// ---------------------------------------------------------------- pure: version words

describe("chat version words: latest and oldest-supported wherever a version is expected", () => {
  const commands: Array<[string, object]> = [
    ["upgrade 1.31 to latest", { kind: "upgrade", from: "1.31", to: "latest" }],
    ["upgrade 1.31 latest", { kind: "upgrade", from: "1.31", to: "latest" }],
    [
      "upgrade oldest-supported -> latest",
      { kind: "upgrade", from: "oldest-supported", to: "latest" },
    ],
    [
      "plan apiserver=1.31 kubelet=1.30 latest platform=eks",
      {
        kind: "plan",
        components: [
          { component: "apiserver", version: "1.31" },
          { component: "kubelet", version: "1.30" },
        ],
        to: "latest",
        platform: "eks",
      },
    ],
    ["removals 1.30 latest", { kind: "removals", from: "1.30", to: "latest" }],
    ["impact 1.33 -> Latest", { kind: "impact", from: "1.33", to: "Latest" }],
    ["skew kubelet at latest", { kind: "skew", component: "kubelet", at: "latest" }],
  ];
  for (const [text, command] of commands)
    it(text, () => assert.deepEqual(parseCommand(text), { ok: true, command }));

  it("still refuses a word that is neither a version nor an alias", () => {
    const parsed = parseCommand("removals 1.30 newest");
    assert.equal(parsed.ok, false);
    assert.match(parsed.ok ? "" : parsed.problem, /"newest" is not a version/);
  });
});

// ---------------------------------------------------------------- HTTP: the dev route

async function appWith(
  chatops: Config["chatops"],
  extra: { trustProxy?: readonly string[]; logs?: ReturnType<typeof captureLogs> } = {},
): Promise<Express> {
  const runtime = await startSnapshotRuntime();
  return createApp({
    kb: runtime.kb,
    isDatabaseReachable: () => Promise.resolve(true),
    logger: createLogger(extra.logs === undefined ? "silent" : "info", extra.logs?.sink),
    chatops,
    trustProxy: extra.trustProxy,
    rateLimits: { writesPerMinute: 120, chatPerMinute: 10_000 },
  });
}

describe("POST /chatops/dev", () => {
  let dev: Express;
  before(async () => {
    dev = await appWith(DEV);
  });

  const bot = (app: Express, text: string) =>
    request(app)
      .post("/chatops/command")
      .set("Authorization", `Bearer ${TOKEN}`)
      .send({ text })
      .expect(200);
  /** Signed as Slack signs it; without the slash command's name, which Slack's usage lines would otherwise carry. */
  const slack = (app: Express, text: string) => {
    const form = new URLSearchParams(slackBody(text));
    form.delete("command");
    const body = form.toString();
    const timestamp = unixNow();
    return request(app)
      .post("/chatops/slack")
      .type("form")
      .set("X-Slack-Request-Timestamp", String(timestamp))
      .set("X-Slack-Signature", slackSignature(body, timestamp, SECRET))
      .send(body)
      .expect(200);
  };

  it("is off unless CHATOPS_DEV is set, and says how to turn it on", async () => {
    const off = await appWith(SIGNED);
    const refused = await request(off).post("/chatops/dev").send({ text: "help" });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.error.code, "UNAVAILABLE");
    assert.match(refused.body.error.message, /chat dev mode is off/);
    assert.match(refused.body.error.message, /CHATOPS_DEV=true and HOST=127\.0\.0\.1/);
    assert.equal(refused.headers["retry-after"], undefined, "waiting will not turn it on");
  });

  it("answers what the signed bot and Slack endpoints answer, JSON or form, with no signature or token", async () => {
    const texts = [
      "help",
      `check apiserver=1.29.4 kubelet=1.29.4 platform=eks asof=${AS_OF}`,
      `upgrade 1.31 to latest asof=${AS_OF}`,
      "removals 1.30 latest",
      "check kubelet=1.30 platform=nowhere",
      "frobnicate the cluster",
    ];
    for (const text of texts) {
      const fromBot = await bot(dev, text);
      const json = await request(dev).post("/chatops/dev").send({ text }).expect(200);
      assert.deepEqual(json.body, fromBot.body, text);
      const form = await request(dev).post("/chatops/dev").type("form").send({ text }).expect(200);
      assert.deepEqual(form.body, fromBot.body, `${text} (form)`);
      const fromSlack = await slack(dev, text);
      assert.deepEqual(json.body.blocks, fromSlack.body.blocks, `${text} (Slack)`);
    }
  });

  it("refuses a request from another machine, named by a trusted proxy", async () => {
    const behindProxy = await appWith(DEV, { trustProxy: ["loopback"] });
    const refused = await request(behindProxy)
      .post("/chatops/dev")
      .set("X-Forwarded-For", "203.0.113.7")
      .send({ text: "help" });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, "FORBIDDEN");
    assert.match(refused.body.error.message, /only requests made on this machine.*203\.0\.113\.7/);
    // The same app answers the same request made here.
    await request(behindProxy).post("/chatops/dev").send({ text: "help" }).expect(200);
  });

  it("refuses what a local proxy or tunnel forwards, a foreign Host and a page elsewhere", async () => {
    const asked: Array<[string, string, RegExp]> = [
      ["X-Forwarded-For", "198.51.100.4", /through a proxy/],
      ["Forwarded", "for=198.51.100.4", /through a proxy/],
      ["Host", "attacker.example", /not to attacker\.example/],
      ["Origin", "https://attacker.example", /page of https:\/\/attacker\.example/],
    ];
    for (const [name, value, message] of asked) {
      const refused = await request(dev)
        .post("/chatops/dev")
        .set(name, value)
        .send({ text: "help" });
      assert.equal(refused.status, 403, `${name}: ${refused.text}`);
      assert.match(refused.body.error.message, message);
    }
  });

  it("says what to send when the body is neither JSON nor a form", async () => {
    const wrong = await request(dev).post("/chatops/dev").type("text/plain").send("help");
    assert.equal(wrong.status, 415, wrong.text);
    assert.match(wrong.body.error.message, /application\/json .*text=/);
    const empty = await request(dev).post("/chatops/dev").send({ words: "help" });
    assert.equal(empty.status, 400, empty.text);
  });

  it("logs one warning at start when on, and none when off", async () => {
    const on = captureLogs();
    await appWith(DEV, { logs: on });
    const warnings = on.entries.filter((entry) => entry.level === 40);
    assert.equal(warnings.length, 1, JSON.stringify(on.entries));
    assert.match(String(warnings[0]!.msg), /unauthenticated on localhost/);
    const off = captureLogs();
    await appWith(SIGNED, { logs: off });
    assert.equal(off.entries.filter((entry) => entry.level === 40).length, 0);
  });
});

// ---------------------------------------------------------------- chat words against REST

/** A chat reply as REST's fields: the status its headline says and the codes it lists. */
function chatVerdict(text: string): { status: string; codes: string[] } {
  const status = (
    [
      [/^\*\*✅ /, "SUPPORTED"],
      [/^\*\*❌ /, "UNSUPPORTED"],
      [/^\*\*❔ /, "NOT_JUDGED"],
      [/^\*\*⚠️ (?!I could not)/, "SUPPORTED_WITH_WARNINGS"],
    ] as const
  ).find(([pattern]) => pattern.test(text))?.[1];
  assert.ok(status !== undefined, text.split("\n")[0]);
  const findings = text.split("**Findings**")[1] ?? "";
  return { status, codes: [...findings.matchAll(/^- \S+ `([A-Z0-9_]+)`/gm)].map((m) => m[1]!) };
}

describe("platform= and latest in chat mean what REST's platform and latest mean", () => {
  let app: Express;
  before(async () => {
    app = await appWith(DEV);
  });
  const chat = async (text: string): Promise<string> =>
    ((await request(app).post("/chatops/dev").send({ text }).expect(200)).body as { text: string })
      .text;
  const rest = async (path: string, body: object) =>
    (await request(app).post(`/api/v1${path}`).send(body).expect(200)).body as {
      status: string;
      targetVersion?: string;
      findings: Array<{ code: string }>;
    };

  it("platform=eks changes a check as REST's platform: eks does", async () => {
    const components = [
      { component: "kube-apiserver", version: "1.29.4" },
      { component: "kubelet", version: "1.29.4" },
    ];
    const answers: Array<{ status: string; codes: string[] }> = [];
    for (const platform of [undefined, "eks"]) {
      const reference = await rest("/validate", { components, asOf: AS_OF, platform });
      const words = `check kube-apiserver=1.29.4 kubelet=1.29.4 asof=${AS_OF}${platform === undefined ? "" : ` platform=${platform}`}`;
      const said = chatVerdict(await chat(words));
      assert.deepEqual(
        said,
        { status: reference.status, codes: reference.findings.map((found) => found.code) },
        words,
      );
      answers.push(said);
    }
    assert.notDeepEqual(answers[0], answers[1], "EKS's calendar is not upstream's");
  });

  it("platform=eks changes a plan as REST's platform: eks does", async () => {
    const components = [
      { component: "kube-apiserver", version: "1.29.4" },
      { component: "kubelet", version: "1.28.9" },
    ];
    const answers: Array<{ status: string; codes: string[] }> = [];
    for (const platform of [undefined, "eks"]) {
      const reference = await rest("/upgrade-plan", {
        current: { components },
        targetVersion: "1.31",
        asOf: AS_OF,
        platform,
      });
      const words = `plan kube-apiserver=1.29.4 kubelet=1.28.9 to 1.31 asof=${AS_OF}${platform === undefined ? "" : ` platform=${platform}`}`;
      const said = chatVerdict(await chat(words));
      assert.deepEqual(
        said,
        { status: reference.status, codes: reference.findings.map((found) => found.code) },
        words,
      );
      answers.push(said);
    }
    assert.notDeepEqual(answers[0], answers[1], "EKS's calendar is not upstream's");
  });

  it("an unknown platform is refused with the known ones named, as REST refuses it", async () => {
    const refused = await request(app)
      .post("/api/v1/validate")
      .send({ components: [{ component: "kubelet", version: "1.30" }], platform: "nowhere" });
    assert.equal(refused.status, 400);
    const said = await chat("check kubelet=1.30 platform=nowhere");
    assert.match(said, /^\*\*⚠️ I could not answer that\*\*/);
    assert.ok(said.includes(refused.body.error.message), said);
    assert.match(said, /known platforms: .*eks/);
  });

  it("latest is the version REST's latest resolves to, on the same day", async () => {
    for (const asOf of [AS_OF, "2025-06-01"]) {
      const components = [
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kubelet",
        "kube-proxy",
      ].map((component) => ({ component, version: "1.29" }));
      const reference = await rest("/upgrade-plan", {
        current: { components },
        targetVersion: "latest",
        asOf,
      });
      assert.match(reference.targetVersion ?? "", /^1\.\d+$/);
      for (const words of [
        `upgrade 1.29 to latest asof=${asOf}`,
        `upgrade 1.29 latest asof=${asOf}`,
        `plan apiserver=1.29 kubelet=1.29 to latest asof=${asOf}`,
      ]) {
        const said = await chat(words);
        assert.match(
          said,
          new RegExp(`Upgrade plan to ${reference.targetVersion!.replace(".", "\\.")}\\b`),
          words,
        );
      }
    }
  });
});

// ---------------------------------------------------------------- the review queue, on a database

describe("dev mode and the review queue", () => {
  let runtime: TestRuntime;
  before(async () => {
    runtime = await startTestRuntime({ chatops: { ...DEV, reviewers: ["U024BE7LH"] } });
  });
  after(async () => runtime?.close());

  it("lists and shows proposals, but never approves or rejects one", async () => {
    const [open] = await fileProposals(runtime.db, [removalProposal("Doohickey")]);
    const dev = async (text: string): Promise<string> =>
      (
        (await request(runtime.app).post("/chatops/dev").send({ text }).expect(200)).body as {
          text: string;
        }
      ).text;
    assert.match(await dev("proposals"), /1 open proposal/);
    for (const decision of [`approve ${open!.id}`, `reject ${open!.id} tried from a laptop`]) {
      const refused = await dev(decision);
      assert.match(refused, /chat dev mode \(CHATOPS_DEV\) proves nobody's identity/, decision);
      assert.match(refused, /cannot approve or reject proposals/, decision);
    }
    assert.match(await dev(`proposal ${open!.id}`), new RegExp(`Proposal #${open!.id} \\(open\\)`));
    assert.match(await dev("proposals"), /1 open proposal/, "nothing was decided");
  });
});
