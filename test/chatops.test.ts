import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createApp } from "../src/app.js";
import { bearerTokenMatches } from "../src/chatops/auth.js";
import {
  parseCommand,
  runCommand,
  takeVisibility,
  type ChatCommand,
} from "../src/chatops/commands.js";
import {
  renderReply,
  SLACK_MAX_BLOCKS,
  SLACK_MAX_SECTION_TEXT,
  type SlackBlock,
} from "../src/chatops/reply.js";
import type { Config } from "../src/core/config.js";
import { listApiRemovals } from "../src/domain/catalog.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { newestReleasedOn } from "../src/domain/release-status.js";
import { today } from "../src/domain/days.js";
import { createLogger } from "../src/core/logger.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { REPO_ROOT, startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";
import { kbSnapshot } from "./support/snapshot.js";

const SECRET = "test-signing-secret-0123456789";
const TOKEN = "test-bot-token-0123456789abcdef";
const CHATOPS: Config["chatops"] = { slackSigningSecret: SECRET, botToken: TOKEN };
const AS_OF = "2026-11-29";
const FIXTURE = fs.readFileSync(
  path.join(REPO_ROOT, "test/fixtures/slack/slash-command.form"),
  "utf8",
);

// ---------------------------------------------------------------- pure: parsing

