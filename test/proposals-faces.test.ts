/**
 * The review queue on GraphQL and in chat, against a real PostgreSQL: a
 * kubernetes/api look-alike gains removal markers upstream, `kb:derive
 * --propose` files them, and a reviewer lists, shows, approves (a scan's
 * answer changes) and rejects (the reason is kept) over GraphQL and in Slack
 * (signed requests, as Slack sends them); callers who may not decide are
 * refused, and bad ids get clear errors.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { fileProposals } from "../src/db/proposal-store.js";
import { WIDGETS, removalProposal } from "./support/proposals.js";
import { derive, git, writeRelease, type PackageSpec, type TypeSpec } from "./support/kb-derive.js";
import { createTestToken, startTestRuntime, type TestRuntime } from "./support/runtime.js";
import { slackBody, slackSignature, unixNow } from "./support/slack-request.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL's and REST's JSON, read field by field in assertions
type Json = Record<string, any>;

const GIZMO = `${WIDGETS}/v1alpha1 Gizmo`;
const GADGET = `${WIDGETS}/v1alpha1 Gadget`;
const SECRET = "faces-signing-secret-0123456789";
const BOT_TOKEN = "faces-bot-token-0123456789abcdef";
const REVIEWER = "U0REVIEWER";
/** The user of test/fixtures/slack/slash-command.form: not a reviewer. */
const BYSTANDER = "U2147483697";

function upstream(widgets: Readonly<Record<string, TypeSpec>>): PackageSpec[] {
  return [
    {
      dir: "core",
      version: "v1",
      group: "",
      groupIn: "register",
      types: { Pod: { introduced: 0 } },
    },
    { dir: "widgets", version: "v1alpha1", group: WIDGETS, groupIn: "doc", types: widgets },
  ];
}

const manifestOf = (kind: string) => `apiVersion: ${WIDGETS}/v1alpha1
kind: ${kind}
metadata:
  name: spinner
`;

