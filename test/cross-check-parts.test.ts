/**
 * The cross-check remembers each of its parts for the frozen lists it read,
 * and snapshots after an edit reuse the lists of the kinds the edit did not
 * touch. These tests hold both to giving what checking everything again
 * gives: after a clean check has been remembered, an edit that breaks a rule
 * through any kind a part reads must still be found (a part remembered for
 * too few of its lists would answer "clean" from memory: a false green), and
 * findings carried over from the list an edit's list was made from
 * (src/knowledge/lists.ts) must be those of checking that list afresh.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { KbBundle } from "../src/knowledge/records.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import { crossCheckBundle } from "../src/knowledge/validate.js";
import { ENTITY_NAMES } from "../src/knowledge/registry.js";
import {
  derivationOf,
  keyIndexOf,
  withAppended,
  withRemoved,
  withReplaced,
} from "../src/knowledge/lists.js";
import { KB_DIR } from "./support/runtime.js";
import { collectGarbage } from "./support/collect.js";

type Lists = Record<keyof KbBundle, readonly object[]>;

/** The same bundle with every list a new, unfrozen copy: nothing of it can come from memory. */
function unremembered(bundle: KbBundle): KbBundle {
  return Object.fromEntries(
    ENTITY_NAMES.map((entity) => [entity, [...(bundle[entity] as readonly object[])]]),
  ) as unknown as KbBundle;
}

/** The snapshot's lists with one kind replaced by a frozen list, as an edit's check sees them. */
function edited<E extends keyof KbBundle>(
  snapshot: KbSnapshot,
  entity: E,
  change: (records: KbBundle[E]) => KbBundle[E],
): KbBundle {
  const lists = Object.fromEntries(
    ENTITY_NAMES.map((name) => [name, snapshot.records(name)]),
  ) as unknown as Lists;
  return {
    ...lists,
    [entity]: Object.freeze(change(snapshot.records(entity))),
  } as unknown as KbBundle;
}

