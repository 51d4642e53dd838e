/**
 * `fix` on Helm templates as charts keep them: the actions (`{{ ... }}`) are covered while the object is read
 * and written back where a conversion moves them; a conversion that would need what an action renders to is
 * refused with the template's line. The fixed chart is rendered with the real helm (v4.1.4 from
 * test/support/helm-binary.ts; no cluster runs here, helm only renders) and scanned: what was fixed is clean.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { fixManifests } from "../src/domain/manifest-fix.js";
import { scanManifests } from "../src/domain/scan.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kbSnapshot } from "./support/snapshot.js";
import { renderTools } from "./support/helm-binary.js";

const WEBSHOP = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  "fixtures",
  "charts",
  "webshop",
);

const INGRESS = `{{- if .Values.ingress.enabled -}}
{{- $fullName := include "shop.fullname" . -}}
apiVersion: extensions/v1beta1
kind: Ingress
metadata:
  name: {{ $fullName }}
  labels:
    {{- include "shop.labels" . | nindent 4 }}
spec:
  rules:
    {{- range .Values.ingress.hosts }}
    - host: {{ .host | quote }}
      http:
        paths:
          {{- range .paths }}
          - path: {{ . }}
            backend:
              serviceName: {{ $fullName }}   # the chart's own Service
              servicePort: PORT
          {{- end }}
    {{- end }}
{{- end }}
`;

/** Whether `needles` appear in `haystack` in order. */
function inOrder(haystack: readonly string[], needles: readonly string[]): string | null {
  let from = 0;
  for (const needle of needles) {
    const found = haystack.indexOf(needle, from);
    if (found === -1) return needle;
    from = found + 1;
  }
  return null;
}

let snapshot: KbSnapshot;
before(async () => {
  snapshot = await kbSnapshot();
});

describe("fix on Helm templates", () => {
  it("moves a templated value with its action, keeps every line of control, and changes nothing else", () => {
    const template = INGRESS.replace("PORT", "http");
    const report = fixManifests(snapshot, template, "1.22", { template: true });
    assert.equal(report.objects.length, 1);
    assert.equal(report.objects[0]!.status, "FIXED", report.objects[0]!.reason ?? "");
    const output = report.manifests.split("\n");
    // Every action of the template is in the output, verbatim, in order.
    const actions = [...template.matchAll(/\{\{[\s\S]*?\}\}/g)].map((match) => match[0]);
    const outputActions = [...report.manifests.matchAll(/\{\{[\s\S]*?\}\}/g)].map((m) => m[0]);
    assert.deepEqual(outputActions, actions);
    // The lines the conversion does not touch are all there, unchanged and in order.
    const untouched = template
      .split("\n")
      .filter((line) => !/apiVersion|serviceName|servicePort/.test(line));
    assert.equal(inOrder(output, untouched), null, report.manifests);
    assert.ok(output.includes("apiVersion: networking.k8s.io/v1"));
    assert.ok(
      output.some((line) =>
        /^\s+name: \{\{ \$fullName \}\} +# the chart's own Service$/.test(line),
      ),
    );
    assert.ok(output.some((line) => /^\s+pathType: ImplementationSpecific$/.test(line)));
  });

  it("refuses a conversion that depends on what an action renders to, naming the line", () => {
    const template = INGRESS.replace("PORT", "{{ .Values.service.port }}");
    const report = fixManifests(snapshot, template, "1.22", { template: true });
    assert.equal(report.objects[0]!.status, "NOT_FIXED");
    assert.match(report.objects[0]!.reason ?? "", /servicePort is templated/);
    assert.equal(report.manifests, template);
    assert.equal(report.changed, false);
  });

  it("says which documents it could not read once the actions are covered (an apiVersion chosen by if/else)", () => {
    const template = fs.readFileSync(path.join(WEBSHOP, "templates", "ingress.yaml"), "utf8");
    const report = fixManifests(snapshot, template, "1.25", { template: true });
    assert.equal(report.changed, false);
    assert.equal(report.notes.length, 1);
    assert.equal(report.notes[0]!.code, "DOCUMENT_UNREADABLE");
    assert.match(report.notes[0]!.message, /template actions covered/);
  });

  it("a chart fixed template by template renders with helm and scans clean for what was fixed", () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-fix-chart-"));
    try {
      const chart = path.join(scratch, "webshop");
      fs.cpSync(WEBSHOP, chart, { recursive: true });
      const render = (): string =>
        execFileSync(renderTools().helm, ["template", "shop", chart, "--kube-version", "1.25.0"], {
          encoding: "utf8",
        });
      const removedKinds = (rendered: string): string[] =>
        scanManifests(snapshot, rendered, "1.25")
          .findings.filter((finding) => finding.code === "API_REMOVED")
          .map((finding) => finding.kind)
          .sort();
      const beforeKinds = removedKinds(render());
      const fixedKinds: string[] = [];
      // The chart's templates and its subcharts'.
      const templates = (fs.readdirSync(chart, { recursive: true }) as string[]).filter(
        (file) => file.split(path.sep).includes("templates") && file.endsWith(".yaml"),
      );
      for (const file of templates) {
        const where = path.join(chart, file);
        const report = fixManifests(snapshot, fs.readFileSync(where, "utf8"), "1.25", {
          template: true,
          fileName: file,
        });
        if (report.changed) fs.writeFileSync(where, report.manifests);
        fixedKinds.push(
          ...report.objects
            .filter((object) => object.status === "FIXED")
            .map((object) => object.kind),
        );
      }
      assert.ok(
        fixedKinds.includes("CronJob") && fixedKinds.includes("PodDisruptionBudget"),
        fixedKinds.join(),
      );
      const afterKinds = removedKinds(render());
      assert.deepEqual(
        afterKinds,
        beforeKinds.filter((kind) => !fixedKinds.includes(kind)),
      );
      assert.ok(afterKinds.length < beforeKinds.length);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
