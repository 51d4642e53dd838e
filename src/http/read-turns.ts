/**
 * Reads take turns with everything else on the event loop.
 *
 * Node.js handles every request that arrived in one pass of its event loop
 * before it looks at the network again. Under a flood of reads (32 pipelines
 * asking for checks at once) a pass holds dozens of them, tens of
 * milliseconds of work, and an edit, a liveness probe or a database answer
 * an edit is waiting for queues behind all of them at each of its steps: an
 * edit that costs 3 ms answered in 150, a /healthz probe timing out while
 * the service is merely busy.
 *
 * So reads (checks, lists, GraphQL, chat, pages) wait here, in arrival
 * order, and a few of them are let in per pass (`perTurn`); whatever else
 * arrived in the pass (edits, imports, probes, metrics scrapes, a database
 * answer) is handled in the same pass without waiting behind them. A read
 * let in runs to its end as before: a long scan, which gives the loop back
 * between its slices, does not hold a place, so it cannot keep short reads
 * waiting. Reads are not slower for it: the same work is done, in smaller
 * passes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { withoutQuery } from "./route-table.js";

export interface ReadTurnStats {
  /** Reads waiting for their turn now. */
  readonly waiting: number;
}

export interface ReadTurns {
  /**
   * Hands the request on (`go`) now, or in its turn when it is a read. Called
   * on the bare request, before the app touches it: a read waits as the
   * server parsed it, without the router's state and middleware closures
   * that would otherwise wait with it. Whatever a request holds while it
   * waits outlives the young generation's collections, which move it to
   * the old space, whose collections are the pauses an edit meets (under
   * 32 pipelines of checks: scavenges of 6-8 ms with reads waiting after
   * the first middleware, 3 ms with no turns).
   */
  admit(req: IncomingMessage, res: ServerResponse, go: () => void): void;
  stats(): ReadTurnStats;
}

interface Waiting {
  readonly res: ServerResponse;
  readonly go: () => void;
  readonly gaveUp: () => void;
  gone: boolean;
}

const ARRIVED = Symbol("kubecompat.arrived");
type Arrived = IncomingMessage & { [ARRIVED]?: bigint };

/** When the request was admitted (process.hrtime.bigint()): metrics and logs count a read's wait for its turn. */
export function arrivedAt(req: IncomingMessage): bigint {
  return (req as Arrived)[ARRIVED] ?? process.hrtime.bigint();
}

/**
 * @param perTurn reads let in per pass of the event loop; 0 lets every read in at once (no turns).
 * @param isRead whether a request (its method and its path, without the query) waits for its turn (anything else goes first).
 */
export function readTurns(
  perTurn: number,
  isRead: (method: string, path: string) => boolean,
): ReadTurns {
  // A read's slot is emptied as it is let in. The array lives long (it is cut back only when it runs empty or
  // grows large), so it is in the old space, and a young-generation collection keeps whatever an old object
  // points at: a slot still holding an answered read carried its request, its response and everything the
  // router hung on them into the old space, which cost a third of the reads' rate.
  const queue: Array<Waiting | undefined> = [];
  let head = 0;
  let scheduled = false;
  let waitingNow = 0;

  // setImmediate runs after the pass's network callbacks, and one scheduled from inside it runs in the next pass:
  // each pass lets in at most perTurn reads, and the network is looked at between passes.
  const letIn = (): void => {
    scheduled = false;
    let thisTurn = 0;
    while (thisTurn < perTurn && head < queue.length) {
      const waiting = queue[head]!;
      queue[head] = undefined;
      head += 1;
      if (waiting.gone) continue;
      waiting.res.off("close", waiting.gaveUp);
      waitingNow -= 1;
      thisTurn += 1;
      waiting.go();
    }
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else {
      // Keep the array from growing without end while reads keep arriving.
      if (head > 1024 && head * 2 > queue.length) {
        queue.splice(0, head);
        head = 0;
      }
      schedule();
    }
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(letIn);
  };

  const admit = (req: IncomingMessage, res: ServerResponse, go: () => void): void => {
    (req as Arrived)[ARRIVED] = process.hrtime.bigint();
    if (perTurn === 0 || !isRead(req.method ?? "GET", withoutQuery(req.url ?? "/"))) {
      go();
      return;
    }
    const waiting: Waiting = {
      res,
      go,
      // A client that hangs up while waiting gives its place away: nothing is computed for it.
      gaveUp: () => {
        waiting.gone = true;
        waitingNow -= 1;
      },
      gone: false,
    };
    res.once("close", waiting.gaveUp);
    queue.push(waiting);
    waitingNow += 1;
    schedule();
  };

  return { admit, stats: () => ({ waiting: waitingNow }) };
}