describe("chatops parseCommand", () => {
  const commands: Array<[string, ChatCommand]> = [
    [
      "check kube-apiserver=1.30 kubelet=1.27 kubelet@pool-b=1.26 containerd=1.7.2 profile=strict",
      {
        kind: "check",
        components: [
          { component: "kube-apiserver", version: "1.30" },
          { component: "kubelet", version: "1.27" },
          { component: "kubelet", instance: "pool-b", version: "1.26" },
          { component: "containerd", version: "1.7.2" },
        ],
        profile: "strict",
      },
    ],
    [
      "  CHECK   apiserver = v1.30 ,  kubelet @ pool-a=V1.29  ",
      {
        kind: "check",
        components: [
          { component: "apiserver", version: "v1.30" },
          { component: "kubelet", instance: "pool-a", version: "V1.29" },
        ],
      },
    ],
    [
      'validate "API Server"=1.30 proxy 1.29 asof=2026-01-31',
      {
        kind: "check",
        components: [
          { component: "API Server", version: "1.30" },
          { component: "proxy", version: "1.29" },
        ],
        asOf: "2026-01-31",
      },
    ],
    [
      "check \u201CAPI Server\u201D=1.30",
      { kind: "check", components: [{ component: "API Server", version: "1.30" }] },
    ],
    [
      "@kubecompat check kubelet=1.29",
      { kind: "check", components: [{ component: "kubelet", version: "1.29" }] },
    ],
    ["upgrade 1.27 -> 1.30", { kind: "upgrade", from: "1.27", to: "1.30" }],
    ["upgrade v1.27 \u2192 v1.30", { kind: "upgrade", from: "v1.27", to: "v1.30" }],
    ["Upgrade v1.27\u27F6v1.30", { kind: "upgrade", from: "v1.27", to: "v1.30" }],
    ["upgrade 1.27->1.30", { kind: "upgrade", from: "1.27", to: "1.30" }],
    ["upgrade 1.27 to 1.30", { kind: "upgrade", from: "1.27", to: "1.30" }],
    [
      "upgrade   from 1.27   =>   1.30 profile=Strict",
      { kind: "upgrade", from: "1.27", to: "1.30", profile: "Strict" },
    ],
    ["upgrade 1.27 1.30", { kind: "upgrade", from: "1.27", to: "1.30" }],
    ["plan 1.27 -> 1.30", { kind: "upgrade", from: "1.27", to: "1.30" }],
    [
      "plan apiserver=1.27 kubelet=1.26 to 1.30",
      {
        kind: "plan",
        components: [
          { component: "apiserver", version: "1.27" },
          { component: "kubelet", version: "1.26" },
        ],
        to: "1.30",
      },
    ],
    [
      "plan apiserver=1.27 kubelet@pool-b=1.26 -> v1.30 profile=strict",
      {
        kind: "plan",
        components: [
          { component: "apiserver", version: "1.27" },
          { component: "kubelet", instance: "pool-b", version: "1.26" },
        ],
        to: "v1.30",
        profile: "strict",
      },
    ],
    [
      "upgrade apiserver=1.27 kubelet=1.26 to 1.30",
      {
        kind: "plan",
        components: [
          { component: "apiserver", version: "1.27" },
          { component: "kubelet", version: "1.26" },
        ],
        to: "1.30",
      },
    ],
    [
      "plan apiserver=1.27 target=1.30",
      { kind: "plan", components: [{ component: "apiserver", version: "1.27" }], to: "1.30" },
    ],
    ["removals 1.25 1.29", { kind: "removals", from: "1.25", to: "1.29" }],
    ["removals from v1.25 to v1.29", { kind: "removals", from: "v1.25", to: "v1.29" }],
    ["removed 1.29", { kind: "removals", to: "1.29" }],
    ["ports kubelet", { kind: "ports", component: "kubelet" }],
    ["ports API Server", { kind: "ports", component: "API Server" }],
    ["port of kcm", { kind: "ports", component: "kcm" }],
    ["skew kubelet", { kind: "skew", component: "kubelet" }],
    ["skew kubelet at 1.29", { kind: "skew", component: "kubelet", at: "1.29" }],
    [
      "SKEW kubelet v1.29 profile=strict",
      { kind: "skew", component: "kubelet", at: "v1.29", profile: "strict" },
    ],
    ["rules API Server at 1.28", { kind: "skew", component: "API Server", at: "1.28" }],
    ["release 1.30", { kind: "release", version: "1.30" }],
    ["releases v1.30.2", { kind: "release", version: "v1.30.2" }],
    ["release", { kind: "release" }],
    ["help", { kind: "help" }],
    ["?", { kind: "help" }],
    ["", { kind: "help" }],
    ["   ", { kind: "help" }],
  ];
  for (const [text, expected] of commands) {
    it(`reads ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseCommand(text), { ok: true, command: expected });
    });
  }

  const problems: Array<[string, string | undefined, RegExp]> = [
    ["frobnicate 1.30", undefined, /do not know the command "frobnicate"/],
    ["check", "check", /at least one component/],
    ["check kubelet", "check", /could not read "kubelet"/],
    ["check kubelet=", "check", /"kubelet" has no version/],
    ["check kubelet=1.29 profile=", "check", /profile= needs a value/],
    ["check kubelet=1.29 profile=a profile=b", "check", /profile is given twice/],
    ["upgrade 1.27", "upgrade", /which version to upgrade to/],
    ["upgrade 1.27 -> 1.30 1.31", "upgrade", /could not read "1.30 1.31"/],
    ["upgrade to 1.30", "upgrade", /which version to upgrade from/],
    ["plan apiserver=1.27", "plan", /which version to upgrade to/],
    ["removals", "removals", /give two versions/],
    ["removals 1.2 1.3 1.4", "removals", /at most two/],
    ["removals soon", "removals", /"soon" is not a version/],
    ["ports", "ports", /name a component/],
    ["skew", "skew", /name a component/],
    ["skew kubelet at", "skew", /one version after at/],
    ["release 1.29 1.30", "release", /one version/],
    ["x".repeat(4001), undefined, /longer than 4000/],
  ];
  for (const [text, kind, problem] of problems) {
    it(`explains what is wrong with ${JSON.stringify(text.slice(0, 40))}`, () => {
      const parsed = parseCommand(text);
      assert.equal(parsed.ok, false, JSON.stringify(parsed));
      if (parsed.ok) return;
      assert.equal(parsed.kind, kind);
      assert.match(parsed.problem, problem);
    });
  }

  it("takes --public and --in-channel out of the text", () => {
    assert.deepEqual(takeVisibility("release 1.30 --public"), {
      text: "release 1.30",
      public: true,
    });
    assert.deepEqual(takeVisibility("--IN-CHANNEL upgrade 1.27 -> 1.30"), {
      text: "upgrade 1.27 -> 1.30",
      public: true,
    });
    assert.deepEqual(takeVisibility("release 1.30 \u2014public"), {
      text: "release 1.30",
      public: true,
    });
    assert.deepEqual(takeVisibility("release 1.30"), { text: "release 1.30", public: false });
    assert.deepEqual(takeVisibility("check my--public=1.30"), {
      text: "check my--public=1.30",
      public: false,
    });
  });

  it("compares bearer tokens exactly", () => {
    assert.equal(bearerTokenMatches(`Bearer ${TOKEN}`, TOKEN), true);
    assert.equal(bearerTokenMatches(`bearer   ${TOKEN}`, TOKEN), true);
    assert.equal(bearerTokenMatches(`Bearer ${TOKEN}x`, TOKEN), false);
    assert.equal(bearerTokenMatches(`Bearer ${TOKEN.slice(0, -1)}`, TOKEN), false);
    assert.equal(bearerTokenMatches(TOKEN, TOKEN), false);
    assert.equal(bearerTokenMatches(undefined, TOKEN), false);
  });
});

// ---------------------------------------------------------------- pure: answers

function sectionTexts(blocks: readonly SlackBlock[]): string {
  return blocks.map((block) => (block.type === "section" ? block.text.text : "")).join("\n");
}

describe("chatops runCommand", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  const run = (text: string): ReturnType<typeof runCommand> => {
    const parsed = parseCommand(text);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    return runCommand(snapshot, parsed.command, { asOf: AS_OF });
  };

  it("answers a check with the verdict and cited findings in Markdown and in blocks", () => {
    const reply = run("check apiserver=1.30 kubelet@pool-b=1.26");
    assert.match(reply.text, /^\*\*❌ Not supported\*\*/);
    assert.match(
      reply.text,
      /- 🔴 `SKEW_KUBELET_TOO_OLD_FOR_APISERVER` kubelet@pool-b 1\.26 is 4 minors older .*\(\[source\]\(https:\/\/kubernetes\.io\/releases\/version-skew-policy\/#kubelet\)\)/,
    );
    assert.match(reply.text, /_kb revision 7 · profile upstream · as of 2026-11-29_$/);
    assert.match(
      sectionTexts(reply.blocks),
      /• 🔴 `SKEW_KUBELET_TOO_OLD_FOR_APISERVER` .*\(<https:\/\/kubernetes\.io\/releases\/version-skew-policy\/#kubelet\|source>\)/,
    );
    assert.match(
      reply.fallback,
      /^❌ Not supported \(1 error, 2 warnings\): kube-apiserver 1\.30, kubelet@pool-b 1\.26$/,
    );
  });

  it("turns the domain's InputError into a friendly reply that quotes it", () => {
    const reply = run("check kubelet=banana");
    assert.match(reply.text, /^\*\*⚠️ I could not answer that\*\*/);
    assert.match(reply.text, /^> components\[0\]\.version "banana" is not a Kubernetes version/m);
    assert.match(reply.text, /Usage: `check kube-apiserver=1\.30 /);
  });

  it("turns a NotFoundError into a friendly reply too", () => {
    const reply = run("release 1.99");
    assert.match(reply.text, /> the knowledge base has no release 1\.99/);
    assert.match(reply.text, /Usage: `release 1\.30`/);
  });

  it("lists at most 15 entries, then says how many more there are", () => {
    const removals = listApiRemovals(snapshot, { from: "1.21", to: "1.22" });
    assert.ok(removals.length > 15, "the knowledge base should have more than 15 removals in 1.22");
    const reply = run("removals 1.21 1.22");
    assert.equal(reply.text.split("\n").filter((line) => line.startsWith("- `")).length, 15);
    assert.match(reply.text, new RegExp(`…and ${removals.length - 15} more`));
    assert.match(sectionTexts(reply.blocks), new RegExp(`_…and ${removals.length - 15} more_`));
  });

  it("keeps Slack blocks within Block Kit's limits and escapes mrkdwn", () => {
    const long = "x".repeat(650);
    const reply = renderReply({
      headline: `h${"e".repeat(300)}`,
      sections: Array.from({ length: 40 }, (_, index) => ({
        title: `Section ${index}`,
        style: "bullets" as const,
        lines: Array.from({ length: 12 }, () => [`<b>&${long}`]),
      })),
      context: ["kb revision 1"],
    });
    assert.ok(reply.blocks.length <= SLACK_MAX_BLOCKS, `${reply.blocks.length} blocks`);
    assert.equal(reply.blocks.length, SLACK_MAX_BLOCKS);
    for (const block of reply.blocks) {
      if (block.type === "section")
        assert.ok(
          block.text.text.length <= SLACK_MAX_SECTION_TEXT,
          `${block.text.text.length} characters`,
        );
      if (block.type === "header") assert.ok(block.text.text.length <= 150);
    }
    assert.equal(reply.blocks.at(-1)?.type, "context");
    assert.match(sectionTexts(reply.blocks), /shortened to fit/);
    assert.match(sectionTexts(reply.blocks), /• &lt;b&gt;&amp;x/);
    assert.doesNotMatch(sectionTexts(reply.blocks), /<b>/);
  });
});

