/**
 * Reading values out of a user's YAML file node by node (so errors can point
 * at a line), shared by the plan-file and node-pool-file readers.
 */
import { isAlias, isScalar, type Document, type Node, type Pair } from "yaml";

/** Reports a problem at a node's line; never returns. */
export type Fail = (
  message: string,
  node?: { range?: [number, number, number] | null } | null,
) => never;

export function resolve(document: Document, node: Node | null | undefined): Node | null {
  if (node === null || node === undefined) return null;
  if (isAlias(node)) return (node.resolve(document) as Node | undefined) ?? null;
  return node;
}

export function keyNode(pair: Pair): Node | null {
  return (pair.key as Node | null) ?? null;
}

export function scalarText(document: Document, node: unknown): string | null {
  const resolved = resolve(document, node as Node | null);
  return isScalar(resolved) && typeof resolved.value === "string" ? resolved.value : null;
}

export function requiredText(
  document: Document,
  node: Node | null,
  message: string,
  fail: Fail,
  at: Node | null,
): string {
  const text = scalarText(document, node);
  if (text === null || text.trim() === "") return fail(message, node ?? at);
  return text;
}
