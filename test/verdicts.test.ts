/**
 * A verdict that means what people read (issue "No false green"): status is
 * SUPPORTED only with no ERROR and no WARNING; a version past its end of
 * life is SUPPORTED_WITH_WARNINGS and is said to be "End of life"; a plan
 * without a control plane is NOT_JUDGED ("Not checked") and not ok; on the
 * domain, REST, GraphQL, chat and the CLI, whose --fail-on picks what fails.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { parseCommand, runCommand } from "../src/chatops/commands.js";
import { validateCluster } from "../src/domain/validate.js";
import { InputError } from "../src/core/errors.js";
import { kubecompat } from "./support/cli-process.js";
import { startListeningRuntime, type SnapshotRuntime } from "./support/runtime.js";
import { kbSnapshot, plan } from "./support/snapshot.js";

const AS_OF = "2026-11-29";

// One server for every face of this file: kb/ held in memory (no database), listening for the CLI.
let runtime: SnapshotRuntime;
let serverUrl: string;
let listening: { runtime: SnapshotRuntime; url: string; close(): Promise<void> } | undefined;
before(async () => {
  listening = await startListeningRuntime({ inMemory: true });
  ({ runtime, url: serverUrl } = listening);
});
after(async () => {
  await listening?.close();
});

describe("the verdict of a report", () => {
  const cases: Array<[string, string, string, boolean]> = [
    ["a supported minor, nothing to warn about", "apiserver=1.36 kubelet=1.36", "SUPPORTED", true],
    [
      "a minor past its end of life",
      "apiserver=1.28 kubelet=1.28",
      "SUPPORTED_WITH_WARNINGS",
      true,
    ],
    ["a kubelet too far behind", "apiserver=1.36 kubelet=1.31", "UNSUPPORTED", false],
    ["no control plane named", "kubelet=1.36", "NOT_JUDGED", false],
  ];
  for (const [name, text, status, ok] of cases) {
    it(`${name}: ${status}`, async () => {
      const report = validateCluster(await kbSnapshot(), plan(text), { asOf: AS_OF });
      assert.equal(report.status, status);
      assert.equal(report.ok, ok);
    });
  }
});

describe("verdicts on every face", () => {
  it("REST and GraphQL carry status", async () => {
    const components = plan("apiserver=1.28 kubelet=1.28");
    const rest = await request(runtime.app)
      .post("/api/v1/validate")
      .send({ components, asOf: AS_OF })
      .expect(200);
    assert.equal(rest.body.status, "SUPPORTED_WITH_WARNINGS");
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query: `query($plan: ClusterPlanInput!) { validateCluster(plan: $plan, asOf: "${AS_OF}") { ok status } planUpgrade(current: $plan, targetVersion: "1.29") { ok status } }`,
        variables: { plan: { components } },
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.deepEqual(graphql.body.data.validateCluster, {
      ok: true,
      status: "SUPPORTED_WITH_WARNINGS",
    });
    assert.equal(
      graphql.body.data.planUpgrade.status === "SUPPORTED",
      false,
      "a plan to a minor past its end of life is not plain SUPPORTED",
    );
    const scan = await request(runtime.app)
      .post("/api/v1/scan")
      .send({
        manifests: "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: a\n",
        targetVersion: "1.25",
      })
      .expect(200);
    assert.equal(scan.body.status, "UNSUPPORTED");
  });

  it("chat headlines give a green tick only to SUPPORTED", () => {
    const headline = (text: string) => {
      const parsed = parseCommand(text);
      assert.ok(parsed.ok, text);
      return runCommand(runtime.kb.current(), parsed.command).text.split("\n")[0];
    };
    assert.equal(headline(`check apiserver=1.36 kubelet=1.36 asof=${AS_OF}`), "**✅ Supported**");
    assert.equal(headline(`check apiserver=1.28 asof=${AS_OF}`), "**⚠️ End of life**");
    assert.equal(headline(`check kubelet=1.36 asof=${AS_OF}`), "**❔ Not checked**");
    assert.equal(
      headline(`check apiserver=1.36 kubelet=1.31 asof=${AS_OF}`),
      "**❌ Not supported**",
    );
  });

  it("the CLI says END OF LIFE or NOT CHECKED, and --fail-on picks what exits 1", async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-verdict-"));
    const eol = path.join(directory, "eol.yaml");
    fs.writeFileSync(
      eol,
      `components:\n  - { component: kube-apiserver, version: 1.28 }\n  - { component: kubelet, version: 1.28 }\nasOf: ${AS_OF}\n`,
    );
    const supported = path.join(directory, "supported.yaml");
    fs.writeFileSync(
      supported,
      `components:\n  - { component: kube-apiserver, version: 1.36 }\n  - { component: kubelet, version: 1.36 }\nasOf: ${AS_OF}\n`,
    );
    const nodesOnly = path.join(directory, "nodes.yaml");
    fs.writeFileSync(
      nodesOnly,
      `components:\n  - { component: kubelet, version: 1.36 }\nasOf: ${AS_OF}\n`,
    );
    const run = (file: string, ...flags: string[]) =>
      kubecompat(["--server", serverUrl, "check", file, ...flags]);

    const plain = await run(eol);
    assert.equal(plain.code, 0, plain.stdout + plain.stderr);
    assert.match(plain.stdout, /^END OF LIFE: /m);
    assert.equal((await run(eol, "--fail-on", "eol")).code, 1);
    assert.equal((await run(eol, "--fail-on", "warning")).code, 1);
    const good = await run(supported, "--fail-on", "warning");
    assert.equal(good.code, 0, good.stdout + good.stderr);
    assert.match(good.stdout, /^SUPPORTED: /m);
    const notChecked = await run(nodesOnly);
    assert.equal(notChecked.code, 1);
    assert.match(notChecked.stdout, /^NOT CHECKED: /m);
    const bad = await run(eol, "--fail-on", "sometimes");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--fail-on must be one of error, warning, eol \(got "sometimes"\)/);
  });
});

describe("nothing skipped silently", () => {
  it("a runtime or kube-proxy whose instance has no kubelet is a WARNING naming the nearest instance", async () => {
    const snapshot = await kbSnapshot();
    const report = validateCluster(
      snapshot,
      plan("apiserver=1.30 kubelet@pool-a=1.30 containerd@poola=1.7.20 kube-proxy@pool-b=1.30"),
      { asOf: AS_OF },
    );
    const runtime = report.findings.find((finding) => finding.code === "RUNTIME_NOT_CHECKED");
    assert.equal(runtime?.severity, "WARNING");
    assert.match(
      runtime?.message ?? "",
      /containerd@poola 1\.7\.20 has no kubelet on the same instance, so its requirements were not checked: did you mean pool-a\?/,
    );
    const proxy = report.findings.find((finding) => finding.code === "KUBE_PROXY_NOT_CHECKED");
    assert.equal(proxy?.severity, "WARNING");
    assert.match(proxy?.message ?? "", /did you mean pool-a\?/);
    assert.notEqual(report.status, "SUPPORTED");
  });

  it("a plan to a release the knowledge base does not know is UNSUPPORTED with TARGET_UNKNOWN", async () => {
    const { planUpgrade } = await import("../src/domain/upgrade.js");
    const snapshot = await kbSnapshot();
    const newest = snapshot.newestRelease!.version;
    const beyond = `1.${Number(newest.split(".")[1]) + 1}`;
    const refused = planUpgrade(snapshot, plan(`apiserver=${newest} kubelet=${newest}`), beyond);
    assert.equal(refused.status, "UNSUPPORTED");
    assert.deepEqual(refused.steps, []);
    assert.equal(refused.findings[0]?.code, "TARGET_UNKNOWN");
    assert.match(
      refused.findings[0]?.message ?? "",
      new RegExp(`the newest it knows is ${newest.replace(".", "\\.")}`),
    );
    const far = planUpgrade(snapshot, plan("apiserver=1.36 kubelet=1.36"), "1.45");
    assert.equal(far.findings[0]?.code, "TARGET_UNKNOWN");
    // A target past its end of life plans, with a WARNING naming the oldest supported minor.
    const old = planUpgrade(snapshot, plan("apiserver=1.27 kcm=1.27 kubelet=1.27"), "1.28");
    const eol = old.findings.find((finding) => finding.code === "TARGET_END_OF_LIFE");
    assert.equal(eol?.severity, "WARNING");
    assert.match(
      eol?.message ?? "",
      /the oldest minor still supported on \d{4}-\d{2}-\d{2} is 1\.\d+/,
    );
    assert.ok(old.steps.length > 0);
  });
});

describe("versions as tools mangle them", () => {
  it("asks whether 1.3 meant 1.30, and reads 1.30.x as the minor", async () => {
    const snapshot = await kbSnapshot();
    assert.throws(
      () =>
        validateCluster(snapshot, [{ component: "kube-apiserver", version: "1.3" }], {
          asOf: AS_OF,
        }),
      (error: unknown) =>
        error instanceof InputError &&
        error.field === "components[0].version" &&
        /did you mean "1\.30"\? An unquoted 1\.30 in YAML or JSON is the number 1\.3/.test(
          error.message,
        ),
    );
    // A version older than the knowledge base that is no lost zero is judged, and said to be older.
    const old = validateCluster(snapshot, [{ component: "kube-apiserver", version: "1.12.3" }], {
      asOf: AS_OF,
    });
    assert.ok(old.findings.some((finding) => finding.code === "VERSION_OLDER_THAN_KB"));
    const wildcard = validateCluster(
      snapshot,
      [
        { component: "kube-apiserver", version: "1.30.x" },
        { component: "kubelet", version: "v1.29.X" },
      ],
      { asOf: AS_OF },
    );
    assert.equal(wildcard.status, "SUPPORTED_WITH_WARNINGS");
    assert.ok(!wildcard.findings.some((finding) => finding.severity === "ERROR"));
  });
});

describe("is a release supported on a day?", () => {
  it("answers status and the supported range on REST, GraphQL and chat; latest and oldest-supported work where versions go", async () => {
    const eol = await request(runtime.app).get(`/api/v1/releases/1.28?asOf=${AS_OF}`).expect(200);
    assert.equal(eol.body.support.status, "END_OF_LIFE");
    assert.equal(eol.body.support.asOf, AS_OF);
    assert.equal(
      eol.body.support.oldestSupported,
      "1.35",
      "1.34 reached its end of life on 2026-10-27",
    );
    assert.equal(eol.body.support.newestSupported, "1.37");
    assert.equal(
      (await request(runtime.app).get("/api/v1/releases/1.34?asOf=2026-09-15").expect(200)).body
        .support.status,
      "MAINTENANCE",
    );
    assert.equal(
      (await request(runtime.app).get("/api/v1/releases/1.37?asOf=2026-08-01").expect(200)).body
        .support.status,
      "NOT_YET_RELEASED",
    );
    assert.equal(
      (await request(runtime.app).get(`/api/v1/releases/1.37?asOf=${AS_OF}`).expect(200)).body
        .support.status,
      "SUPPORTED",
      "the newest release is supported though its dates are not published",
    );
    assert.equal(
      (
        await request(runtime.app)
          .get(`/api/v1/releases/oldest-supported?asOf=${AS_OF}`)
          .expect(200)
      ).body.version,
      "1.35",
    );
    assert.equal(
      (await request(runtime.app).get(`/api/v1/releases/1.30?asOf=not-a-date`).expect(400)).body
        .error.code,
      "BAD_USER_INPUT",
    );

    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query: `{ release(version: "latest", asOf: "${AS_OF}") { version support { status oldestSupported } } old: release(version: "1.28", asOf: "${AS_OF}") { support { status } } }`,
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.deepEqual(graphql.body.data.release, {
      version: "1.37",
      support: { status: "SUPPORTED", oldestSupported: "1.35" },
    });
    assert.equal(graphql.body.data.old.support.status, "END_OF_LIFE");

    const chat = (text: string) => {
      const parsed = parseCommand(text);
      assert.ok(parsed.ok, text);
      return runCommand(runtime.kb.current(), parsed.command).text;
    };
    assert.match(
      chat(`supported 1.28 asof=${AS_OF}`),
      /^\*\*❌ 1\.28 is past its end of life \(2024-10-22\) on 2026-11-29\*\*/,
    );
    assert.match(chat(`supported 1.28 asof=${AS_OF}`), /supported: 1\.35 to 1\.37/);
    assert.match(chat(`supported asof=${AS_OF}`), /supported: 1\.35 to 1\.37/);

    const plan = await request(runtime.app)
      .post("/api/v1/validate")
      .send({
        components: [
          { component: "apiserver", version: "oldest-supported" },
          { component: "kubelet", version: "latest" },
        ],
        asOf: AS_OF,
      })
      .expect(200);
    assert.ok(
      plan.body.findings.some(
        (finding: { code: string }) => finding.code === "SKEW_KUBELET_NEWER_THAN_APISERVER",
      ),
      JSON.stringify(plan.body.findings),
    );
  });
});

