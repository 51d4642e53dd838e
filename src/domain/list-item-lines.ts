/**
 * Where each item of a List begins in the text, for the fast path, which reads values without their lines:
 * in block YAML and in JSON. Null when the items cannot be found so; the careful path then reads the input.
 */

/** Block YAML: `items:` at the left margin, then each `- ` at the items' indentation. */
export function yamlItemLines(body: string, firstLine: number): number[] | null {
  const lines = body.split("\n");
  const at = lines.findIndex((line) => /^items:\s*(#.*)?$/.test(line));
  if (at < 0) return null;
  let indent: string | null = null;
  const found: number[] = [];
  for (let index = at + 1; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (!/^\s/.test(line) && !line.startsWith("-")) break; // the next top-level key
    if (indent === null) {
      const match = /^( *)- /.exec(line) ?? /^( *)-$/.exec(line);
      if (match === null) return null;
      indent = match[1]!;
    }
    if (line.startsWith(`${indent}- `) || line === `${indent}-`) found.push(firstLine + index);
    else if (!line.startsWith(`${indent} `)) return null;
  }
  return found;
}

/** JSON: the `{` of each element of the root object's "items" array. */
export function jsonItemLines(body: string, firstLine: number): number[] | null {
  let depth = 0;
  let line = firstLine;
  let inString = false;
  let lastKey: string | null = null;
  let keyStart = -1;
  let itemsDepth = -1;
  const found: number[] = [];
  for (let index = 0; index < body.length; index += 1) {
    const character = body[index]!;
    if (character === "\n") line += 1;
    if (inString) {
      if (character === "\\") index += 1;
      else if (character === '"') {
        inString = false;
        if (depth === 1) lastKey = body.slice(keyStart + 1, index);
      }
      continue;
    }
    switch (character) {
      case '"':
        inString = true;
        keyStart = index;
        break;
      case "{":
      case "[":
        if (character === "[" && depth === 1 && lastKey === "items" && itemsDepth < 0)
          itemsDepth = depth + 1;
        else if (character === "{" && itemsDepth > 0 && depth === itemsDepth) found.push(line);
        depth += 1;
        break;
      case "}":
      case "]":
        depth -= 1;
        break;
      case ",":
        if (depth === 1) lastKey = null;
        break;
    }
  }
  return itemsDepth < 0 ? null : found;
}
