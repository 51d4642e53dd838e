/**
 * Prometheus metrics for /metrics: request counts and latency per route and
 * per GraphQL operation, findings by code, the snapshot's revision and age,
 * whether the database answers, and the connection pool. One registry per
 * app, so tests and replicas in one process do not share counters.
 */
import type { ApolloServerPlugin } from "@apollo/server";
import type { Request, RequestHandler } from "express";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { AnswerCacheStats } from "../services/answer-cache.js";
import type { RefreshState } from "../services/refresh-state.js";

export interface MetricsSources {
  readonly revision: () => number | undefined;
  /** Open conflicts between kb/ and run-time edits in the snapshot. */
  readonly openConflicts?: () => number | undefined;
  readonly loadedAt: () => string | undefined;
  readonly databaseReachable: () => boolean | undefined;
  readonly pool: () => { total: number; idle: number; waiting: number; max: number } | undefined;
  /** Remembered answers per face (rest, graphql). */
  readonly answerCaches?: () => Readonly<Record<string, AnswerCacheStats>>;
  /** Reads waiting for their turn on the event loop (src/http/read-turns.ts). */
  readonly readsWaiting?: () => number;
  /** Proposals waiting for review and each upstream source's last refresh (read from the database when scraped). */
  readonly refresh?: () => Promise<RefreshState>;
}

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly latency: Histogram<"method" | "route">;
  private readonly operations: Counter<"operation" | "type" | "outcome">;
  private readonly operationLatency: Histogram<"operation" | "type">;
  private readonly findings: Counter<"code" | "severity">;

  constructor(sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry, prefix: "kubecompat_" });
    this.requests = new Counter({
      name: "kubecompat_http_requests_total",
      help: "HTTP requests by route and status",
      labelNames: ["method", "route", "status"],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: "kubecompat_http_request_duration_seconds",
      help: "HTTP request latency by route",
      labelNames: ["method", "route"],
      buckets: BUCKETS,
      registers: [this.registry],
    });
    this.operations = new Counter({
      name: "kubecompat_graphql_operations_total",
      help: "GraphQL operations",
      labelNames: ["operation", "type", "outcome"],
      registers: [this.registry],
    });
    this.operationLatency = new Histogram({
      name: "kubecompat_graphql_operation_duration_seconds",
      help: "GraphQL operation latency",
      labelNames: ["operation", "type"],
      buckets: BUCKETS,
      registers: [this.registry],
    });
    this.findings = new Counter({
      name: "kubecompat_findings_total",
      help: "Findings reported, by code",
      labelNames: ["code", "severity"],
      registers: [this.registry],
    });
    registerStateGauges(this.registry, sources);
    if (sources.refresh !== undefined) registerRefreshGauges(this.registry, sources.refresh);
    const caches = sources.answerCaches;
    if (caches !== undefined) registerAnswerCacheGauges(this.registry, caches);
  }

  /**
   * Counts and times every request by the name of its route (the pattern, not the raw path, so
   * label sets stay small): `routeName` finds it from the URL, so a route is one label whether it
   * answered or an error did. `arrivedAt` tells when the request came in: a read may have waited for
   * its turn before reaching the app, and that wait is part of its latency.
   */
  httpMiddleware(
    routeName: (req: Request) => string,
    arrivedAt: (req: Request) => bigint = () => process.hrtime.bigint(),
  ): RequestHandler {
    return (req, res, next) => {
      const started = arrivedAt(req);
      res.on("finish", () => {
        const route = routeName(req);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        this.requests.inc({ method: req.method, route, status: String(res.statusCode) });
        this.latency.observe({ method: req.method, route }, seconds);
      });
      next();
    };
  }

  recordFindings(findings: ReadonlyArray<{ code: string; severity: string }>): void {
    // Counted per code and severity first: a large scan has thousands of findings of a handful of kinds.
    const counts = new Map<string, { code: string; severity: string; count: number }>();
    for (const { code, severity } of findings) {
      const key = `${code} ${severity}`;
      const seen = counts.get(key);
      if (seen === undefined) counts.set(key, { code, severity, count: 1 });
      else seen.count += 1;
    }
    for (const { code, severity, count } of counts.values())
      this.findings.inc({ code, severity }, count);
  }

  apolloPlugin<T extends object>(): ApolloServerPlugin<T> {
    const operations = this.operations;
    const operationLatency = this.operationLatency;
    const recordFindings = (findings: Array<{ code: string; severity: string }>) =>
      this.recordFindings(findings);
    return {
      requestDidStart() {
        const started = process.hrtime.bigint();
        return Promise.resolve({
          willSendResponse({ operationName, operation, errors, response }) {
            const name = operationName ?? "anonymous";
            const type = operation?.operation ?? "unknown";
            operations.inc({
              operation: name,
              type,
              outcome: errors && errors.length > 0 ? "error" : "ok",
            });
            operationLatency.observe(
              { operation: name, type },
              Number(process.hrtime.bigint() - started) / 1e9,
            );
            const body = response.body;
            if (body.kind === "single" && body.singleResult.data) {
              for (const value of Object.values(body.singleResult.data)) {
                const findings = (value as { findings?: unknown } | null)?.findings;
                if (Array.isArray(findings))
                  recordFindings(findings as Array<{ code: string; severity: string }>);
              }
            }
            return Promise.resolve();
          },
        });
      },
    };
  }
}

