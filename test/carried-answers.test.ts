/**
 * Answers kept across knowledge-base edits (src/knowledge/snapshot-reads.ts, src/services/answer-cache.ts):
 * an answer made through a watching view stays while every part of the snapshot it read is the same, and
 * the revision in it is the one in force. The promise to keep: a remembered answer is always the answer a
 * fresh computation under the snapshot in force gives, byte for byte. So every documented read and check
 * of REST and every playground operation of GraphQL is asked of an app that remembers and of one that does
 * not, first under the reviewed kb/, then after an edit of each kind of knowledge in turn.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createApp } from "../src/app.js";
import { createLogger } from "../src/core/logger.js";
import { PLAYGROUND_EXAMPLES } from "../src/graphql/playground.js";
import { DATABASE_QUERY_FIELDS } from "../src/graphql/remembered-answers.js";
import { validateCluster } from "../src/domain/validate.js";
import { withAppended, withReplaced } from "../src/knowledge/lists.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import type { EntityName, KbBundle } from "../src/knowledge/records.js";
import { ENTITY_NAMES } from "../src/knowledge/registry.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import {
  REVISION_STAND_IN,
  fillRevision,
  fillRevisionIn,
  readsHold,
  watched,
} from "../src/knowledge/snapshot-reads.js";
import { openApiDocument } from "../src/rest/openapi.js";
import { AnswerCache } from "../src/services/answer-cache.js";
import { FixedKnowledgeBase } from "../src/services/knowledge-base.js";
import { KB_DIR } from "./support/runtime.js";
import { OPERATIONS, plan } from "./support/operation-questions.js";

/** A knowledge base whose snapshot the test swaps, as an edit swaps the service's. */
class SwappedKnowledgeBase extends FixedKnowledgeBase {
  serving: KbSnapshot;
  constructor(first: KbSnapshot) {
    super(first);
    this.serving = first;
  }
  override current(): KbSnapshot {
    return this.serving;
  }
}

function bundleOf(snapshot: KbSnapshot): Record<EntityName, readonly object[]> {
  return Object.fromEntries(
    ENTITY_NAMES.map((entity) => [entity, snapshot.records(entity)]),
  ) as Record<EntityName, readonly object[]>;
}

/** The snapshot after an edit, made as KnowledgeBase.publishEdits makes it: the other kinds' lists are shared. */
function edited(
  snapshot: KbSnapshot,
  entity: EntityName,
  change: (records: readonly object[]) => readonly object[],
): KbSnapshot {
  const bundle = bundleOf(snapshot);
  bundle[entity] = change(bundle[entity]);
  return new KbSnapshot(bundle as unknown as KbBundle, {
    revision: snapshot.revision + 1,
    lastImportAt: null,
  });
}

/** The first record of a kind with what the answers citing it show changed: its source, else its notes. */
function retouched(records: readonly object[]): readonly object[] {
  const first = records[0] as Record<string, unknown> | undefined;
  if (first === undefined) return records;
  const change =
    "sourceUrl" in first
      ? { sourceUrl: `${String(first.sourceUrl)}#retouched` }
      : { notes: "retouched by the carried-answers test" };
  return withReplaced(records, 0, { ...first, ...change });
}

const recommendation = {
  id: "carried-answers-test",
  title: "A recommendation no check reads",
  components: ["kubelet"],
  phase: "NODE_UPGRADE",
  appliesFrom: null,
  appliesUntil: null,
  text: "Added by test/carried-answers.test.ts.",
  sourceUrl: "https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/",
  notes: null,
  revision: 1,
};

/** Query strings for the read routes that need one, and values for path parameters. */
const READ_QUERIES: Readonly<Record<string, string>> = {
  "/api/v1/upgrade-impact": "?from=1.24&to=1.29&area=tenant-isolation",
  "/api/v1/flows": "?from=workers&to=control-plane&cni=calico",
  "/api/v1/firewall-rules": "?format=nftables&cni=cilium",
  "/api/v1/components/{name}": "",
  "/api/v1/releases/{version}": "?asOf=2026-06-01",
};
const PATH_VALUES: Readonly<Record<string, string>> = {
  "{name}": "kubelet",
  "{version}": "latest",
};

