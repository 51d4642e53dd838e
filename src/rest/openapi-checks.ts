/**
 * The checks of the OpenAPI document: the operations that judge a cluster or
 * a node pool (one to one with GraphQL's), the questions about what an
 * upgrade changes and which flows a firewall must allow, and the scans.
 */
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import {
  chartScanReport,
  manifestScanReport,
  nodePoolReport,
  upgradePlan,
  validationReport,
} from "../http/schemas/answers.js";
import {
  fromKubectlUpgradeRequest,
  fromKubectlValidateRequest,
  rollbackRequest,
  upgradePlanRequest,
  validateRequest,
} from "../http/schemas/cluster-requests.js";
import { finding } from "../http/schemas/findings.js";
import { firewallCheckRequest } from "../http/schemas/firewall-requests.js";
import { kbRevision } from "../http/schemas/knowledge-records.js";
import {
  nodePoolRollbackRequest,
  nodePoolUpgradeRequest,
} from "../http/schemas/node-pool-requests.js";
import { z } from "../http/schemas/openapi-zod.js";
import {
  chartScanRequest,
  clusterScanRequest,
  scanRequest,
} from "../http/schemas/scan-requests.js";
import { errors, json, readErrors, text } from "./openapi-responses.js";

/** The operations that judge a cluster or a node pool: same body in, report out. */
const operations: Array<{
  path: string;
  summary: string;
  body: z.ZodType;
  response: z.ZodType;
  description: string;
}> = [
  {
    path: "/api/v1/validate",
    summary: "Validate a planned cluster",
    body: validateRequest,
    response: validationReport,
    description: "Same as GraphQL validateCluster.",
  },
  {
    path: "/api/v1/validate/from-kubectl",
    summary: "Validate a live cluster from kubectl JSON",
    body: fromKubectlValidateRequest,
    response: validationReport,
    description:
      "Nodes are grouped into instances by their node-pool label (EKS, GKE, AKS, Karpenter; instance type as a fallback; else per node).",
  },
  {
    path: "/api/v1/upgrade-plan",
    summary: "Plan an upgrade",
    body: upgradePlanRequest,
    response: upgradePlan,
    description: "Same as GraphQL planUpgrade.",
  },
  {
    path: "/api/v1/upgrade-plan/from-kubectl",
    summary: "Plan the upgrade of a live cluster from kubectl JSON",
    body: fromKubectlUpgradeRequest,
    response: upgradePlan,
    description: "As /upgrade-plan, with the cluster read from kubectl's JSON.",
  },
  {
    path: "/api/v1/rollback-check",
    summary: "Check a rollback",
    body: rollbackRequest,
    response: validationReport,
    description: "Same as GraphQL checkRollback.",
  },
  {
    path: "/api/v1/node-pool/upgrade-check",
    summary:
      "Check a node-pool upgrade (kubelet flags and config, kube-proxy mode, runtime, chart kubeVersion, skew)",
    body: nodePoolUpgradeRequest,
    response: nodePoolReport,
    description: "Same as GraphQL checkNodePoolUpgrade.",
  },
  {
    path: "/api/v1/node-pool/rollback-check",
    summary: "Check a node-pool rollback, including the rollback trap",
    body: nodePoolRollbackRequest,
    response: nodePoolReport,
    description: "Same as GraphQL checkNodePoolRollback.",
  },
];

export function registerClusterChecks(registry: OpenAPIRegistry): void {
  for (const operation of operations) {
    registry.registerPath({
      method: "post",
      path: operation.path,
      summary: operation.summary,
      description: operation.description,
      tags: ["checks"],
      request: { body: { required: true, ...json(operation.body) } },
      responses: {
        200: {
          description: "The answer; `ok` is false when there is an ERROR finding.",
          ...json(operation.response),
        },
        ...errors,
      },
    });
  }
}

/** The filters shared by the flows and the firewall rules made of them. */
const flowFilters = {
  from: text("Source role: control-plane, workers or external", "workers"),
  to: text("Destination role", "control-plane"),
  cni: text("The cluster's CNI: calico, cilium or flannel (its flows are added)", "calico"),
  version: text("A Kubernetes version: only flows that apply to it", "1.31"),
};

