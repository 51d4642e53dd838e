/**
 * Budgets of so many uses a minute per key (a token, a client address, a
 * Slack workspace): a key's window starts with its first use and its budget
 * is whole again a minute later. Every rate limit of the service counts with
 * this, whatever protocol it answers in.
 */
export const BUDGET_WINDOW_MS = 60_000;

export interface BudgetUse {
  /** Whether this use was within the budget. */
  readonly allowed: boolean;
  readonly remaining: number;
  /** Seconds until the key's budget is whole again. */
  readonly resetSeconds: number;
  /** Gives the use back (it did no work), to the window it was taken from only. */
  giveBack(): void;
}

interface Window {
  used: number;
  readonly since: number;
}

export class MinuteBudgets {
  private readonly windows = new Map<string, Window>();
  private sweptAt = Date.now();

  constructor(readonly perMinute: number) {}

  /** The draft-7 RateLimit-Policy value of this budget. */
  get policy(): string {
    return `${this.perMinute};w=${BUDGET_WINDOW_MS / 1000}`;
  }

  take(key: string, now = Date.now()): BudgetUse {
    this.sweep(now);
    let window = this.windows.get(key);
    if (window === undefined || now - window.since >= BUDGET_WINDOW_MS)
      this.windows.set(key, (window = { used: 0, since: now }));
    window.used += 1;
    const taken = window;
    return {
      allowed: taken.used <= this.perMinute,
      remaining: Math.max(0, this.perMinute - taken.used),
      resetSeconds: Math.max(0, Math.ceil((taken.since + BUDGET_WINDOW_MS - now) / 1000)),
      giveBack: () => {
        if (this.windows.get(key) === taken) taken.used = Math.max(0, taken.used - 1);
      },
    };
  }

  /** Whether the key has used its whole budget in its current window (without using any). */
  spent(key: string, now = Date.now()): boolean {
    const window = this.windows.get(key);
    return (
      window !== undefined && now - window.since < BUDGET_WINDOW_MS && window.used >= this.perMinute
    );
  }

  // Windows that ended are dropped once a window, so a stream of new keys cannot grow the map for ever.
  private sweep(now: number): void {
    if (now - this.sweptAt < BUDGET_WINDOW_MS) return;
    this.sweptAt = now;
    for (const [key, window] of this.windows)
      if (now - window.since >= BUDGET_WINDOW_MS) this.windows.delete(key);
  }
}
