/**
 * planUpgrade: the ordered steps that take every component of a cluster to
 * a target minor without ever leaving the supported combinations. The
 * control plane moves one minor at a time (etcd first, then each
 * kube-apiserver, then the controllers); node pools move only when the next
 * control-plane step would leave them out of skew, and then straight to the
 * newest minor allowed at that point, so each pool is touched as few times
 * as possible; a pool's container runtime moves before its kubelet. Every
 * state after a step is judged by the same code as validateCluster; a step
 * that would break the cluster is never emitted (the plan stops with
 * PLAN_BLOCKED instead).
 */
import { InputError } from "../core/errors.js";
import type {
  ApiRemovalRecord,
  ComponentRecord,
  RuntimeReleaseRecord,
  RuntimeRequirementRecord,
} from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { listApiRemovals, resolveProfile } from "./catalog.js";
import {
  label,
  parseClusterPlan,
  plannedAddon,
  plannedComponent,
  withFactsOf,
  type ClusterPlan,
  type NodeFacts,
  type PlannedComponent,
} from "./cluster-plan.js";
import { addonFits, candidateVersions } from "./addons.js";
import { platformChanges } from "./platforms.js";
import { knowledgeEdge } from "./knowledge-edge.js";
import { checkKubeletCgroup, checkRuntimeEndOfLife, lastSupportedDay } from "./node-checks.js";
import { checkRuntimes, requirementsOn } from "./runtime-checks.js";
import { findGate, type GateSetting } from "./feature-gates.js";
import { etcdWaypoints } from "./etcd-checks.js";
import { howToUndoHop } from "./platform-rollback.js";
import { readKubernetesVersion } from "./version-reader.js";
import { changesBetween, impactEdges, type ImpactRelease } from "./impact.js";
import { finding, report, type Finding, type Verdict } from "./findings.js";
import { judgePlan, onPlatform, parseAsOf } from "./validate.js";
import {
  compareComponentVersions,
  compareMinors,
  formatVersion,
  minorIndex,
  minorOf,
  parseComponentVersion,
  type ComponentVersion,
  type KubernetesVersion,
} from "../core/versions.js";

/**
 * What a step does: UPGRADE moves the component from fromVersion to toVersion; MIGRATE_CGROUP_V2 moves the
 * nodes of a kubelet's pool to cgroup v2 (a node image or OS on cgroup v2), the versions staying as they are;
 * REMOVE_FEATURE_GATES drops from a component's --feature-gates the gates the next version no longer takes,
 * each set to the value it is locked to (so nothing changes but the flag), the version staying as it is.
 */
export type StepAction = "UPGRADE" | "MIGRATE_CGROUP_V2" | "REMOVE_FEATURE_GATES";

export interface UpgradeStep {
  /** Steps that share an order are done together (a node's kubelet and kube-proxy). */
  readonly order: number;
  readonly action: StepAction;
  readonly component: string;
  readonly instance: string | null;
  readonly fromVersion: string;
  readonly toVersion: string;
  readonly note: string;
  /** For REMOVE_FEATURE_GATES: the component's --feature-gates after the step (A=true,B=false; empty when none is left); else null. */
  readonly featureGates: string | null;
  /** For a kube-apiserver step that crosses a minor (a hop): the last point at which the hop can be undone, and how; else null. */
  readonly undo: string | null;
}

export interface UpgradePlan {
  readonly ok: boolean;
  readonly status: Verdict;
  readonly kbRevision: number;
  readonly targetVersion: string;
  readonly steps: readonly UpgradeStep[];
  readonly apiRemovals: readonly ApiRemovalRecord[];
  /** Per control-plane minor crossed, what it changes beyond apiVersions (behaviour changes, configuration files, feature gates). */
  readonly hops: readonly ImpactRelease[];
  readonly findings: readonly Finding[];
}

/** A step the planner cannot take: the message says why, the findings are what blocks it (validate's own). */
class Blocked extends Error {
  constructor(
    message: string,
    readonly blocking: readonly Finding[] = [],
  ) {
    super(message);
  }
}

/**
 * How many minors one plan may cross. The planner moves the control plane
 * one minor at a time and judges the cluster after every step, so a target
 * such as 1.9999 would take millions of steps; no real upgrade crosses more
 * than a handful (the knowledge base covers 1.19 onward).
 */
export const MAX_UPGRADE_MINORS = 30;

/**
 * How many plan entries the planner may judge for one plan, summed over its
 * steps: a bound on the work of one request, far above what the largest
 * allowed plan with a real target needs once steps are judged locally.
 */
const MAX_JUDGED_ENTRIES = 2_000_000;

/** The changes of each minor after `fromMinor` up to `toMinor`, one entry per minor. */
function hopChanges(
  snapshot: KbSnapshot,
  major: number,
  fromMinor: number,
  toMinor: number,
): ImpactRelease[] {
  const items = changesBetween(snapshot, `${major}.${fromMinor}`, `${major}.${toMinor}`);
  const hops: ImpactRelease[] = [];
  for (let minor = fromMinor + 1; minor <= toMinor; minor += 1) {
    const version = `${major}.${minor}`;
    hops.push({
      kubernetesVersion: version,
      changes: items.filter((item) => item.kubernetesVersion === version),
    });
  }
  return hops;
}

