/**
 * scanManifests against manifests as users produce them (helm template,
 * kubectl get -o yaml / -o json, a concatenated GitOps tree) and against
 * broken or hostile input. Expected lines are looked up in the fixture text
 * at test time, so editing a fixture cannot silently shift them.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { MAX_MANIFEST_BYTES, scanManifests, type ManifestFinding } from "../src/domain/scan.js";
import { InputError } from "../src/core/errors.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import type { ApiRemovalRecord, KbBundle } from "../src/knowledge/records.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";

// Not imported from ./support/runtime.js: that module loads the whole app (HTTP, database), which a pure scan needs none of.
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const KB_DIR = path.join(REPO_ROOT, "kb");
const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "manifests");
const HELM = "helm-template-shop.yaml";
const KUBECTL_YAML = "kubectl-get-all-pdb.yaml";
const KUBECTL_JSON = "kubectl-get-json.json";
const GITOPS = "gitops-prod-concatenated.yaml";

const SEVERITY = {
  API_REMOVED: "ERROR",
  API_DEPRECATED: "WARNING",
  API_REMOVAL_SCHEDULED: "INFO",
} as const;
type Code = keyof typeof SEVERITY;

function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), "utf8");
}

/**
 * The 1-based line where the object around `marker` starts. `marker` must be
 * exactly one (trimmed) line of the text; the object starts at the nearest
 * apiVersion key above it, or at the JSON `{` right above that key.
 */
function objectLine(text: string, marker: string): number {
  const lines = text.split("\n");
  const hits = lines.flatMap((line, index) => (line.trim() === marker ? [index] : []));
  assert.equal(
    hits.length,
    1,
    `marker ${JSON.stringify(marker)} must be exactly one line of the fixture, found ${hits.length}`,
  );
  for (let index = hits[0]!; index >= 0; index -= 1) {
    const line = lines[index]!;
    if (/^\s*(- )?apiVersion:/.test(line)) return index + 1;
    if (/^\s*"apiVersion":/.test(line)) return lines[index - 1]?.trim() === "{" ? index : index + 1;
  }
  assert.fail(`no apiVersion above ${JSON.stringify(marker)}`);
}

/** [code, kind, name, namespace, documentIndex, marker for objectLine, helm source, replacement] */
type Row = [
  Code,
  string,
  string | null,
  string | null,
  number,
  string,
  string | null,
  string | null,
];

function expected(text: string, rows: readonly Row[]) {
  return rows.map(([code, kind, name, namespace, documentIndex, marker, source, replacement]) => ({
    code,
    severity: SEVERITY[code],
    kind,
    name,
    namespace,
    documentIndex,
    line: objectLine(text, marker),
    source,
    replacement,
  }));
}

function projected(findings: readonly ManifestFinding[]) {
  return findings.map(
    ({ code, severity, kind, name, namespace, documentIndex, line, source, replacement }) => ({
      code,
      severity,
      kind,
      name,
      namespace,
      documentIndex,
      line,
      source,
      replacement,
    }),
  );
}

/** Asserts an InputError on `field` whose message matches `pattern`. */
function assertInputError(run: () => unknown, field: string, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof InputError, `expected InputError, got ${String(error)}`);
    assert.equal(error.field, field);
    assert.match(error.message, pattern);
    return true;
  });
}

const PSP = "shop/charts/redis/templates/psp.yaml";
const HPA = "shop/templates/hpa.yaml";
const CRON = "shop/templates/cronjob-report.yaml";
const INGRESS = "shop/templates/ingress.yaml";
const FLOWSCHEMA = "shop/charts/apf/templates/flowschema.yaml";
const PRIORITY_LEVEL = "shop/charts/apf/templates/prioritylevel.yaml";
const FLOWCONTROL_V1 = "flowcontrol.apiserver.k8s.io/v1";

interface FixtureCase {
  readonly title: string;
  readonly fixture: string;
  readonly target: string;
  readonly documentsScanned: number;
  readonly objectsScanned: number;
  readonly rows: readonly Row[];
}

