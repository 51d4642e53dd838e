/**
 * The REST API's request and response shapes, as zod schemas. Requests are
 * validated with them at the edge, and the OpenAPI document
 * (src/rest/openapi.ts) is generated from the same schemas, so the two
 * cannot drift. Semantic checks (is this a version, is this a component)
 * stay in the domain core, which names the same fields.
 */
import { extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import {
  apiRemovalRecord,
  componentRecord,
  flagChangeRecord,
  proxyModeRecord,
  linkRecord,
  portRecord,
  profileRecord,
  recommendationRecord,
  releaseRecord,
  runtimeRequirementRecord,
  skewRuleRecord,
  upgradeDependencyRecord,
  runtimeReleaseRecord,
  hostRequirementRecord,
  coverageRecord,
  apiGroupVersionRecord,
} from "../knowledge/records.js";
import { MAX_PLAN_COMPONENTS } from "../domain/cluster-plan.js";
import { FINDING_CHECKS, FINDING_CODES, type FindingCheck } from "../domain/findings.js";

extendZodWithOpenApi(z);

const shortText = (description: string, example?: string) =>
  z.string().max(200, "must be at most 200 characters").openapi({ description, example });

export const componentVersionInput = z
  .strictObject({
    component: shortText(
      "Canonical name or alias (kube-apiserver, apiserver, kubelet, containerd, ...).",
      "kubelet",
    ),
    version: shortText(
      "1.29, v1.29.3, 1.30.0-rc.1, v1.29.3-eks-1234; runtimes 1.7.2 or containerd://1.7.2.",
      "1.29.3",
    ),
    instance: shortText(
      "An HA member (cp-1) or node pool (pool-a); a runtime pairs with the kubelet of the same instance.",
      "pool-a",
    ).nullish(),
    cgroupVersion: z.enum(["v1", "v2"]).nullish().openapi({
      description:
        "For a kubelet: the cgroup version of its nodes (stat -fc %T /sys/fs/cgroup: cgroup2fs is v2, tmpfs is v1). A 1.35+ kubelet does not start on v1 unless failCgroupV1 is false.",
    }),
    failCgroupV1: z.boolean().nullish().openapi({
      description:
        "For a kubelet: the failCgroupV1 setting of its KubeletConfiguration (default true from 1.35).",
    }),
    featureGates: z.string().max(20_000, "must be at most 20000 characters").nullish().openapi({
      description:
        "The feature gates the component is started with, as --feature-gates takes them (A=true,B=false); judged at the component's version.",
      example: "InPlacePodVerticalScaling=true",
    }),
  })
  .openapi("ComponentVersionInput");

const components = z
  .array(componentVersionInput)
  .max(MAX_PLAN_COMPONENTS, `must have at most ${MAX_PLAN_COMPONENTS} entries`)
  .openapi({ description: "The cluster's components and versions." });

const profile = shortText(
  "Policy profile: upstream (default) or strict, or one an organisation added.",
  "upstream",
).nullish();
const asOf = shortText(
  "The day to judge end of life on, YYYY-MM-DD (default today).",
  "2026-11-29",
).nullish();
const targetVersion = shortText(
  "The Kubernetes version to upgrade to; its minor is what counts.",
  "1.30",
);

const platform = shortText(
  "The managed platform: eks, gke or aks (its calendar judges every minor the cluster runs where it has a row), or upstream for a self-managed cluster; recognised from versions such as v1.29.3-eks-1234567 and node labels when left out.",
  "eks",
).nullish();

export const validateRequest = z
  .strictObject({ components, profile, asOf, platform })
  .openapi("ValidateRequest");

export const clusterPlanInput = z.strictObject({ components }).openapi("ClusterPlanInput");

export const upgradePlanRequest = z
  .strictObject({ current: clusterPlanInput, targetVersion, profile, asOf, platform })
  .openapi("UpgradePlanRequest");

export const rollbackRequest = z
  .strictObject({
    current: clusterPlanInput,
    component: shortText("The component to roll back.", "kubelet"),
    instance: shortText("Which instance, when the component runs as several.", "pool-a").nullish(),
    toVersion: shortText("The older version to go back to.", "1.28.9"),
    profile,
    asOf,
    platform,
    upgradedOn: shortText(
      "The day the control plane reached its current minor, YYYY-MM-DD: a managed platform's rollback window (EKS: 7 days) counts from it.",
      "2026-12-01",
    ).nullish(),
  })
  .openapi("RollbackRequest");

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
  })
  .openapi("ScanRequest");

