/**
 * The answers of the checks, as the domain core produces them: validation
 * reports, upgrade plans, manifest scans and node-pool reports, and the one
 * error shape every face answers with. They are documented here, not
 * validated: the domain core is their only author.
 */
import { apiRemoval } from "./knowledge-records.js";
import { finding, okField, severity, verdict } from "./findings.js";
import { z } from "./openapi-zod.js";

export const validationReport = z
  .object({
    ok: okField,
    status: verdict,
    kbRevision: z.number().int(),
    findings: z.array(finding),
  })
  .openapi("ValidationReport");
export const upgradePlan = z
  .object({
    ok: okField,
    status: verdict,
    kbRevision: z.number().int(),
    targetVersion: z.string(),
    steps: z.array(
      z
        .object({
          order: z
            .number()
            .int()
            .openapi({ description: "Steps that share an order are done together." }),
          action: z.enum(["UPGRADE", "MIGRATE_CGROUP_V2", "REMOVE_FEATURE_GATES"]).openapi({
            description:
              "UPGRADE moves the component from fromVersion to toVersion; MIGRATE_CGROUP_V2 moves the nodes of the kubelet's pool to cgroup v2 (versions unchanged) before its kubelet reaches a minor that refuses cgroup v1; REMOVE_FEATURE_GATES drops gates the next version no longer has from the component's --feature-gates (versions unchanged; the note names them).",
          }),
          component: z.string(),
          instance: z.string().nullable(),
          fromVersion: z.string(),
          toVersion: z.string(),
          note: z.string(),
          featureGates: z.string().nullable().openapi({
            description:
              "For REMOVE_FEATURE_GATES: the component's --feature-gates after the step (A=true,B=false; empty when none is left); null for other steps.",
          }),
          undo: z.string().nullable().openapi({
            description:
              "For a kube-apiserver step that crosses a minor (a hop): the last point at which the hop can be undone, and how (EKS: within 7 days; upstream: only before the step); null for other steps.",
          }),
        })
        .openapi("UpgradeStep"),
    ),
    apiRemovals: z.array(apiRemoval),
    hops: z
      .array(
        z
          .object({
            kubernetesVersion: z.string(),
            changes: z.array(z.record(z.string(), z.unknown())),
          })
          .openapi("ImpactRelease"),
      )
      .openapi({
        description:
          "Per control-plane minor crossed, what that hop changes beyond apiVersions (behaviour changes, configuration-file versions, feature gates), as GET /api/v1/upgrade-impact lists them.",
      }),
    findings: z.array(finding),
  })
  .openapi("UpgradePlan");
/** Where a manifest finding's object is: the fields every finding of a manifest scan shares. */
const manifestObject = {
  severity,
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string().nullable(),
  namespace: z.string().nullable(),
  documentIndex: z.number().int(),
  line: z.number().int(),
  source: z.string().nullable(),
};

