/**
 * Reading the JSON that kubectl and the apiserver print (Lists, Helm's release records, audit events) without
 * trusting its shape: a field is an object or a non-empty string, or it is absent.
 */

export type Json = Record<string, unknown>;

/** The value as a JSON object, or undefined when it is anything else (an array, null, a scalar). */
export const object = (value: unknown): Json | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Json)
    : undefined;

/** The value as a non-empty string, or undefined. */
export const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** A JSON object parsed from text (an annotation, a line of the audit log), or undefined when it is not one. */
export function safeJson(value: string): Json | undefined {
  try {
    return object(JSON.parse(value));
  } catch {
    return undefined;
  }
}
