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

type StateBody = Pick<
  z.infer<typeof registerClusterRequest>,
  "components" | "kubectlVersion" | "nodes" | "workloads" | "bundle" | "platform" | "profile"
>;

/** The state a body gives, and how it was given (components, kubectl or bundle). */
export function clusterStateOf(body: StateBody): { source: string; state: ClusterState } {
  const common = { platform: body.platform ?? null, profile: body.profile ?? null };
  if (body.components !== undefined)
    return { source: "components", state: { components: body.components, ...common } };
  if (body.bundle !== undefined) {
    const { kubectlVersion, nodes, workloads } = body.bundle;
    return { source: "bundle", state: { kubectlVersion, nodes, workloads, ...common } };
  }
  const { kubectlVersion, nodes, workloads } = body;
  return { source: "kubectl", state: { kubectlVersion, nodes, workloads, ...common } };
}

export function registrationOf(body: z.infer<typeof registerClusterRequest>): Registration {
  return {
    name: body.name,
    environment: body.environment,
    owner: body.owner,
    labels: body.labels,
    ...clusterStateOf(body),
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