const CASES: readonly FixtureCase[] = [
  {
    title:
      "helm template of an umbrella chart, target 1.25: PSP and CronJob are gone, v2beta2 HPA is deprecated",
    fixture: HELM,
    target: "1.25",
    // 13 documents, one of them only comments
    documentsScanned: 12,
    objectsScanned: 12,
    rows: [
      [
        "API_REMOVED",
        "PodSecurityPolicy",
        "shop-redis",
        null,
        0,
        "kind: PodSecurityPolicy",
        PSP,
        null,
      ],
      [
        "API_DEPRECATED",
        "HorizontalPodAutoscaler",
        "shop-web-autoscaler",
        "shop",
        5,
        "kind: HorizontalPodAutoscaler",
        HPA,
        "autoscaling/v2",
      ],
      [
        "API_REMOVED",
        "CronJob",
        "shop-nightly-report",
        "shop",
        7,
        "kind: CronJob",
        CRON,
        "batch/v1",
      ],
      [
        "API_REMOVED",
        "Ingress",
        "shop-web-ingress",
        "shop",
        8,
        "kind: Ingress",
        INGRESS,
        "networking.k8s.io/v1",
      ],
      [
        "API_REMOVAL_SCHEDULED",
        "FlowSchema",
        "shop-batch-jobs",
        null,
        10,
        "kind: FlowSchema",
        FLOWSCHEMA,
        FLOWCONTROL_V1,
      ],
      [
        "API_REMOVAL_SCHEDULED",
        "PriorityLevelConfiguration",
        "shop-batch",
        null,
        11,
        "kind: PriorityLevelConfiguration",
        PRIORITY_LEVEL,
        FLOWCONTROL_V1,
      ],
    ],
  },
  {
    title: "the same chart one minor earlier (1.24): CronJob and PSP are only deprecated",
    fixture: HELM,
    target: "1.24",
    documentsScanned: 12,
    objectsScanned: 12,
    rows: [
      [
        "API_DEPRECATED",
        "PodSecurityPolicy",
        "shop-redis",
        null,
        0,
        "kind: PodSecurityPolicy",
        PSP,
        null,
      ],
      [
        "API_DEPRECATED",
        "HorizontalPodAutoscaler",
        "shop-web-autoscaler",
        "shop",
        5,
        "kind: HorizontalPodAutoscaler",
        HPA,
        "autoscaling/v2",
      ],
      [
        "API_DEPRECATED",
        "CronJob",
        "shop-nightly-report",
        "shop",
        7,
        "kind: CronJob",
        CRON,
        "batch/v1",
      ],
      [
        "API_REMOVED",
        "Ingress",
        "shop-web-ingress",
        "shop",
        8,
        "kind: Ingress",
        INGRESS,
        "networking.k8s.io/v1",
      ],
      [
        "API_REMOVAL_SCHEDULED",
        "FlowSchema",
        "shop-batch-jobs",
        null,
        10,
        "kind: FlowSchema",
        FLOWSCHEMA,
        FLOWCONTROL_V1,
      ],
      [
        "API_REMOVAL_SCHEDULED",
        "PriorityLevelConfiguration",
        "shop-batch",
        null,
        11,
        "kind: PriorityLevelConfiguration",
        PRIORITY_LEVEL,
        FLOWCONTROL_V1,
      ],
    ],
  },
  {
    title:
      "target 1.21: the v2beta2 HPA is not deprecated yet (1.23), so its removal is only scheduled",
    fixture: HELM,
    target: "1.21",
    documentsScanned: 12,
    objectsScanned: 12,
    rows: [
      [
        "API_DEPRECATED",
        "PodSecurityPolicy",
        "shop-redis",
        null,
        0,
        "kind: PodSecurityPolicy",
        PSP,
        null,
      ],
      [
        "API_REMOVAL_SCHEDULED",
        "HorizontalPodAutoscaler",
        "shop-web-autoscaler",
        "shop",
        5,
        "kind: HorizontalPodAutoscaler",
        HPA,
        "autoscaling/v2",
      ],
      [
        "API_DEPRECATED",
        "CronJob",
        "shop-nightly-report",
        "shop",
        7,
        "kind: CronJob",
        CRON,
        "batch/v1",
      ],
      [
        "API_DEPRECATED",
        "Ingress",
        "shop-web-ingress",
        "shop",
        8,
        "kind: Ingress",
        INGRESS,
        "networking.k8s.io/v1",
      ],
      [
        "API_REMOVAL_SCHEDULED",
        "FlowSchema",
        "shop-batch-jobs",
        null,
        10,
        "kind: FlowSchema",
        FLOWSCHEMA,
        FLOWCONTROL_V1,
      ],
      [
        "API_REMOVAL_SCHEDULED",
        "PriorityLevelConfiguration",
        "shop-batch",
        null,
        11,
        "kind: PriorityLevelConfiguration",
        PRIORITY_LEVEL,
        FLOWCONTROL_V1,
      ],
    ],
  },
  {
    title: "target v1.29.3 (a patch): flowcontrol v1beta3 is deprecated exactly in 1.29",
    fixture: HELM,
    target: "v1.29.3",
    documentsScanned: 12,
    objectsScanned: 12,
    rows: [
      [
        "API_REMOVED",
        "PodSecurityPolicy",
        "shop-redis",
        null,
        0,
        "kind: PodSecurityPolicy",
        PSP,
        null,
      ],
      [
        "API_REMOVED",
        "HorizontalPodAutoscaler",
        "shop-web-autoscaler",
        "shop",
        5,
        "kind: HorizontalPodAutoscaler",
        HPA,
        "autoscaling/v2",
      ],
      [
        "API_REMOVED",
        "CronJob",
        "shop-nightly-report",
        "shop",
        7,
        "kind: CronJob",
        CRON,
        "batch/v1",
      ],
      [
        "API_REMOVED",
        "Ingress",
        "shop-web-ingress",
        "shop",
        8,
        "kind: Ingress",
        INGRESS,
        "networking.k8s.io/v1",
      ],
      [
        "API_DEPRECATED",
        "FlowSchema",
        "shop-batch-jobs",
        null,
        10,
        "kind: FlowSchema",
        FLOWSCHEMA,
        FLOWCONTROL_V1,
      ],
      [
        "API_DEPRECATED",
        "PriorityLevelConfiguration",
        "shop-batch",
        null,
        11,
        "kind: PriorityLevelConfiguration",
        PRIORITY_LEVEL,
        FLOWCONTROL_V1,
      ],
    ],
  },
  {
    title: "target 1.32 equals the removal of flowcontrol v1beta3: removed",
    fixture: HELM,
    target: "1.32",
    documentsScanned: 12,
    objectsScanned: 12,
    rows: [
      [
        "API_REMOVED",
        "PodSecurityPolicy",
        "shop-redis",
        null,
        0,
        "kind: PodSecurityPolicy",
        PSP,
        null,
      ],
      [
        "API_REMOVED",
        "HorizontalPodAutoscaler",
        "shop-web-autoscaler",
        "shop",
        5,
        "kind: HorizontalPodAutoscaler",
        HPA,
        "autoscaling/v2",
      ],
      [
        "API_REMOVED",
        "CronJob",
        "shop-nightly-report",
        "shop",
        7,
        "kind: CronJob",
        CRON,
        "batch/v1",
      ],
      [
        "API_REMOVED",
        "Ingress",
        "shop-web-ingress",
        "shop",
        8,
        "kind: Ingress",
        INGRESS,
        "networking.k8s.io/v1",
      ],
      [
        "API_REMOVED",
        "FlowSchema",
        "shop-batch-jobs",
        null,
        10,
        "kind: FlowSchema",
        FLOWSCHEMA,
        FLOWCONTROL_V1,
      ],
      [
        "API_REMOVED",
        "PriorityLevelConfiguration",
        "shop-batch",
        null,
        11,
        "kind: PriorityLevelConfiguration",
        PRIORITY_LEVEL,
        FLOWCONTROL_V1,
      ],
    ],
  },
  {
    title: "kubectl get all,pdb -A -o yaml from a 1.20 cluster: one List, items expanded",
    fixture: KUBECTL_YAML,
    target: "1.25",
    documentsScanned: 1,
    objectsScanned: 8,
    rows: [
      [
        "API_REMOVED",
        "CronJob",
        "shop-nightly-report",
        "shop",
        0,
        'resourceVersion: "48213391"',
        null,
        "batch/v1",
      ],
      [
        "API_REMOVED",
        "PodDisruptionBudget",
        "coredns",
        "kube-system",
        0,
        "kind: PodDisruptionBudget",
        null,
        "policy/v1",
      ],
    ],
  },
  {
    title: "the same List against 1.24: both only deprecated",
    fixture: KUBECTL_YAML,
    target: "1.24",
    documentsScanned: 1,
    objectsScanned: 8,
    rows: [
      [
        "API_DEPRECATED",
        "CronJob",
        "shop-nightly-report",
        "shop",
        0,
        'resourceVersion: "48213391"',
        null,
        "batch/v1",
      ],
      [
        "API_DEPRECATED",
        "PodDisruptionBudget",
        "coredns",
        "kube-system",
        0,
        "kind: PodDisruptionBudget",
        null,
        "policy/v1",
      ],
    ],
  },
  {
    title: "kubectl get -o json List",
    fixture: KUBECTL_JSON,
    target: "1.25",
    documentsScanned: 1,
    objectsScanned: 3,
    rows: [
      [
        "API_REMOVED",
        "CronJob",
        "billing-invoice-export",
        "billing",
        0,
        '"kind": "CronJob",',
        null,
        "batch/v1",
      ],
      [
        "API_DEPRECATED",
        "HorizontalPodAutoscaler",
        "billing-api",
        "billing",
        0,
        '"kind": "HorizontalPodAutoscaler",',
        null,
        "autoscaling/v2",
      ],
    ],
  },
  {
    title: "a concatenated GitOps tree: nested Lists, commented-out files, custom resources",
    fixture: GITOPS,
    target: "1.33",
    // 10 documents: one is a commented-out file, one only the comment before a file's own `---`
    documentsScanned: 8,
    objectsScanned: 10,
    rows: [
      [
        "API_REMOVED",
        "ValidatingWebhookConfiguration",
        "image-policy.example.com",
        null,
        2,
        "kind: ValidatingWebhookConfiguration",
        null,
        "admissionregistration.k8s.io/v1",
      ],
      [
        "API_REMOVED",
        "ClusterRole",
        "prometheus-k8s",
        null,
        5,
        'resources: ["nodes/metrics", "services", "endpoints", "pods"]',
        null,
        "rbac.authorization.k8s.io/v1",
      ],
      [
        "API_REMOVED",
        "RoleBinding",
        "prometheus-k8s-monitoring",
        "monitoring",
        5,
        "name: prometheus-k8s-monitoring",
        null,
        "rbac.authorization.k8s.io/v1",
      ],
      [
        "API_REMOVED",
        "PriorityClass",
        "platform-critical",
        null,
        7,
        "kind: PriorityClass",
        null,
        "scheduling.k8s.io/v1",
      ],
      [
        "API_DEPRECATED",
        "StorageVersionMigration",
        "secrets-to-v1",
        null,
        8,
        "kind: StorageVersionMigration",
        null,
        "storagemigration.k8s.io/v1beta1",
      ],
    ],
  },
  {
    title: "the GitOps tree against 1.35, the minor that removes storagemigration v1alpha1",
    fixture: GITOPS,
    target: "1.35",
    documentsScanned: 8,
    objectsScanned: 10,
    rows: [
      [
        "API_REMOVED",
        "ValidatingWebhookConfiguration",
        "image-policy.example.com",
        null,
        2,
        "kind: ValidatingWebhookConfiguration",
        null,
        "admissionregistration.k8s.io/v1",
      ],
      [
        "API_REMOVED",
        "ClusterRole",
        "prometheus-k8s",
        null,
        5,
        'resources: ["nodes/metrics", "services", "endpoints", "pods"]',
        null,
        "rbac.authorization.k8s.io/v1",
      ],
      [
        "API_REMOVED",
        "RoleBinding",
        "prometheus-k8s-monitoring",
        "monitoring",
        5,
        "name: prometheus-k8s-monitoring",
        null,
        "rbac.authorization.k8s.io/v1",
      ],
      [
        "API_REMOVED",
        "PriorityClass",
        "platform-critical",
        null,
        7,
        "kind: PriorityClass",
        null,
        "scheduling.k8s.io/v1",
      ],
      [
        "API_REMOVED",
        "StorageVersionMigration",
        "secrets-to-v1",
        null,
        8,
        "kind: StorageVersionMigration",
        null,
        "storagemigration.k8s.io/v1beta1",
      ],
    ],
  },
];

