/**
 * What kubeadm installs per Kubernetes minor (kubeadm.ts, constants.go at each release tag) against
 * the kb: the etcd version of each kb/releases.yaml row (etcdVersion, etcdSourceUrl: the map's entry
 * at the minor's newest patch tag, as backports bump it) and the CoreDNS lines of kb/addons.yaml
 * (the CoreDNS kubeadm installs at v1.N.0 and at the newest v1.N.P, a minor listed on the line of
 * each). constants.go is the primary source of both: what the kb lacks is proposed. A kb CoreDNS
 * minor that neither tag installs is reported, not removed: a patch between them may have. Pure.
 */
import type { AddonRecord, ReleaseRecord } from "../../knowledge/records.js";
import {
  explained,
  minorNumber,
  proposeChange,
  type Finding,
  type ProposedRecord,
  type Section,
} from "./compare.js";
import { compareLines } from "./endoflife-products.js";
import { constantsUrl, type KubeadmMinor, type KubeadmSnapshot } from "./kubeadm.js";

export interface KubeadmComparison<R> {
  readonly kb: readonly R[];
  readonly minors: readonly KubeadmMinor[];
  readonly fields: readonly string[];
  readonly file: string;
  readonly from: string;
}

const at = (snapshot: KubeadmSnapshot): string =>
  `${snapshot.tag} (${snapshot.commit.slice(0, 12)})`;

/** etcd per minor against kb/releases.yaml. */
export function compareKubeadmEtcd(input: KubeadmComparison<ReleaseRecord>): Section {
  const findings: Finding[] = [];
  const proposals: ProposedRecord[] = [];
  const rows = new Map(input.kb.map((row) => [row.version, row]));
  const oldest = Math.min(...input.kb.map((row) => minorNumber(row.version)));
  const notInKb: string[] = [];
  for (const { minor, first, newest } of input.minors) {
    const number = minorNumber(minor);
    const etcd = newest.constants.supportedEtcd.get(number);
    const source = constantsUrl(newest.commit);
    if (etcd === undefined) {
      findings.push({
        status: "info",
        key: minor,
        message: `${minor}: SupportedEtcdVersion at ${at(newest)} has no ${number} entry (kubeadm falls back to the nearest entry or DefaultEtcdVersion ${newest.constants.defaultEtcd ?? "none"}); not derived`,
        source,
      });
      continue;
    }
    const firstEtcd = first?.constants.supportedEtcd.get(number);
    if (first !== null && first !== newest && firstEtcd !== etcd)
      findings.push({
        status: "info",
        key: minor,
        message: `${minor}: kubeadm's etcd was ${firstEtcd ?? "not in the map"} at ${first.tag} and is ${etcd} at ${newest.tag} (a backport); the kb's etcdVersion follows the newest`,
        source: null,
      });
    const row = rows.get(minor);
    if (row === undefined) {
      if (number >= oldest) notInKb.push(minor);
      continue;
    }
    if (row.etcdVersion === etcd) continue;
    const status =
      row.etcdVersion === null
        ? "missing"
        : explained(row.disagreement, "etcdVersion", etcd)
          ? "known"
          : "differs";
    findings.push({
      status,
      key: minor,
      message:
        row.etcdVersion === null
          ? `${minor} lacks etcdVersion: kubeadm's SupportedEtcdVersion[${number}] at ${at(newest)} is ${etcd}`
          : `${minor} etcdVersion: kb says ${row.etcdVersion} (${row.etcdSourceUrl ?? "no source"}), SupportedEtcdVersion[${number}] at ${at(newest)} is ${etcd}${status === "known" ? "; the kb's disagreement explains it" : ""}`,
      source,
    });
    if (status === "known") continue;
    const proposal = proposeChange(
      "releases",
      minor,
      input.fields,
      row,
      { etcdVersion: etcd, etcdSourceUrl: source },
      {
        etcdVersion: `kb: ${row.etcdVersion ?? "none"}; kubeadm SupportedEtcdVersion[${number}] at ${newest.tag}`,
      },
    );
    if (proposal !== undefined) proposals.push(proposal);
  }
  if (notInKb.length > 0)
    findings.push({
      status: "info",
      key: "(kb only)",
      message: `kubeadm's constants were read for ${notInKb.join(", ")}, which kb/releases.yaml has no row of (a row comes from the release calendar); not proposed`,
      source: null,
    });
  return {
    entity: "releases",
    file: input.file,
    from: input.from,
    derivation: "kubeadm-etcd",
    findings,
    proposals,
  };
}

type AddonLine = AddonRecord["lines"][number];

