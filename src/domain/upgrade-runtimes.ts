/**
 * A pool's container runtime in an upgrade plan: which version it moves to before its kubelet does. One
 * release line for the pool's whole way when a known line covers it; else, minor by minor, what the
 * runtime's requirements and its own table ask, never a line past its end of life or one whose support the
 * kubelet is ending. A runtime the next kubelet cannot work with at all blocks the plan.
 */
import type { RuntimeReleaseRecord, RuntimeRequirementRecord } from "../knowledge/records.js";
import {
  compareComponentVersions,
  minorIndex,
  parseComponentVersion,
  type ComponentVersion,
} from "../core/versions.js";
import {
  label,
  plannedComponent,
  type ClusterPlan,
  type PlannedComponent,
} from "./cluster-plan.js";
import { checkRuntimeEndOfLife, lastSupportedDay } from "./node-checks.js";
import { checkRuntimes } from "./runtime-checks.js";
import { Blocked, minorWords, type PlanInProgress } from "./upgrade-in-progress.js";

/** The runtimes serving a pool (its own, else the cluster-wide ones) to what its kubelet needs at `minor`, before it moves. */
export function prepareRuntimeFor(
  plan: PlanInProgress,
  kubelet: PlannedComponent,
  minor: number,
): void {
  const runtimes = plan.state.entries.filter(
    (entry) =>
      (entry.category === "container-runtime" || entry.category === "runtime-shim") &&
      (entry.instance === kubelet.instance ||
        (entry.instance === null &&
          !plan.state.entries.some(
            (other) =>
              other.category === entry.category &&
              other.instance === kubelet.instance &&
              other.instance !== null,
          ))),
  );
  const wayEnd = Math.max(minor, plan.targetMinor);
  for (const runtime of runtimes) {
    // One line for the whole way when there is one; else the minor-by-minor choice of the runtime's table.
    const whole = lineForWholePath(plan, runtime, kubelet, wayEnd);
    const wanted =
      whole !== undefined ? whole : minorByMinor(plan, runtime, kubelet, minor, wayEnd);
    if (wanted === null) continue;
    plan.step([{ entry: runtime, to: wanted.version }], `runtime before kubelet: ${wanted.why}`);
  }
}

/**
 * The release line a runtime should be on for the whole of its pool's way, from the kubelet's minor today to
 * `wayEnd`: a line that validate finds nothing against (no requirement, recommendation or ending support of
 * the runtime's table unmet) at every kubelet minor of the way, and that is released and not past its own end
 * of life on the plan's day. The current line when it is such a line (at the highest floor on the way), else
 * a line in its project's active support before one in extended support (whose scope is often one platform's
 * minors), the oldest first. Null when the runtime already is there; undefined when no known line covers the
 * whole way (the minor-by-minor choice of runtimeTarget applies then, and the end state says what is left).
 */