/** A gauge read when scraped; a source that answers undefined (not known yet) leaves it unset. */
function valueGauge(
  registry: Registry,
  name: string,
  help: string,
  read: () => number | undefined,
): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const value = read();
      if (value !== undefined) this.set(value);
    },
  });
}

/** What this instance answers from and how it is doing: the snapshot, the database, the pool, the reads waiting. */
function registerStateGauges(registry: Registry, sources: MetricsSources): void {
  valueGauge(
    registry,
    "kubecompat_kb_revision",
    "Knowledge-base revision this instance answers from",
    sources.revision,
  );
  valueGauge(
    registry,
    "kubecompat_kb_conflicts_open",
    "Records that kb/ and a run-time edit changed differently, kept at the database's value until resolved (GET /api/v1/kb lists them)",
    () => sources.openConflicts?.(),
  );
  valueGauge(
    registry,
    "kubecompat_http_reads_waiting",
    "Reads waiting for their turn (READS_PER_TURN are let in per pass of the event loop; edits and probes do not wait)",
    () => sources.readsWaiting?.(),
  );
  valueGauge(
    registry,
    "kubecompat_kb_snapshot_age_seconds",
    "Seconds since this instance loaded its snapshot",
    () => {
      const loadedAt = sources.loadedAt();
      return loadedAt === undefined ? undefined : (Date.now() - Date.parse(loadedAt)) / 1000;
    },
  );
  valueGauge(
    registry,
    "kubecompat_database_reachable",
    "1 while the database answers, 0 while answers come from the last snapshot",
    () => {
      const reachable = sources.databaseReachable();
      return reachable === undefined ? undefined : reachable ? 1 : 0;
    },
  );
  new Gauge({
    name: "kubecompat_db_pool_connections",
    help: "Database pool connections by state",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const pool = sources.pool();
      if (pool === undefined) return;
      this.set({ state: "total" }, pool.total);
      this.set({ state: "idle" }, pool.idle);
      this.set({ state: "waiting" }, pool.waiting);
      this.set({ state: "max" }, pool.max);
    },
  });
}

/**
 * The review queue and the scheduled refresh: one scrape reads both from the
 * database once (the gauges share the read), and a database that does not
 * answer leaves them unset rather than failing the scrape.
 */
function registerRefreshGauges(registry: Registry, read: () => Promise<RefreshState>): void {
  let shared: Promise<RefreshState | undefined> | undefined;
  const state = () => {
    shared ??= read()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (shared = undefined)));
    return shared;
  };
  const seconds = (date: Date | null) => (date === null ? undefined : date.getTime() / 1000);
  const perSource = (
    name: string,
    help: string,
    pick: (check: RefreshState["sources"][number]) => number | undefined,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["source"],
      registers: [registry],
      async collect() {
        this.reset();
        for (const check of (await state())?.sources ?? []) {
          const value = pick(check);
          if (value !== undefined) this.set({ source: check.source }, value);
        }
      },
    });
  new Gauge({
    name: "kubecompat_proposals_open",
    help: "Proposals derived from upstream that wait for a reviewer (GET /api/v1/proposals)",
    registers: [registry],
    async collect() {
      const value = (await state())?.proposalsOpen;
      if (value !== undefined) this.set(value);
    },
  });
  perSource(
    "kubecompat_kb_refresh_last_attempt_timestamp_seconds",
    "When the scheduled refresh last read the upstream source, whatever came of it",
    (check) => seconds(check.lastAttemptAt),
  );
  perSource(
    "kubecompat_kb_refresh_last_success_timestamp_seconds",
    "When the scheduled refresh last read the upstream source successfully",
    (check) => seconds(check.lastSuccessAt),
  );
  perSource(
    "kubecompat_kb_refresh_source_up",
    "1 when the last read of the upstream source succeeded, 0 when it failed (the log and the webhook say why)",
    (check) => (check.outcome === "ok" ? 1 : 0),
  );
}

/** The answer caches, one label per face. */
function registerAnswerCacheGauges(
  registry: Registry,
  caches: () => Readonly<Record<string, AnswerCacheStats>>,
): void {
  const perFace = (name: string, help: string, pick: (stats: AnswerCacheStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["face"],
      registers: [registry],
      collect() {
        for (const [face, stats] of Object.entries(caches())) this.set({ face }, pick(stats));
      },
    });
  perFace(
    "kubecompat_answer_cache_hits",
    "Answers served from the answer cache since start",
    (stats) => stats.hits,
  );
  perFace(
    "kubecompat_answer_cache_misses",
    "Answers computed because the cache did not hold them, since start",
    (stats) => stats.misses,
  );
  perFace(
    "kubecompat_answer_cache_carried",
    "Answers kept when a newer snapshot came, because it holds every part of the knowledge they were made from, since start",
    (stats) => stats.carried,
  );
  perFace(
    "kubecompat_answer_cache_entries",
    "Answers held for the current snapshot",
    (stats) => stats.entries,
  );
  perFace(
    "kubecompat_answer_cache_bytes",
    "Approximate bytes of answers held for the current snapshot",
    (stats) => stats.bytes,
  );
}