describe("the cross-check's remembered parts", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = new KbSnapshot(await loadKbDirectory(KB_DIR), { revision: 1, lastImportAt: null });
    // Remembers every part clean for the snapshot's lists.
    assert.deepEqual(crossCheckBundle(snapshot), []);
  });

  // Each edit breaks a rule through a kind that a part reads besides the one whose records it reports.
  const breaks: Array<[string, (snapshot: KbSnapshot) => KbBundle, RegExp]> = [
    [
      "a component renamed (every part naming components reads them)",
      (s) =>
        edited(s, "components", (records) =>
          records.map((c) => (c.name === "kubelet" ? { ...c, name: "kubelet-renamed" } : c)),
        ),
      /names unknown component "kubelet"/,
    ],
    [
      "a recommendation naming no component",
      (s) =>
        edited(s, "recommendations", (records) => [
          ...records,
          { ...records[0]!, id: "naming-nobody", components: ["no-such-component"] },
        ]),
      /names unknown component "no-such-component"/,
    ],
    [
      "a duplicate key",
      (s) => edited(s, "ports", (records) => [...records, records[0]!]),
      /must be unique/,
    ],
    [
      "a behaviour change that a controller names, retired",
      (s) => {
        const named = s.controllers.flatMap((controller) => controller.behaviourChanges)[0];
        assert.ok(named !== undefined, "kb/ has a controller naming a behaviour change");
        return edited(s, "behaviourChanges", (records) =>
          records.filter((change) => change.id !== named),
        );
      },
      /names behaviour change/,
    ],
    [
      "the upstream profile retired",
      (s) =>
        edited(s, "profiles", (records) =>
          records.filter((profile) => profile.name !== "upstream"),
        ),
      /must define the default profile "upstream"/,
    ],
    [
      "an upgrade edge that closes a cycle",
      (s) => {
        const edge = s.upgradeDependencies[0]!;
        return edited(s, "upgradeDependencies", (records) => [
          ...records,
          { ...edge, before: edge.after, after: edge.before },
        ]);
      },
      /the upgrade order has a cycle/,
    ],
    [
      "the release a coverage claim relies on, retired",
      (s) => {
        // The claim's own kind changes nothing; the releases it is judged by do (a claim backed by its source's date).
        for (const claim of s.coverage) {
          const bundle = edited(s, "releases", (records) =>
            records.filter((release) => release.version !== claim.throughMinor),
          );
          if (crossCheckBundle(unremembered(bundle)).length > 0) return bundle;
        }
        return assert.fail("kb/ has no coverage claim backed by its release's date alone");
      },
      /claims \w+ through/,
    ],
  ];

  for (const [what, edit, expected] of breaks) {
    it(`finds ${what} after the clean check was remembered`, () => {
      const bundle = edit(snapshot);
      const fromMemory = crossCheckBundle(bundle);
      const fromScratch = crossCheckBundle(unremembered(bundle));
      assert.ok(fromScratch.length > 0, `the edit breaks no rule checked from scratch (${what})`);
      assert.deepEqual(fromMemory, fromScratch);
      assert.match(fromMemory.map((issue) => issue.message).join("\n"), expected);
      // And the snapshot's own lists are still clean from memory afterwards.
      assert.deepEqual(crossCheckBundle(snapshot), []);
    });
  }

  it("carries findings over lists made one edit at a time, as a check from scratch finds them", () => {
    // A chain of edits of recommendations, some breaking a rule, some mending it, each list made from the one before.
    type Recommendation = KbBundle["recommendations"][number];
    const good = snapshot.recommendations[0]!;
    const bad = (id: string): Recommendation => ({
      ...good,
      id,
      components: ["kubelet", `missing-${id}`],
    });
    let list: readonly Recommendation[] = snapshot.recommendations;
    const steps: Array<
      [string, (records: readonly Recommendation[]) => readonly Recommendation[]]
    > = [
      ["append a bad one", (records) => withAppended(records, bad("r1"))],
      ["append a good one", (records) => withAppended(records, { ...good, id: "r2" })],
      ["append another bad one", (records) => withAppended(records, bad("r3"))],
      [
        "mend the first bad one in its place",
        (records) =>
          withReplaced(
            records,
            records.findIndex((r) => r.id === "r1"),
            { ...good, id: "r1" },
          ),
      ],
      [
        "break a record of kb/ in its place",
        (records) => withReplaced(records, 0, { ...bad("r0"), id: good.id }),
      ],
      [
        "append one whose key comes twice",
        (records) => withAppended(records, { ...good, id: "r2" }),
      ],
      ["retire the duplicate again", (records) => withRemoved(records, records.length - 1)],
      ["append after a retirement", (records) => withAppended(records, bad("r4"))],
    ];
    let found = 0;
    for (const [what, step] of steps) {
      list = step(list);
      const bundle = edited(snapshot, "recommendations", () => list as never);
      // Only every other list is checked, so that findings are carried over lists nobody checked (as a snapshot's are).
      if (what.startsWith("append a good")) continue;
      const fromMemory = crossCheckBundle(bundle);
      const fromScratch = crossCheckBundle(unremembered(bundle));
      assert.deepEqual(fromMemory, fromScratch, what);
      assert.deepEqual(
        new Map(keyIndexOf("recommendations", list).entries()),
        new Map(keyIndexOf("recommendations", [...list]).entries()),
        `${what}: the index of keys`,
      );
      found += fromScratch.length;
    }
    assert.ok(found >= 6, `the chain broke rules (${found} findings)`);
  });

  it("keeps the index of keys right over long runs of appended records (its layers folded as they grow)", () => {
    type Recommendation = KbBundle["recommendations"][number];
    const good = snapshot.recommendations[0]!;
    let list: readonly Recommendation[] = snapshot.recommendations;
    keyIndexOf("recommendations", list);
    for (let step = 0; step < 150; step += 1) {
      list = withAppended(list, { ...good, id: `run-${step}` });
      // Asked about every third list only: the others are carried over unasked, as a snapshot's are.
      if (step % 3 !== 2) continue;
      const index = keyIndexOf("recommendations", list);
      assert.equal(index.size, list.length);
      assert.equal(index.get(`run-${step}`), list.length - 1);
      assert.equal(index.get(`run-${step + 1}`), undefined);
      assert.deepEqual(
        new Map(index.entries()),
        new Map(keyIndexOf("recommendations", [...list]).entries()),
      );
    }
    // A key that comes twice: fewer keys than records, and the first record keeps the key.
    const twice = withAppended(list, { ...good, id: "run-7" });
    assert.equal(keyIndexOf("recommendations", twice).size, twice.length - 1);
    assert.equal(
      keyIndexOf("recommendations", twice).get("run-7"),
      list.findIndex((record) => record.id === "run-7"),
    );
  });

  it("lets the lists of earlier snapshots go: a list made from another does not keep it alive", async () => {
    // Each snapshot's list is made from the one before; held strongly, that link would keep every list a
    // kind ever had (tens of megabytes an hour at tens of edits a second).
    const good = snapshot.recommendations[0]!;
    let current = new KbSnapshot(
      edited(snapshot, "recommendations", (records) => [...records]),
      { revision: 1, lastImportAt: null },
    );
    const first = new WeakRef(current.recommendations);
    for (let step = 0; step < 20; step += 1) {
      const lists = Object.fromEntries(
        ENTITY_NAMES.map((name) => [name, current.records(name)]),
      ) as unknown as KbBundle;
      const next = withAppended(current.recommendations, { ...good, id: `gone-${step}` });
      assert.deepEqual(crossCheckBundle({ ...lists, recommendations: next }), []);
      current = new KbSnapshot(
        { ...lists, recommendations: next },
        { revision: step + 2, lastImportAt: null },
      );
    }
    assert.equal(current.recommendations.length, snapshot.recommendations.length + 20);
    for (let attempt = 0; attempt < 10 && first.deref() !== undefined; attempt += 1)
      await collectGarbage();
    assert.equal(
      first.deref(),
      undefined,
      "the first snapshot's list is still reachable from the newest",
    );
  });

  it("holds none of a group's steps once the snapshot after it is made: its last list is linked to the snapshot's", async () => {
    // A group of three creates, judged one after another as the curator does (each step's index of keys and
    // cross-check worked out); the steps between must not outlive the group.
    const good = snapshot.recommendations[0]!;
    const lists = Object.fromEntries(
      ENTITY_NAMES.map((name) => [name, snapshot.records(name)]),
    ) as unknown as KbBundle;
    let list: readonly object[] = snapshot.recommendations;
    const steps: Array<WeakRef<readonly object[]>> = [];
    for (const id of ["step-a", "step-b", "step-c"]) {
      list = withAppended(list, { ...good, id });
      assert.deepEqual(
        crossCheckBundle({ ...lists, recommendations: list as KbBundle["recommendations"] }),
        [],
      );
      keyIndexOf("recommendations", list);
      steps.push(new WeakRef(list));
    }
    const last = list;
    const derivation = derivationOf(last);
    assert.equal(
      derivation?.from,
      snapshot.recommendations,
      "linked to the snapshot's list, past the steps",
    );
    assert.deepEqual(
      derivation.changes.map((change) => change.index),
      [0, 1, 2].map((step) => snapshot.recommendations.length + step),
    );
    // The snapshot after the group's commit holds its last list (and settles it).
    const next = new KbSnapshot(
      { ...lists, recommendations: last as KbBundle["recommendations"] },
      { revision: 2, lastImportAt: null },
    );
    list = snapshot.recommendations;
    for (
      let attempt = 0;
      attempt < 10 && steps.slice(0, 2).some((step) => step.deref() !== undefined);
      attempt += 1
    )
      await collectGarbage();
    assert.deepEqual(
      steps.slice(0, 2).map((step) => step.deref() === undefined),
      [true, true],
      "a step of the group is still reachable",
    );
    // What the last list's index of keys and cross-check hold is still right, carried or built afresh.
    assert.deepEqual(
      new Map(keyIndexOf("recommendations", next.recommendations).entries()),
      new Map(keyIndexOf("recommendations", [...last]).entries()),
    );
    assert.deepEqual(crossCheckBundle(next), crossCheckBundle(unremembered(next)));
  });

  it("gives a snapshot built on another's lists the same records, sharing the lists it did not change", () => {
    const bundle = edited(snapshot, "recommendations", (records) => [
      ...records,
      { ...records[0]!, id: "shared-lists" },
    ]);
    const next = new KbSnapshot(bundle, { revision: 2, lastImportAt: null });
    const fresh = new KbSnapshot(unremembered(bundle), { revision: 2, lastImportAt: null });
    for (const entity of ENTITY_NAMES) {
      assert.deepEqual(next.records(entity), fresh.records(entity), entity);
      if (entity !== "recommendations")
        assert.equal(
          next.records(entity),
          snapshot.records(entity),
          `${entity} is the previous snapshot's list`,
        );
    }
    assert.notEqual(next.recommendations, snapshot.recommendations);
    assert.deepEqual(next.upgradeOrder, fresh.upgradeOrder);
    assert.equal(
      next.findComponent("kubelet"),
      fresh.findComponent("kubelet") ?? assert.fail("kubelet"),
    );
  });
});
