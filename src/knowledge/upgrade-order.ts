/**
 * The order components are upgraded in, from the edges of kb/upgrade-order.yaml: a topological sort in
 * which a component comes after everything the edges say must be upgraded before it. Ties keep the order
 * of kb/components.yaml, so the answer is stable and a reviewer can predict it. A cycle has no order: the
 * knowledge-base validation reports it with the components on it.
 */
import type { ComponentRecord, UpgradeDependencyRecord } from "./records.js";

export type UpgradeOrder =
  | { readonly ok: true; readonly order: readonly string[] }
  | { readonly ok: false; readonly cycle: readonly string[] };

export function upgradeOrder(
  components: readonly Pick<ComponentRecord, "name">[],
  dependencies: readonly Pick<UpgradeDependencyRecord, "before" | "after">[],
): UpgradeOrder {
  const position = new Map(components.map((component, index) => [component.name, index]));
  const names = [...position.keys()];
  for (const { before, after } of dependencies) {
    for (const name of [before, after]) {
      if (!position.has(name)) {
        position.set(name, names.length);
        names.push(name);
      }
    }
  }
  const waitingFor = new Map(names.map((name) => [name, 0]));
  const unlocks = new Map<string, string[]>(names.map((name) => [name, []]));
  for (const { before, after } of dependencies) {
    waitingFor.set(after, waitingFor.get(after)! + 1);
    unlocks.get(before)!.push(after);
  }
  const ready = names.filter((name) => waitingFor.get(name) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => position.get(a)! - position.get(b)!);
    const next = ready.shift()!;
    order.push(next);
    for (const after of unlocks.get(next)!) {
      const left = waitingFor.get(after)! - 1;
      waitingFor.set(after, left);
      if (left === 0) ready.push(after);
    }
  }
  if (order.length === names.length) return { ok: true, order };
  const loop = findCycle(
    names.filter((name) => waitingFor.get(name)! > 0),
    dependencies,
  );
  // Start the loop at its component listed first in kb/components.yaml, so the message is the same on every run.
  const start = loop.reduce(
    (best, name, index) => (position.get(name)! < position.get(loop[best]!)! ? index : best),
    0,
  );
  const rotated = [...loop.slice(start), ...loop.slice(0, start)];
  return { ok: false, cycle: [...rotated, rotated[0]!] };
}

/** One cycle among the components the sort could not place, in edge order (a → b → …), without repeating the first. */
function findCycle(
  stuck: readonly string[],
  dependencies: readonly Pick<UpgradeDependencyRecord, "before" | "after">[],
): string[] {
  const inStuck = new Set(stuck);
  // Every stuck component waits on another stuck one, so walking the edges backwards from any of them must loop.
  const previous = new Map<string, string>();
  for (const { before, after } of dependencies)
    if (inStuck.has(before) && inStuck.has(after) && !previous.has(after))
      previous.set(after, before);
  const seen: string[] = [];
  let current = stuck[0]!;
  while (!seen.includes(current)) {
    seen.push(current);
    current = previous.get(current)!;
  }
  return seen.slice(seen.indexOf(current)).reverse();
}
