/**
 * etcd as a cluster of members, not only as a version: members on more than
 * one minor (a rolling upgrade in progress, which etcd allows only between
 * neighbouring minors and only from the patch its upgrade guide names), and
 * how many members there are (one tolerates no failure; an even number
 * tolerates no more than the odd number below it). Each etcd entry with an
 * instance is a member; a single entry without one says nothing about the
 * member count. The path rules are knowledge (kb/runtime-releases.yaml:
 * upgradeFromLine, upgradeFromMinVersion); the etcd planner (upgrade.ts)
 * walks the same path, so a plan never passes through a state this judges
 * an ERROR.
 */
import {
  compareComponentVersions,
  parseComponentVersion,
  type ComponentVersion,
} from "../core/versions.js";
import type { RuntimeReleaseRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { label, type ClusterPlan, type PlannedComponent } from "./cluster-plan.js";
import { finding, type Finding } from "./findings.js";

type Member = PlannedComponent & { readonly release: ComponentVersion };

const lineOf = (version: ComponentVersion): string => `${version.major}.${version.minor}`;

/** etcd's own record of a release line, if the knowledge base has it. */
export function etcdLine(snapshot: KbSnapshot, line: string): RuntimeReleaseRecord | undefined {
  return snapshot.runtimeReleases.find(
    (release) => release.component === "etcd" && release.line === line,
  );
}

export function checkEtcdMembers(snapshot: KbSnapshot, plan: ClusterPlan): Finding[] {
  const members = plan.entries.filter(
    (entry): entry is Member => entry.category === "datastore" && entry.release !== null,
  );
  if (members.length === 0) return [];
  return [...checkMixedMinors(snapshot, members), ...checkMemberCount(snapshot, members)];
}

function checkMixedMinors(snapshot: KbSnapshot, members: readonly Member[]): Finding[] {
  const lines = [...new Set(members.map((member) => lineOf(member.release)))].sort((a, b) =>
    compareComponentVersions(parseComponentVersion(`${a}.0`), parseComponentVersion(`${b}.0`)),
  );
  if (lines.length < 2) return [];
  const newest = lines.at(-1)!;
  const oldest = lines[0]!;
  const record = etcdLine(snapshot, newest);
  const who = (line: string) =>
    members
      .filter((member) => lineOf(member.release) === line)
      .map((member) => `${label(member)} ${member.version}`)
      .join(", ");
  const sourceUrl = record?.upgradeSourceUrl ?? snapshot.reference("etcd-upgrading");
  if (lines.length > 2 || record?.upgradeFromLine == null || record.upgradeFromLine !== oldest) {
    return [
      finding({
        code: "ETCD_MEMBERS_SKEWED",
        severity: "ERROR",
        component: "etcd",
        sourceUrl: snapshot.reference("etcd-upgrading"),
        message: `etcd members run ${lines.join(" and ")} (${lines.map(who).join("; ")}): etcd upgrades one minor at a time${record?.upgradeFromLine == null ? "" : ` (${newest} only from ${record.upgradeFromLine})`}, and members of two minors run together only during that upgrade. Bring every member to the same minor, through each minor between`,
      }),
    ];
  }
  const floor =
    record.upgradeFromMinVersion === null
      ? null
      : parseComponentVersion(record.upgradeFromMinVersion);
  const below =
    floor === null
      ? []
      : members.filter(
          (member) =>
            lineOf(member.release) === oldest &&
            compareComponentVersions(member.release, floor) < 0,
        );
  if (floor !== null && below.length > 0) {
    return [
      finding({
        code: "ETCD_UPGRADE_PATH",
        severity: "ERROR",
        component: "etcd",
        instance: below.length === 1 ? below[0]!.instance : null,
        ruleId: `etcd ${newest}`,
        sourceUrl,
        message: `etcd members run ${newest} beside ${below.map((member) => `${label(member)} ${member.version}`).join(", ")}: etcd's upgrade guide allows moving to ${newest} only from ${record.upgradeFromMinVersion} or newer on every ${oldest} member (older ${oldest} patches have upgrade bugs such as members turning into learners or removed members coming back). Bring every ${oldest} member to ${record.upgradeFromMinVersion} or newer, with the cluster healthy, before any member runs ${newest}`,
      }),
    ];
  }
  return [
    finding({
      code: "ETCD_MIXED_VERSIONS",
      severity: "INFO",
      component: "etcd",
      sourceUrl,
      message: `etcd members run ${oldest} (${who(oldest)}) and ${newest} (${who(newest)}): a rolling upgrade in progress; the cluster runs at ${oldest} until every member is on ${newest}. Finish it one member at a time, checking health (etcdctl endpoint health) between members`,
    }),
  ];
}

function checkMemberCount(snapshot: KbSnapshot, members: readonly Member[]): Finding[] {
  // One entry without an instance is "etcd at this version", not a claim about how many members there are.
  if (members.length === 1 && members[0]!.instance === null) return [];
  const count = members.length;
  const where = { component: "etcd", sourceUrl: snapshot.reference("etcd-cluster-size") };
  if (count === 1) {
    return [
      finding({
        ...where,
        code: "ETCD_NO_FAULT_TOLERANCE",
        severity: "WARNING",
        instance: members[0]!.instance,
        message: `etcd has one member (${label(members[0]!)}): it tolerates no failure, and every upgrade or restart of it takes the control plane's store away; a single member is for testing. Run 3 or 5 members (a quorum of n/2+1 tolerates 1 or 2 failures)`,
      }),
    ];
  }
  if (count % 2 === 0) {
    return [
      finding({
        ...where,
        code: "ETCD_EVEN_MEMBERS",
        severity: "WARNING",
        message: `etcd has ${count} members: a quorum of ${count / 2 + 1} tolerates ${count / 2 - 1} failure${count / 2 - 1 === 1 ? "" : "s"}, no more than ${count - 1} members would, and each upgrade step risks more; run an odd number (${count - 1} or ${count + 1})`,
      }),
    ];
  }
  return [];
}

/**
 * The versions an etcd member passes through from `from` to `to`, each a rolling upgrade of its own: within a
 * line to the patch the next line's guide asks for, then onto the next line, one minor at a time. Lines the
 * knowledge base has no record of are crossed in one move (the member checks then say what they can).
 */
export function etcdWaypoints(
  snapshot: KbSnapshot,
  from: ComponentVersion,
  to: ComponentVersion,
): ComponentVersion[] {
  const waypoints: ComponentVersion[] = [];
  let at = from;
  for (let guard = 0; guard < 20 && compareComponentVersions(at, to) < 0; guard += 1) {
    if (at.major !== to.major || at.minor === to.minor) {
      waypoints.push(to);
      break;
    }
    const next = etcdLine(snapshot, `${at.major}.${at.minor + 1}`);
    if (next === undefined) {
      waypoints.push(to);
      break;
    }
    const floor =
      next.upgradeFromMinVersion === null
        ? null
        : parseComponentVersion(next.upgradeFromMinVersion);
    if (floor !== null && lineOf(floor) === lineOf(at) && compareComponentVersions(at, floor) < 0) {
      waypoints.push(floor);
      at = floor;
      continue;
    }
    // Onto the next line: the target itself when it is there, else the patch the line after it asks for (or its first).
    if (next.line === lineOf(to)) {
      waypoints.push(to);
      break;
    }
    const after = etcdLine(snapshot, `${at.major}.${at.minor + 2}`);
    const onNext =
      after?.upgradeFromMinVersion == null
        ? parseComponentVersion(`${next.line}.0`)
        : parseComponentVersion(after.upgradeFromMinVersion);
    waypoints.push(onNext);
    at = onNext;
  }
  return waypoints;
}
