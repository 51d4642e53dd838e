/** What every resolver sees: the snapshot taken when the request started, so one answer never mixes revisions. */
import type { KbSnapshot } from "../kb/snapshot.js";

export interface GraphQLContext {
  readonly snapshot: KbSnapshot;
}
