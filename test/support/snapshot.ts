/** The reviewed kb/ as a snapshot, for tests of the pure domain core (no database needed). */
import { loadKbDirectory } from "../../src/knowledge/load.js";
import { KbSnapshot } from "../../src/knowledge/snapshot.js";
import { KB_DIR } from "./runtime.js";

let cached: Promise<KbSnapshot> | undefined;

export function kbSnapshot(): Promise<KbSnapshot> {
  cached ??= loadKbDirectory(KB_DIR).then(
    (bundle) => new KbSnapshot(bundle, { revision: 7, lastImportAt: null }),
  );
  return cached;
}

/** `"apiserver=1.30 kubelet@pool-a=1.27"` → plan components, for readable tables. */
export function plan(
  text: string,
): Array<{ component: string; version: string; instance?: string }> {
  return text
    .trim()
    .split(/\s+/)
    .map((token) => {
      const match = /^([^@=]+)(?:@([^=]+))?=(.+)$/.exec(token);
      if (!match) throw new Error(`bad plan token ${token}`);
      return match[2] === undefined
        ? { component: match[1]!, version: match[3]! }
        : { component: match[1]!, instance: match[2], version: match[3]! };
    });
}