function lineForWholePath(
  plan: PlanInProgress,
  runtime: PlannedComponent,
  kubelet: PlannedComponent,
  wayEnd: number,
): { version: string; why: string } | null | undefined {
  const lines = plan.snapshot.runtimeReleases.filter(
    (release) => release.component === runtime.component,
  );
  const release = runtime.release;
  if (lines.length === 0 || release === null) return undefined;
  const served = plan.state.entries.filter(
    (entry) =>
      entry.component === "kubelet" &&
      entry.kubernetes !== null &&
      (entry.instance === runtime.instance || runtime.instance === null),
  );
  const from = Math.min(
    minorIndex(kubelet.kubernetes!),
    ...served.map((entry) => minorIndex(entry.kubernetes!)),
  );
  const minors = Array.from({ length: Math.max(0, wayEnd - from) + 1 }, (_, step) => from + step);
  const kubeletRecord = plan.component("kubelet");
  const runtimeRecord = plan.component(runtime.component);
  const clean = (version: string): boolean => {
    const candidate = plannedComponent(runtimeRecord, runtime.instance, version, runtime.component);
    if (checkRuntimeEndOfLife(plan.snapshot, candidate, plan.asOf).length > 0) return false;
    return minors.every((at) => {
      const pair: ClusterPlan = {
        entries: [
          candidate,
          plannedComponent(kubeletRecord, runtime.instance, plan.versionFor(at), "kubelet"),
        ],
        ...(plan.state.platform === undefined ? {} : { platform: plan.state.platform }),
      };
      return checkRuntimes(plan.snapshot, pair).every((entry) => entry.severity === "INFO");
    });
  };
  const floors = plan.requirements
    .filter(
      (requirement) =>
        requirement.component === runtime.component &&
        minorIndex(requirement.kubernetesFrom) <= wayEnd,
    )
    .flatMap((requirement) => [
      ...requirement.lineMinVersions,
      ...(requirement.minVersion === null ? [] : [requirement.minVersion]),
    ])
    .map((floor) => parseComponentVersion(floor));
  const versionOn = (line: string): ComponentVersion => {
    const [major, minor] = line.split(".").map(Number) as [number, number];
    const onLine = [
      ...floors.filter((floor) => floor.major === major && floor.minor === minor),
      ...(release.major === major && release.minor === minor ? [release] : []),
    ];
    return onLine.length === 0
      ? parseComponentVersion(`${line}.0`)
      : onLine.reduce((a, b) => (compareComponentVersions(b, a) > 0 ? b : a));
  };
  const currentLine = `${release.major}.${release.minor}`;
  const inActiveSupport = (line: RuntimeReleaseRecord): boolean =>
    line.endOfActiveSupport === null || line.endOfActiveSupport >= plan.asOf;
  const candidates = lines
    .filter(
      (line) => !line.tentative && (line.releaseDate === null || line.releaseDate <= plan.asOf),
    )
    .map((line) => ({ line, version: versionOn(line.line) }))
    .filter(({ version }) => compareComponentVersions(version, release) >= 0)
    .sort(
      (a, b) =>
        Number(b.line.line === currentLine) - Number(a.line.line === currentLine) ||
        Number(inActiveSupport(b.line)) - Number(inActiveSupport(a.line)) ||
        compareComponentVersions(a.version, b.version),
    );
  const chosen = candidates.find(({ version }) => clean(version.raw));
  if (chosen === undefined) return undefined;
  if (compareComponentVersions(chosen.version, release) === 0) return null;
  const way = `Kubernetes ${minorWords(minors[0]!)}${minors.length > 1 ? ` to ${minorWords(minors.at(-1)!)}` : ""}`;
  const support = inActiveSupport(chosen.line)
    ? "in its project's active support"
    : `in extended support only (${chosen.line.extendedSupportScope ?? "limited scope"})`;
  return {
    version: chosen.version.raw,
    why: `${runtime.component} ${chosen.line.line} meets every requirement and recommendation of ${runtime.component}'s table for ${way} and is ${support} on ${plan.asOf}, so the pool moves its runtime once; use the newest patch of the ${chosen.line.line} line`,
  };
}

/** The runtime's next version by its requirements and table at `minor` (runtimeTarget), when no line covers the whole way. */
function minorByMinor(
  plan: PlanInProgress,
  runtime: PlannedComponent,
  kubelet: PlannedComponent,
  minor: number,
  wayEnd: number,
): { version: string; why: string } | null {
  const inForce = plan.requirements.filter(
    (requirement) =>
      requirement.component === runtime.component &&
      minorIndex(requirement.kubernetesFrom) <= minor,
  );
  const rows = plan.requirements.filter(
    (requirement) =>
      requirement.component === runtime.component && requirement.kind === "RECOMMENDED_MIN_VERSION",
  );
  const lines = plan.snapshot.runtimeReleases.filter(
    (release) => release.component === runtime.component,
  );
  // Support that ends anywhere on the way (containerd 1.x from 1.34) rules the line out from the first step, so the
  // pool moves its runtime once rather than onto a line it must leave again a few minors later.
  const endings = plan.requirements
    .filter(
      (requirement) =>
        requirement.component === runtime.component &&
        requirement.kind === "SUPPORT_ENDING" &&
        requirement.minVersion !== null &&
        minorIndex(requirement.kubernetesFrom) <= wayEnd,
    )
    .map((requirement) => parseComponentVersion(requirement.minVersion))
    .filter(
      (floor) => runtime.release !== null && compareComponentVersions(runtime.release, floor) < 0,
    );
  const endingBelow =
    endings.length === 0
      ? null
      : endings.reduce((a, b) => (compareComponentVersions(b, a) > 0 ? b : a));
  return runtimeTarget(runtime, inForce, minor, plan.state, kubelet, rows, wayEnd, {
    lines,
    asOf: plan.asOf,
    endingBelow,
  });
}

