/**
 * The fields every question about a cluster shares: its components and
 * versions, the policy profile, the day to judge on, the managed platform and
 * the version to go to. The requests of cluster-requests.ts and
 * node-pool-requests.ts are built from them, so each field is described once.
 */
import { MAX_PLAN_COMPONENTS } from "../../domain/cluster-plan.js";
import { shortText, z } from "./openapi-zod.js";

export const componentVersionInput = z
  .strictObject({
    component: shortText(
      "Canonical name or alias (kube-apiserver, apiserver, kubelet, containerd, ...).",
      "kubelet",
    ),
    version: shortText(
      "1.29, v1.29.3, 1.30.0-rc.1, v1.29.3-eks-1234; runtimes 1.7.2 or containerd://1.7.2.",
      "1.29.3",
    ),
    instance: shortText(
      "An HA member (cp-1) or node pool (pool-a); a runtime pairs with the kubelet of the same instance.",
      "pool-a",
    ).nullish(),
    cgroupVersion: z.enum(["v1", "v2"]).nullish().openapi({
      description:
        "For a kubelet: the cgroup version of its nodes (stat -fc %T /sys/fs/cgroup: cgroup2fs is v2, tmpfs is v1). A 1.35+ kubelet does not start on v1 unless failCgroupV1 is false.",
    }),
    failCgroupV1: z.boolean().nullish().openapi({
      description:
        "For a kubelet: the failCgroupV1 setting of its KubeletConfiguration (default true from 1.35).",
    }),
    featureGates: z.string().max(20_000, "must be at most 20000 characters").nullish().openapi({
      description:
        "The feature gates the component is started with, as --feature-gates takes them (A=true,B=false); judged at the component's version.",
      example: "InPlacePodVerticalScaling=true",
    }),
  })
  .openapi("ComponentVersionInput");

export const components = z
  .array(componentVersionInput)
  .max(MAX_PLAN_COMPONENTS, `must have at most ${MAX_PLAN_COMPONENTS} entries`)
  .openapi({ description: "The cluster's components and versions." });

export const profile = shortText(
  "Policy profile: upstream (default) or strict, or one an organisation added.",
  "upstream",
).nullish();
export const asOf = shortText(
  "The day to judge end of life on, YYYY-MM-DD (default today).",
  "2026-11-29",
).nullish();
export const targetVersion = shortText(
  "The Kubernetes version to upgrade to; its minor is what counts.",
  "1.30",
);

export const platform = shortText(
  "The managed platform: eks, gke or aks (its calendar judges every minor the cluster runs where it has a row), or upstream for a self-managed cluster; recognised from versions such as v1.29.3-eks-1234567 and node labels when left out.",
  "eks",
).nullish();

export const clusterPlanInput = z.strictObject({ components }).openapi("ClusterPlanInput");
