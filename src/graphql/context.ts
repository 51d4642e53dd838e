/**
 * What every resolver sees: the snapshot taken when the request started (so
 * one answer never mixes revisions), the caller, and the curator for edits.
 */
import type { Principal } from "../core/tokens.js";
import type { Curator } from "../services/curation.js";
import type { FleetService } from "../services/fleet.js";
import type { ProposalReview } from "../services/proposals.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";

export interface GraphQLContext {
  /**
   * For a query that may be remembered, src/graphql/remembered-answers.ts puts a watching view of the
   * same snapshot here before execution (src/knowledge/snapshot-reads.ts): the one field that changes.
   */
  snapshot: KbSnapshot;
  readonly principal: Principal;
  /** Who rate limits count this request against: the token, else the client address. */
  readonly caller: string;
  /** Absent when the knowledge base is read-only. */
  readonly curator: Curator | undefined;
  /** The review queue of proposals; absent when the instance has no database. */
  readonly review: ProposalReview | undefined;
  /** The fleet; absent when the instance runs without one (its fields then answer UNAVAILABLE). */
  readonly fleet: FleetService | undefined;
  /** The day each kind's source was last read by the scheduled refresh (read once per request, when asked); undefined without a database. */
  readonly lastChecks: () => Promise<ReadonlyMap<string, string> | undefined>;
  /** The snapshot in force now: after an approval, newer than `snapshot`. */
  readonly latest: () => KbSnapshot;
  /** The request's X-Request-Id, for the log line of an internal error. */
  readonly requestId?: string | undefined;
}