// ---------------------------------------------------------------- HTTP

interface SlackAnswer {
  response_type: string;
  text: string;
  blocks: SlackBlock[];
}

/** The fixture's payload with another text, encoded the way Slack encodes it. */
function slackBody(text: string): string {
  const form = new URLSearchParams(FIXTURE);
  form.set("text", text);
  return form.toString();
}

/** Computed here from Slack's documented recipe, not with the code under test. */
function sign(body: string, timestamp: number | string, secret = SECRET): string {
  return `v0=${crypto.createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

describe("chatops HTTP endpoints", () => {
  let runtime: SnapshotRuntime;
  let app: Express;

  /** The real app, as src/app.ts builds it, with other chat secrets. */
  const appFor = (chatops: Config["chatops"] | undefined): Promise<Express> =>
    createApp({
      kb: runtime.kb,
      isDatabaseReachable: () => Promise.resolve(true),
      logger: createLogger("silent"),
      chatops,
    });

  const slack = async (
    text: string,
    options: { timestamp?: number; signature?: string; body?: string } = {},
  ) => {
    const body = options.body ?? slackBody(text);
    const timestamp = options.timestamp ?? now();
    return request(app)
      .post("/chatops/slack")
      .set("X-Slack-Request-Timestamp", String(timestamp))
      .set("X-Slack-Signature", options.signature ?? sign(body, timestamp))
      .type("form")
      .send(body);
  };

  /** A verified Slack answer: 200, valid Block Kit within its limits, the revision in the context. */
  const slackAnswer = async (text: string): Promise<SlackAnswer> => {
    const response = await slack(text);
    assert.equal(response.status, 200, response.text);
    const answer = response.body as SlackAnswer;
    assert.ok(["ephemeral", "in_channel"].includes(answer.response_type));
    assert.equal(typeof answer.text, "string");
    assert.ok(answer.blocks.length >= 2 && answer.blocks.length <= SLACK_MAX_BLOCKS);
    assert.equal(answer.blocks[0]?.type, "header");
    const context = answer.blocks.at(-1);
    assert.equal(context?.type, "context");
    if (context?.type === "context")
      assert.equal(context.elements[0]?.text, `kb revision ${runtime.kb.current().revision}`);
    for (const block of answer.blocks) {
      if (block.type === "section") {
        assert.equal(block.text.type, "mrkdwn");
        assert.ok(block.text.text.length <= SLACK_MAX_SECTION_TEXT);
      }
    }
    return answer;
  };

  const headline = (answer: SlackAnswer): string =>
    answer.blocks[0]?.type === "header" ? answer.blocks[0].text.text : "";

  before(async () => {
    runtime = await startSnapshotRuntime({ chatops: CHATOPS });
    app = runtime.app;
  });
  after(async () => runtime?.close());

  it("is mounted by the app at /chatops", async () => {
    const slackResponse = await request(app).post("/chatops/slack").type("form").send("text=help");
    assert.equal(slackResponse.status, 401, slackResponse.text);
    const commandResponse = await request(app).post("/chatops/command").send({ text: "help" });
    assert.equal(commandResponse.status, 401, commandResponse.text);
  });

  describe("POST /chatops/slack, signed", () => {
    it("answers check with a Block Kit verdict and the findings' codes, ephemeral by default", async () => {
      const answer = await slackAnswer(
        `check kube-apiserver=1.30 kubelet=1.27 kubelet@pool-b=1.26 containerd=1.7.2 asof=${AS_OF}`,
      );
      assert.equal(answer.response_type, "ephemeral");
      assert.equal(headline(answer), "❌ Not supported");
      assert.match(answer.text, /^❌ Not supported \(1 error/);
      const sections = sectionTexts(answer.blocks);
      assert.match(
        sections,
        /kube-apiserver 1\.30 · kubelet 1\.27 · kubelet@pool-b 1\.26 · containerd 1\.7\.2/,
      );
      assert.match(sections, /🔴 `SKEW_KUBELET_TOO_OLD_FOR_APISERVER` kubelet@pool-b 1\.26/);
      assert.match(sections, /⚠️ `RELEASE_END_OF_LIFE`/);
      assert.match(
        sections,
        /<https:\/\/kubernetes\.io\/releases\/version-skew-policy\/#kubelet\|source>/,
      );
      const context = answer.blocks.at(-1);
      assert.deepEqual(
        context?.type === "context" ? context.elements.map((element) => element.text) : [],
        [`kb revision ${runtime.kb.current().revision}`, "profile upstream", `as of ${AS_OF}`],
      );
    });

    it("answers a supported check with ✅ and resolves aliases", async () => {
      const answer = await slackAnswer(
        "check API-Server=v1.30.2 proxy=1.30 kcm=1.30 asof=2024-06-01",
      );
      assert.equal(headline(answer), "✅ Supported");
      assert.match(
        sectionTexts(answer.blocks),
        /kube-apiserver v1\.30\.2 · kube-proxy 1\.30 · kube-controller-manager 1\.30\nno findings/,
      );
    });

    it("answers upgrade A -> B with the domain's steps and the removed APIs", async () => {
      const answer = await slackAnswer("upgrade v1.27 → v1.30");
      assert.equal(headline(answer), "⚠️ Upgrade plan to 1.30, with warnings");
      const expected = planUpgrade(
        runtime.kb.current(),
        [
          "kube-apiserver",
          "kube-controller-manager",
          "kube-scheduler",
          "kubelet",
          "kube-proxy",
        ].map((component) => ({ component, version: "v1.27" })),
        "1.30",
      );
      const sections = sectionTexts(answer.blocks);
      const stepLines = sections.split("\n").filter((line) => /^\d+\. /.test(line));
      assert.equal(stepLines.length, new Set(expected.steps.map((step) => step.order)).size);
      const first = expected.steps[0]!;
      // A control-plane hop also says the last point it can be undone (upstream: only before the step).
      assert.ok(first.undo !== null);
      assert.equal(
        stepLines[0],
        `1. *${first.component} ${first.fromVersion} → ${first.toVersion}* — ${first.note} (undo: ${first.undo})`,
      );
      assert.match(stepLines[0], /^1\. \*kube-apiserver 1\.27 → 1\.28/);
      assert.ok(expected.apiRemovals.length > 0);
      for (const removal of expected.apiRemovals) {
        assert.ok(
          sections.includes(
            `\`${removal.apiVersion}\` ${removal.kind} → \`${removal.replacement}\` (removed in ${removal.removedIn})`,
          ),
          `${removal.apiVersion} ${removal.kind} missing`,
        );
      }
    });

    it("reads Slack's escaped arrow in `upgrade 1.27 -> 1.30`", async () => {
      const answer = await slackAnswer("upgrade 1.27 -&gt; 1.30");
      assert.equal(headline(answer), "⚠️ Upgrade plan to 1.30, with warnings");
    });

    it("answers plan … to X for the given cluster and profile", async () => {
      const answer = await slackAnswer("plan apiserver=1.27 kubelet=1.26 to 1.30 profile=strict");
      assert.equal(headline(answer), "⚠️ Upgrade plan to 1.30, with warnings");
      const sections = sectionTexts(answer.blocks);
      assert.match(sections, /From kube-apiserver 1\.27, kubelet 1\.26 to 1\.30: \d+ steps/);
      // Under strict (n-1) the kubelet has to move before the first control-plane step.
      assert.match(sections, /^1\. \*kubelet 1\.26 → 1\.27/m);
      assert.match(sections, /^2\. \*kube-apiserver 1\.27 → 1\.28/m);
      const context = answer.blocks.at(-1);
      assert.ok(
        context?.type === "context" &&
          context.elements.some((element) => element.text === "profile strict"),
      );
    });

    it("answers removals A B with every API version removed in the range", async () => {
      const answer = await slackAnswer("removals 1.25 1.29");
      assert.equal(headline(answer), "🗑️ API versions removed after 1.25 up to 1.29");
      const removals = listApiRemovals(runtime.kb.current(), { from: "1.25", to: "1.29" });
      const lines = sectionTexts(answer.blocks)
        .split("\n")
        .filter((line) => line.startsWith("• "));
      assert.equal(lines.length, removals.length);
      assert.ok(
        lines.some((line) =>
          line.startsWith(
            "• `autoscaling/v2beta2` HorizontalPodAutoscaler → `autoscaling/v2` (removed in 1.26)",
          ),
        ),
      );
      assert.ok(!lines.some((line) => /removed in 1\.25\)/.test(line)), "1.25 itself is excluded");
    });

    it("answers ports with the component's ports", async () => {
      const answer = await slackAnswer("ports node agent");
      assert.equal(headline(answer), "🔌 Ports of kubelet");
      assert.match(
        sectionTexts(answer.blocks),
        /• `10250\/TCP` inbound on worker nodes — Kubelet API/,
      );
    });

    it("answers skew at a version with the rules in force then", async () => {
      const answer = await slackAnswer("skew kubelet at 1.27");
      assert.equal(headline(answer), "📏 Skew rules for kubelet for 1.27 control planes");
      const sections = sectionTexts(answer.blocks);
      assert.match(sections, /`upstream-kubelet-vs-apiserver-n2`/);
      assert.doesNotMatch(sections, /`upstream-kubelet-vs-apiserver-n3`/);
      assert.doesNotMatch(sections, /strict-/);
    });

    it("answers skew without `at` for the newest release, and with a profile", async () => {
      // The newest minor released today: one only scheduled (1.38 before 2026-12-16) is not the default.
      const newest = newestReleasedOn(runtime.kb.current(), today())!.version;
      const answer = await slackAnswer("skew kubelet profile=strict");
      assert.equal(headline(answer), `📏 Skew rules for kubelet for ${newest} control planes`);
      const sections = sectionTexts(answer.blocks);
      assert.match(sections, /`upstream-kubelet-vs-apiserver-n3`/);
      assert.match(sections, /`strict-kubelet-vs-apiserver-n1`/);
      const context = answer.blocks.at(-1);
      assert.ok(
        context?.type === "context" &&
          context.elements.some(
            (element) => element.text === `${newest} is the newest minor released today`,
          ),
      );
    });

    it("answers release with its dates and latest patch", async () => {
      const release = runtime.kb.current().findRelease("1.30")!;
      const answer = await slackAnswer("release v1.30.2");
      assert.equal(headline(answer), "📅 Kubernetes 1.30");
      const sections = sectionTexts(answer.blocks);
      assert.ok(sections.includes(`*Released:* ${release.releaseDate}`));
      assert.ok(sections.includes(`*End of life:* ${release.endOfLife}`));
      assert.ok(sections.includes(`*Latest patch:* ${release.latestPatch}`));
    });

    it("answers help, and an empty text, with the usage in the command's own name", async () => {
      for (const text of ["help", ""]) {
        const answer = await slackAnswer(text);
        assert.equal(headline(answer), "kubecompat: Kubernetes version compatibility");
        const sections = sectionTexts(answer.blocks);
        for (const word of ["check", "upgrade", "plan", "removals", "ports", "skew", "release"]) {
          assert.match(sections, new RegExp(`\`/kubecompat ${word} `), word);
        }
      }
    });

    it("answers an unknown command with 200 and the usage", async () => {
      const answer = await slackAnswer("frobnicate the cluster");
      assert.match(sectionTexts(answer.blocks), /I do not know the command "frobnicate"/);
      assert.match(sectionTexts(answer.blocks), /`\/kubecompat check /);
    });

    it("answers a command the domain refuses with 200, the error's message and a usage hint", async () => {
      const answer = await slackAnswer("ports flux-capacitor");
      assert.equal(headline(answer), "⚠️ I could not answer that");
      const sections = sectionTexts(answer.blocks);
      assert.match(
        sections,
        /^>unknown component "flux-capacitor"; valid names are kube-apiserver/m,
      );
      assert.match(sections, /Usage: `\/kubecompat ports kubelet`/);
    });

    it("answers in the channel when asked with --public or --in-channel", async () => {
      for (const text of ["release 1.30 --public", "--in-channel release 1.30"]) {
        const answer = await slackAnswer(text);
        assert.equal(answer.response_type, "in_channel", text);
        assert.equal(headline(answer), "📅 Kubernetes 1.30");
      }
    });
  });

  describe("POST /chatops/slack, refused", () => {
    const assertRefused = (response: request.Response, status: number, code: string): void => {
      assert.equal(response.status, status, response.text);
      assert.equal(response.body.error.code, code);
      assert.equal(typeof response.body.error.message, "string");
      assert.equal(response.body.blocks, undefined);
    };

    it("refuses a bad signature with 401", async () => {
      const body = slackBody("help");
      assertRefused(
        await slack("help", { body, signature: sign(body, now(), "some-other-secret-0123456789") }),
        401,
        "UNAUTHENTICATED",
      );
      assertRefused(
        await slack("help", { body, signature: `v0=${"0".repeat(64)}` }),
        401,
        "UNAUTHENTICATED",
      );
      assertRefused(
        await slack("help", { body, signature: sign(body, now()).slice(0, -2) }),
        401,
        "UNAUTHENTICATED",
      );
      assertRefused(
        await slack("help", { body, signature: sign(body, now()).replace("v0=", "v1=") }),
        401,
        "UNAUTHENTICATED",
      );
    });

    it("refuses a request without the Slack headers with 401", async () => {
      const body = slackBody("help");
      const timestamp = now();
      const noHeaders = await request(app).post("/chatops/slack").type("form").send(body);
      assertRefused(noHeaders, 401, "UNAUTHENTICATED");
      const noSignature = await request(app)
        .post("/chatops/slack")
        .set("X-Slack-Request-Timestamp", String(timestamp))
        .type("form")
        .send(body);
      assertRefused(noSignature, 401, "UNAUTHENTICATED");
      const noTimestamp = await request(app)
        .post("/chatops/slack")
        .set("X-Slack-Signature", sign(body, timestamp))
        .type("form")
        .send(body);
      assertRefused(noTimestamp, 401, "UNAUTHENTICATED");
      const badTimestamp = await request(app)
        .post("/chatops/slack")
        .set("X-Slack-Request-Timestamp", "yesterday")
        .set("X-Slack-Signature", sign(body, "yesterday"))
        .type("form")
        .send(body);
      assertRefused(badTimestamp, 401, "UNAUTHENTICATED");
    });

    it("refuses a correctly signed request from 6 minutes ago as a replay, but accepts one from 4 minutes ago", async () => {
      const stale = await slack("help", { timestamp: now() - 6 * 60 });
      assertRefused(stale, 401, "UNAUTHENTICATED");
      assert.match(stale.body.error.message, /five minutes/);
      assert.equal((await slack("help", { timestamp: now() - 4 * 60 })).status, 200);
    });

    it("refuses a correctly signed request from 6 minutes in the future", async () => {
      assertRefused(await slack("help", { timestamp: now() + 6 * 60 }), 401, "UNAUTHENTICATED");
      assert.equal((await slack("help", { timestamp: now() + 4 * 60 })).status, 200);
    });

    it("refuses a signature computed over a different body", async () => {
      const timestamp = now();
      const signed = slackBody("help");
      const sent = slackBody("check kube-apiserver=1.30 kubelet=1.20");
      assertRefused(
        await slack("", { body: sent, timestamp, signature: sign(signed, timestamp) }),
        401,
        "UNAUTHENTICATED",
      );
      // The same body re-encoded (%20 instead of +) is different bytes, so it is a different signature.
      assertRefused(
        await slack("", {
          body: signed.replaceAll("+", "%20"),
          timestamp,
          signature: sign(signed, timestamp),
        }),
        401,
        "UNAUTHENTICATED",
      );
    });

    it("refuses a body that is not a form with 415", async () => {
      const body = JSON.stringify({ text: "help" });
      const timestamp = now();
      const response = await request(app)
        .post("/chatops/slack")
        .set("X-Slack-Request-Timestamp", String(timestamp))
        .set("X-Slack-Signature", sign(body, timestamp))
        .type("json")
        .send(body);
      assertRefused(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    });

    it("refuses a body over 64 KB with 413", async () => {
      const body = slackBody(`check ${"kubelet=1.29 ".repeat(6000)}`);
      assert.ok(body.length > 64 * 1024);
      assertRefused(await slack("", { body }), 413, "PAYLOAD_TOO_LARGE");
    });

    it("answers 503 naming SLACK_SIGNING_SECRET when the secret is not configured", async () => {
      for (const chatops of [undefined, { slackSigningSecret: null, botToken: TOKEN }]) {
        const unconfigured = await appFor(chatops);
        const body = slackBody("help");
        const timestamp = now();
        const response = await request(unconfigured)
          .post("/chatops/slack")
          .set("X-Slack-Request-Timestamp", String(timestamp))
          .set("X-Slack-Signature", sign(body, timestamp))
          .type("form")
          .send(body);
        assertRefused(response, 503, "UNAVAILABLE");
        assert.match(response.body.error.message, /set SLACK_SIGNING_SECRET/);
      }
    });
  });

  describe("POST /chatops/command", () => {
    const command = (
      body: object,
      authorization: string | null = `Bearer ${TOKEN}`,
      target: Express = app,
    ) => {
      const call = request(target).post("/chatops/command");
      if (authorization !== null) call.set("Authorization", authorization);
      return call.send(body);
    };

    it("answers with Markdown and the same blocks as Slack", async () => {
      const response = await command({
        text: `check apiserver=1.30 kubelet@pool-b=1.26 asof=${AS_OF} --public`,
        user: "bridge",
      });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body).sort(), ["blocks", "text"]);
      assert.match(response.body.text, /^\*\*❌ Not supported\*\*\n/);
      assert.match(
        response.body.text,
        /- 🔴 `SKEW_KUBELET_TOO_OLD_FOR_APISERVER` kubelet@pool-b 1\.26/,
      );
      assert.match(
        response.body.text,
        /\[source\]\(https:\/\/kubernetes\.io\/releases\/version-skew-policy\/#kubelet\)/,
      );
      assert.equal(response.body.blocks[0].text.text, "❌ Not supported");
      const slackBlocks = (
        await slackAnswer(`check apiserver=1.30 kubelet@pool-b=1.26 asof=${AS_OF}`)
      ).blocks;
      assert.deepEqual(response.body.blocks, slackBlocks);
    });

    it("answers a bad command with 200 and the usage, without a slash-command prefix", async () => {
      const response = await command({ text: "skew" });
      assert.equal(response.status, 200);
      assert.match(
        response.body.text,
        /name a component\.\s+Usage: `skew kubelet \[at 1\.29\] \[profile=strict\]`/,
      );
    });

    it("refuses a missing or wrong bearer token with 401", async () => {
      for (const authorization of [
        null,
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(1)}`,
        `Basic ${Buffer.from(`bot:${TOKEN}`).toString("base64")}`,
        TOKEN,
        "Bearer",
      ]) {
        const response = await command({ text: "help" }, authorization);
        assert.equal(response.status, 401, String(authorization));
        assert.equal(response.body.error.code, "UNAUTHENTICATED");
        assert.match(String(response.headers["www-authenticate"]), /^Bearer/);
        assert.equal(response.body.text, undefined);
      }
    });

    it("refuses a body without a string text of at most 4000 characters with 400", async () => {
      for (const body of [{}, { text: 5 }, { text: null }, ["help"], { text: "x".repeat(4001) }]) {
        const response = await command(body);
        assert.equal(response.status, 400, JSON.stringify(body).slice(0, 40));
        assert.equal(response.body.error.code, "BAD_USER_INPUT");
      }
      assert.equal((await command({ text: "x".repeat(4000) })).status, 200);
    });

    it("refuses a body that is not JSON with 415", async () => {
      const response = await request(app)
        .post("/chatops/command")
        .set("Authorization", `Bearer ${TOKEN}`)
        .type("text")
        .send("help");
      assert.equal(response.status, 415);
      assert.equal(response.body.error.code, "UNSUPPORTED_MEDIA_TYPE");
    });

    it("answers 503 naming CHATOPS_TOKEN when no token is configured", async () => {
      for (const chatops of [undefined, { slackSigningSecret: SECRET, botToken: null }]) {
        const response = await command({ text: "help" }, `Bearer ${TOKEN}`, await appFor(chatops));
        assert.equal(response.status, 503);
        assert.equal(response.body.error.code, "UNAVAILABLE");
        assert.match(response.body.error.message, /set CHATOPS_TOKEN/);
      }
    });
  });
});
