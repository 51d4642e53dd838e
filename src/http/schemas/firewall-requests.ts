/** The request that checks a firewall's allowed flows against the flows the cluster needs. */
import { detail } from "./answer-detail.js";
import { shortText, z } from "./openapi-zod.js";

export const firewallCheckRequest = z
  .strictObject({
    allowed: z
      .union([
        z.string().max(200_000),
        z.array(z.union([z.string().max(200), z.record(z.string(), z.unknown())])).max(2000),
      ])
      .openapi({
        description:
          'What the firewall allows: lines such as "workers -> control-plane tcp/6443" (roles control-plane, workers, external, any; protocols tcp, udp, sctp, ipip, esp, any), or objects {from, to, protocol, port, endPort}.',
      }),
    cni: shortText(
      "The cluster's CNI (calico, cilium, flannel): its flows are checked too.",
      "calico",
    ).nullish(),
    version: shortText(
      "The Kubernetes version the cluster runs or upgrades to: only flows that apply to it.",
      "1.31",
    ).nullish(),
    detail,
  })
  .openapi("FirewallCheckRequest");
