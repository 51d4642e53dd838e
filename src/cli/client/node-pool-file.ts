/**
 * Reads a node-pool file (one NodePoolSpec, see the format at the top of
 * src/cli/kubecompat.ts) into the request body's `from`/`to` (or
 * `current`/`rollbackTo`) object. As for plan files, only the shape is
 * checked here: whether a version, mode or flag is acceptable is the
 * server's question. Each key remembers its line, so that a server error
 * about `to.kubeProxyMode` can point at the line to edit.
 *
 * YAML is parsed with the failsafe schema: every scalar stays the string the
 * user wrote, so `kubeletVersion: 1.30` is "1.30" and never the number 1.3.
 * `kubeletConfigFile` names a KubeletConfiguration file relative to the
 * node-pool file; the caller reads it and sends its text as `kubeletConfig`.
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from "yaml";
import { editDistance } from "./command-line.js";
import { InputFileError } from "./errors.js";
import { keyNode, requiredText, resolve, scalarText, type Fail } from "./yaml-nodes.js";

/** The request's NodePoolSpec, as the REST API names its fields. */
export interface NodePoolSpec {
  readonly name?: string;
  readonly kubeletVersion: string;
  readonly kubeletFlags?: string | readonly string[];
  readonly kubeletConfig?: string;
  readonly kubeProxyVersion?: string;
  readonly kubeProxyMode?: string;
  readonly os?: string;
  readonly runtime?: string;
  readonly runtimeVersion?: string;
  readonly chartKubeVersion?: string;
  /** v1 or v2: the cgroup version of the pool's nodes. */
  readonly cgroupVersion?: string;
}

export interface NodePoolFile {
  /** As named on the command line ("-" reads as "<stdin>"). */
  readonly name: string;
  /** The spec without the text of `kubeletConfigFile`, which the caller adds. */
  readonly spec: NodePoolSpec;
  /** 1-based line of each key written in the file (`kubeletConfig` points at `kubeletConfigFile` when that is used). */
  readonly lines: Readonly<Record<string, number>>;
  /** The KubeletConfiguration file to read, as written in the file, and its line. */
  readonly kubeletConfigFile?: { readonly path: string; readonly line: number };
}

const TEXT_KEYS = [
  "name",
  "kubeletVersion",
  "kubeProxyVersion",
  "kubeProxyMode",
  "os",
  "runtime",
  "runtimeVersion",
  "chartKubeVersion",
  "cgroupVersion",
] as const;
type TextKey = (typeof TEXT_KEYS)[number];
export const NODE_POOL_KEYS = [
  ...TEXT_KEYS,
  "kubeletFlags",
  "kubeletConfig",
  "kubeletConfigFile",
] as const;

const FORMAT_HINT =
  "A node-pool file is one map: kubeletVersion (required), name, kubeletFlags (a list, or one pasted command line), kubeletConfig (inline) or kubeletConfigFile (a path), kubeProxyVersion, kubeProxyMode, os, runtime, runtimeVersion, chartKubeVersion, cgroupVersion.";

