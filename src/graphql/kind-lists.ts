/**
 * The GraphQL read wiring of the kinds whose list takes no arguments, derived from the entity registry
 * (EntityDefinition.graphqlList): the SDL of their Query fields, which scripts/kind-lists.ts writes into
 * schema.graphql (npm run codegen; codegen:check fails when it is stale), and their resolvers, made here
 * from the registry when the server starts. A kind registered at run time (registerEntity) with a
 * graphqlList brings its record type's SDL, and is served as an extension of Query, so a new kind readable
 * over GraphQL is its YAML, its schemas and one registry row.
 */
import { ENTITIES, ENTITY_NAMES, isBuiltIn, type GraphqlList } from "../knowledge/registry.js";
import type { EntityName } from "../knowledge/records.js";
import type { GraphQLContext } from "./context.js";

/** Opens the generated part of type Query in schema.graphql. */
export const KIND_LISTS_BEGIN =
  "  # Plain lists of kinds: generated from the registry's graphqlList (src/knowledge/built-in-kinds.ts) by npm run codegen; do not edit.";
/** Closes it. */
export const KIND_LISTS_END = "  # End of the generated plain lists of kinds.";

interface KindList {
  readonly entity: EntityName;
  readonly list: GraphqlList;
  readonly typeName: string;
}

/** The kinds among these that have a plain list on GraphQL, in registry order. */
function kindLists(entities: readonly EntityName[]): KindList[] {
  return entities.flatMap((entity) => {
    const { graphqlList, typeName } = ENTITIES[entity];
    return graphqlList === undefined ? [] : [{ entity, list: graphqlList, typeName }];
  });
}

/** A description as one quoted SDL line. */
function sdlString(text: string): string {
  if (/[\n\r]/.test(text)) throw new Error(`a list description must be one line: ${text}`);
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** The Query fields of these kinds' plain lists, as SDL lines (two spaces in, as inside a type). */
export function kindListFields(entities: readonly EntityName[]): string {
  return kindLists(entities)
    .map(
      ({ list, typeName }) => `  ${sdlString(list.description)}\n  ${list.field}: [${typeName}!]!`,
    )
    .join("\n");
}

/** What schema.graphql holds between the markers: the built-in kinds' plain lists. */
export function builtInKindListsSdl(): string {
  const builtIn = ENTITY_NAMES.filter((entity) => isBuiltIn(entity));
  return [KIND_LISTS_BEGIN, kindListFields(builtIn), KIND_LISTS_END].join("\n");
}

/**
 * The SDL the server adds to schema.graphql for kinds registered at run time with a plain list: each one's
 * record type and an extension of Query with their lists. Undefined when there is none.
 */
export function registeredKindTypeDefs(): string | undefined {
  const registered = kindLists(ENTITY_NAMES.filter((entity) => !isBuiltIn(entity)));
  if (registered.length === 0) return undefined;
  const types = registered.map(({ entity, list }) => {
    if (list.typeDefs === undefined)
      throw new Error(`registered kind ${entity} has a GraphQL list but no typeDefs`);
    return list.typeDefs;
  });
  return [
    ...types,
    `extend type Query {\n${kindListFields(registered.map((kind) => kind.entity))}\n}`,
  ].join("\n\n");
}

type KindListResolver = (
  parent: unknown,
  args: unknown,
  context: GraphQLContext,
) => readonly unknown[];

/** The resolvers of every plain list, built-in or registered: the kind's records as the snapshot keeps them. */
export function kindListResolvers(): { Query: Record<string, KindListResolver> } {
  const query: Record<string, KindListResolver> = {};
  for (const { entity, list } of kindLists(ENTITY_NAMES))
    query[list.field] = (_parent, _args, { snapshot }) => [...snapshot.records(entity)];
  return { Query: query };
}

/** Whether a Query field is the plain list of a kind the registry holds now (built-in or registered). */
export function isKindListField(field: string): boolean {
  return kindLists(ENTITY_NAMES).some(({ list }) => list.field === field);
}

/** The Query fields of the built-in kinds' plain lists. */
export function builtInKindListFields(): string[] {
  return kindLists(ENTITY_NAMES.filter((entity) => isBuiltIn(entity))).map(
    ({ list }) => list.field,
  );
}