describe("scanning manifests for removed APIs", () => {
  let bundle: KbBundle;
  let snapshot: KbSnapshot;
  before(async () => {
    bundle = await loadKbDirectory(KB_DIR);
    snapshot = new KbSnapshot(bundle, { revision: 1, lastImportAt: null });
  });

  const removal = (apiVersion: string, kind: string): ApiRemovalRecord => {
    const record = snapshot.apiRemovals.find(
      (candidate) => candidate.apiVersion === apiVersion && candidate.kind === kind,
    );
    assert.ok(record, `kb/api-removals.yaml has ${apiVersion} ${kind}`);
    return record;
  };

  describe("realistic input", () => {
    for (const testCase of CASES) {
      it(`${testCase.title} (${testCase.fixture} @ ${testCase.target})`, () => {
        const text = fixture(testCase.fixture);
        const report = scanManifests(snapshot, text, testCase.target);
        assert.deepEqual(projected(report.findings), expected(text, testCase.rows));
        assert.equal(
          report.targetVersion,
          testCase.target.replace(/^v/, "").split(".").slice(0, 2).join("."),
        );
        assert.equal(report.documentsScanned, testCase.documentsScanned);
        assert.equal(report.objectsScanned, testCase.objectsScanned);
        assert.equal(report.kbRevision, 1);
      });
    }
  });

  it("flags batch/v1beta1 CronJob as deprecated at 1.24 and removed at 1.25", () => {
    const record = removal("batch/v1beta1", "CronJob");
    assert.equal(record.removedIn, "1.25");
    assert.ok(
      record.deprecatedIn !== null && Number(record.deprecatedIn.split(".")[1]) <= 24,
      "the kb deprecates it by 1.24",
    );
    const manifest =
      "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n  namespace: ops\n";
    const at124 = scanManifests(snapshot, manifest, "1.24").findings;
    const at125 = scanManifests(snapshot, manifest, "1.25").findings;
    assert.deepEqual(
      at124.map((finding) => [finding.code, finding.severity]),
      [["API_DEPRECATED", "WARNING"]],
    );
    assert.deepEqual(
      at125.map((finding) => [finding.code, finding.severity]),
      [["API_REMOVED", "ERROR"]],
    );
    assert.equal(
      at124[0]!.message,
      'CronJob "nightly" in namespace "ops" uses batch/v1beta1, which is deprecated since Kubernetes 1.21 and no longer served from 1.25; migrate to batch/v1 (available since 1.21) before upgrading to 1.25.',
    );
  });

  it("treats a target equal to removedIn as removed, and the minor before as not removed, for every kb record", () => {
    assert.ok(snapshot.apiRemovals.length >= 50);
    for (const record of snapshot.apiRemovals) {
      const manifest = `apiVersion: ${record.apiVersion}\nkind: ${record.kind}\nmetadata:\n  name: probe\n`;
      const atRemoval = scanManifests(snapshot, manifest, record.removedIn).findings;
      assert.deepEqual(
        atRemoval.map((finding) => finding.code),
        ["API_REMOVED"],
        `${record.apiVersion} ${record.kind} @ ${record.removedIn}`,
      );

      const before = `1.${Number(record.removedIn.split(".")[1]) - 1}`;
      const deprecatedBefore =
        record.deprecatedIn !== null &&
        Number(record.deprecatedIn.split(".")[1]) <= Number(before.split(".")[1]);
      const atBefore = scanManifests(snapshot, manifest, before).findings;
      assert.deepEqual(
        atBefore.map((finding) => finding.code),
        [deprecatedBefore ? "API_DEPRECATED" : "API_REMOVAL_SCHEDULED"],
        `${record.apiVersion} ${record.kind} @ ${before}`,
      );
    }
  });

  it("never flags core, current or custom-resource APIs, even far in the future", () => {
    const untouched = [
      "Service",
      "Deployment",
      "StatefulSet",
      "Pod",
      "Job",
      "ConfigMap",
      "Certificate",
      "HelmRelease",
      "Kustomization",
      "ServiceMonitor",
    ];
    let flagged = 0;
    for (const name of [HELM, KUBECTL_YAML, KUBECTL_JSON, GITOPS]) {
      const findings = scanManifests(snapshot, fixture(name), "1.40").findings;
      flagged += findings.length;
      for (const finding of findings) {
        assert.ok(
          !untouched.includes(finding.kind),
          `${name}: ${finding.kind} ${finding.apiVersion} must not be flagged`,
        );
        assert.equal(finding.code, "API_REMOVED");
      }
    }
    assert.equal(flagged, 6 + 2 + 2 + 5);
    const custom =
      "apiVersion: cert-manager.io/v1alpha2\nkind: Certificate\nmetadata:\n  name: legacy\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n";
    const report = scanManifests(snapshot, custom, "1.40");
    assert.deepEqual(report.findings, []);
    assert.equal(report.objectsScanned, 2);
  });

  it("builds the full finding with a message that says what to do", () => {
    const manifest =
      "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n";
    const record = removal("extensions/v1beta1", "Deployment");
    const report = scanManifests(snapshot, manifest, "1.16");
    assert.deepEqual(report.findings, [
      {
        code: "API_REMOVED",
        phase: "REMOVED",
        severity: "ERROR",
        apiVersion: "extensions/v1beta1",
        kind: "Deployment",
        name: "web",
        namespace: "shop",
        documentIndex: 0,
        line: 1,
        source: null,
        removedIn: "1.16",
        deprecatedIn: record.deprecatedIn,
        replacement: "apps/v1",
        replacementAvailableIn: "1.9",
        message:
          'Deployment "web" in namespace "shop" uses extensions/v1beta1, which is no longer served from Kubernetes 1.16; migrate to apps/v1 (available since 1.9).',
        sourceUrl: record.sourceUrl,
      },
    ]);
  });

  it("says when there is no replacement and passes on the notes", () => {
    const record = removal("policy/v1beta1", "PodSecurityPolicy");
    assert.equal(record.replacement, null);
    const [finding] = scanManifests(snapshot, fixture(HELM), "1.25").findings;
    assert.equal(finding?.kind, "PodSecurityPolicy");
    assert.equal(
      finding.message,
      `PodSecurityPolicy "shop-redis" uses policy/v1beta1, which is no longer served from Kubernetes 1.25. There is no replacement API. Notes: ${record.notes}`,
    );
    assert.equal(finding.sourceUrl, record.sourceUrl);
    assert.equal(finding.replacementAvailableIn, null);
  });

  it("does not advise a replacement that is itself no longer served at the target", () => {
    const psp =
      "apiVersion: extensions/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: restricted\n";
    assert.equal(removal("extensions/v1beta1", "PodSecurityPolicy").replacement, "policy/v1beta1");
    const [at120] = scanManifests(snapshot, psp, "1.20").findings;
    assert.match(at120!.message, /; migrate to policy\/v1beta1 \(available since 1\.10\)\.$/);
    const [at125] = scanManifests(snapshot, psp, "1.25").findings;
    assert.equal(
      at125!.message,
      `PodSecurityPolicy "restricted" uses extensions/v1beta1, which is no longer served from Kubernetes 1.16; its replacement policy/v1beta1 is no longer served from 1.25 either. There is no replacement API. Notes: ${removal("policy/v1beta1", "PodSecurityPolicy").notes}`,
    );
    // The structured replacement follows the chain as the advice does: at 1.25 there is none to move to.
    assert.equal(at125!.replacement, null);
    assert.equal(at120!.replacement, "policy/v1beta1");

    const flowSchema =
      "apiVersion: flowcontrol.apiserver.k8s.io/v1beta1\nkind: FlowSchema\nmetadata:\n  name: batch\n";
    const [at126] = scanManifests(snapshot, flowSchema, "1.26").findings;
    // v1beta2 is itself deprecated at 1.26, and v1beta3 (served from 1.26) outlives it.
    assert.match(
      at126!.message,
      /1\.26; its replacement flowcontrol\.apiserver\.k8s\.io\/v1beta2 is deprecated since 1\.26 and no longer served from 1\.29, so migrate to flowcontrol\.apiserver\.k8s\.io\/v1beta3 meanwhile \(served from 1\.26 until 1\.32\), and to flowcontrol\.apiserver\.k8s\.io\/v1 before upgrading to 1\.32\.$/,
    );
    const [flowAt125] = scanManifests(snapshot, flowSchema, "1.25").findings;
    assert.match(
      flowAt125!.message,
      /; migrate to flowcontrol\.apiserver\.k8s\.io\/v1beta2 \(available since 1\.23\) before upgrading to 1\.26\.$/,
    );
    const [at129] = scanManifests(snapshot, flowSchema, "1.29").findings;
    assert.match(
      at129!.message,
      /1\.26; its replacement flowcontrol\.apiserver\.k8s\.io\/v1beta2 is no longer served from 1\.29 either; migrate to flowcontrol\.apiserver\.k8s\.io\/v1 \(available since 1\.29\)\.$/,
    );
  });

  it("says when the replacement is not served yet at the target", () => {
    const manifest =
      "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata:\n  name: batch\n";
    const [finding] = scanManifests(snapshot, manifest, "1.28").findings;
    assert.equal(
      finding!.message,
      'FlowSchema "batch" uses flowcontrol.apiserver.k8s.io/v1beta3, which will no longer be served from Kubernetes 1.32; migrate to flowcontrol.apiserver.k8s.io/v1 once the cluster runs 1.29 (it is not served in 1.28), and before upgrading to 1.32.',
    );
  });

  it("names objects by generateName, or says they have no name", () => {
    const manifests = [
      "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  generateName: report-\n  namespace: ops",
      "apiVersion: batch/v1beta1\nkind: CronJob\nspec:\n  schedule: '@daily'",
    ].join("\n---\n");
    const findings = scanManifests(snapshot, manifests, "1.25").findings;
    assert.deepEqual(
      findings.map((finding) => [
        finding.name,
        finding.namespace,
        finding.documentIndex,
        finding.line,
      ]),
      [
        ["report-", "ops", 0, 1],
        [null, null, 1, 7],
      ],
    );
    assert.match(
      findings[0]!.message,
      /^CronJob with generateName "report-" in namespace "ops" uses batch\/v1beta1/,
    );
    assert.match(findings[1]!.message, /^CronJob without a name uses batch\/v1beta1/);
  });

  it("skips empty and comment-only documents but keeps counting them in documentIndex", () => {
    const manifests = [
      "---",
      "# Source: shop/templates/pdb.yaml",
      "# disabled in values.yaml",
      "---",
      "---",
      "",
      "# Source: shop/templates/cronjob.yaml",
      "apiVersion: batch/v1beta1",
      "kind: CronJob",
      "metadata:",
      "  name: nightly",
      "",
    ].join("\n");
    const report = scanManifests(snapshot, manifests, "1.25");
    assert.equal(report.documentsScanned, 1);
    assert.equal(report.objectsScanned, 1);
    assert.deepEqual(
      report.findings.map((finding) => [finding.documentIndex, finding.line, finding.source]),
      [[2, 8, "shop/templates/cronjob.yaml"]],
    );

    for (const nothing of ["", "\n\n", "# just a comment\n", "---\n---\n...\n"]) {
      const empty = scanManifests(snapshot, nothing, "1.25");
      assert.deepEqual(
        [empty.documentsScanned, empty.objectsScanned, empty.findings.length],
        [0, 0, 0],
        JSON.stringify(nothing),
      );
    }
  });

  it("ignores documents whose top level is not a mapping", () => {
    const manifests =
      "--- just some text\n---\n- apiVersion: batch/v1beta1\n  kind: CronJob\n---\n42\n---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: web}\n";
    const report = scanManifests(snapshot, manifests, "1.25");
    assert.equal(report.documentsScanned, 4);
    assert.equal(report.objectsScanned, 1);
    assert.deepEqual(
      report.findings.map((finding) => [finding.kind, finding.documentIndex, finding.line]),
      [["PodDisruptionBudget", 3, 8]],
    );
  });

  it("reads apiVersion, kind, metadata and List items through YAML aliases", () => {
    const manifests = [
      "apiVersion: v1",
      "kind: List",
      "items:",
      "  - &cron {apiVersion: &beta batch/v1beta1, kind: CronJob, metadata: &meta {name: nightly, namespace: ops}}",
      "  - *cron",
      "  - apiVersion: policy/v1beta1",
      "    kind: PodDisruptionBudget",
      "    metadata: *meta",
      "  - apiVersion: *beta",
      "    kind: CronJob",
      "    metadata: {name: weekly}",
    ].join("\n");
    const findings = scanManifests(snapshot, manifests, "1.25").findings;
    assert.deepEqual(
      findings.map((finding) => [
        finding.kind,
        finding.apiVersion,
        finding.name,
        finding.namespace,
        finding.line,
      ]),
      [
        ["CronJob", "batch/v1beta1", "nightly", "ops", 4],
        ["CronJob", "batch/v1beta1", "nightly", "ops", 5],
        ["PodDisruptionBudget", "policy/v1beta1", "nightly", "ops", 6],
        ["CronJob", "batch/v1beta1", "weekly", null, 9],
      ],
    );
  });

  describe("bad input", () => {
    const CRON_JOB = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n";

    /** The one DOCUMENT_UNREADABLE note of a scan, whose other documents were still judged. */
    const unreadable = (manifests: string) => {
      const report = scanManifests(snapshot, manifests, "1.25");
      assert.equal(report.complete, false);
      const notes = report.notes.filter((note) => note.code === "DOCUMENT_UNREADABLE");
      assert.equal(notes.length, 1, JSON.stringify(report.notes));
      assert.equal(notes[0]?.severity, "ERROR");
      // With no object read the scan judged nothing (NOT_JUDGED, never green); beside objects it read, an ERROR.
      assert.equal(report.status, report.objectsScanned === 0 ? "NOT_JUDGED" : "UNSUPPORTED");
      return { report, message: notes[0].message };
    };

    it("names the document and the line of an unclosed quote", () => {
      const manifests = `${CRON_JOB}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: "shop-web\n  namespace: shop\n---\n${CRON_JOB}`;
      const line = manifests.split("\n").findIndex((text) => text.includes('"shop-web')) + 1;
      assert.equal(line, 9);
      const { report, message } = unreadable(manifests);
      assert.match(
        message,
        new RegExp(
          `^document 2 \\(line ${line}\\) is not valid YAML: Missing closing "quote; it was skipped`,
        ),
      );
      // The document before it is still judged (the unclosed quote swallows the rest of the stream).
      assert.equal(report.findings[0]?.kind, "CronJob");
    });

    it("names the document and the line of bad indentation, and scans the others", () => {
      const under = `${CRON_JOB}---\n${CRON_JOB}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n namespace: shop\n---\n${CRON_JOB}`;
      const underLine = under.split("\n").findIndex((text) => text.startsWith(" namespace")) + 1;
      const first = unreadable(under);
      assert.match(
        first.message,
        new RegExp(
          `^document 3 \\(line ${underLine}\\) is not valid YAML: All mapping items must start at the same column`,
        ),
      );
      assert.deepEqual(
        first.report.findings.map((finding) => finding.documentIndex),
        [0, 1, 3],
        "the documents before and after it are judged",
      );
      // Over-indented, the next line reads as the continuation of the value above; the parser blames that value's line.
      const over = under.replace("\n namespace: shop", "\n   namespace: shop");
      const overLine = over.split("\n").findIndex((text) => text === "  name: settings") + 1;
      assert.match(
        unreadable(over).message,
        new RegExp(
          `^document 3 \\(line ${overLine}\\) is not valid YAML: Nested mappings are not allowed in compact mappings`,
        ),
      );
    });

    it("reports duplicate keys as kubectl refuses them, and refuses aliases without an anchor", () => {
      assert.match(
        unreadable(`${CRON_JOB}kind: Deployment\n`).message,
        /^document 1 \(line 5\) is not valid YAML: Map keys must be unique/,
      );
      assertInputError(
        () =>
          scanManifests(snapshot, `${CRON_JOB}---\napiVersion: *version\nkind: CronJob\n`, "1.25"),
        "manifests",
        /^manifests: document 2 \(line 6\) is not valid YAML: alias \*version refers to no anchor/,
      );
    });

    it("says complete: true when every document was read", () => {
      assert.equal(scanManifests(snapshot, CRON_JOB, "1.25").complete, true);
    });

    it("refuses input larger than MAX_MANIFEST_BYTES, counting UTF-8 bytes", () => {
      assert.equal(MAX_MANIFEST_BYTES, 10 * 1024 * 1024);
      assertInputError(
        () => scanManifests(snapshot, "#".repeat(MAX_MANIFEST_BYTES + 1), "1.25"),
        "manifests",
        /the limit is 10 MiB/,
      );
      // Fewer characters than the limit, but two bytes each.
      const wide = `# ${"é".repeat(MAX_MANIFEST_BYTES / 2)}`;
      assert.ok(wide.length < MAX_MANIFEST_BYTES);
      assertInputError(
        () => scanManifests(snapshot, wide, "1.25"),
        "manifests",
        /the limit is 10 MiB/,
      );
    });

    it("refuses a billion-laughs alias bomb (10 levels x 10) quickly and without expanding it", () => {
      const levels = [
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata: {name: lol}",
        "data:",
        `  l0: &l0 [${Array(10).fill('"lol"').join(", ")}]`,
      ];
      for (let level = 1; level < 10; level += 1) {
        levels.push(
          `  l${level}: &l${level} [${Array(10)
            .fill(`*l${level - 1}`)
            .join(", ")}]`,
        );
      }
      const bomb = `${CRON_JOB}---\n${levels.join("\n")}\n`;
      const heapBefore = process.memoryUsage().heapUsed;
      const started = performance.now();
      assertInputError(
        () => scanManifests(snapshot, bomb, "1.25"),
        "manifests",
        /^manifests: document 2 \(line \d+\) would expand YAML aliases more than 50 times.*alias bomb/,
      );
      assert.ok(performance.now() - started < 1000, "refused within a second");
      assert.ok(
        process.memoryUsage().heapUsed - heapBefore < 64 * 1024 * 1024,
        "without allocating the expansion",
      );
    });

    it("refuses a small alias graph whose expansion is exponential, and an alias inside its own anchor", () => {
      // 15 aliases only, but expanding l5 would dereference hundreds of times.
      const levels = [
        "apiVersion: v1",
        "kind: List",
        "items:",
        "  - &l0 {apiVersion: batch/v1beta1, kind: CronJob, metadata: {name: a}}",
      ];
      for (let level = 1; level <= 5; level += 1) {
        levels.push(
          `  - &l${level} {apiVersion: v1, kind: List, items: [*l${level - 1}, *l${level - 1}, *l${level - 1}]}`,
        );
      }
      assertInputError(
        () => scanManifests(snapshot, levels.join("\n"), "1.25"),
        "manifests",
        /would expand YAML aliases more than 50 times/,
      );

      const loop =
        "apiVersion: v1\nkind: List\nitems: &loop\n  - apiVersion: v1\n    kind: List\n    items: *loop\n";
      assertInputError(
        () => scanManifests(snapshot, loop, "1.25"),
        "manifests",
        /^manifests: document 1 \(line 4\) has an alias inside its own anchor/,
      );
    });

    it("refuses extreme nesting before the YAML composer can overflow the stack", () => {
      const started = performance.now();
      const deepFlow = `${CRON_JOB}---\nkey: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`;
      assertInputError(
        () => scanManifests(snapshot, deepFlow, "1.25"),
        "manifests",
        /^manifests: document 2 \(line 6\) is nested more than 200 levels deep/,
      );
      const deepBlock = `${"- ".repeat(5_000)}x\n`;
      assertInputError(
        () => scanManifests(snapshot, deepBlock, "1.25"),
        "manifests",
        /^manifests: document 1 \(line 1\) is nested more than 200 levels deep/,
      );
      assert.ok(performance.now() - started < 2000, "refused quickly");
      // Real manifests nest far less; a 60-level CRD-like schema still scans.
      const deepButFine = `${CRON_JOB}spec:\n${Array.from({ length: 60 }, (_, depth) => `${"  ".repeat(depth + 1)}level${depth}:`).join("\n")} leaf\n`;
      assert.equal(scanManifests(snapshot, deepButFine, "1.25").findings.length, 1);
    });

    it("refuses manifests that are not a string", () => {
      for (const value of [
        undefined,
        null,
        42,
        Buffer.from(CRON_JOB),
        { apiVersion: "batch/v1beta1", kind: "CronJob" },
        [CRON_JOB],
      ]) {
        assertInputError(
          () => scanManifests(snapshot, value as unknown as string, "1.25"),
          "manifests",
          /^manifests must be a string/,
        );
      }
    });

    it("refuses a target that is not a Kubernetes version", () => {
      // ("latest" and "1.25.x" are accepted: the newest release, and the minor.)
      for (const value of ["", "newest", "1.x", "v2", "1.25.y", 125]) {
        assertInputError(
          () => scanManifests(snapshot, CRON_JOB, value as unknown as string),
          "targetVersion",
          /^targetVersion /,
        );
      }
    });
  });

  it("uses each snapshot's own data and revision (the removal index is cached per snapshot)", () => {
    const manifest = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n";
    assert.equal(scanManifests(snapshot, manifest, "1.25").findings.length, 1);
    const withoutCronJob = new KbSnapshot(
      {
        ...bundle,
        apiRemovals: bundle.apiRemovals.filter(
          (record) => !(record.apiVersion === "batch/v1beta1" && record.kind === "CronJob"),
        ),
      },
      { revision: 7, lastImportAt: null },
    );
    const report = scanManifests(withoutCronJob, manifest, "1.25");
    assert.equal(report.kbRevision, 7);
    assert.deepEqual(report.findings, []);
    assert.equal(
      scanManifests(snapshot, manifest, "1.25").findings.length,
      1,
      "the first snapshot's index is untouched",
    );
  });
});

