/**
 * Every question the service answers to a program, once: its name, what it is
 * for (written for the agent or person who must pick it), the REST route that
 * asks it, the zod schema its input is checked with, and the judgement that
 * answers it. REST mounts its operation routes from this table and MCP lists
 * its tools from it, so a tool's input schema is the schema REST validates
 * with and its answer is the judgement REST sends, by construction.
 */
import { scanCluster } from "../domain/cluster-evidence.js";
import { agedCoverage, type LastChecks } from "../domain/coverage-ages.js";
import { checkFirewall, listFlows } from "../domain/firewall.js";
import { planUpgradeFromKubectl, validateFromKubectl } from "../domain/from-kubectl.js";
import { upgradeImpact } from "../domain/impact.js";
import { checkNodePoolRollback, checkNodePoolUpgrade } from "../domain/node-pool.js";
import { getRelease } from "../domain/catalog.js";
import { releaseStatus } from "../domain/release-status.js";
import { checkRollback } from "../domain/rollback.js";
import { scanSteps } from "../domain/scan.js";
import { chartScanSteps } from "../domain/chart-scan.js";
import { fixSteps } from "../domain/manifest-fix.js";
import { planUpgrade } from "../domain/upgrade.js";
import { parseAsOf, validateCluster } from "../domain/validate.js";
import { inSlices } from "../core/slices.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { summariseAnswer, type OperationAnswer } from "../domain/answer-summary.js";
import {
  fromKubectlUpgradeRequest,
  fromKubectlValidateRequest,
  rollbackRequest,
  upgradePlanRequest,
  validateRequest,
} from "./schemas/cluster-requests.js";
import { firewallCheckRequest } from "./schemas/firewall-requests.js";
import { nodePoolRollbackRequest, nodePoolUpgradeRequest } from "./schemas/node-pool-requests.js";
import { chartScanRequest, clusterScanRequest, scanRequest } from "./schemas/scan-requests.js";
import { fixRequest } from "./schemas/fix-requests.js";
import {
  coverageQuery,
  flowQuery,
  impactQuery,
  lookupQuery,
  releaseQuery,
} from "./schemas/read-queries.js";
import type { z } from "./schemas/openapi-zod.js";

/** What some answers need beyond the snapshot: when each kind's sources were last read (coverage). */
export interface QuestionContext {
  readonly lastChecked?: () => Promise<LastChecks | undefined>;
}

export interface Question {
  /** The MCP tool's name. */
  readonly name: string;
  /** One line: the OpenAPI summary's words, the MCP tool's title. */
  readonly title: string;
  /** When to ask it and what the answer holds, for whoever picks among the questions. */
  readonly description: string;
  /** The REST route that asks it, under /api/v1 (POST with the input as the JSON body, GET with it in the query). */
  readonly rest: { readonly method: "post" | "get"; readonly path: string };
  readonly input: z.ZodType;
  /** Whether the answer is a verdict with findings, which the input's `detail` may ask to summarise. */
  readonly verdict: boolean;
  /** Only a judgement: `input` has passed `input`'s schema. */
  answer(snapshot: KbSnapshot, input: unknown, context: QuestionContext): unknown;
}

/** A question typed by its schema, stored with the input's type erased (the table holds every kind). */
function question<Schema extends z.ZodType>(
  definition: Omit<Question, "input" | "answer" | "verdict"> & {
    readonly input: Schema;
    answer(snapshot: KbSnapshot, input: z.infer<Schema>, context: QuestionContext): unknown;
  },
): Question {
  return { ...definition, verdict: CLUSTER_PATHS.has(definition.rest.path) };
}

/** The routes whose answers are verdicts (validate, plans, rollbacks, scans, checks): their bodies take `detail`. */
const CLUSTER_PATHS = new Set([
  "/validate",
  "/validate/from-kubectl",
  "/upgrade-plan",
  "/upgrade-plan/from-kubectl",
  "/rollback-check",
  "/scan/cluster",
  "/firewall/check",
  "/node-pool/upgrade-check",
  "/node-pool/rollback-check",
  "/scan",
  "/scan/chart",
]);

export type Detail = "full" | "summary";

