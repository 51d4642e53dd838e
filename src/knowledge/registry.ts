/**
 * The entity registry: every kind of knowledge is one row here, and every face derives from it. A row
 * names the kb/ file, the record schema and natural key, the REST collection (/api/v1/<collection>),
 * the record's type name (SDL and OpenAPI), the GraphQL enum value (null: not on GraphQL), the store mapping (a Prisma model and its
 * column names, or none: the generic KbDocument table), a key example for the docs, and whether the
 * kind depends on the Kubernetes minor (then kb/coverage.yaml must say where it ends).
 *
 * The rows of the built-in kinds are in built-in-kinds.ts; this file holds what a row is and the machinery
 * over the rows (lookups, run-time registration). A new kind of knowledge: its record schema, a row in
 * built-in-kinds.ts, its file under kb/, and (for a table of its own) a Prisma model and migration, and
 * (for GraphQL) its SDL type and enum value. Tests check that the SDL and the codegen mappers agree with
 * the rows.
 */
import type { z } from "zod";
import { BUILT_IN_KINDS, type EntityName, type KbBundle } from "./built-in-kinds.js";

/** Where the store keeps a kind's records: a Prisma model with its column names, or (model null) the generic KbDocument table. */
export interface StoreMapping {
  readonly model: string | null;
  /** record field → column, where they differ */
  readonly columns?: Readonly<Record<string, string>>;
  readonly dateFields?: readonly string[];
  readonly enumFields?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface EntityDefinition<R = unknown> {
  readonly file: string;
  readonly schema: z.ZodType<R>;
  readonly key: (record: R) => string;
  readonly keyExample: string;
  readonly versioned?: boolean;
  /** The REST collection: /api/v1/<collection> lists, and curation edits under it. */
  readonly collection: string;
  /** One line for people: the OpenAPI summary of the list, the docs. */
  readonly title: string;
  /** The name of a record's type: the SDL type and the OpenAPI schema, e.g. UpgradeDependency. */
  readonly typeName: string;
  /** The kind's value of the GraphQL enum KbEntity (curation over GraphQL); null when GraphQL does not serve the kind. */
  readonly graphqlEnum: string | null;
  /**
   * The kind's plain list on GraphQL, for a kind whose list takes no arguments: Query.<field> answers every
   * record in the snapshot's order. Its SDL is generated from this row (npm run codegen) and its resolver
   * derived from it (src/graphql/kind-lists.ts); a list with arguments is written by hand instead.
   */
  readonly graphqlList?: GraphqlList;
  readonly store: StoreMapping;
}

/** A kind's plain list query on GraphQL (EntityDefinition.graphqlList). */
export interface GraphqlList {
  /** The Query field, e.g. upgradeOrder. */
  readonly field: string;
  /** The field's description in the SDL: what bots and the playground read. */
  readonly description: string;
  /**
   * The SDL of the record type (typeName), for a kind registered at run time; a built-in kind's type is
   * written in schema.graphql with the rest.
   */
  readonly typeDefs?: string;
}

/** Any kind's definition, whatever its record type (what registerEntity takes). */
export type AnyEntityDefinition = Omit<EntityDefinition, "schema" | "key"> & {
  readonly schema: z.ZodType;
  readonly key: (record: never) => string;
};

type Registry = { readonly [E in EntityName]: EntityDefinition<KbBundle[E][number]> };

const BUILT_IN: Registry = BUILT_IN_KINDS;

/** Every kind of knowledge by name. Kinds registered at run time (registerEntity) are added here too. */
export const ENTITIES: Registry = { ...BUILT_IN };

/** The names in import order; a live list, so code that iterates it at call time sees registered kinds. */
export const ENTITY_NAMES: readonly EntityName[] = Object.keys(ENTITIES) as EntityName[];

/**
 * Adds a kind of knowledge at run time: a plug-in's, or a test's throw-away kind. Its records live in the
 * generic KbDocument table unless its store names a model; it is served by the read API, curation,
 * export and import like any other. Returns a function that removes it again.
 */
export function registerEntity(name: string, definition: AnyEntityDefinition): () => void {
  if (!/^[a-z][A-Za-z0-9]{1,62}$/.test(name))
    throw new Error(`entity name "${name}" must be lowerCamelCase`);
  if (name in ENTITIES) throw new Error(`entity "${name}" is already registered`);
  for (const other of ENTITY_NAMES) {
    const known = ENTITIES[other];
    if (known.file === definition.file || known.collection === definition.collection)
      throw new Error(`entity "${name}" reuses the file or collection of ${other}`);
  }
  (ENTITIES as unknown as Record<string, AnyEntityDefinition>)[name] = definition;
  (ENTITY_NAMES as string[]).push(name);
  return () => {
    delete (ENTITIES as unknown as Record<string, unknown>)[name];
    (ENTITY_NAMES as string[]).splice((ENTITY_NAMES as string[]).indexOf(name), 1);
  };
}

/** Whether a kind ships with kubecompat (it has a typed field on KbSnapshot) rather than registered at run time. */
export function isBuiltIn(entity: string): boolean {
  return entity in BUILT_IN;
}

/** The natural key of any record of an entity. */
export function recordKey<E extends EntityName>(entity: E, record: KbBundle[E][number]): string {
  return ENTITIES[entity].key(record);
}

/** The entity of a REST collection, e.g. "upgrade-order" → upgradeDependencies. */
export function entityOfCollection(collection: string): EntityName | undefined {
  return ENTITY_NAMES.find((entity) => ENTITIES[entity].collection === collection);
}

/** The entity of a GraphQL KbEntity value, e.g. UPGRADE_ORDER → upgradeDependencies. */
export function entityOfGraphqlValue(value: string): EntityName | undefined {
  return ENTITY_NAMES.find((entity) => ENTITIES[entity].graphqlEnum === value);
}
