/**
 * Writes what src/domain/findings.ts says about finding codes into schema.graphql, so the SDL never lists
 * codes by hand: the description of Finding.code (every code, its check and meaning) and the FindingCheck
 * enum. `--check` only compares, and exits 1 naming what is stale (npm run codegen:check runs it so).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FINDING_CHECKS, FINDING_CODES } from "../src/domain/findings.js";

const SCHEMA = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "schema.graphql");

/** A GraphQL block string may hold anything but a triple quote; the descriptions have none, but say so if one appears. */
function blockText(text: string): string {
  if (text.includes('"""')) throw new Error(`a description holds """: ${text}`);
  return text;
}

export function codeDescription(): string {
  const lines = Object.entries(FINDING_CODES).map(
    ([code, { check, description }]) => `  - \`${code}\` (${check}): ${blockText(description)}`,
  );
  return [
    '  """',
    "  A stable identifier of what was found, in upper case: bots branch on it, while messages may be reworded. Generated from src/domain/findings.ts (npm run codegen); SKEW_COMPONENT_* stand for the codes built with a component's name, e.g. SKEW_KUBELET_TOO_OLD_FOR_APISERVER.",
    "",
    ...lines,
    '  """',
    "  code: String!",
  ].join("\n");
}

export function checkEnum(): string {
  const values = Object.entries(FINDING_CHECKS).map(
    ([check, description]) => `  "${description.replaceAll('"', '\\"')}"\n  ${check}`,
  );
  return [
    '"What kind of check found a finding (Finding.check). Generated from src/domain/findings.ts (npm run codegen)."',
    "enum FindingCheck {",
    ...values,
    "}",
  ].join("\n");
}

export function withFindingCodes(schema: string): string {
  const type = schema.indexOf("type Finding {\n");
  if (type === -1) throw new Error("schema.graphql has no type Finding");
  const fieldEnd = schema.indexOf("  code: String!\n", type);
  if (fieldEnd === -1) throw new Error("type Finding has no code: String! field");
  // code is the type's first field: everything before it is its description (a block string, or one quoted line).
  const bodyStart = type + "type Finding {\n".length;
  const before = schema.slice(bodyStart, fieldEnd).trim();
  if (before !== "" && !before.startsWith('"'))
    throw new Error("code must be the first field of type Finding");
  let updated = `${schema.slice(0, bodyStart)}${codeDescription()}\n${schema.slice(fieldEnd + "  code: String!\n".length)}`;
  const enumStart = updated.search(/(?:"[^"\n]*"\n)?enum FindingCheck \{\n/);
  if (enumStart === -1) {
    const typeEnd = updated.indexOf("\n}\n", updated.indexOf("type Finding {\n")) + 3;
    updated = `${updated.slice(0, typeEnd)}\n${checkEnum()}\n${updated.slice(typeEnd)}`;
  } else {
    const enumEnd = updated.indexOf("\n}\n", enumStart) + 3;
    updated = `${updated.slice(0, enumStart)}${checkEnum()}\n${updated.slice(enumEnd)}`;
  }
  return updated;
}

if (
  process.argv[1] !== undefined &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1])
) {
  const current = fs.readFileSync(SCHEMA, "utf8");
  const wanted = withFindingCodes(current);
  if (process.argv.includes("--check")) {
    if (wanted !== current) {
      console.error(
        "schema.graphql: Finding.code's description or the FindingCheck enum is stale; run npm run codegen",
      );
      process.exit(1);
    }
  } else if (wanted !== current) {
    fs.writeFileSync(SCHEMA, wanted);
    console.log("schema.graphql: finding codes written");
  }
}
