/**
 * The questions the bench asks (bench/run.ts over HTTP, bench/sizes.ts in process): a validate, an upgrade plan
 * and about 1 MB of manifests to scan.
 */
/** A realistic 12-component HA cluster with three pools. */
export const PLAN = {
  components: [
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
    // The instance is what the "new question every request" scenarios vary.
    { component: "kubectl", version: "v1.30.2", instance: "bench" },
  ],
  asOf: "2026-11-29",
};

export const UPGRADE = {
  current: {
    components: [
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
      { component: "kubectl", version: "1.25.16", instance: "bench" },
    ],
  },
  targetVersion: "1.30",
};

/** About 1 MB of `helm template`-like output: many charts' objects, some on removed APIs. */
export function manifest(bytes: number): string {
  const documents: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const kinds = [
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-${index}\n  namespace: shop\n  labels:\n    app.kubernetes.io/name: web\n    app.kubernetes.io/instance: release-${index}\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: web-${index}\n  template:\n    metadata:\n      labels:\n        app: web-${index}\n    spec:\n      containers:\n        - name: web\n          image: registry.example.com/web:1.${index}.0\n          ports:\n            - containerPort: 8080\n          resources:\n            requests: { cpu: 100m, memory: 128Mi }\n            limits: { cpu: 500m, memory: 256Mi }\n`,
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: web-${index}\n  namespace: shop\nspec:\n  selector:\n    app: web-${index}\n  ports:\n    - port: 80\n      targetPort: 8080\n`,
      `apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly-${index}\n  namespace: ops\nspec:\n  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n            - name: job\n              image: busybox:1.36\n`,
      `apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: web-${index}\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app: web-${index}\n`,
    ];
    const document = `---\n# Source: shop/templates/part-${index % 4}.yaml\n${kinds[index % kinds.length]}`;
    documents.push(document);
    size += document.length;
  }
  return documents.join("");
}
