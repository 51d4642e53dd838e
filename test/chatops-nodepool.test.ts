/**
 * `nodepool check` and `nodepool rollback` in chat: how the words are read
 * (parseCommand), and what Slack and bots get back through the real app,
 * with signed Slack requests. The verdicts, findings and steps must be the
 * domain's own (checkNodePoolUpgrade / checkNodePoolRollback).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { parseCommand, runCommand, type ChatCommand } from "../src/chatops/commands.js";
import { SLACK_MAX_BLOCKS, SLACK_MAX_SECTION_TEXT, type SlackBlock } from "../src/chatops/reply.js";
import type { Config } from "../src/core/config.js";
import {
  checkNodePoolRollback,
  checkNodePoolUpgrade,
  type NodePoolReport,
} from "../src/domain/node-pool.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";
import { slackBody, slackEscape, slackSignature, unixNow } from "./support/slack-request.js";
import { kbSnapshot } from "./support/snapshot.js";

const SECRET = "test-signing-secret-nodepool-0123";
const TOKEN = "test-bot-token-nodepool-0123456789";
const CHATOPS: Config["chatops"] = { slackSigningSecret: SECRET, botToken: TOKEN };

/** The command of the issue, as a platform engineer types it. */
const ISSUE_EXAMPLE =
  'nodepool check cp=1.30 from kubelet=1.29.4 proxy=ipvs containerd=1.7.2 to kubelet=1.30.1 proxy=nftables containerd=2.0.1 flags="--container-runtime=remote --max-pods=110"';
const ISSUE_FROM = {
  kubeletVersion: "1.29.4",
  kubeProxyMode: "ipvs",
  runtime: "containerd",
  runtimeVersion: "1.7.2",
};
const ISSUE_TO = {
  kubeletVersion: "1.30.1",
  kubeletFlags: "--container-runtime=remote --max-pods=110",
  kubeProxyMode: "nftables",
  runtime: "containerd",
  runtimeVersion: "2.0.1",
};

// ---------------------------------------------------------------- parsing

