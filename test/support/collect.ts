/**
 * A full garbage collection on demand, for tests that check what an object
 * keeps alive (WeakRef): V8's `gc()` made reachable without starting node
 * with --expose-gc.
 */
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Collects everything unreachable, after the current job (a WeakRef's target lives until then). */
export async function collectGarbage(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}