describe("scans that say when: fromVersion splits the findings into phases", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = new KbSnapshot(await loadKbDirectory(KB_DIR), { revision: 1, lastImportAt: null });
  });
  const manifests = [
    "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: old\n", // removed 1.22: gone before 1.24
    "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: restricted\n", // removed 1.25: within 1.24 -> 1.29
    "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata:\n  name: fs\n", // deprecated 1.29, removed 1.32
  ].join("---\n");

  it("marks what is already unservable at fromVersion and what breaks within the upgrade", () => {
    const report = scanManifests(snapshot, manifests, "1.29", { fromVersion: "1.24" });
    assert.deepEqual(
      report.findings.map((finding) => `${finding.kind} ${finding.phase} ${finding.severity}`),
      [
        "Ingress ALREADY_REMOVED ERROR",
        "PodSecurityPolicy REMOVED_IN_UPGRADE ERROR",
        "FlowSchema DEPRECATED WARNING",
      ],
    );
    assert.match(report.findings[0]?.message ?? "", /is not served at 1\.24 already/);
    assert.match(report.findings[1]?.message ?? "", /it breaks on the way from 1\.24 to 1\.29/);
    // The boundary: removed exactly at fromVersion is already removed; one minor later is within the upgrade.
    assert.equal(
      scanManifests(snapshot, manifests, "1.29", { fromVersion: "1.25" }).findings[1]?.phase,
      "ALREADY_REMOVED",
    );
    assert.equal(
      scanManifests(snapshot, manifests, "1.29", { fromVersion: "1.22" }).findings[0]?.phase,
      "ALREADY_REMOVED",
    );
    assert.equal(
      scanManifests(snapshot, manifests, "1.29", { fromVersion: "1.21" }).findings[0]?.phase,
      "REMOVED_IN_UPGRADE",
    );
    assert.equal(scanManifests(snapshot, manifests, "1.29").findings[0]?.phase, "REMOVED");
  });

  it("refuses a fromVersion newer than the target", () => {
    assertInputError(
      () => scanManifests(snapshot, manifests, "1.25", { fromVersion: "1.29" }),
      "fromVersion",
      /fromVersion 1\.29 is newer than targetVersion 1\.25/,
    );
  });
});

