/**
 * The fleet over GraphQL, against REST's fleet on one real instance
 * (PostgreSQL, pg-boss, a local webhook receiver): the same clusters
 * registered both ways (generated ones among them) are judged alike, field
 * by field, and each face answers the same about every cluster; bad inputs
 * are refused with the message REST gives for the same body; mutations need
 * an editor and take from the write budget REST's writes take from; a
 * knowledge edit's events and their deliveries, and waivers, read over
 * GraphQL.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import request from "supertest";
import { PROPERTY_SEED, propertyRuns } from "./support/cluster-generators.js";
import { type TestDatabase } from "./support/database.js";
import { eventually } from "./support/eventually.js";
import {
  createFleetDatabase,
  startFleetInstance,
  startReceiver,
  type FleetInstance,
  type Receiver,
} from "./support/fleet-instance.js";

const SECRET = "a-graphql-test-secret-long-enough";
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(new URL(`./fixtures/kubectl/${name}`, import.meta.url), "utf8"),
  ) as Record<string, unknown>;

interface Component {
  component: string;
  version: string;
  instance?: string;
}

/** A registration as REST's body takes it (states as components). */
interface Body {
  name: string;
  environment: string;
  owner: string;
  labels: Record<string, string>;
  platform?: string;
  profile?: string;
  components?: Component[];
  kubectlVersion?: Record<string, unknown>;
  nodes?: Record<string, unknown>;
  bundle?: Record<string, unknown>;
}

/** The same registration as GraphQL's RegisterClusterInput. */
function inputOf(body: Body): Record<string, unknown> {
  const { labels, kubectlVersion, nodes, ...rest } = body;
  const kubectl =
    kubectlVersion === undefined && nodes === undefined
      ? {}
      : { kubectl: { version: kubectlVersion, nodes } };
  return {
    ...rest,
    ...kubectl,
    labels: Object.entries(labels).map(([key, value]) => ({ key, value })),
  };
}

const JUDGEMENT = `
  name environment owner labels { key value } daysLeft daysToStart
  judgement {
    status judgedStatus warnings controlPlane platform deadline warnedAt problem kbRevision asOf
    blocking { code severity component instance ruleId sourceUrl }
    support { calendar minor endOfStandardSupport endOfSupport precision }
    upgrade { targetVersion hops status blocking { code } problem }
    startBy { latestStart leadDays hops overdue deadline }
    waived { finding { code } waiver { id code cluster label expiresOn } }
  }`;

interface ClusterAnswer {
  name: string;
  environment: string;
  owner: string;
  labels: Record<string, string> | Array<{ key: string; value: string }>;
  daysLeft: number | null;
  daysToStart: number | null;
  judgement: {
    status: string;
    judgedStatus: string;
    warnings: number;
    controlPlane: string | null;
    platform: string | null;
    deadline: string | null;
    warnedAt: number | null;
    problem: string | null;
    kbRevision: number;
    asOf: string;
    blocking: Array<{ code: string; component: string | null; instance: string | null }>;
    support: { calendar: string; minor: string; endOfStandardSupport: string | null } | null;
    upgrade: {
      targetVersion: string;
      hops: number;
      status: string | null;
      blocking: Array<{ code: string }>;
      problem: string | null;
    } | null;
    startBy: { latestStart: string; leadDays: number; hops: number; overdue: boolean } | null;
    waived: Array<{ finding: { code: string }; waiver: { id: string | number } }>;
  } | null;
}

/** What both faces must say alike about a cluster, from REST's JSON or GraphQL's data. */
function digest(answer: ClusterAnswer) {
  const judgement = answer.judgement;
  return {
    environment: answer.environment,
    owner: answer.owner,
    labels: Array.isArray(answer.labels)
      ? Object.fromEntries(answer.labels.map(({ key, value }) => [key, value]))
      : answer.labels,
    daysLeft: answer.daysLeft,
    daysToStart: answer.daysToStart,
    judgement: judgement && {
      status: judgement.status,
      judgedStatus: judgement.judgedStatus,
      warnings: judgement.warnings,
      controlPlane: judgement.controlPlane,
      platform: judgement.platform,
      deadline: judgement.deadline,
      warnedAt: judgement.warnedAt,
      problem: judgement.problem,
      kbRevision: judgement.kbRevision,
      asOf: judgement.asOf,
      blocking: judgement.blocking.map((entry) => [entry.code, entry.component, entry.instance]),
      calendar: judgement.support?.calendar ?? null,
      endOfStandardSupport: judgement.support?.endOfStandardSupport ?? null,
      latestStart: judgement.startBy?.latestStart ?? null,
      leadDays: judgement.startBy?.leadDays ?? null,
      overdue: judgement.startBy?.overdue ?? null,
      upgrade: judgement.upgrade && {
        targetVersion: judgement.upgrade.targetVersion,
        hops: judgement.upgrade.hops,
        status: judgement.upgrade.status,
        blocking: judgement.upgrade.blocking.map((entry) => entry.code),
        problem: judgement.upgrade.problem,
      },
      waived: judgement.waived.map((entry) => [entry.finding.code, String(entry.waiver.id)]),
    },
  };
}