/** The CoreDNS kubeadm installs at a minor's tags: version → the tags that install it. */
function installed(minor: KubeadmMinor): Map<string, KubeadmSnapshot[]> {
  const versions = new Map<string, KubeadmSnapshot[]>();
  for (const snapshot of [minor.first, minor.newest]) {
    if (snapshot === null || snapshot.constants.coreDns === null) continue;
    const tags = versions.get(snapshot.constants.coreDns) ?? [];
    if (!tags.includes(snapshot)) tags.push(snapshot);
    versions.set(snapshot.constants.coreDns, tags);
  }
  return versions;
}

/** CoreDNS per minor against kb/addons.yaml's coredns lines. */
export function compareKubeadmCoreDns(
  input: KubeadmComparison<AddonRecord> & { addon: string },
): Section {
  const findings: Finding[] = [];
  const section = {
    entity: "addons" as const,
    file: input.file,
    from: input.from,
    derivation: "kubeadm-coredns",
  };
  const coredns = input.kb.find((record) => record.name === input.addon);
  if (coredns === undefined) {
    findings.push({
      status: "info",
      key: input.addon,
      message: `the kb has no add-on ${input.addon}; kubeadm's CoreDNSVersion is not compared`,
      source: null,
    });
    return { ...section, findings, proposals: [] };
  }
  let lines: AddonLine[] = coredns.lines.map((line) => ({
    ...line,
    kubernetes: [...line.kubernetes],
  }));
  const oldest = Math.min(...coredns.lines.flatMap((line) => line.kubernetes.map(minorNumber)));
  const older: string[] = [];
  const notes: string[] = [];
  for (const minor of input.minors) {
    const versions = installed(minor);
    if (versions.size === 0) continue;
    if (minorNumber(minor.minor) < oldest) {
      older.push(minor.minor);
      continue;
    }
    for (const [version, tags] of versions) {
      const read = tags.map(at).join(" and ");
      const line = lines.find((candidate) => candidate.versions === version);
      if (line?.kubernetes.includes(minor.minor) === true) continue;
      findings.push({
        status: "missing",
        key: `${minor.minor} ${version}`,
        message: `kubeadm installs CoreDNS ${version} at ${read}; kb/addons.yaml's ${input.addon} line ${version} ${line === undefined ? "does not exist" : `lists ${line.kubernetes.join(", ")}, not ${minor.minor}`}`,
        source: constantsUrl(tags.at(-1)!.commit),
      });
      const note = `kubeadm CoreDNSVersion at ${tags.map((tag) => tag.tag).join(" and ")} (kubernetes/kubernetes ${tags.at(-1)!.commit.slice(0, 12)}) is v${version}.`;
      notes.push(`${minor.minor} on ${version}`);
      if (line === undefined) {
        lines.push({
          versions: version,
          kubernetes: [minor.minor],
          minimumKubernetes: null,
          released: null,
          endOfLife: null,
          notes: `kubeadm default for ${minor.minor}, not a support statement. ${note}`,
        });
        lines = lines.sort((a, b) => compareLines(a.versions, b.versions));
      } else {
        line.kubernetes = [...line.kubernetes, minor.minor].sort(
          (a, b) => minorNumber(a) - minorNumber(b),
        );
        line.notes = line.notes === null ? note : `${line.notes} ${note}`;
      }
    }
    for (const line of coredns.lines) {
      if (!line.kubernetes.includes(minor.minor) || versions.has(line.versions)) continue;
      findings.push({
        status: "differs",
        key: `${minor.minor} ${line.versions}`,
        message: `kb/addons.yaml's ${input.addon} line ${line.versions} lists ${minor.minor}, but kubeadm installs ${[...versions.keys()].join(" and ")} at ${[...new Set([minor.first?.tag, minor.newest.tag].filter((tag) => tag !== undefined))].join(" and ")}; not proposed for removal (a patch between them may have installed ${line.versions}): check and correct by hand`,
        source: constantsUrl(minor.newest.commit),
      });
    }
  }
  if (older.length > 0)
    findings.push({
      status: "info",
      key: "(older)",
      message: `kubeadm's CoreDNSVersion was also read for ${older.join(", ")}, older than the kb's oldest ${input.addon} line; not proposed`,
      source: null,
    });
  const proposal =
    notes.length === 0
      ? undefined
      : proposeChange(
          "addons",
          coredns.name,
          input.fields,
          coredns,
          { lines },
          { lines: `kubeadm constants.go: ${notes.join("; ")}` },
        );
  return { ...section, findings, proposals: proposal === undefined ? [] : [proposal] };
}