describe("the review queue on GraphQL and in chat", () => {
  let runtime: TestRuntime;
  let work: string;
  let editor: string;
  let reader: string;

  const graphql = async (
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
  ): Promise<{ data?: Json | null; errors?: Json[] }> => {
    const sent = request(runtime.app).post("/graphql").send({ query, variables });
    if (token !== undefined) sent.set("Authorization", `Bearer ${token}`);
    return (await sent).body as { data?: Json | null; errors?: Json[] };
  };

  const scan = async (kind: string) =>
    (
      await request(runtime.app)
        .post("/api/v1/scan")
        .send({ manifests: manifestOf(kind), targetVersion: "1.36" })
        .expect(200)
    ).body as { status: string; findings: Array<{ severity: string; message: string }> };

  /** A signed slash command from `user`, answered as Slack shows it. */
  const slack = async (text: string, user = REVIEWER): Promise<string> => {
    const form = new URLSearchParams(slackBody(text));
    form.set("user_id", user);
    const body = form.toString();
    const timestamp = unixNow();
    const answer = await request(runtime.app)
      .post("/chatops/slack")
      .set("X-Slack-Request-Timestamp", String(timestamp))
      .set("X-Slack-Signature", slackSignature(body, timestamp, SECRET))
      .type("form")
      .send(body)
      .expect(200);
    // What a person reads: the headline and every block's text.
    const blocks = (answer.body as { blocks: Array<{ text?: { text: string } }> }).blocks;
    return blocks.map((block) => block.text?.text ?? "").join("\n");
  };

  const PROPOSAL_FIELDS =
    "id status entity key action changedFields record current baseRevision currentRevision problems { field message } source sourceRevision derivation fingerprint filedAt decidedAt decidedBy reason appliedRevision";

  before(async () => {
    runtime = await startTestRuntime({
      chatops: { slackSigningSecret: SECRET, botToken: BOT_TOKEN, reviewers: [REVIEWER] },
    });
    editor = await createTestToken(runtime, "reviewer", "editor");
    reader = await createTestToken(runtime, "onlooker", "reader");
    work = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-proposal-faces-"));
    const apiRepo = path.join(work, "api");
    fs.mkdirSync(apiRepo);
    git(apiRepo, ["init", "-q", "-b", "master"]);
    writeRelease(apiRepo, upstream({ Gizmo: { introduced: 30, deprecated: 33, removed: 36 } }));
    writeRelease(
      apiRepo,
      upstream({
        Gizmo: { introduced: 30, deprecated: 33, removed: 36 },
        Gadget: { introduced: 31, deprecated: 34, removed: 36 },
      }),
    );
    git(apiRepo, ["add", "-A"]);
    git(apiRepo, ["commit", "-q", "-m", "Sync for kubernetes-1.34.0"]);
    git(apiRepo, ["tag", "kubernetes-1.34.0"]);
    const filed = await derive(["--propose", "--kubernetes-api", apiRepo], {
      DATABASE_URL: runtime.database.url,
    });
    assert.equal(filed.code, 0, filed.stderr);
    assert.match(filed.stdout, /filed 2 proposals/);
  });
  after(async () => {
    await runtime.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("GraphQL: lists the open proposals and shows one with everything REST answers", async () => {
    const listed = await graphql(`{ proposals { ${PROPOSAL_FIELDS} } }`);
    assert.equal(listed.errors, undefined, JSON.stringify(listed.errors));
    const open = listed.data!.proposals as Json[];
    assert.deepEqual(open.map((entry) => String(entry.key)).sort(), [GADGET, GIZMO]);
    const rest = (await request(runtime.app).get("/api/v1/proposals").expect(200)).body.items;
    for (const entry of open) {
      const same = (rest as Json[]).find((item) => String(item.id) === entry.id)!;
      assert.equal(entry.status, "OPEN");
      assert.equal(entry.action, "CREATE");
      assert.equal(entry.derivation, "kubernetes-api-lifecycle");
      assert.equal(entry.sourceRevision, same.sourceRevision);
      assert.equal(entry.source, same.source);
      assert.equal(entry.filedAt, same.createdAt);
      assert.deepEqual(entry.record, same.record);
      assert.equal(entry.current, null);
      assert.equal(entry.decidedBy, null);
    }
    const gizmo = open.find((entry) => entry.key === GIZMO)!;
    const shown = await graphql(
      `
        query ($id: ID!) {
          proposal(id: $id) {
            id
            key
            record
          }
        }
      `,
      {
        id: gizmo.id,
      },
    );
    assert.equal(shown.data!.proposal.key, GIZMO);
    assert.equal(shown.data!.proposal.record.removedIn, "1.36");
  });

  it("GraphQL: refuses to decide without an editor token, and answers bad ids clearly", async () => {
    const { id } = (
      await graphql(`
        {
          proposals {
            id
            key
          }
        }
      `)
    ).data!.proposals[0];
    const approve = `mutation($ids: [ID!]!) { approveProposals(ids: $ids) { kbRevision items { id approved } } }`;
    const anonymous = await graphql(approve, { ids: [id] });
    assert.equal(anonymous.errors?.[0]?.extensions?.code, "UNAUTHENTICATED");
    const weak = await graphql(approve, { ids: [id] }, reader);
    assert.equal(weak.errors?.[0]?.extensions?.code, "FORBIDDEN");
    assert.match(weak.errors[0].message, /editor role/);

    const notAnId = await graphql(`
      {
        proposal(id: "abc") {
          id
        }
      }
    `);
    assert.equal(notAnId.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.match(notAnId.errors[0].message, /"abc" is not a proposal id/);
    const missing = await graphql(`
      {
        proposal(id: "999999") {
          id
        }
      }
    `);
    assert.equal(missing.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.match(missing.errors[0].message, /no proposal has the id 999999/);
    const none = await graphql(approve, { ids: [] }, editor);
    assert.equal(none.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    const unknown = await graphql(approve, { ids: [id, "999999"] }, editor);
    assert.equal(unknown.errors?.[0]?.extensions?.code, "NOT_FOUND");
    assert.match(unknown.errors[0].message, /nothing was applied/);
    const limit = await graphql(`
      {
        proposals(limit: 0) {
          id
        }
      }
    `);
    assert.equal(limit.errors?.[0]?.extensions?.field, "limit");
    const still = await graphql(`
      {
        proposals {
          id
        }
      }
    `);
    assert.equal(still.data!.proposals.length, 2, "nothing was decided");
  });

  it("GraphQL: an approval applies the record (a scan's answer changes); a rejection keeps its reason", async () => {
    const open = (
      await graphql(`
        {
          proposals {
            id
            key
          }
        }
      `)
    ).data!.proposals as Array<{
      id: string;
      key: string;
    }>;
    const gizmo = open.find((entry) => entry.key === GIZMO)!;
    const gadget = open.find((entry) => entry.key === GADGET)!;
    const before = await scan("Gizmo");
    assert.equal(before.status, "NOT_JUDGED");

    const approved = await graphql(
      `
        mutation ($ids: [ID!]!) {
          approveProposals(ids: $ids) {
            kbRevision
            items {
              id
              approved
              error {
                code
              }
              proposal {
                status
                decidedBy
                appliedRevision
                current
                currentRevision
              }
            }
          }
        }
      `,
      { ids: [gizmo.id] },
      editor,
    );
    assert.equal(approved.errors, undefined, JSON.stringify(approved.errors));
    const [outcome] = approved.data!.approveProposals.items;
    assert.equal(outcome.approved, true);
    assert.equal(outcome.proposal.status, "APPROVED");
    assert.equal(outcome.proposal.decidedBy, "reviewer");
    assert.equal(outcome.proposal.appliedRevision, approved.data!.approveProposals.kbRevision);
    assert.equal(outcome.proposal.current.removedIn, "1.36");
    assert.equal(typeof outcome.proposal.currentRevision, "number");
    const after = await scan("Gizmo");
    assert.equal(after.status, "UNSUPPORTED", JSON.stringify(after));
    assert.ok(
      after.findings.some((entry) => entry.severity === "ERROR" && /Gizmo/.test(entry.message)),
    );

    const twice = await graphql(
      `
        mutation ($id: ID!) {
          approveProposal(id: $id) {
            status
          }
        }
      `,
      { id: gizmo.id },
      editor,
    );
    assert.equal(twice.errors?.[0]?.extensions?.code, "CONFLICT");
    assert.match(twice.errors[0].message, /already approved by reviewer/);

    const reject = `mutation($id: ID!, $reason: String!) { rejectProposal(id: $id, reason: $reason) { status reason decidedBy } }`;
    const blank = await graphql(reject, { id: gadget.id, reason: "  " }, editor);
    assert.equal(blank.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.match(blank.errors[0].message, /reason/);
    const rejected = await graphql(
      reject,
      { id: gadget.id, reason: "widgets are not part of any distribution we run" },
      editor,
    );
    assert.equal(rejected.errors, undefined, JSON.stringify(rejected.errors));
    assert.equal(rejected.data!.rejectProposal.status, "REJECTED");
    const kept = await graphql(
      `
        query ($id: ID!) {
          proposal(id: $id) {
            status
            reason
          }
        }
      `,
      {
        id: gadget.id,
      },
    );
    assert.equal(kept.data!.proposal.reason, "widgets are not part of any distribution we run");
    const gadgetScan = await scan("Gadget");
    assert.ok(
      !gadgetScan.findings.some((entry) => /Gadget/.test(entry.message)),
      "a rejected proposal changes nothing",
    );
    const all = await graphql(`
      {
        proposals(status: null) {
          key
          status
        }
      }
    `);
    assert.equal(all.data!.proposals.length, 2);
    assert.deepEqual(
      (
        await graphql(`
          {
            proposals {
              id
            }
          }
        `)
      ).data!.proposals,
      [],
    );
  });

  it("chat: lists the open proposals in short lines and shows one in full, before → after", async () => {
    const [thing] = await fileProposals(runtime.db, [removalProposal("Thingamajig")]);
    const list = await slack("proposals");
    assert.match(list, /1 open proposal/);
    assert.match(
      list,
      new RegExp(`#${thing!.id}\\*? create apiRemovals \`${WIDGETS}/v1alpha1 Thingamajig\``),
    );
    assert.match(list, /new record \(9 fields\) — kubernetes\/api at kubernetes-1\.37\.0/);
    assert.doesNotMatch(list, /Gizmo|Gadget/, "decided proposals are not in the queue");

    const shown = await slack(`proposal #${thing!.id}`);
    assert.match(shown, new RegExp(`Proposal #${thing!.id} \\(open\\): create`));
    assert.match(shown, /removedIn\*?: — → 1\.36/);
    assert.match(
      shown,
      /kubernetes\/api at kubernetes-1\.37\.0 \(82c0029e\), revision `82c0029e5b1d`/,
    );
    assert.match(shown, new RegExp(`approve ${thing!.id}`));
    const decided = await slack(
      `proposal ${
        (
          await graphql(`
            {
              proposals(status: REJECTED) {
                id
              }
            }
          `)
        ).data!.proposals[0].id
      }`,
    );
    assert.match(
      decided,
      /Rejected by reviewer .*: widgets are not part of any distribution we run/,
    );
  });

  it("chat: only a reviewer named in CHATOPS_REVIEWERS decides, as slack:<user id>; a bot never does", async () => {
    const [open] = (
      await graphql(`
        {
          proposals {
            id
            key
          }
        }
      `)
    ).data!.proposals as Array<{
      id: string;
    }>;
    const refused = await slack(`approve ${open!.id}`, BYSTANDER);
    assert.match(refused, /only the Slack users named in CHATOPS_REVIEWERS may approve or reject/);
    assert.match(refused, new RegExp(`now ${REVIEWER}`));
    assert.match(refused, new RegExp(`your member id ${BYSTANDER}`));
    const bot = await request(runtime.app)
      .post("/chatops/command")
      .set("Authorization", `Bearer ${BOT_TOKEN}`)
      .send({ text: `reject ${open!.id} not from a bot` })
      .expect(200);
    assert.match(bot.body.text, /a bot's shared token \(CHATOPS_TOKEN\) names no person/);
    const listedByBot = await request(runtime.app)
      .post("/chatops/command")
      .set("Authorization", `Bearer ${BOT_TOKEN}`)
      .send({ text: "proposals" })
      .expect(200);
    assert.match(listedByBot.body.text, /1 open proposal/, "a bot may read the queue");
    assert.equal(
      (
        await graphql(`
          {
            proposals {
              id
            }
          }
        `)
      ).data!.proposals.length,
      1,
      "nothing decided",
    );

    const before = await scan("Thingamajig");
    assert.ok(!before.findings.some((entry) => /Thingamajig/.test(entry.message)));
    const approved = await slack(`approve ${open!.id}`);
    assert.match(approved, /Approved 1 proposal/);
    assert.match(approved, /applied \(kb revision \d+\)/);
    assert.equal((await scan("Thingamajig")).status, "UNSUPPORTED");
    const stored = await graphql(
      `
        query ($id: ID!) {
          proposal(id: $id) {
            status
            decidedBy
          }
        }
      `,
      {
        id: open!.id,
      },
    );
    assert.deepEqual(stored.data!.proposal, { status: "APPROVED", decidedBy: `slack:${REVIEWER}` });
    // Another text than the first approval: the same signed request within a second would be a replay.
    const twice = await slack(`approve #${open!.id}`);
    assert.match(twice, new RegExp(`already approved by slack:${REVIEWER}`));

    const [doohickey] = await fileProposals(runtime.db, [removalProposal("Doohickey", "1.37")]);
    const rejected = await slack(`reject ${doohickey!.id} Doohickey is a   made-up kind`);
    assert.match(rejected, new RegExp(`Rejected #${doohickey!.id}`));
    const kept = await graphql(
      `
        query ($id: ID!) {
          proposal(id: $id) {
            status
            reason
            decidedBy
          }
        }
      `,
      {
        id: String(doohickey!.id),
      },
    );
    assert.deepEqual(kept.data!.proposal, {
      status: "REJECTED",
      reason: "Doohickey is a made-up kind",
      decidedBy: `slack:${REVIEWER}`,
    });
  });

  it("chat: bad ids and missing words get the command's usage", async () => {
    const notAnId = await slack("approve twelve");
    assert.match(notAnId, /"twelve" is not a proposal id/);
    assert.match(notAnId, /Usage: `\/kubecompat approve 12/);
    assert.match(await slack("proposal"), /give the proposal's id/);
    assert.match(await slack("reject 3"), /give the reason after the id/);
    const missing = await slack("proposal 999999");
    assert.match(missing, /no proposal has the id 999999/);
    const unknownApproval = await slack("approve 999999");
    assert.match(unknownApproval, /no proposal has the id 999999; nothing was applied/);
    const repeated = await slack("approve 5 5");
    assert.match(repeated, /an id is given twice/);
  });

  it("GraphQL: a proposal with problems is approved with the reviewer's finished record", async () => {
    const unfinished = removalProposal("Whatsit");
    const { removedIn: _removedIn, ...record } = unfinished.record as Record<string, unknown>;
    const [whatsit] = await fileProposals(runtime.db, [
      { ...unfinished, record, problems: [{ field: "removedIn", message: "Required" }] },
    ]);
    const approve = `mutation($id: ID!, $record: JSONObject) { approveProposal(id: $id, record: $record) { status record } }`;
    const bare = await graphql(approve, { id: String(whatsit!.id) }, editor);
    assert.equal(bare.errors?.[0]?.extensions?.code, "BAD_USER_INPUT");
    assert.match(bare.errors[0].message, /fill in removedIn/);
    const finished = await graphql(
      approve,
      { id: String(whatsit!.id), record: { ...record, removedIn: "1.38" } },
      editor,
    );
    assert.equal(finished.errors, undefined, JSON.stringify(finished.errors));
    assert.equal(finished.data!.approveProposal.status, "APPROVED");
    const stored = (await request(runtime.app).get("/api/v1/api-removals").expect(200)).body
      .items as Json[];
    assert.equal(stored.find((entry) => entry.kind === "Whatsit")?.removedIn, "1.38");
  });
});
