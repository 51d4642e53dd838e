/**
 * `fix` over the reviewed kb/: each conversion's fixture (test/fixtures/fix/, real manifests as kept in git or
 * printed by kubectl) is rewritten byte for byte into the expected file written by hand, which differs from the
 * input only where the conversion changes a field; the result scans clean at the target and every converted
 * object is valid for the target API by its schema (test/fixtures/target-schemas/, kubeconform style).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { createPatch } from "diff";
import { fixManifests } from "../src/domain/manifest-fix.js";
import { isPlainMap } from "../src/domain/manifest-values.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kbSnapshot } from "./support/snapshot.js";
import {
  TARGET_SCHEMA_DIR,
  targetSchemaErrors,
  targetSchemaFile,
} from "./support/target-schemas.js";

const FIXTURES = path.resolve(path.dirname(new URL(import.meta.url).pathname), "fixtures", "fix");

/** Each fixture with the target it is fixed for: the minor its API is removed in, and a later one. */
const CONVERSIONS: ReadonlyArray<{ file: string; targets: readonly string[]; lossy?: true }> = [
  { file: "ingress-extensions-v1beta1.yaml", targets: ["1.22", "1.35"] },
  { file: "ingress-networking-v1beta1.yaml", targets: ["1.22", "1.35"] },
  { file: "kubectl-get-ingress.json", targets: ["1.22"] },
  { file: "ingressclass-v1beta1.yaml", targets: ["1.22"] },
  { file: "hpa-v2beta1.yaml", targets: ["1.25", "1.35"] },
  { file: "hpa-v2beta2.yaml", targets: ["1.26"] },
  { file: "cronjob-v1beta1.yaml", targets: ["1.25"] },
  { file: "pdb-v1beta1.yaml", targets: ["1.25"] },
  { file: "endpointslice-v1beta1.yaml", targets: ["1.25"], lossy: true },
  { file: "flowschema-v1beta2.yaml", targets: ["1.29"] },
  { file: "flowschema-v1beta3.yaml", targets: ["1.32"] },
  { file: "prioritylevel-v1beta2.yaml", targets: ["1.29", "1.33"] },
  { file: "prioritylevel-v1beta3.yaml", targets: ["1.32"] },
  { file: "csistoragecapacity-v1beta1.yaml", targets: ["1.27"] },
  { file: "validatingadmissionpolicy-v1beta1.yaml", targets: ["1.34"] },
  { file: "rbac-v1beta1.yaml", targets: ["1.22"] },
];

function read(file: string): string {
  return fs.readFileSync(path.join(FIXTURES, file), "utf8");
}

function expectedFile(file: string): string {
  return file.replace(/\.(yaml|json)$/, ".expected.$1");
}

/** Every object of the text (List items included), as plain values. */
function objectsIn(text: string): Array<Record<string, unknown>> {
  return parseAllDocuments(text).flatMap((document) => {
    const value = document.toJS() as unknown;
    if (!isPlainMap(value)) return [];
    return Array.isArray(value.items) && String(value.kind).endsWith("List")
      ? (value.items as unknown[]).filter(isPlainMap)
      : [value];
  });
}

let snapshot: KbSnapshot;
before(async () => {
  snapshot = await kbSnapshot();
});

