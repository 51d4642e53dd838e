/**
 * What a chat command is once read: the commands the bot understands, why a
 * text is not one, and how a reply is asked for. grammar.ts produces these;
 * answers.ts and usage.ts reply to them.
 */
import type { ComponentVersionInput } from "../domain/cluster-plan.js";
import type { NodePoolSpecInput } from "../domain/node-pool.js";

export type ChatCommand =
  | { readonly kind: "help" }
  /** `kubectl`: what was pasted after the first line, `kubectl version` and `kubectl get nodes` (-o wide) as they print. */
  | ({
      readonly kind: "check";
      readonly components: readonly ComponentVersionInput[];
      readonly kubectl?: { readonly version?: string; readonly nodes?: string };
    } & ClusterOptions)
  | ({ readonly kind: "upgrade"; readonly from: string; readonly to: string } & ClusterOptions)
  | ({
      readonly kind: "plan";
      readonly components: readonly ComponentVersionInput[];
      readonly to: string;
    } & ClusterOptions)
  /** Without `from`: the API versions removed in `to` itself. */
  | { readonly kind: "removals"; readonly from?: string; readonly to: string }
  | { readonly kind: "ports"; readonly component: string }
  /** `ports workers -> control-plane [calico]`: the flows a firewall between the roles must allow. */
  | { readonly kind: "flows"; readonly from: string; readonly to: string; readonly cni?: string }
  /** `impact 1.24 -> 1.29 [tenant-isolation]`: what changes beyond apiVersions, by release. */
  | { readonly kind: "impact"; readonly from: string; readonly to: string; readonly areas?: string }
  | {
      readonly kind: "skew";
      readonly component: string;
      readonly at?: string;
      readonly profile?: string;
    }
  /** Without a version: the newest release the knowledge base knows. */
  | { readonly kind: "release"; readonly version?: string }
  /** Where each kind of knowledge ends, and the sources it was read from. */
  | { readonly kind: "coverage" }
  /** Manifests pasted after the first line (or in a ``` block), scanned for the target. */
  | {
      readonly kind: "scan";
      readonly to: string;
      readonly from?: string;
      readonly manifests: string;
    }
  /** Is a minor supported today (or on asof=)? Without a version: which minors are. */
  | { readonly kind: "supported"; readonly version?: string; readonly asOf?: string }
  /** A node pool before (`from`) and after (`to`) an upgrade, under a control plane. */
  | ({ readonly kind: "nodepool-check" } & NodePoolChange)
  /** A node pool as it runs (`from`) and the older spec to go back to (`to`). */
  | ({ readonly kind: "nodepool-rollback" } & NodePoolChange)
  | ProposalCommand
  | FleetCommand;

/**
 * The review queue (proposal-answers.ts): the open proposals, one in full, and a reviewer's decisions.
 * Answered from the database, not the snapshot; deciding needs a reviewer (CHATOPS_REVIEWERS).
 */
export type ProposalCommand =
  | { readonly kind: "proposals" }
  | { readonly kind: "proposal"; readonly id: number }
  | { readonly kind: "approve"; readonly ids: readonly number[] }
  | { readonly kind: "reject"; readonly id: number; readonly reason: string };

/**
 * The fleet (fleet-answers.ts): registered clusters, one in full, events and waivers, and a reviewer's
 * registrations and waivers, subscriptions and their deliveries. Answered from the database; writing,
 * and reading subscriptions and deliveries (as REST asks an editor's token), needs a reviewer
 * (CHATOPS_REVIEWERS).
 * Values are kept as typed: the fleet's zod schemas (src/http/schemas/fleet.ts) check them as REST does.
 */
export type FleetCommand =
  | {
      readonly kind: "fleet";
      readonly environment?: string;
      readonly owner?: string;
      /** key=value */
      readonly label?: string;
    }
  | { readonly kind: "fleet-show"; readonly name: string }
  | { readonly kind: "fleet-events"; readonly cluster?: string }
  | { readonly kind: "fleet-waivers" }
  | {
      readonly kind: "fleet-register";
      readonly name: string;
      readonly environment?: string;
      readonly owner?: string;
      readonly labels: Readonly<Record<string, string>>;
      readonly platform?: string;
      readonly profile?: string;
      readonly components: readonly ComponentVersionInput[];
      readonly kubectl?: { readonly version?: string; readonly nodes?: string };
    }
  | {
      readonly kind: "fleet-waive";
      readonly code: string;
      readonly cluster?: string;
      /** key=value */
      readonly label?: string;
      /** The last day it applies, YYYY-MM-DD. */
      readonly until?: string;
      readonly reason?: string;
      /** Who answers for it; the reviewer who waives by default. */
      readonly owner?: string;
    }
  | { readonly kind: "fleet-unwaive"; readonly id: number }
  | {
      readonly kind: "fleet-subscribe";
      /** The receiver: a signed webhook, or with `slack` a Slack incoming webhook. */
      readonly url: string;
      readonly slack: boolean;
      readonly environments?: readonly string[];
      readonly owners?: readonly string[];
      readonly labels?: Readonly<Record<string, string>>;
      /** The lowest severity it is told of, as typed (the schema names ERROR, WARNING and INFO). */
      readonly minSeverity?: string;
    }
  | { readonly kind: "fleet-subscriptions" }
  | { readonly kind: "fleet-unsubscribe"; readonly id: number }
  /** The status as typed (dead, pending, delivered); none: every delivery. */
  | { readonly kind: "fleet-deliveries"; readonly status?: string }
  | { readonly kind: "fleet-replay"; readonly id: number };

/**
 * Commands whose reply only the asker sees, even when --public asks for the channel: a subscription's
 * reply holds its signing secret, and what was typed may be a Slack webhook URL, itself a secret (a
 * usage reply may quote it).
 */
export const ANSWERED_TO_ASKER_ONLY: ReadonlySet<CommandKind> = new Set<CommandKind>([
  "fleet-subscribe",
]);

/** What every cluster question (check, plan, upgrade) takes alike: `profile=`, `asof=` and `platform=`. */
export interface ClusterOptions {
  readonly profile?: string;
  readonly asOf?: string;
  readonly platform?: string;
}

export interface NodePoolChange extends ClusterOptions {
  readonly controlPlaneVersion: string;
  readonly from: NodePoolSpecInput;
  readonly to: NodePoolSpecInput;
}

export type CommandKind = ChatCommand["kind"];

/** Why a text is not a command, and which command's usage to show (none: the whole help). */
export interface UsageProblem {
  readonly problem: string;
  readonly kind?: Exclude<CommandKind, "help">;
}

export type ParseResult =
  | { readonly ok: true; readonly command: ChatCommand }
  | ({ readonly ok: false } & UsageProblem);

export interface RunOptions {
  /** The day to judge end of life on for `check` (YYYY-MM-DD); default today. A `asof=` in the command wins. */
  readonly asOf?: string;
  /** How users invoke the bot (`/kubecompat`), so that usage examples can be pasted back as they are. */
  readonly invokedAs?: string;
}