interface Question {
  readonly name: string;
  ask(app: Express): Promise<string>;
}

/** A query of a field read from the database, not answered from the snapshot. */
const DATABASE_FIELD = new RegExp(`\\b(?:${[...DATABASE_QUERY_FIELDS].join("|")})\\s*[({]`);

/**
 * The fleet: clusters, their events, subscriptions, deliveries, waivers and the feed are read from the
 * database and judged per day, never remembered per snapshot (test/fleet.test.ts, test/openapi-fleet.test.ts).
 */
const FLEET_ROUTES =
  /^\/api\/v1\/(clusters|events|subscriptions|deliveries|waivers|calendar\.ics)\b/;

function questions(): Question[] {
  const paths = Object.entries(openApiDocument().paths ?? {});
  const asked: Question[] = [];
  for (const [route, item] of paths) {
    // Records by key, the audit trail, the kb exchange and the review queue of proposals are curation: not
    // answers judged from the snapshot, never remembered.
    if (
      route.includes("{key}") ||
      route.includes("/audit") ||
      route.includes("/kb/") ||
      route.includes("/proposals") ||
      FLEET_ROUTES.test(route)
    )
      continue;
    const operations = item as Record<string, unknown>;
    if ("get" in operations) {
      const url =
        route.replace(/\{\w+\}/g, (parameter) => PATH_VALUES[parameter] ?? parameter) +
        (READ_QUERIES[route] ?? "");
      asked.push({
        name: `GET ${url}`,
        ask: async (app) => (await request(app).get(url).expect(200)).text,
      });
    }
    if ("post" in operations && !("get" in operations)) {
      const body = OPERATIONS[route];
      assert.ok(
        body !== undefined,
        `POST ${route} is documented: give it a question in OPERATIONS (test/carried-answers.test.ts)`,
      );
      asked.push({
        name: `POST ${route}`,
        ask: async (app) =>
          (
            await request(app)
              .post(route)
              .send(body as object)
              .expect(200)
          ).text,
      });
    }
  }
  for (const example of PLAYGROUND_EXAMPLES) {
    // The review queue's example reads the database (proposals are curation, like the audit trail).
    if (DATABASE_FIELD.test(example.query)) continue;
    asked.push({
      name: `GraphQL ${example.title}`,
      ask: async (app) => {
        const response = await request(app)
          .post("/graphql")
          .send({ query: example.query })
          .expect(200);
        assert.equal(
          response.body.errors,
          undefined,
          `${example.title}: ${JSON.stringify(response.body.errors)}`,
        );
        return response.text;
      },
    });
  }
  return asked;
}

async function appOf(kb: FixedKnowledgeBase, answerCacheBytes: number): Promise<Express> {
  return createApp({
    kb,
    isDatabaseReachable: () => Promise.resolve(true),
    logger: createLogger("silent"),
    answerCacheBytes,
  });
}

function cacheStats(text: string, face: string): { hits: number; carried: number } {
  const value = (name: string) =>
    Number(new RegExp(`^${name}\\{face="${face}"\\} (\\d+)`, "m").exec(text)?.[1] ?? Number.NaN);
  return {
    hits: value("kubecompat_answer_cache_hits"),
    carried: value("kubecompat_answer_cache_carried"),
  };
}