export function planUpgrade(
  snapshot: KbSnapshot,
  current: unknown,
  targetVersion: string,
  options: {
    profile?: string | null | undefined;
    /** The day the plan is judged on (YYYY-MM-DD); today when absent. Release and runtime ends of life are read on it. */
    asOf?: string | null | undefined;
    /** The managed platform (eks, gke, aks); recognised from the versions when not given. */
    platform?: string | null | undefined;
  } = {},
): UpgradePlan {
  const asOf = parseAsOf(options.asOf);
  const plan = onPlatform(
    snapshot,
    parseClusterPlan(snapshot, current, "current.components", asOf),
    options.platform,
  );
  const profile = resolveProfile(snapshot, options.profile ?? undefined);
  const target = readKubernetesVersion(snapshot, targetVersion, "targetVersion", asOf);
  const targetMinor = minorIndex(target);
  const apiservers = plan.entries.filter((entry) => entry.component === "kube-apiserver");
  if (apiservers.length === 0) {
    throw new InputError(
      "current.components must include kube-apiserver: the upgrade is planned from the control plane's version",
      "current.components",
    );
  }
  const startMinor = Math.min(...apiservers.map((entry) => minorIndex(entry.kubernetes!)));
  const newestMinor = Math.max(...apiservers.map((entry) => minorIndex(entry.kubernetes!)));
  const targetText = `${target.major}.${target.minor}`;
  const startMajor = Math.floor(startMinor / 1000);
  if (target.major !== startMajor) {
    throw new InputError(
      `targetVersion ${targetText} is another major version than the control plane (${minorWords(startMinor)}); Kubernetes has no upgrade path across major versions`,
      "targetVersion",
    );
  }
  if (targetMinor - startMinor > MAX_UPGRADE_MINORS) {
    throw new InputError(
      `targetVersion ${targetText} is ${targetMinor - startMinor} minors past the control plane (${minorWords(startMinor)}); a plan crosses at most ${MAX_UPGRADE_MINORS} minors`,
      "targetVersion",
    );
  }
  const result = (
    steps: UpgradeStep[],
    findings: Finding[],
    removals: readonly ApiRemovalRecord[] = [],
  ): UpgradePlan => {
    const judged = report(snapshot.revision, findings);
    // What each hop changes, for every plan that moves the control plane forward to a release the knowledge base knows.
    const known =
      snapshot.newestRelease === undefined ||
      targetMinor <= minorIndex(snapshot.newestRelease.version);
    const hops =
      targetMinor > startMinor && known
        ? hopChanges(snapshot, startMajor, startMinor % 1000, targetMinor % 1000)
        : [];
    return {
      ok: judged.ok,
      status: judged.status,
      kbRevision: snapshot.revision,
      targetVersion: targetText,
      steps,
      apiRemovals: removals,
      hops,
      findings: judged.findings,
    };
  };

  // The cluster as it is, judged as validate judges it: a plan that is refused ends where it started, so it
  // says what validate says of that state; one that is made starts from it.
  const now = judgePlan(snapshot, plan, profile, asOf);
  const asItIs = now.filter((entry) => entry.severity !== "INFO");
  if (targetMinor < newestMinor) {
    return result(
      [],
      [
        finding({
          code: "DOWNGRADE_NOT_SUPPORTED",
          severity: "ERROR",
          component: "kube-apiserver",
          message: `the target ${targetText} is older than the running control plane (${minorWords(newestMinor)}); Kubernetes does not support downgrading the control plane (stored objects may already use newer API versions). To undo a node pool upgrade, use checkRollback.`,
          sourceUrl: snapshot.reference("skew-policy-upgrade-order"),
        }),
        ...asItIs,
      ],
    );
  }
  // A target the knowledge base has no release for cannot be planned: a green plan to 1.45 would be a guess.
  const newestKnown = snapshot.newestRelease;
  if (newestKnown !== undefined && targetMinor > minorIndex(newestKnown.version)) {
    return result(
      [],
      [
        finding({
          code: "TARGET_UNKNOWN",
          severity: "ERROR",
          message: `the target ${targetText} is not a release the knowledge base knows: the newest it knows is ${newestKnown.version}${newestKnown.releaseDate > asOf ? ` (planned for ${newestKnown.releaseDate})` : ` (released ${newestKnown.releaseDate})`}. Plan to ${newestKnown.version} or older, or refresh the knowledge base once ${targetText} is out.`,
          sourceUrl: newestKnown.sourceUrl,
        }),
        ...asItIs,
      ],
    );
  }
  // A platform's end of support is why a cluster needs the plan, not a reason to refuse one.
  const currentErrors = now.filter(
    (entry) => entry.severity === "ERROR" && entry.check !== "PLATFORM",
  );
  if (currentErrors.length > 0) {
    return result(
      [],
      [
        finding({
          code: "PLAN_CURRENT_STATE_INVALID",
          severity: "ERROR",
          message: `the current cluster is not a supported combination (${currentErrors.length} error${currentErrors.length === 1 ? "" : "s"} below); bring it into skew before planning an upgrade`,
        }),
        ...asItIs,
      ],
    );
  }

  const planner = new Planner(snapshot, plan, profile, asOf, target);
  const findings: Finding[] = [];
  // Said, as a WARNING: the cluster today is past its platform's support, which the plan is there to end.
  for (const past of now.filter((entry) => entry.code === "PLATFORM_END_OF_SUPPORT")) {
    findings.push({ ...past, severity: "WARNING", message: `now: ${past.message}` });
  }
  // What could not be judged today (versions beyond either end of the knowledge base, not yet released) is not judged on the way either.
  for (const unjudged of now.filter(
    (entry) =>
      entry.severity !== "INFO" && (entry.check === "VERSION" || entry.check === "COVERAGE"),
  )) {
    findings.push({ ...unjudged, message: `now: ${unjudged.message}` });
  }
  try {
    planner.run();
  } catch (error) {
    if (!(error instanceof Blocked)) throw error;
    findings.push(
      finding({
        code: "PLAN_BLOCKED",
        severity: "ERROR",
        message: error.message,
        sourceUrl: snapshot.reference("skew-policy"),
      }),
      ...error.blocking,
    );
  }
  findings.push(...planner.notes);
  if (planner.steps.length === 0 && findings.every((entry) => entry.severity !== "ERROR")) {
    findings.push(
      finding({
        code: "PLAN_NOTHING_TO_DO",
        severity: "INFO",
        message: `every component is already at ${targetText}`,
      }),
    );
  }
  const oldestKnown = snapshot.releases[0];
  if (
    oldestKnown !== undefined &&
    startMinor < minorIndex(oldestKnown.version) &&
    targetMinor > startMinor
  ) {
    findings.push(
      finding({
        code: "KNOWLEDGE_EDGE",
        severity: "WARNING",
        component: "kube-apiserver",
        ruleId: "coverage:releases",
        sourceUrl: oldestKnown.sourceUrl,
        message: `the steps from ${minorWords(startMinor)} to ${oldestKnown.version} cross minors older than the knowledge base covers (${oldestKnown.version} onward): their API removals, runtime requirements and behaviour changes were not judged; read each minor's release notes, or rebuild the cluster at a supported minor`,
      }),
    );
  }

  const removals =
    targetMinor > startMinor
      ? listApiRemovals(snapshot, { from: minorWords(startMinor), to: targetText })
      : [];
  if (removals.length > 0) {
    const kinds = [...new Set(removals.map((removal) => `${removal.apiVersion} ${removal.kind}`))];
    findings.push(
      finding({
        code: "API_REMOVED_IN_UPGRADE",
        severity: "WARNING",
        message: `${removals.length} API version${removals.length === 1 ? "" : "s"} stop being served between ${minorWords(startMinor)} and ${targetText} (${kinds.slice(0, 6).join(", ")}${kinds.length > 6 ? ", …" : ""}); migrate manifests and clients before the control plane reaches each removal (scan them with scanManifests)`,
        sourceUrl: snapshot.reference("deprecation-guide"),
      }),
    );
  }
  findings.push(...crossedRequirements(snapshot, plan, startMinor, targetMinor));
  if (plan.platform !== undefined)
    findings.push(...platformChanges(plan.platform, startMinor % 1000, targetMinor % 1000));
  const targetRelease = snapshot.findRelease(targetText);
  if (targetRelease?.endOfLife != null && asOf > targetRelease.endOfLife) {
    const oldestSupported = snapshot.releases.find(
      (release) =>
        release.releaseDate <= asOf && release.endOfLife !== null && release.endOfLife >= asOf,
    );
    findings.push(
      finding({
        code: "TARGET_END_OF_LIFE",
        severity: "WARNING",
        component: "kube-apiserver",
        message: `the target ${targetText} reached its end of life on ${targetRelease.endOfLife} and gets no more patches${oldestSupported === undefined ? "" : `; the oldest minor still supported on ${asOf} is ${oldestSupported.version}: plan to it or newer`}`,
        sourceUrl: targetRelease.sourceUrl,
      }),
    );
  }
  // What the plan could not judge at the target: the API removals crossed. (The final state's validation says it for skew, runtimes and nodes.)
  const removalsEdge = knowledgeEdge(
    snapshot,
    "apiRemovals",
    targetText,
    `the target ${targetText}`,
  );
  if (removalsEdge !== undefined) findings.push(removalsEdge);
  // What each hop changes beyond apiVersions is known only as far as its knowledge goes: said as upgrade-impact says it.
  if (targetMinor > startMinor)
    findings.push(...impactEdges(snapshot, minorWords(startMinor), targetText));
  findings.push(...recommendations(snapshot, plan, startMinor, targetMinor));
  // What still holds at the end (end of life, unknown versions, errors) is the plan's verdict too: validate's findings of the final state.
  const end = judgePlan(snapshot, planner.state, profile, asOf).filter(
    (entry) => entry.severity !== "INFO",
  );
  findings.push(...end);
  // Errors a state on the way has that the plan goes through rather than stops at: a platform's end of support
  // (a WARNING: the platform may upgrade on its own meanwhile), an add-on between the hop and its own move (INFO:
  // the plan's next steps move it). One the end state has too stays the end state's (dedupeFindings).
  for (const passing of planner.onTheWay) {
    findings.push({
      ...passing,
      severity: passing.check === "PLATFORM" ? "WARNING" : "INFO",
      message: `on the way: ${passing.message}`,
    });
  }
  return result(planner.steps, dedupeFindings(findings), removals);
}

