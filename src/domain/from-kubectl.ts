/**
 * Validate and plan from what kubectl prints: the cluster is read from the
 * outputs (src/domain/kubectl-inputs.ts), judged as a typed plan would be, and
 * what could not be placed is added as INFO notes. One composition for REST,
 * GraphQL and the offline CLI, so the faces cannot drift apart.
 */
import type { Finding, ValidationReport } from "./findings.js";
import {
  planFromKubectl,
  platformOfNodes,
  withNotes,
  type KubectlInputs,
} from "./kubectl-inputs.js";
import { planUpgrade, type UpgradePlan } from "./upgrade.js";
import { validateCluster } from "./validate.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";

export interface FromKubectlOptions {
  readonly profile?: string | null;
  readonly asOf?: string | null;
  /** Recognised from the nodes' labels when not given. */
  readonly platform?: string | null;
}

export function validateFromKubectl(
  snapshot: KbSnapshot,
  inputs: KubectlInputs,
  options: FromKubectlOptions = {},
): ValidationReport {
  const notes: Finding[] = [];
  const plan = planFromKubectl(snapshot, inputs, notes);
  return withNotes(
    validateCluster(snapshot, plan, {
      profile: options.profile,
      asOf: options.asOf,
      platform: options.platform ?? platformOfNodes(snapshot, inputs.nodes),
    }),
    notes,
  );
}

export function planUpgradeFromKubectl(
  snapshot: KbSnapshot,
  inputs: KubectlInputs,
  targetVersion: string,
  options: FromKubectlOptions = {},
): UpgradePlan {
  const notes: Finding[] = [];
  const plan = planFromKubectl(snapshot, inputs, notes);
  return withNotes(
    planUpgrade(snapshot, plan, targetVersion, {
      profile: options.profile,
      asOf: options.asOf,
      platform: options.platform ?? platformOfNodes(snapshot, inputs.nodes),
    }),
    notes,
  );
}