const kubectlJson = z.record(z.string(), z.unknown());
export const fromKubectlValidateRequest = z
  .strictObject({
    kubectlVersion: z
      .union([kubectlJson, z.string().max(100_000)])
      .optional()
      .openapi({
        description: "The JSON of `kubectl version -o json`, or the text `kubectl version` prints.",
      }),
    nodes: z
      .union([kubectlJson, z.string().max(5_000_000)])
      .optional()
      .openapi({
        description:
          "The JSON of `kubectl get nodes -o json`, or the table `kubectl get nodes` (-o wide) prints.",
      }),
    workloads: kubectlJson.optional().openapi({
      description:
        "The JSON of `kubectl get deployments,daemonsets -A -o json`: add-ons are recognised by their images.",
    }),
    profile,
    asOf,
    platform,
  })
  .openapi("ValidateFromKubectlRequest");
export const fromKubectlUpgradeRequest = z
  .strictObject({
    kubectlVersion: z
      .union([kubectlJson, z.string().max(100_000)])
      .optional()
      .openapi({
        description: "The JSON of `kubectl version -o json`, or the text `kubectl version` prints.",
      }),
    nodes: z
      .union([kubectlJson, z.string().max(5_000_000)])
      .optional()
      .openapi({
        description:
          "The JSON of `kubectl get nodes -o json`, or the table `kubectl get nodes` (-o wide) prints.",
      }),
    workloads: kubectlJson.optional().openapi({
      description:
        "The JSON of `kubectl get deployments,daemonsets -A -o json`: add-ons are recognised by their images.",
    }),
    targetVersion,
    profile,
    asOf,
    platform,
  })
  .openapi("UpgradePlanFromKubectlRequest");

// Responses (documented; produced by the domain core).
const severity = z.enum(["ERROR", "WARNING", "INFO"]).openapi("Severity");
/** Every code with its check and meaning, from the one table in src/domain/findings.ts. */
const codeList = Object.entries(FINDING_CODES)
  .map(([code, { check, description }]) => `- \`${code}\` (${check}): ${description}`)
  .join("\n");
const findingCheck = z
  .enum(Object.keys(FINDING_CHECKS) as [FindingCheck, ...FindingCheck[]])
  .openapi("FindingCheck", {
    description: `What kind of check found a finding:\n${Object.entries(FINDING_CHECKS)
      .map(([check, description]) => `- \`${check}\`: ${description}`)
      .join("\n")}`,
  });
export const finding = z
  .object({
    code: z.string().openapi({
      description: `Stable identifier that bots branch on (messages may be reworded). SKEW_COMPONENT_* stand for the codes built with a component's name, e.g. SKEW_KUBELET_TOO_OLD_FOR_APISERVER.\n${codeList}`,
      example: "SKEW_KUBELET_TOO_OLD_FOR_APISERVER",
    }),
    check: findingCheck,
    severity,
    component: z.string().nullable(),
    instance: z.string().nullable(),
    message: z.string(),
    sourceUrl: z.string().nullable(),
    ruleId: z.string().nullable(),
  })
  .openapi("Finding");
/** What a report means, as people read it. */
export const verdict = z
  .enum(["SUPPORTED", "SUPPORTED_WITH_WARNINGS", "UNSUPPORTED", "NOT_JUDGED"])
  .openapi("Verdict", {
    description:
      "SUPPORTED (no ERROR, no WARNING), SUPPORTED_WITH_WARNINGS, UNSUPPORTED (any ERROR) or NOT_JUDGED (the question could not be checked, e.g. no kube-apiserver named). A version past its end of life is a WARNING, so it is never plain SUPPORTED.",
  });
const okField = z
  .boolean()
  .openapi({ description: "True only for SUPPORTED and SUPPORTED_WITH_WARNINGS." });