/**
 * Findings that say the same thing: of the same entry (a "now:" or "on the way:" finding the end state repeats),
 * or, for a platform's calendar, of the same minor, whichever entries a state has at it (the row is the rule).
 */
function sameFinding(entry: Finding): string {
  return entry.check === "PLATFORM" && entry.ruleId !== null
    ? `${entry.code}|${entry.ruleId}`
    : `${entry.code}|${entry.component}|${entry.instance}|${entry.ruleId}|${entry.message.replace(/^(now|on the way): /, "")}`;
}

const SEVERITY_RANK = { ERROR: 0, WARNING: 1, INFO: 2 } as const;

/**
 * Findings that say the same thing once (a "now:" finding the end state repeats), at the place of the first and
 * with the gravest severity any of them has: a blocked plan ends where it began, and what validate calls an
 * ERROR there is not softened by the "now:" WARNING said of the same state.
 */
function dedupeFindings(findings: readonly Finding[]): Finding[] {
  const kept = new Map<string, Finding>();
  for (const entry of findings) {
    const key = sameFinding(entry);
    const first = kept.get(key);
    if (first === undefined) kept.set(key, entry);
    else if (SEVERITY_RANK[entry.severity] < SEVERITY_RANK[first.severity])
      kept.set(key, { ...first, severity: entry.severity, message: entry.message });
  }
  return [...kept.values()];
}

/** Of versions sorted oldest first: the newest patch of the oldest minor among them. */
function newestPatchOfFirstMinor(
  versions: readonly ComponentVersion[],
): ComponentVersion | undefined {
  const first = versions[0];
  if (first === undefined) return undefined;
  return versions
    .filter((version) => version.major === first.major && version.minor === first.minor)
    .at(-1);
}

function minorWords(index: number): string {
  return `${Math.floor(index / 1000)}.${index % 1000}`;
}

class Planner {
  readonly steps: UpgradeStep[] = [];
  readonly notes: Finding[] = [];
  state: ClusterPlan;
  private order = 0;
  private judgedEntries = 0;
  private readonly targetMinor: number;
  private readonly passing = new Map<string, Finding>();

  constructor(
    private readonly snapshot: KbSnapshot,
    initial: ClusterPlan,
    private readonly profile: string,
    private readonly asOf: string,
    private readonly target: KubernetesVersion,
  ) {
    this.state = initial;
    this.targetMinor = minorIndex(target);
  }

  /**
   * One control-plane minor at a time; within each, components move in the order kb/upgrade-order.yaml gives
   * (etcd, kube-apiserver, then the controllers). Nodes that the next minor would leave out of skew move just
   * before kube-apiserver does. Once the control plane is at the target, nodes and clients follow, again in
   * that order (a pool's runtime before its kubelet, kubelet before kube-proxy).
   */
  run(): void {
    const order = this.snapshot.upgradeOrder;
    for (;;) {
      const apiserverMinors = this.kubernetes("kube-apiserver").map((entry) =>
        minorIndex(entry.kubernetes!),
      );
      const oldest = Math.min(...apiserverMinors);
      if (oldest >= this.targetMinor) break;
      const next = oldest + 1; // never skip a minor
      for (const component of order) {
        if (component === "etcd") this.prepareEtcd(next);
        else if (component === "kube-apiserver") this.moveApiservers(next);
        else if (this.isController(component)) {
          for (const controller of this.kubernetes(component)) {
            if (minorIndex(controller.kubernetes!) < next) {
              this.step(
                [{ entry: controller, to: this.versionFor(next) }],
                `${component} to ${minorWords(next)} after every kube-apiserver is there`,
              );
            }
          }
        }
      }
    }
    // The control plane is at the target: nodes and clients follow.
    for (const component of order) {
      if (component === "kubelet") {
        for (const kubelet of this.kubernetes("kubelet")) {
          if (minorIndex(kubelet.kubernetes!) < this.targetMinor)
            this.moveNode(
              kubelet,
              this.targetMinor,
              "nodes follow the control plane to the target",
            );
        }
      } else if (component === "kube-proxy") {
        for (const proxy of this.kubernetes("kube-proxy")) {
          if (minorIndex(proxy.kubernetes!) < this.targetMinor) {
            this.step(
              [{ entry: proxy, to: this.versionFor(this.targetMinor) }],
              "kube-proxy after the kubelets of its nodes",
            );
          }
        }
      } else if (component === "kubectl") {
        for (const kubectl of this.kubernetes("kubectl")) {
          if (minorIndex(kubectl.kubernetes!) < this.targetMinor) {
            this.step(
              [{ entry: kubectl, to: this.versionFor(this.targetMinor) }],
              "advice, not a cluster change: kubectl on operators' machines and in CI to the control plane's minor",
            );
          }
        }
      }
    }
    for (const component of order.filter((name) => this.isController(name))) {
      for (const controller of this.kubernetes(component)) {
        if (minorIndex(controller.kubernetes!) < this.targetMinor) {
          this.step(
            [{ entry: controller, to: this.versionFor(this.targetMinor) }],
            `${component} to the target`,
          );
        }
      }
    }
  }

  /** The kube-apiservers to the next minor, after the nodes and clients that minor would leave out of skew. */
  private moveApiservers(next: number): void {
    this.prepareNodesFor(next);
    this.prepareKubectlFor(next);
    const afterwards = this.prepareAddonsFor(next);
    for (const apiserver of this.kubernetes("kube-apiserver")) {
      if (minorIndex(apiserver.kubernetes!) < next) {
        this.step(
          [{ entry: apiserver, to: this.versionFor(next) }],
          `kube-apiserver to ${minorWords(next)}: one minor at a time, one instance at a time`,
        );
      }
    }
    for (const { name, to, note } of afterwards) {
      const entry = this.state.entries.find(
        (candidate) =>
          candidate.component === name.component && candidate.instance === name.instance,
      )!;
      this.moveAddon(entry, to, note);
    }
  }