export const manifestScanReport = z
  .object({
    status: verdict,
    targetVersion: z.string(),
    kbRevision: z.number().int(),
    documentsScanned: z.number().int(),
    objectsScanned: z.number().int(),
    notes: z.array(finding).openapi({
      description:
        "About the scan as a whole: DOCUMENT_UNREADABLE (an ERROR) for each document that is not valid YAML, with its index and line; KNOWLEDGE_EDGE when the target is beyond what the API-removal knowledge covers (GET /api/v1/coverage), KNOWLEDGE_STALE instead when the calendar says the target is already out.",
    }),
    complete: z.boolean().openapi({
      description: "False when a document could not be read: the others were scanned.",
    }),
    findings: z.array(
      z
        .object({
          code: z.enum(["API_REMOVED", "API_DEPRECATED", "API_REMOVAL_SCHEDULED"]),
          phase: z
            .enum(["ALREADY_REMOVED", "REMOVED_IN_UPGRADE", "REMOVED", "DEPRECATED", "SCHEDULED"])
            .openapi({
              description:
                "ALREADY_REMOVED: not served at fromVersion either; REMOVED_IN_UPGRADE: served at fromVersion, gone at the target; REMOVED: gone at the target (no fromVersion given); DEPRECATED or SCHEDULED: still served at the target.",
            }),
          ...manifestObject,
          removedIn: z.string(),
          deprecatedIn: z.string().nullable(),
          replacement: z.string().nullable(),
          replacementAvailableIn: z.string().nullable(),
          message: z.string(),
          sourceUrl: z.string(),
        })
        .openapi("ManifestFinding"),
    ),
    changeFindings: z
      .array(
        z
          .object({
            code: z.enum([
              "FIELD_CHANGED",
              "FIELD_CHANGE_SCHEDULED",
              "CONFIG_API_REMOVED",
              "CONFIG_API_DEPRECATED",
              "CONFIG_API_REMOVAL_SCHEDULED",
              "CONFIG_API_NOT_AVAILABLE",
            ]),
            ...manifestObject,
            field: z.string().nullable().openapi({
              description:
                "The field or annotation as found (spec.template.spec.volumes[0].gitRepo); null for a configuration file's version.",
            }),
            behaviourChange: z.string().nullable().openapi({
              description:
                "The behaviour change (GET /api/v1/behaviour-changes) the finding belongs to.",
            }),
            ruleId: z.string().openapi({
              description:
                "The field rule's id (GET /api/v1/field-rules), or the configuration API's kind and apiVersion.",
            }),
            changesIn: z.string().nullable(),
            replacement: z.string().nullable(),
            message: z.string(),
            sourceUrl: z.string(),
          })
          .openapi("ChangeFinding"),
      )
      .openapi({
        description:
          "Objects a behaviour change touches through a field or annotation (kb/field-rules.yaml), and configuration files (KubeletConfiguration, KubeSchedulerConfiguration ...) of a version the target's component no longer reads.",
      }),
  })
  .openapi("ManifestScanReport");

/** Where in a chart a finding's object is (POST /api/v1/scan/chart). */
const templatePlace = {
  template: z.string().nullable().openapi({
    description:
      "The template file, relative to the chart (templates/ingress.yaml, charts/redis/templates/pdb.yaml); null when it could not be traced.",
  }),
  templateLine: z.number().int().nullable().openapi({
    description:
      "1-based line of the object's apiVersion in the template (its kind when the apiVersion is templated).",
  }),
  condition: z.string().nullable().openapi({
    description:
      "Read without rendering: the template blocks the object sits in (`if .Values.psp.enabled`); null when unconditional or rendered by helm.",
  }),
};

export const chartScanReport = manifestScanReport
  .extend({
    chart: z
      .object({
        name: z.string(),
        version: z.string(),
        apiVersion: z.string().nullable(),
        kubeVersion: z.string().nullable(),
      })
      .openapi("ChartSummary"),
    rendering: z.enum(["HELM", "TEMPLATES"]).openapi({
      description:
        "HELM: helm's rendering (`rendered`) was scanned; TEMPLATES: the templates were read without rendering, apiVersion and kind only (complete is then false).",
    }),
    findings: z.array(z.object({ ...templatePlace }).catchall(z.unknown())).openapi({
      description: "As ManifestFinding, each with its template, templateLine and condition.",
    }),
    changeFindings: z.array(z.object({ ...templatePlace }).catchall(z.unknown())).openapi({
      description: "As ChangeFinding, each with its template, templateLine and condition.",
    }),
    unreadTemplates: z
      .array(
        z
          .object({ template: z.string(), templateLine: z.number().int(), reason: z.string() })
          .openapi("UnreadTemplate"),
      )
      .openapi({
        description:
          "Template documents that could not be read without rendering (a templated apiVersion or kind, an object made by template actions); each also a TEMPLATE_NOT_READ note.",
      }),
  })
  .openapi("ChartScanReport");

export const nodePoolReport = z
  .object({
    ok: okField,
    status: verdict,
    kbRevision: z.number().int(),
    pool: z.string(),
    findings: z.array(finding),
    steps: z.array(
      z
        .object({
          order: z.number().int(),
          action: z.string().openapi({
            description: "drain, runtime, kubelet-configuration, kubelet, kube-proxy, uncordon",
          }),
          component: z.string().nullable(),
          fromVersion: z.string().nullable(),
          toVersion: z.string().nullable(),
          note: z.string(),
        })
        .openapi("NodePoolStep"),
    ),
  })
  .openapi("NodePoolReport");

export const errorResponse = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "BAD_USER_INPUT" }),
      message: z.string(),
      details: z.array(z.object({ field: z.string().optional(), message: z.string() })).optional(),
    }),
  })
  .openapi("Error");
