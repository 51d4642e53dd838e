/**
 * Reads a plan file (the cluster's component versions, see the format at the
 * top of src/cli/kubecompat.ts) into the request body's `components` list.
 * Only the file's shape is checked here; whether a component or version
 * exists is the server's question. Each entry remembers its line so that a
 * server error about `components[3]` can point at the line to edit.
 *
 * YAML is parsed with the failsafe schema: every scalar stays the string the
 * user wrote, so `version: 1.30` is "1.30" and never the number 1.3.
 */
import {
  LineCounter,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  type Document,
  type Node,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { InputFileError } from "./errors.js";
import { keyNode, requiredText, resolve, scalarText, type Fail } from "./yaml-nodes.js";

export interface ComponentVersion {
  readonly component: string;
  readonly version: string;
  readonly instance?: string;
  /** For a kubelet: v1 or v2, the cgroup version of its nodes. */
  readonly cgroupVersion?: string;
  /** For a kubelet: its KubeletConfiguration's failCgroupV1. */
  readonly failCgroupV1?: boolean;
  /** For a Kubernetes component: its feature gates as --feature-gates takes them (A=true,B=false). */
  readonly featureGates?: string;
}

export interface PlanFile {
  /** As named on the command line ("-" reads as "<stdin>"). */
  readonly name: string;
  readonly components: readonly ComponentVersion[];
  /** 1-based line of each entry of `components`, same order. */
  readonly lines: readonly number[];
  readonly profile?: string;
  readonly asOf?: string;
  readonly platform?: string;
}

const TOP_LEVEL_KEYS = ["components", "profile", "asOf", "platform"] as const;
const ENTRY_KEYS = [
  "component",
  "version",
  "instance",
  "cgroupVersion",
  "failCgroupV1",
  "featureGates",
] as const;

/** The entries of `components:` and the 1-based line of each, same order. */
interface ParsedComponents {
  entries: ComponentVersion[];
  lines: number[];
}

const FORMAT_HINT =
  'A plan file has `components:` (a list of {component, version, instance?} or a map "component[@instance]": version) and optionally `profile:`, `asOf:` and `platform:`.';

export function parsePlanFile(name: string, text: string): PlanFile {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { schema: "failsafe", lineCounter });
  const fail = (
    message: string,
    node?: { range?: [number, number, number] | null } | null,
  ): never => {
    const line = node?.range ? `:${lineCounter.linePos(node.range[0]).line}` : "";
    throw new InputFileError(`${name}${line}: ${message}`, [FORMAT_HINT]);
  };

  const problem = document.errors[0];
  if (problem) {
    const line = problem.linePos?.[0].line;
    // The library appends " at line L, column C:" and a code excerpt; the line goes in front instead, like a compiler's.
    const message = problem.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new InputFileError(`${name}${line ? `:${line}` : ""}: not valid YAML: ${message}`, [
      FORMAT_HINT,
    ]);
  }
  const root = resolve(document, document.contents);
  if (root === null || (isScalar(root) && root.value === "")) fail("the file is empty");
  if (!isMap(root)) return fail("the top level must be a map with `components:`", root);

  let components: ParsedComponents | undefined;
  let profile: string | undefined;
  let asOf: string | undefined;
  let platform: string | undefined;
  for (const pair of root.items) {
    const key = scalarText(document, pair.key);
    if (key === null)
      return fail("top-level keys must be plain words such as components", keyNode(pair));
    const value = resolve(document, pair.value as Node | null);
    switch (key) {
      case "components":
        components = parseComponents(document, value, lineCounter, fail, keyNode(pair));
        break;
      case "profile":
        profile = requiredText(
          document,
          value,
          "profile must name a profile such as strict",
          fail,
          keyNode(pair),
        );
        break;
      case "asOf":
        asOf = requiredText(
          document,
          value,
          "asOf must be a date written YYYY-MM-DD",
          fail,
          keyNode(pair),
        );
        break;
      case "platform":
        platform = requiredText(
          document,
          value,
          "platform must name a platform such as eks, gke, aks or upstream",
          fail,
          keyNode(pair),
        );
        break;
      default: {
        const normalised = key.toLowerCase().replaceAll(/[-_]/g, "");
        const meant = TOP_LEVEL_KEYS.find(
          (known) => known.toLowerCase() === normalised || known === `${key}s`,
        );
        fail(
          `unknown top-level key "${key}"${meant ? ` (did you mean ${meant}?)` : ""}; a plan file has ${TOP_LEVEL_KEYS.join(", ")}`,
          keyNode(pair),
        );
      }
    }
  }
  if (components === undefined)
    return fail("no `components:`; list the cluster's components with their versions");
  return {
    name,
    components: components.entries,
    lines: components.lines,
    ...(profile === undefined ? {} : { profile }),
    ...(asOf === undefined ? {} : { asOf }),
    ...(platform === undefined ? {} : { platform }),
  };
}

