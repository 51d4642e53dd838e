/**
 * The target schemas of the `fix` conversions (test/fixtures/target-schemas/) can fail: each accepts the hand-
 * converted fixtures (test/fixtures/fix/*.expected.*) and rejects the typical unconverted forms with a readable
 * error. The before/expected pairs are checked for shape too: same objects in the same order, the objects the fix
 * must not touch equal, no removed apiVersion left in an expected file.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import {
  TARGET_SCHEMA_DIR,
  targetSchemaErrors,
  targetSchemaFile,
} from "./support/target-schemas.js";

const FIX_DIR = path.join(path.dirname(TARGET_SCHEMA_DIR), "fix");

/** The removed apiVersions (per kind) the fixtures convert from. */
const REMOVED = new Set([
  "extensions/v1beta1 Ingress",
  "networking.k8s.io/v1beta1 Ingress",
  "networking.k8s.io/v1beta1 IngressClass",
  "autoscaling/v2beta1 HorizontalPodAutoscaler",
  "autoscaling/v2beta2 HorizontalPodAutoscaler",
  "batch/v1beta1 CronJob",
  "batch/v2alpha1 CronJob",
  "policy/v1beta1 PodDisruptionBudget",
  "discovery.k8s.io/v1beta1 EndpointSlice",
  "flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema",
  "flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema",
  "flowcontrol.apiserver.k8s.io/v1beta2 PriorityLevelConfiguration",
  "flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration",
  "storage.k8s.io/v1beta1 CSIStorageCapacity",
  "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding",
  "rbac.authorization.k8s.io/v1beta1 ClusterRole",
  "rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding",
]);

type KubeObject = Record<string, unknown> & { apiVersion: string; kind: string };

const typeOf = (object: KubeObject): string => `${object.apiVersion} ${object.kind}`;
const nameOf = (object: KubeObject): string | undefined =>
  (object.metadata as { name?: string; generateName?: string } | undefined)?.name ??
  (object.metadata as { generateName?: string } | undefined)?.generateName;

/** The objects of a manifest file, List items expanded, in order. */
function objectsOf(file: string): KubeObject[] {
  const text = fs.readFileSync(path.join(FIX_DIR, file), "utf8");
  const documents = file.endsWith(".json")
    ? [JSON.parse(text) as unknown]
    : parseAllDocuments(text).map((document) => {
        assert.deepEqual(document.errors, [], `${file}: YAML errors`);
        return document.toJS() as unknown;
      });
  const objects: KubeObject[] = [];
  for (const document of documents) {
    if (document === null) continue;
    const object = document as KubeObject;
    if (object.kind === "List") objects.push(...(object.items as KubeObject[]));
    else objects.push(object);
  }
  return objects;
}

const hasSchema = (object: KubeObject): boolean =>
  fs.existsSync(path.join(TARGET_SCHEMA_DIR, targetSchemaFile(object.apiVersion, object.kind)));

/** One expected object per kind, to be broken by the tests below. */
function expectedObject(file: string, kind: string, name?: string): KubeObject {
  const found = objectsOf(file).find(
    (object) =>
      object.kind === kind &&
      hasSchema(object) &&
      (name === undefined || (object.metadata as { name?: string }).name === name),
  );
  assert.ok(found, `${file} has a ${kind}${name ? ` ${name}` : ""}`);
  assert.deepEqual(targetSchemaErrors(found), [], `${file} ${kind} is valid before it is broken`);
  return structuredClone(found);
}

