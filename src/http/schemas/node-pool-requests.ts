/**
 * The requests that check one node pool's upgrade or rollback: the pool as it
 * is and as it will be (kubelet flags and configuration, kube-proxy mode,
 * runtime, chart constraint, cgroup version) against the control plane.
 */
import { detail } from "./answer-detail.js";
import { asOf, platform, profile } from "./cluster-fields.js";
import { shortText, z } from "./openapi-zod.js";

export const nodePoolSpec = z
  .strictObject({
    name: shortText("The pool's name.", "pool-a").nullish(),
    kubeletVersion: shortText("The kubelet version.", "1.30.1"),
    kubeletFlags: z
      .union([z.array(z.string().max(20_000)).max(300), z.string().max(20_000)])
      .nullish()
      .openapi({
        description:
          "Kubelet flags as on a command line: a list (`--max-pods=110`) or one pasted ps/systemd ExecStart line.",
      }),
    kubeletConfig: z
      .string()
      .max(262_144)
      .nullish()
      .openapi({ description: "The KubeletConfiguration YAML." }),
    kubeProxyVersion: shortText("The kube-proxy version.", "1.30.1").nullish(),
    kubeProxyMode: shortText(
      "iptables, ipvs, nftables (Linux) or kernelspace (Windows).",
      "nftables",
    ).nullish(),
    os: shortText("linux (default) or windows.", "linux").nullish(),
    runtime: shortText("containerd, cri-o or docker-engine.", "containerd").nullish(),
    runtimeVersion: shortText("The runtime's version.", "2.0.1").nullish(),
    chartKubeVersion: shortText(
      "The node-pool chart's Helm kubeVersion constraint.",
      ">=1.27.0-0 <1.31.0-0",
    ).nullish(),
    cgroupVersion: z.enum(["v1", "v2"]).nullish().openapi({
      description:
        "The cgroup version of the pool's nodes (stat -fc %T /sys/fs/cgroup: cgroup2fs is v2, tmpfs is v1). A 1.35+ kubelet does not start on v1 unless kubeletConfig sets failCgroupV1: false.",
    }),
  })
  .openapi("NodePoolSpec");

const controlPlaneVersion = shortText("The control plane's (kube-apiserver's) version.", "1.30");
export const nodePoolUpgradeRequest = z
  .strictObject({
    controlPlaneVersion,
    from: nodePoolSpec,
    to: nodePoolSpec,
    profile,
    asOf,
    platform,
    detail,
  })
  .openapi("NodePoolUpgradeRequest");
export const nodePoolRollbackRequest = z
  .strictObject({
    controlPlaneVersion,
    current: nodePoolSpec,
    rollbackTo: nodePoolSpec,
    profile,
    asOf,
    platform,
    detail,
  })
  .openapi("NodePoolRollbackRequest");