/** Versions of the shipped kb/ on the test's day, per platform, as a cluster reports them. */
const APISERVERS: ReadonlyArray<readonly [string, string]> = [
  ["eks", "v1.32.9-eks-113cf36"],
  ["eks", "v1.34.2-eks-b1b1f8b"],
  ["eks", "v1.35.1-eks-3025e55"],
  ["upstream", "1.33.5"],
  ["upstream", "1.34.2"],
  ["gke", "1.33.5-gke.1080000"],
  ["aks", "1.32.7"],
];

/** A generated cluster: its platform and kube-apiserver, a kubelet 0 to 4 minors behind, where it stands. */
const generatedCluster = fc.record({
  apiserver: fc.constantFrom(...APISERVERS),
  kubeletBehind: fc.integer({ min: 0, max: 4 }),
  environment: fc.constantFrom("dev", "staging", "prod"),
  owner: fc.constantFrom("team-a", "team-b"),
  profile: fc.constantFrom(undefined, "upstream", "strict"),
  platformGiven: fc.boolean(),
});

function bodyOf(name: string, drawn: GeneratedCluster): Body {
  const [platform, version] = drawn.apiserver;
  const minor = Number(/^v?1\.(\d+)/.exec(version)![1]);
  const kubelet = drawn.kubeletBehind === 0 ? version : `1.${minor - drawn.kubeletBehind}.3`;
  return {
    name,
    environment: drawn.environment,
    owner: drawn.owner,
    labels: { origin: "generated" },
    ...(drawn.platformGiven ? { platform } : {}),
    ...(drawn.profile === undefined ? {} : { profile: drawn.profile }),
    components: [
      { component: "kube-apiserver", version },
      { component: "kubelet", version: kubelet, instance: "pool-a" },
    ],
  };
}

type GeneratedCluster = typeof generatedCluster extends fc.Arbitrary<infer T> ? T : never;

/** Named clusters every later test reads: two on EKS 1.32 (payments), a skewed one, one given as kubectl printed it. */
const NAMED: readonly Body[] = [
  {
    name: "pay-prod",
    environment: "prod",
    owner: "team-pay",
    labels: { team: "payments" },
    platform: "eks",
    components: [
      { component: "kube-apiserver", version: "v1.32.9-eks-113cf36" },
      { component: "kubelet", version: "v1.32.9-eks-113cf36", instance: "pool-a" },
    ],
  },
  {
    name: "pay-dev",
    environment: "dev",
    owner: "team-pay",
    labels: { team: "payments", tier: "edge" },
    components: [
      { component: "kube-apiserver", version: "v1.32.9-eks-113cf36" },
      { component: "kubelet", version: "v1.32.9-eks-113cf36", instance: "pool-a" },
    ],
  },
  {
    name: "data-prod",
    environment: "prod",
    owner: "team-data",
    labels: { team: "data" },
    platform: "upstream",
    components: [
      { component: "kube-apiserver", version: "1.34.2" },
      { component: "kubelet", version: "1.30.4", instance: "pool-a" },
    ],
  },
  {
    name: "old-eks",
    environment: "staging",
    owner: "team-old",
    labels: { team: "old" },
    kubectlVersion: fixture("version.json"),
    nodes: fixture("nodes-eks.json"),
  },
];

interface GraphQLAnswer<T = Record<string, unknown>> {
  data?: T | null;
  errors?: Array<{
    message: string;
    extensions: { code: string; field?: string };
    path?: string[];
  }>;
}