export function parseNodePoolFile(name: string, text: string): NodePoolFile {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { schema: "failsafe", lineCounter });
  const fail: Fail = (message, node) => {
    const line = node?.range ? `:${lineCounter.linePos(node.range[0]).line}` : "";
    throw new InputFileError(`${name}${line}: ${message}`, [FORMAT_HINT]);
  };
  const lineOf = (node: Node | null): number =>
    node?.range ? lineCounter.linePos(node.range[0]).line : 0;

  const problem = document.errors[0];
  if (problem) {
    const line = problem.linePos?.[0].line;
    const message = problem.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new InputFileError(`${name}${line ? `:${line}` : ""}: not valid YAML: ${message}`, [
      FORMAT_HINT,
    ]);
  }
  const root = resolve(document, document.contents);
  if (root === null || (isScalar(root) && root.value === "")) fail("the file is empty");
  if (!isMap(root))
    return fail(
      "the top level must be a map with kubeletVersion: and the pool's other settings",
      root,
    );

  const spec: { -readonly [key in keyof NodePoolSpec]?: NodePoolSpec[key] } = {};
  const lines: Record<string, number> = {};
  let kubeletConfigFile: { path: string; line: number } | undefined;
  for (const pair of root.items) {
    const key = scalarText(document, pair.key);
    const at = keyNode(pair);
    if (key === null) return fail("keys must be plain words such as kubeletVersion", at);
    const value = resolve(document, pair.value as Node | null);
    lines[key] = lineOf(at);
    if ((TEXT_KEYS as readonly string[]).includes(key)) {
      spec[key as TextKey] = requiredText(
        document,
        value,
        `${key} must be a single value such as ${example(key as TextKey)}`,
        fail,
        at,
      );
      continue;
    }
    switch (key) {
      case "kubeletFlags":
        spec.kubeletFlags = flagsOf(document, value, fail, at);
        break;
      case "kubeletConfig":
        spec.kubeletConfig = configText(document, value, text, fail, at);
        break;
      case "kubeletConfigFile":
        kubeletConfigFile = {
          path: requiredText(
            document,
            value,
            "kubeletConfigFile must be a path such as kubelet-config.yaml",
            fail,
            at,
          ),
          line: lineOf(at),
        };
        break;
      default: {
        const normalised = key.toLowerCase().replaceAll(/[-_]/g, "");
        const meant = NODE_POOL_KEYS.find(
          (known) =>
            known.toLowerCase() === normalised ||
            editDistance(known.toLowerCase(), key.toLowerCase()) <= 2,
        );
        fail(
          `unknown key "${key}"${meant ? ` (did you mean ${meant}?)` : ""}; a node-pool file has ${NODE_POOL_KEYS.join(", ")}`,
          at,
        );
      }
    }
  }
  if (spec.kubeletConfig !== undefined && kubeletConfigFile !== undefined) {
    fail(
      "give either kubeletConfig (inline) or kubeletConfigFile (a path), not both",
      root.items.find((pair) => scalarText(document, pair.key) === "kubeletConfigFile")
        ?.key as Node,
    );
  }
  if (spec.kubeletVersion === undefined)
    return fail(
      "no kubeletVersion: say which kubelet the pool runs (e.g. kubeletVersion: 1.30.1)",
      root,
    );
  if (kubeletConfigFile !== undefined) lines.kubeletConfig = kubeletConfigFile.line;
  return {
    name,
    spec: spec as NodePoolSpec,
    lines,
    ...(kubeletConfigFile === undefined ? {} : { kubeletConfigFile }),
  };
}

function example(key: TextKey): string {
  const examples: Record<TextKey, string> = {
    name: "pool-a",
    kubeletVersion: "1.30.1",
    kubeProxyVersion: "1.30.1",
    kubeProxyMode: "nftables",
    os: "linux",
    runtime: "containerd",
    runtimeVersion: "2.0.1",
    chartKubeVersion: '">=1.27.0-0 <1.31.0-0"',
    cgroupVersion: "v2",
  };
  return examples[key];
}

/** A list of flags (`- --max-pods=110`), or one string such as a pasted systemd ExecStart line. */
function flagsOf(
  document: Document,
  value: Node | null,
  fail: Fail,
  at: Node | null,
): string | string[] {
  if (isSeq(value)) {
    return value.items.map((item, index) => {
      const text = scalarText(document, item);
      if (text === null)
        return fail(
          `kubeletFlags[${index}] must be a string such as --max-pods=110 (quote it when it contains ": ")`,
          (item as Node | null) ?? at,
        );
      return text;
    });
  }
  return requiredText(
    document,
    value,
    "kubeletFlags must be a list of flags (- --max-pods=110) or one command line",
    fail,
    at,
  );
}

/**
 * The KubeletConfiguration as text: a string (`kubeletConfig: |`) as it is,
 * a mapping written inline as its own lines of the file, dedented, so the
 * server reads exactly what was written.
 */
function configText(
  document: Document,
  value: Node | null,
  source: string,
  fail: Fail,
  at: Node | null,
): string {
  if (isMap(value) && value.range) {
    const [start, , end] = value.range;
    const lineStart = source.lastIndexOf("\n", start - 1) + 1;
    const column = /^[ \t]*$/.test(source.slice(lineStart, start)) ? start - lineStart : 0;
    const lines = source.slice(start, end).replace(/\s+$/, "").split("\n");
    return `${lines.map((line, index) => (index === 0 ? line : line.slice(Math.min(column, /^[ \t]*/.exec(line)![0].length)))).join("\n")}\n`;
  }
  return requiredText(
    document,
    value,
    "kubeletConfig must be the KubeletConfiguration, as a mapping or as text (kubeletConfig: |)",
    fail,
    at,
  );
}