describe("fix: each conversion's fixture", () => {
  for (const { file, targets, lossy } of CONVERSIONS) {
    for (const target of targets) {
      it(`${file} at ${target}: byte for byte the hand-converted file, clean at the target, valid for the target API`, () => {
        const input = read(file);
        const report = fixManifests(snapshot, input, target, {
          allowLossy: lossy === true,
          fileName: file,
        });
        assert.equal(report.manifests, read(expectedFile(file)));
        assert.equal(report.changed, true);
        assert.ok(report.objects.length > 0);
        for (const object of report.objects)
          assert.equal(object.status, "FIXED", object.reason ?? "");
        assert.deepEqual(
          report.after.findings.filter((finding) => finding.code === "API_REMOVED"),
          [],
        );
        // The converted objects are those whose apiVersion changed (same place in the input and the output).
        const inputObjects = objectsIn(input);
        const outputObjects = objectsIn(report.manifests);
        assert.equal(outputObjects.length, inputObjects.length);
        let validated = 0;
        outputObjects.forEach((object, index) => {
          const { apiVersion, kind } = object as { apiVersion: string; kind: string };
          if (apiVersion === inputObjects[index]!.apiVersion) return;
          if (!fs.existsSync(path.join(TARGET_SCHEMA_DIR, targetSchemaFile(apiVersion, kind))))
            return;
          assert.deepEqual(targetSchemaErrors(object), [], `${kind} #${index}`);
          validated += 1;
        });
        // RBAC has no shipped schema; every other fixture's converted objects are checked.
        if (!file.startsWith("rbac")) assert.ok(validated > 0, "no converted object was checked");
        // The diff, worked out from the edits, is the one a line diff of the whole texts gives.
        assert.equal(
          report.diff,
          createPatch(file, input, report.manifests, "", "", { context: 3 }),
        );
        // The diff names the file and says what changed, line by line.
        assert.match(report.diff, new RegExp(`^--- ${file.replace(".", "\\.")}`, "m"));
        assert.ok(
          report.diff.split("\n").some((line) => /^-.*"?apiVersion"?:/.test(line)),
          report.diff,
        );
      });
    }
  }
});

