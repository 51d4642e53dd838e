/**
 * Builds the Express application without listening, so tests mount it
 * directly. Faces (REST, GraphQL) are mounted here; none of them holds rule
 * logic.
 */
import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express, type Request, type RequestHandler, type Router } from "express";
import { AnswerCache } from "./services/answer-cache.js";
import { rememberRawBody, type SentAnswer } from "./rest/answers.js";
import type { Config, TrustProxy } from "./core/config.js";
import type { KnowledgeBase } from "./services/knowledge-base.js";
import type { Logger } from "./core/logger.js";
import { errorMiddleware, notFoundHandler } from "./http/error-middleware.js";
import { homeRoutes } from "./rest/home.js";
import { RouteTable, pathOf } from "./http/route-table.js";
import { readRoutes } from "./rest/read-routes.js";
import { operationRoutes } from "./rest/operation-routes.js";
import { DOCS_ASSETS, docsRoutes } from "./rest/docs.js";
import { openApiDocument } from "./rest/openapi.js";
import { chatopsRouter } from "./chatops/router.js";
import { mcpRoutes } from "./mcp/routes.js";
import { readFileSync } from "node:fs";
import { mountGraphQL } from "./graphql/server.js";
import type { RememberedData } from "./graphql/remembered-answers.js";
import type { Authenticator } from "./services/authenticator.js";
import type { Curator } from "./services/curation.js";
import { authenticate } from "./http/auth.js";
import { metricsGuard } from "./http/metrics-guard.js";
import { curationRoutes } from "./rest/curation-routes.js";
import { proposalRoutes } from "./rest/proposal-routes.js";
import { proposalPageRoutes } from "./rest/proposal-page.js";
import type { ProposalReview } from "./services/proposals.js";
import type { FleetService } from "./services/fleet.js";
import { fleetRoutes } from "./rest/fleet-routes.js";
import { fleetPageRoutes } from "./rest/fleet-page.js";
import type { RefreshLedger } from "./services/refresh-state.js";
import { limitJsonDepth } from "./http/limits.js";
import { rateLimited } from "./http/rate-limits.js";
import { MinuteBudgets } from "./core/minute-budgets.js";
import {
  DEFAULT_LARGE_REQUEST_LIMITS,
  admitLargeRequests,
  type LargeRequestLimits,
} from "./http/large-requests.js";
import { arrivedAt, readTurns } from "./http/read-turns.js";
import { ENTITIES } from "./knowledge/registry.js";
import helmet from "helmet";
import type { PoolStats } from "./db/client.js";
import { Metrics } from "./http/metrics.js";

export interface AppDependencies {
  readonly kb: KnowledgeBase;
  readonly isDatabaseReachable: () => Promise<boolean>;
  readonly logger: Logger;
  /** Secrets of the chat endpoints; they answer 503 while unset. */
  readonly chatops?: Config["chatops"];
  /** Edits, import, export and audit; without it the knowledge base is read-only. */
  readonly curator?: Curator;
  /** The review queue of proposals derived from upstream; without it there are no proposal routes. */
  readonly proposals?: ProposalReview;
  /** When each upstream source was last refreshed, and the proposals open (metrics, coverage). */
  readonly refreshLedger?: RefreshLedger;
  /** Resolves bearer tokens; without it every caller is anonymous. */
  readonly authenticator?: Authenticator;
  readonly requireAuthForReads?: boolean;
  /** The token /metrics asks for; without it /metrics follows requireAuthForReads. */
  readonly metricsToken?: string | null;
  /** Which proxies in front may name the client (Express's "trust proxy"); none by default. */
  readonly trustProxy?: TrustProxy;
  /** Strict-Transport-Security on every answer (TLS ends in front); else only on answers that came over TLS. */
  readonly hsts?: boolean;
  /** Failed authentications an address may make a minute before it is refused unchecked. */
  readonly authFailuresPerMinute?: number;
  readonly rateLimits?: Config["rateLimits"];
  /** Production hides schema details (field suggestions) from GraphQL errors. */
  readonly production?: boolean;
  /** Whether the database answered lately; while it does not, answers say they may be stale. */
  readonly freshness?: { readonly databaseReachable: boolean };
  /** The database pool's connections, for /metrics. */
  readonly poolStats?: () => PoolStats | undefined;
  /** Bytes of answers remembered per snapshot, for REST and for GraphQL each; 0 turns it off. */
  readonly answerCacheBytes?: number;
  /** How many large requests are read at a time, and how long others wait. */
  readonly largeRequests?: LargeRequestLimits;
  /** Reads let in per pass of the event loop, so edits and probes do not wait behind them (src/http/read-turns.ts); 0: no turns. */
  readonly readsPerTurn?: number;
  /** The fleet (registered clusters, events, subscriptions); without it there are no fleet routes. */
  readonly fleet?: FleetService;
}