describe("a watching view of a snapshot", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = new KbSnapshot(await loadKbDirectory(KB_DIR), { revision: 3, lastImportAt: null });
  });

  it("notes the lists read directly, through methods and through getters, and gives a stand-in for the revision", () => {
    const { view, reads } = watched(snapshot);
    assert.ok(view instanceof KbSnapshot);
    assert.equal(view.revision, REVISION_STAND_IN);
    assert.ok(view.findComponent("kubelet"));
    assert.ok(view.newestRelease);
    assert.equal(view.records("platforms"), snapshot.platforms);
    const parts = reads().parts;
    assert.equal(
      parts.get("componentIndex"),
      (snapshot as unknown as Record<string, unknown>).componentIndex,
      "findComponent reads the index through the view",
    );
    assert.equal(
      parts.get("releases"),
      snapshot.releases,
      "newestRelease reads the releases through the view",
    );
    assert.equal(parts.get("platforms"), snapshot.platforms);
    assert.equal(parts.has("revision"), false, "the revision is a stand-in, not a part");
    assert.equal(parts.has("recommendations"), false);
    assert.equal(reads().whole, false);
  });

  it("cannot be followed part by part once its keys are listed, and cannot be written", () => {
    const { view, reads } = watched(snapshot);
    assert.ok(Object.keys(view).includes("components"));
    assert.equal(reads().whole, true);
    assert.equal(readsHold(reads(), snapshot), false);
    assert.throws(() => {
      (view as unknown as Record<string, unknown>).components = [];
    }, TypeError);
  });

  it("a validate answer holds after an edit of a recommendation, not after an edit of a skew rule it cites", () => {
    const { view, reads } = watched(snapshot);
    const answer = validateCluster(view, plan.components, { asOf: plan.asOf });
    assert.equal(answer.kbRevision, REVISION_STAND_IN);
    const cited = snapshot.skewRules.findIndex((rule) =>
      answer.findings.some((finding) => finding.sourceUrl === rule.sourceUrl),
    );
    assert.ok(cited >= 0, "the plan breaks a skew rule");
    assert.equal(
      readsHold(
        reads(),
        edited(snapshot, "recommendations", (records) => withAppended(records, recommendation)),
      ),
      true,
    );
    assert.equal(
      readsHold(
        reads(),
        edited(snapshot, "skewRules", (records) =>
          withReplaced(records, cited, { ...records[cited]!, notes: "x" }),
        ),
      ),
      false,
    );
  });

  it("fills the revision where the stand-in is, in text and in data, sharing what holds none", () => {
    const text = JSON.stringify({
      kbRevision: REVISION_STAND_IN,
      note: `revision ${REVISION_STAND_IN}`,
    });
    assert.equal(fillRevision(text, 42), '{"kbRevision":42,"note":"revision 42"}');
    const untouched = { ports: [6443, 10250] };
    const data = {
      validateCluster: { kbRevision: REVISION_STAND_IN, findings: [{ code: "X" }] },
      other: untouched,
    };
    const filled = fillRevisionIn(data, 9);
    assert.deepEqual(filled, {
      validateCluster: { kbRevision: 9, findings: [{ code: "X" }] },
      other: untouched,
    });
    assert.equal(filled.other, untouched);
    assert.equal(
      data.validateCluster.kbRevision,
      REVISION_STAND_IN,
      "the remembered data is not changed",
    );
  });
});