describe("the fleet over GraphQL", () => {
  let database: TestDatabase;
  let instance: FleetInstance;
  let editor: string;
  let reader: string;
  let receiver: Receiver;
  const day = "2026-12-06";

  async function graphql<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
  ): Promise<GraphQLAnswer<T> & { headers: Record<string, string> }> {
    const pending = request(instance.app).post("/graphql").send({ query, variables });
    if (token !== undefined) pending.set(bearer(token));
    const answer = await pending;
    return { ...(answer.body as GraphQLAnswer<T>), headers: answer.headers };
  }

  const REGISTER = `mutation ($input: RegisterClusterInput!) {
    registerCluster(input: $input) { created cluster { name judgement { status } } }
  }`;

  async function registerBoth(body: Body): Promise<{
    rest: { status: number; body: { error?: { code: string; message: string } } };
    graphql: GraphQLAnswer<{ registerCluster: { created: boolean } }>;
  }> {
    const rest = await request(instance.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send({ ...body, name: `r-${body.name}` });
    const answer = await graphql<{ registerCluster: { created: boolean } }>(
      REGISTER,
      { input: inputOf({ ...body, name: `g-${body.name}` }) },
      editor,
    );
    return { rest: { status: rest.status, body: rest.body as never }, graphql: answer };
  }

  async function restClusters(query = ""): Promise<ClusterAnswer[]> {
    return (await request(instance.app).get(`/api/v1/clusters${query}`).expect(200)).body
      .items as ClusterAnswer[];
  }

  async function graphqlClusters(): Promise<ClusterAnswer[]> {
    const answer = await graphql<{ fleetClusters: ClusterAnswer[] }>(
      `{ fleetClusters { ${JUDGEMENT} } }`,
    );
    assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
    return answer.data!.fleetClusters;
  }

  before(async () => {
    ({
      database,
      tokens: { "platform-team": editor, dashboard: reader },
    } = await createFleetDatabase({ "platform-team": "editor", dashboard: "reader" }));
    receiver = await startReceiver(SECRET);
    instance = await startFleetInstance(database.url, { clock: () => day });
  });
  after(async () => {
    await instance?.close();
    await receiver?.close();
    await database?.drop();
  });

  it("judges clusters registered over GraphQL as those registered over REST, and answers about each as REST does", async () => {
    for (const body of NAMED) {
      const both = await registerBoth(body);
      assert.equal(both.rest.status, 201, JSON.stringify(both.rest.body));
      assert.equal(both.graphql.errors, undefined, JSON.stringify(both.graphql.errors));
      assert.equal(both.graphql.data!.registerCluster.created, true);
    }
    let serial = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(generatedCluster, async (drawn) => {
        serial += 1;
        const both = await registerBoth(bodyOf(`gen-${serial}`, drawn));
        // Accepted by both, or refused by both with the same words.
        if (both.rest.status === 201) {
          assert.equal(both.graphql.errors, undefined, JSON.stringify(both.graphql.errors));
          assert.equal(both.graphql.data!.registerCluster.created, true);
        } else {
          refused += 1;
          assert.equal(both.rest.status, 400, JSON.stringify(both.rest.body));
          assert.equal(both.graphql.errors?.[0]?.extensions.code, "BAD_USER_INPUT");
          assert.equal(both.graphql.errors[0].message, both.rest.body.error!.message);
        }
      }),
      { numRuns: propertyRuns(10), seed: PROPERTY_SEED },
    );
    const rest = await restClusters();
    const overGraphQL = await graphqlClusters();
    // The same clusters in the same order (environment in rollout order, then name).
    assert.deepEqual(
      overGraphQL.map((cluster) => cluster.name),
      rest.map((cluster) => cluster.name),
    );
    assert.equal(rest.length, 2 * (NAMED.length + serial - refused));
    const restByName = new Map(rest.map((cluster) => [cluster.name, cluster]));
    for (const cluster of overGraphQL) {
      // What GraphQL says of a cluster is what REST says of it.
      assert.deepEqual(digest(cluster), digest(restByName.get(cluster.name)!), cluster.name);
      // A cluster registered over GraphQL is judged as its twin registered over REST.
      if (cluster.name.startsWith("g-"))
        assert.deepEqual(
          digest(cluster),
          digest(restByName.get(`r-${cluster.name.slice(2)}`)!),
          cluster.name,
        );
    }
    // The comparison is not of one verdict: the fleet holds several, deadlines and upgrades among them.
    const statuses = new Set(rest.map((cluster) => cluster.judgement?.status));
    assert.ok(statuses.size >= 3, [...statuses].join(", "));
    assert.ok(rest.some((cluster) => (cluster.judgement?.upgrade?.hops ?? 0) > 0));
    assert.ok(rest.some((cluster) => cluster.judgement?.startBy !== null));

    // Filters as REST's, by label, environment and owner.
    const filtered = await graphql<{ fleetClusters: Array<{ name: string }> }>(`
      {
        fleetClusters(label: "team=payments", environment: "prod") {
          name
        }
      }
    `);
    assert.deepEqual(
      filtered.data!.fleetClusters.map((cluster) => cluster.name),
      (await restClusters("?label=team=payments&environment=prod")).map((cluster) => cluster.name),
    );
    assert.equal(filtered.data!.fleetClusters.length, 2);
  });

  it("shows a cluster's plan, history and snapshots as GET /api/v1/clusters/{name} does, and null for an unknown name", async () => {
    for (const name of ["g-pay-prod", "g-data-prod", "g-old-eks"]) {
      const rest = (await request(instance.app).get(`/api/v1/clusters/${name}`).expect(200)).body
        .item as {
        plan: { status: string; targetVersion: string; steps: Array<{ component: string }> } | null;
        history: Array<{ status: string; blocking: string[] }>;
        snapshots: Array<{ id: number; source: string }>;
        events: Array<{ id: number }>;
      };
      const answer = await graphql<{
        fleetCluster: {
          plan: {
            status: string;
            targetVersion: string;
            steps: Array<{ component: string }>;
          } | null;
          summary: { status: string; summary: { steps: string[] | null } } | null;
          history: Array<{ status: string; blocking: string[] }>;
          snapshots: Array<{ id: string; source: string }>;
          events: Array<{ id: string }>;
        };
      }>(
        `
          query ($name: String!) {
            fleetCluster(name: $name) {
              plan {
                status
                targetVersion
                steps {
                  component
                }
              }
              summary: plan(detail: SUMMARY) {
                status
                summary {
                  steps
                }
              }
              history {
                status
                blocking
              }
              snapshots {
                id
                source
              }
              events(limit: 10) {
                id
              }
            }
          }
        `,
        { name },
      );
      assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
      const cluster = answer.data!.fleetCluster;
      assert.deepEqual(
        cluster.plan,
        rest.plan && {
          status: rest.plan.status,
          targetVersion: rest.plan.targetVersion,
          steps: rest.plan.steps.map((step) => ({ component: step.component })),
        },
        name,
      );
      assert.equal(cluster.summary?.status, rest.plan?.status);
      assert.deepEqual(
        cluster.history,
        rest.history.map((entry) => ({ status: entry.status, blocking: entry.blocking })),
      );
      assert.ok(cluster.history.length > 0);
      assert.deepEqual(
        cluster.snapshots,
        rest.snapshots.map((snapshot) => ({ id: String(snapshot.id), source: snapshot.source })),
      );
      assert.deepEqual(
        cluster.events.map((event) => event.id),
        rest.events.map((event) => String(event.id)),
      );
    }
    const kubectl = await graphql<{ fleetCluster: { snapshot: { source: string } } }>(`
      {
        fleetCluster(name: "g-old-eks") {
          snapshot {
            source
          }
        }
      }
    `);
    assert.equal(kubectl.data!.fleetCluster.snapshot.source, "kubectl");
    await request(instance.app).get("/api/v1/clusters/nowhere").expect(404);
    const missing = await graphql(`
      {
        fleetCluster(name: "nowhere") {
          name
        }
      }
    `);
    assert.equal(missing.errors, undefined);
    assert.deepEqual(missing.data, { fleetCluster: null });
  });

  it("refuses bad input with the message REST gives for the same body, and stores nothing", async () => {
    const base = NAMED[0]!;
    const bad: ReadonlyArray<readonly [string, Body]> = [
      [
        "a version that lost its zero",
        { ...base, components: [{ component: "kube-apiserver", version: "1.3" }] },
      ],
      ["an environment that is not the fleet's", { ...base, environment: "qa" }],
      ["two states", { ...base, nodes: fixture("nodes-eks.json") }],
      ["no state", { ...base, components: undefined }],
      ["a label key with a space", { ...base, labels: { "bad key": "x" } }],
      ["a label value too long", { ...base, labels: { team: "x".repeat(64) } }],
      ["a name that is no DNS label", { ...base, name: "Pay_Prod" }],
    ];
    const before = (await restClusters()).length;
    for (const [what, body] of bad) {
      const name = body.name === base.name ? "refused" : body.name;
      const rest = await request(instance.app)
        .post("/api/v1/clusters")
        .set(bearer(editor))
        .send({ ...body, name });
      assert.equal(rest.status, 400, `${what}: ${JSON.stringify(rest.body)}`);
      const answer = await graphql(REGISTER, { input: inputOf({ ...body, name }) }, editor);
      const error = answer.errors?.[0];
      assert.equal(error?.extensions.code, "BAD_USER_INPUT", what);
      assert.equal(error.message, rest.body.error.message, what);
      const field = (rest.body.error.details as Array<{ field: string }> | undefined)?.[0]?.field;
      if (field !== undefined) assert.equal(error.extensions.field, field, what);
      assert.equal(answer.data, null);
    }
    assert.equal((await restClusters()).length, before);

    // A label key given twice cannot be sent to REST (JSON keeps one); GraphQL refuses it rather than keep one.
    const twice = await graphql(
      REGISTER,
      {
        input: {
          ...inputOf(base),
          name: "twice",
          labels: [
            { key: "team", value: "a" },
            { key: "team", value: "b" },
          ],
        },
      },
      editor,
    );
    assert.equal(twice.errors?.[0]?.extensions.field, "labels");

    // The lists' filters and the waivers' and subscriptions' inputs, both ways.
    const label = await request(instance.app).get("/api/v1/clusters?label=team").expect(400);
    const labelled = await graphql(`
      {
        fleetClusters(label: "team") {
          name
        }
      }
    `);
    assert.equal(labelled.errors?.[0]?.message, label.body.error.message);
    const limit = await request(instance.app).get("/api/v1/events?limit=0").expect(400);
    const limited = await graphql(`
      {
        fleetEvents(limit: 0) {
          id
        }
      }
    `);
    assert.equal(limited.errors?.[0]?.message, limit.body.error.message);
    const waiver = {
      code: "PLATFORM_END_OF_SUPPORT",
      cluster: "g-pay-prod",
      label: "team=payments",
      reason: "both",
      owner: "pay-lead",
      expiresOn: "2026-12-31",
    };
    const restWaiver = await request(instance.app)
      .post("/api/v1/waivers")
      .set(bearer(editor))
      .send(waiver)
      .expect(400);
    const graphqlWaiver = await graphql(
      `
        mutation ($input: WaiveFindingInput!) {
          waiveFinding(input: $input) {
            id
          }
        }
      `,
      { input: waiver },
      editor,
    );
    assert.equal(graphqlWaiver.errors?.[0]?.message, restWaiver.body.error.message);
    const subscription = { kind: "webhook", url: "ftp://example.com/x", secret: "short" };
    const restSubscription = await request(instance.app)
      .post("/api/v1/subscriptions")
      .set(bearer(editor))
      .send(subscription)
      .expect(400);
    const graphqlSubscription = await graphql(
      `
        mutation ($input: SubscribeFleetInput!) {
          subscribeFleet(input: $input) {
            secret
          }
        }
      `,
      { input: { ...subscription, kind: "WEBHOOK" } },
      editor,
    );
    assert.equal(graphqlSubscription.errors?.[0]?.message, restSubscription.body.error.message);
  });

  it("needs an editor for every mutation and for subscriptions and deliveries, as REST does", async () => {
    const operations: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
      [REGISTER, { input: inputOf({ ...NAMED[0]!, name: "nobody-s" }) }],
      [`mutation { removeCluster(name: "g-pay-prod") }`, {}],
      [
        `mutation { subscribeFleet(input: { kind: SLACK, url: "https://hooks.example.com/x" }) { secret } }`,
        {},
      ],
      [`mutation { unsubscribeFleet(id: "1") }`, {}],
      [`mutation { replayDelivery(id: "1") { id } }`, {}],
      [
        `mutation { waiveFinding(input: { code: "PLATFORM_END_OF_SUPPORT", cluster: "g-pay-prod", reason: "not mine", owner: "x", expiresOn: "2026-12-31" }) { id } }`,
        {},
      ],
      [`mutation { removeWaiver(id: "1") }`, {}],
      [`{ fleetSubscriptions { id } }`, {}],
      [`{ fleetDeliveries { id } }`, {}],
    ];
    for (const [query, variables] of operations) {
      const anonymous = await graphql(query, variables);
      assert.equal(anonymous.errors?.[0]?.extensions.code, "UNAUTHENTICATED", query);
      assert.match(anonymous.errors[0].message, /needs an editor's API token/);
      const read = await graphql(query, variables, reader);
      assert.equal(read.errors?.[0]?.extensions.code, "FORBIDDEN", query);
      assert.match(read.errors[0].message, /needs the editor role; token "dashboard" has reader/);
    }
    // The same words as REST's.
    const restAnonymous = await request(instance.app)
      .post("/api/v1/clusters")
      .send({ ...NAMED[0]!, name: "nobody-r" })
      .expect(401);
    const graphqlAnonymous = await graphql(REGISTER, {
      input: inputOf({ ...NAMED[0]!, name: "nobody-g" }),
    });
    assert.equal(graphqlAnonymous.errors?.[0]?.message, restAnonymous.body.error.message);
    const restReader = await request(instance.app)
      .get("/api/v1/deliveries")
      .set(bearer(reader))
      .expect(403);
    const graphqlReader = await graphql(
      `
        {
          fleetDeliveries {
            id
          }
        }
      `,
      {},
      reader,
    );
    assert.equal(graphqlReader.errors?.[0]?.message, restReader.body.error.message);
    // Nothing was changed by the refused, and reads stay open.
    const names = (await restClusters()).map((cluster) => cluster.name);
    assert.ok(names.includes("g-pay-prod"));
    assert.ok(!names.some((name) => name.startsWith("nobody")));
    const open = await graphql(`
      {
        fleetWaivers {
          id
        }
        fleetEvents {
          id
        }
      }
    `);
    assert.equal(open.errors, undefined);
  });

  it("counts mutations in the write budget REST's writes take from", async () => {
    const remaining = (header: string | undefined) =>
      Number(/remaining=(\d+)/.exec(header ?? "")![1]);
    const first = await graphql(
      REGISTER,
      { input: inputOf({ ...NAMED[2]!, name: "g-data-prod" }) },
      editor,
    );
    assert.equal(first.errors, undefined);
    const rest = await request(instance.app)
      .post("/api/v1/clusters")
      .set(bearer(editor))
      .send({ ...NAMED[2]!, name: "r-data-prod" })
      .expect(200);
    const second = await graphql(
      REGISTER,
      { input: inputOf({ ...NAMED[2]!, name: "g-data-prod" }) },
      editor,
    );
    assert.equal(remaining(rest.headers.ratelimit), remaining(first.headers.ratelimit) - 1);
    assert.equal(remaining(second.headers.ratelimit), remaining(first.headers.ratelimit) - 2);
    // A query is not a write.
    const query = await graphql(
      `
        {
          fleetWaivers {
            id
          }
        }
      `,
      {},
      editor,
    );
    assert.equal(query.headers.ratelimit, undefined);
  });

  it("a knowledge edit's events and their deliveries read over GraphQL: fleetEvents and fleetDeliveries", async () => {
    const subscribed = await graphql<{
      subscribeFleet: {
        secret: string;
        subscription: {
          id: string;
          kind: string;
          signed: boolean;
          filters: {
            labels: Array<{ key: string; value: string }>;
            minSeverity: string;
            environments: string[];
          };
        };
      };
    }>(
      `
        mutation ($input: SubscribeFleetInput!) {
          subscribeFleet(input: $input) {
            secret
            subscription {
              id
              kind
              signed
              filters {
                environments
                labels {
                  key
                  value
                }
                minSeverity
              }
            }
          }
        }
      `,
      {
        input: {
          kind: "WEBHOOK",
          url: `${receiver.url}/payments`,
          secret: SECRET,
          filters: { labels: [{ key: "team", value: "payments" }], minSeverity: "ERROR" },
        },
      },
      editor,
    );
    assert.equal(subscribed.errors, undefined, JSON.stringify(subscribed.errors));
    const created = subscribed.data!.subscribeFleet;
    assert.equal(created.secret, SECRET);
    assert.deepEqual(created.subscription.filters, {
      environments: [],
      labels: [{ key: "team", value: "payments" }],
      minSeverity: "ERROR",
    });
    assert.equal(created.subscription.kind, "WEBHOOK");
    const made = await graphql<{ subscribeFleet: { secret: string } }>(
      `mutation { subscribeFleet(input: { kind: WEBHOOK, url: "${receiver.url}/nobody", filters: { owners: ["nobody"] } }) { secret } }`,
      {},
      editor,
    );
    assert.match(made.data!.subscribeFleet.secret, /^[A-Za-z0-9_-]{32}$/);
    // Listed, never with the secret: the type has no such field.
    const listed = await graphql<{
      fleetSubscriptions: Array<{ id: string; url: string; signed: boolean }>;
    }>(
      `
        {
          fleetSubscriptions {
            id
            url
            signed
          }
        }
      `,
      {},
      editor,
    );
    assert.deepEqual(
      listed.data!.fleetSubscriptions.map((subscription) => subscription.url),
      (
        await request(instance.app).get("/api/v1/subscriptions").set(bearer(editor)).expect(200)
      ).body.items.map((item: { url: string }) => item.url),
    );
    const secretAsked = await graphql(
      `
        {
          fleetSubscriptions {
            secret
          }
        }
      `,
      {},
      editor,
    );
    assert.equal(secretAsked.errors?.[0]?.extensions.code, "GRAPHQL_VALIDATION_FAILED");

    // EKS moves the end of extended support of 1.32 to a day already past: the payments clusters on it go red.
    const list = await request(instance.app).get("/api/v1/platforms").expect(200);
    const eks = list.body.items.find((item: { name: string }) => item.name === "eks");
    const releases = eks.releases.map((row: { minor: string }) =>
      row.minor === "1.32" ? { ...row, endOfExtendedSupport: "2026-12-05" } : row,
    );
    await request(instance.app)
      .put("/api/v1/platforms/eks")
      .set(bearer(editor))
      .send({ ...eks, releases })
      .expect(200);
    const onEks132 = (await restClusters("?label=team=payments"))
      .map((cluster) => cluster.name)
      .sort();
    assert.deepEqual(onEks132, ["g-pay-dev", "g-pay-prod", "r-pay-dev", "r-pay-prod"]);
    type Event = {
      id: string;
      cluster: string;
      kind: string;
      severity: string;
      summary: string;
      detail: { to: string };
    };
    const raised = await eventually(
      "the payments clusters' events",
      async () => {
        const answer = await graphql<{ fleetEvents: Event[] }>(`
          {
            fleetEvents(limit: 500) {
              id
              cluster
              kind
              severity
              summary
              detail
              kbRevision
              asOf
              occurredAt
            }
          }
        `);
        const events = answer.data?.fleetEvents ?? [];
        return onEks132.every((name) => events.some((event) => event.cluster === name))
          ? events
          : undefined;
      },
      { withinMs: 15_000 },
    );
    await instance.fleet.fleet.settled();
    const restEvents = (await request(instance.app).get("/api/v1/events?limit=500").expect(200))
      .body.items as Array<{
      id: number;
      cluster: string;
      kind: string;
      severity: string;
      summary: string;
      detail: object;
    }>;
    const events = (
      await graphql<{ fleetEvents: Event[] }>(`
        {
          fleetEvents(limit: 500) {
            id
            cluster
            kind
            severity
            summary
            detail
          }
        }
      `)
    ).data!.fleetEvents;
    assert.ok(events.length >= raised.length);
    assert.deepEqual(
      events,
      restEvents.map((event) => ({
        id: String(event.id),
        cluster: event.cluster,
        kind: event.kind,
        severity: event.severity,
        summary: event.summary,
        detail: event.detail,
      })),
    );
    const payments = events.filter((event) => onEks132.includes(event.cluster));
    for (const event of payments) {
      assert.equal(event.kind, "VERDICT_CHANGED");
      assert.equal(event.detail.to, "UNSUPPORTED");
    }
    // Paging back from an id, and one cluster's events.
    const newest = events[0]!;
    const older = await graphql<{ fleetEvents: Array<{ id: string }> }>(
      `
        query ($before: ID) {
          fleetEvents(before: $before, limit: 500) {
            id
          }
        }
      `,
      { before: newest.id },
    );
    assert.deepEqual(
      older.data!.fleetEvents.map((event) => event.id),
      events.slice(1).map((event) => event.id),
    );
    const one = await graphql<{ fleetEvents: Array<{ cluster: string }> }>(`
      {
        fleetEvents(cluster: "g-pay-prod") {
          cluster
        }
      }
    `);
    assert.ok(one.data!.fleetEvents.length > 0);
    assert.ok(one.data!.fleetEvents.every((event) => event.cluster === "g-pay-prod"));

    // One delivery per payments event (all ERROR), delivered to the receiver, signed.
    type Delivery = {
      id: string;
      status: string;
      attempts: number;
      lastError: string | null;
      deliveredAt: string | null;
      event: { id: string; cluster: string };
      subscription: { id: string; kind: string; url: string };
    };
    const delivered = await eventually(
      "the deliveries delivered",
      async () => {
        const answer = await graphql<{ fleetDeliveries: Delivery[] }>(
          `
            {
              fleetDeliveries(status: DELIVERED) {
                id
                status
                attempts
                lastError
                deliveredAt
                event {
                  id
                  cluster
                }
                subscription {
                  id
                  kind
                  url
                }
              }
            }
          `,
          {},
          editor,
        );
        const items = answer.data?.fleetDeliveries ?? [];
        return items.length >= payments.length ? items : undefined;
      },
      { withinMs: 20_000 },
    );
    assert.deepEqual(
      delivered.map((delivery) => delivery.event.id).sort(),
      payments.map((event) => event.id).sort(),
    );
    for (const delivery of delivered) {
      assert.equal(delivery.status, "DELIVERED");
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.lastError, null);
      assert.ok(delivery.deliveredAt !== null);
      assert.deepEqual(delivery.subscription, {
        id: created.subscription.id,
        kind: "WEBHOOK",
        url: `${receiver.url}/payments`,
      });
    }
    await eventually(
      "the receiver got them",
      () => (receiver.received.length >= delivered.length ? true : undefined),
      { withinMs: 5_000 },
    );
    assert.deepEqual(
      receiver.received.map((entry) => entry.delivery).sort(),
      delivered.map((delivery) => delivery.id).sort(),
    );
    assert.ok(receiver.received.every((entry) => entry.validSignature));
    const ofOne = await graphql<{ fleetDeliveries: Delivery[] }>(
      `
        query ($event: ID) {
          fleetDeliveries(event: $event) {
            id
          }
        }
      `,
      { event: delivered[0]!.event.id },
      editor,
    );
    assert.deepEqual(
      ofOne.data!.fleetDeliveries.map((delivery) => delivery.id),
      [delivered[0]!.id],
    );
    // A delivered delivery is not sent twice: the same conflict as REST's.
    const restReplay = await request(instance.app)
      .post(`/api/v1/deliveries/${delivered[0]!.id}/replay`)
      .set(bearer(editor))
      .expect(409);
    const replay = await graphql(
      `
        mutation ($id: ID!) {
          replayDelivery(id: $id) {
            id
            status
          }
        }
      `,
      { id: delivered[0]!.id },
      editor,
    );
    assert.equal(replay.errors?.[0]?.extensions.code, "CONFLICT");
    assert.equal(replay.errors[0].message, restReplay.body.error.message);
    const unsubscribed = await graphql(
      `
        mutation ($id: ID!) {
          unsubscribeFleet(id: $id)
        }
      `,
      { id: created.subscription.id },
      editor,
    );
    assert.deepEqual(unsubscribed.data, { unsubscribeFleet: true });
    const again = await graphql(
      `
        mutation ($id: ID!) {
          unsubscribeFleet(id: $id)
        }
      `,
      { id: created.subscription.id },
      editor,
    );
    assert.equal(again.errors?.[0]?.extensions.code, "NOT_FOUND");
  });

  it("waiveFinding holds the finding out of the verdict, fleetCluster shows it waived, and removeWaiver puts it back", async () => {
    const judged = async (name: string) =>
      (
        await graphql<{ fleetCluster: ClusterAnswer }>(
          `query ($name: String!) { fleetCluster(name: $name) { ${JUDGEMENT} } }`,
          { name },
        )
      ).data!.fleetCluster;
    const red = await judged("g-pay-prod");
    assert.equal(red.judgement!.status, "UNSUPPORTED");
    const code = red.judgement!.blocking[0]!.code;
    const waived = await graphql<{
      waiveFinding: {
        id: string;
        code: string;
        cluster: string;
        label: string | null;
        createdBy: string;
        createdAt: string;
      };
    }>(
      `
        mutation ($input: WaiveFindingInput!) {
          waiveFinding(input: $input) {
            id
            code
            cluster
            label
            createdBy
            createdAt
          }
        }
      `,
      {
        input: {
          code,
          cluster: "g-pay-prod",
          reason: "moving to 1.33 this week",
          owner: "pay-lead",
          expiresOn: "2026-12-20",
        },
      },
      editor,
    );
    assert.equal(waived.errors, undefined, JSON.stringify(waived.errors));
    const waiver = waived.data!.waiveFinding;
    assert.equal(waiver.cluster, "g-pay-prod");
    assert.equal(waiver.label, null);
    assert.equal(waiver.createdBy, "platform-team");
    const held = await judged("g-pay-prod");
    const withoutIt = red.judgement!.blocking.filter((entry) => entry.code !== code);
    assert.equal(held.judgement!.judgedStatus, "UNSUPPORTED");
    assert.notEqual(held.judgement!.status, "UNSUPPORTED");
    assert.equal(held.judgement!.blocking.length, withoutIt.length);
    assert.deepEqual(
      held.judgement!.waived.map((entry) => [entry.finding.code, String(entry.waiver.id)]),
      red.judgement!.blocking.filter((entry) => entry.code === code).map(() => [code, waiver.id]),
    );
    // REST says the same; the twin registered over REST is not waived (the waiver names one cluster).
    const rest = (await restClusters()).find((cluster) => cluster.name === "g-pay-prod")!;
    assert.deepEqual(digest(held), digest(rest));
    assert.equal((await judged("r-pay-prod")).judgement!.status, "UNSUPPORTED");
    const listed = await graphql<{ fleetWaivers: Array<{ id: string; expiresOn: string }> }>(`
      {
        fleetWaivers {
          id
          expiresOn
        }
      }
    `);
    assert.deepEqual(listed.data!.fleetWaivers, [{ id: waiver.id, expiresOn: "2026-12-20" }]);
    const removed = await graphql(
      `
        mutation ($id: ID!) {
          removeWaiver(id: $id)
        }
      `,
      { id: waiver.id },
      editor,
    );
    assert.deepEqual(removed.data, { removeWaiver: true });
    assert.equal((await judged("g-pay-prod")).judgement!.status, "UNSUPPORTED");
    const history = (
      await graphql<{ fleetCluster: { history: Array<{ status: string }> } }>(`
        {
          fleetCluster(name: "g-pay-prod") {
            history {
              status
            }
          }
        }
      `)
    ).data!.fleetCluster.history.map((entry) => entry.status);
    assert.equal(history[0], "UNSUPPORTED");
    assert.equal(history[1], held.judgement!.status);
  });

  it("removeCluster removes a cluster from both faces; an unknown one is NOT_FOUND as over REST", async () => {
    const removed = await graphql(
      `
        mutation {
          removeCluster(name: "g-old-eks")
        }
      `,
      {},
      editor,
    );
    assert.deepEqual(removed.data, { removeCluster: true });
    assert.ok(!(await restClusters()).some((cluster) => cluster.name === "g-old-eks"));
    const rest = await request(instance.app)
      .delete("/api/v1/clusters/g-old-eks")
      .set(bearer(editor))
      .expect(404);
    const again = await graphql(
      `
        mutation {
          removeCluster(name: "g-old-eks")
        }
      `,
      {},
      editor,
    );
    assert.equal(again.errors?.[0]?.extensions.code, "NOT_FOUND");
    assert.equal(again.errors[0].message, rest.body.error.message);
  });
});
