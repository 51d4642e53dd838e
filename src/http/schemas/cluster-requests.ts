/**
 * The requests that judge a whole cluster: validate, plan an upgrade, check a
 * rollback, and the variants that read the cluster from what kubectl prints.
 */
import { detail } from "./answer-detail.js";
import {
  asOf,
  clusterPlanInput,
  components,
  platform,
  profile,
  targetVersion,
} from "./cluster-fields.js";
import { shortText, z } from "./openapi-zod.js";

export const validateRequest = z
  .strictObject({ components, profile, asOf, platform, detail })
  .openapi("ValidateRequest");

export const upgradePlanRequest = z
  .strictObject({ current: clusterPlanInput, targetVersion, profile, asOf, platform, detail })
  .openapi("UpgradePlanRequest");

export const rollbackRequest = z
  .strictObject({
    current: clusterPlanInput,
    component: shortText("The component to roll back.", "kubelet"),
    instance: shortText("Which instance, when the component runs as several.", "pool-a").nullish(),
    toVersion: shortText("The older version to go back to.", "1.28.9"),
    profile,
    asOf,
    platform,
    upgradedOn: shortText(
      "The day the control plane reached its current minor, YYYY-MM-DD: a managed platform's rollback window (EKS: 7 days) counts from it.",
      "2026-12-01",
    ).nullish(),
    detail,
  })
  .openapi("RollbackRequest");

const kubectlJson = z.record(z.string(), z.unknown());
/** What kubectl printed about a cluster: the same three fields in every request read from kubectl. */
const kubectlOutputs = {
  kubectlVersion: z
    .union([kubectlJson, z.string().max(100_000)])
    .optional()
    .openapi({
      description: "The JSON of `kubectl version -o json`, or the text `kubectl version` prints.",
    }),
  nodes: z
    .union([kubectlJson, z.string().max(5_000_000)])
    .optional()
    .openapi({
      description:
        "The JSON of `kubectl get nodes -o json`, or the table `kubectl get nodes` (-o wide) prints.",
    }),
  workloads: kubectlJson.optional().openapi({
    description:
      "The JSON of `kubectl get deployments,daemonsets -A -o json`: add-ons are recognised by their images.",
  }),
};
export const fromKubectlValidateRequest = z
  .strictObject({
    ...kubectlOutputs,
    profile,
    asOf,
    platform,
    detail,
  })
  .openapi("ValidateFromKubectlRequest");
export const fromKubectlUpgradeRequest = z
  .strictObject({
    ...kubectlOutputs,
    targetVersion,
    profile,
    asOf,
    platform,
    detail,
  })
  .openapi("UpgradePlanFromKubectlRequest");