describe("AnswerCache across snapshots", () => {
  const lists = { a: [1], b: [2] };
  const first = { revision: 1, ...lists };

  it("keeps an answer when the newer snapshot holds every part it read, and drops the others", () => {
    const cache = new AnswerCache<string>(1000);
    cache.set(first, "reads a", "A", 10, { parts: new Map([["a", lists.a]]), whole: false });
    cache.set(first, "reads b", "B", 10, { parts: new Map([["b", lists.b]]), whole: false });
    cache.set(first, "read whole", "W", 10, { parts: new Map(), whole: true });
    cache.set(first, "no reads", "N", 10);
    const second = { revision: 2, a: lists.a, b: [2] };
    assert.equal(cache.get(second, "reads a"), "A");
    assert.equal(
      cache.get(second, "reads b"),
      undefined,
      "b is another list in the newer snapshot",
    );
    assert.equal(cache.get(second, "read whole"), undefined);
    assert.equal(cache.get(second, "no reads"), undefined);
    assert.equal(cache.stats().carried, 1);
    assert.equal(cache.stats().entries, 1);
    assert.equal(cache.stats().bytes, "reads a".length * 2 + 10);
    // A request still holding the first snapshot neither reads nor stores.
    assert.equal(cache.get(first, "reads a"), undefined);
  });

  it("judges the answers made from the same parts together, and forgets a part list once its answers are gone", () => {
    const cache = new AnswerCache<string>(10_000);
    const readsA = () => ({ parts: new Map<string, unknown>([["a", lists.a]]), whole: false });
    for (let n = 0; n < 50; n += 1) cache.set(first, `a${n}`, "A", 10, readsA());
    for (let n = 0; n < 50; n += 1)
      cache.set(first, `ab${n}`, "AB", 10, {
        parts: new Map<string, unknown>([
          ["b", lists.b],
          ["a", lists.a],
        ]),
        whole: false,
      });
    const second = { revision: 2, a: lists.a, b: [3] };
    let compared = 0;
    const counting = new Proxy(second, {
      get(target, property, receiver) {
        compared += 1;
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    assert.equal(cache.get(counting, "a7"), "A");
    assert.ok(compared <= 4, `${compared} parts compared for 100 answers in two groups`);
    assert.equal(cache.get(counting, "ab7"), undefined);
    assert.equal(cache.stats().entries, 50);
    // Pushed out one by one by newer answers: the group goes with its last answer.
    const small = new AnswerCache<string>(200, 200);
    small.set(first, "x", "X", 20, readsA());
    small.set(first, "y", "Y", 180);
    assert.equal(small.get(first, "x"), undefined, "x was pushed out");
    const third = { revision: 3, a: [9], b: lists.b };
    assert.equal(small.get(third, "y"), undefined);
    assert.deepEqual(
      { ...small.stats(), hits: 0, misses: 0 },
      { entries: 0, bytes: 0, hits: 0, misses: 0, carried: 0 },
    );
  });
});

describe("remembered answers are the answers of the snapshot in force", () => {
  let reviewed: KbSnapshot;
  let kb: SwappedKnowledgeBase;
  let fresh: SwappedKnowledgeBase;
  let remembering: Express;
  let computing: Express;
  let asked: Question[];

  before(async () => {
    reviewed = new KbSnapshot(await loadKbDirectory(KB_DIR), { revision: 1, lastImportAt: null });
    kb = new SwappedKnowledgeBase(reviewed);
    fresh = new SwappedKnowledgeBase(reviewed);
    remembering = await appOf(kb, 16 * 1024 * 1024);
    computing = await appOf(fresh, 0);
    asked = questions();
  });

  async function compare(stage: string): Promise<void> {
    for (const question of asked) {
      const expected = await question.ask(computing);
      // Asked twice: the first may be computed through the view, the second is remembered.
      assert.equal(
        await question.ask(remembering),
        expected,
        `${stage}: ${question.name}, first asked`,
      );
      assert.equal(
        await question.ask(remembering),
        expected,
        `${stage}: ${question.name}, asked again`,
      );
    }
  }

  it("covers every documented read and check, and answers them alike under the reviewed kb/", async () => {
    assert.ok(asked.length >= 40, `${asked.length} questions`);
    await compare("revision 1");
  });

  it("after an edit of a recommendation: the checks are carried over, with the new revision", async () => {
    const before = (await request(remembering).get("/metrics").expect(200)).text;
    kb.serving = fresh.serving = edited(kb.serving, "recommendations", (records) =>
      withAppended(records, recommendation),
    );
    await compare("a recommendation added");
    const after = (await request(remembering).get("/metrics").expect(200)).text;
    assert.ok(
      cacheStats(after, "rest").carried > cacheStats(before, "rest").carried,
      "REST answers were carried over",
    );
    assert.ok(
      cacheStats(after, "graphql").carried > cacheStats(before, "graphql").carried,
      "GraphQL answers were carried over",
    );
    const validate = await request(remembering).post("/api/v1/validate").send(plan).expect(200);
    assert.equal(validate.body.kbRevision, 2);
  });

  it("after an edit of each other kind of knowledge, every answer is still the fresh one", async () => {
    for (const entity of ENTITY_NAMES.filter((name) => name !== "recommendations")) {
      if (kb.serving.records(entity).length === 0) continue;
      kb.serving = fresh.serving = edited(kb.serving, entity, retouched);
      await compare(`${entity} edited (revision ${kb.serving.revision})`);
    }
  });
});
