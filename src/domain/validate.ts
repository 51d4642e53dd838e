/**
 * validateCluster: is this combination of component versions supported?
 * Judges a plan against the skew rules in force for its control-plane
 * version (in the chosen policy profile and the ones it extends), the runtime
 * requirements for each kubelet, and the release calendar on `asOf`. Every
 * finding cites the rule and its source. Pure: reads only the snapshot.
 *
 * The checks themselves live in skew-checks.ts, runtime-checks.ts,
 * release-checks.ts and node-checks.ts; this module runs them over a plan
 * and makes the report.
 */
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { resolveProfile } from "./catalog.js";
import { kubernetesEntries, label, parseClusterPlan, type ClusterPlan } from "./cluster-plan.js";
import { judgeFeatureGates } from "./feature-gates.js";
import { finding, report, type Finding, type ValidationReport } from "./findings.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import { checkKubeletCgroup, checkRuntimeCgroup, checkRuntimeEndOfLife } from "./node-checks.js";
import { checkReleases } from "./release-checks.js";
import { parseAsOf } from "./days.js";
import { checkRuntimes } from "./runtime-checks.js";
import { checkEtcdMembers } from "./etcd-checks.js";
import {
  checkAgainstApiservers,
  checkApiserverSpread,
  checkKubeProxyAgainstKubelet,
  controlPlaneMinor,
  rulesInForce,
} from "./skew-checks.js";
import { minorOf } from "../core/versions.js";
import { judgeAddon } from "./addons.js";
import { recognisePlatform, resolvePlatform } from "./platforms.js";

export { parseAsOf, today } from "./days.js";
export { controlPlaneMinor } from "./skew-checks.js";

export interface ValidateOptions {
  readonly profile?: string | null | undefined;
  /** The day to judge end of life on, `YYYY-MM-DD` (default: today, UTC). */
  readonly asOf?: string | null | undefined;
  /** How the caller names the component list, for error messages (`components`, `plan.components`). */
  readonly field?: string;
  /** The managed platform (eks, gke, aks); recognised from the versions when not given. */
  readonly platform?: string | null | undefined;
}

export function validateCluster(
  snapshot: KbSnapshot,
  components: unknown,
  options: ValidateOptions = {},
): ValidationReport {
  const asOf = parseAsOf(options.asOf);
  const plan = onPlatform(
    snapshot,
    parseClusterPlan(snapshot, components, options.field, asOf),
    options.platform,
  );
  const profile = resolveProfile(snapshot, options.profile ?? undefined);
  return report(snapshot.revision, judgePlan(snapshot, plan, profile, asOf));
}

const UPSTREAM = "upstream";

/** The plan on its platform: the one named, else the one its versions show (v1.29.3-eks-…), else upstream. */
export function onPlatform(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  platform: string | null | undefined,
): ClusterPlan {
  // "upstream": a self-managed cluster, even with vendor builds (EKS Distro): upstream's calendar.
  if (platform?.trim().toLowerCase() === UPSTREAM) return plan;
  const named =
    platform === undefined || platform === null || platform.trim() === ""
      ? undefined
      : resolvePlatform(snapshot, platform);
  const found = named ?? recognisePlatform(snapshot, plan.entries);
  return found === undefined ? plan : { ...plan, platform: found };
}

/**
 * All findings for an already parsed plan; the planner calls this after every step. With `errorsOnly` (the
 * planner asking whether a step is allowed) only ERRORs are returned, and only the checks that never give an
 * ERROR are left out (the knowledge's edges, runtimes' own end of life, upstream's calendar): every check that
 * can fail on a state runs on every state. test/plan-properties.test.ts re-validates every state of generated plans in full.
 */
export function judgePlan(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  profile: string,
  asOf: string,
  options: { readonly errorsOnly?: boolean } = {},
): Finding[] {
  const all = options.errorsOnly !== true;
  const findings: Finding[] = [];
  const apiservers = kubernetesEntries(plan, "kube-apiserver");
  const policyMinor = controlPlaneMinor(plan);
  const rules = policyMinor === null ? [] : rulesInForce(snapshot, profile, policyMinor);

  if (
    apiservers.length === 0 &&
    plan.entries.some((entry) => entry.kubernetes !== null || entry.addon !== undefined)
  ) {
    findings.push(
      finding({
        code: "NO_APISERVER_IN_PLAN",
        severity: "INFO",
        message:
          "the plan names no kube-apiserver, so nothing (no component, no add-on) was checked against the control plane; add kube-apiserver with its version",
      }),
    );
  }
  if (apiservers.length > 0 && policyMinor !== null) {
    findings.push(...checkApiserverSpread(apiservers, rules, policyMinor, profile));
    findings.push(...checkAgainstApiservers(plan, apiservers, rules, policyMinor, profile));
  }
  if (policyMinor !== null)
    findings.push(...checkKubeProxyAgainstKubelet(plan, rules, policyMinor, profile));
  findings.push(...checkRuntimes(snapshot, plan));
  findings.push(...checkEtcdMembers(snapshot, plan));
  findings.push(...checkNodes(snapshot, plan, asOf, all));
  // Upstream's calendar gives no ERROR; a platform's can (past its end of support), so on a platform it runs on every state.
  if (all || plan.platform !== undefined) findings.push(...checkReleases(snapshot, plan, asOf));
  if (apiservers.length > 0 && policyMinor !== null)
    findings.push(...checkAddons(snapshot, plan, policyMinor, asOf));
  for (const entry of plan.entries) {
    if (entry.featureGates === undefined || entry.kubernetes === null) continue;
    findings.push(
      ...judgeFeatureGates(
        snapshot,
        entry.featureGates,
        `${entry.kubernetes.major}.${entry.kubernetes.minor}`,
        { component: entry.component, instance: entry.instance },
        asOf,
      ),
    );
  }
  if (all) findings.push(...knowledgeEdges(snapshot, plan, asOf));
  return dedupe(all ? findings : findings.filter((entry) => entry.severity === "ERROR"));
}

