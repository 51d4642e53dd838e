/**
 * The requests that scan what a cluster holds for APIs an upgrade removes:
 * manifests as text, and the evidence read from a live cluster (Helm
 * releases, last-applied annotations, request metrics, the audit log).
 */
import { detail } from "./answer-detail.js";
import { targetVersion } from "./cluster-fields.js";
import { shortText, z } from "./openapi-zod.js";

/** The largest manifest text or log a request may carry (10 MiB). */
export const MAX_MANIFEST_CHARS = 10 * 1024 * 1024;
export const scanRequest = z
  .strictObject({
    manifests: z.string().max(MAX_MANIFEST_CHARS, "must be at most 10 MiB").openapi({
      description: "Multi-document YAML or JSON: kubectl get -o yaml, helm template, GitOps files.",
    }),
    targetVersion,
    fromVersion: shortText(
      "The version the cluster runs now: each finding then says whether it is already unservable there (ALREADY_REMOVED) or breaks within the upgrade (REMOVED_IN_UPGRADE).",
      "1.24",
    ).nullish(),
    addons: z
      .array(
        z.strictObject({
          name: shortText("An add-on, e.g. cert-manager.", "cert-manager"),
          version: shortText("Its version.", "v1.12.0"),
        }),
      )
      .max(200)
      .nullish()
      .openapi({
        description:
          "The add-ons the cluster runs: objects of their CRD API versions are judged against these versions (else reported with the release that dropped them).",
      }),
    crds: z.record(z.string(), z.unknown()).nullish().openapi({
      description:
        "The JSON of `kubectl get crd -o json`: objects are judged by the cluster's CRDs, and CRDs in manifests against the versions the cluster has stored.",
    }),
    detail,
  })
  .openapi("ScanRequest");

export const clusterScanRequest = z
  .strictObject({
    targetVersion,
    helmReleases: z.record(z.string(), z.unknown()).nullish().openapi({
      description:
        "The JSON of `kubectl get secrets -A -l owner=helm -o json` (or of the ConfigMaps of Helm's configmap driver): each release's newest revision is decoded and its stored manifest scanned.",
    }),
    objects: z.record(z.string(), z.unknown()).nullish().openapi({
      description:
        "The JSON of `kubectl get <kinds> -A -o json`: each object is judged by the apiVersion in its last-applied annotation, not the served one.",
    }),
    metrics: z.string().max(MAX_MANIFEST_CHARS).nullish().openapi({
      description:
        "The text of `kubectl get --raw /metrics`: its apiserver_requested_deprecated_apis series.",
    }),
    auditLog: z.string().max(MAX_MANIFEST_CHARS).nullish().openapi({
      description:
        "The apiserver's audit log (JSON lines): events annotated k8s.io/deprecated, with who made them.",
    }),
    detail,
  })
  .openapi("ClusterScanRequest");

/** The most files a chart scan takes (a chart with its subcharts unpacked). */
export const MAX_CHART_FILES = 2000;

/** A path inside the chart's folder: relative, with `/` between its parts, never `..`, a drive or a NUL. */
export function isChartRelativePath(file: string): boolean {
  return !/^\/|^[A-Za-z]:|\\|\0/.test(file) && !file.split("/").includes("..");
}

export const chartScanRequest = z
  .strictObject({
    files: z
      .record(
        z.string().min(1).max(500).openapi({
          description: "A path relative to the chart's folder, / between its parts, without ..",
        }),
        z.string(),
      )
      .refine((files) => Object.keys(files).length <= MAX_CHART_FILES, {
        message: `must hold at most ${MAX_CHART_FILES} files`,
      })
      .refine(
        (files) =>
          Object.values(files).reduce((sum, text) => sum + text.length, 0) <= MAX_MANIFEST_CHARS,
        { message: "must be at most 10 MiB in all" },
      )
      .superRefine((files, context) => {
        const outside = Object.keys(files).find((file) => !isChartRelativePath(file));
        if (outside !== undefined)
          context.addIssue({
            code: "custom",
            message: `"${outside}" is not a path inside the chart's folder (relative, / between its parts, no ..)`,
          });
      })
      .openapi({
        description:
          "The chart's files as text, by their path relative to the chart's folder: Chart.yaml, values.yaml, templates/**, and each subchart's charts/<name>/Chart.yaml and templates (requirements.yaml for a v1 chart).",
        example: {
          "Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
          "templates/cronjob.yaml":
            "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: {{ .Release.Name }}-nightly\n",
        },
      }),
    rendered: z.string().max(MAX_MANIFEST_CHARS, "must be at most 10 MiB").nullish().openapi({
      description:
        "What `helm template <release> <chart> --kube-version <target>` printed for these files: scanned whole, each finding traced to its template by helm's # Source: comments. Without it the templates are read directly (apiVersion and kind only) and the answer says complete: false.",
    }),
    targetVersion,
    fromVersion: shortText("The version the cluster runs now (as in scan).", "1.24").nullish(),
    detail,
  })
  .openapi("ChartScanRequest");
