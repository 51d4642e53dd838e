/** Bounded waits for an event (hang detectors, not timing assertions). */

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `probe` every `everyMs` until it returns something other than
 * undefined, and returns that; fails naming `what` (and the last value seen
 * by `describe`) when `withinMs` passes first.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  options: { withinMs: number; everyMs?: number; last?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.withinMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const seen =
        options.last?.() ??
        (lastError instanceof Error
          ? lastError.message
          : lastError === undefined
            ? ""
            : JSON.stringify(lastError));
      throw new Error(
        `${what}: not within ${options.withinMs} ms${seen ? ` (last seen: ${seen})` : ""}`,
      );
    }
    await sleep(options.everyMs ?? 50);
  }
}