/** The questions read from the query string: what an upgrade changes, which flows to allow. */
export function registerImpactAndFlows(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/api/v1/upgrade-impact",
    summary:
      "What changes between two minors beyond apiVersions: behaviour changes, configuration files, feature gates",
    tags: ["checks"],
    request: {
      query: z.object({
        from: z.string().openapi({ example: "1.24" }),
        to: z.string().openapi({ example: "1.29" }),
        area: text(
          "Comma-separated areas: tenant-isolation, security, networking, storage, scheduling, node, observability",
          "tenant-isolation",
        ),
      }),
    },
    responses: {
      200: {
        description: "The changes by release and by area, with notes on where the knowledge ends",
        ...json(z.record(z.string(), z.unknown()).openapi("UpgradeImpact")),
      },
      ...readErrors,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/flows",
    summary: "Network flows a firewall between node roles must allow (Kubernetes and the CNI)",
    tags: ["firewall"],
    request: { query: z.object(flowFilters) },
    responses: {
      200: {
        description: "The flows, with notes (a missing CNI)",
        ...json(z.record(z.string(), z.unknown()).openapi("FlowList")),
      },
      ...readErrors,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/firewall-rules",
    summary:
      "The flows as firewall rules: nftables, iptables-restore, or JSON for Terraform and security-group tools",
    tags: ["firewall"],
    request: {
      query: z.object({
        ...flowFilters,
        format: text("nftables, iptables or json (default)", "nftables"),
        cidrs: text(
          "Address ranges per role: control-plane=10.0.0.0/24;workers=10.1.0.0/16",
          "control-plane=10.0.0.0/24;workers=10.1.0.0/16",
        ),
      }),
    },
    responses: {
      200: {
        description: "{format, rules (the file's text), flows, notes, kbRevision}",
        ...json(
          z
            .object({
              format: z.string(),
              rules: z.string(),
              flows: z.number().int(),
              notes: z.array(finding),
              kbRevision,
            })
            .openapi("FirewallRules"),
        ),
      },
      ...readErrors,
    },
  });
}

/** The scans of what a cluster runs and holds, and the check of a firewall's allowed flows. */
export function registerScans(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "post",
    path: "/api/v1/scan/cluster",
    summary:
      "Scan what runs in a cluster: Helm releases' stored manifests, objects' last-applied apiVersions, deprecated API requests (metrics, audit log)",
    tags: ["checks"],
    request: { body: { required: true, ...json(clusterScanRequest) } },
    responses: {
      200: {
        description:
          "Findings with the evidence each rests on (HELM_RELEASE, LAST_APPLIED, REQUEST_METRIC, AUDIT_EVENT), the releases read, notes",
        ...json(z.record(z.string(), z.unknown()).openapi("ClusterScanReport")),
      },
      ...errors,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/firewall/check",
    summary: "Which flows the cluster needs that an allowed-flows list lacks",
    tags: ["firewall"],
    request: { body: { required: true, ...json(firewallCheckRequest) } },
    responses: {
      200: {
        description:
          "FLOW_NOT_ALLOWED findings (ERROR for required flows, WARNING for conditional ones)",
        ...json(
          z
            .object({
              ok: z.boolean(),
              status: z.string(),
              kbRevision,
              cni: z.string().nullable(),
              version: z.string().nullable(),
              flowsChecked: z.number().int(),
              findings: z.array(finding),
            })
            .openapi("FirewallCheck"),
        ),
      },
      ...errors,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/scan",
    summary: "Scan manifests for removed and deprecated APIs",
    description:
      "JSON {manifests, targetVersion}, or the raw YAML with Content-Type: application/yaml and ?targetVersion=.",
    tags: ["checks"],
    request: {
      query: z.object({ targetVersion: text("Required with a YAML body", "1.29") }),
      body: {
        required: true,
        content: {
          "application/json": { schema: scanRequest },
          "application/yaml": { schema: z.string() },
        },
      },
    },
    responses: {
      200: { description: "Findings per object", ...json(manifestScanReport) },
      ...errors,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/scan/chart",
    summary:
      "Scan a Helm chart's files for removed and deprecated APIs, each finding with its template file and line",
    description:
      "JSON {files, targetVersion, rendered?}: the chart's files by path, and optionally what `helm template --kube-version <target>` printed. Chart.yaml's format and the kubeVersion of the chart and its subcharts are checked too.",
    tags: ["checks"],
    request: { body: { required: true, ...json(chartScanRequest) } },
    responses: {
      200: {
        description: "Findings per object, placed in the chart's templates",
        ...json(chartScanReport),
      },
      ...errors,
    },
  });
}
