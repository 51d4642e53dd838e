/**
 * GraphQL mutations are writes: they take from the same per-caller budget
 * as the REST edit routes. Decided from the parsed operation, inside
 * execution, so a mutation sent as an automatic persisted query (a hash,
 * no text) or in any spelling of the document counts like any other.
 */
import type { ApolloServerPlugin } from "@apollo/server";
import { OperationTypeNode } from "graphql";
import { RateLimitedError } from "../core/errors.js";
import { BUDGET_WINDOW_MS, type BudgetUse, type MinuteBudgets } from "../core/minute-budgets.js";
import type { GraphQLContext } from "./context.js";

export function mutationBudget(budgets: MinuteBudgets): ApolloServerPlugin<GraphQLContext> {
  return {
    requestDidStart() {
      let use: BudgetUse | undefined;
      return Promise.resolve({
        didResolveOperation({ operation, contextValue }) {
          if (operation?.operation !== OperationTypeNode.MUTATION) return Promise.resolve();
          use = budgets.take(contextValue.caller);
          if (use.allowed) return Promise.resolve();
          // Its status (429) is statusOfErrors' (./errors.ts), as for every GraphQL error.
          throw new RateLimitedError(
            `too many write requests: at most ${budgets.perMinute} a minute; retry after the Retry-After delay`,
            BUDGET_WINDOW_MS / 1000,
          );
        },
        willSendResponse({ response }) {
          if (use === undefined) return Promise.resolve();
          response.http.headers.set("ratelimit-policy", budgets.policy);
          response.http.headers.set(
            "ratelimit",
            `limit=${budgets.perMinute}, remaining=${use.remaining}, reset=${use.resetSeconds}`,
          );
          if (!use.allowed)
            response.http.headers.set("retry-after", String(BUDGET_WINDOW_MS / 1000));
          // Refused because the database was away: no work was done, so it is not counted (as over REST).
          if (response.http.status === 503) use.giveBack();
          return Promise.resolve();
        },
      });
    },
  };
}
