/**
 * `npm run bench`: starts one kubecompat instance (the real server process,
 * the compiled dist/ build with the Docker image's node flags and
 * environment), drives it with autocannon scenario by scenario, and prints
 * requests/s, p50/p99 latency and the ratio to the floor (a trivial
 * GET /healthz on the same server, measured in the same run), plus the scan
 * throughput against a bare YAML parse of the same input and the server's
 * resident memory. Where `taskset` is there and the machine has two or more
 * CPUs, the server gets one CPU (a pod's limit is one) and the load
 * generator, in its own process, the others. Uses DATABASE_URL when set,
 * else the embedded PostgreSQL.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { dockerRuntime } from "./docker-runtime.js";
import type { LoadScenario } from "./load.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** A realistic 12-component HA cluster with three pools. */
const PLAN = {
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

const UPGRADE = {
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

const GRAPHQL_VALIDATE = {
  query: `query Validate($plan: ClusterPlanInput!, $asOf: String) { validateCluster(plan: $plan, asOf: $asOf) { ok kbRevision findings { code severity component instance message sourceUrl } } }`,
  variables: { plan: { components: PLAN.components }, asOf: PLAN.asOf },
};

/** About 1 MB of `helm template`-like output: many charts' objects, some on removed APIs. */
function manifest(bytes: number): string {
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

interface Row {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Shown in the table but not a target: every request a new question. */
  note?: string;
}

function statusField(pid: number, field: string): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

function hasTaskset(): boolean {
  return spawnSync("taskset", ["--version"], { stdio: "ignore" }).status === 0;
}

const CPUS = os.cpus().length;
const PIN = CPUS >= 2 && hasTaskset() && process.env.BENCH_NO_PIN === undefined;
/** The server on the last CPU, the load generator on all the others. */
const SERVER_CPUS = String(CPUS - 1);
const LOAD_CPUS = CPUS === 2 ? "0" : `0-${CPUS - 2}`;

function pinned(cpus: string, command: string, args: string[]): [string, string[]] {
  return PIN ? ["taskset", ["-c", cpus, command, ...args]] : [command, args];
}

async function load(name: string, scenario: Partial<LoadScenario> & { url: string }): Promise<Row> {
  const spec: LoadScenario = { connections: CONNECTIONS, duration: DURATION, ...scenario };
  const [command, args] = pinned(LOAD_CPUS, process.execPath, ["--import", "tsx", path.join(ROOT, "bench/load.ts")]);
  const child = spawn(command, args, { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.end(JSON.stringify(spec));
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the load generator failed for ${name} (exit ${String(code)})`);
  const result = JSON.parse(output) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; timeouts: number; non2xx: number };
  return { name, requests: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const port = await freePort();
  const pgPort = await freePort();
  const image = dockerRuntime();
  const env = {
    ...process.env,
    ...image.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    EMBEDDED_PG_DIR: process.env.DATABASE_URL ? undefined : path.join(os.tmpdir(), `kubecompat-bench-pg-${process.pid}`),
    EMBEDDED_PG_PORT: String(pgPort),
    // Limits stay on, set above the benchmark's rate (express-rate-limit answers 429s otherwise).
    RATE_LIMIT_WRITES_PER_MINUTE: "100000",
    RATE_LIMIT_CHAT_PER_MINUTE: "100000",
  };
  // The production build, as the Docker image runs it (tsx's on-the-fly transform adds a wrapper to every closure).
  process.stdout.write("building dist/ (npm run build)...\n");
  const build = spawn("npm", ["run", "-s", "build"], { cwd: ROOT, stdio: "inherit" });
  if ((await new Promise((resolve) => build.once("exit", resolve))) !== 0) throw new Error("npm run build failed");
  const [command, args] = pinned(SERVER_CPUS, process.execPath, [...image.nodeFlags, image.script]);
  const server = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "inherit", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let attempt = 0; ; attempt += 1) {
      const ready = await fetch(`${base}/readyz`).then((response) => response.ok, () => false);
      if (ready) break;
      if (attempt > 240 || server.exitCode !== null) throw new Error("the server did not become ready");
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // With taskset in between, the server is taskset's child's image: same pid (taskset execs).
    const pid = server.pid!;
    const idleRss = statusField(pid, "VmRSS");
    const json = { "content-type": "application/json" };
    const scanInput = manifest(1_000_000);
    const scanBody = JSON.stringify({ manifests: scanInput, targetVersion: "1.29" });
    const validate = JSON.stringify(PLAN);
    const graphql = JSON.stringify(GRAPHQL_VALIDATE);
    const upgrade = JSON.stringify(UPGRADE);

    // Warm up the JIT on every path before measuring.
    for (const [url, body] of [["/api/v1/validate", validate], ["/graphql", graphql], ["/api/v1/upgrade-plan", upgrade]] as const) {
      await load("warm-up", { url: `${base}${url}`, method: "POST", headers: json, body, duration: 2, distinct: true });
    }

    const rows: Row[] = [];
    rows.push(await load("GET /healthz (floor)", { url: `${base}/healthz` }));
    rows.push(await load("GET /api/v1/api-removals", { url: `${base}/api/v1/api-removals` }));
    rows.push(await load("POST /api/v1/validate (12 components)", { url: `${base}/api/v1/validate`, method: "POST", headers: json, body: validate }));
    rows.push(await load("POST /graphql validateCluster", { url: `${base}/graphql`, method: "POST", headers: json, body: graphql }));
    rows.push(await load("POST /api/v1/upgrade-plan (1.25 -> 1.30, 3 pools)", { url: `${base}/api/v1/upgrade-plan`, method: "POST", headers: json, body: upgrade }));
    const fresh = "a new question every request: nothing remembered";
    rows.push({ ...(await load("POST /api/v1/validate, new plan each time", { url: `${base}/api/v1/validate`, method: "POST", headers: json, body: validate, distinct: true })), note: fresh });
    rows.push({ ...(await load("POST /graphql validateCluster, new plan each time", { url: `${base}/graphql`, method: "POST", headers: json, body: graphql, distinct: true })), note: fresh });
    rows.push({ ...(await load("POST /api/v1/upgrade-plan, new plan each time", { url: `${base}/api/v1/upgrade-plan`, method: "POST", headers: json, body: upgrade, distinct: true })), note: fresh });
    rows.push(await load("POST /api/v1/scan (1 MB manifest, 2 connections)", { url: `${base}/api/v1/scan`, method: "POST", headers: json, body: scanBody, connections: 2 }));
    const single = await load("scan, one connection", { url: `${base}/api/v1/scan`, method: "POST", headers: json, body: scanBody, connections: 1, duration: 5 });
    const rss = statusField(pid, "VmRSS");
    const peakRss = statusField(pid, "VmHWM");

    // A bare parse of the same input, in this process: the yardstick for scanning.
    const parses: number[] = [];
    for (let run = 0; run < 12; run += 1) {
      const started = process.hrtime.bigint();
      for (const document of parseAllDocuments(scanInput)) void document.contents;
      parses.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    parses.sort((a, b) => a - b);
    const bareParseMs = parses[Math.floor(parses.length / 2)]!;

    const floor = rows[0]!;
    const table = [
      "| scenario | req/s | p50 ms | p99 ms | throughput vs floor | p99 vs floor | errors | non-2xx |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      ...rows.map(
        (row) =>
          `| ${row.name}${row.note ? ` (${row.note})` : ""} | ${row.requests.toFixed(0)} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${((row.requests / floor.requests) * 100).toFixed(1)}% | ${(row.p99 / Math.max(floor.p99, 0.01)).toFixed(2)}x | ${row.errors} | ${row.non2xx} |`,
      ),
    ];
    const mb = Buffer.byteLength(scanInput) / 1e6;
    const cpu = os.cpus()[0]?.model ?? "?";
    process.stdout.write(`\nkubecompat benchmark: ${CPUS} cores (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per scenario\n`);
    process.stdout.write(
      PIN ? `server pinned to CPU ${SERVER_CPUS}, load generator (autocannon, own process) to CPU ${LOAD_CPUS}\n` : "server and load generator share the CPUs (no taskset, one CPU, or BENCH_NO_PIN set)\n",
    );
    process.stdout.write(`server: node ${image.nodeFlags.join(" ")} ${image.script}; ${Object.entries(image.env).map(([name, value]) => `${name}=${value}`).join(" ")} (the Dockerfile's)\n\n`);
    process.stdout.write(`${table.join("\n")}\n\n`);
    process.stdout.write(
      `scan: ${mb.toFixed(2)} MB per request; one connection p50 ${single.p50.toFixed(1)} ms = ${(mb / (single.p50 / 1000)).toFixed(1)} MB/s; bare YAML parse of the same input ${bareParseMs.toFixed(1)} ms = ${(mb / (bareParseMs / 1000)).toFixed(1)} MB/s; scan / bare parse = ${(single.p50 / bareParseMs).toFixed(2)}x\n`,
    );
    process.stdout.write(`server resident memory: ${idleRss.toFixed(0)} MB idle after start, ${rss.toFixed(0)} MB after the run, ${peakRss.toFixed(0)} MB at the peak\n`);
    const validateRow = rows[2]!;
    const graphqlRow = rows[3]!;
    const errors = rows.reduce((sum, row) => sum + row.errors + row.non2xx, 0) + single.errors + single.non2xx;
    const targets = [
      [`validate REST >= 60% of floor (${((validateRow.requests / floor.requests) * 100).toFixed(0)}%)`, validateRow.requests / floor.requests >= 0.6],
      [`validate REST p99 <= 1.5x floor p99 (${(validateRow.p99 / floor.p99).toFixed(2)}x)`, validateRow.p99 <= 1.5 * floor.p99],
      [`validate GraphQL >= 45% of floor (${((graphqlRow.requests / floor.requests) * 100).toFixed(0)}%)`, graphqlRow.requests / floor.requests >= 0.45],
      [`scan <= 1.5x bare parse (${(single.p50 / bareParseMs).toFixed(2)}x)`, single.p50 <= 1.5 * bareParseMs],
      [`RSS < 200 MB after the run (${rss.toFixed(0)} MB)`, rss < 200],
      [`no errors and no non-2xx answers (${errors})`, errors === 0],
    ] as const;
    process.stdout.write(`\ntargets:\n${targets.map(([name, met]) => `  ${met ? "met    " : "MISSED "} ${name}`).join("\n")}\n`);
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  }
}

await main();
