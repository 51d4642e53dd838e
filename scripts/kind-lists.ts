/**
 * Writes the Query fields of the kinds' plain lists (src/graphql/kind-lists.ts, from the registry's
 * graphqlList rows) into schema.graphql between its markers, so the SDL never lists those kinds by hand.
 * `--check` only compares, and exits 1 when schema.graphql is stale (npm run codegen:check runs it so).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  builtInKindListsSdl,
  KIND_LISTS_BEGIN,
  KIND_LISTS_END,
} from "../src/graphql/kind-lists.js";

const SCHEMA = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "schema.graphql");

/** The schema with the generated part (markers included) replaced by what the registry says now. */
export function withKindLists(schema: string): string {
  const begin = schema.indexOf(`${KIND_LISTS_BEGIN}\n`);
  const end = schema.indexOf(`${KIND_LISTS_END}\n`);
  if (begin === -1 || end < begin)
    throw new Error("schema.graphql lacks the markers of the kinds' plain lists inside type Query");
  return `${schema.slice(0, begin)}${builtInKindListsSdl()}\n${schema.slice(end + KIND_LISTS_END.length + 1)}`;
}

if (
  process.argv[1] !== undefined &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1])
) {
  const current = fs.readFileSync(SCHEMA, "utf8");
  const wanted = withKindLists(current);
  if (process.argv.includes("--check")) {
    if (wanted !== current) {
      console.error(
        "schema.graphql: the plain lists of kinds are stale (the registry's graphqlList changed); run npm run codegen",
      );
      process.exit(1);
    }
  } else if (wanted !== current) {
    fs.writeFileSync(SCHEMA, wanted);
    console.log("schema.graphql: plain lists of kinds written");
  }
}
