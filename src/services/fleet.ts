/**
 * The fleet: clusters registered with their state, judged again whenever the
 * knowledge base gets a new revision or the day changes, events when what a
 * team must hear changed, and their delivery to the subscriptions that
 * select them. Judging is the domain's (src/domain/fleet.ts); storing is
 * src/db/fleet-store.ts's; delivering is src/services/fleet-delivery.ts's.
 *
 * Replicas: every replica watches its own snapshot and the clock and judges
 * the fleet; each cluster's judgement is written under that cluster's lock
 * and compared with the newest stored one there, so a change judged by two
 * replicas is written, and its events delivered, once.
 */
import { InputError, NotFoundError } from "../core/errors.js";
import type { FleetConfig } from "../core/fleet-config.js";
import type { Logger } from "../core/logger.js";
import type { Database } from "../db/client.js";
import {
  deleteCluster,
  readCluster,
  readEvents,
  readFleet,
  readJudgements,
  readKnowledgeChanges,
  readSnapshotList,
  saveClusterState,
  writeJudgement,
  type EnqueueDeliveries,
  type JudgementDecision,
  type StoredCluster,
  type StoredJudgement,
  type StoredSnapshot,
} from "../db/fleet-store.js";
import {
  createWaiver,
  deleteWaiver,
  readSubscriptions,
  readWaivers,
  type StoredSubscription,
  type StoredWaiver,
} from "../db/fleet-subscription-store.js";
import { parseAsOf, today } from "../domain/days.js";
import { isFindingCode } from "../domain/findings.js";
import {
  countdown,
  judgeFleetCluster,
  judgementFingerprint,
  type ClusterJudgement,
  type ClusterState,
  type FleetMember,
  type Waiver,
} from "../domain/fleet.js";
import {
  eventsBetween,
  subscriptionWants,
  type JudgementCause,
  type SubscriptionFilters,
} from "../domain/fleet-events.js";
import { planUpgradeFromKubectl } from "../domain/from-kubectl.js";
import { planUpgrade } from "../domain/upgrade.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { FleetAlerts } from "./fleet-alerts.js";
import { checkAgainstBaseline, type BaselineAnswer } from "./fleet-baseline.js";
import type { KnowledgeBase } from "./knowledge-base.js";

export interface Registration extends FleetMember {
  /** components, kubectl or bundle: how the state was given. */
  readonly source: string;
  readonly state: ClusterState;
}

/** A cluster as lists and pages show it: its judgement, with days counted on the day asked. */
export interface ClusterView {
  readonly name: string;
  readonly environment: string;
  readonly owner: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly registeredAt: string;
  readonly snapshot: {
    readonly id: number;
    readonly source: string;
    readonly takenAt: string;
  } | null;
  readonly judgement: (ClusterJudgement & { readonly judgedAt: string }) | null;
  readonly daysLeft: number | null;
  readonly daysToStart: number | null;
}

export interface FleetServiceOptions {
  readonly db: Database;
  readonly kb: KnowledgeBase;
  readonly config: FleetConfig;
  readonly enqueue: EnqueueDeliveries;
  readonly logger: Logger;
  /** Today, YYYY-MM-DD (tests move it). */
  readonly clock?: () => string;
}

const MAX_KNOWLEDGE_CHANGES = 20;

function member(cluster: StoredCluster): FleetMember {
  return {
    name: cluster.name,
    environment: cluster.environment,
    owner: cluster.owner,
    labels: cluster.labels,
  };
}

export class FleetService {
  private readonly clock: () => string;
  private passing: Promise<void> | undefined;
  private again = false;
  private stopWatching: (() => void) | undefined;
  private dayTimer: NodeJS.Timeout | undefined;
  private lastPassDay = "";

  /** Subscriptions and what became of their deliveries. */
  readonly alerts: FleetAlerts;

  constructor(private readonly options: FleetServiceOptions) {
    this.clock = options.clock ?? today;
    this.alerts = new FleetAlerts(options.db, options.enqueue);
  }

  get environments(): readonly string[] {
    return this.options.config.environments.map((entry) => entry.environment);
  }

  today(): string {
    return this.clock();
  }

