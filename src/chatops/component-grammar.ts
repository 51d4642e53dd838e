/**
 * How a chat text names a cluster's state, as `check`, `plan` and `fleet
 * register` read it alike: components as `name[@instance]=version` words, and
 * what kubectl printed (`kubectl version`, `kubectl get nodes`) pasted after
 * the command's first line.
 */
import type { ComponentVersionInput } from "../domain/cluster-plan.js";
import { Problem, isVersionWord, quote } from "./words.js";

type MutableInput = { -readonly [K in keyof ComponentVersionInput]: ComponentVersionInput[K] };

/** What a component entry may say besides its version, as `name[@instance]:fact=value` (see takeComponents). */
const FACTS: Readonly<Record<string, "cgroupVersion" | "failCgroupV1" | "featureGates">> = {
  cgroup: "cgroupVersion",
  cgroupversion: "cgroupVersion",
  failcgroupv1: "failCgroupV1",
  gate: "featureGates",
  gates: "featureGates",
  featuregates: "featureGates",
};

/**
 * `name[@instance]=version` pairs, also written `name version`; and what the plan says of a node besides its
 * version, as a word of its own after the component: `kubelet@pool-a:cgroup=v1`, `kubelet@pool-a:failCgroupV1=false`,
 * `kubelet@pool-a:gate=InPlacePodVerticalScaling=true` (once per gate, or `:gates="A=true,B=false"`).
 */
export function takeComponents(
  args: readonly string[],
  kind: "check" | "plan" | "fleet-register",
): ComponentVersionInput[] {
  const components: MutableInput[] = [];
  const facts: Array<{ token: string; who: string; key: string; value: string }> = [];
  for (let index = 0; index < args.length; index += 1) {
    const token = args[index]!;
    let left: string;
    let version: string;
    const equals = token.indexOf("=");
    if (equals > 0) {
      left = token.slice(0, equals);
      version = token.slice(equals + 1);
      if (version === "")
        throw new Problem(`${quote(left)} has no version; write it as ${left}=1.30`, kind);
    } else if (equals === -1 && !isVersionWord(token) && isVersionWord(args[index + 1])) {
      left = token;
      version = args[index + 1]!;
      index += 1;
    } else {
      throw new Problem(
        `I could not read ${quote(token)}; write each component as name=version, e.g. kubelet=1.29 or kubelet@pool-a=1.29`,
        kind,
      );
    }
    const colon = left.lastIndexOf(":");
    if (colon > 0) {
      facts.push({
        token,
        who: left.slice(0, colon),
        key: left.slice(colon + 1).toLowerCase(),
        value: version,
      });
      continue;
    }
    const at = left.indexOf("@");
    const component = at === -1 ? left : left.slice(0, at);
    const instance = at === -1 ? undefined : left.slice(at + 1);
    if (component === "") throw new Problem(`${quote(token)} names no component`, kind);
    components.push(
      instance === undefined || instance === ""
        ? { component, version }
        : { component, instance, version },
    );
  }
  for (const { token, who, key, value } of facts) {
    const field = FACTS[key];
    if (field === undefined)
      throw new Problem(
        `${quote(token)}: a component can say :cgroup=v1, :failCgroupV1=false or :gate=Name=true after its name, not :${key}`,
        kind,
      );
    const entry = components.find(
      (candidate) =>
        (candidate.instance === undefined
          ? candidate.component
          : `${candidate.component}@${candidate.instance}`
        ).toLowerCase() === who.toLowerCase(),
    );
    if (entry === undefined)
      throw new Problem(
        `${quote(token)} is about ${quote(who)}, which the command does not name with a version; write ${who}=VERSION too`,
        kind,
      );
    if (field === "failCgroupV1") {
      if (!/^(true|false)$/i.test(value))
        throw new Problem(`${quote(token)}: failCgroupV1 must be true or false`, kind);
      entry.failCgroupV1 = value.toLowerCase() === "true";
    } else if (field === "featureGates")
      entry.featureGates =
        entry.featureGates === undefined ? value : `${entry.featureGates},${value}`;
    else entry.cgroupVersion = value;
  }
  return components;
}

/** What kubectl printed, as pasted: the lines of `kubectl version` and the table of `kubectl get nodes` (-o wide). */
export interface PastedKubectl {
  readonly version?: string;
  readonly nodes?: string;
}

const VERSION_LINE = /^\s*(Client|Server|Kustomize) Version:/;

/**
 * The outputs of `kubectl version` and `kubectl get nodes` in the lines pasted after a command's first line
 * (``` fences dropped), as the design notes' pre-upgrade check reads them; undefined when neither is there.
 */
export function pastedKubectl(body: string): PastedKubectl | undefined {
  const lines = body.replace(/```[a-z]*\n?/gi, "").split("\n");
  const header = lines.findIndex((line) =>
    /^\s*NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\b/.test(line),
  );
  const versionLines = lines.filter((line) => VERSION_LINE.test(line)).map((line) => line.trim());
  if (header < 0 && versionLines.length === 0) return undefined;
  const nodes =
    header < 0
      ? undefined
      : lines
          .slice(header)
          .filter((line) => line.trim() !== "" && !VERSION_LINE.test(line))
          .join("\n");
  return {
    ...(versionLines.length === 0 ? {} : { version: versionLines.join("\n") }),
    ...(nodes === undefined ? {} : { nodes }),
  };
}