/** The app, and what must be stopped after the HTTP server has drained (Apollo). */
export interface AppHandle {
  readonly app: Express;
  stop(): Promise<void>;
}

export const DEFAULT_ANSWER_CACHE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_READS_PER_TURN = 4;

/** Probes and scrapes: a busy instance must still say it is alive, or it is restarted for being busy. */
const PROBES = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Paths that do not go through token identification: the probes (a kubelet sends no token), /metrics
 * (its own token, below) and the chat endpoints (Slack's signature, the bots' CHATOPS_TOKEN).
 */
function identifiedElsewhere(path: string): boolean {
  return PROBES.has(path) || path === "/chatops" || path.startsWith("/chatops/");
}

/**
 * The Content-Security-Policy of every answer but the documentation and the playground, which run
 * scripts: nothing may be loaded, framed or run. The front page widens it to its inline styles.
 */
const NOTHING_LOADS =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** A year, as browsers' preload lists ask. */
const HSTS = "max-age=31536000; includeSubDomains";

/**
 * Whether a request is a read that takes its turn (src/http/read-turns.ts): everything but the probes
 * and the edits (POST, PUT, DELETE on a collection of records, and an import). A GraphQL mutation is
 * told apart only once its body is parsed, so it takes its turn like any GraphQL request.
 */
function readsTakingTurns(): (method: string, path: string) => boolean {
  const collections = new Set(Object.values(ENTITIES).map((entry) => entry.collection));
  return (method, path) => {
    if (method === "GET" || method === "HEAD") return !PROBES.has(path);
    // A reviewer's decision on the queue's page is an edit too.
    if (path.startsWith("/proposals/")) return false;
    if (!path.startsWith("/api/v1/")) return true;
    const [first, ...rest] = path.slice("/api/v1/".length).split("/");
    if (first === "kb") return !(rest.length === 1 && rest[0] === "import");
    // Approving and rejecting proposals are edits.
    if (first === "proposals") return false;
    return !(first !== undefined && collections.has(first) && rest.length <= 1);
  };
}

/** Express's own entry point for each request (not in its typings). */
type ExpressHandle = (
  req: IncomingMessage,
  res: ServerResponse,
  callback?: (error?: unknown) => void,
) => void;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export async function createApp(deps: AppDependencies): Promise<Express> {
  return (await createAppHandle(deps)).app;
}

/**
 * As createApp, with a stop that ends Apollo Server. It is not stopped by
 * the signal itself, so GraphQL requests in flight during the HTTP drain
 * complete; server.ts calls stop() once the drain is done.
 */