describe("scans say what they did not judge", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = new KbSnapshot(await loadKbDirectory(KB_DIR), { revision: 1, lastImportAt: null });
  });

  it("gives one API_NOT_JUDGED per unknown group/version with its object count, and none for the API server's own or an add-on's", () => {
    const manifests = [
      "apiVersion: widgets.example.com/v1beta1\nkind: Widget\nmetadata:\n  name: a\n",
      "apiVersion: widgets.example.com/v1beta1\nkind: WidgetClass\nmetadata:\n  name: b\n",
      "apiVersion: widgets.example.com/v1beta1\nkind: Widget\nmetadata:\n  name: c\n",
      "apiVersion: gadgets.example.org/v1\nkind: Gadget\nmetadata:\n  name: d\n",
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: e\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n",
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: g\n",
      // An add-on's API (kb/addon-apis.yaml) is judged, not passed over: served in every cert-manager release since 1.0.
      "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: h\n",
    ].join("---\n");
    const report = scanManifests(snapshot, manifests, "1.30");
    const notes = report.notes.filter((note) => note.code === "API_NOT_JUDGED");
    assert.equal(notes.length, 2, JSON.stringify(report.notes));
    assert.match(
      notes[0]?.message ?? "",
      /^3 objects of widgets\.example\.com\/v1beta1 \(Widget, WidgetClass\) were not judged/,
    );
    assert.match(
      notes[1]?.message ?? "",
      /^1 object of gadgets\.example\.org\/v1 \(Gadget\) was not judged/,
    );
    assert.ok(notes.every((note) => note.severity === "INFO"));
    assert.deepEqual(report.changeFindings, []);
    assert.equal(
      report.status,
      "SUPPORTED",
      "what was not judged is said, not counted against the manifests",
    );
  });
});

