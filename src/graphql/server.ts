/**
 * Mounts Apollo Server (SDL from schema.graphql) at /graphql, and the
 * offline playground for browsers that GET /graphql or /playground.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import type { Express, RequestHandler } from "express";
import type { Curator } from "../kb/curation.js";
import { principalOf } from "../rest/auth.js";
import type { KnowledgeBase } from "../kb/knowledge-base.js";
import type { Logger } from "../logger.js";
import type { GraphQLContext } from "./context.js";
import { formatGraphQLError } from "./errors.js";
import { playgroundPage } from "./playground.js";
import { resolvers } from "./resolvers.js";

export const SCHEMA_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../schema.graphql");

export interface GraphQLDependencies {
  readonly kb: KnowledgeBase;
  readonly logger: Logger;
  readonly curator: Curator | undefined;
  /** Resolves the caller (bearer token) into res.locals.principal. */
  readonly identify: RequestHandler;
}

export async function mountGraphQL(app: Express, deps: GraphQLDependencies): Promise<ApolloServer<GraphQLContext>> {
  const { kb, logger } = deps;
  const server = new ApolloServer<GraphQLContext>({
    typeDefs: fs.readFileSync(SCHEMA_PATH, "utf8"),
    resolvers,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError(logger),
    plugins: [ApolloServerPluginLandingPageDisabled()],
  });
  await server.start();

  app.get(["/graphql", "/playground"], (req, res, next) => {
    const wantsPage = req.path === "/playground" || (req.accepts(["application/json", "text/html"]) === "text/html" && req.query.query === undefined);
    if (!wantsPage) {
      next();
      return;
    }
    res.type("html").send(playgroundPage());
  });
  app.use(
    "/graphql",
    deps.identify,
    expressMiddleware(server, {
      // One snapshot per request: every field of one answer comes from the same revision.
      context: ({ res }) => Promise.resolve({ snapshot: kb.current(), principal: principalOf(res), curator: deps.curator }),
    }),
  );
  return server;
}