/** The version MCP clients are told: package.json's, one level up from src/ and from dist/ alike. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

export async function createAppHandle(deps: AppDependencies): Promise<AppHandle> {
  const app = express();
  const turns = readsInTurns(app, deps.readsPerTurn ?? DEFAULT_READS_PER_TURN);
  app.disable("x-powered-by");
  app.set("trust proxy", deps.trustProxy ?? false);
  app.set("etag", false);
  app.set("query parser", "simple");

  // Answers remembered per snapshot, one budget per face; each empties itself when the snapshot changes.
  const answerCacheBytes = deps.answerCacheBytes ?? DEFAULT_ANSWER_CACHE_BYTES;
  const restAnswers = new AnswerCache<SentAnswer>(answerCacheBytes);
  const graphqlAnswers = new AnswerCache<RememberedData>(answerCacheBytes);
  const metrics = new Metrics({
    revision: () => (deps.kb.loaded ? deps.kb.current().revision : undefined),
    openConflicts: () => (deps.kb.loaded ? deps.kb.current().conflicts.length : undefined),
    loadedAt: () => (deps.kb.loaded ? deps.kb.current().loadedAt : undefined),
    databaseReachable: () => deps.freshness?.databaseReachable,
    pool: () => deps.poolStats?.(),
    answerCaches: () => ({ rest: restAnswers.stats(), graphql: graphqlAnswers.stats() }),
    readsWaiting: () => turns.stats().waiting,
    refresh: deps.refreshLedger && (() => deps.refreshLedger!.read()),
  });
  // Filled once every route is mounted (below); requests are named by it, in metrics and logs alike.
  const routes = new RouteTable();
  // Counted from the request's arrival, so a read's wait for its turn is in its latency.
  app.use(metrics.httpMiddleware((req) => routes.name(req), arrivedAt));
  app.use(requestLog(deps.logger, routes));
  app.use(securityHeaders(deps.hsts === true));
  // Who is calling, before any body is read: with reads protected, an anonymous caller makes the service parse nothing.
  const identify = authenticate({
    authenticator: deps.authenticator,
    requireAuthForReads: deps.requireAuthForReads ?? false,
    failuresPerMinute: deps.authFailuresPerMinute,
  });
  app.use((req, res, next) => (identifiedElsewhere(req.path) ? next() : identify(req, res, next)));
  readBodies(app, deps.largeRequests ?? DEFAULT_LARGE_REQUEST_LIMITS);

  const home = homeRoutes(deps.kb);
  app.use(home);

  mountServiceRoutes(app, deps, metrics, identify);
  // While the database is away, answers still come from the last snapshot; tell callers it may be stale.
  app.use(["/api/v1", "/graphql", "/chatops", "/mcp"], staleWarning(deps.freshness));
  const limits = deps.rateLimits ?? { writesPerMinute: 120, chatPerMinute: 60 };
  // One budget per caller for every write, whether it came over REST or as a GraphQL mutation.
  const writeBudgets = new MinuteBudgets(limits.writesPerMinute);
  const writeLimit = rateLimited(limits.writesPerMinute, "write", writeBudgets);
  const reads = readRoutes(deps.kb, restAnswers, deps.refreshLedger);
  // Reads are GETs: checks and edits skip matching the read routes' paths one by one.
  app.use("/api/v1", (req, res, next) =>
    req.method === "GET" || req.method === "HEAD" ? reads(req, res, next) : next(),
  );
  const operations = operationRoutes(deps.kb, {
    answers: restAnswers,
    onFindings: (findings) => metrics.recordFindings(findings),
  });
  app.use("/api/v1", operations);
  const curation = mountUnderApi(
    app,
    deps.curator && curationRoutes(deps.kb, deps.curator, writeLimit),
  );
  const queue = mountReviewQueue(app, deps, writeLimit);
  const fleet = mountFleet(app, deps, writeLimit);
  const docs = docsRoutes();
  app.use(docs);
  const chat = mountChat(app, deps, limits.chatPerMinute);
  const graphql = await mountGraphQL(app, {
    refreshLedger: deps.refreshLedger,
    kb: deps.kb,
    logger: deps.logger,
    curator: deps.curator,
    review: deps.proposals,
    fleet: deps.fleet,
    writeBudgets,
    production: deps.production ?? false,
    answers: graphqlAnswers,
    plugins: [metrics.apolloPlugin()],
  });

  // The app's own routes (health, metrics, GraphQL), then each mounted router's.
  routes
    .addRouter("", app.router as Router)
    .addRouter("", home)
    .addRouter("/api/v1", reads)
    .addRouter("/api/v1", operations)
    .addRouter("", docs)
    .addRouter("", queue.page)
    .addRouter("/chatops", chat)
    .addRouter("", mountMcp(app, deps));
  for (const router of [curation, queue.rest, fleet.rest])
    if (router) routes.addRouter("/api/v1", router);
  if (fleet.page) routes.addRouter("", fleet.page);
  routes.add(DOCS_ASSETS, ["GET"], { prefix: true });

  app.use(notFoundHandler(routes));
  app.use(errorMiddleware(deps.logger));
  return { app, stop: () => graphql.stop() };
}

/** The chat endpoints at /chatops (Slack's slash command, other bots, the dev mode), with the queue and the fleet. */
function mountChat(app: Express, deps: AppDependencies, perMinute: number): Router {
  const chat = chatopsRouter({
    kb: deps.kb,
    chatops: deps.chatops,
    logger: deps.logger,
    perMinute,
    review: deps.proposals,
    fleet: deps.fleet,
  });
  app.use("/chatops", chat);
  return chat;
}

/** Routes the app has only with their service (curation, the fleet), under /api/v1. */
function mountUnderApi(app: Express, router: Router | undefined): Router | undefined {
  if (router) app.use("/api/v1", router);
  return router;
}

/** The fleet, with its service only: its REST routes under /api/v1 and its page at /fleet. */
function mountFleet(
  app: Express,
  deps: AppDependencies,
  writeLimit: RequestHandler,
): { rest: Router | undefined; page: Router | undefined } {
  if (deps.fleet === undefined) return { rest: undefined, page: undefined };
  const rest = mountUnderApi(app, fleetRoutes(deps.fleet, writeLimit));
  const page = fleetPageRoutes({ fleet: deps.fleet, kb: deps.kb });
  app.use(page);
  return { rest, page };
}

/** MCP at /mcp: the questions as tools, read through the same identification as REST. */
function mountMcp(app: Express, deps: AppDependencies): Router {
  const mcp = mcpRoutes(
    {
      kb: deps.kb,
      logger: deps.logger,
      lastChecked: deps.refreshLedger && (() => deps.refreshLedger!.lastChecked()),
    },
    PACKAGE_VERSION,
  );
  app.use(mcp);
  return mcp;
}

