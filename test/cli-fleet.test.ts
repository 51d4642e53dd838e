/**
 * The fleet from the real `kubecompat` executable against a server with a
 * fleet (real PostgreSQL, pg-boss, HTTP): a collect bundle piped into
 * `kubecompat register`, `kubecompat fleet` listing what the REST API says,
 * and `check --baseline` failing a pipeline only on what its change brought.
 * No cluster runs here: the bundle is made of recorded kubectl outputs.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { BUNDLE_KIND } from "../src/cli/client/inputs.js";
import { kubecompat } from "./support/cli-process.js";
import { type TestDatabase } from "./support/database.js";
import { eventually } from "./support/eventually.js";
import {
  createFleetDatabase,
  startFleetInstance,
  startReceiver,
  type FleetInstance,
} from "./support/fleet-instance.js";
import { REPO_ROOT } from "./support/runtime.js";

const fixture = (name: string) => path.join(REPO_ROOT, "test", "fixtures", name);

describe("the fleet from the CLI", () => {
  let database: TestDatabase;
  let instance: FleetInstance;
  let server: Server;
  let url: string;
  let editor: string;
  let reader: string;

  before(async () => {
    ({
      database,
      tokens: { ci: editor, viewer: reader },
    } = await createFleetDatabase({ ci: "editor", viewer: "reader" }));
    instance = await startFleetInstance(database.url, { clock: () => "2026-12-06" });
    server = instance.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await instance?.close();
    await database?.drop();
  });

  it("registers a collect bundle piped in, and lists the fleet as the REST API does", async () => {
    const bundle = {
      kind: BUNDLE_KIND,
      apiVersion: "kubecompat.io/v1",
      collectedAt: "2026-12-06T08:00:00Z",
      context: "prod",
      kubectlVersion: JSON.parse(
        fs.readFileSync(fixture("kubectl/version.json"), "utf8"),
      ) as unknown,
      nodes: JSON.parse(fs.readFileSync(fixture("kubectl/nodes-eks.json"), "utf8")) as unknown,
      errors: [],
    };
    const env = { KUBECOMPAT_URL: url, KUBECOMPAT_TOKEN: editor };
    const args = [
      "register",
      "shop-prod",
      "--env",
      "prod",
      "--owner",
      "team-shop",
      "--labels",
      "team=shop,tier=1",
    ];
    const refused = await kubecompat(args, {
      env: { KUBECOMPAT_URL: url, KUBECOMPAT_TOKEN: reader },
      stdin: JSON.stringify(bundle),
    });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /403 FORBIDDEN: registering a cluster needs the editor role/);
    const registered = await kubecompat(args, { env, stdin: JSON.stringify(bundle) });
    assert.equal(registered.code, 0, registered.stderr);
    assert.match(registered.stdout, /^registered shop-prod$/m);

    const rest = await request(instance.app).get("/api/v1/clusters/shop-prod").expect(200);
    const view = rest.body.item;
    assert.equal(view.labels.tier, "1");
    // The CLI sends what judging reads of the bundle: kubectl's outputs.
    assert.equal(view.snapshot.source, "kubectl");
    // Recognised as EKS from the nodes' labels and the apiserver's version, as validate/from-kubectl does.
    assert.equal(view.judgement.platform, "eks");
    const listed = await kubecompat(["fleet", "--env", "prod"], { env });
    const row = listed.stdout.split("\n").find((line) => line.includes("shop-prod"))!;
    assert.ok(row.includes(view.judgement.status), row);
    assert.ok(row.includes(view.judgement.deadline), row);
    assert.ok(row.includes(String(view.daysLeft)), row);
    for (const finding of view.judgement.blocking as Array<{ code: string }>)
      assert.ok(row.includes(finding.code), row);
    // A fleet with an UNSUPPORTED cluster fails the listing's exit code, as a check with an ERROR does.
    assert.equal(listed.code, view.judgement.status === "UNSUPPORTED" ? 1 : 0);
    const json = await kubecompat(["fleet", "-o", "json"], { env });
    assert.deepEqual(
      (JSON.parse(json.stdout) as { items: unknown[] }).items,
      (await request(instance.app).get("/api/v1/clusters").expect(200)).body.items,
    );
  });

  it("check --baseline reports only what is new since the fleet's snapshot, and fails only on it", async () => {
    const env = { KUBECOMPAT_URL: url, KUBECOMPAT_TOKEN: editor };
    const registered = await kubecompat(
      [
        "register",
        "ci-cluster",
        fixture("cli/cluster.yaml"),
        "--env",
        "staging",
        "--owner",
        "team-ci",
      ],
      { env },
    );
    assert.equal(registered.code, 0, registered.stderr);
    const same = await kubecompat(
      ["check", fixture("cli/cluster.yaml"), "--baseline", "ci-cluster"],
      { env },
    );
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /^0 new, 0 resolved, \d+ unchanged/m);
    const worse = await kubecompat(
      ["check", fixture("cli/out-of-skew.yaml"), "--baseline", "ci-cluster"],
      {
        env,
      },
    );
    assert.equal(worse.code, 1, worse.stdout + worse.stderr);
    assert.match(worse.stdout, /ERROR SKEW_KUBELET_TOO_OLD_FOR_APISERVER \(kubelet@pool-legacy\)/);
    const answer = await request(instance.app)
      .post("/api/v1/clusters/ci-cluster/baseline-check")
      .send({ components: [{ component: "kube-apiserver", version: "1.30.4" }] })
      .expect(200);
    assert.equal(
      answer.body.baseline.snapshot,
      (await request(instance.app).get("/api/v1/clusters/ci-cluster")).body.item.snapshot.id,
    );
    const missing = await kubecompat(
      ["check", fixture("cli/cluster.yaml"), "--baseline", "ci-cluster@999"],
      { env },
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /ci-cluster has no snapshot 999/);
    const offline = await kubecompat(["fleet", "--offline"], {});
    assert.equal(offline.code, 2);
    assert.match(offline.stderr, /the fleet lives on a server/);
  });

  it("subscribes a webhook and waives a finding from the command line, as REST stores them", async () => {
    const env = { KUBECOMPAT_URL: url, KUBECOMPAT_TOKEN: editor };
    const subscribed = await kubecompat(
      [
        "subscribe",
        "https://alerts.example.com/hook",
        "--env",
        "prod,staging",
        "--labels",
        "team=shop",
        "--min-severity",
        "warning",
      ],
      { env },
    );
    assert.equal(subscribed.code, 0, subscribed.stderr);
    const secret = /signing secret .*: (\S+)$/m.exec(subscribed.stdout)?.[1];
    assert.match(secret ?? "", /^[A-Za-z0-9_-]{32}$/);
    const listed = await request(instance.app)
      .get("/api/v1/subscriptions")
      .set("Authorization", `Bearer ${editor}`)
      .expect(200);
    const stored = (
      listed.body.items as Array<{ url: string; kind: string; filters: object; signed: boolean }>
    ).find((item) => item.url === "https://alerts.example.com/hook");
    assert.deepEqual(stored?.filters, {
      environments: ["prod", "staging"],
      labels: { team: "shop" },
      minSeverity: "WARNING",
    });
    assert.equal(stored?.signed, true);
    const badSeverity = await kubecompat(
      ["subscribe", "https://x.example.com", "--min-severity", "loud"],
      { env },
    );
    assert.equal(badSeverity.code, 2);
    assert.match(badSeverity.stderr, /minSeverity/);

    const code =
      (
        (await request(instance.app).get("/api/v1/clusters/shop-prod")).body.item.judgement
          .blocking as Array<{ code: string }>
      )[0]?.code ?? "PLATFORM_END_OF_SUPPORT";
    const waived = await kubecompat(
      [
        "waive",
        code,
        "--cluster",
        "shop-prod",
        "--until",
        "2026-12-31",
        "--reason",
        "upgrade booked",
        "--owner",
        "team-shop",
      ],
      { env },
    );
    assert.equal(waived.code, 0, waived.stderr);
    assert.match(waived.stdout, new RegExp(`${code} waived until 2026-12-31`));
    const view = (await request(instance.app).get("/api/v1/clusters/shop-prod").expect(200)).body
      .item;
    assert.ok(
      (view.judgement.waived as Array<{ finding: { code: string } }>).some(
        (entry) => entry.finding.code === code,
      ),
    );
    const missing = await kubecompat(
      ["waive", code, "--cluster", "shop-prod", "--until", "2026-12-31"],
      { env },
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /needs --reason/);
  });

  it("GraphQL's fleetBaselineCheck answers as REST's baseline-check", async () => {
    const state = {
      components: [
        { component: "kube-apiserver", version: "1.30.4" },
        { component: "kubelet", version: "1.25.16", instance: "pool-legacy" },
      ],
    };
    const rest = (
      await request(instance.app)
        .post("/api/v1/clusters/ci-cluster/baseline-check")
        .send(state)
        .expect(200)
    ).body as {
      status: string;
      baselineStatus: string;
      added: Array<{ code: string }>;
      resolved: Array<{ code: string }>;
      unchanged: number;
      baseline: { snapshot: number };
    };
    const answer = await request(instance.app)
      .post("/graphql")
      .send({
        query: `query ($state: FleetStateInput!) { fleetBaselineCheck(name: "ci-cluster", state: $state) {
          status baselineStatus added { code } resolved { code } unchanged baselineSnapshot } }`,
        variables: { state },
      })
      .expect(200);
    const graphql = (answer.body as { data: { fleetBaselineCheck: Record<string, unknown> } }).data
      .fleetBaselineCheck;
    assert.deepEqual(graphql, {
      status: rest.status,
      baselineStatus: rest.baselineStatus,
      added: rest.added.map(({ code }) => ({ code })),
      resolved: rest.resolved.map(({ code }) => ({ code })),
      unchanged: rest.unchanged,
      baselineSnapshot: String(rest.baseline.snapshot),
    });
    assert.ok(rest.added.length > 0, "the skew is new since the baseline");
    const typo = await request(instance.app).post("/graphql").send({
      query: `query { fleetBaselineCheck(name: "ci-cluster", state: { components: [{ component: "kube-apiserver", version: "1.3" }] }) { status } }`,
    });
    const restTypo = await request(instance.app)
      .post("/api/v1/clusters/ci-cluster/baseline-check")
      .send({ components: [{ component: "kube-apiserver", version: "1.3" }] })
      .expect(400);
    const errors = (
      typo.body as { errors: Array<{ message: string; extensions: { code: string } }> }
    ).errors;
    assert.equal(errors[0]!.extensions.code, "BAD_USER_INPUT");
    assert.equal(
      errors[0]!.message,
      (restTypo.body as { error: { message: string } }).error.message,
    );
  });

  it("lists the dead-letter list and replays a delivery from the command line", async () => {
    const env = { KUBECOMPAT_URL: url, KUBECOMPAT_TOKEN: editor };
    const receiver = await startReceiver("cli-secret-of-enough-length");
    try {
      receiver.fail = true;
      const subscribed = await kubecompat(
        [
          "subscribe",
          `${receiver.url}/hook`,
          "--secret",
          "cli-secret-of-enough-length",
          "--owner",
          "team-ci",
        ],
        { env },
      );
      assert.equal(subscribed.code, 0, subscribed.stderr);
      // A worse state of ci-cluster: its verdict changes, an event for team-ci's subscription.
      const worse = await kubecompat(
        [
          "register",
          "ci-cluster",
          fixture("cli/out-of-skew.yaml"),
          "--env",
          "staging",
          "--owner",
          "team-ci",
        ],
        { env },
      );
      assert.equal(worse.code, 0, worse.stderr);
      const listed = await eventually(
        "the delivery on the dead-letter list",
        async () => {
          const run = await kubecompat(["deliveries", "--status", "dead"], { env });
          // The list also holds test 3's subscription's dead delivery (a host that does not resolve).
          return /DEAD .*ci-cluster:/.test(run.stdout) ? run : undefined;
        },
        { withinMs: 20_000 },
      );
      assert.equal(listed.code, 1, "a dead delivery fails the listing");
      assert.match(listed.stdout, /ci-cluster: [A-Z_]+ → UNSUPPORTED/);
      assert.match(listed.stdout, /last error: attempt 3: the receiver answered 500/);
      const id = /^(\d+)\s+DEAD .*ci-cluster:/m.exec(listed.stdout)![1]!;
      receiver.fail = false;
      const replayed = await kubecompat(["replay", id], { env });
      assert.equal(replayed.code, 0, replayed.stderr);
      await eventually(
        "the replayed delivery",
        () => (receiver.received.length > 0 ? true : undefined),
        {
          withinMs: 10_000,
        },
      );
      assert.ok(receiver.received[0]!.validSignature);
      const again = await eventually(
        "a delivered delivery refused",
        async () => {
          const run = await kubecompat(["replay", id], { env });
          return run.code === 2 && /DELIVERED, not DEAD/.test(run.stderr) ? run : undefined;
        },
        { withinMs: 10_000 },
      );
      assert.match(again.stderr, /409 CONFLICT/);
    } finally {
      await receiver.close();
    }
  });
});