describe("chatops nodepool: parseCommand", () => {
  const commands: Array<[string, ChatCommand]> = [
    [
      ISSUE_EXAMPLE,
      { kind: "nodepool-check", controlPlaneVersion: "1.30", from: ISSUE_FROM, to: ISSUE_TO },
    ],
    // Slack on macOS: typographic quotes, and the two hyphens of each flag turned into an em dash.
    [
      "nodepool check cp=1.30 from kubelet=1.29.4 proxy=ipvs containerd=1.7.2 to kubelet=1.30.1 proxy=nftables containerd=2.0.1 flags=\u201C\u2014container-runtime=remote \u2014max-pods=110\u201D",
      { kind: "nodepool-check", controlPlaneVersion: "1.30", from: ISSUE_FROM, to: ISSUE_TO },
    ],
    [
      "nodepool rollback cp=1.30 profile=strict from kubelet=1.29.4 to kubelet=1.28.9",
      {
        kind: "nodepool-rollback",
        controlPlaneVersion: "1.30",
        from: { kubeletVersion: "1.29.4" },
        to: { kubeletVersion: "1.28.9" },
        profile: "strict",
      },
    ],
    [
      "Node-Pool Rollback name=gpu os=windows from kubelet=v1.29.4 kube-proxy=1.29.4 proxy=kernelspace to kubelet=v1.28.9 kube-proxy=1.28.9 CP=v1.30 policy=strict",
      {
        kind: "nodepool-rollback",
        controlPlaneVersion: "v1.30",
        from: {
          name: "gpu",
          kubeletVersion: "v1.29.4",
          kubeProxyVersion: "1.29.4",
          kubeProxyMode: "kernelspace",
          os: "windows",
        },
        to: { name: "gpu", kubeletVersion: "v1.28.9", kubeProxyVersion: "1.28.9", os: "windows" },
        profile: "strict",
      },
    ],
    [
      'nodepool upgrade control-plane=1.31 from name=pool-b kubelet=1.30.2 cri-o=1.30.3 to kubelet=1.31.1 crio=1.31.0 chart=">=1.27.0-0 <1.32.0-0" --max-pods=110 flags="--node-ip=10.0.0.7"',
      {
        kind: "nodepool-check",
        controlPlaneVersion: "1.31",
        from: {
          name: "pool-b",
          kubeletVersion: "1.30.2",
          runtime: "cri-o",
          runtimeVersion: "1.30.3",
        },
        to: {
          name: "pool-b",
          kubeletVersion: "1.31.1",
          kubeletFlags: "--max-pods=110 --node-ip=10.0.0.7",
          runtime: "cri-o",
          runtimeVersion: "1.31.0",
          chartKubeVersion: ">=1.27.0-0 <1.32.0-0",
        },
      },
    ],
    // Without the check word and without from: what stands before `to` (or →) is the pool as it is.
    [
      "nodepool cp=1.30 kubelet=1.29.4 docker=20.10.24 \u2192 kubelet=1.30.1 containerd=1.7.20 proxy=1.30.1",
      {
        kind: "nodepool-check",
        controlPlaneVersion: "1.30",
        from: { kubeletVersion: "1.29.4", runtime: "docker-engine", runtimeVersion: "20.10.24" },
        to: {
          kubeletVersion: "1.30.1",
          kubeProxyVersion: "1.30.1",
          runtime: "containerd",
          runtimeVersion: "1.7.20",
        },
      },
    ],
  ];
  for (const [text, expected] of commands) {
    it(`reads ${JSON.stringify(text.slice(0, 90))}`, () => {
      assert.deepEqual(parseCommand(text), { ok: true, command: expected });
    });
  }

  const problems: Array<[string, ChatCommand["kind"], RegExp]> = [
    [
      "nodepool",
      "nodepool-check",
      /give the control plane's version and the pool before and after/,
    ],
    [
      "nodepool frobnicate cp=1.30",
      "nodepool-check",
      /could not read "frobnicate"; say nodepool check .* or nodepool rollback/,
    ],
    [
      "nodepool check from kubelet=1.29.4 to kubelet=1.30.1",
      "nodepool-check",
      /control plane's version with cp=/,
    ],
    [
      "nodepool rollback cp=1.30 from kubelet=1.29.4",
      "nodepool-rollback",
      /what the pool goes back to after to/,
    ],
    [
      "nodepool check cp=1.30 from proxy=ipvs to kubelet=1.30.1",
      "nodepool-check",
      /the from pool needs its kubelet version/,
    ],
    [
      "nodepool check cp=1.30 from kubelet=1.29.4 to",
      "nodepool-check",
      /describe the pool after to/,
    ],
    [
      "nodepool check cp=1.30 from kubelet=1.29.4 gpu=yes to kubelet=1.30.1",
      "nodepool-check",
      /I do not know "gpu=" for a node pool; use kubelet=/,
    ],
    [
      "nodepool check cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1 kubelet=1.30.2",
      "nodepool-check",
      /kubelet= is given twice for the to pool/,
    ],
    [
      "nodepool check cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1 containerd=2.0.1 cri-o=1.30.0",
      "nodepool-check",
      /names two runtimes/,
    ],
    [
      "nodepool check cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1 --node-ip 10.0.0.7",
      "nodepool-check",
      /could not read "10\.0\.0\.7" in the to pool; .* quote flags/,
    ],
    [
      "nodepool check cp=1.30 kubelet=1.29.4 from kubelet=1.29.4 to kubelet=1.30.1",
      "nodepool-check",
      /"kubelet=1\.29\.4" stands before from/,
    ],
    [
      "nodepool check cp=1.30 cp=1.31 from kubelet=1.29.4 to kubelet=1.30.1",
      "nodepool-check",
      /control plane's version is given twice/,
    ],
    [
      "nodepool check cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1 profile=",
      "nodepool-check",
      /profile= needs a value/,
    ],
  ];
  for (const [text, kind, problem] of problems) {
    it(`explains what is wrong with ${JSON.stringify(text)}`, () => {
      const parsed = parseCommand(text);
      assert.equal(parsed.ok, false, JSON.stringify(parsed));
      if (parsed.ok) return;
      assert.equal(parsed.kind, kind);
      assert.match(parsed.problem, problem);
    });
  }
});

// ---------------------------------------------------------------- answers, without HTTP

