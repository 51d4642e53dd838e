/**
 * Issue "Beyond apiVersions": behaviour changes, configuration-file APIs, feature gates, field-level scan
 * rules, upgrade impact and the firewall, judged at version boundaries on the reviewed kb/ and answered the
 * same on REST and GraphQL (an in-memory server: no database is involved in these answers).
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import {
  checkFirewall,
  firewallRules,
  listFlows,
  parseAllowedFlows,
} from "../src/domain/firewall.js";
import { upgradeImpact } from "../src/domain/impact.js";
import { checkNodePoolUpgrade } from "../src/domain/node-pool.js";
import { scanManifests } from "../src/domain/scan.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { answer as chatAnswer } from "../src/chatops/commands.js";
import { kubecompat } from "./support/cli-process.js";
import {
  startListeningRuntime,
  startSnapshotRuntime,
  type SnapshotRuntime,
} from "./support/runtime.js";
import { kbSnapshot, plan } from "./support/snapshot.js";

let snapshot: KbSnapshot;
let runtime: SnapshotRuntime;
before(async () => {
  snapshot = await kbSnapshot();
  runtime = await startSnapshotRuntime();
});
after(async () => {
  await runtime.close();
});

const deploymentToleratingMaster = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: node-exporter
  namespace: monitoring
spec:
  template:
    spec:
      tolerations:
        - key: node-role.kubernetes.io/master
          effect: NoSchedule
      containers:
        - name: exporter
          image: quay.io/prometheus/node-exporter:v1.8.2
`;

describe("upgrade impact", () => {
  it("lists PodSecurityPolicy's removal and the token change for tenant isolation from 1.24 to 1.26, in the minors they land in", () => {
    const impact = upgradeImpact(snapshot, "1.24", "1.26", { areas: "tenant-isolation" });
    assert.deepEqual(
      impact.releases.map((release) => release.kubernetesVersion),
      ["1.25", "1.26"],
    );
    const ids = impact.releases.flatMap((release) =>
      release.changes.map((change) => `${release.kubernetesVersion} ${change.id}`),
    );
    assert.ok(ids.includes("1.25 pod-security-policy-removed"), ids.join("\n"));
    // The token Secrets stop being created in 1.24 itself, which 1.24 → 1.26 does not cross; the gate locks in 1.26.
    assert.ok(
      !ids.some((id) => id.endsWith("serviceaccount-token-secrets-not-auto-created")),
      "a change of the starting minor is not crossed",
    );
    const from123 = upgradeImpact(snapshot, "1.23", "1.26", { areas: ["tenant-isolation"] });
    assert.ok(
      from123.releases
        .find((release) => release.kubernetesVersion === "1.24")!
        .changes.some((change) => change.id === "serviceaccount-token-secrets-not-auto-created"),
    );
    for (const change of impact.releases.flatMap((release) => release.changes))
      assert.ok(
        change.areas.includes("tenant-isolation"),
        `${change.id} is not about tenant isolation`,
      );
    assert.ok(impact.byArea.every((group) => group.area === "tenant-isolation"));
    // Feature gates have no area: the area filter says it left them out.
    assert.match(
      impact.notes.map((note) => note.message).join("\n"),
      /have no area and were left out by the area filter/,
    );
  });

  it("counts every kind of change without a filter, and refuses a backwards range or an unknown area", () => {
    const all = upgradeImpact(snapshot, "1.28", "1.29");
    const subjects = new Set(all.releases[0]!.changes.map((change) => change.subject));
    assert.deepEqual([...subjects].sort(), [
      "BEHAVIOUR_CHANGE",
      "CONFIGURATION_API",
      "FEATURE_GATE",
    ]);
    assert.ok(
      all.releases[0]!.changes.some(
        (change) =>
          change.id === "KubeSchedulerConfiguration kubescheduler.config.k8s.io/v1beta3" &&
          change.change === "REMOVED",
      ),
    );
    assert.ok(
      all.releases[0]!.changes.some(
        (change) =>
          change.id === "LegacyServiceAccountTokenNoAutoGeneration" && change.change === "REMOVED",
      ),
    );
    assert.equal(all.count, all.releases[0]!.changes.length);
    assert.throws(
      () => upgradeImpact(snapshot, "1.29", "1.24"),
      /fromVersion 1.29 is not older than toVersion 1.24/,
    );
    assert.throws(
      () => upgradeImpact(snapshot, "1.24", "1.29", { areas: "tenancy" }),
      /area "tenancy" is not an area; use one of tenant-isolation, security/,
    );
  });

  it("says where the knowledge ends when the target is beyond what feature gates cover", () => {
    const covered = snapshot.coverage.find((row) => row.knowledge === "featureGates")!.throughMinor;
    const beyond = `1.${Number(covered.split(".")[1]) + 1}`;
    // Before the minor is out its knowledge ends at an edge; from its release day on the knowledge is stale.
    const released = snapshot.findRelease(beyond)!.releaseDate;
    const dayBefore = new Date(Date.parse(`${released}T00:00:00Z`) - 86_400_000)
      .toISOString()
      .slice(0, 10);
    for (const [asOf, code] of [
      [dayBefore, "KNOWLEDGE_EDGE"],
      [released, "KNOWLEDGE_STALE"],
    ] as const) {
      const impact = upgradeImpact(snapshot, covered, beyond, { asOf });
      const gates = impact.notes.filter((note) => note.ruleId === "coverage:featureGates");
      assert.deepEqual(
        gates.map((note) => note.code),
        [code],
        JSON.stringify(impact.notes),
      );
    }
  });

  it("planUpgrade lists what each hop changes", () => {
    const result = planUpgrade(
      snapshot,
      plan("apiserver=1.24.17 controller-manager=1.24.17 scheduler=1.24.17 kubelet=1.24.17"),
      "1.26",
      { asOf: "2023-06-01" },
    );
    assert.deepEqual(
      result.hops.map((hop) => hop.kubernetesVersion),
      ["1.25", "1.26"],
    );
    assert.ok(
      result.hops[0]!.changes.some((change) => change.id === "pod-security-policy-removed"),
    );
    assert.ok(
      !result.hops[1]!.changes.some((change) => change.id === "pod-security-policy-removed"),
    );
  });

  it("answers the same on REST and GraphQL", async () => {
    const domain = upgradeImpact(snapshot, "1.24", "1.29", { areas: "tenant-isolation" });
    const rest = await request(runtime.app)
      .get("/api/v1/upgrade-impact")
      .query({ from: "1.24", to: "1.29", area: "tenant-isolation" })
      .expect(200);
    assert.deepEqual(
      rest.body.releases.map((release: { changes: { id: string }[] }) =>
        release.changes.map((change) => change.id),
      ),
      domain.releases.map((release) => release.changes.map((change) => change.id)),
    );
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query: `{ upgradeImpact(fromVersion: "1.24", toVersion: "1.29", areas: ["tenant-isolation"]) { count releases { kubernetesVersion changes { id subject detection { method } } } } }`,
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.equal(graphql.body.data.upgradeImpact.count, domain.count);
    assert.deepEqual(
      graphql.body.data.upgradeImpact.releases.map(
        (release: { kubernetesVersion: string }) => release.kubernetesVersion,
      ),
      ["1.25", "1.26", "1.27", "1.28", "1.29"],
    );
    const bad = await request(runtime.app)
      .get("/api/v1/upgrade-impact")
      .query({ from: "1.24" })
      .expect(400);
    assert.match(bad.body.error.message, /to/);
  });
});

describe("field-level scan rules", () => {
  it("finds a Deployment tolerating node-role.kubernetes.io/master from 1.25, as a coming change at 1.24", () => {
    const at125 = scanManifests(snapshot, deploymentToleratingMaster, "1.25");
    const hit = at125.changeFindings.find((entry) => entry.ruleId === "toleration-master-taint");
    assert.ok(hit, JSON.stringify(at125.changeFindings));
    assert.equal(hit.code, "FIELD_CHANGED");
    assert.equal(hit.severity, "WARNING");
    assert.equal(hit.field, "spec.template.spec.tolerations[0].key");
    assert.equal(hit.behaviourChange, "kubeadm-master-taint-removed");
    assert.equal(hit.name, "node-exporter");
    assert.equal(hit.line, 1);
    assert.equal(at125.status, "SUPPORTED_WITH_WARNINGS");
    const at124 = scanManifests(snapshot, deploymentToleratingMaster, "1.24").changeFindings.find(
      (entry) => entry.ruleId === "toleration-master-taint",
    );
    assert.equal(at124?.code, "FIELD_CHANGE_SCHEDULED");
    assert.equal(at124?.severity, "INFO");
  });

  it("makes Service.spec.externalIPs a WARNING at 1.36 and not at 1.35", () => {
    const service =
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  externalIPs: [203.0.113.10]\n  ports: [{port: 80}]\n";
    const cases: Array<[string, string, string]> = [
      ["1.35", "FIELD_CHANGE_SCHEDULED", "INFO"],
      ["1.36", "FIELD_CHANGED", "WARNING"],
    ];
    for (const [target, code, severity] of cases) {
      const found = scanManifests(snapshot, service, target).changeFindings.filter(
        (entry) => entry.ruleId === "service-external-ips",
      );
      assert.deepEqual(
        found.map((entry) => [entry.code, entry.severity, entry.field]),
        [[code, severity, "spec.externalIPs"]],
        target,
      );
    }
    const empty = scanManifests(
      snapshot,
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  externalIPs: []\n",
      "1.36",
    );
    assert.deepEqual(empty.changeFindings, [], "an empty list sets nothing");
  });

  it("reads pod templates of every workload kind, gitRepo volumes as an ERROR from 1.33, and in-tree provisioners by value", () => {
    const cronJob =
      "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: sync}\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          volumes:\n            - name: a\n              emptyDir: {}\n            - name: src\n              gitRepo: {repository: https://example.org/r.git}\n";
    const found = scanManifests(snapshot, cronJob, "1.33").changeFindings;
    assert.deepEqual(
      found.map((entry) => [entry.ruleId, entry.severity, entry.field]),
      [["pod-volume-git-repo", "ERROR", "spec.jobTemplate.spec.template.spec.volumes[1].gitRepo"]],
    );
    assert.equal(scanManifests(snapshot, cronJob, "1.33").status, "UNSUPPORTED");
    const classes =
      "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp2}\nprovisioner: kubernetes.io/aws-ebs\n---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp3}\nprovisioner: ebs.csi.aws.com\n";
    assert.deepEqual(
      scanManifests(snapshot, classes, "1.27").changeFindings.map((entry) => [
        entry.name,
        entry.ruleId,
      ]),
      [["gp2", "storage-class-aws-ebs"]],
    );
  });

  it("judges configuration files: a KubeSchedulerConfiguration on a removed version is an ERROR from its removal", () => {
    const config =
      "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\nprofiles:\n  - schedulerName: default-scheduler\n";
    const record = snapshot.configurationApis.find(
      (entry) =>
        entry.kind === "KubeSchedulerConfiguration" &&
        entry.apiVersion === "kubescheduler.config.k8s.io/v1beta3",
    )!;
    const removal = record.removedIn!;
    const before = `1.${Number(removal.split(".")[1]) - 1}`;
    const atRemoval = scanManifests(snapshot, config, removal);
    assert.deepEqual(
      atRemoval.changeFindings.map((entry) => [entry.code, entry.severity, entry.replacement]),
      [["CONFIG_API_REMOVED", "ERROR", record.replacement]],
    );
    assert.equal(atRemoval.status, "UNSUPPORTED");
    assert.notEqual(scanManifests(snapshot, config, before).changeFindings[0]?.severity, "ERROR");
    // A configuration file is judged, not reported as an unknown API group.
    assert.ok(
      !atRemoval.notes.some((note) => note.code === "API_NOT_JUDGED"),
      JSON.stringify(atRemoval.notes),
    );
    const rest = request(runtime.app)
      .post("/api/v1/scan")
      .send({ manifests: config, targetVersion: removal });
    return rest
      .expect(200)
      .then((response) => assert.equal(response.body.changeFindings[0].code, "CONFIG_API_REMOVED"));
  });
});

describe("feature gates", () => {
  const pool = (kubeletVersion: string, extra: Record<string, unknown>) => ({
    name: "pool-a",
    kubeletVersion,
    ...extra,
  });

  it("makes a node pool passing a removed gate an ERROR at the removal, and a deprecated one a WARNING before", () => {
    const flags = ["--feature-gates=DynamicKubeletConfig=true,RotateKubeletServerCertificate=true"];
    const removed = checkNodePoolUpgrade(snapshot, {
      controlPlaneVersion: "1.26.0",
      from: pool("1.25.0", { kubeletFlags: flags }),
      to: pool("1.26.0", { kubeletFlags: flags }),
    });
    const gate = removed.findings.find((entry) => entry.ruleId === "DynamicKubeletConfig");
    assert.equal(gate?.code, "FEATURE_GATE_REMOVED");
    assert.equal(gate?.severity, "ERROR");
    assert.equal(removed.ok, false);
    const deprecated = checkNodePoolUpgrade(snapshot, {
      controlPlaneVersion: "1.25.0",
      from: pool("1.24.0", { kubeletFlags: flags }),
      to: pool("1.25.0", { kubeletFlags: flags }),
    });
    assert.equal(
      deprecated.findings.find((entry) => entry.ruleId === "DynamicKubeletConfig")?.code,
      "FEATURE_GATE_DEPRECATED",
    );
    // --feature-gates is judged gate by gate, never as an unknown flag.
    assert.ok(
      !removed.findings.some(
        (entry) => entry.code === "FLAG_UNKNOWN" && entry.message.includes("--feature-gates"),
      ),
    );
  });

  it("reads the KubeletConfiguration's featureGates and apiVersion", () => {
    const kubeletConfig =
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  LegacyServiceAccountTokenNoAutoGeneration: false\n";
    const report = checkNodePoolUpgrade(snapshot, {
      controlPlaneVersion: "1.29.0",
      from: pool("1.28.0", { kubeletConfig }),
      to: pool("1.29.0", { kubeletConfig }),
    });
    assert.equal(
      report.findings.find((entry) => entry.ruleId === "LegacyServiceAccountTokenNoAutoGeneration")
        ?.code,
      "FEATURE_GATE_REMOVED",
    );
    const wrongVersion = kubeletConfig.replace("v1beta1", "v1");
    const refused = checkNodePoolUpgrade(snapshot, {
      controlPlaneVersion: "1.29.0",
      from: pool("1.28.0", {}),
      to: pool("1.29.0", { kubeletConfig: wrongVersion }),
    });
    assert.equal(
      refused.findings.find((entry) => entry.code === "CONFIG_API_NOT_AVAILABLE")?.severity,
      "ERROR",
    );
    assert.throws(
      () =>
        checkNodePoolUpgrade(snapshot, {
          controlPlaneVersion: "1.29.0",
          from: pool("1.28.0", {}),
          to: pool("1.29.0", { kubeletFlags: ["--feature-gates=Foo"] }),
        }),
      /"Foo" is not a feature-gate setting such as InPlacePodVerticalScaling=true/,
    );
  });

  it("judges control-plane gates in a plan at the component's version, and unknown gates as not judged", () => {
    const components = [
      ...plan("apiserver=1.26.3 kubelet=1.26.3"),
      {
        component: "kube-controller-manager",
        version: "1.26.3",
        featureGates: "DynamicKubeletConfig=false,NoSuchGateAnywhere=true",
      },
    ];
    const report = validateCluster(snapshot, components, { asOf: "2023-06-01" });
    assert.equal(
      report.findings.find((entry) => entry.ruleId === "DynamicKubeletConfig")?.code,
      "FEATURE_GATE_REMOVED",
    );
    assert.equal(
      report.findings.find((entry) => entry.ruleId === "NoSuchGateAnywhere")?.code,
      "FEATURE_GATE_UNKNOWN",
    );
    assert.equal(report.status, "UNSUPPORTED");
  });
});

describe("the firewall", () => {
  it("lists 6443 from workers to the control plane, and with Calico its BGP, IP-in-IP and VXLAN flows", () => {
    const plain = listFlows(snapshot, { from: "workers", to: "control-plane" });
    assert.ok(
      plain.flows.some(
        (flow) => flow.protocol === "TCP" && flow.port === 6443 && flow.need === "REQUIRED",
      ),
    );
    assert.ok(plain.flows.every((flow) => flow.cni === null));
    assert.match(plain.notes[0]!.message, /no CNI was named/);
    const calico = listFlows(snapshot, { from: "workers", to: "control-plane", cni: "calico" });
    const ports = calico.flows
      .filter((flow) => flow.cni === "calico")
      .map((flow) => `${flow.protocol}${flow.port === null ? "" : `/${flow.port}`}`);
    for (const expected of ["TCP/179", "IPIP", "UDP/4789"])
      assert.ok(ports.includes(expected), `${expected} missing from ${ports.join(", ")}`);
    assert.ok(!calico.flows.some((flow) => flow.cni === "cilium"));
    assert.throws(
      () => listFlows(snapshot, { cni: "weave" }),
      /cni "weave" has no flows in the knowledge base; known: calico, cilium, flannel/,
    );
    assert.throws(
      () => listFlows(snapshot, { from: "routers" }),
      /from "routers" is not a node role/,
    );
  });

  it("finds an allowed-flows list missing the apiserver → kubelet 10250 flow", () => {
    const allowed = [
      "workers -> control-plane tcp/6443",
      "control-plane -> control-plane tcp/2379-2380",
      "any -> any udp/1-65535",
    ];
    const result = checkFirewall(snapshot, allowed, { version: "1.31" });
    const missing = result.findings
      .filter((entry) => entry.code === "FLOW_NOT_ALLOWED" && entry.severity === "ERROR")
      .map((entry) => entry.ruleId);
    assert.deepEqual(missing, ["apiserver-to-kubelet"]);
    assert.equal(result.status, "UNSUPPORTED");
    const fixed = checkFirewall(snapshot, [...allowed, "control-plane -> workers tcp/10250"], {
      version: "1.31",
    });
    assert.ok(
      !fixed.findings.some((entry) => entry.severity === "ERROR"),
      JSON.stringify(fixed.findings.filter((entry) => entry.severity === "ERROR")),
    );
    assert.throws(
      () => parseAllowedFlows(["workers to control-plane 6443"]),
      /is not an allowed flow; write it as "workers -> control-plane tcp\/6443"/,
    );
  });

  it("exports rules nftables accepts (nft -c), iptables-restore text and JSON", () => {
    const list = listFlows(snapshot, { cni: "calico" });
    const nft = firewallRules(list, "nftables", {
      CONTROL_PLANE: ["10.0.0.0/24"],
      WORKER: ["10.1.0.0/16"],
    });
    assert.match(nft, /ip saddr @workers tcp dport 6443 accept comment "workers-to-apiserver/);
    assert.match(nft, /ip saddr @workers ip protocol ipip accept/);
    assert.match(nft, /tcp dport 30000-32767 accept/);
    const nftBinary = spawnSync("nft", ["--version"]).status === 0;
    if (nftBinary) {
      const file = path.join(
        fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-nft-")),
        "rules.nft",
      );
      fs.writeFileSync(file, nft);
      // Check mode parses and validates the ruleset without applying it.
      execFileSync("nft", ["-c", "-f", file]);
      fs.writeFileSync(file, firewallRules(list, "nftables"));
      execFileSync("nft", ["-c", "-f", file]);
    } else {
      // Without the binary: every rule line has the shape nft reads, and braces balance.
      assert.equal((nft.match(/{/g) ?? []).length, (nft.match(/}/g) ?? []).length);
      for (const line of nft.split("\n").filter((entry) => entry.includes(" accept")))
        assert.match(
          line,
          /^\t\t(ip saddr @\w+ )?(ip protocol (ipip|esp)|(tcp|udp|sctp) dport \d+(-\d+)?) accept comment "[^"]+"$/,
        );
    }
    const iptables = firewallRules(list, "iptables", { WORKER: ["10.1.0.0/16"] });
    assert.match(iptables, /^\*filter$/m);
    assert.match(
      iptables,
      /^-A KUBECOMPAT-CONTROL-PLANE -s 10\.1\.0\.0\/16 -p tcp --dport 6443 -m comment --comment "workers-to-apiserver[^"]*" -j ACCEPT$/m,
    );
    assert.match(
      iptables,
      /^-A KUBECOMPAT-WORKERS -m set --match-set kubecompat-control-plane src -p tcp --dport 10250 /m,
    );
    assert.match(iptables, /^COMMIT$/m);
    const json = JSON.parse(firewallRules(list, "json")) as Array<{
      id: string;
      fromRole: string;
      fromPort: number | null;
      toPort: number | null;
    }>;
    const nodePorts = json.find((rule) => rule.id === "nodeport-tcp");
    assert.deepEqual(
      [nodePorts?.fromRole, nodePorts?.fromPort, nodePorts?.toPort],
      ["EXTERNAL", 30000, 32767],
    );
    assert.ok(
      json.some(
        (rule) =>
          rule.id === "workers-to-apiserver" && rule.fromPort === 6443 && rule.toPort === 6443,
      ),
    );
  });

  it("answers on REST and GraphQL", async () => {
    const flows = await request(runtime.app)
      .get("/api/v1/flows")
      .query({ from: "workers", to: "control-plane", cni: "calico" })
      .expect(200);
    assert.ok(flows.body.flows.some((flow: { port: number | null }) => flow.port === 179));
    const rules = await request(runtime.app)
      .get("/api/v1/firewall-rules")
      .query({ format: "nftables", cni: "cilium" })
      .expect(200);
    assert.match(rules.body.rules, /^table inet kubecompat {$/m);
    const check = await request(runtime.app)
      .post("/api/v1/firewall/check")
      .send({ allowed: "workers -> control-plane tcp/6443\n", version: "1.31" })
      .expect(200);
    assert.ok(
      check.body.findings.some(
        (entry: { ruleId: string }) => entry.ruleId === "apiserver-to-kubelet",
      ),
    );
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query: `{ flows(from: "workers", to: "control-plane") { flows { id port protocol } } checkFirewall(allowed: ["workers -> control-plane tcp/6443"]) { status findings { code ruleId } } }`,
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.ok(
      graphql.body.data.flows.flows.some(
        (flow: { id: string }) => flow.id === "workers-to-apiserver",
      ),
    );
    assert.equal(graphql.body.data.checkFirewall.status, "UNSUPPORTED");
  });
});

describe("the new kinds are served", () => {
  it("lists each kind on REST and GraphQL", async () => {
    for (const [collection, count] of [
      ["behaviour-changes", snapshot.behaviourChanges.length],
      ["feature-gates", snapshot.featureGates.length],
      ["configuration-apis", snapshot.configurationApis.length],
      ["controllers", snapshot.controllers.length],
      ["network-flows", snapshot.networkFlows.length],
      ["field-rules", snapshot.fieldRules.length],
    ] as const) {
      const response = await request(runtime.app).get(`/api/v1/${collection}`).expect(200);
      assert.equal(response.body.items.length, count, collection);
      assert.ok(count > 0, collection);
    }
    const graphql = await request(runtime.app)
      .post("/graphql")
      .send({
        query: `{ behaviourChanges { id } featureGates(name: "DynamicKubeletConfig") { removedIn stages { stage } } configurationApis { kind } controllers { name tenantIsolation } fieldRules { id } }`,
      })
      .expect(200);
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.equal(graphql.body.data.featureGates[0].removedIn, "1.26");
    assert.equal(graphql.body.data.controllers.length, snapshot.controllers.length);
  });
});

describe("chat and the CLI", () => {
  let listening: { url: string; close(): Promise<void> } | undefined;
  before(async () => {
    listening = await startListeningRuntime({ inMemory: true });
  });
  after(async () => {
    await listening?.close();
  });

  it("answers `impact 1.24 -> 1.26 tenant-isolation` and `ports workers -> control-plane calico` in chat", () => {
    const impact = chatAnswer(snapshot, "impact 1.24 -> 1.26 tenant-isolation").text;
    assert.match(impact, /What changes from 1\.24 to 1\.26 for tenant-isolation/);
    assert.match(impact, /\*\*1\.25 \(\d+\)\*\*\n- `removed` PodSecurityPolicy is removed/);
    const ports = chatAnswer(snapshot, "ports workers -> control-plane calico").text;
    assert.match(ports, /Flows from workers to control plane with calico/);
    assert.match(ports, /`6443\/TCP` workers → control plane \(kube-apiserver\)/);
    assert.match(
      ports,
      /`179\/TCP` workers \(calico-node\) → control plane \(calico-node\) \[calico\]/,
    );
    assert.match(
      chatAnswer(snapshot, "ports kubelet").text,
      /Ports of kubelet/,
      "a component's ports are still asked the old way",
    );
    assert.match(
      chatAnswer(snapshot, "impact 1.24").text,
      /give the minor you upgrade from and the one you upgrade to/,
    );
  });

  it("runs `kubecompat impact`, `kubecompat flows --rules nftables` and `kubecompat firewall` against the server", async () => {
    const env = { KUBECOMPAT_URL: listening!.url, NO_COLOR: "1" };
    const impact = await kubecompat(
      ["impact", "--from", "1.24", "--to", "1.26", "--area", "tenant-isolation"],
      { env },
    );
    assert.equal(impact.code, 0, impact.stderr);
    assert.match(impact.stdout, /^1\.25:\n {2}REMOVED +PodSecurityPolicy is removed/m);
    const rules = await kubecompat(["flows", "--cni", "calico", "--rules", "nftables"], { env });
    assert.equal(rules.code, 0, rules.stderr);
    assert.match(rules.stdout, /^table inet kubecompat {$/m);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-firewall-"));
    fs.writeFileSync(
      path.join(dir, "allowed.txt"),
      "# what our security group allows\nworkers -> control-plane tcp/6443\ncontrol-plane -> control-plane tcp/2379\n",
    );
    const check = await kubecompat(["firewall", path.join(dir, "allowed.txt"), "--at", "1.31"], {
      env,
    });
    assert.equal(check.code, 1, "a missing required flow fails the pipeline");
    assert.match(check.stdout, /FLOW_NOT_ALLOWED/);
    assert.match(
      check.stdout,
      /control-plane \(kube-apiserver\) -> worker \(kubelet\) tcp\/10250 is not allowed/,
    );
    const usage = await kubecompat(["impact", "--from", "1.24"], { env });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /kubecompat impact needs --to \(e\.g\. --to 1\.29\)/);
  });
});
