/** The JSONObject scalar: a plain object, as a variable or as an object literal in the document. */
import { GraphQLScalarType, Kind, type ValueNode } from "graphql";
import { InputError } from "../core/errors.js";

function literal(node: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.OBJECT:
      return Object.fromEntries(
        node.fields.map((field) => [field.name.value, literal(field.value, variables)]),
      );
    case Kind.LIST:
      return node.values.map((value) => literal(value, variables));
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
      return Number.parseInt(node.value, 10);
    case Kind.FLOAT:
      return Number.parseFloat(node.value);
    case Kind.NULL:
      return null;
    case Kind.VARIABLE:
      return variables?.[node.name.value];
  }
}

function object(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new InputError("record must be a JSON object", "record");
  return value as Record<string, unknown>;
}

export const JSONObjectScalar = new GraphQLScalarType({
  name: "JSONObject",
  description: "A JSON object (a knowledge-base record).",
  serialize: (value) => object(value),
  parseValue: (value) => object(value),
  parseLiteral: (node, variables) => object(literal(node, variables)),
});

/** The JSON scalar: any JSON value, as it is. */
export const JSONScalar = new GraphQLScalarType({
  name: "JSON",
  description: "Any JSON value.",
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => literal(node, variables),
});