  /** Judges the fleet on every new revision of this instance's snapshot and, once a minute, when the day changed. */
  start(checkEveryMs = 60_000): void {
    this.stopWatching = this.options.kb.watch(() => void this.trigger());
    this.dayTimer = setInterval(() => {
      if (this.clock() !== this.lastPassDay) void this.trigger();
    }, checkEveryMs);
    this.dayTimer.unref();
    void this.trigger();
  }

  async stop(): Promise<void> {
    this.stopWatching?.();
    clearInterval(this.dayTimer);
    this.again = false;
    await this.passing?.catch(() => undefined);
  }

  /** Runs a pass now; triggers during a pass make one more pass after it. */
  trigger(): Promise<void> {
    if (this.passing !== undefined) {
      this.again = true;
      return this.passing;
    }
    this.passing = this.judgeFleet()
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error },
          "judging the fleet failed; the next change retries",
        ),
      )
      .finally(() => {
        this.passing = undefined;
        if (this.again) {
          this.again = false;
          void this.trigger();
        }
      });
    return this.passing;
  }

  /** Judges the fleet after a change of its own (a waiver), and answers once the pass that saw it is done. */
  private async judgedAgain(): Promise<void> {
    void this.trigger();
    await this.settled();
  }

  /** Waits for the running pass (and the one it queued), for tests and tools. */
  async settled(): Promise<void> {
    while (this.passing !== undefined) await this.passing;
  }

  private async judgeFleet(): Promise<void> {
    const snapshot = this.options.kb.current();
    const asOf = this.clock();
    const [fleet, waivers, subscriptions] = await Promise.all([
      readFleet(this.options.db),
      readWaivers(this.options.db),
      readSubscriptions(this.options.db),
    ]);
    const changes = new Map<number, JudgementCause["knowledgeChanges"]>();
    for (const { cluster, snapshot: state, judgement } of fleet) {
      if (state === undefined) continue;
      const from = judgement?.kbRevision ?? snapshot.revision;
      if (from < snapshot.revision && !changes.has(from))
        changes.set(
          from,
          await readKnowledgeChanges(
            this.options.db,
            from,
            snapshot.revision,
            MAX_KNOWLEDGE_CHANGES,
          ),
        );
      await this.judgeAndWrite(
        snapshot,
        asOf,
        cluster,
        state,
        waivers,
        subscriptions,
        (previous) => ({
          kind:
            previous.kbRevision !== snapshot.revision
              ? "knowledge"
              : previous.asOf !== asOf
                ? "calendar"
                : previous.snapshotId !== state.id
                  ? "snapshot"
                  : "waiver",
          kbRevision: { from: previous.kbRevision, to: snapshot.revision },
          asOf: { from: previous.asOf, to: asOf },
          knowledgeChanges: changes.get(previous.kbRevision) ?? [],
        }),
      );
    }
    this.lastPassDay = asOf;
  }

  /** Judges one cluster's state and writes the judgement and its events (see writeJudgement). */
  private async judgeAndWrite(
    snapshot: KbSnapshot,
    asOf: string,
    cluster: StoredCluster,
    state: StoredSnapshot,
    waivers: readonly Waiver[],
    subscriptions: readonly StoredSubscription[],
    causeOf: (previous: StoredJudgement) => JudgementCause,
  ): Promise<{ judgement: ClusterJudgement; eventIds: number[] }> {
    const who = member(cluster);
    const judgement = judgeFleetCluster(snapshot, who, state.state, {
      asOf,
      waivers,
      policy: this.options.config,
    });
    const fingerprint = judgementFingerprint(judgement);
    const decide = (previous: StoredJudgement | undefined): JudgementDecision => {
      if (previous === undefined)
        return {
          write: "new",
          status: judgement.status,
          summary: judgement,
          fingerprint,
          events: [],
        };
      // A replica with an older snapshot never writes over a newer judgement.
      if (previous.kbRevision > snapshot.revision) return { write: "none" };
      if (previous.fingerprint === fingerprint)
        return previous.kbRevision === snapshot.revision &&
          previous.asOf === asOf &&
          previous.snapshotId === state.id
          ? { write: "none" }
          : { write: "touch" };
      const drafts = eventsBetween(
        who,
        previous.summary as ClusterJudgement,
        judgement,
        causeOf(previous),
      );
      return {
        write: "new",
        status: judgement.status,
        summary: judgement,
        fingerprint,
        events: drafts.map((draft) => ({
          ...draft,
          subscriptionIds: subscriptions
            .filter((subscription) =>
              subscriptionWants(subscription.filters as SubscriptionFilters, who, draft.severity),
            )
            .map((subscription) => subscription.id),
        })),
      };
    };
    const written = await writeJudgement(
      this.options.db,
      { clusterId: cluster.id, snapshotId: state.id, kbRevision: snapshot.revision, asOf },
      decide,
      this.options.enqueue,
    );
    return { judgement, eventIds: written.eventIds };
  }

  /**
   * Registers a cluster (or submits a new state of one): the state is judged before anything is stored, so a
   * state the service cannot read is refused with what to fix and nothing is kept. A changed judgement of a
   * cluster already registered is an event like any other.
   */
  async register(registration: Registration): Promise<{ cluster: ClusterView; created: boolean }> {
    if (!this.environments.includes(registration.environment))
      throw new InputError(
        `environment "${registration.environment}" is not one of the fleet's environments (${this.environments.join(", ")}); FLEET_ENVIRONMENTS configures them`,
        "environment",
      );
    const snapshot = this.options.kb.current();
    const asOf = this.clock();
    const waivers = await readWaivers(this.options.db);
    // Refuses an unreadable state before anything is stored.
    const trial = judgeFleetCluster(snapshot, registration, registration.state, {
      asOf,
      waivers,
      policy: this.options.config,
    });
    if (trial.problem !== null) throw new InputError(trial.problem, "state");
    const saved = await saveClusterState(this.options.db, registration, {
      source: registration.source,
      state: registration.state,
    });
    const subscriptions = await readSubscriptions(this.options.db);
    await this.judgeAndWrite(
      snapshot,
      asOf,
      saved.cluster,
      saved.snapshot,
      waivers,
      subscriptions,
      (previous) => ({
        kind: "snapshot",
        kbRevision: { from: previous.kbRevision, to: snapshot.revision },
        asOf: { from: previous.asOf, to: asOf },
        knowledgeChanges: [],
      }),
    );
    return { cluster: await this.cluster(registration.name), created: saved.created };
  }

  private view(entry: Awaited<ReturnType<typeof readFleet>>[number]): ClusterView {
    const judgement =
      entry.judgement === undefined
        ? null
        : {
            ...(entry.judgement.summary as ClusterJudgement),
            kbRevision: entry.judgement.kbRevision,
            asOf: entry.judgement.asOf,
            judgedAt: entry.judgement.judgedAt.toISOString(),
          };
    const counted =
      judgement === null
        ? { daysLeft: null, daysToStart: null }
        : countdown(judgement, this.clock());
    return {
      name: entry.cluster.name,
      environment: entry.cluster.environment,
      owner: entry.cluster.owner,
      labels: entry.cluster.labels,
      registeredAt: entry.cluster.createdAt.toISOString(),
      snapshot:
        entry.snapshot === undefined
          ? null
          : {
              id: entry.snapshot.id,
              source: entry.snapshot.source,
              takenAt: entry.snapshot.takenAt.toISOString(),
            },
      judgement,
      ...counted,
    };
  }

  /** Every cluster, by environment in rollout order then name, optionally narrowed. */
  async list(
    filter: { environment?: string; owner?: string; label?: string } = {},
  ): Promise<ClusterView[]> {
    const order = this.environments;
    const [key, value] = filter.label === undefined ? [] : splitLabel(filter.label, "label");
    const fleet = (await readFleet(this.options.db)).filter(
      ({ cluster }) =>
        (filter.environment === undefined || cluster.environment === filter.environment) &&
        (filter.owner === undefined || cluster.owner === filter.owner) &&
        (key === undefined || cluster.labels[key] === value),
    );
    const rank = (environment: string) => {
      const index = order.indexOf(environment);
      return index === -1 ? order.length : index;
    };
    return fleet
      .map((entry) => this.view(entry))
      .sort((a, b) => rank(a.environment) - rank(b.environment) || a.name.localeCompare(b.name));
  }

  async cluster(name: string): Promise<ClusterView> {
    const entry = await readCluster(this.options.db, name);
    if (entry === undefined) throw new NotFoundError(`no cluster named ${name} is registered`);
    return this.view(entry);
  }

  /** A cluster with its plan to the newest minor, its verdicts over time, its snapshots and events. */
  async clusterDetail(name: string) {
    const entry = await readCluster(this.options.db, name);
    if (entry === undefined) throw new NotFoundError(`no cluster named ${name} is registered`);
    const view = this.view(entry);
    const target = view.judgement?.upgrade?.targetVersion;
    const state = entry.snapshot?.state as ClusterState | undefined;
    const snapshot = this.options.kb.current();
    const options = {
      asOf: this.clock(),
      profile: state?.profile,
      platform: state?.platform,
    };
    const plan =
      target === undefined || state === undefined || (view.judgement?.upgrade?.hops ?? 0) === 0
        ? null
        : state.components === undefined
          ? planUpgradeFromKubectl(snapshot, state, target, options)
          : planUpgrade(snapshot, state.components, target, options);
    const [history, snapshots, events] = await Promise.all([
      readJudgements(this.options.db, entry.cluster.id, 50),
      readSnapshotList(this.options.db, entry.cluster.id, 50),
      readEvents(this.options.db, { cluster: name, limit: 50 }),
    ]);
    return {
      ...view,
      plan,
      history: history.map((judgement) => ({
        status: judgement.status,
        kbRevision: judgement.kbRevision,
        asOf: judgement.asOf,
        judgedAt: judgement.judgedAt.toISOString(),
        blocking: (judgement.summary as ClusterJudgement).blocking.map((finding) => finding.code),
      })),
      snapshots: snapshots.map((row) => ({ ...row, takenAt: row.takenAt.toISOString() })),
      events,
    };
  }

  /** A new state compared with a snapshot of the cluster (its newest by default): only what is new. */
  baselineCheck(name: string, state: ClusterState, snapshotId?: number): Promise<BaselineAnswer> {
    const { db, kb } = this.options;
    return checkAgainstBaseline({ db, kb, asOf: this.clock() }, name, state, snapshotId);
  }

  async remove(name: string): Promise<void> {
    if (!(await deleteCluster(this.options.db, name)))
      throw new NotFoundError(`no cluster named ${name} is registered`);
  }

  events(query: { cluster?: string; before?: number; limit: number }) {
    return readEvents(this.options.db, query);
  }

  /** A waiver holds a finding out of the verdict until it expires; the fleet is judged again at once. */
  async waive(input: Omit<StoredWaiver, "id" | "createdAt">): Promise<StoredWaiver> {
    if ((input.clusterName === null) === (input.label === null))
      throw new InputError("a waiver names a cluster or a label (key=value), not both", "cluster");
    if (input.label !== null) splitLabel(input.label, "label");
    if (!isFindingCode(input.code))
      throw new InputError(
        `code ${input.code} is not a finding code the service gives; see GET /api/v1/finding-codes or docs/finding-codes.md`,
        "code",
      );
    const expiresOn = parseAsOf(input.expiresOn, "expiresOn");
    if (expiresOn < this.clock())
      throw new InputError(
        `expiresOn ${expiresOn} is already past (today is ${this.clock()}); a waiver ends on a day to come`,
        "expiresOn",
      );
    if (
      input.clusterName !== null &&
      (await readCluster(this.options.db, input.clusterName)) === undefined
    )
      throw new NotFoundError(`no cluster named ${input.clusterName} is registered`);
    const waiver = await createWaiver(this.options.db, input);
    await this.judgedAgain();
    return waiver;
  }

  waivers(): Promise<StoredWaiver[]> {
    return readWaivers(this.options.db);
  }

  async unwaive(id: number): Promise<void> {
    if (!(await deleteWaiver(this.options.db, id)))
      throw new NotFoundError(`no waiver has id ${id}`);
    await this.judgedAgain();
  }
}

function splitLabel(label: string, field: string): [string, string] {
  const at = label.indexOf("=");
  if (at <= 0)
    throw new InputError(`${field} "${label}" is not key=value, e.g. team=payments`, field);
  return [label.slice(0, at), label.slice(at + 1)];
}
