/**
 * The facts in kb/ against the official sources they cite. The tables below
 * are transcribed from the official pages (deprecation guide, ports page,
 * skew policy); a change to kb/ that contradicts them fails here.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { listSkewRules } from "../src/domain/catalog.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import type { KbBundle } from "../src/knowledge/records.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import { KB_DIR } from "./support/runtime.js";

const GUIDE = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/";

// https://kubernetes.io/docs/reference/using-api/deprecation-guide/ : [apiVersion, kind, removedIn, replacement]
const DEPRECATION_GUIDE: Array<[string, string, string, string | null]> = [
  ["flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema", "1.32", "flowcontrol.apiserver.k8s.io/v1"],
  [
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "PriorityLevelConfiguration",
    "1.32",
    "flowcontrol.apiserver.k8s.io/v1",
  ],
  ["flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema", "1.29", "flowcontrol.apiserver.k8s.io/v1"],
  [
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "PriorityLevelConfiguration",
    "1.29",
    "flowcontrol.apiserver.k8s.io/v1",
  ],
  ["storage.k8s.io/v1beta1", "CSIStorageCapacity", "1.27", "storage.k8s.io/v1"],
  [
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "FlowSchema",
    "1.26",
    "flowcontrol.apiserver.k8s.io/v1beta2",
  ],
  [
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "PriorityLevelConfiguration",
    "1.26",
    "flowcontrol.apiserver.k8s.io/v1beta2",
  ],
  ["autoscaling/v2beta2", "HorizontalPodAutoscaler", "1.26", "autoscaling/v2"],
  ["batch/v1beta1", "CronJob", "1.25", "batch/v1"],
  ["discovery.k8s.io/v1beta1", "EndpointSlice", "1.25", "discovery.k8s.io/v1"],
  ["events.k8s.io/v1beta1", "Event", "1.25", "events.k8s.io/v1"],
  ["autoscaling/v2beta1", "HorizontalPodAutoscaler", "1.25", "autoscaling/v2"],
  ["policy/v1beta1", "PodDisruptionBudget", "1.25", "policy/v1"],
  ["policy/v1beta1", "PodSecurityPolicy", "1.25", null],
  ["node.k8s.io/v1beta1", "RuntimeClass", "1.25", "node.k8s.io/v1"],
  [
    "admissionregistration.k8s.io/v1beta1",
    "MutatingWebhookConfiguration",
    "1.22",
    "admissionregistration.k8s.io/v1",
  ],
  [
    "admissionregistration.k8s.io/v1beta1",
    "ValidatingWebhookConfiguration",
    "1.22",
    "admissionregistration.k8s.io/v1",
  ],
  ["apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", "1.22", "apiextensions.k8s.io/v1"],
  ["apiregistration.k8s.io/v1beta1", "APIService", "1.22", "apiregistration.k8s.io/v1"],
  ["authentication.k8s.io/v1beta1", "TokenReview", "1.22", "authentication.k8s.io/v1"],
  ["authorization.k8s.io/v1beta1", "SubjectAccessReview", "1.22", "authorization.k8s.io/v1"],
  ["authorization.k8s.io/v1beta1", "LocalSubjectAccessReview", "1.22", "authorization.k8s.io/v1"],
  ["authorization.k8s.io/v1beta1", "SelfSubjectAccessReview", "1.22", "authorization.k8s.io/v1"],
  ["certificates.k8s.io/v1beta1", "CertificateSigningRequest", "1.22", "certificates.k8s.io/v1"],
  ["coordination.k8s.io/v1beta1", "Lease", "1.22", "coordination.k8s.io/v1"],
  ["extensions/v1beta1", "Ingress", "1.22", "networking.k8s.io/v1"],
  ["networking.k8s.io/v1beta1", "Ingress", "1.22", "networking.k8s.io/v1"],
  ["networking.k8s.io/v1beta1", "IngressClass", "1.22", "networking.k8s.io/v1"],
  ["rbac.authorization.k8s.io/v1beta1", "ClusterRole", "1.22", "rbac.authorization.k8s.io/v1"],
  [
    "rbac.authorization.k8s.io/v1beta1",
    "ClusterRoleBinding",
    "1.22",
    "rbac.authorization.k8s.io/v1",
  ],
  ["rbac.authorization.k8s.io/v1beta1", "Role", "1.22", "rbac.authorization.k8s.io/v1"],
  ["rbac.authorization.k8s.io/v1beta1", "RoleBinding", "1.22", "rbac.authorization.k8s.io/v1"],
  ["scheduling.k8s.io/v1beta1", "PriorityClass", "1.22", "scheduling.k8s.io/v1"],
  ["storage.k8s.io/v1beta1", "CSIDriver", "1.22", "storage.k8s.io/v1"],
  ["storage.k8s.io/v1beta1", "CSINode", "1.22", "storage.k8s.io/v1"],
  ["storage.k8s.io/v1beta1", "StorageClass", "1.22", "storage.k8s.io/v1"],
  ["storage.k8s.io/v1beta1", "VolumeAttachment", "1.22", "storage.k8s.io/v1"],
  ["extensions/v1beta1", "NetworkPolicy", "1.16", "networking.k8s.io/v1"],
  ["extensions/v1beta1", "PodSecurityPolicy", "1.16", "policy/v1beta1"],
  ["extensions/v1beta1", "DaemonSet", "1.16", "apps/v1"],
  ["apps/v1beta2", "DaemonSet", "1.16", "apps/v1"],
  ["extensions/v1beta1", "Deployment", "1.16", "apps/v1"],
  ["apps/v1beta1", "Deployment", "1.16", "apps/v1"],
  ["apps/v1beta2", "Deployment", "1.16", "apps/v1"],
  ["apps/v1beta1", "StatefulSet", "1.16", "apps/v1"],
  ["apps/v1beta2", "StatefulSet", "1.16", "apps/v1"],
  ["extensions/v1beta1", "ReplicaSet", "1.16", "apps/v1"],
  ["apps/v1beta1", "ReplicaSet", "1.16", "apps/v1"],
  ["apps/v1beta2", "ReplicaSet", "1.16", "apps/v1"],
];

// https://kubernetes.io/docs/reference/networking/ports-and-protocols/ : [nodeRole, protocol, port, endPort, component]
const PORTS_PAGE: Array<[string, string, number, number | null, string]> = [
  ["CONTROL_PLANE", "TCP", 6443, null, "kube-apiserver"],
  ["CONTROL_PLANE", "TCP", 2379, 2380, "etcd"],
  ["CONTROL_PLANE", "TCP", 10250, null, "kubelet"],
  ["CONTROL_PLANE", "TCP", 10259, null, "kube-scheduler"],
  ["CONTROL_PLANE", "TCP", 10257, null, "kube-controller-manager"],
  ["WORKER", "TCP", 10250, null, "kubelet"],
  ["WORKER", "TCP", 10256, null, "kube-proxy"],
  ["WORKER", "TCP", 30000, 32767, "kube-proxy"],
];

describe("the knowledge base matches the official sources", () => {
  let kb: KbBundle;
  let snapshot: KbSnapshot;
  before(async () => {
    kb = await loadKbDirectory(KB_DIR);
    snapshot = new KbSnapshot(kb, { revision: 1, lastImportAt: null });
  });

  it("holds every entry of the deprecated API migration guide with its removal and replacement", () => {
    for (const [apiVersion, kind, removedIn, replacement] of DEPRECATION_GUIDE) {
      const entry = kb.apiRemovals.find(
        (removal) => removal.apiVersion === apiVersion && removal.kind === kind,
      );
      assert.ok(entry, `${apiVersion} ${kind} is missing`);
      assert.equal(entry.removedIn, removedIn, `${apiVersion} ${kind} removedIn`);
      assert.equal(entry.replacement, replacement, `${apiVersion} ${kind} replacement`);
      assert.ok(
        entry.sourceUrl.startsWith(`${GUIDE}#v1-${removedIn.split(".")[1]}`),
        `${apiVersion} ${kind} cites ${entry.sourceUrl}`,
      );
    }
  });

  it("cites the guide for every removal it lists, and a primary source for the others", () => {
    const inGuide = new Set(DEPRECATION_GUIDE.map(([apiVersion, kind]) => `${apiVersion} ${kind}`));
    for (const removal of kb.apiRemovals) {
      if (
        !inGuide.has(`${removal.apiVersion} ${removal.kind}`) &&
        removal.sourceUrl.startsWith(GUIDE)
      ) {
        // Entries the guide added after our table was transcribed must still be real guide sections.
        assert.match(removal.sourceUrl, /#v1-\d+$/);
      }
      assert.match(
        removal.sourceUrl,
        /^https:\/\/(kubernetes\.io|github\.com\/kubernetes\/)/,
        `${removal.apiVersion} ${removal.kind}`,
      );
    }
  });

  it("holds every row of the official ports page", () => {
    for (const [nodeRole, protocol, port, endPort, component] of PORTS_PAGE) {
      const entry = kb.ports.find(
        (candidate) =>
          candidate.nodeRole === nodeRole &&
          candidate.protocol === protocol &&
          candidate.port === port,
      );
      assert.ok(entry, `${nodeRole} ${protocol} ${port} is missing`);
      assert.equal(entry.endPort, endPort, `${port} endPort`);
      assert.equal(entry.component, component, `${port} component`);
      assert.equal(entry.direction, "INBOUND");
      assert.equal(
        entry.sourceUrl,
        "https://kubernetes.io/docs/reference/networking/ports-and-protocols/",
      );
    }
    const readOnly = kb.ports.find((port) => port.port === 10255);
    assert.equal(readOnly?.deprecated, true, "the kubelet read-only port is deprecated");
  });

  it("encodes the skew policy with its history", () => {
    const rule = (version: string, component: string, relativeTo: string, profile = "upstream") => {
      const rules = listSkewRules(snapshot, { kubernetesVersion: version, profile }).filter(
        (candidate) =>
          candidate.component === component &&
          candidate.relativeTo === relativeTo &&
          candidate.profile === profile,
      );
      assert.equal(
        rules.length,
        1,
        `${profile} ${component} vs ${relativeTo} at ${version}: ${rules.map((r) => r.id).join(", ")}`,
      );
      return rules[0]!;
    };
    for (const version of ["1.19", "1.22", "1.27"]) {
      assert.deepEqual(
        [
          rule(version, "kubelet", "kube-apiserver").maxNewer,
          rule(version, "kubelet", "kube-apiserver").maxOlder,
        ],
        [0, 2],
        version,
      );
      assert.equal(rule(version, "kube-proxy", "kube-apiserver").maxOlder, 2, version);
    }
    for (const version of ["1.28", "1.31", "1.37"]) {
      const kubelet = rule(version, "kubelet", "kube-apiserver");
      assert.deepEqual(
        [kubelet.maxNewer, kubelet.maxOlder, kubelet.condition],
        [0, 3, { componentOlderThan: "1.25", maxOlder: 2 }],
        version,
      );
      const proxy = rule(version, "kube-proxy", "kubelet");
      assert.deepEqual([proxy.maxNewer, proxy.maxOlder], [3, 3], version);
    }
    assert.deepEqual(
      [
        rule("1.26", "kube-proxy", "kubelet").maxNewer,
        rule("1.26", "kube-proxy", "kubelet").maxOlder,
      ],
      [0, 0],
    );
    for (const component of [
      "kube-controller-manager",
      "kube-scheduler",
      "cloud-controller-manager",
    ]) {
      const controller = rule("1.30", component, "kube-apiserver");
      assert.deepEqual(
        [
          controller.maxNewer,
          controller.maxOlder,
          controller.newerMeasuredFrom,
          controller.olderMeasuredFrom,
        ],
        [0, 1, "OLDEST", "NEWEST"],
        component,
      );
    }
    const kubectl = rule("1.30", "kubectl", "kube-apiserver");
    assert.deepEqual([kubectl.maxNewer, kubectl.maxOlder], [1, 1]);
    const peers = rule("1.30", "kube-apiserver", "kube-apiserver-peers");
    assert.deepEqual([peers.maxNewer, peers.maxOlder], [1, 1]);
    const strict = rule("1.30", "kubelet", "kube-apiserver", "strict");
    assert.deepEqual([strict.maxNewer, strict.maxOlder], [0, 1]);
    assert.equal(rule("1.30", "kube-proxy", "kube-apiserver", "strict").maxOlder, 1);
  });

  it("has every release from 1.19 to the newest, without gaps, with dates and sources", () => {
    const minors = snapshot.releases.map((release) => Number(release.version.split(".")[1]));
    assert.equal(minors[0], 19);
    assert.ok((minors.at(-1) ?? 0) >= 35, "releases up to at least 1.35");
    minors.forEach((minor, index) => assert.equal(minor, 19 + index, "no gaps"));
    // Release dates from the official release history (https://kubernetes.io/releases/).
    const known: Record<string, string> = {
      "1.19": "2020-08-26",
      "1.20": "2020-12-08",
      "1.21": "2021-04-08",
      "1.22": "2021-08-04",
      "1.23": "2021-12-07",
      "1.24": "2022-05-03",
      "1.25": "2022-08-23",
      "1.26": "2022-12-09",
      "1.27": "2023-04-11",
      "1.28": "2023-08-15",
      "1.29": "2023-12-13",
      "1.30": "2024-04-17",
      "1.31": "2024-08-13",
      "1.32": "2024-12-11",
      "1.33": "2025-04-23",
      "1.34": "2025-08-27",
      "1.35": "2025-12-17",
    };
    for (const release of snapshot.releases) {
      if (known[release.version])
        assert.equal(release.releaseDate, known[release.version], release.version);
      assert.match(
        release.sourceUrl,
        /^https:\/\/(kubernetes\.io|endoflife\.date|github\.com\/kubernetes)/,
      );
    }
    for (const release of snapshot.releases.slice(0, -2)) {
      assert.ok(release.endOfLife, `${release.version} has an end-of-life date`);
    }
  });

  it("knows the runtime requirements the skew rules depend on", () => {
    const requirement = (id: string) =>
      kb.runtimeRequirements.find((candidate) => candidate.id === id);
    assert.deepEqual(
      [
        requirement("dockershim-removed")?.kubernetesFrom,
        requirement("dockershim-removed")?.requires,
      ],
      ["1.24", "cri-dockerd"],
    );
    assert.deepEqual(
      [
        requirement("containerd-cri-v1alpha2-removed")?.kubernetesFrom,
        requirement("containerd-cri-v1alpha2-removed")?.minVersion,
      ],
      ["1.26", "1.6.0"],
    );
    assert.deepEqual(
      [
        requirement("containerd-2-required")?.kubernetesFrom,
        requirement("containerd-2-required")?.minVersion,
      ],
      ["1.38", "2.0.0"],
    );
    assert.equal(requirement("etcd2-backend-removed")?.kubernetesFrom, "1.13");
  });

  it("covers every system of the design notes", () => {
    for (const name of [
      "kube-apiserver",
      "etcd",
      "kube-controller-manager",
      "kube-scheduler",
      "kubelet",
      "kube-proxy",
      "containerd",
      "cri-o",
      "docker-engine",
    ]) {
      assert.ok(snapshot.findComponent(name), name);
    }
    const link = (from: string, to: string) =>
      kb.links.find((candidate) => candidate.from === from && candidate.to === to);
    assert.equal(link("kube-apiserver", "etcd")?.minTlsVersion, "1.2");
    assert.match(link("kube-apiserver", "etcd")?.protocol ?? "", /gRPC/);
    for (const [from, to] of [
      ["kubectl", "kube-apiserver"],
      ["kube-controller-manager", "kube-apiserver"],
      ["kube-scheduler", "kube-apiserver"],
      ["kubelet", "kube-apiserver"],
      ["kube-apiserver", "kubelet"],
    ]) {
      assert.ok(link(from!, to!), `${from} -> ${to}`);
    }
    const order = (before: string, after: string) =>
      kb.upgradeDependencies.some((edge) => edge.before === before && edge.after === after);
    assert.ok(
      order("etcd", "kube-apiserver") &&
        order("kube-apiserver", "kube-scheduler") &&
        order("containerd", "kubelet") &&
        order("kubelet", "kube-proxy"),
    );
    const recommendation = (id: string) =>
      kb.recommendations.find((candidate) => candidate.id === id);
    assert.match(recommendation("leader-election-pause")?.text ?? "", /15 s/);
    assert.match(recommendation("worker-system-reserved")?.text ?? "", /0\.5 CPU and 1 GiB/);
    assert.match(
      recommendation("control-plane-upgrade-headroom")?.text ?? "",
      /1 CPU core and 2 GiB/,
    );
  });
});
