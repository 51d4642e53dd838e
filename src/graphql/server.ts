/**
 * Mounts Apollo Server (SDL from schema.graphql) at /graphql, and the
 * offline playground for browsers that GET /graphql or /playground.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import { unwrapResolverError } from "@apollo/server/errors";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import type { Express } from "express";
import { GraphQLError, type ValidationRule } from "graphql";
import type { Curator } from "../services/curation.js";
import type { FleetService } from "../services/fleet.js";
import type { ProposalReview } from "../services/proposals.js";
import type { RefreshLedger } from "../services/refresh-state.js";
import { callerKey, principalOf } from "../http/auth.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import type { Logger } from "../core/logger.js";
import type { GraphQLContext } from "./context.js";
import { formatGraphQLError, isInternalGraphQLError, statusOfErrors } from "./errors.js";
import { describeError } from "../http/errors.js";
import { playgroundPage } from "./playground.js";
import { resolvers } from "./resolvers.js";
import { proposalResolvers } from "./proposal-resolvers.js";
import { fleetResolvers } from "./fleet-resolvers.js";
import { kindListResolvers, registeredKindTypeDefs } from "./kind-lists.js";
import { AnswerCache } from "../services/answer-cache.js";
import { rememberedAnswers, type RememberedData } from "./remembered-answers.js";
import { mutationBudget } from "./mutation-budget.js";
import type { MinuteBudgets } from "../core/minute-budgets.js";

export const SCHEMA_PATH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../schema.graphql",
);

export interface GraphQLDependencies {
  readonly kb: KnowledgeBase;
  readonly logger: Logger;
  readonly curator: Curator | undefined;
  /** The review queue of proposals; without it the proposal fields answer UNAVAILABLE. */
  readonly review?: ProposalReview;
  /** The fleet; without it the fleet's fields answer UNAVAILABLE. */
  readonly fleet?: FleetService;
  /** When each upstream source was last refreshed (coverage's lastChecked); without it, the source dates. */
  readonly refreshLedger?: RefreshLedger;
  /** The write budgets mutations take from, shared with the REST edit routes. */
  readonly writeBudgets: MinuteBudgets;
  /** In production, errors do not suggest field names (no schema probing through typos). */
  readonly production: boolean;
  /** Answers remembered per snapshot (src/graphql/remembered-answers.ts); off unless given. */
  readonly answers?: AnswerCache<RememberedData>;
  /** More Apollo plugins (metrics). */
  readonly plugins?: ReadonlyArray<ApolloServerPlugin<GraphQLContext>>;
}

/**
 * Limits on what one document may ask for, so that no query can cost the
 * service more than a bounded amount of work. Introspection stays allowed
 * (bots and the playground need it) and is exempt from the depth limit.
 */
export const MAX_TOKENS = 4000;

/** Every error formatError masks is logged here, where the request id is known (formatError has no context). */
function errorLog(logger: Logger): ApolloServerPlugin<GraphQLContext> {
  return {
    requestDidStart() {
      return Promise.resolve({
        didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            if (isInternalGraphQLError(error, error.originalError)) {
              logger.error(
                {
                  err: unwrapResolverError(error),
                  requestId: contextValue.requestId,
                  path: error.path,
                },
                "unhandled GraphQL error",
              );
            }
          }
          return Promise.resolve();
        },
      });
    },
  };
}

/**
 * graphql-js leaves an operation type the schema does not have (this one has
 * no subscriptions) to execution, where it surfaces as an internal error;
 * refused here it is a validation error (400) that says what to use.
 */
export const operationTypesOfTheSchema: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (context.getSchema().getRootType(node.operation) === undefined) {
      context.reportError(
        new GraphQLError(
          `this service has no ${node.operation} operations; send a query or a mutation`,
          { nodes: node },
        ),
      );
    }
  },
});

