/**
 * How current the knowledge is, as the scheduled refresh left it: when each
 * upstream source was last read and with what outcome, and how many
 * proposals wait for a reviewer. Read when asked (metrics, coverage), not
 * kept in the snapshot: a refresh that finds nothing new changes no record.
 */
import type { Database } from "../db/client.js";
import { countOpenProposals } from "../db/proposal-store.js";
import { readSourceChecks, type SourceCheck } from "../db/source-checks.js";

export type { SourceCheck } from "../db/source-checks.js";

export interface RefreshState {
  readonly proposalsOpen: number;
  readonly sources: readonly SourceCheck[];
}

export class RefreshLedger {
  constructor(private readonly db: Database) {}

  async read(): Promise<RefreshState> {
    const [proposalsOpen, sources] = await Promise.all([
      countOpenProposals(this.db),
      readSourceChecks(this.db),
    ]);
    return { proposalsOpen, sources };
  }

  /** The day each kind of knowledge's source was last read successfully (the newest, where several sources speak about one kind). */
  async lastChecked(): Promise<ReadonlyMap<string, string>> {
    return lastCheckedByKind(await readSourceChecks(this.db));
  }
}

export function lastCheckedByKind(sources: readonly SourceCheck[]): ReadonlyMap<string, string> {
  const days = new Map<string, string>();
  for (const source of sources) {
    if (source.lastSuccessAt === null) continue;
    const day = source.lastSuccessAt.toISOString().slice(0, 10);
    for (const entity of source.entities) if ((days.get(entity) ?? "") < day) days.set(entity, day);
  }
  return days;
}