/**
 * The answer to `question` in the form asked for: a verdict is summarised when its input's `detail` (or,
 * without one, the face's default) says "summary"; anything else is answered whole.
 */
export async function answerIn(
  question: Question,
  snapshot: KbSnapshot,
  input: unknown,
  context: QuestionContext,
  defaultDetail: Detail = "full",
): Promise<unknown> {
  const answer: unknown = await question.answer(snapshot, input, context);
  const asked = (input as { detail?: Detail } | null)?.detail ?? defaultDetail;
  return question.verdict && asked === "summary"
    ? summariseAnswer(answer as OperationAnswer)
    : answer;
}

const ANSWER_SAYS =
  "The answer has `status` (OK, WARNING, UNSUPPORTED, or NOT_JUDGED where the knowledge base cannot judge) and `findings`, each with a stable `code`, a `severity` and the source of the rule.";

/** The questions about a whole cluster, in the order REST registers their routes. */
export const CLUSTER_QUESTIONS: readonly Question[] = [
  question({
    name: "validate_cluster",
    title: "Validate a planned cluster",
    description: `Judge a cluster's component versions against each other (version skew), the container runtime, the release calendar, the platform's rules and the add-ons' own tables. Give every component you know with its version (kube-apiserver is required to judge skew). ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/validate" },
    input: validateRequest,
    answer: (snapshot, body) =>
      validateCluster(snapshot, body.components, {
        profile: body.profile,
        asOf: body.asOf,
        platform: body.platform,
      }),
  }),
  question({
    name: "validate_from_kubectl",
    title: "Validate a live cluster from kubectl JSON",
    description: `As validate_cluster, with the cluster read from what kubectl prints: \`kubectl version -o json\`, \`kubectl get nodes -o json\` and optionally the workloads (add-ons are recognised by their images). Nodes are grouped into pools by their node-pool label. ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/validate/from-kubectl" },
    input: fromKubectlValidateRequest,
    answer: (snapshot, body) => validateFromKubectl(snapshot, body, body),
  }),
  question({
    name: "plan_upgrade",
    title: "Plan an upgrade",
    description: `The ordered steps that take a cluster from its current versions to a target Kubernetes minor ("1.33", or "latest"), one minor at a time, with what blocks each step (removed APIs are a separate question: scan_manifests). The plan's status is the final state's verdict. ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/upgrade-plan" },
    input: upgradePlanRequest,
    answer: (snapshot, body) =>
      planUpgrade(snapshot, body.current.components, body.targetVersion, {
        profile: body.profile,
        asOf: body.asOf,
        platform: body.platform,
      }),
  }),
  question({
    name: "plan_upgrade_from_kubectl",
    title: "Plan the upgrade of a live cluster from kubectl JSON",
    description: `As plan_upgrade, with the cluster read from kubectl's JSON (see validate_from_kubectl). ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/upgrade-plan/from-kubectl" },
    input: fromKubectlUpgradeRequest,
    answer: (snapshot, body) => planUpgradeFromKubectl(snapshot, body, body.targetVersion, body),
  }),
  question({
    name: "check_rollback",
    title: "Check a rollback",
    description: `Whether one component (e.g. kube-apiserver, kubelet, etcd) of a cluster may go back to an older version, and what stops it (storage versions, etcd's downgrade rules, a managed platform's rollback window counted from upgradedOn). ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/rollback-check" },
    input: rollbackRequest,
    answer: (snapshot, body) =>
      checkRollback(snapshot, {
        current: body.current.components,
        component: body.component,
        instance: body.instance,
        toVersion: body.toVersion,
        profile: body.profile,
        asOf: body.asOf,
        platform: body.platform,
        upgradedOn: body.upgradedOn,
      }),
  }),
  question({
    name: "scan_cluster",
    title: "Scan what runs in a cluster for APIs the target removes",
    description: `Evidence from a live cluster judged against a target minor: Helm releases' stored manifests (the JSON of \`kubectl get secrets -A -l owner=helm -o json\`), objects' last-applied apiVersions, the apiserver's deprecated-API request metrics and audit log. Each finding names the evidence it rests on. ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/scan/cluster" },
    input: clusterScanRequest,
    answer: (snapshot, body) => scanCluster(snapshot, body, body.targetVersion),
  }),
  question({
    name: "check_firewall",
    title: "Check a firewall's allowed flows",
    description: `Which network flows the cluster needs (Kubernetes' own and the CNI's) that a firewall's allowed list lacks: FLOW_NOT_ALLOWED findings, ERROR for required flows and WARNING for conditional ones. ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/firewall/check" },
    input: firewallCheckRequest,
    answer: (snapshot, body) =>
      checkFirewall(snapshot, body.allowed, { cni: body.cni, version: body.version }),
  }),
  question({
    name: "check_node_pool_upgrade",
    title: "Check a node-pool upgrade",
    description: `A node pool's move to a new kubelet version: its flags and KubeletConfiguration fields removed on the way, kube-proxy's mode, the runtime, cgroup v1, charts' kubeVersion constraints and skew against the control plane. ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/node-pool/upgrade-check" },
    input: nodePoolUpgradeRequest,
    answer: (snapshot, body) => checkNodePoolUpgrade(snapshot, body),
  }),
  question({
    name: "check_node_pool_rollback",
    title: "Check a node-pool rollback",
    description: `A node pool's return to an older kubelet version, including the rollback trap (configuration written for the new version that the old one refuses). ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/node-pool/rollback-check" },
    input: nodePoolRollbackRequest,
    answer: (snapshot, body) => checkNodePoolRollback(snapshot, body),
  }),
  question({
    name: "scan_chart",
    title: "Scan a Helm chart for removed and deprecated APIs",
    description: `A Helm chart's files (Chart.yaml, values.yaml, templates/**, subcharts under charts/) judged against a target minor, each finding placed at its template file and line. Give \`rendered\` (what \`helm template <release> <chart> --kube-version <target>\` printed) for a complete scan; without it the templates are read directly, apiVersion and kind only, and the answer says complete: false and lists the documents it could not read. Chart.yaml's apiVersion and the kubeVersion constraints of the chart and its subcharts are checked as Helm checks them. ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/scan/chart" },
    input: chartScanRequest,
    answer: (snapshot, body) =>
      inSlices(
        chartScanSteps(snapshot, body.files, body.targetVersion, {
          fromVersion: body.fromVersion,
          rendered: body.rendered,
        }),
      ),
  }),
  question({
    name: "scan_manifests",
    title: "Scan manifests for removed and deprecated APIs",
    description: `Kubernetes manifests (multi-document YAML or JSON: kubectl get -o yaml, helm template output, GitOps files) judged against a target minor: each object whose apiVersion the target no longer serves, with its replacement and the release that removed it; give fromVersion to learn which break within the upgrade. ${ANSWER_SAYS}`,
    rest: { method: "post", path: "/scan" },
    input: scanRequest,
    answer: (snapshot, body) =>
      inSlices(
        scanSteps(snapshot, body.manifests, body.targetVersion, {
          fromVersion: body.fromVersion,
          addons: body.addons,
          crds: body.crds,
        }),
      ),
  }),
  question({
    name: "fix_manifests",
    title: "Rewrite manifests' removed APIs to their replacements",
    description:
      "The manifests of scan_manifests with every object whose apiVersion the target no longer serves rewritten to its replacement (fields converted by the knowledge base's sourced conversions), the rest of the text as it was, comments included. The answer has the rewritten `manifests`, a unified `diff`, per object of a removed API its status (FIXED, or NOT_FIXED with the `reason`: no conversion known, the replacement not served at fromVersion yet, a lossy conversion not allowed by allowLossy), the field changes and the text replacements, and `after`, the scan of the rewritten text. Nothing is written anywhere: the caller applies the text.",
    rest: { method: "post", path: "/fix" },
    input: fixRequest,
    // In slices, as the scan: a large fix does not hold other requests.
    answer: (snapshot, body) =>
      inSlices(
        fixSteps(snapshot, body.manifests, body.targetVersion, {
          fromVersion: body.fromVersion,
          allowLossy: body.allowLossy,
          fileName: body.fileName,
          template: body.template,
        }),
      ),
  }),
];

/** A Kubernetes minor's record with its support on the day (computed, never part of the record). */
export function releaseAnswer(snapshot: KbSnapshot, version: string, asOf: string): unknown {
  const release = getRelease(snapshot, version, asOf);
  return {
    ...release,
    support: releaseStatus(snapshot, release, asOf),
    kbRevision: snapshot.revision,
  };
}

/** The records of a kind whose name, display name or an alias contains `name`; all of them without one. */
function lookUp(
  snapshot: KbSnapshot,
  kind: "addons" | "platforms",
  name: string | undefined,
): unknown {
  const wanted = name?.toLowerCase();
  const records = snapshot
    .records(kind)
    .filter(
      (record) =>
        wanted === undefined ||
        [record.name, record.displayName, ...("aliases" in record ? record.aliases : [])].some(
          (text) => text.toLowerCase().includes(wanted),
        ),
    );
  return { items: records, kbRevision: snapshot.revision };
}

/** The questions read from the knowledge base without a cluster. */
export const KNOWLEDGE_QUESTIONS: readonly Question[] = [
  question({
    name: "release_status",
    title: "A Kubernetes minor's release and support status",
    description:
      'A minor ("1.32", or "latest" / "oldest-supported") with its release date, patches, end of standard support and where it stands on the day (asOf, default today): supported, maintenance mode, end of life.',
    rest: { method: "get", path: "/releases/:version" },
    input: releaseQuery,
    answer: (snapshot, query) => releaseAnswer(snapshot, query.version, parseAsOf(query.asOf)),
  }),
  question({
    name: "upgrade_impact",
    title: "What changes between two minors beyond apiVersions",
    description:
      "Behaviour changes, configuration files and feature gates between two minors (from, to), by release and by area (tenant-isolation, security, networking, storage, scheduling, node, observability), with notes on where the knowledge ends.",
    rest: { method: "get", path: "/upgrade-impact" },
    input: impactQuery,
    answer: (snapshot, query) =>
      upgradeImpact(snapshot, query.from, query.to, { areas: query.area }),
  }),
  question({
    name: "firewall_flows",
    title: "Network flows a firewall between node roles must allow",
    description:
      "The flows between control-plane, workers and external (ports, protocols, why), Kubernetes' own and the CNI's (calico, cilium, flannel), for a version when given.",
    rest: { method: "get", path: "/flows" },
    input: flowQuery,
    answer: (snapshot, query) => listFlows(snapshot, query),
  }),
  question({
    name: "find_addons",
    title: "Add-ons the knowledge base knows, with their compatibility tables",
    description:
      "Add-ons (cert-manager, ingress-nginx, Istio, CoreDNS ...) with the Kubernetes minors each release supports and the source of each table; `name` narrows the list (matched against name, display name and aliases).",
    rest: { method: "get", path: "/addons" },
    input: lookupQuery,
    answer: (snapshot, query) => lookUp(snapshot, "addons", query.name),
  }),
  question({
    name: "find_platforms",
    title: "Managed platforms (EKS, GKE, AKS) and their own rules",
    description:
      "Managed platforms with their calendars (standard and extended support), their skew and rollback rules where they differ from upstream, and what breaks upgrades on them; `name` narrows the list.",
    rest: { method: "get", path: "/platforms" },
    input: lookupQuery,
    answer: (snapshot, query) => lookUp(snapshot, "platforms", query.name),
  }),
  question({
    name: "coverage",
    title: "What the knowledge base covers, and how old each kind is",
    description:
      "Each kind of knowledge with the versions it covers, its source, the date its source was last checked, its age and whether it is stale on the day (asOf). Read it before trusting an answer about a new minor.",
    rest: { method: "get", path: "/coverage" },
    input: coverageQuery,
    answer: async (snapshot, query, context) => ({
      items: agedCoverage(snapshot, parseAsOf(query.asOf), await context.lastChecked?.()),
      kbRevision: snapshot.revision,
    }),
  }),
];

export const QUESTIONS: readonly Question[] = [...CLUSTER_QUESTIONS, ...KNOWLEDGE_QUESTIONS];

/** The question of that name; a name not in the table is a bug of the caller, said at start-up. */
export function questionNamed(name: string): Question {
  const found = QUESTIONS.find((question) => question.name === name);
  if (found === undefined) throw new Error(`no question is named ${name}`);
  return found;
}