export function queryLimits(production: boolean) {
  return new ApolloArmor({
    maxDepth: { n: 12, ignoreIntrospection: true, flattenFragments: true },
    maxAliases: { n: 15 },
    maxDirectives: { n: 10 },
    // Counted by graphql-js's own parser instead (parseOptions below): armor's token plugin turns syntax errors into 500s.
    maxTokens: { enabled: false },
    costLimit: {
      maxCost: 5000,
      objectCost: 2,
      scalarCost: 1,
      depthCostFactor: 1.5,
      ignoreIntrospection: true,
    },
    blockFieldSuggestion: { enabled: production },
  }).protect();
}

export async function mountGraphQL(
  app: Express,
  deps: GraphQLDependencies,
): Promise<ApolloServer<GraphQLContext>> {
  const { kb, logger } = deps;
  const limits = queryLimits(deps.production);
  const server = new ApolloServer<GraphQLContext>({
    // The kinds' plain lists come from the registry (kind-lists.ts), with the SDL of kinds registered at run time.
    typeDefs: [fs.readFileSync(SCHEMA_PATH, "utf8"), registeredKindTypeDefs() ?? []].flat(),
    resolvers: [resolvers, proposalResolvers, fleetResolvers, kindListResolvers()],
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // One operation per request: a batch of a thousand would slip past every per-document limit.
    allowBatchedHttpRequests: false,
    // server.ts stops Apollo after the HTTP drain; stopping on the signal would fail the GraphQL requests still in flight.
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: MAX_TOKENS },
    formatError: formatGraphQLError({ production: deps.production }),
    validationRules: [...limits.validationRules, operationTypesOfTheSchema],
    plugins: [
      ...(limits.plugins as ApolloServerPlugin<GraphQLContext>[]),
      ApolloServerPluginLandingPageDisabled(),
      // No @cacheControl hints here; the default cache-control plugin would wrap every field resolver for nothing.
      ApolloServerPluginCacheControlDisabled(),
      statusOfErrors,
      errorLog(logger),
      mutationBudget(deps.writeBudgets),
      rememberedAnswers(deps.answers ?? new AnswerCache<RememberedData>(0)),
      ...(deps.plugins ?? []),
    ],
  });
  await server.start();

  app.get(["/graphql", "/playground"], async (req, res, next) => {
    const wantsPage =
      req.path === "/playground" ||
      (req.accepts(["application/json", "text/html"]) === "text/html" &&
        req.query.query === undefined);
    if (!wantsPage) {
      next();
      return;
    }
    // The playground runs its (inlined) scripts: the app's policy that nothing runs does not fit it.
    res.removeHeader("Content-Security-Policy");
    res.type("html").send(await playgroundPage());
  });
  const graphql = expressMiddleware(server, {
    // One snapshot per request: every field of one answer comes from the same revision.
    context: ({ req, res }) => {
      const header = res.getHeader("x-request-id");
      const requestId = typeof header === "string" ? header : undefined;
      try {
        const principal = principalOf(res);
        return Promise.resolve({
          snapshot: kb.current(),
          principal,
          caller: callerKey(principal, req.ip),
          curator: deps.curator,
          review: deps.review,
          fleet: deps.fleet,
          lastChecks: onceLastChecks(deps.refreshLedger),
          latest: () => kb.current(),
          requestId,
        });
      } catch (error) {
        // Before the operation starts, so errorLog never sees it: logged here, with the request id.
        if (describeError(error).internal)
          logger.error({ err: error, requestId }, "unhandled GraphQL error");
        throw error;
      }
    },
  });
  // Routes, not a mounted middleware: GraphQL is served at /graphql itself over GET and POST, any
  // other method is 405 (src/http/route-table.ts), and logs and metrics name it "/graphql".
  // The caller was identified before the body was read (src/app.ts); mutations are counted inside execution.
  app.get("/graphql", graphql);
  app.post("/graphql", graphql);
  return server;
}

/** The refresh's last checks, read at most once per request, and not at all unless a field asks. */
function onceLastChecks(
  ledger: RefreshLedger | undefined,
): () => Promise<ReadonlyMap<string, string> | undefined> {
  let read: Promise<ReadonlyMap<string, string> | undefined> | undefined;
  return () => (read ??= ledger?.lastChecked() ?? Promise.resolve(undefined));
}
