/**
 * Add-ons, third-party APIs, CRDs and managed platforms (issue 16), at the
 * boundaries the reviewed kb/ gives: the domain core on the shipped kb/
 * snapshot, and the same questions over REST, GraphQL and chat. No cluster
 * runs here: the `kubectl get deployments,daemonsets -A -o json` input is a
 * fixture written in that command's real format (test/fixtures/addons).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { answer as chatAnswer } from "../src/chatops/commands.js";
import { planFromKubectl, splitImage } from "../src/domain/kubectl-inputs.js";
import { scanManifests } from "../src/domain/scan.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import type { Finding } from "../src/domain/findings.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kubecompat } from "./support/cli-process.js";
import {
  startListeningRuntime,
  startSnapshotRuntime,
  type SnapshotRuntime,
} from "./support/runtime.js";
import { kbSnapshot, plan } from "./support/snapshot.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures", "addons");
const workloads = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, "workloads.json"), "utf8"),
) as unknown;

let snapshot: KbSnapshot;
let runtime: SnapshotRuntime;
before(async () => {
  snapshot = await kbSnapshot();
  runtime = await startSnapshotRuntime();
});
after(async () => {
  await runtime.close();
});

const codes = (findings: readonly Finding[], prefix: string) =>
  findings
    .filter((entry) => entry.code.startsWith(prefix))
    .map((entry) => `${entry.severity} ${entry.code} ${entry.component ?? ""}`);

describe("add-ons against the control plane", () => {
  const cases: Array<{ cluster: string; asOf?: string; expect: string[]; about: string }> = [
    {
      about: "cluster-autoscaler's minor must equal the control plane's",
      cluster: "apiserver=1.30.4 cluster-autoscaler=1.27.3",
      expect: ["ERROR ADDON_UNSUPPORTED cluster-autoscaler"],
    },
    {
      about: "the matching cluster-autoscaler minor is fine",
      cluster: "apiserver=1.30.4 cluster-autoscaler=v1.30.2",
      expect: [],
    },
    {
      about: "cluster-autoscaler 1.35, released after its table's last row",
      cluster: "apiserver=1.35.1 cluster-autoscaler=1.35.0",
      asOf: "2026-03-01",
      expect: [],
    },
    {
      about: "cluster-autoscaler 1.35 under a 1.36 control plane",
      cluster: "apiserver=1.36.0 cluster-autoscaler=1.35.2",
      asOf: "2026-08-01",
      expect: ["ERROR ADDON_UNSUPPORTED cluster-autoscaler"],
    },
    {
      about: "a cluster-autoscaler minor past the knowledge is not known, not green",
      cluster: "apiserver=1.37.0 cluster-autoscaler=1.37.0",
      asOf: "2026-12-01",
      expect: ["WARNING ADDON_BEYOND_KNOWLEDGE cluster-autoscaler"],
    },
    {
      about: "ingress-nginx v1.9.4 is tabled for 1.25-1.28 only",
      cluster: "apiserver=1.30.4 ingress-nginx=v1.9.4",
      asOf: "2025-06-01",
      expect: ["ERROR ADDON_UNSUPPORTED ingress-nginx"],
    },
    {
      about: "ingress-nginx inside its table",
      cluster: "apiserver=1.28.4 ingress-nginx=v1.9.4",
      asOf: "2025-06-01",
      expect: [],
    },
    {
      about: "ingress-nginx is retired from March 2026",
      cluster: "apiserver=1.28.4 ingress-nginx=v1.9.4",
      asOf: "2026-04-01",
      expect: ["WARNING ADDON_RETIRED ingress-nginx"],
    },
    {
      about: "a table of tested versions warns outside it (Argo CD)",
      cluster: "apiserver=1.33.1 argo-cd=v2.8.4",
      expect: ["WARNING ADDON_UNTESTED argo-cd"],
    },
    {
      about: "Karpenter's minimum for a minor",
      cluster: "apiserver=1.32.1 karpenter=0.37.0",
      expect: ["ERROR ADDON_UNSUPPORTED karpenter"],
    },
    { about: "Karpenter at the minimum", cluster: "apiserver=1.32.1 karpenter=1.2.0", expect: [] },
    {
      about: "a minor newer than the table is not known, not green",
      cluster: "apiserver=1.37.0 cert-manager=v1.21.0",
      expect: ["WARNING ADDON_BEYOND_KNOWLEDGE cert-manager"],
    },
    {
      about: "a version in no line is not judged",
      cluster: "apiserver=1.30.4 cert-manager=v0.9.0",
      expect: ["WARNING ADDON_VERSION_NOT_JUDGED cert-manager"],
    },
    {
      about: "a policy-only project is said, not judged",
      cluster: "apiserver=1.30.4 gateway-api=v1.1.0",
      expect: ["INFO ADDON_POLICY_ONLY gateway-api"],
    },
    // Cilium's lines between 1.13 and 1.18, each with the minors its docs list as tested, and its end of life.
    {
      about: "Cilium 1.16 inside its tested minors",
      cluster: "apiserver=1.30.4 cilium=v1.16.5",
      expect: [],
    },
    {
      about: "Cilium 1.16 past its tested minors",
      cluster: "apiserver=1.31.2 cilium=v1.16.5",
      expect: ["WARNING ADDON_UNTESTED cilium"],
    },
    {
      about: "Cilium 1.16 past its end of life",
      cluster: "apiserver=1.30.4 cilium=v1.16.5",
      asOf: "2026-03-01",
      expect: ["WARNING ADDON_END_OF_LIFE cilium"],
    },
    {
      about: "Cilium 1.14 reaches back to 1.19",
      cluster: "apiserver=1.19.16 cilium=1.14.3",
      asOf: "2024-06-01",
      expect: [],
    },
    {
      about: "Cilium 1.17 does not cover 1.28",
      cluster: "apiserver=1.28.9 cilium=v1.17.2",
      expect: ["WARNING ADDON_UNTESTED cilium"],
    },
    {
      about: "Cilium 1.20, whose tested minors are not known, is not judged",
      cluster: "apiserver=1.34.1 cilium=v1.20.1",
      expect: ["WARNING ADDON_VERSION_NOT_JUDGED cilium"],
    },
  ];
  for (const { about, cluster, asOf, expect } of cases) {
    it(`${about}: ${cluster}`, () => {
      const report = validateCluster(snapshot, plan(cluster), { asOf: asOf ?? "2026-01-15" });
      assert.deepEqual(
        codes(report.findings, "ADDON_"),
        expect,
        JSON.stringify(report.findings, null, 1),
      );
      assert.equal(report.ok, !expect.some((entry) => entry.startsWith("ERROR")));
    });
  }

  it("names what is unsupported and which versions would be", () => {
    const report = validateCluster(snapshot, plan("apiserver=1.30.4 ingress-nginx=v1.9.4"), {
      asOf: "2025-06-01",
    });
    const unsupported = report.findings.find((entry) => entry.code === "ADDON_UNSUPPORTED")!;
    assert.match(
      unsupported.message,
      /ingress-nginx v1\.9\.4 is not supported with Kubernetes 1\.30: ingress-nginx's table gives 1\.25-1\.28 for it; versions for 1\.30: /,
    );
    assert.match(
      unsupported.sourceUrl ?? "",
      /^https:\/\/github\.com\/kubernetes\/ingress-nginx\/blob\/[0-9a-f]{40}\/README\.md/,
    );
  });

  it("refuses an add-on with node fields, and says which names exist", () => {
    assert.throws(
      () =>
        validateCluster(snapshot, [
          { component: "kube-apiserver", version: "1.30.0" },
          { component: "cert-manager", version: "v1.12.0", cgroupVersion: "v2" },
        ]),
      /cert-manager is an add-on; cgroupVersion belongs on a kubelet/,
    );
    assert.throws(
      () => validateCluster(snapshot, [{ component: "ingress-nginx", version: "latest" }]),
      /components\[0\]\.version "latest" is not a version/,
    );
  });

  it("plans ingress-nginx's upgrade before the hop that drops it, and cluster-autoscaler right after each hop", () => {
    const result = planUpgrade(
      snapshot,
      plan("apiserver=1.27.3 kubelet@pool-a=1.27.3 ingress-nginx=v1.9.4 cluster-autoscaler=1.27.2"),
      "1.30",
      { asOf: "2025-01-01" },
    );
    assert.equal(
      result.ok,
      true,
      JSON.stringify(result.findings.filter((entry) => entry.severity === "ERROR")),
    );
    const order = (component: string, to: string) =>
      result.steps.find((step) => step.component === component && step.toVersion.startsWith(to))
        ?.order;
    const apiserverTo = (minor: string) => order("kube-apiserver", minor)!;
    const ingress = result.steps.filter((step) => step.component === "ingress-nginx");
    assert.ok(ingress.length >= 1, JSON.stringify(result.steps));
    // v1.9.4 supports 1.25-1.28: it must move after the control plane reached 1.28 and before it reaches 1.29.
    assert.ok(
      ingress[0]!.order > apiserverTo("1.28.") && ingress[0]!.order < apiserverTo("1.29."),
      JSON.stringify(result.steps),
    );
    assert.match(ingress[0]!.note, /before kube-apiserver reaches 1\.29/);
    // Each hop's autoscaler follows its apiserver.
    for (const minor of ["1.28", "1.29", "1.30"]) {
      const autoscaler = order("cluster-autoscaler", minor)!;
      assert.ok(
        autoscaler > apiserverTo(`${minor}.`),
        `cluster-autoscaler ${minor} after kube-apiserver ${minor}: ${JSON.stringify(result.steps)}`,
      );
    }
    // The final state judges them again: nothing is left unsupported; between each hop and its move the plan says so (INFO).
    assert.equal(
      result.findings.filter(
        (entry) => entry.code === "ADDON_UNSUPPORTED" && entry.severity !== "INFO",
      ).length,
      0,
    );
    assert.ok(
      result.findings.some(
        (entry) =>
          entry.code === "ADDON_UNSUPPORTED" &&
          entry.severity === "INFO" &&
          entry.message.startsWith("on the way: "),
      ),
    );
  });

  it("upgrades cert-manager one minor at a time, as its project says", () => {
    const result = planUpgrade(snapshot, plan("apiserver=1.29.3 cert-manager=v1.14.0"), "1.33", {
      asOf: "2025-09-01",
    });
    const steps = result.steps
      .filter((step) => step.component === "cert-manager")
      .map((step) => step.toVersion.split(".").slice(0, 2).join("."));
    assert.ok(steps.length >= 2, JSON.stringify(result.steps));
    const minors = steps.map((version) => Number(version.split(".")[1]));
    minors.forEach((minor, index) =>
      assert.equal(
        minor,
        (index === 0 ? 14 : minors[index - 1]!) + 1,
        `one minor at a time: ${steps.join(" -> ")}`,
      ),
    );
  });

  it("says when no known version carries an add-on across a hop, and a minor past a table's end is not known rather than green", () => {
    const beyond = planUpgrade(snapshot, plan("apiserver=1.34.1 ingress-nginx=v1.14.5"), "1.36", {
      asOf: "2026-01-10",
    });
    assert.ok(
      beyond.steps.some(
        (step) => step.component === "ingress-nginx" && step.toVersion.startsWith("1.15"),
      ),
      JSON.stringify(beyond.steps),
    );
    assert.ok(
      beyond.findings.some(
        (entry) => entry.code === "ADDON_BEYOND_KNOWLEDGE" && entry.component === "ingress-nginx",
      ),
    );
    // cluster-autoscaler's releases, as the knowledge base has them, end at 1.36: each hop up to it takes the matching
    // minor along, and nothing known matches 1.37.
    const known = planUpgrade(
      snapshot,
      plan("apiserver=1.34.1 cluster-autoscaler=v1.34.2"),
      "1.36",
      { asOf: "2026-09-01" },
    );
    assert.deepEqual(
      known.steps
        .filter((step) => step.component === "cluster-autoscaler")
        .map((step) => step.toVersion),
      ["1.35", "1.36"],
    );
    assert.ok(
      !known.findings.some(
        (entry) => entry.component === "cluster-autoscaler" && entry.severity !== "INFO",
      ),
      JSON.stringify(known.findings),
    );
    const result = planUpgrade(
      snapshot,
      plan("apiserver=1.34.1 cluster-autoscaler=v1.34.2"),
      "1.37",
      { asOf: "2026-09-01" },
    );
    assert.ok(
      result.findings.some(
        (entry) =>
          entry.code === "ADDON_NO_SUPPORTED_VERSION" && entry.component === "cluster-autoscaler",
      ),
      JSON.stringify(result.findings.map((entry) => entry.code)),
    );
    assert.equal(result.ok, false);
  });
});

describe("add-ons found in a cluster", () => {
  it("splits image references the way registries name them", () => {
    assert.deepEqual(splitImage("calico/node:v3.26.4"), {
      repository: "docker.io/calico/node",
      tag: "v3.26.4",
    });
    assert.deepEqual(splitImage("redis"), { repository: "docker.io/library/redis", tag: null });
    assert.deepEqual(splitImage("registry.k8s.io/ingress-nginx/controller:v1.9.4@sha256:5b16"), {
      repository: "registry.k8s.io/ingress-nginx/controller",
      tag: "v1.9.4",
    });
    assert.deepEqual(splitImage("localhost:5000/team/app:1.0"), {
      repository: "localhost:5000/team/app",
      tag: "1.0",
    });
  });

  it("recognises add-ons by their images in `kubectl get deployments,daemonsets -A -o json`, and lists the images it could not place", () => {
    const notes: Finding[] = [];
    const found = planFromKubectl(snapshot, { workloads }, notes);
    assert.deepEqual(found.map((entry) => `${entry.component}=${entry.version}`).sort(), [
      "aws-vpc-cni=v1.18.1-eksbuild.1",
      "calico=v3.26.4",
      "cert-manager=v1.12.0",
      "cluster-autoscaler=v1.27.3",
      "flux=v2.4.0",
      "ingress-nginx=v1.9.4",
    ]);
    const unplaced = notes.find((entry) => entry.code === "ADDON_UNKNOWN")!;
    assert.match(
      unplaced.message,
      /2 images of no add-on the knowledge base knows, not judged: docker\.io\/library\/redis, ghcr\.io\/example-shop\/checkout/,
    );
  });

  it("judges them on POST /api/v1/validate/from-kubectl beside the control plane's version", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/validate/from-kubectl")
      .send({
        kubectlVersion: {
          clientVersion: { gitVersion: "v1.30.2" },
          serverVersion: { gitVersion: "v1.30.4" },
        },
        workloads,
        asOf: "2025-06-01",
      })
      .expect(200);
    const body = response.body as { ok: boolean; findings: Finding[] };
    assert.equal(body.ok, false);
    assert.ok(
      body.findings.some(
        (entry) => entry.code === "ADDON_UNSUPPORTED" && entry.component === "cluster-autoscaler",
      ),
    );
    assert.ok(
      body.findings.some(
        (entry) => entry.code === "ADDON_UNSUPPORTED" && entry.component === "ingress-nginx",
      ),
    );
    assert.ok(
      body.findings.some(
        (entry) => entry.code === "ADDON_UNKNOWN" && /example-shop/.test(entry.message),
      ),
      "the unplaced images are in the answer",
    );
    await request(runtime.app)
      .post("/api/v1/validate/from-kubectl")
      .send({ workloads: { items: [{ kind: "Deployment", metadata: { name: "x" } }] } })
      .expect(400, /workloads\.items\[0\]\.spec\.template\.spec\.containers is missing/);
  });
});

const certificate = (apiVersion: string) => `apiVersion: ${apiVersion}
kind: Certificate
metadata:
  name: shop-tls
  namespace: shop
spec:
  secretName: shop-tls
  dnsNames: [shop.example.com]
  issuerRef: {name: letsencrypt, kind: ClusterIssuer}
`;

const widgetCrd = (versions: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
${versions}`;

const widget = (version: string) => `apiVersion: example.com/${version}
kind: Widget
metadata:
  name: w1
  namespace: shop
spec: {size: 3}
`;

describe("third-party APIs and CRD-declared lifecycles in scans", () => {
  it("reports a cert-manager v1alpha2 Certificate with the release that stopped serving it, and judges it when the add-on's version is given", () => {
    const unknownVersion = scanManifests(snapshot, certificate("cert-manager.io/v1alpha2"), "1.30");
    const [gone] = unknownVersion.changeFindings;
    assert.equal(gone?.code, "ADDON_API_GONE_IN_RELEASE");
    assert.equal(gone?.changesIn, "cert-manager v1.6");
    assert.equal(gone?.replacement, "cert-manager.io/v1");
    assert.ok(
      !unknownVersion.notes.some((note) => note.code === "API_NOT_JUDGED"),
      "judged, not passed over",
    );
    const removed = scanManifests(snapshot, certificate("cert-manager.io/v1alpha2"), "1.30", {
      addons: [{ name: "cert-manager", version: "v1.12.0" }],
    });
    assert.equal(removed.changeFindings[0]?.code, "ADDON_API_REMOVED");
    assert.equal(removed.changeFindings[0]?.severity, "ERROR");
    assert.equal(removed.status, "UNSUPPORTED");
    const stillServed = scanManifests(snapshot, certificate("cert-manager.io/v1alpha2"), "1.30", {
      addons: [{ name: "cert-manager", version: "v1.3.1" }],
    });
    assert.deepEqual(
      stillServed.changeFindings,
      [],
      "cert-manager 1.3 still serves v1alpha2 without deprecating it",
    );
    assert.deepEqual(
      scanManifests(snapshot, certificate("cert-manager.io/v1"), "1.30", {
        addons: [{ name: "cert-manager", version: "v1.12.0" }],
      }).changeFindings,
      [],
    );
    assert.throws(
      () =>
        scanManifests(snapshot, certificate("cert-manager.io/v1"), "1.30", {
          addons: [{ name: "certmgr", version: "1.0" }],
        }),
      /addons\[0\]\.name: unknown add-on "certmgr"/,
    );
  });

  it("reports snapshot.storage.k8s.io/v1beta1 objects instead of passing over them", () => {
    const scan = scanManifests(
      snapshot,
      "apiVersion: snapshot.storage.k8s.io/v1beta1\nkind: VolumeSnapshot\nmetadata: {name: db-backup}\nspec: {source: {persistentVolumeClaimName: db}}\n",
      "1.30",
    );
    assert.equal(scan.changeFindings[0]?.code, "ADDON_API_GONE_IN_RELEASE");
    assert.match(scan.changeFindings[0].message, /CSI external-snapshotter|external-snapshotter/);
  });

  it("judges objects by the CRD beside them: deprecated is a WARNING with its warning, not served is an ERROR", () => {
    const crd =
      widgetCrd(`    - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
    - {name: v1beta1, served: true, storage: false, deprecated: true, deprecationWarning: "example.com/v1beta1 Widget is deprecated; use example.com/v1", schema: {openAPIV3Schema: {type: object}}}
    - {name: v1alpha1, served: false, storage: false, schema: {openAPIV3Schema: {type: object}}}
`);
    const scan = scanManifests(
      snapshot,
      [widget("v1beta1"), crd, widget("v1alpha1"), widget("v1"), widget("v2")].join("---\n"),
      "1.30",
    );
    assert.deepEqual(
      scan.changeFindings.map((entry) => [entry.code, entry.severity, entry.apiVersion]),
      [
        ["CRD_VERSION_DEPRECATED", "WARNING", "example.com/v1beta1"],
        ["CRD_VERSION_NOT_SERVED", "ERROR", "example.com/v1alpha1"],
        ["CRD_VERSION_NOT_SERVED", "ERROR", "example.com/v2"],
      ],
    );
    assert.match(
      scan.changeFindings[0]!.message,
      /"example\.com\/v1beta1 Widget is deprecated; use example\.com\/v1"/,
    );
    assert.equal(scan.changeFindings[1]!.replacement, "example.com/v1");
  });

  it("refuses a CRD update that drops a version the cluster still stores", () => {
    const update = widgetCrd(
      "    - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n",
    );
    const cluster = {
      apiVersion: "v1",
      kind: "List",
      items: [
        {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name: "widgets.example.com", resourceVersion: "9911" },
          spec: {
            group: "example.com",
            names: { kind: "Widget", plural: "widgets" },
            scope: "Namespaced",
            versions: [
              { name: "v1beta1", served: true, storage: false },
              { name: "v1", served: true, storage: true },
            ],
          },
          status: {
            storedVersions: ["v1beta1", "v1"],
            acceptedNames: { kind: "Widget", plural: "widgets" },
          },
        },
      ],
    };
    const scan = scanManifests(snapshot, update, "1.30", { crds: cluster });
    assert.deepEqual(
      scan.changeFindings.map((entry) => [entry.code, entry.severity, entry.kind]),
      [["CRD_STORED_VERSION_DROPPED", "ERROR", "CustomResourceDefinition"]],
    );
    assert.match(
      scan.changeFindings[0]!.message,
      /drops v1beta1, which the cluster still lists in status\.storedVersions.*storage version migration/,
    );
    // The cluster's CRDs also judge objects of a CRD the manifests do not carry.
    assert.equal(
      scanManifests(snapshot, widget("v1alpha9"), "1.30", { crds: cluster }).changeFindings[0]
        ?.code,
      "CRD_VERSION_NOT_SERVED",
    );
    assert.throws(
      () =>
        scanManifests(snapshot, widget("v1"), "1.30", {
          crds: { items: [{ kind: "CustomResourceDefinition" }] },
        }),
      /crds\.items\[0\] is not a CustomResourceDefinition/,
    );
  });
});

describe("managed platforms", () => {
  it("judges EKS 1.29 in extended support as a WARNING naming the end of standard support, and past it as an ERROR", () => {
    const inExtended = validateCluster(snapshot, plan("apiserver=v1.29.3-eks-1234567"), {
      asOf: "2025-06-01",
    });
    const warning = inExtended.findings.find((entry) => entry.code === "PLATFORM_EXTENDED_SUPPORT");
    assert.ok(warning !== undefined, JSON.stringify(inExtended.findings));
    assert.equal(warning.severity, "WARNING");
    assert.match(
      warning.message,
      /Amazon EKS 1\.29 left standard support on 2025-03-23 and is in extended support \(where the cluster is enrolled in it\) until 2026-03-23/,
    );
    assert.ok(
      !inExtended.findings.some((entry) => entry.code === "RELEASE_END_OF_LIFE"),
      "the platform's calendar replaces upstream's end of life",
    );
    assert.equal(inExtended.ok, true);
    const ended = validateCluster(snapshot, plan("apiserver=1.29.3"), {
      asOf: "2026-04-01",
      platform: "eks",
    });
    assert.ok(
      ended.findings.some(
        (entry) => entry.code === "PLATFORM_END_OF_SUPPORT" && entry.severity === "ERROR",
      ),
    );
    const upstream = validateCluster(snapshot, plan("apiserver=1.29.3"), { asOf: "2025-06-01" });
    assert.ok(
      upstream.findings.some((entry) => entry.code === "RELEASE_END_OF_LIFE") &&
        !upstream.findings.some((entry) => entry.check === "PLATFORM"),
      "plain versions are upstream's",
    );
    assert.throws(
      () =>
        validateCluster(snapshot, plan("apiserver=1.29.3"), { platform: "openshift-dedicated" }),
      /unknown platform "openshift-dedicated"; known platforms: eks, gke, aks/,
    );
    // GKE publishes no end of extended support per minor: past standard support it is a WARNING with the end unknown, not a guessed ERROR.
    const gke = validateCluster(snapshot, plan("apiserver=v1.30.3-gke.1969001"), {
      asOf: "2026-11-01",
    });
    assert.deepEqual(
      gke.findings
        .filter((entry) => entry.check === "PLATFORM")
        .map((entry) => [entry.code, entry.severity]),
      [["PLATFORM_EXTENDED_SUPPORT", "WARNING"]],
    );
    assert.match(
      gke.findings.find((entry) => entry.check === "PLATFORM")!.message,
      /until a date the knowledge base does not know/,
    );
    // A plan is still made for a cluster past its platform's support: that is when it is needed.
    const late = planUpgrade(
      snapshot,
      plan("apiserver=v1.29.3-eks-1234567 kubelet@ng=v1.29.3-eks-1234567"),
      "1.31",
      { asOf: "2026-04-01" },
    );
    assert.ok(
      late.steps.length > 0 &&
        !late.findings.some((entry) => entry.code === "PLAN_CURRENT_STATE_INVALID"),
      JSON.stringify(late.findings.map((entry) => entry.code)),
    );
  });

  it("on EKS, brings every node pool to the control plane's minor before each control-plane hop; upstream lets them trail", () => {
    const pools =
      "apiserver=v1.30.4-eks-1234567 kubelet@ng-a=v1.29.8-eks-1234567 kubelet@ng-b=v1.30.4-eks-1234567";
    const eks = planUpgrade(snapshot, plan(pools), "1.32", { asOf: "2026-09-01" });
    const moves = (result: typeof eks) =>
      result.steps
        .filter((step) => step.component === "kubelet" || step.component === "kube-apiserver")
        .map(
          (step) =>
            `${step.component}${step.instance === null ? "" : `@${step.instance}`} ${step.toVersion.split(".").slice(0, 2).join(".")}`,
        );
    assert.deepEqual(moves(eks), [
      "kubelet@ng-a 1.30",
      "kube-apiserver 1.31",
      "kubelet@ng-a 1.31",
      "kubelet@ng-b 1.31",
      "kube-apiserver 1.32",
      "kubelet@ng-a 1.32",
      "kubelet@ng-b 1.32",
    ]);
    const levelled = eks.steps.find(
      (step) => step.component === "kubelet" && step.instance === "ng-a",
    );
    assert.match(
      levelled?.note ?? "",
      /Amazon EKS updates the control plane to 1\.31 only once the nodes are on its minor, 1\.30 \(eks-nodes-match-before-cp-upgrade/,
    );
    // Every state the plan passes through holds for EKS as for upstream, and ends at the target.
    assert.equal(
      eks.ok,
      true,
      JSON.stringify(eks.findings.filter((entry) => entry.severity === "ERROR")),
    );
    // Without the platform (plain versions, `upstream`), the same pools may trail by the skew policy and move once, at the end.
    const upstream = planUpgrade(
      snapshot,
      plan("apiserver=1.30.4 kubelet@ng-a=1.29.8 kubelet@ng-b=1.30.4"),
      "1.32",
      { asOf: "2026-09-01", platform: "upstream" },
    );
    assert.deepEqual(moves(upstream), [
      "kube-apiserver 1.31",
      "kube-apiserver 1.32",
      "kubelet@ng-a 1.32",
      "kubelet@ng-b 1.32",
    ]);
    // The rule says what the planner does with it, on REST as in kb/.
    const rules = (
      snapshot.platforms.find((platform) => platform.name === "eks")?.rules ?? []
    ).filter((rule) => rule.plan !== null);
    assert.deepEqual(
      rules.map((rule) => [rule.id, rule.plan]),
      [["eks-nodes-match-before-cp-upgrade", "NODES_MATCH_CONTROL_PLANE"]],
    );
  });

  it("tells an EKS upgrade past 1.32 that Amazon Linux 2 node images end", () => {
    const result = planUpgrade(
      snapshot,
      plan("apiserver=v1.31.4-eks-1234567 kubelet@ng-1=v1.31.4-eks-1234567"),
      "1.33",
      { asOf: "2025-08-01" },
    );
    const changes = result.findings.filter((entry) => entry.code === "PLATFORM_CHANGE_IN_UPGRADE");
    assert.ok(
      changes.some((entry) => /Amazon Linux 2|AL2/.test(entry.message)),
      JSON.stringify(changes.map((entry) => entry.message)),
    );
  });
});

describe("on every face", () => {
  it("serves the knowledge on REST from the registry", async () => {
    const addons: unknown = (await request(runtime.app).get("/api/v1/addons").expect(200)).body;
    const list = Array.isArray(addons) ? addons : ((addons as { items?: unknown[] }).items ?? []);
    assert.ok(list.length >= 16);
    const platforms = (await request(runtime.app).get("/api/v1/platforms").expect(200))
      .body as unknown;
    assert.match(JSON.stringify(platforms), /"name":"eks"/);
    assert.match(
      JSON.stringify((await request(runtime.app).get("/api/v1/addon-apis").expect(200)).body),
      /cert-manager\.io\/v1alpha2/,
    );
  });

  it("answers over GraphQL: the add-on table, a platform judgement and a scan told the add-on's version", async () => {
    const query = `query {
      addons(name: "ingress-nginx") { name retiredOn lines { versions kubernetes } }
      validateCluster(plan: { components: [{ component: "kube-apiserver", version: "1.29.3" }] }, asOf: "2025-06-01", platform: "eks") { ok findings { code severity } }
      scanManifests(targetVersion: "1.30", manifests: ${JSON.stringify(certificate("cert-manager.io/v1alpha2"))}, addons: [{ name: "cert-manager", version: "v1.12.0" }]) { status changeFindings { code changesIn } }
    }`;
    interface Answer {
      addons: Array<{
        retiredOn: string | null;
        lines: Array<{ versions: string; kubernetes: string[] }>;
      }>;
      validateCluster: { findings: Array<{ code: string }> };
      scanManifests: { status: string; changeFindings: unknown[] };
    }
    const body = (await request(runtime.app).post("/graphql").send({ query }).expect(200)).body as {
      data: Answer;
      errors?: unknown;
    };
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    assert.equal(body.data.addons[0]!.retiredOn, "2026-03-01");
    assert.ok(
      body.data.addons[0]!.lines.some(
        (line) => line.versions === "1.9.4" && line.kubernetes.includes("1.28"),
      ),
    );
    assert.ok(
      body.data.validateCluster.findings.some(
        (entry) => entry.code === "PLATFORM_EXTENDED_SUPPORT",
      ),
    );
    assert.deepEqual(body.data.scanManifests.changeFindings, [
      { code: "ADDON_API_REMOVED", changesIn: "cert-manager v1.6" },
    ]);
    assert.equal(body.data.scanManifests.status, "UNSUPPORTED");
  });

  it("takes add-ons in chat as name=version", () => {
    const reply = chatAnswer(snapshot, "check apiserver=1.30.4 cluster-autoscaler=1.27.3").text;
    assert.match(
      reply,
      /ADDON_UNSUPPORTED|cluster-autoscaler 1\.27\.3 is meant for Kubernetes 1\.27/i,
      reply,
    );
  });

  describe("the CLI", () => {
    let listening: { url: string; close(): Promise<void> } | undefined;
    before(async () => {
      listening = await startListeningRuntime({ inMemory: true });
    });
    after(async () => {
      await listening?.close();
    });

    it("checks a plan file with add-ons, and a cluster's workloads with --kubectl-workloads", async () => {
      const env = { KUBECOMPAT_URL: listening!.url, NO_COLOR: "1" };
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-addons-"));
      fs.writeFileSync(
        path.join(dir, "cluster.yaml"),
        "components:\n  - {component: kube-apiserver, version: 1.30.4}\n  - {component: cluster-autoscaler, version: 1.27.3}\n",
      );
      const file = await kubecompat(["check", path.join(dir, "cluster.yaml")], { env });
      assert.equal(file.code, 1, file.stderr + file.stdout);
      assert.match(file.stdout, /ADDON_UNSUPPORTED +cluster-autoscaler/);
      fs.writeFileSync(
        path.join(dir, "version.json"),
        JSON.stringify({
          clientVersion: { gitVersion: "v1.30.2" },
          serverVersion: { gitVersion: "v1.30.4-eks-a737599" },
        }),
      );
      const live = await kubecompat(
        [
          "check",
          "--kubectl-version",
          path.join(dir, "version.json"),
          "--kubectl-workloads",
          path.join(FIXTURES, "workloads.json"),
          "-o",
          "json",
        ],
        { env },
      );
      assert.equal(live.code, 1, live.stderr);
      const answer = JSON.parse(live.stdout) as { findings: Finding[] };
      assert.ok(
        answer.findings.some(
          (entry) => entry.code === "ADDON_UNSUPPORTED" && entry.component === "ingress-nginx",
        ),
      );
      assert.ok(
        answer.findings.some((entry) => entry.check === "PLATFORM"),
        "recognised as EKS from the -eks- build",
      );
      const wrong = await kubecompat(
        ["check", "--kubectl-workloads", path.join(dir, "version.json")],
        { env },
      );
      assert.equal(wrong.code, 2, wrong.stdout);
      assert.match(
        wrong.stderr,
        /version\.json looks like `kubectl version -o json` output; pass it with --kubectl-version/,
      );
    });
  });
});
