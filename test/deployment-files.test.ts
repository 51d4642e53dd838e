/**
 * docker-compose.yml and the Dockerfile cannot be run here (no Docker
 * engine), so their agreement with the app's configuration is checked by
 * parsing them: service names, ports, variable names, health endpoints.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { before, describe, it } from "node:test";
import request from "supertest";
import { readFileSync } from "node:fs";
import { parse, parseAllDocuments } from "yaml";
import { dockerRuntime, nodeFlagNumber } from "../bench/docker-runtime.js";
import { ENVIRONMENT_VARIABLES, parseConfig } from "../src/core/config.js";
import { REPO_ROOT } from "./support/runtime.js";
import { createApp } from "../src/app.js";
import { KnowledgeBase } from "../src/services/knowledge-base.js";
import { createLogger } from "../src/core/logger.js";
import type { Database } from "../src/db/client.js";

interface ComposeService {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

/** The resource limits of the service's container in deploy/kubernetes/deployment.yaml. */
function serviceLimits(): { memory: string; cpu: string | number } {
  type Workload = { kind: string; spec: { template: { spec: { containers: Array<{ resources: { limits: { memory: string; cpu: string | number } } }> } } } };
  const documents = parseAllDocuments(readFileSync(path.join(REPO_ROOT, "deploy/kubernetes/deployment.yaml"), "utf8")).map((document) => document.toJS() as Workload);
  return documents.find((document) => document.kind === "Deployment")!.spec.template.spec.containers[0]!.resources.limits;
}

describe("deployment files agree with the app", () => {
  let compose: { services: Record<string, ComposeService> };
  let dockerfile: string;
  before(async () => {
    compose = parse(await fs.readFile(path.join(REPO_ROOT, "docker-compose.yml"), "utf8"));
    dockerfile = await fs.readFile(path.join(REPO_ROOT, "Dockerfile"), "utf8");
  });

  it("runs the service and PostgreSQL, the service waiting for a healthy database", () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ["kubecompat", "postgres"]);
    const app = compose.services.kubecompat!;
    assert.equal(app.build, ".");
    assert.deepEqual(app.depends_on, { postgres: { condition: "service_healthy" } });
    assert.match(compose.services.postgres!.healthcheck!.test.join(" "), /pg_isready/);
  });

  it("uses only variables the config knows, and a DATABASE_URL that reaches the postgres service", () => {
    const app = compose.services.kubecompat!;
    for (const name of Object.keys(app.environment ?? {})) {
      assert.ok(ENVIRONMENT_VARIABLES.includes(name), `${name} is not read by src/core/config.ts`);
    }
    const config = parseConfig(app.environment ?? {});
    assert.equal(config.database.kind, "external");
    const url = new URL(config.database.kind === "external" ? config.database.url : "");
    const postgres = compose.services.postgres!.environment!;
    assert.equal(url.hostname, "postgres");
    assert.equal(url.port, "5432");
    assert.equal(decodeURIComponent(url.username), postgres.POSTGRES_USER);
    assert.equal(decodeURIComponent(url.password), postgres.POSTGRES_PASSWORD);
    assert.equal(url.pathname, `/${postgres.POSTGRES_DB}`);
  });

  it("publishes the port the service listens on and checks /readyz on it", () => {
    const app = compose.services.kubecompat!;
    const port = parseConfig(app.environment ?? {}).http.port;
    assert.deepEqual(app.ports, [`${port}:${port}`]);
    assert.match(app.healthcheck!.test.join(" "), new RegExp(`http://127\\.0\\.0\\.1:${port}/readyz`));
    assert.match(dockerfile, new RegExp(`EXPOSE ${port}\\b`));
    assert.match(dockerfile, new RegExp(`HEALTHCHECK[\\s\\S]*http://127\\.0\\.0\\.1:${port}/readyz`));
    assert.match(dockerfile, /^USER node$/m, "runs as a non-root user");
    assert.match(dockerfile, /npm ci --omit=dev/, "production dependencies only");
  });

  it("caps the heap at no more than half the pod's memory limit, and bench runs the image's settings", () => {
    const runtime = dockerRuntime(dockerfile);
    const heapMiB = nodeFlagNumber(runtime, "max-old-space-size");
    assert.ok(heapMiB !== undefined && heapMiB > 0, "CMD caps the old space (--max-old-space-size)");
    const limit = serviceLimits().memory;
    const limitMiB = /^(\d+)Mi$/.test(limit) ? Number(limit.slice(0, -2)) : /^(\d+)Gi$/.test(limit) ? Number(limit.slice(0, -2)) * 1024 : NaN;
    assert.ok(heapMiB * 2 <= limitMiB, `a ${heapMiB} MiB heap leaves room for code, buffers and young space under the ${limit} limit`);
    assert.equal(runtime.env.MALLOC_ARENA_MAX, "2");
    assert.equal(runtime.script, "dist/server.js");
  });

  it("collects garbage on the main thread alone when the pod has one CPU", () => {
    // V8's parallel and concurrent collection runs on helper threads: under a limit of one CPU they take it from the
    // main thread (and count against the quota), which cost the reads most of their tail and the edits a third of their p99 (bench/RESULTS.md, session 14).
    const runtime = dockerRuntime(dockerfile);
    const cpu = String(serviceLimits().cpu);
    const cpus = /^\d+m$/.test(cpu) ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu);
    assert.ok(Number.isFinite(cpus) && cpus > 0, `the deployment limits the CPU (${cpu})`);
    assert.equal(runtime.nodeFlags.includes("--single-threaded-gc"), cpus <= 1, `CPU limit ${cpu}: the image's node flags are ${runtime.nodeFlags.join(" ")}`);
  });

  it("health endpoints named in the files exist on the app and report not-ready without a knowledge base", async () => {
    const app = await createApp({
      kb: new KnowledgeBase({} as Database),
      isDatabaseReachable: () => Promise.resolve(false),
      logger: createLogger("silent"),
    });
    await request(app).get("/healthz").expect(200);
    const ready = await request(app).get("/readyz").expect(503);
    assert.deepEqual(ready.body, { status: "not ready", database: "unreachable", knowledgeBase: { loaded: false } });
  });

  it(".env.example names only variables the config knows", async () => {
    const example = await fs.readFile(path.join(REPO_ROOT, ".env.example"), "utf8");
    const names = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!);
    assert.ok(names.length >= 5);
    for (const name of names) assert.ok(ENVIRONMENT_VARIABLES.includes(name), name);
  });
});