/** The runtime's own release lines and the day the plan is judged on, so that a plan does not move a runtime onto a dead line. */
interface RuntimeLines {
  readonly lines: readonly RuntimeReleaseRecord[];
  readonly asOf: string;
  /** The lowest version that support is not ending for (a SUPPORT_ENDING requirement in force), if any. */
  readonly endingBelow?: ComponentVersion | null;
}

/**
 * The version the runtime's own table lists for every kubelet minor from
 * `minor` up to the plan's target: its current release line when the table
 * lists that line all the way (at the highest floor on the way) and the line
 * is not past its own end of life on the plan's day, else the oldest line
 * listed all the way that is still supported (else the oldest listed all the
 * way, else at the target). Null when the runtime already meets it, or the
 * table says nothing. A later kubelet step asks again, so a pool that has to
 * cross a minor only dead lines are listed for moves on to a live line as
 * soon as its table lists one for the rest of the way.
 */
function listedTarget(
  runtime: PlannedComponent,
  rows: readonly RuntimeRequirementRecord[],
  minor: number,
  targetMinor: number,
  { lines, asOf, endingBelow = null }: RuntimeLines,
): { version: string; why: string } | null {
  const release = runtime.release!;
  const rowAt = (at: number): RuntimeRequirementRecord | undefined =>
    rows
      .filter((row) => minorIndex(row.kubernetesFrom) <= at)
      .reduce<
        RuntimeRequirementRecord | undefined
      >((newest, row) => (newest === undefined || minorIndex(row.kubernetesFrom) > minorIndex(newest.kubernetesFrom) ? row : newest), undefined);
  const path = [
    ...new Set(
      Array.from({ length: Math.max(0, targetMinor - minor) + 1 }, (_, step) =>
        rowAt(minor + step),
      ).filter((row): row is RuntimeRequirementRecord => row !== undefined),
    ),
  ];
  if (path.length === 0) return null;
  const floorsOf = (row: RuntimeRequirementRecord): ComponentVersion[] =>
    (row.lineMinVersions.length > 0
      ? row.lineMinVersions
      : row.minVersion === null
        ? []
        : [row.minVersion]
    ).map((floor) => parseComponentVersion(floor));
  const lineOf = (version: ComponentVersion): string => `${version.major}.${version.minor}`;
  const floorFor = (line: string): ComponentVersion | null => {
    let highest: ComponentVersion | null = null;
    for (const row of path) {
      const floor = floorsOf(row).find((candidate) => lineOf(candidate) === line);
      if (floor === undefined) return null;
      if (highest === null || compareComponentVersions(floor, highest) > 0) highest = floor;
    }
    return highest;
  };
  const alive = (line: string): boolean => {
    const known = lines.find((candidate) => candidate.line === line);
    const lastDay = known === undefined ? null : lastSupportedDay(known);
    if (lastDay !== null && asOf > lastDay) return false;
    // Nor can a plan move to a line that is not released yet on its day.
    if (known !== undefined && known.releaseDate !== null && known.releaseDate > asOf) return false;
    // A line whose support the kubelet is ending (containerd 1.x from 1.34) is as good as dead for the plan.
    return (
      endingBelow === null ||
      compareComponentVersions(parseComponentVersion(`${line}.999999`), endingBelow) >= 0
    );
  };
  let chosen = floorFor(lineOf(release));
  let leftDeadLine = false;
  if (chosen === null || !alive(lineOf(release))) {
    const everywhere = floorsOf(path[path.length - 1]!)
      .filter((floor) => floorFor(lineOf(floor)) !== null)
      .sort(compareComponentVersions);
    const live = everywhere.filter(
      (floor) => alive(lineOf(floor)) && compareComponentVersions(floor, release) > 0,
    );
    const line =
      live[0] ??
      (chosen === null
        ? (everywhere[0] ?? floorsOf(path[path.length - 1]!).sort(compareComponentVersions)[0])
        : undefined);
    if (line !== undefined) {
      leftDeadLine = chosen !== null;
      chosen = floorFor(lineOf(line)) ?? line;
    }
  }
  if (chosen === null || compareComponentVersions(release, chosen) >= 0) return null;
  const deadBecause = (line: string): string =>
    endingBelow !== null &&
    compareComponentVersions(parseComponentVersion(`${line}.999999`), endingBelow) < 0
      ? `support for the ${line} line is ending: the kubelet wants ${endingBelow.raw} or newer`
      : `the ${line} line is past its own end of life on ${asOf}`;
  const first = path[0]!.kubernetesFrom;
  const last = path[path.length - 1]!.kubernetesFrom;
  return {
    version: chosen.raw,
    why: `${runtime.component}'s own table lists ${chosen.raw} or newer on the ${lineOf(chosen)} line for Kubernetes ${first === last ? first : `${first} to ${last}`} (${path.map((row) => row.id).join(", ")}); use the newest patch of that line${leftDeadLine ? ` (${deadBecause(lineOf(release))})` : ""}`,
  };
}