describe("scans on the faces: fromVersion, unreadable documents, a manifest posted as JSON", () => {
  const manifests =
    "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: old\n---\napiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: psp\n";

  it("splits phases over REST (JSON and YAML), GraphQL and the CLI", async () => {
    const json = await request(runtime.app)
      .post("/api/v1/scan")
      .send({ manifests, targetVersion: "1.29", fromVersion: "1.24" })
      .expect(200);
    assert.deepEqual(
      json.body.findings.map((finding: { phase: string }) => finding.phase),
      ["ALREADY_REMOVED", "REMOVED_IN_UPGRADE"],
    );
    const yaml = await request(runtime.app)
      .post("/api/v1/scan?targetVersion=1.29&fromVersion=1.24")
      .set("Content-Type", "application/yaml")
      .send(manifests)
      .expect(200);
    assert.deepEqual(yaml.body.findings, json.body.findings);
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query:
          'query($m: String!) { scanManifests(manifests: $m, targetVersion: "1.29", fromVersion: "1.24") { complete status findings { kind phase } } }',
        variables: { m: manifests },
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.deepEqual(graphql.body.data.scanManifests.findings, [
      { kind: "Ingress", phase: "ALREADY_REMOVED" },
      { kind: "PodSecurityPolicy", phase: "REMOVED_IN_UPGRADE" },
    ]);
    assert.equal(graphql.body.data.scanManifests.complete, true);
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-phase-"));
    const file = path.join(directory, "m.yaml");
    fs.writeFileSync(file, manifests);
    const cli = await kubecompat([
      "--server",
      serverUrl,
      "scan",
      "--from",
      "1.24",
      "--to",
      "1.29",
      file,
      "-o",
      "json",
    ]);
    assert.equal(cli.code, 1, cli.stderr);
    assert.deepEqual(
      JSON.parse(cli.stdout).files[0].findings.map((finding: { phase: string }) => finding.phase),
      ["ALREADY_REMOVED", "REMOVED_IN_UPGRADE"],
    );
  });

  it("reports an unreadable document and scans the rest; says how to send a manifest posted as JSON", async () => {
    const broken = `${manifests}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n namespace: y\n`;
    const report = await request(runtime.app)
      .post("/api/v1/scan")
      .send({ manifests: broken, targetVersion: "1.29" })
      .expect(200);
    assert.equal(report.body.complete, false);
    assert.equal(report.body.findings.length, 2);
    assert.equal(report.body.notes[0].code, "DOCUMENT_UNREADABLE");
    const object = await request(runtime.app)
      .post("/api/v1/scan")
      .send({ apiVersion: "batch/v1beta1", kind: "CronJob", metadata: { name: "a" } })
      .expect(400);
    assert.match(
      object.body.error.message,
      /this body is a Kubernetes object, not a scan request: send \{"manifests"/,
    );
    assert.match(object.body.error.message, /Content-Type: application\/yaml \(JSON is YAML\)/);
  });
});

describe("chat scan", () => {
  it("scans manifests pasted after the command, fenced or not, with from and to", async () => {
    const snapshot = await kbSnapshot();
    const run = (text: string) => {
      const parsed = parseCommand(text);
      assert.ok(parsed.ok, JSON.stringify(parsed));
      return runCommand(snapshot, parsed.command).text;
    };
    const manifests =
      "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: old\n---\napiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: psp\n";
    const fenced = run(`scan from 1.24 to 1.29\n\`\`\`yaml\n${manifests}\`\`\``);
    assert.match(fenced, /^\*\*❌ Removed APIs at 1\.29\*\*/);
    assert.match(fenced, /2 documents, 2 objects scanned for 1\.24 → 1\.29/);
    assert.match(fenced, /document 1, line 1 \(already removed before the upgrade\)/);
    assert.match(fenced, /document 2, line 6 \(breaks within the upgrade\)/);
    assert.match(run(`scan 1.20\n${manifests}`), /^\*\*⚠️ Deprecated APIs at 1\.20\*\*/);
    assert.match(
      run("scan 1.29\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
      /^\*\*✅ Nothing removed at 1\.29\*\*/,
    );
    const missing = parseCommand("scan to 1.29");
    assert.ok(!missing.ok && /paste the manifests/.test(missing.problem));
    const noTarget = parseCommand(`scan\n${manifests}`);
    assert.ok(!noTarget.ok && /say which version/.test(noTarget.problem));
  });
});

describe("honest steps", () => {
  it("a kubelet that moves more than one minor, or back a minor, is new nodes; kubectl is advice", async () => {
    const { planUpgrade } = await import("../src/domain/upgrade.js");
    const { checkNodePoolRollback, checkNodePoolUpgrade } =
      await import("../src/domain/node-pool.js");
    const snapshot = await kbSnapshot();
    const result = planUpgrade(
      snapshot,
      plan("apiserver=1.30 kcm=1.30 kubelet@a=1.27 kubelet@b=1.30 kubectl=1.30"),
      "1.31",
    );
    const jump = result.steps.find((step) => step.component === "kubelet" && step.instance === "a");
    assert.match(
      jump?.note ?? "",
      /^replace the nodes of a with new ones \(the kubelet moves \d minors; in place, a node moves one minor at a time\)/,
    );
    const inPlace = result.steps.find(
      (step) => step.component === "kubelet" && step.instance === "b",
    );
    assert.match(inPlace?.note ?? "", /^drain the nodes of b first/);
    assert.match(
      result.steps.find((step) => step.component === "kubectl")?.note ?? "",
      /^advice, not a cluster change/,
    );

    const kubeletStep = (report: { steps: ReadonlyArray<{ action: string; note: string }> }) =>
      report.steps.find((step) => step.action === "kubelet")?.note ?? "";
    assert.match(
      kubeletStep(
        checkNodePoolUpgrade(snapshot, {
          controlPlaneVersion: "1.30",
          from: { kubeletVersion: "1.28.3" },
          to: { kubeletVersion: "1.30.1" },
        }),
      ),
      /^replace the nodes with new ones at 1\.30\.1/,
    );
    assert.match(
      kubeletStep(
        checkNodePoolUpgrade(snapshot, {
          controlPlaneVersion: "1.30",
          from: { kubeletVersion: "1.29.3" },
          to: { kubeletVersion: "1.30.1" },
        }),
      ),
      /^upgrade the kubelet and restart it/,
    );
    assert.match(
      kubeletStep(
        checkNodePoolRollback(snapshot, {
          controlPlaneVersion: "1.30",
          current: { kubeletVersion: "1.30.1" },
          rollbackTo: { kubeletVersion: "1.29.3" },
        }),
      ),
      /^replace the nodes with nodes built at the older version: a kubelet minor downgrade in place is not supported/,
    );
  });
});

describe("plans that end supported", () => {
  it("EKS 1.29, nodes 1.27, containerd 1.6.20, to 1.31: containerd moves to a listed, live line before the kubelet needs it", async () => {
    const { planUpgrade } = await import("../src/domain/upgrade.js");
    const snapshot = await kbSnapshot();
    const current = plan(
      "apiserver=v1.29.6-eks-1234 kcm=v1.29.6-eks-1234 kubelet@ng-a=v1.27.9-eks-5678 kube-proxy@ng-a=v1.27.9-eks-5678 containerd@ng-a=1.6.20",
    );
    const finalWarnings = (result: {
      findings: ReadonlyArray<{ severity: string; code: string }>;
    }): string[] =>
      [
        ...new Set(
          result.findings
            .filter((finding) => finding.severity === "WARNING")
            .map((finding) => finding.code),
        ),
      ].sort();

    // In 2024 the 1.6 line was alive: the pool keeps its own line, at the highest floor its table lists on the way (1.6.34+ for 1.31).
    // Judged by upstream's calendar (platform "upstream"): what is tested here is the runtime's line, not EKS's dates.
    const in2024 = planUpgrade(snapshot, current, "1.31", {
      asOf: "2024-10-01",
      platform: "upstream",
    });
    const early = in2024.steps.find((step) => step.component === "containerd");
    assert.equal(early?.toVersion, "1.6.34", JSON.stringify(in2024.steps));
    assert.match(
      early?.note ?? "",
      /containerd 1\.6 meets every requirement and recommendation of containerd's table for Kubernetes 1\.27 to 1\.31 .*use the newest patch of the 1\.6 line/,
    );
    const firstKubelet = in2024.steps.find((step) => step.component === "kubelet");
    assert.ok(
      early && firstKubelet && early.order < firstKubelet.order,
      "the runtime moves before the kubelet",
    );
    assert.deepEqual(finalWarnings(in2024), [], "nothing was past its end of life in October 2024");
    assert.equal(in2024.status, "SUPPORTED");

    // On 2026-12-01 containerd 1.6 (August 2025) and 1.7 (September 2026) are past their end of life, and 2.0 is only in
    // extended support (for GKE's 1.33): the pool moves once to the oldest line in active support that nothing in
    // containerd's table speaks against from 1.27 to 1.31, 2.3 (issue 33, item 9).
    const later = planUpgrade(snapshot, current, "1.31", {
      asOf: "2026-12-01",
      platform: "upstream",
    });
    const runtime = later.steps.find((step) => step.component === "containerd");
    assert.equal(runtime?.toVersion, "2.3.0", JSON.stringify(later.steps));
    assert.equal(
      later.steps.filter((step) => step.component === "containerd").length,
      1,
      "one runtime move",
    );
    assert.match(
      runtime?.note ?? "",
      /containerd 2\.3 .* for Kubernetes 1\.27 to 1\.31 and is in its project's active support on 2026-12-01/,
    );
    assert.ok(
      !later.findings.some(
        (finding) =>
          finding.code === "RUNTIME_BELOW_RECOMMENDED" || finding.code === "RUNTIME_END_OF_LIFE",
      ),
      JSON.stringify(later.findings.filter((finding) => finding.code.startsWith("RUNTIME"))),
    );
    assert.ok(!later.findings.some((finding) => finding.severity === "ERROR"));
    // The only warnings left are ones the plan could not avoid: the target release is itself past its end of life.
    assert.deepEqual(finalWarnings(later), ["RELEASE_END_OF_LIFE", "TARGET_END_OF_LIFE"]);
    // Recognised as EKS (its -eks- builds), the same plan meets EKS's calendar: the target 1.31's extended support ended on 2026-11-26.
    const onEks = planUpgrade(snapshot, current, "1.31", { asOf: "2026-12-01" });
    assert.ok(
      onEks.findings.some(
        (finding) =>
          finding.code === "PLATFORM_END_OF_SUPPORT" && finding.message.includes("Amazon EKS 1.31"),
      ),
      JSON.stringify(onEks.findings.map((finding) => finding.code)),
    );
  });
});