  /**
   * The add-ons that the next control-plane minor would leave unsupported:
   * moved now to the oldest version that supports both the current minor
   * and the next (through every minor between, where the project says to),
   * or, when no version supports both, returned to be moved right after the
   * hop. An add-on no known version carries across is a finding.
   */
  private prepareAddonsFor(next: number): Array<{
    name: { component: string; instance: string | null };
    to: ComponentVersion;
    note: string;
  }> {
    const afterwards: Array<{
      name: { component: string; instance: string | null };
      to: ComponentVersion;
      note: string;
    }> = [];
    const newest =
      this.snapshot.newestRelease === undefined
        ? next % 1000
        : minorIndex(this.snapshot.newestRelease.version) % 1000;
    const nextMinor = next % 1000;
    const currentMinor = nextMinor - 1;
    for (const entry of this.state.entries) {
      const addon = entry.addon;
      const version = entry.release;
      if (addon === undefined || version === null || addonFits(addon, version, nextMinor, newest))
        continue;
      const later = candidateVersions(addon).filter(
        (candidate) => compareComponentVersions(candidate, version) > 0,
      );
      const fitsBoth = newestPatchOfFirstMinor(
        later.filter(
          (candidate) =>
            addonFits(addon, candidate, currentMinor, newest) &&
            addonFits(addon, candidate, nextMinor, newest),
        ),
      );
      const name = { component: entry.component, instance: entry.instance };
      if (fitsBoth !== undefined && addon.rule !== "MATCH_MINOR") {
        this.moveAddon(
          entry,
          fitsBoth,
          `${addon.displayName} before kube-apiserver reaches 1.${nextMinor}: ${version.raw} does not support it, ${fitsBoth.raw} supports 1.${currentMinor} and 1.${nextMinor}`,
        );
        continue;
      }
      const fitsNext = newestPatchOfFirstMinor(
        later.filter((candidate) => addonFits(addon, candidate, nextMinor, newest)),
      );
      if (fitsNext !== undefined) {
        afterwards.push({
          name,
          to: fitsNext,
          note:
            addon.rule === "MATCH_MINOR"
              ? `${addon.displayName} right after kube-apiserver reaches 1.${nextMinor}: its minor must equal the control plane's (the newest ${fitsNext.raw} patch)`
              : `${addon.displayName} right after kube-apiserver reaches 1.${nextMinor}: no version supports both 1.${currentMinor} and 1.${nextMinor}, and ${fitsNext.raw} needs 1.${nextMinor}`,
        });
        continue;
      }
      this.notes.push(
        finding({
          code: "ADDON_NO_SUPPORTED_VERSION",
          severity: "ERROR",
          component: addon.name,
          instance: entry.instance,
          message: `no ${addon.displayName} version the knowledge base knows supports Kubernetes 1.${nextMinor}, so the plan cannot carry ${label(entry)} ${version.raw} there; check the project's own table before the control plane moves`,
          sourceUrl: addon.sourceUrl,
        }),
      );
    }
    return afterwards;
  }

  /** One add-on to `to`, through each minor between where its project says to upgrade one minor at a time. */
  private moveAddon(entry: PlannedComponent, to: ComponentVersion, note: string): void {
    const addon = entry.addon!;
    let current = entry;
    if (addon.upgradeLimit === "ONE_MINOR_AT_A_TIME" && current.release !== null) {
      const from = current.release;
      const between = candidateVersions(addon).filter(
        (candidate) =>
          candidate.major === to.major &&
          candidate.major === from.major &&
          candidate.minor > from.minor &&
          candidate.minor < to.minor,
      );
      for (const minor of [...new Set(between.map((candidate) => candidate.minor))]) {
        const stop = newestPatchOfFirstMinor(
          between.filter((candidate) => candidate.minor === minor),
        )!;
        this.step(
          [{ entry: current, to: stop.raw }],
          `${addon.displayName} through ${stop.raw} on the way to ${to.raw}: ${addon.upgradeLimitNote ?? "the project upgrades one minor at a time"}`,
        );
        current = this.state.entries.find(
          (candidate) =>
            candidate.component === entry.component && candidate.instance === entry.instance,
        )!;
      }
    }
    this.step([{ entry: current, to: to.raw }], note);
  }

  /** Control-plane components other than the apiserver and etcd: they follow kube-apiserver within each minor. */
  private isController(component: string): boolean {
    const category = this.snapshot.findComponent(component)?.category;
    return category === "controller" || category === "scheduler";
  }

  private kubernetes(component: string): PlannedComponent[] {
    return this.state.entries.filter(
      (entry) => entry.component === component && entry.kubernetes !== null,
    );
  }

  /** The version to write for a minor: the target as given, else the newest patch the knowledge base knows. */
  private versionFor(minor: number): string {
    if (minor === this.targetMinor && this.target.patch !== null) return formatVersion(this.target);
    return this.snapshot.findRelease(minorWords(minor))?.latestPatch ?? minorWords(minor);
  }

  /**
   * The ERROR findings of a state. With `changed` (the entries a step moves,
   * from a state known to have no errors) only what those entries can affect
   * is judged: the kube-apiservers, which every check measures against, the
   * entries of the changed instances and those without an instance (runtimes
   * and shims that serve every node). A change to a kube-apiserver or to an
   * entry without an instance can affect anything, so the whole state is judged.
   */
  private errorsOf(
    state: ClusterPlan,
    changed: readonly PlannedComponent[] = [],
    record = false,
  ): Finding[] {
    const judged = relevantPart(state, changed);
    this.judgedEntries += judged.entries.length;
    if (this.judgedEntries > MAX_JUDGED_ENTRIES) {
      throw new InputError(
        `current.components is too large to plan to ${minorWords(this.targetMinor)} in one request (${this.state.entries.length} entries); plan fewer instances at a time, or a nearer target first`,
        "current.components",
      );
    }
    const errors = judgePlan(this.snapshot, judged, this.profile, this.asOf, { errorsOnly: true });
    // Add-ons are moved by prepareAddonsFor, around the hop that needs it, and a platform's end of support is why
    // the cluster upgrades: neither blocks a step; both are remembered and said as "on the way".
    const passing = errors.filter((entry) => entry.check === "ADDON" || entry.check === "PLATFORM");
    if (record) for (const entry of passing) this.passing.set(sameFinding(entry), entry);
    return errors.filter((entry) => entry.check !== "ADDON" && entry.check !== "PLATFORM");
  }

  /** The errors of states on the way that do not block a step (see errorsOf). */
  get onTheWay(): Finding[] {
    return [...this.passing.values()];
  }

  /** The state after `changes`: each entry moved to its version, with what the input said of it (its nodes, its feature gates) kept. */
  private withChanges(changes: readonly Change[]): ClusterPlan {
    const replaced = new Map(changes.map((change) => [change.entry, change]));
    return {
      ...this.state,
      entries: this.state.entries.map((entry) => {
        const change = replaced.get(entry);
        if (change === undefined) return entry;
        const moved =
          change.to === entry.version
            ? entry
            : entry.addon === undefined
              ? plannedComponent(
                  this.component(entry.component),
                  entry.instance,
                  change.to,
                  entry.component,
                )
              : plannedAddon(entry.addon, entry.instance, change.to, entry.component);
        return withFactsOf(moved, {
          ...entry,
          node: change.node ?? entry.node,
          featureGates: change.featureGates ?? entry.featureGates,
        });
      }),
    };
  }

  /** The runtime requirements in force on the cluster's platform (upstream's, and the platform's own). */
  private get requirements(): readonly RuntimeRequirementRecord[] {
    return requirementsOn(this.snapshot, this.state.platform?.name ?? null);
  }

  private component(name: string): ComponentRecord {
    return this.snapshot.findComponent(name)!;
  }