export const validationReport = z
  .object({
    ok: okField,
    status: verdict,
    kbRevision: z.number().int(),
    findings: z.array(finding),
  })
  .openapi("ValidationReport");
export const apiRemoval = (apiRemovalRecord.clone() as unknown as z.ZodType).openapi("ApiRemoval");
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
export const manifestScanReport = z
  .object({
    status: verdict,
    targetVersion: z.string(),
    kbRevision: z.number().int(),
    documentsScanned: z.number().int(),
    objectsScanned: z.number().int(),
    notes: z.array(finding).openapi({
      description:
        "About the scan as a whole: DOCUMENT_UNREADABLE (an ERROR) for each document that is not valid YAML, with its index and line; KNOWLEDGE_EDGE when the target is beyond what the API-removal knowledge covers (GET /api/v1/coverage).",
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
          severity,
          apiVersion: z.string(),
          kind: z.string(),
          name: z.string().nullable(),
          namespace: z.string().nullable(),
          documentIndex: z.number().int(),
          line: z.number().int(),
          source: z.string().nullable(),
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
            severity,
            apiVersion: z.string(),
            kind: z.string(),
            name: z.string().nullable(),
            namespace: z.string().nullable(),
            documentIndex: z.number().int(),
            line: z.number().int(),
            source: z.string().nullable(),
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
  })
  .openapi("ClusterScanRequest");

export const firewallCheckRequest = z
  .strictObject({
    allowed: z
      .union([
        z.string().max(200_000),
        z.array(z.union([z.string().max(200), z.record(z.string(), z.unknown())])).max(2000),
      ])
      .openapi({
        description:
          'What the firewall allows: lines such as "workers -> control-plane tcp/6443" (roles control-plane, workers, external, any; protocols tcp, udp, sctp, ipip, esp, any), or objects {from, to, protocol, port, endPort}.',
      }),
    cni: shortText(
      "The cluster's CNI (calico, cilium, flannel): its flows are checked too.",
      "calico",
    ).nullish(),
    version: shortText(
      "The Kubernetes version the cluster runs or upgrades to: only flows that apply to it.",
      "1.31",
    ).nullish(),
  })
  .openapi("FirewallCheckRequest");

export const errorResponse = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "BAD_USER_INPUT" }),
      message: z.string(),
      details: z.array(z.object({ field: z.string().optional(), message: z.string() })).optional(),
    }),
  })
  .openapi("Error");

export const kbRevision = z
  .number()
  .int()
  .openapi({ description: "The knowledge-base revision the answer comes from." });
export const list = (item: z.ZodType, name: string) =>
  z.object({ items: z.array(item), kbRevision }).openapi(name);

export const records = {
  Component: (componentRecord.clone() as unknown as z.ZodType).openapi("Component"),
  Port: (portRecord.clone() as unknown as z.ZodType).openapi("Port"),
  CommunicationLink: (linkRecord.clone() as unknown as z.ZodType).openapi("CommunicationLink"),
  PolicyProfile: (profileRecord.clone() as unknown as z.ZodType).openapi("PolicyProfile"),
  SkewRule: (skewRuleRecord.clone() as unknown as z.ZodType).openapi("SkewRule"),
  ApiRemoval: apiRemoval,
  Release: (releaseRecord.clone() as unknown as z.ZodType).openapi("Release"),
  UpgradeDependency: (upgradeDependencyRecord.clone() as unknown as z.ZodType).openapi(
    "UpgradeDependency",
  ),
  RuntimeRequirement: (runtimeRequirementRecord.clone() as unknown as z.ZodType).openapi(
    "RuntimeRequirement",
  ),
  Recommendation: (recommendationRecord.clone() as unknown as z.ZodType).openapi("Recommendation"),
  FlagChange: (flagChangeRecord.clone() as unknown as z.ZodType).openapi("FlagChange"),
  ProxyMode: (proxyModeRecord.clone() as unknown as z.ZodType).openapi("ProxyMode"),
  RuntimeRelease: (runtimeReleaseRecord.clone() as unknown as z.ZodType).openapi("RuntimeRelease"),
  HostRequirement: (hostRequirementRecord.clone() as unknown as z.ZodType).openapi(
    "HostRequirement",
  ),
  Coverage: (coverageRecord.clone() as unknown as z.ZodType).openapi("Coverage"),
  ApiGroupVersion: (apiGroupVersionRecord.clone() as unknown as z.ZodType).openapi(
    "ApiGroupVersion",
  ),
};