/** The errors of `object` after `edit`; asserts that there is one matching `pattern`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the edits reach into parsed YAML of any shape
function assertRejected(object: KubeObject, edit: (object: any) => void, pattern: RegExp): void {
  const broken = structuredClone(object);
  edit(broken);
  const errors = targetSchemaErrors(broken);
  assert.ok(
    errors.some((error) => pattern.test(error)),
    `expected an error matching ${String(pattern)}, got: ${JSON.stringify(errors)}`,
  );
}

const fixtureFiles = fs
  .readdirSync(FIX_DIR)
  .filter((file) => /\.(yaml|json)$/.test(file) && !file.includes(".expected."))
  .sort();
const expectedOf = (file: string): string => file.replace(/\.(yaml|json)$/, ".expected.$1");

describe("target schemas", () => {
  const schemaFiles = fs.readdirSync(TARGET_SCHEMA_DIR).filter((file) => file.endsWith(".json"));

  it("are shipped for the eleven target kinds, each accepting at least one expected fixture", () => {
    assert.equal(schemaFiles.length, 11);
    const used = new Set(
      fixtureFiles
        .flatMap((file) => objectsOf(expectedOf(file)))
        .filter(hasSchema)
        .map((object) => targetSchemaFile(object.apiVersion, object.kind)),
    );
    assert.deepEqual([...used].sort(), [...schemaFiles].sort());
  });

  it("throw for an apiVersion and kind that has no schema (the removed source versions)", () => {
    assert.throws(
      () => targetSchemaErrors({ apiVersion: "extensions/v1beta1", kind: "Ingress", spec: {} }),
      /no target schema is shipped for extensions\/v1beta1 Ingress \(looked for ingress-extensions-v1beta1\.json\)/,
    );
    assert.throws(() => targetSchemaErrors({ kind: "Ingress" }), /no apiVersion or kind/);
    assert.throws(() => targetSchemaErrors([]), /not a Kubernetes object/);
  });

  it("reject an unknown top-level field in every kind", () => {
    const seen = new Set<string>();
    for (const file of fixtureFiles) {
      for (const object of objectsOf(expectedOf(file)).filter(hasSchema)) {
        if (seen.has(typeOf(object))) continue;
        seen.add(typeOf(object));
        assertRejected(
          object,
          (broken) => (broken.specs = {}),
          /^\(root\): unknown field "specs"$/,
        );
        assertRejected(
          object,
          (broken) => (broken.metadata.labelz = {}),
          /^\/metadata: unknown field "labelz"$/,
        );
        assertRejected(
          object,
          (broken) => (broken.metadata.labels = { a: 1 }),
          /^\/metadata\/labels\/a: must be string$/,
        );
      }
    }
    assert.equal(seen.size, 11);
  });
});

describe("target schemas reject the unconverted forms", () => {
  it("Ingress: serviceName/servicePort, a path without pathType, spec.backend, port name and number", () => {
    const ingress = expectedObject("ingress-extensions-v1beta1.expected.yaml", "Ingress");
    const backendPath = "/spec/rules/0/http/paths/0/backend";
    assertRejected(
      ingress,
      (broken) =>
        (broken.spec.rules[0].http.paths[0].backend = { serviceName: "assets", servicePort: 8080 }),
      new RegExp(`^${backendPath}: unknown field "serviceName"$`),
    );
    assertRejected(
      ingress,
      (broken) => delete broken.spec.rules[0].http.paths[0].pathType,
      /^\/spec\/rules\/0\/http\/paths\/0: missing required field "pathType"$/,
    );
    assertRejected(
      ingress,
      (broken) => (broken.spec.rules[0].http.paths[0].pathType = "Regex"),
      /^\/spec\/rules\/0\/http\/paths\/0\/pathType: must be one of "Exact", "Prefix", "ImplementationSpecific"$/,
    );
    assertRejected(
      ingress,
      (broken) => {
        broken.spec.backend = broken.spec.defaultBackend;
        delete broken.spec.defaultBackend;
      },
      /^\/spec: unknown field "backend"$/,
    );
    // A quoted "8080" is a string servicePort, hence a port *name* after conversion: not a valid one.
    assertRejected(
      ingress,
      (broken) => (broken.spec.rules[0].http.paths[0].backend.service.port = { name: "8080" }),
      /^\/spec\/rules\/0\/http\/paths\/0\/backend\/service\/port\/name: must match pattern/,
    );
    assertRejected(
      ingress,
      (broken) =>
        (broken.spec.rules[0].http.paths[0].backend.service.port = { name: "http", number: 80 }),
      /service\/port: must match exactly one schema in oneOf$/,
    );
    assertRejected(
      ingress,
      (broken) => (broken.spec.defaultBackend.service.port.number = "80"),
      /^\/spec\/defaultBackend\/service\/port\/number: must be integer$/,
    );
  });

  it("IngressClass: an unknown parameters scope", () => {
    const ingressClass = expectedObject(
      "ingressclass-v1beta1.expected.yaml",
      "IngressClass",
      "internal",
    );
    assertRejected(
      ingressClass,
      (broken) => (broken.spec.parameters.scope = "namespace"),
      /^\/spec\/parameters\/scope: must be one of "Namespace", "Cluster"$/,
    );
  });

  it("HorizontalPodAutoscaler: v2beta1 metric fields, a target without its value", () => {
    const hpa = expectedObject("hpa-v2beta1.expected.yaml", "HorizontalPodAutoscaler");
    assertRejected(
      hpa,
      (broken) => (broken.spec.metrics[0].resource = { name: "cpu", targetAverageUtilization: 70 }),
      /^\/spec\/metrics\/0\/resource: unknown field "targetAverageUtilization"$/,
    );
    assertRejected(
      hpa,
      (broken) => (broken.spec.metrics[2].pods = { metricName: "rps", targetAverageValue: "100" }),
      /^\/spec\/metrics\/2\/pods: unknown field "metricName"$/,
    );
    assertRejected(
      hpa,
      (broken) => {
        const object = broken.spec.metrics[3].object;
        object.target = object.describedObject;
        delete object.describedObject;
      },
      /^\/spec\/metrics\/3\/object: missing required field "describedObject"$/,
    );
    assertRejected(
      hpa,
      (broken) => (broken.spec.metrics[5].external.metricSelector = { matchLabels: {} }),
      /^\/spec\/metrics\/5\/external: unknown field "metricSelector"$/,
    );
    assertRejected(
      hpa,
      (broken) => delete broken.spec.metrics[0].resource.target.averageUtilization,
      /^\/spec\/metrics\/0\/resource\/target: missing required field "averageUtilization"$/,
    );
    assertRejected(
      hpa,
      (broken) => (broken.spec.metrics[0].resource.target.type = "Average"),
      /^\/spec\/metrics\/0\/resource\/target\/type: must be one of "Utilization", "Value", "AverageValue"$/,
    );
    assertRejected(
      hpa,
      (broken) => (broken.spec.metrics[1].resource.target.averageValue = "512 MB"),
      /^\/spec\/metrics\/1\/resource\/target\/averageValue: must match pattern/,
    );
  });

  it("CronJob: schedule required, concurrencyPolicy enum, JobSpec strict", () => {
    const cronJob = expectedObject("cronjob-v1beta1.expected.yaml", "CronJob", "nightly-report");
    assertRejected(
      cronJob,
      (broken) => delete broken.spec.schedule,
      /^\/spec: missing required field "schedule"$/,
    );
    assertRejected(
      cronJob,
      (broken) => (broken.spec.concurrencyPolicy = "forbid"),
      /^\/spec\/concurrencyPolicy: must be one of "Allow", "Forbid", "Replace"$/,
    );
    assertRejected(
      cronJob,
      (broken) => (broken.spec.jobTemplate.spec.backofLimit = 2),
      /^\/spec\/jobTemplate\/spec: unknown field "backofLimit"$/,
    );
  });

  it("PodDisruptionBudget: selector strict, eviction policy enum, not both minAvailable and maxUnavailable", () => {
    const pdb = expectedObject("pdb-v1beta1.expected.yaml", "PodDisruptionBudget", "checkout");
    assertRejected(
      pdb,
      (broken) => (broken.spec.selector.matchExpressions[0].operator = "Equals"),
      /^\/spec\/selector\/matchExpressions\/0\/operator: must be one of "In", "NotIn", "Exists", "DoesNotExist"$/,
    );
    assertRejected(
      pdb,
      (broken) => (broken.spec.selector.matchLabel = { app: "checkout" }),
      /^\/spec\/selector: unknown field "matchLabel"$/,
    );
    assertRejected(
      pdb,
      (broken) => (broken.spec.unhealthyPodEvictionPolicy = "Always"),
      /^\/spec\/unhealthyPodEvictionPolicy: must be one of "IfHealthyBudget", "AlwaysAllow"$/,
    );
    assertRejected(
      pdb,
      (broken) => (broken.spec.maxUnavailable = "10%"),
      /^\/spec: must NOT be valid$/,
    );
    assertRejected(
      pdb,
      (broken) => (broken.spec.minAvailable = 1.5),
      /^\/spec\/minAvailable: must be string,integer$/,
    );
  });

  it("EndpointSlice: topology, endpoints without addresses, addressType", () => {
    const slice = expectedObject(
      "endpointslice-v1beta1.expected.yaml",
      "EndpointSlice",
      "orders-db-1",
    );
    assertRejected(
      slice,
      (broken) => (broken.endpoints[0].topology = { "kubernetes.io/hostname": "db-node-a" }),
      /^\/endpoints\/0: unknown field "topology"$/,
    );
    assertRejected(
      slice,
      (broken) => delete broken.endpoints[1].addresses,
      /^\/endpoints\/1: missing required field "addresses"$/,
    );
    assertRejected(
      slice,
      (broken) => delete broken.addressType,
      /^\(root\): missing required field "addressType"$/,
    );
    assertRejected(
      slice,
      (broken) => (broken.addressType = "IP"),
      /^\/addressType: must be one of "IPv4", "IPv6", "FQDN"$/,
    );
  });

  it("FlowSchema: a subject without its member", () => {
    const flowSchema = expectedObject(
      "flowschema-v1beta3.expected.yaml",
      "FlowSchema",
      "batch-controllers",
    );
    assertRejected(
      flowSchema,
      (broken) => (broken.spec.rules[0].subjects[0] = { kind: "User", group: { name: "x" } }),
      /^\/spec\/rules\/0\/subjects\/0: missing required field "user"$/,
    );
  });

  it("PriorityLevelConfiguration: assuredConcurrencyShares, a Limited level without limited", () => {
    const level = expectedObject(
      "prioritylevel-v1beta2.expected.yaml",
      "PriorityLevelConfiguration",
      "ci-robots",
    );
    assertRejected(
      level,
      (broken) => {
        broken.spec.limited.assuredConcurrencyShares = broken.spec.limited.nominalConcurrencyShares;
        delete broken.spec.limited.nominalConcurrencyShares;
      },
      /^\/spec\/limited: unknown field "assuredConcurrencyShares"$/,
    );
    assertRejected(
      level,
      (broken) => delete broken.spec.limited,
      /^\/spec: missing required field "limited"$/,
    );
    assertRejected(
      level,
      (broken) => (broken.spec.limited.lendablePercent = 101),
      /^\/spec\/limited\/lendablePercent: must be <= 100$/,
    );
  });

  it("CSIStorageCapacity: storageClassName required, quantities", () => {
    const capacity = expectedObject(
      "csistoragecapacity-v1beta1.expected.yaml",
      "CSIStorageCapacity",
    );
    assertRejected(
      capacity,
      (broken) => delete broken.storageClassName,
      /^\(root\): missing required field "storageClassName"$/,
    );
    assertRejected(
      capacity,
      (broken) => (broken.capacity = "100 GiB"),
      /^\/capacity: must match pattern/,
    );
  });

  it("ValidatingAdmissionPolicy and its binding: enums and required expressions", () => {
    const policy = expectedObject(
      "validatingadmissionpolicy-v1beta1.expected.yaml",
      "ValidatingAdmissionPolicy",
    );
    assertRejected(
      policy,
      (broken) => delete broken.spec.validations[0].expression,
      /^\/spec\/validations\/0: missing required field "expression"$/,
    );
    assertRejected(
      policy,
      (broken) => (broken.spec.matchConstraints.resourceRules[0].operations = ["PATCH"]),
      /operations\/0: must be one of "\*", "CREATE", "UPDATE", "DELETE", "CONNECT"$/,
    );
    const binding = expectedObject(
      "validatingadmissionpolicy-v1beta1.expected.yaml",
      "ValidatingAdmissionPolicyBinding",
    );
    assertRejected(
      binding,
      (broken) => (broken.spec.validationActions = ["Block"]),
      /^\/spec\/validationActions\/0: must be one of "Deny", "Warn", "Audit"$/,
    );
  });
});

describe("fix fixtures", () => {
  it("pair each before file with an expected file", () => {
    assert.ok(fixtureFiles.length >= 15, `fixtures: ${fixtureFiles.join(", ")}`);
    for (const file of fixtureFiles) {
      assert.ok(fs.existsSync(path.join(FIX_DIR, expectedOf(file))), `${expectedOf(file)} exists`);
    }
  });

  for (const file of fixtureFiles) {
    it(`${file}: converts removed versions only, and its expected objects validate`, () => {
      const before = objectsOf(file);
      const after = objectsOf(expectedOf(file));
      assert.equal(after.length, before.length, "same number of objects");
      assert.ok(
        before.some((object) => REMOVED.has(typeOf(object))),
        "has an object to convert",
      );
      assert.ok(
        before.some((object) => !REMOVED.has(typeOf(object))),
        "has an object to leave alone",
      );
      for (const [index, object] of before.entries()) {
        const converted = after[index]!;
        assert.equal(converted.kind, object.kind, `object ${index}: same kind`);
        assert.equal(nameOf(converted), nameOf(object), `object ${index}: same name`);
        assert.ok(
          !REMOVED.has(typeOf(converted)),
          `object ${index}: ${typeOf(converted)} is converted`,
        );
        if (!REMOVED.has(typeOf(object)))
          assert.deepEqual(converted, object, `object ${index} is left alone`);
        else assert.throws(() => targetSchemaErrors(object), /no target schema/);
        if (hasSchema(converted))
          assert.deepEqual(targetSchemaErrors(converted), [], `object ${index}`);
      }
    });
  }
});