  /** Applies one step (or a group done together); refuses any that leaves the cluster unsupported, naming the findings that block it. */
  private step(asked: readonly Change[], note: string, action: StepAction = "UPGRADE"): void {
    const dropped = action === "UPGRADE" && this.dropLockedGatesBefore(asked);
    // After a gate step, entries by their name in the state as it is now (that step replaced them).
    const changes = dropped
      ? asked.map((change) => ({
          ...change,
          entry:
            this.state.entries.find((entry) => label(entry) === label(change.entry)) ??
            change.entry,
        }))
      : asked;
    const next = this.withChanges(changes);
    const errors = this.errorsOf(
      next,
      changes.map(({ entry }) => entry),
      true,
    );
    if (errors.length > 0) {
      const what = changes.map(({ entry, to }) =>
        action === "MIGRATE_CGROUP_V2"
          ? `move the nodes of ${label(entry)} to cgroup v2`
          : action === "REMOVE_FEATURE_GATES"
            ? `drop feature gates from ${label(entry)}`
            : `move ${label(entry)} from ${entry.version} to ${to}`,
      );
      throw new Blocked(
        `cannot ${what.join(" and ")}: ${errors.map((error) => error.message).join(" ")}`,
        errors,
      );
    }
    this.order += 1;
    for (const { entry, to, featureGates } of changes) {
      const gates =
        action === "REMOVE_FEATURE_GATES"
          ? (featureGates ?? []).map((setting) => `${setting.name}=${setting.value}`).join(",")
          : null;
      const hop =
        action === "UPGRADE" &&
        entry.category === "apiserver" &&
        entry.kubernetes !== null &&
        minorIndex(to) !== minorIndex(entry.kubernetes);
      const undo = hop
        ? howToUndoHop(
            this.snapshot,
            this.state.platform,
            minorOf(entry.kubernetes),
            minorWords(minorIndex(to)),
          )
        : null;
      this.steps.push({
        order: this.order,
        action,
        component: entry.component,
        instance: entry.instance,
        fromVersion: entry.version,
        toVersion: to,
        note,
        featureGates: gates,
        undo,
      });
    }
    this.state = next;
  }

  /**
   * etcd goes first: to the version kubeadm deploys with the next minor, when the knowledge base knows it, along
   * etcd's own upgrade path (etcdWaypoints: the patch the next minor's guide asks for, then one minor at a time).
   * Each waypoint is a rolling upgrade: every member reaches it, one member at a time, before any member goes on.
   */
  private prepareEtcd(next: number): void {
    const members = this.state.entries.filter(
      (entry) => entry.component === "etcd" && entry.release !== null,
    );
    if (members.length === 0) return;
    const release = this.snapshot.findRelease(minorWords(next));
    if (release?.etcdVersion == null) {
      this.notes.push(
        finding({
          code: "ETCD_VERSION_UNVERIFIED",
          severity: "INFO",
          component: "etcd",
          message: `the knowledge base does not know which etcd ${minorWords(next)} ships with; check the ${minorWords(next)} release notes before upgrading etcd (before kube-apiserver)`,
          sourceUrl: release?.sourceUrl ?? this.snapshot.reference("releases"),
        }),
      );
      return;
    }
    const kubeadm = parseComponentVersion(release.etcdVersion);
    const wanted = parseComponentVersion(`${kubeadm.major}.${kubeadm.minor}.${kubeadm.patch}`);
    const oldest = members
      .map((member) => member.release!)
      .reduce((a, b) => (compareComponentVersions(b, a) < 0 ? b : a));
    if (compareComponentVersions(oldest, wanted) >= 0) return;
    for (const waypoint of etcdWaypoints(this.snapshot, oldest, wanted)) {
      const last = compareComponentVersions(waypoint, wanted) === 0;
      const line = `${waypoint.major}.${waypoint.minor}`;
      const why = last
        ? `etcd before kube-apiserver: kubeadm deploys etcd ${release.etcdVersion} with Kubernetes ${release.version}`
        : `etcd to ${waypoint.raw} (or the newest ${line} patch) on the way to ${wanted.raw}: etcd upgrades one minor at a time, and its guide asks every member to be on this patch or newer before the next minor`;
      for (const member of this.state.entries.filter(
        (entry) => entry.component === "etcd" && entry.release !== null,
      )) {
        if (compareComponentVersions(member.release!, waypoint) >= 0) continue;
        this.step(
          [{ entry: member, to: waypoint.raw }],
          `${why}; one member at a time${members.length > 1 ? ", checking etcdctl endpoint health before the next" : ""}`,
        );
      }
    }
  }

  /** Moves every pool that the next control-plane minor would leave out of skew, to the newest minor allowed now. */
  private prepareNodesFor(next: number): void {
    const oldestApiserver = Math.min(
      ...this.kubernetes("kube-apiserver").map((entry) => minorIndex(entry.kubernetes!)),
    );
    const preview = this.withChanges(
      this.kubernetes("kube-apiserver").map((entry) => ({
        entry,
        to: minorWords(Math.max(next, minorIndex(entry.kubernetes!))),
      })),
    );
    const troubled = new Set(
      this.errorsOf(preview)
        .filter((error) => error.component === "kubelet" || error.component === "kube-proxy")
        .map((error) => error.instance ?? ""),
    );
    // A platform that refuses a control-plane update while nodes are older (EKS) has every pool brought level first.
    const platform = this.state.platform;
    const levelling = platform?.rules.find((rule) => rule.plan === "NODES_MATCH_CONTROL_PLANE");
    const levellingWhy =
      platform === undefined || levelling === undefined
        ? undefined
        : `${platform.displayName} updates the control plane to ${minorWords(next)} only once the nodes are on its minor, ${minorWords(oldestApiserver)} (${levelling.id}: ${levelling.sourceUrl})`;
    for (const kubelet of this.kubernetes("kubelet")) {
      if (minorIndex(kubelet.kubernetes!) >= oldestApiserver) continue;
      if (troubled.has(kubelet.instance ?? "")) {
        this.moveNode(
          kubelet,
          oldestApiserver,
          `must move before kube-apiserver reaches ${minorWords(next)}; goes to ${minorWords(oldestApiserver)}, the newest minor allowed now, so the pool is touched as few times as possible`,
        );
      } else if (levellingWhy !== undefined) {
        this.moveNode(kubelet, oldestApiserver, levellingWhy);
      }
    }
    for (const proxy of this.kubernetes("kube-proxy")) {
      if (troubled.has(proxy.instance ?? "") && minorIndex(proxy.kubernetes!) < oldestApiserver) {
        this.step(
          [{ entry: proxy, to: this.versionFor(oldestApiserver) }],
          `must move before kube-apiserver reaches ${minorWords(next)}`,
        );
      }
    }
  }

  private prepareKubectlFor(next: number): void {
    for (const kubectl of this.kubernetes("kubectl")) {
      if (next - minorIndex(kubectl.kubernetes!) > 1) {
        const oldestApiserver = Math.min(
          ...this.kubernetes("kube-apiserver").map((entry) => minorIndex(entry.kubernetes!)),
        );
        this.step(
          [{ entry: kubectl, to: this.versionFor(oldestApiserver) }],
          "advice, not a cluster change: kubectl on operators' machines and in CI stays within one minor of kube-apiserver",
        );
      }
    }
  }

