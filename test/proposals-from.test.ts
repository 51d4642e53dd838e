/**
 * proposalsFrom (src/services/proposals.ts), pure: kb:derive's derived
 * records against a small knowledge base written here become create and
 * update proposals with the fields that differ, the record's revision, the
 * schema's problems and a fingerprint of the facts (not of where they were read).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KbBundle } from "../src/knowledge/records.js";
import { ENTITY_NAMES } from "../src/knowledge/registry.js";
import { proposalsFrom, type DerivedRecord } from "../src/services/proposals.js";

const CRONJOB = {
  apiVersion: "batch/v1beta1",
  group: "batch",
  version: "v1beta1",
  kind: "CronJob",
  introducedIn: "1.8",
  deprecatedIn: "1.21",
  removedIn: "1.25",
  replacement: "batch/v1",
  replacementAvailableIn: "1.21",
  servedByDefault: true,
  notes: null,
  sourceUrl: "https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-25",
  disagreement: null,
};

/** A knowledge base of one API removal, at revision 3 as the database keeps it. */
function bundle(): KbBundle {
  const empty = Object.fromEntries(ENTITY_NAMES.map((entity) => [entity, []]));
  return { ...empty, apiRemovals: [{ ...CRONJOB, revision: 3 }] } as unknown as KbBundle;
}

const derivedFrom = (records: readonly DerivedRecord[], from = "kubernetes/api at a") =>
  proposalsFrom(
    [{ entity: "apiRemovals", from, proposals: records }],
    "kubernetes-api-lifecycle",
    "abc123",
    bundle(),
  );

describe("proposalsFrom", () => {
  const cases: Array<{
    name: string;
    derived: DerivedRecord;
    expect: { action: string; changedFields: string[]; baseRevision: number | null } | null;
  }> = [
    {
      name: "a changed record: an update of the fields that differ, against its revision",
      derived: {
        change: "changed",
        key: "batch/v1beta1 CronJob",
        record: { ...CRONJOB, removedIn: "1.26" },
      },
      expect: { action: "update", changedFields: ["removedIn"], baseRevision: 3 },
    },
    {
      name: "a changed record equal to the kb's: nothing",
      derived: { change: "changed", key: "batch/v1beta1 CronJob", record: CRONJOB },
      expect: null,
    },
    {
      name: "a new record the kb holds already: only its derived (non-null) values",
      derived: {
        change: "new",
        key: "batch/v1beta1 CronJob",
        record: {
          ...CRONJOB,
          deprecatedIn: "1.22",
          notes: null,
          disagreement: null,
          replacement: null,
        },
      },
      expect: { action: "update", changedFields: ["deprecatedIn"], baseRevision: 3 },
    },
    {
      name: "a new record: a create",
      derived: {
        change: "new",
        key: "batch/v2alpha1 CronJob",
        record: { ...CRONJOB, apiVersion: "batch/v2alpha1", version: "v2alpha1" },
      },
      expect: { action: "create", changedFields: [], baseRevision: null },
    },
  ];
  for (const entry of cases) {
    it(entry.name, () => {
      const proposals = derivedFrom([entry.derived]);
      if (entry.expect === null) {
        assert.deepEqual(proposals, []);
        return;
      }
      assert.equal(proposals.length, 1);
      const [proposal] = proposals;
      assert.equal(proposal!.action, entry.expect.action);
      assert.deepEqual(proposal!.changedFields, entry.expect.changedFields);
      assert.equal(proposal!.baseRevision, entry.expect.baseRevision);
      assert.equal(proposal!.derivation, "kubernetes-api-lifecycle");
      assert.equal(proposal!.sourceRevision, "abc123");
      assert.equal(proposal!.source, "kubernetes/api at a");
      assert.ok(!("revision" in (proposal!.record as object)), "the kb's revision is no field");
      assert.match(proposal!.fingerprint, /^[0-9a-f]{64}$/);
    });
  }

  it("lists the schema's problems: fields left null to fill in", () => {
    const [proposal] = derivedFrom([
      {
        change: "new",
        key: "batch/v2alpha1 CronJob",
        record: { ...CRONJOB, apiVersion: "batch/v2alpha1", version: "v2alpha1", removedIn: null },
      },
    ]);
    assert.deepEqual(
      proposal!.problems.map((problem) => problem.field),
      ["removedIn"],
    );
  });

  it("fingerprints the facts: the same facts read elsewhere match, other facts do not", () => {
    const create = (fields: Record<string, unknown>, from?: string) =>
      derivedFrom(
        [
          {
            change: "new",
            key: "batch/v2alpha1 CronJob",
            record: { ...CRONJOB, apiVersion: "batch/v2alpha1", version: "v2alpha1", ...fields },
          },
        ],
        from,
      )[0]!.fingerprint;
    const first = create({
      sourceUrl: "https://github.com/kubernetes/api/blob/aaa/x.go",
      notes: "at aaa",
    });
    assert.equal(
      create(
        { sourceUrl: "https://github.com/kubernetes/api/blob/bbb/x.go", notes: "at bbb" },
        "b",
      ),
      first,
    );
    assert.notEqual(
      create({ sourceUrl: "https://github.com/kubernetes/api/blob/aaa/x.go", removedIn: "1.26" }),
      first,
    );
    const update = (removedIn: string) =>
      derivedFrom([
        { change: "changed", key: "batch/v1beta1 CronJob", record: { ...CRONJOB, removedIn } },
      ])[0]!.fingerprint;
    assert.equal(update("1.26"), update("1.26"));
    assert.notEqual(update("1.26"), update("1.27"));
    assert.notEqual(update("1.26"), first);
  });
});
