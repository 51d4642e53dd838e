/**
 * The order a node pool is changed in: drain when the kubelet's minor changes,
 * the runtime before the kubelet on the way up and after it on the way back,
 * flags and configuration with the binary, kube-proxy last, then uncordon.
 * The notes say why, since an operator follows them by hand.
 */
import { compareComponentVersions, formatVersion, minorIndex } from "../core/versions.js";
import type { NodePool } from "./node-pool-spec.js";

export interface NodePoolStep {
  readonly order: number;
  readonly action: string;
  readonly component: string | null;
  readonly fromVersion: string | null;
  readonly toVersion: string | null;
  readonly note: string;
}

/** The steps from one pool state to the next, numbered from 1. */
export function nodePoolSteps(
  from: NodePool,
  to: NodePool,
  direction: "upgrade" | "rollback",
): NodePoolStep[] {
  const list: Omit<NodePoolStep, "order">[] = [];
  const runtimeChanges =
    from.runtime !== null &&
    to.runtime !== null &&
    (from.runtime.component !== to.runtime.component ||
      compareComponentVersions(from.runtime.release!, to.runtime.release!) !== 0);
  const kubeletMinorChanges = minorIndex(from.kubelet) !== minorIndex(to.kubelet);
  const runtimeStep = {
    action: "runtime",
    component: to.runtime?.component ?? null,
    fromVersion: from.runtime?.version ?? null,
    toVersion: to.runtime?.version ?? null,
    note:
      direction === "upgrade"
        ? "the runtime first: the new kubelet needs it"
        : "the runtime after the kubelet: the old kubelet must find a runtime it supports",
  };
  if (kubeletMinorChanges)
    list.push({
      action: "drain",
      component: null,
      fromVersion: null,
      toVersion: null,
      note: "cordon and drain the pool's nodes: kubelet minor changes are not done in place",
    });
  if (runtimeChanges && direction === "upgrade") list.push(runtimeStep);
  if (
    from.flags.map((flag) => flag.text).join(" ") !== to.flags.map((flag) => flag.text).join(" ") ||
    from.configFields.join() !== to.configFields.join()
  ) {
    list.push({
      action: "kubelet-configuration",
      component: "kubelet",
      fromVersion: null,
      toVersion: null,
      note: "change flags and the KubeletConfiguration together with the kubelet binary",
    });
  }
  if (formatVersion(from.kubelet) !== formatVersion(to.kubelet)) {
    const minors = minorIndex(to.kubelet) - minorIndex(from.kubelet);
    // kubeadm upgrades a node one minor at a time in place; going back a minor in place is not supported at all.
    const note =
      minors < 0
        ? "replace the nodes with nodes built at the older version: a kubelet minor downgrade in place is not supported (the kubelet's state and the node's may be newer than it reads)"
        : minors > 1
          ? `replace the nodes with new ones at ${formatVersion(to.kubelet)}: the kubelet moves ${minors} minors, and a node is upgraded in place one minor at a time`
          : "upgrade the kubelet and restart it; the node re-registers with kube-apiserver";
    list.push({
      action: "kubelet",
      component: "kubelet",
      fromVersion: formatVersion(from.kubelet),
      toVersion: formatVersion(to.kubelet),
      note,
    });
  }
  if (runtimeChanges && direction === "rollback") list.push(runtimeStep);
  if (
    (from.kubeProxy &&
      to.kubeProxy &&
      formatVersion(from.kubeProxy) !== formatVersion(to.kubeProxy)) ||
    from.proxyMode !== to.proxyMode
  ) {
    list.push({
      action: "kube-proxy",
      component: "kube-proxy",
      fromVersion: from.kubeProxy ? formatVersion(from.kubeProxy) : null,
      toVersion: to.kubeProxy ? formatVersion(to.kubeProxy) : null,
      note:
        from.proxyMode !== to.proxyMode
          ? `kube-proxy last, switching ${from.proxyMode ?? "its mode"} to ${to.proxyMode ?? "the default"}`
          : "kube-proxy last",
    });
  }
  if (kubeletMinorChanges)
    list.push({
      action: "uncordon",
      component: null,
      fromVersion: null,
      toVersion: null,
      note: "uncordon once the nodes are Ready",
    });
  return list.map((step, index) => ({ ...step, order: index + 1 }));
}