/** The review queue of proposals: its REST routes (with a database) and its page (always, saying when there is no queue). */
function mountReviewQueue(
  app: Express,
  deps: AppDependencies,
  writeLimit: RequestHandler,
): { rest: Router | undefined; page: Router } {
  const rest = deps.proposals ? proposalRoutes(deps.kb, deps.proposals, writeLimit) : undefined;
  if (rest) app.use("/api/v1", rest);
  const page = proposalPageRoutes({
    kb: deps.kb,
    review: deps.proposals,
    authenticator: deps.authenticator,
    writeLimit,
  });
  app.use(page);
  return { rest, page };
}

/**
 * Reads wait their turn (src/http/read-turns.ts) before the app handles them at all: Express calls
 * app.handle for every request, however the app is served (src/http/app-server.ts, app.listen, the tests).
 */
function readsInTurns(app: Express, readsPerTurn: number): ReturnType<typeof readTurns> {
  const turns = readTurns(readsPerTurn, readsTakingTurns());
  const handle = (app as unknown as { handle: ExpressHandle }).handle.bind(app);
  (app as unknown as { handle: ExpressHandle }).handle = (req, res, callback) =>
    turns.admit(req, res, () => handle(req, res, callback));
  return turns;
}

/**
 * Bodies are read after the caller is known. Manifests for scanning may be large (src/domain/scan.ts
 * caps them at 10 MiB), so large bodies (manifests, bundles) are read a few at a time and the capped
 * heap cannot run out; a small body's bytes are kept as the key of remembered answers (src/rest/answers.ts).
 */
function readBodies(app: Express, largeRequests: LargeRequestLimits): void {
  app.use(admitLargeRequests(largeRequests));
  app.use(
    express.json({
      limit: "11mb",
      strict: true,
      verify: (req, _res, buffer) => rememberRawBody(req as Request, buffer),
    }),
  );
  app.use(limitJsonDepth());
}

/**
 * A caller's request id is kept when it is sane, so logs can be correlated across services; one
 * structured line per request, with the full path (not the one inside a mounted router). Headers
 * (tokens, signatures) and query strings are never logged.
 */
function requestLog(logger: Logger, routes: RouteTable): RequestHandler {
  return (req, res, next) => {
    const given = req.headers["x-request-id"];
    const requestId =
      typeof given === "string" && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    res.setHeader("X-Request-Id", requestId);
    res.locals.requestId = requestId;
    const started = arrivedAt(req);
    res.on("finish", () => {
      logger.info(
        {
          requestId,
          method: req.method,
          path: pathOf(req),
          route: routes.name(req),
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        "request",
      );
    });
    next();
  };
}

/** Security headers from helmet, with our own CSP (nothing loads) and HSTS (only where it means something). */
function securityHeaders(hstsAlways: boolean): RequestHandler[] {
  return [
    helmet({
      contentSecurityPolicy: false,
      crossOriginEmbedderPolicy: false,
      strictTransportSecurity: false,
    }),
    (req, res, next) => {
      res.setHeader("Content-Security-Policy", NOTHING_LOADS);
      // Over plain HTTP the header means nothing to a browser and misleads a reader; behind a proxy that ends TLS, HSTS=true.
      if (hstsAlways || req.secure) res.setHeader("Strict-Transport-Security", HSTS);
      next();
    },
  ];
}

/** The service's own routes: the probes, /metrics (behind its guard) and the index of the REST API. */
function mountServiceRoutes(
  app: Express,
  deps: AppDependencies,
  metrics: Metrics,
  identify: RequestHandler,
): void {
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (_req, res) => {
    const database = await deps.isDatabaseReachable();
    const knowledgeBase = deps.kb.loaded;
    const ready = database && knowledgeBase;
    res.status(ready ? 200 : 503).json({
      status: ready ? "ready" : "not ready",
      database: database ? "reachable" : "unreachable",
      knowledgeBase: knowledgeBase
        ? { loaded: true, revision: deps.kb.current().revision }
        : { loaded: false },
    });
  });
  app.get(
    "/metrics",
    metricsGuard({
      token: deps.metricsToken ?? null,
      identify,
      requireAuthForReads: deps.requireAuthForReads ?? false,
    }),
    async (_req, res) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  );
  app.get("/api/v1", (_req, res) => {
    const routes = Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    res.json({ routes, openapi: "/openapi.json", docs: "/docs", graphql: "/graphql" });
  });
}

/** While the database is away, answers come from the last snapshot: say they may be stale. */
function staleWarning(freshness: AppDependencies["freshness"]): RequestHandler {
  return (_req, res, next) => {
    if (freshness && !freshness.databaseReachable) {
      res.setHeader("X-Kubecompat-Stale", "true");
      res.setHeader(
        "Warning",
        '110 kubecompat "database unreachable: answer from the last loaded knowledge base"',
      );
    }
    next();
  };
}
