/**
 * `npx tsx bench/fix.ts` (or BENCH_ONLY=fix npm run bench): what `fix` costs beside the scan it is built on.
 * Manifests of 1 MB and 9 MB (under the 10 MiB limit) as a GitOps repository concatenates them (one object in ten of a removed API
 * with fields to convert: Ingresses, HPAs, PDBs, EndpointSlices; the rest Deployments and Services) are
 * scanned and fixed in process, side by side, each the median of several runs: the ratio is what reading the
 * objects again, converting them, editing the text, reading it back and scanning the result add. The faces run
 * the fix in slices (src/core/slices.ts); the longest step between two yields is what another request waits.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fixManifests, fixSteps } from "../src/domain/manifest-fix.js";
import { scanManifests } from "../src/domain/scan.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.BENCH_FIX_RUNS ?? 5);

const OLD = [
  (i: number) => `# the ingress of app ${i}
apiVersion: extensions/v1beta1
kind: Ingress
metadata:
  name: app-${i}
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /
spec:
  backend:
    serviceName: app-${i}-default
    servicePort: 80
  rules:
  - host: app-${i}.example.com
    http:
      paths:
      - path: /api
        backend:
          serviceName: app-${i}-api
          servicePort: http
`,
  (i: number) => `apiVersion: autoscaling/v2beta1
kind: HorizontalPodAutoscaler
metadata:
  name: app-${i}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app-${i}}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      targetAverageUtilization: 70
`,
  (i: number) => `apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
  name: app-${i}
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: app-${i}}
`,
];

const CURRENT = (i: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${i}
  labels: {app: app-${i}}
spec:
  replicas: 3
  selector:
    matchLabels: {app: app-${i}}
  template:
    metadata:
      labels: {app: app-${i}}
    spec:
      containers:
      - name: app
        image: registry.example.com/app-${i}:1.4.${i % 10}
        ports:
        - containerPort: 8080
        resources:
          requests: {cpu: 100m, memory: 128Mi}
---
apiVersion: v1
kind: Service
metadata:
  name: app-${i}
spec:
  selector: {app: app-${i}}
  ports:
  - port: 80
    targetPort: 8080
`;

function manifests(bytes: number): { text: string; old: number } {
  const parts: string[] = [];
  let size = 0;
  let old = 0;
  for (let i = 0; size < bytes; i += 1) {
    const part = i % 5 === 0 ? OLD[(i / 5) % OLD.length]!(i) : CURRENT(i);
    if (i % 5 === 0) old += 1;
    parts.push(part);
    size += part.length + 4;
  }
  return { text: parts.join("---\n"), old };
}

function median(runs: () => void): number {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = process.hrtime.bigint();
    runs();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** The longest stretch the fix runs without giving the event loop a chance (what a face in slices waits at most). */
function longestStep(snapshot: KbSnapshot, text: string): number {
  const steps = fixSteps(snapshot, text, "1.25");
  let longest = 0;
  for (;;) {
    const started = performance.now();
    const step = steps.next();
    longest = Math.max(longest, performance.now() - started);
    if (step.done === true) return longest;
  }
}

export async function fixBench(): Promise<string> {
  const snapshot = new KbSnapshot(await loadKbDirectory(path.join(ROOT, "kb")), {
    revision: 1,
    lastImportAt: null,
  });
  const lines = ["fix beside the scan, in process (median of " + RUNS + " runs each):"];
  for (const bytes of [1 << 20, 9 << 20]) {
    const { text, old } = manifests(bytes);
    const scan = median(() => scanManifests(snapshot, text, "1.25"));
    let fixed = 0;
    const fix = median(() => {
      const report = fixManifests(snapshot, text, "1.25");
      fixed = report.objects.filter((object) => object.status === "FIXED").length;
    });
    lines.push(
      `  ${(text.length / 2 ** 20).toFixed(1)} MB, ${old} objects to fix (${fixed} fixed): scan ${scan.toFixed(0)} ms, fix ${fix.toFixed(0)} ms, ${(fix / scan).toFixed(1)}x the scan; longest step between yields ${longestStep(snapshot, text).toFixed(1)} ms`,
    );
  }
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.stdout.write(`${await fixBench()}\n`);