  /** Drains and moves one pool: its runtime first when the new kubelet needs it, then kubelet (with kube-proxy where they must move together). */
  private moveNode(kubelet: PlannedComponent, minor: number, why: string): void {
    this.prepareRuntimeFor(kubelet, minor);
    this.prepareCgroupFor(kubelet, minor);
    const current = this.state.entries.find(
      (entry) => entry.component === "kubelet" && entry.instance === kubelet.instance,
    )!;
    const to = this.versionFor(minor);
    const proxy = this.state.entries.find(
      (entry) => entry.component === "kube-proxy" && entry.instance === kubelet.instance,
    );
    const alone = this.withChanges([{ entry: current, to }]);
    const minors = minor - minorIndex(current.kubernetes!);
    // kubeadm upgrades a node one minor at a time in place: a bigger move is new nodes.
    const how =
      minors > 1
        ? `replace the node${kubelet.instance ? `s of ${kubelet.instance}` : "s"} with new ones (the kubelet moves ${minors} minors; in place, a node moves one minor at a time)`
        : `drain the node${kubelet.instance ? `s of ${kubelet.instance}` : "s"} first`;
    const note = `${how}; ${why}`;
    if (
      proxy !== undefined &&
      minorIndex(proxy.kubernetes!) < minor &&
      this.errorsOf(alone, [current]).some((error) => error.component === "kube-proxy")
    ) {
      this.step(
        [
          { entry: current, to },
          { entry: proxy, to },
        ],
        `${note}; kube-proxy moves with the kubelet (the policy in force ties them together)`,
      );
    } else {
      this.step([{ entry: current, to }], note);
    }
  }

  /**
   * Gates a component sets that the version it moves to no longer has are dropped first, in a step of their own,
   * where the setting is the value the gate had become (GA, deprecated or locked): the flag goes, the behaviour
   * stays. A gate set against that value is not dropped (that changes behaviour), nor one locked the other way:
   * the step after then fails with FEATURE_GATE_REMOVED or FEATURE_GATE_LOCKED, and the plan says so.
   */
  private dropLockedGatesBefore(changes: readonly Change[]): boolean {
    let dropped = false;
    for (const change of changes) {
      const entry = change.entry;
      if (
        entry.featureGates === undefined ||
        entry.kubernetes === null ||
        change.to === entry.version
      )
        continue;
      const minor = minorWords(minorIndex(change.to));
      const droppable = entry.featureGates.filter(
        (setting) => lockedValueAt(this.snapshot, setting.name, minor) === setting.value,
      );
      if (droppable.length === 0) continue;
      const kept = entry.featureGates.filter((setting) => !droppable.includes(setting));
      this.step(
        [{ entry, to: entry.version, featureGates: kept }],
        `drop ${droppable.map((setting) => `${setting.name}=${setting.value}`).join(", ")} from ${label(entry)}'s --feature-gates before it goes to ${minor}: ${minor} no longer takes ${droppable.length === 1 ? "this gate" : "these gates"} (removed, or locked to the value set), so the setting goes and the behaviour stays`,
        "REMOVE_FEATURE_GATES",
      );
      dropped = true;
    }
    return dropped;
  }

  /**
   * A pool on cgroup v1 whose kubelet would not start at `minor` (failCgroupV1, from 1.35) moves to cgroup v2
   * first: a step of its own, judged like any other, before the kubelet moves. Setting failCgroupV1: false
   * instead only postpones it (cgroup v1 support is in maintenance and its removal is planned), so the plan
   * does not choose that; the finding of the step's note says it is possible.
   */
  private prepareCgroupFor(kubelet: PlannedComponent, minor: number): void {
    const current = this.state.entries.find(
      (entry) => entry.component === "kubelet" && entry.instance === kubelet.instance,
    )!;
    const node = current.node;
    if (node === undefined || node.cgroupVersion !== "v1") return;
    const moved = plannedComponent(
      this.component("kubelet"),
      current.instance,
      this.versionFor(minor),
      "kubelet",
    );
    const refused = checkKubeletCgroup(
      this.snapshot,
      { ...moved, kubernetes: moved.kubernetes! },
      node,
    ).find((entry) => entry.severity === "ERROR");
    if (refused === undefined) return;
    this.step(
      [
        {
          entry: current,
          to: current.version,
          node: { cgroupVersion: "v2", failCgroupV1: node.failCgroupV1 },
        },
      ],
      `move the node${kubelet.instance === null ? "s" : `s of ${kubelet.instance}`} to cgroup v2 (a node image or OS that mounts cgroup v2; new nodes, or a reboot with systemd.unified_cgroup_hierarchy=1) before the kubelet goes to ${minorWords(minor)}: ${refused.message}`,
      "MIGRATE_CGROUP_V2",
    );
  }

  /**
   * The release line a runtime should be on for the whole of its pool's way, from the kubelet's minor today to
   * `wayEnd`: a line that validate finds nothing against (no requirement, recommendation or ending support of
   * the runtime's table unmet) at every kubelet minor of the way, and that is released and not past its own end
   * of life on the plan's day. The current line when it is such a line (at the highest floor on the way), else
   * a line in its project's active support before one in extended support (whose scope is often one platform's
   * minors), the oldest first. Null when the runtime already is there; undefined when no known line covers the
   * whole way (the minor-by-minor choice of runtimeTarget applies then, and the end state says what is left).
   */
  private lineForWholePath(
    runtime: PlannedComponent,
    kubelet: PlannedComponent,
    wayEnd: number,
  ): { version: string; why: string } | null | undefined {
    const lines = this.snapshot.runtimeReleases.filter(
      (release) => release.component === runtime.component,
    );
    const release = runtime.release;
    if (lines.length === 0 || release === null) return undefined;
    const served = this.state.entries.filter(
      (entry) =>
        entry.component === "kubelet" &&
        entry.kubernetes !== null &&
        (entry.instance === runtime.instance || runtime.instance === null),
    );
    const from = Math.min(
      minorIndex(kubelet.kubernetes!),
      ...served.map((entry) => minorIndex(entry.kubernetes!)),
    );
    const minors = Array.from({ length: Math.max(0, wayEnd - from) + 1 }, (_, step) => from + step);
    const kubeletRecord = this.component("kubelet");
    const runtimeRecord = this.component(runtime.component);
    const clean = (version: string): boolean => {
      const candidate = plannedComponent(
        runtimeRecord,
        runtime.instance,
        version,
        runtime.component,
      );
      if (checkRuntimeEndOfLife(this.snapshot, candidate, this.asOf).length > 0) return false;
      return minors.every((at) => {
        const pair: ClusterPlan = {
          entries: [
            candidate,
            plannedComponent(kubeletRecord, runtime.instance, this.versionFor(at), "kubelet"),
          ],
          ...(this.state.platform === undefined ? {} : { platform: this.state.platform }),
        };
        return checkRuntimes(this.snapshot, pair).every((entry) => entry.severity === "INFO");
      });
    };
    const floors = this.requirements
      .filter(
        (requirement) =>
          requirement.component === runtime.component &&
          minorIndex(requirement.kubernetesFrom) <= wayEnd,
      )
      .flatMap((requirement) => [
        ...requirement.lineMinVersions,
        ...(requirement.minVersion === null ? [] : [requirement.minVersion]),
      ])
      .map((floor) => parseComponentVersion(floor));
    const versionOn = (line: string): ComponentVersion => {
      const [major, minor] = line.split(".").map(Number) as [number, number];
      const onLine = [
        ...floors.filter((floor) => floor.major === major && floor.minor === minor),
        ...(release.major === major && release.minor === minor ? [release] : []),
      ];
      return onLine.length === 0
        ? parseComponentVersion(`${line}.0`)
        : onLine.reduce((a, b) => (compareComponentVersions(b, a) > 0 ? b : a));
    };
    const currentLine = `${release.major}.${release.minor}`;
    const inActiveSupport = (line: RuntimeReleaseRecord): boolean =>
      line.endOfActiveSupport === null || line.endOfActiveSupport >= this.asOf;
    const candidates = lines
      .filter(
        (line) => !line.tentative && (line.releaseDate === null || line.releaseDate <= this.asOf),
      )
      .map((line) => ({ line, version: versionOn(line.line) }))
      .filter(({ version }) => compareComponentVersions(version, release) >= 0)
      .sort(
        (a, b) =>
          Number(b.line.line === currentLine) - Number(a.line.line === currentLine) ||
          Number(inActiveSupport(b.line)) - Number(inActiveSupport(a.line)) ||
          compareComponentVersions(a.version, b.version),
      );
    const chosen = candidates.find(({ version }) => clean(version.raw));
    if (chosen === undefined) return undefined;
    if (compareComponentVersions(chosen.version, release) === 0) return null;
    const way = `Kubernetes ${minorWords(minors[0]!)}${minors.length > 1 ? ` to ${minorWords(minors.at(-1)!)}` : ""}`;
    const support = inActiveSupport(chosen.line)
      ? "in its project's active support"
      : `in extended support only (${chosen.line.extendedSupportScope ?? "limited scope"})`;
    return {
      version: chosen.version.raw,
      why: `${runtime.component} ${chosen.line.line} meets every requirement and recommendation of ${runtime.component}'s table for ${way} and is ${support} on ${this.asOf}, so the pool moves its runtime once; use the newest patch of the ${chosen.line.line} line`,
    };
  }

