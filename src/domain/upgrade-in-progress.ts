/**
 * An upgrade plan being made: the cluster as the steps so far leave it, the steps themselves and the notes
 * gathered on the way. Every step is judged before it is taken, by the same code as validateCluster (only the
 * part of the cluster it can affect), and a step that would leave the cluster unsupported is refused with
 * Blocked; the steps of each part of the cluster (upgrade-control-plane, upgrade-nodes, upgrade-runtimes,
 * upgrade-addons) all go through step().
 */
import { InputError } from "../core/errors.js";
import type { ComponentRecord, RuntimeRequirementRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import {
  label,
  plannedAddon,
  plannedComponent,
  withFactsOf,
  type ClusterPlan,
  type NodeFacts,
  type PlannedComponent,
} from "./cluster-plan.js";
import { requirementsOn } from "./runtime-checks.js";
import { findGate, type GateSetting } from "./feature-gates.js";
import { howToUndoHop } from "./platform-rollback.js";
import type { Finding } from "./findings.js";
import { judgePlan } from "./validate.js";
import {
  compareMinors,
  formatVersion,
  minorIndex,
  minorOf,
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

/** A step the planner cannot take: the message says why, the findings are what blocks it (validate's own). */
export class Blocked extends Error {
  constructor(
    message: string,
    readonly blocking: readonly Finding[] = [],
  ) {
    super(message);
  }
}

/**
 * How many plan entries the planner may judge for one plan, summed over its
 * steps: a bound on the work of one request, far above what the largest
 * allowed plan with a real target needs once steps are judged locally.
 */
const MAX_JUDGED_ENTRIES = 2_000_000;

/** A minor index (major * 1000 + minor, as minorIndex gives it) as it is written: 1.30. */
export function minorWords(index: number): string {
  return `${Math.floor(index / 1000)}.${index % 1000}`;
}

/**
 * Findings that say the same thing: of the same entry (a "now:" or "on the way:" finding the end state repeats),
 * or, for a platform's calendar, of the same minor, whichever entries a state has at it (the row is the rule).
 */
export function sameFinding(entry: Finding): string {
  return entry.check === "PLATFORM" && entry.ruleId !== null
    ? `${entry.code}|${entry.ruleId}`
    : `${entry.code}|${entry.component}|${entry.instance}|${entry.ruleId}|${entry.message.replace(/^(now|on the way): /, "")}`;
}

/** One change of a step: an entry to a version (its own, when only its nodes or gates change), and its nodes' facts or gates after it. */
interface Change {
  readonly entry: PlannedComponent;
  readonly to: string;
  readonly node?: NodeFacts;
  readonly featureGates?: readonly GateSetting[];
}

/**
 * The plan so far: the cluster as its steps leave it (state), the steps, and notes (findings a step adds, such
 * as an add-on no known version carries). Steps are only added through step(), which judges them first.
 */
export class PlanInProgress {
  readonly steps: UpgradeStep[] = [];
  readonly notes: Finding[] = [];
  state: ClusterPlan;
  readonly targetMinor: number;
  private order = 0;
  private judgedEntries = 0;
  private readonly passing = new Map<string, Finding>();

  constructor(
    readonly snapshot: KbSnapshot,
    initial: ClusterPlan,
    readonly profile: string,
    readonly asOf: string,
    readonly target: KubernetesVersion,
  ) {
    this.state = initial;
    this.targetMinor = minorIndex(target);
  }

  /** Control-plane components other than the apiserver and etcd: they follow kube-apiserver within each minor. */
  isController(component: string): boolean {
    const category = this.snapshot.findComponent(component)?.category;
    return category === "controller" || category === "scheduler";
  }

  /** The entries of a Kubernetes component (those that carry a Kubernetes version), as the plan has them now. */
  kubernetes(component: string): PlannedComponent[] {
    return this.state.entries.filter(
      (entry) => entry.component === component && entry.kubernetes !== null,
    );
  }

  /** The version to write for a minor: the target as given, else the newest patch the knowledge base knows. */
  versionFor(minor: number): string {
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
  errorsOf(
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
  withChanges(changes: readonly Change[]): ClusterPlan {
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
  get requirements(): readonly RuntimeRequirementRecord[] {
    return requirementsOn(this.snapshot, this.state.platform?.name ?? null);
  }

  component(name: string): ComponentRecord {
    return this.snapshot.findComponent(name)!;
  }

  /** Applies one step (or a group done together); refuses any that leaves the cluster unsupported, naming the findings that block it. */
  step(asked: readonly Change[], note: string, action: StepAction = "UPGRADE"): void {
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
   * Gates a component sets that the version it moves to no longer has are dropped first, in a step of their own,
   * where the setting is the value the gate had become (GA, deprecated or locked): the flag goes, the behaviour
   * stays. A gate set against that value is not dropped (that changes behaviour), nor one locked the other way:
   * the step after then fails with FEATURE_GATE_REMOVED or FEATURE_GATE_LOCKED, and the plan says so.
   */
  dropLockedGatesBefore(changes: readonly Change[]): boolean {
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
