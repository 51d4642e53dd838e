/**
 * The target API types of the `fix` conversions as strict JSON Schemas (test/fixtures/target-schemas/, written by
 * hand from the k8s.io/api Go types, kubeconform "standalone-strict" style: unknown fields are errors), and a
 * validator that picks the schema by apiVersion and kind. See test/fixtures/target-schemas/SOURCES.md.
 */
import fs from "node:fs";
import path from "node:path";
import draft04 from "ajv-draft-04";
import type { ErrorObject, ValidateFunction } from "ajv";

// CommonJS package: its class is the default export's `default`.
const { default: Ajv } = draft04;

export const TARGET_SCHEMA_DIR = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  "..",
  "fixtures",
  "target-schemas",
);

const ajv = new Ajv({
  allErrors: true,
  // Unknown keywords and formats are errors (a typo in a schema must not pass silently); `required` inside
  // oneOf/not branches names properties declared beside it, which strictRequired/strictTypes would reject.
  strictSchema: true,
  strictNumbers: true,
  strictRequired: false,
  strictTypes: false,
  allowUnionTypes: true,
});
const compiled = new Map<string, ValidateFunction>();

/** kubeconform's file name for a kind: `<kind>-<first label of the group>-<version>.json` (core group: `<kind>-<version>`). */
export function targetSchemaFile(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const groupPart = group === "" ? "" : `-${group.split(".")[0]}`;
  return `${kind.toLowerCase()}${groupPart}-${version}.json`;
}

function validatorFor(apiVersion: string, kind: string): ValidateFunction {
  const file = targetSchemaFile(apiVersion, kind);
  const cached = compiled.get(file);
  if (cached) return cached;
  const full = path.join(TARGET_SCHEMA_DIR, file);
  if (!fs.existsSync(full)) {
    throw new Error(`no target schema is shipped for ${apiVersion} ${kind} (looked for ${file})`);
  }
  const validate = ajv.compile(JSON.parse(fs.readFileSync(full, "utf8")) as object);
  compiled.set(file, validate);
  return validate;
}

function describe(error: ErrorObject): string {
  const at = error.instancePath === "" ? "(root)" : error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      return `${at}: unknown field "${String(params.additionalProperty)}"`;
    case "required":
      return `${at}: missing required field "${String(params.missingProperty)}"`;
    case "enum":
      return `${at}: must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`;
    default:
      return `${at}: ${error.message ?? error.keyword}`;
  }
}

/**
 * Validation errors of one object against the target schema of its apiVersion and kind, one readable line each
 * (`/spec/rules/0/http/paths/0/backend: unknown field "serviceName"`); empty when it validates. Throws when the
 * object has no apiVersion/kind or no schema is shipped for them.
 */
export function targetSchemaErrors(object: unknown): string[] {
  if (typeof object !== "object" || object === null || Array.isArray(object)) {
    throw new Error("not a Kubernetes object (expected a mapping)");
  }
  const { apiVersion, kind } = object as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    throw new Error("the object has no apiVersion or kind");
  }
  const validate = validatorFor(apiVersion, kind);
  if (validate(object)) return [];
  return [...new Set((validate.errors ?? []).map(describe))];
}
