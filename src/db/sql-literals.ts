/**
 * SQL text for the statements the store writes by hand (the edit group's one
 * round trip): constants and identifiers quoted so that any record's text
 * reaches PostgreSQL exactly as sent.
 */
export function jsonLiteral(value: unknown): string {
  return `${textLiteral(JSON.stringify(value))}::jsonb`;
}

/**
 * A string constant holding `value` exactly, whatever standard_conforming_strings says: an escape string
 * (E'...') with its backslashes and quotes doubled, as pg's escapeLiteral makes it, by two native
 * replacements instead of a loop over every character (the group's records and audit entries pass here).
 */
export function textLiteral(value: string): string {
  return `E'${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
