/**
 * GraphQL's half of remembered answers (REST's is src/rest/answers.ts): an
 * Apollo plugin that answers a query asked before under the same snapshot
 * (same document, operation name and variables, same day) with the data
 * computed the first time, skipping execution. Only operations whose every
 * root field is answered from the snapshot are remembered; the audit log is
 * read from the database and a mutation changes it, so neither is.
 */
import type { ApolloServerPlugin } from "@apollo/server";
import { HeaderMap } from "@apollo/server";
import { Kind, OperationTypeNode, type OperationDefinitionNode } from "graphql";
import type { AnswerCache } from "../services/answer-cache.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { today } from "../domain/validate.js";
import type { GraphQLContext } from "./context.js";

/** Root query fields that are pure functions of the snapshot and their arguments. */
export const SNAPSHOT_QUERY_FIELDS: ReadonlySet<string> = new Set([
  "__typename",
  "knowledgeBase",
  "components",
  "component",
  "ports",
  "links",
  "skewRules",
  "apiRemovals",
  "releases",
  "release",
  "profiles",
  "upgradeOrder",
  "runtimeRequirements",
  "recommendations",
  "flagChanges",
  "proxyModes",
  "runtimeReleases",
  "hostRequirements",
  "coverage",
  "apiGroupVersions",
  "behaviourChanges",
  "featureGates",
  "configurationApis",
  "controllers",
  "fieldRules",
  "addons",
  "addonApis",
  "platforms",
  "upgradeImpact",
  "flows",
  "firewallRules",
  "checkFirewall",
  "validateCluster",
  "planUpgrade",
  "validateFromKubectl",
  "planUpgradeFromKubectl",
  "checkRollback",
  "scanManifests",
  "scanCluster",
  "checkNodePoolUpgrade",
  "checkNodePoolRollback",
]);

/** Root query fields read from the database, never remembered. */
export const DATABASE_QUERY_FIELDS: ReadonlySet<string> = new Set(["auditLog"]);

export type RememberedData = Record<string, unknown>;

/** Variables larger than this (a manifest to scan) are answered but not remembered. */
const MAX_REMEMBERED_VARIABLES_CHARS = 32 * 1024;

/** Apollo asks even when no operation was chosen (an unknown name, two without a name); its typing says otherwise. */
function answeredFromSnapshot(operation: OperationDefinitionNode | undefined): boolean {
  return (
    operation !== undefined &&
    operation.operation === OperationTypeNode.QUERY &&
    operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && SNAPSHOT_QUERY_FIELDS.has(selection.name.value))
  );
}

export function rememberedAnswers(answers: AnswerCache<RememberedData>): ApolloServerPlugin<GraphQLContext> {
  return {
    requestDidStart() {
      let key: string | undefined;
      let snapshot: KbSnapshot | undefined;
      let remembered = false;
      return Promise.resolve({
        responseForOperation({ operation, operationName, queryHash, request, contextValue }) {
          if (!answers.enabled || !answeredFromSnapshot(operation)) return Promise.resolve(null);
          const variables = JSON.stringify(request.variables ?? {});
          if (variables.length > MAX_REMEMBERED_VARIABLES_CHARS) return Promise.resolve(null);
          snapshot = contextValue.snapshot;
          key = `${today()}\n${operationName ?? ""}\n${queryHash}\n${variables}`;
          const data = answers.get(snapshot, key);
          if (data === undefined) return Promise.resolve(null);
          remembered = true;
          return Promise.resolve({ http: { status: undefined, headers: new HeaderMap() }, body: { kind: "single", singleResult: { data } } });
        },
        willSendResponse({ response }) {
          if (key === undefined || snapshot === undefined || remembered) return Promise.resolve();
          const body = response.body;
          // Only clean answers: an error names the caller's input and costs little to recompute.
          if (body.kind === "single" && body.singleResult.errors === undefined && body.singleResult.data) {
            const data = body.singleResult.data;
            answers.set(snapshot, key, data, JSON.stringify(data).length * 2);
          }
          return Promise.resolve();
        },
      });
    },
  };
}
