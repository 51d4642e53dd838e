/**
 * Proposals as a derivation files them, for tests that need a queue without
 * running kb:derive: a removal marker of the made-up widgets group (a create),
 * or any change with the provenance a derivation of kubernetes/api gives it.
 */
import type { ProposalToFile } from "../../src/db/proposal-store.js";
import { proposalFingerprint } from "../../src/services/proposals.js";

export const WIDGETS = "widgets.example.k8s.io";

/** A change as filed: its fingerprint, and where a derivation of kubernetes/api read it. */
export function proposalToFile(
  change: Pick<ProposalToFile, "entity" | "key" | "action" | "record" | "changedFields">,
  baseRevision: number | null = null,
): ProposalToFile {
  return {
    ...change,
    baseRevision,
    problems: [],
    source: "kubernetes/api at kubernetes-1.37.0 (82c0029e)",
    sourceRevision: "82c0029e5b1d",
    derivation: "kubernetes-api-lifecycle",
    fingerprint: proposalFingerprint(change),
  };
}

/** The creation of widgets.example.k8s.io/v1alpha1 `kind`'s removal record (9 fields). */
export function removalProposal(kind: string, removedIn = "1.36"): ProposalToFile {
  return proposalToFile({
    entity: "apiRemovals",
    key: `${WIDGETS}/v1alpha1 ${kind}`,
    action: "create",
    record: {
      apiVersion: `${WIDGETS}/v1alpha1`,
      group: WIDGETS,
      version: "v1alpha1",
      kind,
      deprecatedIn: "1.33",
      removedIn,
      replacement: null,
      sourceUrl: "https://github.com/kubernetes/api",
      notes: null,
    },
    changedFields: [],
  });
}
