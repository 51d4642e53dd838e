/**
 * Proposals end to end against a real PostgreSQL: a kubernetes/api
 * look-alike built here gains a removal marker upstream, `kb:derive
 * --propose` files it once, a reviewer approves it over REST and a scan's
 * answer changes; a rejected proposal stays rejected; an update derived
 * against a record edited since is a conflict; bad input is a clear 4xx.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { fileProposals, type ProposalToFile } from "../src/db/proposal-store.js";
import { proposalFingerprint } from "../src/services/proposals.js";
import { derive, git, releaseWidgets, WIDGETS, type TypeSpec } from "./support/kb-derive.js";
import {
  REPO_ROOT,
  createTestToken,
  startTestRuntime,
  type TestRuntime,
} from "./support/runtime.js";

const GIZMO = `${WIDGETS}/v1alpha1 Gizmo`;
const GADGET = `${WIDGETS}/v1alpha1 Gadget`;

/** A create proposal filed straight into the store, as a derivation would file it. */
function toFile(
  change: Pick<ProposalToFile, "entity" | "key" | "action" | "record" | "changedFields">,
  problems: ProposalToFile["problems"] = [],
): ProposalToFile {
  return {
    ...change,
    baseRevision: null,
    problems,
    source: "a test",
    sourceRevision: "2026-12-06",
    derivation: "test",
    fingerprint: proposalFingerprint(change),
  };
}

const GIZMO_MANIFEST = `apiVersion: ${WIDGETS}/v1alpha1
kind: Gizmo
metadata:
  name: spinner
`;