export const kbSummary = z
  .object({
    revision: z.number().int(),
    kbRevision,
    lastImportAt: z.string().nullable(),
    loadedAt: z.string(),
    newestRelease: z.string().nullable(),
    counts: z.record(z.string(), z.number().int()),
    conflicts: z
      .array(
        z
          .object({
            entity: z
              .string()
              .openapi({ description: "The kind of record, e.g. recommendations." }),
            key: z.string().openapi({ description: "The record's natural key." }),
            base: z.record(z.string(), z.unknown()).nullable().openapi({
              description:
                "The record as kb/ had it at the import before (null: kb/ did not have it).",
            }),
            kb: z
              .record(z.string(), z.unknown())
              .nullable()
              .openapi({ description: "The record as kb/ has it now (null: kb/ removed it)." }),
            database: z.record(z.string(), z.unknown()).nullable().openapi({
              description: "The record the database keeps and serves (null: retired at run time).",
            }),
            detectedAt: z.string(),
            source: z.string(),
          })
          .openapi("KbConflict"),
      )
      .openapi({
        description:
          "Open conflicts: records that kb/ and a run-time edit changed differently. The database's value is served until an edit of the record, or an import, resolves the conflict.",
      }),
    coverage: z.array(records.Coverage).openapi({
      description:
        "Where each kind of knowledge ends: per source, the newest Kubernetes minor it covers, with the source's revision and date. A question beyond it gets a KNOWLEDGE_EDGE warning.",
    }),
  })
  .openapi("KnowledgeBaseSummary");

export const nodePoolSpec = z
  .strictObject({
    name: shortText("The pool's name.", "pool-a").nullish(),
    kubeletVersion: shortText("The kubelet version.", "1.30.1"),
    kubeletFlags: z
      .union([z.array(z.string().max(20_000)).max(300), z.string().max(20_000)])
      .nullish()
      .openapi({
        description:
          "Kubelet flags as on a command line: a list (`--max-pods=110`) or one pasted ps/systemd ExecStart line.",
      }),
    kubeletConfig: z
      .string()
      .max(262_144)
      .nullish()
      .openapi({ description: "The KubeletConfiguration YAML." }),
    kubeProxyVersion: shortText("The kube-proxy version.", "1.30.1").nullish(),
    kubeProxyMode: shortText(
      "iptables, ipvs, nftables (Linux) or kernelspace (Windows).",
      "nftables",
    ).nullish(),
    os: shortText("linux (default) or windows.", "linux").nullish(),
    runtime: shortText("containerd, cri-o or docker-engine.", "containerd").nullish(),
    runtimeVersion: shortText("The runtime's version.", "2.0.1").nullish(),
    chartKubeVersion: shortText(
      "The node-pool chart's Helm kubeVersion constraint.",
      ">=1.27.0-0 <1.31.0-0",
    ).nullish(),
    cgroupVersion: z.enum(["v1", "v2"]).nullish().openapi({
      description:
        "The cgroup version of the pool's nodes (stat -fc %T /sys/fs/cgroup: cgroup2fs is v2, tmpfs is v1). A 1.35+ kubelet does not start on v1 unless kubeletConfig sets failCgroupV1: false.",
    }),
  })
  .openapi("NodePoolSpec");

const controlPlaneVersion = shortText("The control plane's (kube-apiserver's) version.", "1.30");
export const nodePoolUpgradeRequest = z
  .strictObject({
    controlPlaneVersion,
    from: nodePoolSpec,
    to: nodePoolSpec,
    profile,
    asOf,
    platform,
  })
  .openapi("NodePoolUpgradeRequest");
export const nodePoolRollbackRequest = z
  .strictObject({
    controlPlaneVersion,
    current: nodePoolSpec,
    rollbackTo: nodePoolSpec,
    profile,
    asOf,
    platform,
  })
  .openapi("NodePoolRollbackRequest");
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