  /** The runtime's next version by its requirements and table at `minor` (runtimeTarget), when no line covers the whole way. */
  private minorByMinor(
    runtime: PlannedComponent,
    kubelet: PlannedComponent,
    minor: number,
    wayEnd: number,
  ): { version: string; why: string } | null {
    const inForce = this.requirements.filter(
      (requirement) =>
        requirement.component === runtime.component &&
        minorIndex(requirement.kubernetesFrom) <= minor,
    );
    const rows = this.requirements.filter(
      (requirement) =>
        requirement.component === runtime.component &&
        requirement.kind === "RECOMMENDED_MIN_VERSION",
    );
    const lines = this.snapshot.runtimeReleases.filter(
      (release) => release.component === runtime.component,
    );
    // Support that ends anywhere on the way (containerd 1.x from 1.34) rules the line out from the first step, so the
    // pool moves its runtime once rather than onto a line it must leave again a few minors later.
    const endings = this.requirements
      .filter(
        (requirement) =>
          requirement.component === runtime.component &&
          requirement.kind === "SUPPORT_ENDING" &&
          requirement.minVersion !== null &&
          minorIndex(requirement.kubernetesFrom) <= wayEnd,
      )
      .map((requirement) => parseComponentVersion(requirement.minVersion))
      .filter(
        (floor) => runtime.release !== null && compareComponentVersions(runtime.release, floor) < 0,
      );
    const endingBelow =
      endings.length === 0
        ? null
        : endings.reduce((a, b) => (compareComponentVersions(b, a) > 0 ? b : a));
    return runtimeTarget(runtime, inForce, minor, this.state, kubelet, rows, wayEnd, {
      lines,
      asOf: this.asOf,
      endingBelow,
    });
  }

  private prepareRuntimeFor(kubelet: PlannedComponent, minor: number): void {
    const runtimes = this.state.entries.filter(
      (entry) =>
        (entry.category === "container-runtime" || entry.category === "runtime-shim") &&
        (entry.instance === kubelet.instance ||
          (entry.instance === null &&
            !this.state.entries.some(
              (other) =>
                other.category === entry.category &&
                other.instance === kubelet.instance &&
                other.instance !== null,
            ))),
    );
    const wayEnd = Math.max(minor, this.targetMinor);
    for (const runtime of runtimes) {
      // One line for the whole way when there is one; else the minor-by-minor choice of the runtime's table.
      const whole = this.lineForWholePath(runtime, kubelet, wayEnd);
      const wanted =
        whole !== undefined ? whole : this.minorByMinor(runtime, kubelet, minor, wayEnd);
      if (wanted === null) continue;
      this.step([{ entry: runtime, to: wanted.version }], `runtime before kubelet: ${wanted.why}`);
    }
  }
}

/** One change of a step: an entry to a version (its own, when only its nodes or gates change), and its nodes' facts or gates after it. */
interface Change {
  readonly entry: PlannedComponent;
  readonly to: string;
  readonly node?: NodeFacts;
  readonly featureGates?: readonly GateSetting[];
}

/**
 * The value a gate removed by `minor` was fixed to before it went (its last stage's, when that stage was GA,
 * deprecated or locked): setting it to that value changed nothing, so the setting can go. Undefined when the
 * gate still exists at `minor`, or its last value was still a choice.
 */
function lockedValueAt(snapshot: KbSnapshot, name: string, minor: string): boolean | undefined {
  const gate = findGate(snapshot, name);
  if (gate === undefined || gate.removedIn === null || compareMinors(gate.removedIn, minor) > 0)
    return undefined;
  const last = gate.stages.at(-1)!;
  return last.locked || last.stage === "GA" || last.stage === "DEPRECATED"
    ? last.defaultValue
    : undefined;
}

function relevantPart(state: ClusterPlan, changed: readonly PlannedComponent[]): ClusterPlan {
  // The apiservers, etcd's members and entries without an instance are judged against their peers and everything else.
  if (
    changed.length === 0 ||
    changed.some(
      (entry) =>
        entry.component === "kube-apiserver" ||
        entry.category === "datastore" ||
        entry.instance === null,
    )
  )
    return state;
  const instances = new Set(changed.map((entry) => entry.instance));
  return {
    ...state,
    entries: state.entries.filter(
      (entry) =>
        entry.component === "kube-apiserver" ||
        entry.instance === null ||
        instances.has(entry.instance),
    ),
  };
}

/** The runtime's own release lines and the day the plan is judged on, so that a plan does not move a runtime onto a dead line. */
interface RuntimeLines {
  readonly lines: readonly RuntimeReleaseRecord[];
  readonly asOf: string;
  /** The lowest version that support is not ending for (a SUPPORT_ENDING requirement in force), if any. */
  readonly endingBelow?: ComponentVersion | null;
}

/**
 * The version the runtime's own table lists for every kubelet minor from
 * `minor` up to the plan's target: its current release line when the table
 * lists that line all the way (at the highest floor on the way) and the line
 * is not past its own end of life on the plan's day, else the oldest line
 * listed all the way that is still supported (else the oldest listed all the
 * way, else at the target). Null when the runtime already meets it, or the
 * table says nothing. A later kubelet step asks again, so a pool that has to
 * cross a minor only dead lines are listed for moves on to a live line as
 * soon as its table lists one for the rest of the way.
 */
