/**
 * Every part of schema.graphql that introspection shows carries a description:
 * tools and chat bots read the schema, not this repository. The test names
 * each offender so the fix is one edit per line of its message.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedDirective,
  isSpecifiedScalarType,
  type GraphQLArgument,
  type GraphQLSchema,
} from "graphql";

// The file src/graphql/server.ts serves (its SCHEMA_PATH); not imported from there, which would load Apollo for a file read.
const SCHEMA_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../schema.graphql");

const described = (description: string | null | undefined): boolean =>
  (description ?? "").trim() !== "";

/** Every schema coordinate (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`) whose description is missing or blank. */
function undescribed(schema: GraphQLSchema): string[] {
  const offenders: string[] = [];
  const check = (coordinate: string, description: string | null | undefined): void => {
    if (!described(description)) offenders.push(coordinate);
  };
  const checkArgs = (owner: string, args: ReadonlyArray<GraphQLArgument>): void => {
    for (const arg of args) check(`${owner}(${arg.name}:)`, arg.description);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    // Introspection's own types and the built-in scalars (String, Int, ...) are described by the specification.
    if (type.name.startsWith("__") || isSpecifiedScalarType(type)) continue;
    check(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(`${type.name}.${field.name}`, field.description);
        checkArgs(`${type.name}.${field.name}`, field.args);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields()))
        check(`${type.name}.${field.name}`, field.description);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
    }
  }
  for (const directive of schema.getDirectives()) {
    if (isSpecifiedDirective(directive)) continue;
    check(`@${directive.name}`, directive.description);
    checkArgs(`@${directive.name}`, directive.args);
  }
  return offenders;
}

describe("schema.graphql descriptions", () => {
  const schema = buildSchema(fs.readFileSync(SCHEMA_PATH, "utf8"));

  it("describes every type, field, argument, input field and enum value", () => {
    const offenders = undescribed(schema);
    assert.deepEqual(
      offenders,
      [],
      `${offenders.length} schema coordinates have no description:\n${offenders.join("\n")}`,
    );
  });

  it("names an undescribed field, argument, input field and enum value as an offender", () => {
    const bare = buildSchema(`
      "Root."
      type Query {
        "Described."
        a(x: Int): Int
        b: E
      }
      "An enum."
      enum E {
        "One."
        ONE
        TWO
      }
      input I { y: Int }
      type T { z: String }
    `);
    assert.deepEqual(undescribed(bare).sort(), [
      "E.TWO",
      "I",
      "I.y",
      "Query.a(x:)",
      "Query.b",
      "T",
      "T.z",
    ]);
  });

  it("treats a blank description as missing", () => {
    assert.deepEqual(undescribed(buildSchema(`"  " type Query { "" a: Int }`)), [
      "Query",
      "Query.a",
    ]);
  });
});
