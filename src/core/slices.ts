/**
 * Runs a long computation written as steps (a generator) a slice of time at a
 * time, giving the event loop back between slices, so one request that scans
 * ten megabytes does not hold /healthz and every other request waiting for it.
 * The computation stays synchronous and pure; only its driver waits.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";

/** Long enough that the pauses cost little, short enough that other requests wait at most this long. */
export const SLICE_MS = 5;

export async function inSlices<T>(steps: Generator<void, T, void>, sliceMs = SLICE_MS): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
}