describe("chatops nodepool: runCommand", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  const run = (text: string): ReturnType<typeof runCommand> => {
    const parsed = parseCommand(text);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    return runCommand(snapshot, parsed.command, { invokedAs: "/kubecompat" });
  };

  it("lists at most 15 findings, then says how many more the domain found", () => {
    const flags = Array.from({ length: 20 }, (_, index) => `--site-flag-${index}=x`).join(" ");
    const expected = checkNodePoolUpgrade(snapshot, {
      controlPlaneVersion: "1.30",
      from: { kubeletVersion: "1.29.4" },
      to: { kubeletVersion: "1.30.1", kubeletFlags: flags },
    });
    assert.ok(expected.findings.length > 20, "each unknown flag is a FLAG_UNKNOWN note");
    const reply = run(
      `nodepool check cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1 flags="${flags}"`,
    );
    const bullets = reply.text.split("\n").filter((line) => line.startsWith("- "));
    assert.equal(bullets.length, 15);
    assert.match(reply.text, new RegExp(`…and ${expected.findings.length - 15} more`));
  });

  it("says so when a pool changes nothing", () => {
    const reply = run("nodepool check cp=1.30 from kubelet=1.30.1 to kubelet=1.30.1");
    assert.match(reply.text, /^\*\*⚠️ Node pool upgrade supported, with warnings\*\*/);
    assert.match(
      reply.text,
      /No steps: the pool's versions, flags and kube-proxy mode stay as they are\./,
    );
  });
});

// ---------------------------------------------------------------- HTTP, signed Slack requests

interface SlackAnswer {
  response_type: string;
  text: string;
  blocks: SlackBlock[];
}

function sectionTexts(blocks: readonly SlackBlock[]): string {
  return blocks.map((block) => (block.type === "section" ? block.text.text : "")).join("\n");
}

const headline = (answer: SlackAnswer): string =>
  answer.blocks[0]?.type === "header" ? answer.blocks[0].text.text : "";
const contextTexts = (answer: SlackAnswer): string[] => {
  const context = answer.blocks.at(-1);
  return context?.type === "context" ? context.elements.map((element) => element.text) : [];
};

/** The codes of the bullet lines in a Slack answer, in order. */
function bulletCodes(answer: SlackAnswer): string[] {
  return sectionTexts(answer.blocks)
    .split("\n")
    .filter((line) => line.startsWith("• "))
    .map((line) => /`([A-Z_]+)`/.exec(line)?.[1] ?? line);
}

function stepLines(answer: SlackAnswer): string[] {
  return sectionTexts(answer.blocks)
    .split("\n")
    .filter((line) => /^\d+\. /.test(line));
}

