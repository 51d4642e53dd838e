/**
 * The firewall between node roles (kb/network-flows.yaml): which flows a cluster needs from one role to
 * another for Kubernetes itself and for its CNI, those flows as firewall rules (nftables, iptables-restore,
 * or a JSON list for Terraform and security-group tools), and a check of a user's allowed-flows list
 * against what the cluster needs at a version. The design notes' pre-upgrade check (§2.3): nodes that
 * lose contact during an upgrade because a flow was never allowed. Pure.
 */
import { InputError } from "../core/errors.js";
import { compareMinors } from "../core/versions.js";
import type { NetworkFlowRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { finding, verdictOf, type Finding, type Verdict } from "./findings.js";
import { isAbsent, readMinor } from "./version-reader.js";

export type NodeRole = NetworkFlowRecord["from"]["role"];
const ROLES: readonly NodeRole[] = ["CONTROL_PLANE", "WORKER", "EXTERNAL"];

const ROLE_WORDS: Readonly<Record<string, NodeRole>> = {
  "control-plane": "CONTROL_PLANE",
  controlplane: "CONTROL_PLANE",
  control_plane: "CONTROL_PLANE",
  cp: "CONTROL_PLANE",
  master: "CONTROL_PLANE",
  masters: "CONTROL_PLANE",
  worker: "WORKER",
  workers: "WORKER",
  node: "WORKER",
  nodes: "WORKER",
  external: "EXTERNAL",
  internet: "EXTERNAL",
  clients: "EXTERNAL",
};

/** A role as people write it: workers, control-plane, CONTROL_PLANE, external. */
export function parseRole(text: unknown, field: string): NodeRole {
  const word = typeof text === "string" ? text.trim().toLowerCase() : "";
  const role = ROLE_WORDS[word] ?? ROLES.find((candidate) => candidate.toLowerCase() === word);
  if (role === undefined)
    throw new InputError(
      `${field} "${String(text).slice(0, 40)}" is not a node role; use control-plane, workers or external`,
      field,
    );
  return role;
}

export interface FlowQuery {
  readonly from?: string | null | undefined;
  readonly to?: string | null | undefined;
  /** The cluster's CNI (calico, cilium, flannel); its flows are added to Kubernetes' own. */
  readonly cni?: string | null | undefined;
  /** A Kubernetes version: only flows that apply to its minor. */
  readonly version?: string | null | undefined;
}

export interface FlowList {
  readonly from: NodeRole | null;
  readonly to: NodeRole | null;
  readonly cni: string | null;
  readonly version: string | null;
  readonly kbRevision: number;
  readonly flows: readonly NetworkFlowRecord[];
  /** What the list leaves out: the CNI's flows when no CNI was named. */
  readonly notes: readonly Finding[];
}

/** The CNIs the knowledge base has flows for. */
export function knownCnis(snapshot: KbSnapshot): string[] {
  return [
    ...new Set(
      snapshot.networkFlows.map((flow) => flow.cni).filter((cni): cni is string => cni !== null),
    ),
  ].sort();
}

function parseCni(snapshot: KbSnapshot, cni: string | null | undefined): string | null {
  if (cni === undefined || cni === null || cni.trim() === "") return null;
  const name = cni.trim().toLowerCase();
  const known = knownCnis(snapshot);
  if (!known.includes(name))
    throw new InputError(
      `cni "${name.slice(0, 40)}" has no flows in the knowledge base; known: ${known.join(", ")}`,
      "cni",
    );
  return name;
}

export function listFlows(snapshot: KbSnapshot, query: FlowQuery = {}): FlowList {
  const from =
    query.from === undefined || query.from === null || query.from === ""
      ? null
      : parseRole(query.from, "from");
  const to =
    query.to === undefined || query.to === null || query.to === ""
      ? null
      : parseRole(query.to, "to");
  const cni = parseCni(snapshot, query.cni);
  const version = isAbsent(query.version) ? null : readMinor(snapshot, query.version, "version");
  const flows = snapshot.networkFlows.filter(
    (flow) =>
      (from === null || flow.from.role === from) &&
      (to === null || flow.to.role === to) &&
      (flow.cni === null || flow.cni === cni) &&
      (version === null ||
        ((flow.fromVersion === null || compareMinors(flow.fromVersion, version) <= 0) &&
          (flow.untilVersion === null || compareMinors(version, flow.untilVersion) <= 0))),
  );
  const notes: Finding[] = [];
  if (cni === null) {
    notes.push(
      finding({
        code: "KNOWLEDGE_EDGE",
        severity: "INFO",
        ruleId: "flows:no-cni",
        message: `no CNI was named, so only Kubernetes' own flows are listed; the CNI's overlay, routing and agent flows are needed too (name one of ${knownCnis(snapshot).join(", ")})`,
      }),
    );
  }
  return { from, to, cni, version, kbRevision: snapshot.revision, flows, notes };
}

export type FirewallFormat = "nftables" | "iptables" | "json";

/** The address ranges of each role, when the user gives them; without them the rules use named sets (nftables, ipset). */
export type RoleCidrs = Partial<Readonly<Record<NodeRole, readonly string[]>>>;

const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(\/(\d|[12]\d|3[0-2]))?$/;

/** Parses `control-plane=10.0.0.0/24,10.0.1.0/24;workers=10.1.0.0/16` or an object of lists. */
export function parseRoleCidrs(input: unknown, field = "cidrs"): RoleCidrs {
  if (input === undefined || input === null || input === "") return {};
  const entries: [string, unknown][] =
    typeof input === "string"
      ? input
          .split(";")
          .filter((part) => part.trim() !== "")
          .map((part) => {
            const [role, list] = part.split("=", 2);
            if (list === undefined)
              throw new InputError(
                `${field}: "${part.slice(0, 60)}" must be role=cidr[,cidr...], e.g. workers=10.1.0.0/16`,
                field,
              );
            return [role!, list.split(",")];
          })
      : typeof input === "object" && !Array.isArray(input)
        ? Object.entries(input as Record<string, unknown>)
        : (() => {
            throw new InputError(
              `${field} must map roles to address ranges, e.g. {"workers": ["10.1.0.0/16"]}`,
              field,
            );
          })();
  const cidrs: Partial<Record<NodeRole, string[]>> = {};
  for (const [roleText, list] of entries) {
    const role = parseRole(roleText, `${field}.${roleText}`);
    const values = (Array.isArray(list) ? list : [list])
      .map((value) => String(value).trim())
      .filter((value) => value !== "");
    for (const value of values) {
      const match = CIDR.exec(value);
      if (match === null || [1, 2, 3, 4].some((index) => Number(match[index]) > 255))
        throw new InputError(
          `${field}.${roleText}: "${value.slice(0, 60)}" is not an IPv4 address or range such as 10.1.0.0/16`,
          `${field}.${roleText}`,
        );
    }
    if (values.length > 100)
      throw new InputError(
        `${field}.${roleText} has ${values.length} ranges; at most 100`,
        `${field}.${roleText}`,
      );
    cidrs[role] = values;
  }
  return cidrs;
}

const SET_NAME: Readonly<Record<NodeRole, string>> = {
  CONTROL_PLANE: "control_plane",
  WORKER: "workers",
  EXTERNAL: "external",
};
const CHAIN: Readonly<Record<NodeRole, string>> = {
  CONTROL_PLANE: "KUBECOMPAT-CONTROL-PLANE",
  WORKER: "KUBECOMPAT-WORKERS",
  EXTERNAL: "KUBECOMPAT-EXTERNAL",
};

/** A comment a firewall tool accepts: plain characters, bounded. */
function comment(flow: NetworkFlowRecord): string {
  const text = `${flow.id}${flow.cni === null ? "" : ` (${flow.cni})`}: ${flow.purpose}`;
  return text
    .replace(/[^A-Za-z0-9 .,:;()/_+-]/g, " ")
    .replace(/\s+/g, " ")
    .slice(0, 120)
    .trim();
}

function portText(flow: NetworkFlowRecord, separator: string): string {
  return flow.endPort === null ? String(flow.port) : `${flow.port}${separator}${flow.endPort}`;
}

/**
 * The flows as rules accepting traffic on the destination role's nodes. nftables: one table with a set of
 * addresses per source role and one chain per destination role (jump to it from the input chain of that
 * role's nodes). iptables-restore: one chain per destination role, sources as -s ranges or ipset sets.
 */
export function firewallRules(
  list: FlowList,
  format: FirewallFormat,
  cidrs: RoleCidrs = {},
): string {
  const flows = list.flows.filter((flow) => flow.to.role !== "EXTERNAL");
  if (format === "json") {
    return `${JSON.stringify(
      flows.map((flow) => ({
        id: flow.id,
        fromRole: flow.from.role,
        fromCidrs: cidrs[flow.from.role] ?? null,
        toRole: flow.to.role,
        toCidrs: cidrs[flow.to.role] ?? null,
        protocol: flow.protocol,
        fromPort: flow.port,
        toPort: flow.endPort ?? flow.port,
        need: flow.need,
        condition: flow.condition,
        cni: flow.cni,
        description: comment(flow),
        sourceUrl: flow.sourceUrl,
      })),
      null,
      2,
    )}\n`;
  }
  const destinations = ROLES.filter((role) => flows.some((flow) => flow.to.role === role));
  if (format === "nftables") {
    const lines = [
      `# kubecompat: flows between node roles${list.cni === null ? "" : ` with ${list.cni}`}${list.version === null ? "" : ` at Kubernetes ${list.version}`}; knowledge-base revision ${list.kbRevision}.`,
      "# Jump to a role's chain from the input chain of that role's nodes; IPv4 only.",
      "table inet kubecompat {",
    ];
    for (const role of ROLES) {
      lines.push(`\tset ${SET_NAME[role]} {`, "\t\ttype ipv4_addr", "\t\tflags interval");
      const ranges = cidrs[role];
      if (ranges !== undefined && ranges.length > 0)
        lines.push(`\t\telements = { ${ranges.join(", ")} }`);
      lines.push("\t}");
    }
    for (const role of destinations) {
      lines.push(`\tchain ${SET_NAME[role]}_input {`);
      for (const flow of flows.filter((candidate) => candidate.to.role === role)) {
        // Without ranges for EXTERNAL, a flow from outside is accepted from anywhere.
        const source =
          flow.from.role === "EXTERNAL" && (cidrs.EXTERNAL ?? []).length === 0
            ? ""
            : `ip saddr @${SET_NAME[flow.from.role]} `;
        const match =
          flow.protocol === "IPIP"
            ? "ip protocol ipip"
            : flow.protocol === "ESP"
              ? "ip protocol esp"
              : `${flow.protocol.toLowerCase()} dport ${portText(flow, "-")}`;
        lines.push(`\t\t${source}${match} accept comment "${comment(flow)}"`);
      }
      lines.push("\t}");
    }
    lines.push("}");
    return `${lines.join("\n")}\n`;
  }
  const lines = [
    `# kubecompat: flows between node roles${list.cni === null ? "" : ` with ${list.cni}`}; knowledge-base revision ${list.kbRevision}. Jump to a role's chain from INPUT on that role's nodes.`,
    "*filter",
  ];
  for (const role of destinations) lines.push(`:${CHAIN[role]} - [0:0]`);
  for (const role of destinations) {
    for (const flow of flows.filter((candidate) => candidate.to.role === role)) {
      const ranges = cidrs[flow.from.role] ?? [];
      const sources =
        flow.from.role === "EXTERNAL" && ranges.length === 0
          ? [""]
          : ranges.length > 0
            ? ranges.map((range) => `-s ${range} `)
            : [`-m set --match-set kubecompat-${SET_NAME[flow.from.role].replace("_", "-")} src `];
      const match =
        flow.protocol === "IPIP"
          ? "-p 4 "
          : flow.protocol === "ESP"
            ? "-p esp "
            : `-p ${flow.protocol.toLowerCase()} ${flow.protocol === "SCTP" ? "-m sctp " : ""}--dport ${portText(flow, ":")} `;
      for (const source of sources)
        lines.push(
          `-A ${CHAIN[role]} ${source}${match}-m comment --comment "${comment(flow)}" -j ACCEPT`,
        );
    }
  }
  lines.push("COMMIT");
  return `${lines.join("\n")}\n`;
}

/** One entry of a user's allowed-flows list: from a role to a role, a protocol and a port or range. */
export interface AllowedFlow {
  readonly from: NodeRole | "ANY";
  readonly to: NodeRole | "ANY";
  readonly protocol: NetworkFlowRecord["protocol"] | "ANY";
  readonly port: number | null;
  readonly endPort: number | null;
}

const ALLOWED_LINE =
  /^\s*([A-Za-z_-]+)\s*->\s*([A-Za-z_-]+)\s+([A-Za-z]+)(?:\s*\/\s*(\d{1,5})(?:\s*-\s*(\d{1,5}))?)?\s*$/;

/** `workers -> control-plane tcp/6443`, `any -> workers udp/30000-32767`, `workers -> workers ipip`, or objects {from, to, protocol, port, endPort}. */
export function parseAllowedFlows(input: unknown, field = "allowed"): AllowedFlow[] {
  const entries: unknown[] =
    typeof input === "string"
      ? input
          .split(/\r?\n/)
          .map((line) => line.replace(/#.*$/, ""))
          .filter((line) => line.trim() !== "")
      : Array.isArray(input)
        ? input
        : [];
  if (typeof input !== "string" && !Array.isArray(input))
    throw new InputError(
      `${field} must be a list of allowed flows such as "workers -> control-plane tcp/6443"`,
      field,
    );
  if (entries.length > 2000)
    throw new InputError(`${field} has ${entries.length} entries; at most 2000`, field);
  const role = (text: unknown, at: string): NodeRole | "ANY" =>
    typeof text === "string" && text.trim().toLowerCase() === "any" ? "ANY" : parseRole(text, at);
  return entries.map((entry, index) => {
    const at = `${field}[${index}]`;
    let from: unknown, to: unknown, protocol: unknown, port: unknown, endPort: unknown;
    if (typeof entry === "string") {
      const match = ALLOWED_LINE.exec(entry);
      if (match === null)
        throw new InputError(
          `${at}: "${entry.trim().slice(0, 80)}" is not an allowed flow; write it as "workers -> control-plane tcp/6443" (roles: control-plane, workers, external, any)`,
          at,
        );
      [, from, to, protocol, port, endPort] = match;
    } else if (entry !== null && typeof entry === "object") {
      ({ from, to, protocol, port, endPort } = entry as Record<string, unknown>);
    } else {
      throw new InputError(
        `${at} must be a line such as "workers -> control-plane tcp/6443" or {from, to, protocol, port}`,
        at,
      );
    }
    const proto = (typeof protocol === "string" ? protocol : "").trim().toUpperCase();
    if (!["TCP", "UDP", "SCTP", "IPIP", "ESP", "ANY"].includes(proto))
      throw new InputError(
        `${at}.protocol "${proto.slice(0, 20)}" must be tcp, udp, sctp, ipip, esp or any`,
        `${at}.protocol`,
      );
    const number = (value: unknown, name: string): number | null => {
      if (value === undefined || value === null || value === "") return null;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65535)
        throw new InputError(`${at}.${name} must be a port from 1 to 65535`, `${at}.${name}`);
      return parsed;
    };
    const first = number(port, "port");
    const last = number(endPort, "endPort");
    if (last !== null && (first === null || last < first))
      throw new InputError(`${at}.endPort must not be below port`, `${at}.endPort`);
    if ((proto === "TCP" || proto === "UDP" || proto === "SCTP") && first === null)
      throw new InputError(
        `${at} must give a port for ${proto.toLowerCase()} (e.g. ${proto.toLowerCase()}/6443)`,
        `${at}.port`,
      );
    return {
      from: role(from, `${at}.from`),
      to: role(to, `${at}.to`),
      protocol: proto as AllowedFlow["protocol"],
      port: first,
      endPort: last,
    };
  });
}

function covers(allowed: AllowedFlow, flow: NetworkFlowRecord): boolean {
  if (allowed.from !== "ANY" && allowed.from !== flow.from.role) return false;
  if (allowed.to !== "ANY" && allowed.to !== flow.to.role) return false;
  if (allowed.protocol !== "ANY" && allowed.protocol !== flow.protocol) return false;
  if (flow.port === null || (allowed.protocol === "ANY" && allowed.port === null)) return true;
  const low = allowed.port ?? 1;
  const high = allowed.endPort ?? allowed.port ?? 65535;
  return low <= flow.port && (flow.endPort ?? flow.port) <= high;
}

export interface FirewallCheck {
  readonly ok: boolean;
  readonly status: Verdict;
  readonly kbRevision: number;
  readonly cni: string | null;
  readonly version: string | null;
  /** The flows judged (those of Kubernetes, the CNI and the version). */
  readonly flowsChecked: number;
  readonly findings: readonly Finding[];
}

/** Which flows the cluster needs (at `version`, with `cni`) that the allowed list lacks. */
export function checkFirewall(
  snapshot: KbSnapshot,
  allowedInput: unknown,
  query: Pick<FlowQuery, "cni" | "version"> = {},
): FirewallCheck {
  const allowed = parseAllowedFlows(allowedInput);
  const list = listFlows(snapshot, query);
  const findings: Finding[] = [...list.notes];
  const inside = list.flows.filter((flow) => flow.to.role !== "EXTERNAL");
  for (const flow of inside) {
    if (allowed.some((entry) => covers(entry, flow))) continue;
    const what = `${flow.from.role.toLowerCase().replace("_", "-")}${flow.from.component === null ? "" : ` (${flow.from.component})`} -> ${flow.to.role.toLowerCase().replace("_", "-")}${flow.to.component === null ? "" : ` (${flow.to.component})`} ${flow.protocol.toLowerCase()}${flow.port === null ? "" : `/${portText(flow, "-")}`}`;
    const blocked = flow.whenBlocked === null ? "" : ` Blocked: ${flow.whenBlocked}`;
    const base = { ruleId: flow.id, sourceUrl: flow.sourceUrl, component: flow.to.component };
    if (flow.need === "OPTIONAL") {
      findings.push(
        finding({
          ...base,
          code: "FLOW_OPTIONAL_NOT_ALLOWED",
          severity: "INFO",
          message: `${what} is not allowed: ${flow.purpose}`,
        }),
      );
    } else {
      findings.push(
        finding({
          ...base,
          code: "FLOW_NOT_ALLOWED",
          severity: flow.need === "REQUIRED" ? "ERROR" : "WARNING",
          message: `${what} is not allowed${flow.need === "CONDITIONAL" && flow.condition !== null ? `, needed when ${flow.condition.replace(/\.$/, "")}` : ""}: ${flow.purpose}${blocked}`,
        }),
      );
    }
  }
  const status = verdictOf(findings);
  return {
    ok: status === "SUPPORTED" || status === "SUPPORTED_WITH_WARNINGS",
    status,
    kbRevision: snapshot.revision,
    cni: list.cni,
    version: list.version,
    flowsChecked: inside.length,
    findings,
  };
}
