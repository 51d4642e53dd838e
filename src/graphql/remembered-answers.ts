/**
 * GraphQL's half of remembered answers (REST's is src/rest/answers.ts): an
 * Apollo plugin that answers a query asked before (same document, operation
 * name and variables, same day) with the data computed the first time,
 * skipping execution, as long as the snapshot in force holds every part of
 * the knowledge the data was made from (src/knowledge/snapshot-reads.ts):
 * such a query runs against a watching view of its snapshot, and the
 * revision in the data is the one in force when it is sent. Only operations
 * whose every root field is answered from the snapshot are remembered; the
 * audit log, the review queue and the fleet are read from the database and a mutation changes it, so
 * none is.
 */
import type { ApolloServerPlugin } from "@apollo/server";
import { HeaderMap } from "@apollo/server";
import { Kind, OperationTypeNode, type OperationDefinitionNode } from "graphql";
import type { AnswerCache } from "../services/answer-cache.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import {
  fillRevisionIn,
  holdsStandIn,
  watched,
  type WatchedSnapshot,
} from "../knowledge/snapshot-reads.js";
import { today } from "../domain/validate.js";
import type { GraphQLContext } from "./context.js";
import { builtInKindListFields, isKindListField } from "./kind-lists.js";

/**
 * Root query fields read from the database, never remembered (coverage: its lastChecked is the refresh's; the
 * fleet: judged again on the day and by every replica, not only when this snapshot changes).
 */
export const DATABASE_QUERY_FIELDS: ReadonlySet<string> = new Set([
  "auditLog",
  "coverage",
  "proposals",
  "proposal",
  "fleetClusters",
  "fleetCluster",
  "fleetEvents",
  "fleetSubscriptions",
  "fleetDeliveries",
  "fleetWaivers",
  "fleetBaselineCheck",
]);

/**
 * Root query fields that are pure functions of the snapshot and their arguments: these, and every kind's
 * plain list (from the entity registry, kind-lists.ts).
 */
export const SNAPSHOT_QUERY_FIELDS: ReadonlySet<string> = new Set([
  ...builtInKindListFields().filter((field) => !DATABASE_QUERY_FIELDS.has(field)),
  "__typename",
  "knowledgeBase",
  "components",
  "component",
  "ports",
  "skewRules",
  "apiRemovals",
  "releases",
  "release",
  "flagChanges",
  "featureGates",
  "addons",
  "addonApis",
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
  "scanChart",
  "fixManifests",
  "scanCluster",
  "checkNodePoolUpgrade",
  "checkNodePoolRollback",
]);

export type RememberedData = Record<string, unknown>;

/** Variables larger than this (a manifest to scan) are answered but not remembered. */
const MAX_REMEMBERED_VARIABLES_CHARS = 32 * 1024;

/** Apollo asks even when no operation was chosen (an unknown name, two without a name); its typing says otherwise. */
function answeredFromSnapshot(operation: OperationDefinitionNode | undefined): boolean {
  return (
    operation !== undefined &&
    operation.operation === OperationTypeNode.QUERY &&
    operation.selectionSet.selections.every(
      (selection) =>
        selection.kind === Kind.FIELD &&
        !DATABASE_QUERY_FIELDS.has(selection.name.value) &&
        (SNAPSHOT_QUERY_FIELDS.has(selection.name.value) || isKindListField(selection.name.value)),
    )
  );
}

/** Remembered data filled with the last revision it was sent under. */
const filled = new WeakMap<
  RememberedData,
  { readonly revision: number; readonly data: RememberedData }
>();

function dataUnder(data: RememberedData, revision: number): RememberedData {
  const last = filled.get(data);
  if (last?.revision === revision) return last.data;
  const made = fillRevisionIn(data, revision);
  filled.set(data, { revision, data: made });
  return made;
}

export function rememberedAnswers(
  answers: AnswerCache<RememberedData>,
): ApolloServerPlugin<GraphQLContext> {
  return {
    requestDidStart() {
      let key: string | undefined;
      let snapshot: KbSnapshot | undefined;
      let watch: WatchedSnapshot | undefined;
      let remembered = false;
      return Promise.resolve({
        responseForOperation({ operation, operationName, queryHash, request, contextValue }) {
          if (!answers.enabled || !answeredFromSnapshot(operation)) return Promise.resolve(null);
          const variables = JSON.stringify(request.variables ?? {});
          if (variables.length > MAX_REMEMBERED_VARIABLES_CHARS) return Promise.resolve(null);
          // A question holding the view's stand-in (it cannot, but then) is answered and not remembered.
          if (
            holdsStandIn(variables) ||
            (request.query !== undefined && holdsStandIn(request.query))
          )
            return Promise.resolve(null);
          snapshot = contextValue.snapshot;
          key = `${today()}\n${operationName ?? ""}\n${queryHash}\n${variables}`;
          const data = answers.get(snapshot, key);
          if (data !== undefined) {
            remembered = true;
            return Promise.resolve({
              http: { status: undefined, headers: new HeaderMap() },
              body: { kind: "single", singleResult: { data: dataUnder(data, snapshot.revision) } },
            });
          }
          // Executed against a view that notes what it reads, so the data can outlive edits of other knowledge.
          watch = watched(snapshot);
          contextValue.snapshot = watch.view;
          return Promise.resolve(null);
        },
        willSendResponse({ response, contextValue }) {
          if (key === undefined || snapshot === undefined || watch === undefined || remembered)
            return Promise.resolve();
          contextValue.snapshot = snapshot;
          const body = response.body;
          if (body.kind !== "single") return Promise.resolve();
          const result = body.singleResult;
          const data = result.data;
          // Only clean answers: an error names the caller's input and costs little to recompute.
          // Two bytes a character (the data filled with the revision in force shares all but the path to it).
          if (result.errors === undefined && data)
            answers.set(snapshot, key, data, JSON.stringify(data).length * 2, watch.reads());
          if (data) result.data = dataUnder(data, snapshot.revision);
          if (result.errors !== undefined)
            result.errors = fillRevisionIn(result.errors, snapshot.revision);
          return Promise.resolve();
        },
      });
    },
  };
}
