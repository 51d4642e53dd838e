import { loadKbDirectory } from "./src/kb/load.js";
import { KbSnapshot } from "./src/kb/snapshot.js";
import { validateCluster } from "./src/domain/validate.js";
import { planUpgrade } from "./src/domain/upgrade.js";
const s = new KbSnapshot(await loadKbDirectory("kb"), { revision: 1, lastImportAt: null });
const plan = [
    { component: "etcd", version: "3.5.15" },
    { component: "kube-apiserver", version: "v1.30.4", instance: "cp-1" },
    { component: "kube-apiserver", version: "v1.30.4", instance: "cp-2" },
    { component: "kube-apiserver", version: "v1.30.4", instance: "cp-3" },
    { component: "kube-controller-manager", version: "v1.30.4" },
    { component: "kube-scheduler", version: "v1.30.4" },
    { component: "kubelet", version: "v1.29.8", instance: "pool-a" },
    { component: "containerd", version: "1.7.20", instance: "pool-a" },
    { component: "kubelet", version: "v1.28.13", instance: "pool-b" },
    { component: "containerd", version: "1.7.13", instance: "pool-b" },
    { component: "kubelet", version: "v1.27.16", instance: "pool-c" },
    { component: "kubectl", version: "v1.30.2" },
  ];
for (let i = 0; i < 200; i++) validateCluster(s, plan, { asOf: "2026-11-29" });
let t = performance.now();
for (let i = 0; i < 2000; i++) validateCluster(s, plan, { asOf: "2026-11-29" });
console.log("validate ms", (performance.now() - t) / 2000);
const up = { components: [
      { component: "etcd", version: "3.5.9" },
      { component: "kube-apiserver", version: "1.25.16", instance: "cp-1" },
      { component: "kube-apiserver", version: "1.25.16", instance: "cp-2" },
      { component: "kube-controller-manager", version: "1.25.16" },
      { component: "kube-scheduler", version: "1.25.16" },
      { component: "kubelet", version: "1.25.16", instance: "pool-a" },
      { component: "kube-proxy", version: "1.25.16", instance: "pool-a" },
      { component: "containerd", version: "1.6.20", instance: "pool-a" },
      { component: "kubelet", version: "1.24.17", instance: "pool-b" },
      { component: "containerd", version: "1.6.20", instance: "pool-b" },
      { component: "kubelet", version: "1.25.16", instance: "pool-c" },
      { component: "containerd", version: "1.7.13", instance: "pool-c" },
    ] };
for (let i = 0; i < 20; i++) planUpgrade(s, up.components, "1.30");
t = performance.now();
for (let i = 0; i < 200; i++) planUpgrade(s, up.components, "1.30");
console.log("plan ms", (performance.now() - t) / 200);