describe("the structured replacement is the one the target serves", () => {
  it("follows the chain as the message does: flowcontrol v1beta1 at 1.37 is v1, not the removed v1beta2", async () => {
    const snapshot = new KbSnapshot(await loadKbDirectory(KB_DIR), {
      revision: 1,
      lastImportAt: null,
    });
    const flowSchema =
      "apiVersion: flowcontrol.apiserver.k8s.io/v1beta1\nkind: FlowSchema\nmetadata:\n  name: fs\n";
    const [late] = scanManifests(snapshot, flowSchema, "1.37").findings;
    assert.equal(late?.replacement, "flowcontrol.apiserver.k8s.io/v1");
    assert.match(late?.message ?? "", /migrate to flowcontrol\.apiserver\.k8s\.io\/v1/);
    // While v1beta2 is served and not yet deprecated (1.25), it is the one to move to; from 1.26, v1beta3 outlives it.
    const [early] = scanManifests(snapshot, flowSchema, "1.25").findings;
    assert.equal(early?.replacement, "flowcontrol.apiserver.k8s.io/v1beta2");
    const [deprecated] = scanManifests(snapshot, flowSchema, "1.26").findings;
    assert.equal(deprecated?.replacement, "flowcontrol.apiserver.k8s.io/v1beta3");
  });

  // flowcontrol v1beta2 → v1 is the listed migration, but v1 is first served in 1.29: a target before it gets the
  // version both sides serve, v1beta3 (introduced in 1.26, removed in 1.32), found from the records' introducedIn.
  const interimCases: {
    title: string;
    apiVersion: string;
    target: string;
    replacement: string;
    availableIn: string | null;
    message: RegExp;
  }[] = [
    {
      title: "v1beta2 at 1.28: v1 is not served yet, so v1beta3",
      apiVersion: "flowcontrol.apiserver.k8s.io/v1beta2",
      target: "1.28",
      replacement: "flowcontrol.apiserver.k8s.io/v1beta3",
      availableIn: "1.26",
      message:
        /its replacement flowcontrol\.apiserver\.k8s\.io\/v1 is first served in 1\.29, after 1\.28, so migrate to flowcontrol\.apiserver\.k8s\.io\/v1beta3 meanwhile \(served from 1\.26 until 1\.32\) before upgrading to 1\.29, and to flowcontrol\.apiserver\.k8s\.io\/v1 before upgrading to 1\.32\.$/,
    },
    {
      title: "v1beta2 at 1.26, the first minor serving v1beta3: v1beta3",
      apiVersion: "flowcontrol.apiserver.k8s.io/v1beta2",
      target: "1.26",
      replacement: "flowcontrol.apiserver.k8s.io/v1beta3",
      availableIn: "1.26",
      message: /migrate to flowcontrol\.apiserver\.k8s\.io\/v1beta3 meanwhile/,
    },
    {
      title: "v1beta2 at 1.25, before v1beta3 exists: v1 as listed, with no interim",
      apiVersion: "flowcontrol.apiserver.k8s.io/v1beta2",
      target: "1.25",
      replacement: "flowcontrol.apiserver.k8s.io/v1",
      availableIn: "1.29",
      message: /first served in 1\.29, so no release serves both/,
    },
    {
      title: "v1beta2 at 1.29, where v1 is served: v1",
      apiVersion: "flowcontrol.apiserver.k8s.io/v1beta2",
      target: "1.29",
      replacement: "flowcontrol.apiserver.k8s.io/v1",
      availableIn: "1.29",
      message: /migrate to flowcontrol\.apiserver\.k8s\.io\/v1 \(available since 1\.29\)\.$/,
    },
    {
      title:
        "v1beta1 at 1.28: past the removed v1beta1, v1beta2's v1 is not served yet, so v1beta3",
      apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1",
      target: "1.28",
      replacement: "flowcontrol.apiserver.k8s.io/v1beta3",
      availableIn: "1.26",
      message:
        /no longer served from 1\.29 either|migrate to flowcontrol\.apiserver\.k8s\.io\/v1beta3 meanwhile/,
    },
    {
      title: "v1beta3 at 1.28: no longer-lived version is served, so v1 once the cluster runs 1.29",
      apiVersion: "flowcontrol.apiserver.k8s.io/v1beta3",
      target: "1.28",
      replacement: "flowcontrol.apiserver.k8s.io/v1",
      availableIn: "1.29",
      message: /once the cluster runs 1\.29 \(it is not served in 1\.28\)/,
    },
  ];
  for (const { title, apiVersion, target, replacement, availableIn, message } of interimCases) {
    it(title, async () => {
      const snapshot = new KbSnapshot(await loadKbDirectory(KB_DIR), {
        revision: 1,
        lastImportAt: null,
      });
      for (const kind of ["FlowSchema", "PriorityLevelConfiguration"]) {
        const [finding] = scanManifests(
          snapshot,
          `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: fs\n`,
          target,
        ).findings;
        assert.equal(finding?.replacement, replacement, `${kind}: ${finding?.message}`);
        assert.equal(finding?.replacementAvailableIn, availableIn, kind);
        assert.match(finding?.message ?? "", message, kind);
      }
    });
  }
});