/** Every add-on of the plan against the control plane's minor. */
function checkAddons(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  minor: string,
  asOf: string,
): Finding[] {
  const newest =
    snapshot.newestRelease === undefined
      ? Number(minor.split(".")[1])
      : Number(snapshot.newestRelease.version.split(".")[1]);
  return plan.entries.flatMap((entry) =>
    entry.addon === undefined || entry.release === null
      ? []
      : judgeAddon(
          { addon: entry.addon, version: entry.release, instance: entry.instance },
          Number(minor.split(".")[1]),
          asOf,
          newest,
        ),
  );
}

/** cgroup v1 nodes (what the plan says of each kubelet, and of the runtimes on its instance) and, with `endOfLife`, runtimes past their own end of life. */
function checkNodes(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  asOf: string,
  endOfLife: boolean,
): Finding[] {
  const findings: Finding[] = [];
  const kubelets = kubernetesEntries(plan, "kubelet");
  for (const kubelet of kubelets) {
    if (kubelet.node === undefined) continue;
    findings.push(...checkKubeletCgroup(snapshot, kubelet, kubelet.node));
    for (const runtime of plan.entries) {
      if (runtime.category === "container-runtime" && runtime.instance === kubelet.instance)
        findings.push(...checkRuntimeCgroup(snapshot, runtime, kubelet.node));
    }
  }
  if (!endOfLife) return findings;
  // Container runtimes and etcd alike: each by its own project's release lines.
  for (const runtime of plan.entries) {
    if (runtime.category === "container-runtime" || runtime.category === "datastore")
      findings.push(...checkRuntimeEndOfLife(snapshot, runtime, asOf));
  }
  return findings;
}

/**
 * Minors beyond what the knowledge covers: the skew rules for the control
 * plane's minor, and the runtime requirements and node facts for each
 * kubelet's minor (only where a runtime or a node fact was given to judge).
 */
function knowledgeEdges(snapshot: KbSnapshot, plan: ClusterPlan, asOf: string): Finding[] {
  const findings: Array<Finding | undefined> = [];
  const minor = controlPlaneMinor(plan);
  if (minor !== null) {
    findings.push(
      knowledgeEdge(snapshot, "skewRules", minor, `kube-apiserver ${minor}`, asOf, {
        component: "kube-apiserver",
      }),
    );
    // Add-ons and the platform are judged at the control plane's minor, by their own kinds of knowledge.
    for (const entry of plan.entries)
      if (entry.addon !== undefined && entry.release !== null)
        findings.push(
          knowledgeEdge(
            snapshot,
            "addons",
            minor,
            `${entry.addon.displayName} ${entry.version}`,
            asOf,
            {
              component: entry.addon.name,
              instance: entry.instance,
            },
          ),
        );
    if (plan.platform !== undefined)
      findings.push(
        knowledgeEdge(snapshot, "platforms", minor, `${plan.platform.displayName} ${minor}`, asOf),
      );
  }
  const hasRuntime = (instance: string | null) =>
    plan.entries.some(
      (entry) =>
        entry.category === "container-runtime" &&
        (entry.instance === instance || entry.instance === null || instance === null),
    );
  for (const kubelet of kubernetesEntries(plan, "kubelet")) {
    const kubeletMinor = minorOf(kubelet.kubernetes);
    const about = `${label(kubelet)} ${kubelet.version}`;
    if (hasRuntime(kubelet.instance))
      findings.push(
        knowledgeEdge(snapshot, "runtimeRequirements", kubeletMinor, about, asOf, kubelet),
      );
    if (kubelet.node?.cgroupVersion === "v1")
      findings.push(
        knowledgeEdge(snapshot, "hostRequirements", kubeletMinor, about, asOf, kubelet),
      );
  }
  return findings.filter((entry): entry is Finding => entry !== undefined);
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((entry) => {
    const key = `${entry.code}|${entry.component}|${entry.instance}|${entry.ruleId}|${entry.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
