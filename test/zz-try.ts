import { kbSnapshot } from "/work/main/test/support/snapshot.js";
import { checkNodePoolUpgrade, checkNodePoolRollback } from "/work/main/src/domain/node-pool.js";
const s = await kbSnapshot();
const r = checkNodePoolUpgrade(s, { controlPlaneVersion: "1.30", from: { kubeletVersion: "1.29.4", kubeProxyMode: "ipvs", runtime: "containerd", runtimeVersion: "1.7.2" }, to: { kubeletVersion: "1.30.1", kubeProxyMode: "nftables", runtime: "containerd", runtimeVersion: "2.0.1", kubeletFlags: "--container-runtime=remote --max-pods=110" } });
console.log(JSON.stringify(r, null, 1));
const b = checkNodePoolRollback(s, { controlPlaneVersion: "1.30", profile: "strict", current: { kubeletVersion: "1.29.4" }, rollbackTo: { kubeletVersion: "1.28.9" } });
console.log(JSON.stringify(b, null, 1));