function listedTarget(
  runtime: PlannedComponent,
  rows: readonly RuntimeRequirementRecord[],
  minor: number,
  targetMinor: number,
  { lines, asOf, endingBelow = null }: RuntimeLines,
): { version: string; why: string } | null {
  const release = runtime.release!;
  const rowAt = (at: number): RuntimeRequirementRecord | undefined =>
    rows
      .filter((row) => minorIndex(row.kubernetesFrom) <= at)
      .reduce<
        RuntimeRequirementRecord | undefined
      >((newest, row) => (newest === undefined || minorIndex(row.kubernetesFrom) > minorIndex(newest.kubernetesFrom) ? row : newest), undefined);
  const path = [
    ...new Set(
      Array.from({ length: Math.max(0, targetMinor - minor) + 1 }, (_, step) =>
        rowAt(minor + step),
      ).filter((row): row is RuntimeRequirementRecord => row !== undefined),
    ),
  ];
  if (path.length === 0) return null;
  const floorsOf = (row: RuntimeRequirementRecord): ComponentVersion[] =>
    (row.lineMinVersions.length > 0
      ? row.lineMinVersions
      : row.minVersion === null
        ? []
        : [row.minVersion]
    ).map((floor) => parseComponentVersion(floor));
  const lineOf = (version: ComponentVersion): string => `${version.major}.${version.minor}`;
  const floorFor = (line: string): ComponentVersion | null => {
    let highest: ComponentVersion | null = null;
    for (const row of path) {
      const floor = floorsOf(row).find((candidate) => lineOf(candidate) === line);
      if (floor === undefined) return null;
      if (highest === null || compareComponentVersions(floor, highest) > 0) highest = floor;
    }
    return highest;
  };
  const alive = (line: string): boolean => {
    const known = lines.find((candidate) => candidate.line === line);
    const lastDay = known === undefined ? null : lastSupportedDay(known);
    if (lastDay !== null && asOf > lastDay) return false;
    // Nor can a plan move to a line that is not released yet on its day.
    if (known !== undefined && known.releaseDate !== null && known.releaseDate > asOf) return false;
    // A line whose support the kubelet is ending (containerd 1.x from 1.34) is as good as dead for the plan.
    return (
      endingBelow === null ||
      compareComponentVersions(parseComponentVersion(`${line}.999999`), endingBelow) >= 0
    );
  };
  let chosen = floorFor(lineOf(release));
  let leftDeadLine = false;
  if (chosen === null || !alive(lineOf(release))) {
    const everywhere = floorsOf(path[path.length - 1]!)
      .filter((floor) => floorFor(lineOf(floor)) !== null)
      .sort(compareComponentVersions);
    const live = everywhere.filter(
      (floor) => alive(lineOf(floor)) && compareComponentVersions(floor, release) > 0,
    );
    const line =
      live[0] ??
      (chosen === null
        ? (everywhere[0] ?? floorsOf(path[path.length - 1]!).sort(compareComponentVersions)[0])
        : undefined);
    if (line !== undefined) {
      leftDeadLine = chosen !== null;
      chosen = floorFor(lineOf(line)) ?? line;
    }
  }
  if (chosen === null || compareComponentVersions(release, chosen) >= 0) return null;
  const deadBecause = (line: string): string =>
    endingBelow !== null &&
    compareComponentVersions(parseComponentVersion(`${line}.999999`), endingBelow) < 0
      ? `support for the ${line} line is ending: the kubelet wants ${endingBelow.raw} or newer`
      : `the ${line} line is past its own end of life on ${asOf}`;
  const first = path[0]!.kubernetesFrom;
  const last = path[path.length - 1]!.kubernetesFrom;
  return {
    version: chosen.raw,
    why: `${runtime.component}'s own table lists ${chosen.raw} or newer on the ${lineOf(chosen)} line for Kubernetes ${first === last ? first : `${first} to ${last}`} (${path.map((row) => row.id).join(", ")}); use the newest patch of that line${leftDeadLine ? ` (${deadBecause(lineOf(release))})` : ""}`,
  };
}

function runtimeTarget(
  runtime: PlannedComponent,
  inForce: RuntimeRequirementRecord[],
  minor: number,
  state: ClusterPlan,
  kubelet: PlannedComponent,
  rows: readonly RuntimeRequirementRecord[],
  targetMinor: number,
  lines: RuntimeLines,
): { version: string; why: string } | null {
  const release = runtime.release!;
  for (const requirement of inForce) {
    if (requirement.kind === "REQUIRES_SHIM") {
      const hasShim = state.entries.some(
        (entry) =>
          entry.component === requirement.requires &&
          (entry.instance === runtime.instance || entry.instance === null),
      );
      if (!hasShim) {
        throw new Blocked(
          `${label(kubelet)} cannot move to ${minorWords(minor)} with ${label(runtime)}: from ${requirement.kubernetesFrom} the kubelet has no dockershim, so Docker Engine needs ${requirement.requires}. Add ${requirement.requires} or move the pool to containerd or CRI-O, then plan again.`,
        );
      }
    }
  }
  const minimums = inForce
    .filter((requirement) => requirement.kind === "MIN_VERSION" && requirement.minVersion !== null)
    .map((requirement) => ({ requirement, version: parseComponentVersion(requirement.minVersion) }))
    .filter(({ version }) => compareComponentVersions(release, version) < 0);
  const listed = listedTarget(runtime, rows, minor, targetMinor, lines);
  if (minimums.length > 0) {
    const highest = minimums.reduce((a, b) =>
      compareComponentVersions(b.version, a.version) > 0 ? b : a,
    );
    // The bare minimum would leave the runtime below its own table: go to what the table lists when that is higher.
    if (
      listed !== null &&
      compareComponentVersions(parseComponentVersion(listed.version), highest.version) > 0
    )
      return listed;
    return {
      version: highest.version.raw,
      why: `${runtime.component} ${highest.requirement.minVersion} or newer is required from Kubernetes ${highest.requirement.kubernetesFrom} (${highest.requirement.id})`,
    };
  }
  if (listed !== null) return listed;
  if (
    inForce.some((requirement) => requirement.kind === "MATCH_KUBERNETES_MINOR") &&
    (release.major !== 1 || release.minor !== minor % 1000)
  ) {
    return {
      version: minorWords(minor),
      why: `${runtime.component} minors track Kubernetes minors`,
    };
  }
  return null;
}

function crossedRequirements(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  from: number,
  to: number,
): Finding[] {
  const present = new Set(plan.entries.map((entry) => entry.component));
  const anyRuntime = plan.entries.some(
    (entry) => entry.category === "container-runtime" || entry.category === "runtime-shim",
  );
  return snapshot.runtimeRequirements
    .filter(
      (requirement) =>
        minorIndex(requirement.kubernetesFrom) > from &&
        minorIndex(requirement.kubernetesFrom) <= to,
    )
    .filter((requirement) => requirement.kind !== "RECOMMENDED_MIN_VERSION")
    .filter(
      (requirement) =>
        present.has(requirement.component) || (!anyRuntime && requirement.component !== "etcd"),
    )
    .map((requirement) =>
      finding({
        code: "RUNTIME_REQUIREMENT_IN_UPGRADE",
        severity: "INFO",
        component: requirement.component,
        message: `from Kubernetes ${requirement.kubernetesFrom}: ${requirement.summary}`,
        sourceUrl: requirement.sourceUrl,
        ruleId: requirement.id,
      }),
    );
}

function recommendations(
  snapshot: KbSnapshot,
  plan: ClusterPlan,
  from: number,
  to: number,
): Finding[] {
  if (
    to <= from &&
    plan.entries.every((entry) => entry.kubernetes === null || minorIndex(entry.kubernetes) >= to)
  )
    return [];
  const present = new Set(plan.entries.map((entry) => entry.component));
  return snapshot.recommendations
    .filter((recommendation) =>
      recommendation.components.some(
        (component) => present.has(component) || component === "kube-apiserver",
      ),
    )
    .filter(
      (recommendation) =>
        (recommendation.appliesFrom === null || minorIndex(recommendation.appliesFrom) <= to) &&
        (recommendation.appliesUntil === null || minorIndex(recommendation.appliesUntil) > from),
    )
    .map((recommendation) =>
      finding({
        code: "RECOMMENDATION",
        severity: "INFO",
        component: recommendation.components[0] ?? null,
        message: `${recommendation.title}: ${recommendation.text}`,
        sourceUrl: recommendation.sourceUrl,
        ruleId: recommendation.id,
      }),
    );
}