describe("fix: what it leaves as it is, and says why", () => {
  const ingress = (apiVersion: string, extra = ""): string =>
    `apiVersion: ${apiVersion}\nkind: Ingress\nmetadata:\n  name: shop\n${extra}spec:\n  rules:\n  - http:\n      paths:\n      - path: /\n        backend:\n          serviceName: web\n          servicePort: 80\n`;

  it("a lossy conversion is applied only when allowed, and reported either way", () => {
    const input = read("endpointslice-v1beta1.yaml");
    const refused = fixManifests(snapshot, input, "1.25");
    const lossy = refused.objects.filter((object) => object.lossy.length > 0);
    assert.equal(lossy.length, 1);
    assert.equal(lossy[0]!.status, "NOT_FIXED");
    assert.match(lossy[0]!.reason ?? "", /loses information/);
    assert.match(lossy[0]!.lossy[0]!, /topology/);
    // The lossy object stays as it was (its topology keys included); the other is fixed.
    assert.ok(refused.manifests.includes("rack.example.com/row"));
    assert.ok(refused.objects.some((object) => object.status === "FIXED"));
    assert.ok(refused.after.findings.some((finding) => finding.code === "API_REMOVED"));
    const allowed = fixManifests(snapshot, input, "1.25", { allowLossy: true });
    assert.deepEqual(
      allowed.objects.map((object) => object.status),
      ["FIXED", "FIXED"],
    );
    assert.deepEqual(
      allowed.objects.find((object) => object.lossy.length > 0)?.lossy,
      lossy[0]!.lossy,
    );
  });

  it("an API with no replacement (PodSecurityPolicy) is left with its finding", () => {
    const input =
      "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: restricted\nspec:\n  privileged: false\n";
    const report = fixManifests(snapshot, input, "1.25");
    assert.equal(report.changed, false);
    assert.equal(report.diff, "");
    assert.equal(report.manifests, input);
    assert.equal(report.objects[0]!.status, "NOT_FIXED");
    assert.equal(report.objects[0]!.toApiVersion, null);
    assert.match(report.objects[0]!.reason ?? "", /no replacement/);
    assert.equal(report.after.findings[0]!.code, "API_REMOVED");
  });

  it("a replacement not served at the version upgraded from is not written", () => {
    const input = ingress("extensions/v1beta1");
    const report = fixManifests(snapshot, input, "1.22", { fromVersion: "1.18" });
    assert.equal(report.objects[0]!.status, "NOT_FIXED");
    assert.match(report.objects[0]!.reason ?? "", /served from Kubernetes 1\.19, after 1\.18/);
    assert.equal(report.manifests, input);
    const served = fixManifests(snapshot, input, "1.22", { fromVersion: "1.19" });
    assert.equal(served.objects[0]!.status, "FIXED");
  });

  it("an object tied to other text by anchors or aliases is left to a person", () => {
    const input = `apiVersion: networking.k8s.io/v1beta1\nkind: Ingress\nmetadata:\n  name: shop\n  labels: &labels\n    app: shop\nspec:\n  rules:\n  - http:\n      paths:\n      - path: /\n        backend:\n          serviceName: web\n          servicePort: 80\n`;
    const report = fixManifests(snapshot, input, "1.22");
    assert.equal(report.objects[0]!.status, "NOT_FIXED");
    assert.match(report.objects[0]!.reason ?? "", /anchors, aliases or merge keys/);
    assert.equal(report.manifests, input);
  });

  it("an apiVersion the knowledge base has no conversion for is not rewritten by guess", () => {
    const input =
      "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n";
    const report = fixManifests(snapshot, input, "1.16");
    assert.equal(report.objects[0]!.status, "NOT_FIXED");
    assert.match(
      report.objects[0]!.reason ?? "",
      /no conversion of apps\/v1beta1 Deployment to apps\/v1/,
    );
    assert.equal(report.manifests, input);
  });

  it("an object still served at the target is not touched; nothing to fix is said as such", () => {
    const input = ingress("networking.k8s.io/v1beta1");
    const report = fixManifests(snapshot, input, "1.21");
    assert.deepEqual(report.objects, []);
    assert.equal(report.changed, false);
    assert.equal(report.diff, "");
  });

  it("a chain of removals is followed to the replacement the target serves (flowcontrol v1beta1 → v1beta2 → v1)", () => {
    const input =
      "apiVersion: flowcontrol.apiserver.k8s.io/v1beta1\nkind: PriorityLevelConfiguration\nmetadata:\n  name: batch\nspec:\n  type: Limited\n  limited:\n    assuredConcurrencyShares: 0 # the default\n    limitResponse:\n      type: Reject\n";
    const report = fixManifests(snapshot, input, "1.29");
    assert.equal(report.objects[0]!.status, "FIXED", report.objects[0]!.reason ?? "");
    assert.equal(report.objects[0]!.sourceUrls.length, 2);
    assert.equal(
      report.manifests,
      input
        .replace("flowcontrol.apiserver.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1")
        .replace("assuredConcurrencyShares: 0", "nominalConcurrencyShares: 30"),
    );
  });

  it("a move onto a field the object already has is refused, not merged", () => {
    const input = ingress("extensions/v1beta1").replace(
      "          servicePort: 80\n",
      "          servicePort: 80\n          service:\n            name: other\n",
    );
    const report = fixManifests(snapshot, input, "1.22");
    assert.equal(report.objects[0]!.status, "NOT_FIXED");
    assert.match(report.objects[0]!.reason ?? "", /already has/);
  });

  it("bad input gets the scan's errors", () => {
    assert.throws(
      () => fixManifests(snapshot, ingress("extensions/v1beta1"), "1.3"),
      /did you mean "1\.30"\?/,
    );
    assert.throws(
      () => fixManifests(snapshot, ingress("extensions/v1beta1"), "1.22", { fromVersion: "1.25" }),
      /newer than targetVersion/,
    );
  });
});

describe("fix: line endings", () => {
  it("a file written with CRLF gets CRLF in what is written into it, and reads as the LF file's fix", () => {
    const lf = read("ingress-extensions-v1beta1.yaml");
    const crlf = lf.replace(/\n/g, "\r\n");
    const report = fixManifests(snapshot, crlf, "1.22");
    assert.ok(report.objects.every((object) => object.status === "FIXED"));
    assert.equal(
      report.manifests.replace(/\r\n/g, "\n"),
      read("ingress-extensions-v1beta1.expected.yaml"),
    );
    assert.equal(
      report.manifests.split("\r\n").join("").includes("\n"),
      false,
      "a bare LF was written",
    );
  });
});