describe("proposals from upstream, reviewed over REST", () => {
  let runtime: TestRuntime;
  let work: string;
  let apiRepo: string;
  let editor: string;
  let reader: string;
  const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

  const release = (tag: string, widgets: Readonly<Record<string, TypeSpec>>): string =>
    releaseWidgets(apiRepo, tag, widgets);

  const propose = () =>
    derive(["--propose", "--kubernetes-api", apiRepo], { DATABASE_URL: runtime.database.url });

  async function proposals(status = "all") {
    const list = await request(runtime.app).get(`/api/v1/proposals?status=${status}`).expect(200);
    return list.body.items as Array<Record<string, unknown> & { id: number; key: string }>;
  }

  async function removal(key: string) {
    const list = await request(runtime.app).get("/api/v1/api-removals").expect(200);
    return (list.body.items as Array<Record<string, unknown>>).find(
      (item) => `${String(item.apiVersion)} ${String(item.kind)}` === key,
    );
  }

  before(async () => {
    runtime = await startTestRuntime();
    editor = await createTestToken(runtime, "reviewer", "editor");
    reader = await createTestToken(runtime, "onlooker", "reader");
    work = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-proposals-"));
    apiRepo = path.join(work, "api");
    fs.mkdirSync(apiRepo);
    git(apiRepo, ["init", "-q", "-b", "master"]);
    release("kubernetes-1.33.0", {});
  });
  after(async () => {
    await runtime.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("files one proposal for a removal marker added upstream, and never the same change twice", async () => {
    const quiet = await propose();
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.match(quiet.stdout, /filed 0 proposals, 0 already proposed \(or decided\)/);

    const commit = release("kubernetes-1.34.0", {
      Gizmo: { introduced: 30, deprecated: 33, removed: 36 },
    });
    // Without --propose it only reports: nothing is filed.
    const report = await derive(["--kubernetes-api", apiRepo], {
      DATABASE_URL: runtime.database.url,
    });
    assert.equal(report.code, 1, report.stderr);
    assert.deepEqual(await proposals(), []);

    const filed = await propose();
    assert.equal(filed.code, 0, filed.stderr);
    assert.match(filed.stdout, /filed 1 proposal, 0 already proposed/);
    const [gizmo, ...others] = await proposals("open");
    assert.deepEqual(others, []);
    assert.equal(gizmo!.key, GIZMO);
    assert.equal(gizmo!.entity, "apiRemovals");
    assert.equal(gizmo!.action, "create");
    assert.equal(gizmo!.status, "OPEN");
    assert.equal(gizmo!.derivation, "kubernetes-api-lifecycle");
    assert.equal(gizmo!.sourceRevision, commit);
    assert.equal(gizmo!.baseRevision, null);
    assert.equal((gizmo!.record as { removedIn: string }).removedIn, "1.36");
    assert.deepEqual(gizmo!.problems, []);

    const again = await propose();
    assert.match(again.stdout, /filed 0 proposals, 1 already proposed/);
    // A later upstream commit stating the same facts (another tag, another blob URL) is the same change.
    release("kubernetes-1.35.0", { Gizmo: { introduced: 30, deprecated: 33, removed: 36 } });
    const later = await propose();
    assert.match(later.stdout, /filed 0 proposals, 1 already proposed/);
    assert.equal((await proposals()).length, 1);
  });

  it("applies an approved proposal as an edit: the record is in the kb and a scan's answer changes", async () => {
    const [gizmo] = await proposals("open");
    const scan = () =>
      request(runtime.app)
        .post("/api/v1/scan")
        .send({ manifests: GIZMO_MANIFEST, targetVersion: "1.36" })
        .expect(200);
    const before = (await scan()).body;
    assert.equal(await removal(GIZMO), undefined);

    await request(runtime.app).post(`/api/v1/proposals/${gizmo!.id}/approve`).expect(401);
    const weak = await request(runtime.app)
      .post(`/api/v1/proposals/${gizmo!.id}/approve`)
      .set(bearer(reader))
      .expect(403);
    assert.equal(weak.body.error.code, "FORBIDDEN");
    const approved = await request(runtime.app)
      .post(`/api/v1/proposals/${gizmo!.id}/approve`)
      .set(bearer(editor))
      .expect(200);
    assert.equal(approved.body.item.status, "APPROVED");
    assert.equal(approved.body.item.decidedBy, "reviewer");
    assert.equal(approved.body.item.appliedRevision, approved.body.kbRevision);

    const record = await removal(GIZMO);
    assert.equal(record?.removedIn, "1.36");
    // Before: an API the knowledge base knew nothing of; after: a removed one, an error at 1.36.
    assert.deepEqual(before.findings, []);
    assert.equal(before.status, "NOT_JUDGED");
    const after = (await scan()).body as {
      status: string;
      findings: Array<{ code: string; severity: string; message: string }>;
    };
    assert.equal(after.status, "UNSUPPORTED", JSON.stringify(after));
    assert.ok(
      after.findings.some(
        (finding) => finding.severity === "ERROR" && /Gizmo/.test(finding.message),
      ),
      JSON.stringify(after.findings),
    );

    const twice = await request(runtime.app)
      .post(`/api/v1/proposals/${gizmo!.id}/approve`)
      .set(bearer(editor))
      .expect(409);
    assert.match(twice.body.error.message, /already approved by reviewer/);
  });

  it("keeps a rejection and its reason through the next --propose", async () => {
    release("kubernetes-1.36.0", {
      Gizmo: { introduced: 30, deprecated: 33, removed: 36 },
      Gadget: { introduced: 31, deprecated: 34, removed: 37 },
    });
    assert.match((await propose()).stdout, /filed 1 proposal, 0 already proposed/);
    const gadget = (await proposals("open")).find((entry) => entry.key === GADGET)!;
    const empty = await request(runtime.app)
      .post(`/api/v1/proposals/${gadget.id}/reject`)
      .set(bearer(editor))
      .send({ reason: "  " })
      .expect(400);
    assert.match(empty.body.error.message, /reason/);
    const long = await request(runtime.app)
      .post(`/api/v1/proposals/${gadget.id}/reject`)
      .set(bearer(editor))
      .send({ reason: "x".repeat(501) })
      .expect(400);
    assert.equal(long.body.error.code, "BAD_USER_INPUT");
    const rejected = await request(runtime.app)
      .post(`/api/v1/proposals/${gadget.id}/reject`)
      .set(bearer(editor))
      .send({ reason: "widgets are not part of any distribution we run" })
      .expect(200);
    assert.equal(rejected.body.item.status, "REJECTED");

    const next = await propose();
    assert.match(next.stdout, /filed 0 proposals, 1 already proposed \(or decided\)/);
    const kept = await request(runtime.app).get(`/api/v1/proposals/${gadget.id}`).expect(200);
    assert.equal(kept.body.item.status, "REJECTED");
    assert.equal(kept.body.item.reason, "widgets are not part of any distribution we run");
    assert.equal(await removal(GADGET), undefined);
    const again = await request(runtime.app)
      .post(`/api/v1/proposals/${gadget.id}/approve`)
      .set(bearer(editor))
      .expect(409);
    assert.match(
      again.body.error.message,
      /already rejected by reviewer .*not part of any distribution/,
    );
  });

  it("reports an update derived against a record edited since as a conflict, and applies nothing", async () => {
    release("kubernetes-1.37.0", {
      Gizmo: { introduced: 30, deprecated: 33, removed: 37 },
      Gadget: { introduced: 31, deprecated: 34, removed: 37 },
    });
    assert.match((await propose()).stdout, /filed 1 proposal/);
    const update = (await proposals("open")).find((entry) => entry.key === GIZMO)!;
    assert.equal(update.action, "update");
    assert.ok(
      (update.changedFields as string[]).includes("removedIn"),
      String(update.changedFields),
    );
    const current = (await removal(GIZMO))!;
    assert.equal(update.baseRevision, current.revision);

    await request(runtime.app)
      .put(`/api/v1/api-removals/${encodeURIComponent(GIZMO)}`)
      .set(bearer(editor))
      .send({ ...current, notes: "Checked by hand: the widgets team moves Gizmo to v1beta1." })
      .expect(200);
    const kbRevision = (await request(runtime.app).get("/api/v1/api-removals").expect(200)).body
      .kbRevision as number;

    const one = await request(runtime.app)
      .post(`/api/v1/proposals/${update.id}/approve`)
      .set(bearer(editor))
      .expect(409);
    assert.equal(one.body.error.code, "CONFLICT");
    assert.match(one.body.error.message, /changed it since/);
    const batch = await request(runtime.app)
      .post("/api/v1/proposals/approve")
      .set(bearer(editor))
      .send({ ids: [update.id] })
      .expect(200);
    assert.equal(batch.body.items[0].approved, false);
    assert.equal(batch.body.items[0].error.code, "CONFLICT");
    assert.equal(batch.body.kbRevision, kbRevision);

    const after = (await removal(GIZMO))!;
    assert.equal(after.removedIn, "1.36");
    assert.match(String(after.notes), /Checked by hand/);
    const still = await request(runtime.app).get(`/api/v1/proposals/${update.id}`).expect(200);
    assert.equal(still.body.item.status, "OPEN");
  });

  it("needs the reviewer's finished record for a proposal with problems, and approves several in one go", async () => {
    const unfinished = {
      entity: "apiRemovals",
      key: `${WIDGETS}/v1alpha1 Doohickey`,
      action: "create" as const,
      record: {
        apiVersion: `${WIDGETS}/v1alpha1`,
        group: WIDGETS,
        version: "v1alpha1",
        kind: "Doohickey",
        removedIn: null,
      },
      changedFields: [],
    };
    const [filed] = await fileProposals(runtime.db, [
      toFile(unfinished, [{ field: "removedIn", message: "not derived; fill in" }]),
    ]);
    const asIs = await request(runtime.app)
      .post(`/api/v1/proposals/${filed!.id}/approve`)
      .set(bearer(editor))
      .expect(400);
    assert.match(asIs.body.error.message, /cannot be applied as it is: fill in removedIn/);
    const bad = await request(runtime.app)
      .post("/api/v1/proposals/approve")
      .set(bearer(editor))
      .send({ ids: [filed!.id, 999_999] })
      .expect(404);
    assert.match(bad.body.error.message, /999999; nothing was applied/);
    const finished = {
      ...unfinished.record,
      removedIn: "1.38",
      sourceUrl: "https://example.com/doohickey",
    };
    const approved = await request(runtime.app)
      .post(`/api/v1/proposals/${filed!.id}/approve`)
      .set(bearer(editor))
      .send({ record: finished })
      .expect(200);
    assert.equal(approved.body.item.status, "APPROVED");
    assert.equal((await removal(unfinished.key))?.removedIn, "1.38");

    // Two finished proposals approved together: one group, consecutive revisions, both applied.
    const kinds = ["Thingamajig", "Whatsit"];
    const clean = kinds.map((kind) =>
      toFile({
        entity: "apiRemovals",
        key: `${WIDGETS}/v1alpha1 ${kind}`,
        action: "create" as const,
        record: { ...finished, kind, sourceUrl: `https://example.com/${kind}` },
        changedFields: [],
      }),
    );
    const both = await fileProposals(runtime.db, clean);
    assert.equal(both.length, 2);
    const together = await request(runtime.app)
      .post("/api/v1/proposals/approve")
      .set(bearer(editor))
      .send({ ids: both.map((entry) => entry.id) })
      .expect(200);
    const items = together.body.items as Array<{
      approved: boolean;
      item: { appliedRevision: number };
    }>;
    assert.deepEqual(
      items.map((item) => item.approved),
      [true, true],
    );
    assert.equal(items[1]!.item.appliedRevision, items[0]!.item.appliedRevision + 1);
    assert.equal(together.body.kbRevision, items[1]!.item.appliedRevision);
    for (const kind of kinds) assert.ok(await removal(`${WIDGETS}/v1alpha1 ${kind}`), kind);
  });

  it("files endoflife.date's differences as updates dated the day they were read, and applies a retirement", async () => {
    const endoflife = path.join(REPO_ROOT, "test", "fixtures", "derive", "kubernetes.json");
    const filed = await derive(["--propose", "--endoflife", endoflife], {
      DATABASE_URL: runtime.database.url,
    });
    assert.equal(filed.code, 0, filed.stderr);
    const releases = (await proposals("open")).filter((entry) => entry.entity === "releases");
    assert.match(filed.stdout, new RegExp(`filed ${releases.length} proposals?, 0 already`));
    assert.ok(releases.length > 0, filed.stdout);
    for (const entry of releases) {
      assert.equal(entry.action, "update");
      assert.equal(entry.derivation, "endoflife-kubernetes");
      assert.match(String(entry.sourceRevision), /^\d{4}-\d{2}-\d{2}$/);
      assert.ok((entry.changedFields as string[]).length > 0);
    }

    const key = `${WIDGETS}/v1alpha1 Thingamajig`;
    const current = (await removal(key))!;
    const [retire] = await fileProposals(runtime.db, [
      {
        ...toFile({
          entity: "apiRemovals",
          key,
          action: "retire",
          record: null,
          changedFields: [],
        }),
        baseRevision: current.revision as number,
      },
    ]);
    const retired = await request(runtime.app)
      .post(`/api/v1/proposals/${retire!.id}/approve`)
      .set(bearer(editor))
      .expect(200);
    assert.equal(retired.body.item.status, "APPROVED");
    assert.equal(await removal(key), undefined);
  });

  it("answers bad input with clear 4xx errors", async () => {
    const missing = await request(runtime.app).get("/api/v1/proposals/999999").expect(404);
    assert.equal(missing.body.error.code, "NOT_FOUND");
    assert.match(missing.body.error.message, /no proposal has the id 999999/);
    const notAnId = await request(runtime.app)
      .post("/api/v1/proposals/abc/approve")
      .set(bearer(editor))
      .expect(400);
    assert.match(notAnId.body.error.message, /not a proposal id/);
    const status = await request(runtime.app).get("/api/v1/proposals?status=pending").expect(400);
    assert.match(status.body.error.message, /status/);
    const none = await request(runtime.app)
      .post("/api/v1/proposals/approve")
      .set(bearer(editor))
      .send({ ids: [] })
      .expect(400);
    assert.equal(none.body.error.code, "BAD_USER_INPUT");
    const unknownReject = await request(runtime.app)
      .post("/api/v1/proposals/999999/reject")
      .set(bearer(editor))
      .send({ reason: "no such thing" })
      .expect(404);
    assert.equal(unknownReject.body.error.code, "NOT_FOUND");
    const noDatabase = await derive(["--propose", "--kubernetes-api", apiRepo], {
      DATABASE_URL: undefined,
    });
    assert.equal(noDatabase.code, 2);
    assert.match(noDatabase.stderr, /--propose files proposals into a database: set DATABASE_URL/);
  });
});
