/**
 * The OpenAPI 3.1 document of the REST API, generated from the zod schemas
 * that validate the requests (src/http/schemas/); nothing is written by
 * hand. test/openapi.test.ts checks that every route the app serves is in it.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import type { EntityName } from "../knowledge/records.js";
import { ENTITIES, ENTITY_NAMES } from "../knowledge/registry.js";
import {
  errorResponse,
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
import { kbRevision, kbSummary, list, records } from "../http/schemas/knowledge-records.js";
import {
  nodePoolRollbackRequest,
  nodePoolUpgradeRequest,
} from "../http/schemas/node-pool-requests.js";
import { clusterScanRequest, scanRequest } from "../http/schemas/scan-requests.js";

const json = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });
const errors = {
  400: {
    description: "Bad input; `error.details` names each field to fix.",
    ...json(errorResponse),
  },
  413: { description: "The body is larger than the limit.", ...json(errorResponse) },
  415: { description: "Wrong Content-Type.", ...json(errorResponse) },
  503: {
    description:
      "Retry after the Retry-After delay: the instance is already reading as many bodies of 1 MiB or more as it may (LARGE_REQUESTS_IN_FLIGHT) and this one waited 30 s, or the knowledge base is not loaded yet.",
    ...json(errorResponse),
  },
};
const readErrors = {
  400: { description: "Bad query parameter; the message names it.", ...json(errorResponse) },
};
const notModified = {
  304: { description: "The client already has this knowledge-base revision (If-None-Match)." },
};

function buildRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  const query = (shape: Record<string, z.ZodType>) => z.object(shape);
  const text = (description: string, example?: string) =>
    z.string().optional().openapi({ description, example });

  // The filters each list accepts (read-routes.ts parses the same); a kind without an entry is listed whole.
  const filters: Partial<Record<EntityName, z.ZodObject>> = {
    components: query({ plane: text("CONTROL, DATA or CLIENT", "DATA") }),
    ports: query({ component: text("Component name or alias", "kubelet") }),
    skewRules: query({
      kubernetesVersion: text("Control-plane version", "1.30"),
      profile: text("upstream (default) or strict", "upstream"),
    }),
    apiRemovals: query({
      from: text("Exclusive lower bound", "1.25"),
      to: text("Inclusive upper bound", "1.29"),
    }),
    flagChanges: query({ component: text("Component name or alias", "kubelet") }),
  };
  const reads = ENTITY_NAMES.map((entity) => ({
    path: `/api/v1/${ENTITIES[entity].collection}`,
    summary: ENTITIES[entity].title,
    item: recordSchemaOf(entity),
    name: `${ENTITIES[entity].typeName}List`,
    query: filters[entity],
  }));
  for (const read of reads) {
    registry.registerPath({
      method: "get",
      path: read.path,
      summary: read.summary,
      tags: ["knowledge base"],
      request: read.query ? { query: read.query } : undefined,
      responses: {
        200: {
          description: "The list and the knowledge-base revision (also the ETag).",
          ...json(list(read.item, read.name)),
        },
        ...notModified,
        ...readErrors,
      },
    });
  }
  registry.registerPath({
    method: "get",
    path: "/api/v1/kb",
    summary: "Knowledge-base revision, last import and counts",
    tags: ["knowledge base"],
    responses: { 200: { description: "Summary", ...json(kbSummary) }, ...notModified },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/components/{name}",
    summary: "One component by name or alias (case-insensitive)",
    tags: ["knowledge base"],
    request: { params: z.object({ name: z.string().openapi({ example: "apiserver" }) }) },
    responses: {
      200: { description: "The component", ...json(records.Component) },
      ...notModified,
      404: { description: "Unknown component", ...json(errorResponse) },
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/releases/{version}",
    summary:
      "One release by minor (1.30, v1.30.2, latest, oldest-supported), with its status on a date",
    tags: ["knowledge base"],
    request: {
      params: z.object({
        version: z.string().openapi({
          example: "1.30",
          description:
            "A minor or version, or latest (the newest released minor) or oldest-supported (the oldest minor still patched on asOf).",
        }),
      }),
      query: z.object({
        asOf: z.string().optional().openapi({
          description: "The day to judge on, YYYY-MM-DD (default today).",
          example: "2026-11-29",
        }),
      }),
    },
    responses: {
      200: {
        description:
          "The release, with status on asOf (SUPPORTED, MAINTENANCE: past the end of standard support, critical fixes only; END_OF_LIFE; NOT_YET_RELEASED; UNKNOWN: released but the calendar has no dates) and the oldest and newest minors still patched that day",
        ...json(
          z.intersection(
            records.Release,
            z.object({
              support: z
                .object({
                  status: z.enum([
                    "SUPPORTED",
                    "MAINTENANCE",
                    "END_OF_LIFE",
                    "NOT_YET_RELEASED",
                    "UNKNOWN",
                  ]),
                  asOf: z.string(),
                  oldestSupported: z.string().nullable(),
                  newestSupported: z.string().nullable(),
                })
                .openapi({
                  description:
                    "Computed from the calendar, not part of the record (an edit that sends it back has it ignored).",
                }),
              kbRevision: z.number().int(),
            }),
          ),
        ),
      },
      ...notModified,
      ...readErrors,
      404: { description: "Unknown release", ...json(errorResponse) },
    },
  });

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
  const flowFilters = {
    from: text("Source role: control-plane, workers or external", "workers"),
    to: text("Destination role", "control-plane"),
    cni: text("The cluster's CNI: calico, cilium or flannel (its flows are added)", "calico"),
    version: text("A Kubernetes version: only flows that apply to it", "1.31"),
  };
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
  const bearerAuth = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "An API token created with `npm run token -- create --role editor --name NAME` (kc_...).",
  });
  const secured = [{ [bearerAuth.name]: [] }];
  const authErrors = {
    401: { description: "No token, or an unknown or revoked one.", ...json(errorResponse) },
    403: { description: "The token's role is too weak.", ...json(errorResponse) },
  };
  const edited = z
    .object({ item: z.record(z.string(), z.unknown()).nullable(), key: z.string(), kbRevision })
    .openapi("EditResult");
  const idempotency = z.object({
    "Idempotency-Key": z.string().optional().openapi({
      description:
        "A key you choose (e.g. a UUID), 1-200 visible ASCII characters. A retry with the same key answers the first result (with Idempotent-Replayed: true) instead of applying the edit again; the same key for a different edit is a 409. Kept 24 hours.",
    }),
  });
  const outcomeUnknown = {
    503: {
      description:
        "The database is unavailable (Retry-After). When the connection was lost while the edit was being committed, the message says the edit may or may not have been applied: read the record again, or retry with the same Idempotency-Key.",
      ...json(errorResponse),
    },
  };
  for (const entity of ENTITY_NAMES) {
    const { collection, keyExample } = ENTITIES[entity];
    const record = recordSchemaOf(entity);
    const key = z.object({
      key: z.string().openapi({
        description: `The record's natural key, URL-encoded (${keyExample}).`,
        example: keyExample,
      }),
    });
    registry.registerPath({
      method: "post",
      path: `/api/v1/${collection}`,
      summary: `Create a ${entity} record (editor)`,
      tags: ["curation"],
      security: secured,
      request: { headers: idempotency, body: { required: true, ...json(record) } },
      responses: {
        201: { description: "Created at revision 1", ...json(edited) },
        ...errors,
        ...authErrors,
        409: { description: "A record with this key exists", ...json(errorResponse) },
        ...outcomeUnknown,
      },
    });
    registry.registerPath({
      method: "put",
      path: `/api/v1/${collection}/{key}`,
      summary: `Update a ${entity} record (editor); send the revision you read`,
      tags: ["curation"],
      security: secured,
      request: {
        params: key,
        headers: idempotency,
        body: {
          required: true,
          ...json(z.intersection(record, z.object({ revision: z.number().int() }))),
        },
      },
      responses: {
        200: { description: "Updated; the item carries its new revision", ...json(edited) },
        ...errors,
        ...authErrors,
        404: { description: "No such record", ...json(errorResponse) },
        409: {
          description: "Stale revision: someone changed the record since you read it",
          ...json(errorResponse),
        },
        ...outcomeUnknown,
      },
    });
    registry.registerPath({
      method: "delete",
      path: `/api/v1/${collection}/{key}`,
      summary: `Retire a ${entity} record (editor); send the revision you read`,
      tags: ["curation"],
      security: secured,
      request: {
        params: key,
        headers: idempotency,
        query: z.object({ revision: z.number().int().openapi({ example: 1 }) }),
      },
      responses: {
        200: {
          description: "Retired",
          ...json(z.object({ key: z.string(), retired: z.boolean(), kbRevision })),
        },
        ...readErrors,
        ...authErrors,
        404: { description: "No such record", ...json(errorResponse) },
        409: { description: "Stale revision", ...json(errorResponse) },
        ...outcomeUnknown,
      },
    });
  }
  registry.registerPath({
    method: "get",
    path: "/api/v1/audit",
    summary: "The audit trail, newest first (admin)",
    tags: ["curation"],
    security: secured,
    request: {
      query: z.object({
        entity: text("e.g. apiRemovals, kb, token"),
        key: text("A record's natural key"),
        actor: text("Token name"),
        limit: z.number().int().optional().openapi({ description: "1-500, default 100" }),
        before: z
          .number()
          .int()
          .optional()
          .openapi({ description: "Entries with a smaller id (paging)" }),
      }),
    },
    responses: {
      200: {
        description: "Entries",
        ...json(
          z.object({
            items: z.array(
              z
                .object({
                  id: z.number().int(),
                  at: z.string(),
                  actor: z.string(),
                  actorRole: z.string(),
                  action: z.string(),
                  entity: z.string(),
                  key: z.string(),
                  before: z.unknown(),
                  after: z.unknown(),
                  kbRevision: z.number().int(),
                })
                .openapi("AuditEntry"),
            ),
            kbRevision,
          }),
        ),
      },
      ...readErrors,
      ...authErrors,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/kb/export",
    summary:
      "The knowledge base in the YAML layout of kb/ (one document per file), or one file with ?file=",
    tags: ["curation"],
    request: { query: z.object({ file: text("e.g. api-removals.yaml", "api-removals.yaml") }) },
    responses: {
      200: { description: "YAML", content: { "application/yaml": { schema: z.string() } } },
      ...readErrors,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/kb/export/pluto",
    summary:
      "Every API removal in Pluto's versions.yaml format; Pluto refuses entries it has built in, so POST its list to leave those out",
    tags: ["curation"],
    responses: {
      200: { description: "YAML", content: { "application/yaml": { schema: z.string() } } },
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/kb/export/pluto",
    summary: "The API removals your Pluto lacks, for pluto --additional-versions",
    description:
      "The body is what `pluto list-versions -o json` (or `-o yaml`) prints: the entries Pluto has built in. They are left out (Pluto refuses a file that repeats one), and where they disagree with kubecompat on a release the file's comments say so. No target-versions are written: Pluto keeps its own for k8s; choose the target with `-t k8s=v1.NN.0`. The header X-Kubecompat-Pluto-Left-Out counts the entries left out.",
    tags: ["curation"],
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.object({
              "deprecated-versions": z.array(
                z.object({ version: z.string(), kind: z.string() }).passthrough(),
              ),
              "target-versions": z.record(z.string(), z.string()).optional(),
            }),
          },
          "application/yaml": { schema: z.string() },
        },
      },
    },
    responses: {
      200: {
        description: "YAML for pluto -f",
        content: { "application/yaml": { schema: z.string() } },
      },
      400: { description: "Not Pluto's list: the field to fix is named", ...json(errorResponse) },
      415: { description: "No body, or not JSON or YAML", ...json(errorResponse) },
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/kb/import",
    summary: "Import a whole bundle, all or nothing (admin)",
    description:
      'The YAML stream of /api/v1/kb/export (Content-Type: application/yaml), or JSON {"files": {"ports.yaml": "..."}}. Every invalid record is reported (422) and nothing is written.',
    tags: ["curation"],
    security: secured,
    request: {
      body: {
        required: true,
        content: {
          "application/yaml": { schema: z.string() },
          "application/json": { schema: z.object({ files: z.record(z.string(), z.string()) }) },
        },
      },
    },
    responses: {
      200: {
        description: "What changed",
        ...json(
          z.object({
            changed: z.boolean(),
            revisionBefore: z.number().int(),
            kbRevision,
            changes: z.array(
              z.object({
                entity: z.string(),
                key: z.string(),
                action: z.string(),
                fields: z.array(z.string()).optional(),
              }),
            ),
          }),
        ),
      },
      ...errors,
      ...authErrors,
      422: { description: "Invalid records; details list each", ...json(errorResponse) },
    },
  });
  return registry;
}

/** A kind's record schema as OpenAPI names it: the hand-described one of src/http/schemas/knowledge-records.ts, else the registry's schema under its type name. */
function recordSchemaOf(entity: EntityName): z.ZodType {
  const { typeName, schema } = ENTITIES[entity];
  const described = (records as Readonly<Record<string, z.ZodType | undefined>>)[typeName];
  return described ?? (schema as unknown as { clone(): z.ZodType }).clone().openapi(typeName);
}

let document: ReturnType<OpenApiGeneratorV31["generateDocument"]> | undefined;

export function openApiDocument(): ReturnType<OpenApiGeneratorV31["generateDocument"]> {
  document ??= new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "kubecompat REST API",
      version: "1",
      description:
        'Kubernetes version compatibility from a sourced knowledge base. Errors are {"error": {"code", "message", "details"?}}. The same operations are available over GraphQL at /graphql.',
    },
    servers: [{ url: "/" }],
  });
  return document;
}