function parseComponents(
  document: Document,
  value: Node | null,
  lineCounter: LineCounter,
  fail: Fail,
  at: Node | null,
): ParsedComponents {
  const lineOf = (node: Node | null): number =>
    node?.range ? lineCounter.linePos(node.range[0]).line : 0;
  if (isSeq(value)) return componentList(document, value, lineOf, fail, at);
  if (isMap(value)) return componentMap(document, value, lineOf, fail, at);
  return fail(
    'components must be a list of {component, version, instance?} or a map "component[@instance]": version',
    value ?? at,
  );
}

/** `components:` as a list of {component, version, instance?, ...}. */
function componentList(
  document: Document,
  value: YAMLSeq,
  lineOf: (node: Node | null) => number,
  fail: Fail,
  at: Node | null,
): ParsedComponents {
  const entries: ComponentVersion[] = [];
  const lines: number[] = [];
  for (const [index, item] of value.items.entries()) {
    const entry = resolve(document, item as Node | null);
    const where = `components[${index}]`;
    if (!isMap(entry))
      return fail(`${where} must be a map {component, version, instance?}`, entry ?? at);
    entries.push(listEntry(document, entry, where, fail));
    lines.push(lineOf(entry));
  }
  return { entries, lines };
}

/** One entry of the list: only the known keys, component and version required. */
function listEntry(
  document: Document,
  entry: YAMLMap,
  where: string,
  fail: Fail,
): ComponentVersion {
  const fields = new Map<string, string>();
  for (const pair of entry.items) {
    const key = scalarText(document, pair.key);
    if (key === null || !(ENTRY_KEYS as readonly string[]).includes(key)) {
      return fail(
        `${where} has unknown key "${key ?? "?"}"; an entry has ${ENTRY_KEYS.join(", ")}`,
        keyNode(pair),
      );
    }
    fields.set(
      key,
      requiredText(
        document,
        resolve(document, pair.value as Node | null),
        `${where}.${key} must not be empty`,
        fail,
        keyNode(pair),
      ),
    );
  }
  const component = fields.get("component");
  const version = fields.get("version");
  if (component === undefined)
    return fail(`${where} has no component (e.g. component: kubelet)`, entry);
  if (version === undefined)
    return fail(`${where} (${component}) has no version (e.g. version: 1.29.8)`, entry);
  const instance = fields.get("instance");
  const cgroupVersion = fields.get("cgroupVersion");
  const failCgroupV1 = fields.get("failCgroupV1");
  const featureGates = fields.get("featureGates");
  if (failCgroupV1 !== undefined && !/^(true|false)$/i.test(failCgroupV1))
    return fail(`${where}.failCgroupV1 must be true or false`, entry);
  return {
    component,
    version,
    ...(instance === undefined ? {} : { instance }),
    ...(cgroupVersion === undefined ? {} : { cgroupVersion }),
    ...(failCgroupV1 === undefined ? {} : { failCgroupV1: failCgroupV1.toLowerCase() === "true" }),
    ...(featureGates === undefined ? {} : { featureGates }),
  };
}

/** `components:` as a map "component[@instance]": version. */
function componentMap(
  document: Document,
  value: YAMLMap,
  lineOf: (node: Node | null) => number,
  fail: Fail,
  at: Node | null,
): ParsedComponents {
  const entries: ComponentVersion[] = [];
  const lines: number[] = [];
  for (const pair of value.items) {
    const key = scalarText(document, pair.key);
    if (key === null || key.trim() === "")
      return fail(
        "components keys must be component[@instance], e.g. kubelet@pool-a",
        keyNode(pair) ?? at,
      );
    // Component names never contain "@"; instance names may, so only the first "@" separates them.
    const separator = key.indexOf("@");
    const component = (separator === -1 ? key : key.slice(0, separator)).trim();
    const instance = separator === -1 ? undefined : key.slice(separator + 1).trim();
    if (component === "") fail(`components key "${key}" has no component before @`, keyNode(pair));
    if (instance === "")
      fail(
        `components key "${key}" has an empty instance after @; drop the @ or name the instance`,
        keyNode(pair),
      );
    const version = requiredText(
      document,
      resolve(document, pair.value as Node | null),
      `components "${key}" must map to a version such as 1.29.8`,
      fail,
      keyNode(pair),
    );
    entries.push({ component, version, ...(instance === undefined ? {} : { instance }) });
    lines.push(lineOf(keyNode(pair)));
  }
  return { entries, lines };
}
