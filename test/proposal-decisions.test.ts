/**
 * An approval and a rejection of one proposal, at the same moment, from two
 * reviewers: exactly one wins, and what the proposal says agrees with the
 * knowledge base (APPROVED exactly when its record was created; REJECTED
 * exactly when nothing of it was applied). The approval is recorded by the
 * statement that writes its edit, so there is no moment in between.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { fileProposals, type ProposalToFile } from "../src/db/proposal-store.js";
import { proposalFingerprint } from "../src/services/proposals.js";
import { createTestToken, startTestRuntime, type TestRuntime } from "./support/runtime.js";

const WIDGETS = "races.example.k8s.io";

function removalOf(kind: string): ProposalToFile {
  const change = {
    entity: "apiRemovals",
    key: `${WIDGETS}/v1beta1 ${kind}`,
    action: "create" as const,
    record: {
      apiVersion: `${WIDGETS}/v1beta1`,
      group: WIDGETS,
      version: "v1beta1",
      kind,
      deprecatedIn: "1.33",
      removedIn: "1.36",
      replacement: null,
      sourceUrl: `https://example.com/${kind}`,
      notes: null,
    },
    changedFields: [],
  };
  return {
    ...change,
    baseRevision: null,
    problems: [],
    source: "a test",
    sourceRevision: "2026-12-06",
    derivation: "test",
    fingerprint: proposalFingerprint(change),
  };
}

describe("deciding one proposal twice at once", () => {
  let runtime: TestRuntime;
  let alice: string;
  let bob: string;
  before(async () => {
    runtime = await startTestRuntime();
    alice = await createTestToken(runtime, "alice", "editor");
    bob = await createTestToken(runtime, "bob", "editor");
  });
  after(() => runtime.close());

  it("lets exactly one of an approval and a rejection win, and the proposal agrees with the knowledge base", async () => {
    const kinds = Array.from({ length: 12 }, (_, index) => `Racer${index}`);
    const filed = await fileProposals(runtime.db, kinds.map(removalOf));
    assert.equal(filed.length, kinds.length);
    const outcomes = await Promise.all(
      filed.map(async (proposal, index) => {
        const approve = request(runtime.app)
          .post(`/api/v1/proposals/${proposal.id}/approve`)
          .set({ Authorization: `Bearer ${alice}` });
        const reject = request(runtime.app)
          .post(`/api/v1/proposals/${proposal.id}/reject`)
          .set({ Authorization: `Bearer ${bob}` })
          .send({ reason: "raced" });
        // Half start with the approval, half with the rejection.
        const [a, r] =
          index % 2 === 0
            ? await Promise.all([approve, reject])
            : (await Promise.all([reject, approve])).reverse();
        return { id: proposal.id, approved: a!.status, rejected: r!.status, body: a!.body };
      }),
    );
    const removals = (await request(runtime.app).get("/api/v1/api-removals").expect(200)).body
      .items as Array<{ kind: string; group: string }>;
    const stored = new Set(removals.filter((r) => r.group === WIDGETS).map((r) => r.kind));
    for (const [index, outcome] of outcomes.entries()) {
      const statuses = [outcome.approved, outcome.rejected].sort();
      assert.deepEqual(statuses, [200, 409], JSON.stringify(outcome));
      const now = (await request(runtime.app).get(`/api/v1/proposals/${outcome.id}`).expect(200))
        .body.item as { status: string; decidedBy: string; appliedRevision: number | null };
      if (outcome.approved === 200) {
        assert.equal(now.status, "APPROVED");
        assert.equal(now.decidedBy, "alice");
        assert.ok(now.appliedRevision !== null);
        assert.ok(stored.has(kinds[index]!), `${kinds[index]} approved but not in the kb`);
      } else {
        assert.equal(now.status, "REJECTED");
        assert.equal(now.decidedBy, "bob");
        assert.equal(now.appliedRevision, null);
        assert.ok(!stored.has(kinds[index]!), `${kinds[index]} rejected but in the kb`);
      }
    }
  });
});