function runtimeTarget(
  runtime: PlannedComponent,
  inForce: RuntimeRequirementRecord[],
  minor: number,
  state: ClusterPlan,
  kubelet: PlannedComponent,
  rows: readonly RuntimeRequirementRecord[],
  targetMinor: number,
  lines: RuntimeLines,
): { version: string; why: string } | null {
  const release = runtime.release!;
  for (const requirement of inForce) {
    if (requirement.kind === "REQUIRES_SHIM") {
      const hasShim = state.entries.some(
        (entry) =>
          entry.component === requirement.requires &&
          (entry.instance === runtime.instance || entry.instance === null),
      );
      if (!hasShim) {
        throw new Blocked(
          `${label(kubelet)} cannot move to ${minorWords(minor)} with ${label(runtime)}: from ${requirement.kubernetesFrom} the kubelet has no dockershim, so Docker Engine needs ${requirement.requires}. Add ${requirement.requires} or move the pool to containerd or CRI-O, then plan again.`,
        );
      }
    }
  }
  const minimums = inForce
    .filter((requirement) => requirement.kind === "MIN_VERSION" && requirement.minVersion !== null)
    .map((requirement) => ({ requirement, version: parseComponentVersion(requirement.minVersion) }))
    .filter(({ version }) => compareComponentVersions(release, version) < 0);
  const listed = listedTarget(runtime, rows, minor, targetMinor, lines);
  if (minimums.length > 0) {
    const highest = minimums.reduce((a, b) =>
      compareComponentVersions(b.version, a.version) > 0 ? b : a,
    );
    // The bare minimum would leave the runtime below its own table: go to what the table lists when that is higher.
    if (
      listed !== null &&
      compareComponentVersions(parseComponentVersion(listed.version), highest.version) > 0
    )
      return listed;
    return {
      version: highest.version.raw,
      why: `${runtime.component} ${highest.requirement.minVersion} or newer is required from Kubernetes ${highest.requirement.kubernetesFrom} (${highest.requirement.id})`,
    };
  }
  if (listed !== null) return listed;
  if (
    inForce.some((requirement) => requirement.kind === "MATCH_KUBERNETES_MINOR") &&
    (release.major !== 1 || release.minor !== minor % 1000)
  ) {
    return {
      version: minorWords(minor),
      why: `${runtime.component} minors track Kubernetes minors`,
    };
  }
  return null;
}
