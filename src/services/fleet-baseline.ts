/**
 * The baseline mode for CI: a cluster's new state compared with a snapshot of
 * it kept by the fleet (its newest, or one named by id), both judged with
 * today's knowledge, so a pipeline fails only on what its change brought.
 */
import { NotFoundError } from "../core/errors.js";
import type { Database } from "../db/client.js";
import { readCluster, readSnapshot } from "../db/fleet-store.js";
import { compareWithBaseline, type BaselineComparison } from "../domain/fleet-baseline.js";
import type { ClusterState } from "../domain/fleet.js";
import type { KnowledgeBase } from "./knowledge-base.js";

export interface BaselineAnswer extends BaselineComparison {
  readonly cluster: string;
  readonly baseline: {
    readonly snapshot: number;
    readonly takenAt: string;
    readonly source: string;
  };
  readonly kbRevision: number;
  readonly asOf: string;
}

export async function checkAgainstBaseline(
  from: { readonly db: Database; readonly kb: KnowledgeBase; readonly asOf: string },
  name: string,
  state: ClusterState,
  snapshotId: number | undefined,
): Promise<BaselineAnswer> {
  const entry = await readCluster(from.db, name);
  if (entry === undefined) throw new NotFoundError(`no cluster named ${name} is registered`);
  const baseline =
    snapshotId === undefined
      ? entry.snapshot
      : await readSnapshot(from.db, entry.cluster.id, snapshotId);
  if (baseline === undefined)
    throw new NotFoundError(
      snapshotId === undefined
        ? `${name} has no snapshot to compare with; register its state first`
        : `${name} has no snapshot ${snapshotId} (GET /api/v1/clusters/${name} lists its snapshots)`,
    );
  const snapshot = from.kb.current();
  return {
    cluster: name,
    baseline: {
      snapshot: baseline.id,
      takenAt: baseline.takenAt.toISOString(),
      source: baseline.source,
    },
    kbRevision: snapshot.revision,
    asOf: from.asOf,
    ...compareWithBaseline(snapshot, baseline.state, state, from.asOf),
  };
}
