/**
 * A registration as every face receives it (REST's body, GraphQL's input, a
 * chat paste, the CLI's request) turned into the fleet's: the state is kept
 * as validate or validate/from-kubectl takes it, and a `kubecompat collect`
 * bundle is cut to what judging reads (kubectl version, nodes, workloads),
 * so Helm release records and metrics are not stored with the fleet. A
 * waiver's request is turned into the FleetService's waiver the same way.
 */
import type { z } from "./schemas/openapi-zod.js";
import type { registerClusterRequest, waiverRequest } from "./schemas/fleet.js";
import type { Registration } from "../services/fleet.js";
import type { ClusterState } from "../domain/fleet.js";

export function registrationOf(body: z.infer<typeof registerClusterRequest>): Registration {
  const common = { platform: body.platform ?? null, profile: body.profile ?? null };
  let source: string;
  let state: ClusterState;
  if (body.components !== undefined) {
    source = "components";
    state = { components: body.components, ...common };
  } else if (body.bundle !== undefined) {
    source = "bundle";
    const { kubectlVersion, nodes, workloads } = body.bundle;
    state = { kubectlVersion, nodes, workloads, ...common };
  } else {
    source = "kubectl";
    state = {
      kubectlVersion: body.kubectlVersion,
      nodes: body.nodes,
      workloads: body.workloads,
      ...common,
    };
  }
  return {
    name: body.name,
    environment: body.environment,
    owner: body.owner,
    labels: body.labels,
    source,
    state,
  };
}

/** A waiver's request (REST's body, GraphQL's input) as the FleetService takes it, made by `createdBy`. */
export function waiverOf(body: z.infer<typeof waiverRequest>, createdBy: string) {
  return {
    code: body.code,
    clusterName: body.cluster ?? null,
    label: body.label ?? null,
    reason: body.reason,
    owner: body.owner,
    expiresOn: body.expiresOn,
    createdBy,
  };
}