describe("chatops nodepool over HTTP", () => {
  let runtime: SnapshotRuntime;
  let app: Express;

  const slack = async (text: string): Promise<SlackAnswer> => {
    const body = slackBody(text);
    const timestamp = unixNow();
    const response = await request(app)
      .post("/chatops/slack")
      .set("X-Slack-Request-Timestamp", String(timestamp))
      .set("X-Slack-Signature", slackSignature(body, timestamp, SECRET))
      .type("form")
      .send(body);
    assert.equal(response.status, 200, response.text);
    const answer = response.body as SlackAnswer;
    assert.equal(answer.blocks[0]?.type, "header");
    assert.ok(answer.blocks.length <= SLACK_MAX_BLOCKS);
    for (const block of answer.blocks)
      if (block.type === "section") assert.ok(block.text.text.length <= SLACK_MAX_SECTION_TEXT);
    assert.equal(contextTexts(answer)[0], `kb revision ${runtime.kb.current().revision}`);
    return answer;
  };

  const upgrade = (
    from: object,
    to: object,
    controlPlaneVersion = "1.30",
    profile?: string,
  ): NodePoolReport =>
    checkNodePoolUpgrade(runtime.kb.current(), { controlPlaneVersion, from, to, profile });

  before(async () => {
    runtime = await startSnapshotRuntime({ chatops: CHATOPS });
    app = runtime.app;
  });
  after(async () => runtime?.close());

  it("answers the issue's nodepool check with the domain's verdict, findings and numbered steps", async () => {
    const answer = await slack(ISSUE_EXAMPLE);
    const expected = upgrade(ISSUE_FROM, ISSUE_TO);
    assert.equal(expected.ok, false, "--container-runtime is gone since 1.27");
    assert.equal(answer.response_type, "ephemeral");
    assert.equal(headline(answer), "❌ Node pool upgrade not supported as asked");
    assert.match(answer.text, /^❌ Node pool upgrade not supported as asked \(1 error, /);
    const sections = sectionTexts(answer.blocks);
    assert.match(
      sections,
      /kubelet 1\.29\.4 → 1\.30\.1 · kube-proxy mode ipvs → nftables · containerd 1\.7\.2 → 2\.0\.1, under control plane 1\.30/,
    );
    assert.deepEqual(
      bulletCodes(answer),
      expected.findings.map((finding) => finding.code),
    );
    assert.match(
      sections,
      /• 🔴 `FLAG_REMOVED` flag --container-runtime was removed in Kubernetes 1\.27.*\(<https:\/\/[^|]+\|source>\)/,
    );
    assert.match(sections, /• ⚠️ `FLAG_DEPRECATED` --max-pods is deprecated/);
    const labels = [
      "drain",
      "containerd 1.7.2 → 2.0.1",
      "kubelet configuration",
      "kubelet 1.29.4 → 1.30.1",
      "kube-proxy",
      "uncordon",
    ];
    assert.deepEqual(
      stepLines(answer),
      expected.steps.map((step, index) => `${step.order}. *${labels[index]}* — ${step.note}`),
    );
    assert.deepEqual(contextTexts(answer).slice(1), ["profile upstream", "control plane 1.30"]);
  });

  it("reads Slack's typographic quotes and its escaped < and > in chart=", async () => {
    // Slack sends `chart=“>=1.27.0-0 <1.30.0-0”` as `chart=“&gt;=1.27.0-0 &lt;1.30.0-0”`.
    const excluded = await slack(
      slackEscape(
        "nodepool check cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1 chart=\u201C>=1.27.0-0 <1.30.0-0\u201D",
      ),
    );
    assert.equal(headline(excluded), "❌ Node pool upgrade not supported as asked");
    const expected = upgrade(
      { kubeletVersion: "1.29.4" },
      { kubeletVersion: "1.30.1", chartKubeVersion: ">=1.27.0-0 <1.30.0-0" },
    );
    assert.deepEqual(
      bulletCodes(excluded),
      expected.findings.map((finding) => finding.code),
    );
    assert.equal(bulletCodes(excluded).filter((code) => code === "CHART_KUBE_VERSION").length, 2);
    assert.match(
      sectionTexts(excluded.blocks),
      /the node-pool chart's kubeVersion "&gt;=1\.27\.0-0 &lt;1\.30\.0-0" does not admit kubelet 1\.30\.1/,
    );

    const admitted = await slack(
      slackEscape(
        "nodepool check cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1 chart=\u201C>=1.27.0-0 <1.31.0-0\u201D",
      ),
    );
    assert.ok(!bulletCodes(admitted).includes("CHART_KUBE_VERSION"), sectionTexts(admitted.blocks));
    assert.equal(headline(admitted), "⚠️ Node pool upgrade supported, with warnings");
  });

  it("catches the rollback trap under profile=strict: cp=1.30, kubelet 1.29.4 back to 1.28.9", async () => {
    const answer = await slack(
      "nodepool rollback cp=1.30 profile=strict name=gpu from kubelet=1.29.4 to kubelet=1.28.9 --public",
    );
    assert.equal(answer.response_type, "in_channel");
    assert.equal(headline(answer), "❌ Node pool gpu: rollback not supported as asked");
    const expected = checkNodePoolRollback(runtime.kb.current(), {
      controlPlaneVersion: "1.30",
      current: { name: "gpu", kubeletVersion: "1.29.4" },
      rollbackTo: { name: "gpu", kubeletVersion: "1.28.9" },
      profile: "strict",
    });
    assert.deepEqual(
      bulletCodes(answer),
      expected.findings.map((finding) => finding.code),
    );
    assert.equal(bulletCodes(answer)[0], "ROLLBACK_TRAP");
    assert.match(
      sectionTexts(answer.blocks),
      /• 🔴 `ROLLBACK_TRAP` rolling gpu back to kubelet 1\.28\.9 would leave its nodes unable to join the 1\.30 control plane/,
    );
    assert.deepEqual(stepLines(answer), [
      `1. *drain* — ${expected.steps[0]!.note}`,
      `2. *kubelet 1.29.4 → 1.28.9* — ${expected.steps[1]!.note}`,
      `3. *uncordon* — ${expected.steps[2]!.note}`,
    ]);
    assert.match(sectionTexts(answer.blocks), /^\*Steps back\*$/m);
    assert.deepEqual(contextTexts(answer).slice(1), ["profile strict", "control plane 1.30"]);
  });

  it("lets the same rollback through under the upstream profile (n-3)", async () => {
    const answer = await slack(
      "nodepool rollback cp=1.30 name=gpu from kubelet=1.29.4 to kubelet=1.28.9",
    );
    assert.equal(headline(answer), "⚠️ Node pool gpu: rollback supported, with warnings");
    assert.ok(!bulletCodes(answer).includes("ROLLBACK_TRAP"));
    assert.deepEqual(contextTexts(answer).slice(1), ["profile upstream", "control plane 1.30"]);
  });

  it("answers a malformed nodepool command with 200 and the nodepool usage", async () => {
    const answer = await slack("nodepool check cp=1.30 from kubelet=1.29.4 proxy=ipvs");
    assert.equal(headline(answer), "🤔 I did not understand that nodepool check command");
    const sections = sectionTexts(answer.blocks);
    assert.match(sections, /say what the pool becomes after to, e\.g\. to kubelet=1\.30\.1\./);
    assert.match(
      sections,
      /Usage: `\/kubecompat nodepool check cp=1\.30 \[profile=strict\] \[platform=eks\] \[asof=2026-12-01\] from kubelet=1\.29\.4 .* to kubelet=1\.30\.1 /,
    );

    const rollback = await slack("nodepool rollback from kubelet=1.29.4 to kubelet=1.28.9");
    assert.equal(headline(rollback), "🤔 I did not understand that nodepool rollback command");
    assert.match(
      sectionTexts(rollback.blocks),
      /Usage: `\/kubecompat nodepool rollback cp=1\.30 \[profile=strict\] \[platform=eks\] \[asof=2026-12-01\] from kubelet=1\.29\.4 to kubelet=1\.28\.9`/,
    );
  });

  it("answers what the domain refuses with its message, naming the field, and the usage", async () => {
    const answer = await slack(
      "nodepool check cp=1.30 from kubelet=1.29.4 to kubelet=1.30.1 proxy=ebpf",
    );
    assert.equal(headline(answer), "⚠️ I could not answer that");
    const sections = sectionTexts(answer.blocks);
    assert.match(
      sections,
      /^>to\.kubeProxyMode "ebpf" is not one of iptables, ipvs, nftables, kernelspace, userspace/m,
    );
    assert.match(sections, /Usage: `\/kubecompat nodepool check /);
  });

  it("lists both nodepool forms and the pool words in help", async () => {
    const answer = await slack("help");
    const sections = sectionTexts(answer.blocks);
    assert.match(
      sections,
      /• `\/kubecompat nodepool check cp=1\.30 \[profile=strict\] \[platform=eks\] \[asof=2026-12-01\] from .*` — can a node pool/,
    );
    assert.match(
      sections,
      /• `\/kubecompat nodepool rollback cp=1\.30 \[profile=strict\] \[platform=eks\] \[asof=2026-12-01\] from kubelet=1\.29\.4 to kubelet=1\.28\.9` — can a node pool go back/,
    );
    assert.match(sections, /`proxy=nftables` \(the mode; `kube-proxy=1\.30\.1` its version\)/);
  });

  it("answers bots on /chatops/command with Markdown and the same blocks", async () => {
    const text = "nodepool rollback cp=1.30 profile=strict from kubelet=1.29.4 to kubelet=1.28.9";
    const response = await request(app)
      .post("/chatops/command")
      .set("Authorization", `Bearer ${TOKEN}`)
      .send({ text });
    assert.equal(response.status, 200, response.text);
    assert.match(response.body.text, /^\*\*❌ Node pool rollback not supported as asked\*\*\n/);
    assert.match(response.body.text, /^- 🔴 `ROLLBACK_TRAP` /m);
    assert.match(response.body.text, /^\*\*Steps back\*\*\n1\. \*\*drain\*\* — /m);
    // The blocks do not depend on the face; only Slack prefixes usage lines with the slash command.
    assert.deepEqual(response.body.blocks, (await slack(text)).blocks);
  });
});
