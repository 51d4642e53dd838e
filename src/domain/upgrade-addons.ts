/**
 * Add-ons in an upgrade plan: one the next control-plane minor would leave unsupported moves before the hop to
 * a version that supports both minors, or right after it when none does; through every minor between where
 * its project upgrades one minor at a time.
 */
import { compareComponentVersions, minorIndex, type ComponentVersion } from "../core/versions.js";
import { addonFits, candidateVersions } from "./addons.js";
import { label, type PlannedComponent } from "./cluster-plan.js";
import { finding } from "./findings.js";
import type { PlanInProgress } from "./upgrade-in-progress.js";

/** Of versions sorted oldest first: the newest patch of the oldest minor among them. */
function newestPatchOfFirstMinor(
  versions: readonly ComponentVersion[],
): ComponentVersion | undefined {
  const first = versions[0];
  if (first === undefined) return undefined;
  return versions
    .filter((version) => version.major === first.major && version.minor === first.minor)
    .at(-1);
}

/**
 * The add-ons that the next control-plane minor would leave unsupported:
 * moved now to the oldest version that supports both the current minor
 * and the next (through every minor between, where the project says to),
 * or, when no version supports both, returned to be moved right after the
 * hop. An add-on no known version carries across is a finding.
 */
export function prepareAddonsFor(
  plan: PlanInProgress,
  next: number,
): Array<{
  name: { component: string; instance: string | null };
  to: ComponentVersion;
  note: string;
}> {
  const afterwards: Array<{
    name: { component: string; instance: string | null };
    to: ComponentVersion;
    note: string;
  }> = [];
  const newest =
    plan.snapshot.newestRelease === undefined
      ? next % 1000
      : minorIndex(plan.snapshot.newestRelease.version) % 1000;
  const nextMinor = next % 1000;
  const currentMinor = nextMinor - 1;
  for (const entry of plan.state.entries) {
    const addon = entry.addon;
    const version = entry.release;
    if (addon === undefined || version === null || addonFits(addon, version, nextMinor, newest))
      continue;
    const later = candidateVersions(addon).filter(
      (candidate) => compareComponentVersions(candidate, version) > 0,
    );
    const fitsBoth = newestPatchOfFirstMinor(
      later.filter(
        (candidate) =>
          addonFits(addon, candidate, currentMinor, newest) &&
          addonFits(addon, candidate, nextMinor, newest),
      ),
    );
    const name = { component: entry.component, instance: entry.instance };
    if (fitsBoth !== undefined && addon.rule !== "MATCH_MINOR") {
      moveAddon(
        plan,
        entry,
        fitsBoth,
        `${addon.displayName} before kube-apiserver reaches 1.${nextMinor}: ${version.raw} does not support it, ${fitsBoth.raw} supports 1.${currentMinor} and 1.${nextMinor}`,
      );
      continue;
    }
    const fitsNext = newestPatchOfFirstMinor(
      later.filter((candidate) => addonFits(addon, candidate, nextMinor, newest)),
    );
    if (fitsNext !== undefined) {
      afterwards.push({
        name,
        to: fitsNext,
        note:
          addon.rule === "MATCH_MINOR"
            ? `${addon.displayName} right after kube-apiserver reaches 1.${nextMinor}: its minor must equal the control plane's (the newest ${fitsNext.raw} patch)`
            : `${addon.displayName} right after kube-apiserver reaches 1.${nextMinor}: no version supports both 1.${currentMinor} and 1.${nextMinor}, and ${fitsNext.raw} needs 1.${nextMinor}`,
      });
      continue;
    }
    plan.notes.push(
      finding({
        code: "ADDON_NO_SUPPORTED_VERSION",
        severity: "ERROR",
        component: addon.name,
        instance: entry.instance,
        message: `no ${addon.displayName} version the knowledge base knows supports Kubernetes 1.${nextMinor}, so the plan cannot carry ${label(entry)} ${version.raw} there; check the project's own table before the control plane moves`,
        sourceUrl: addon.sourceUrl,
      }),
    );
  }
  return afterwards;
}

/** One add-on to `to`, through each minor between where its project says to upgrade one minor at a time. */
export function moveAddon(
  plan: PlanInProgress,
  entry: PlannedComponent,
  to: ComponentVersion,
  note: string,
): void {
  const addon = entry.addon!;
  let current = entry;
  if (addon.upgradeLimit === "ONE_MINOR_AT_A_TIME" && current.release !== null) {
    const from = current.release;
    const between = candidateVersions(addon).filter(
      (candidate) =>
        candidate.major === to.major &&
        candidate.major === from.major &&
        candidate.minor > from.minor &&
        candidate.minor < to.minor,
    );
    for (const minor of [...new Set(between.map((candidate) => candidate.minor))]) {
      const stop = newestPatchOfFirstMinor(
        between.filter((candidate) => candidate.minor === minor),
      )!;
      plan.step(
        [{ entry: current, to: stop.raw }],
        `${addon.displayName} through ${stop.raw} on the way to ${to.raw}: ${addon.upgradeLimitNote ?? "the project upgrades one minor at a time"}`,
      );
      current = plan.state.entries.find(
        (candidate) =>
          candidate.component === entry.component && candidate.instance === entry.instance,
      )!;
    }
  }
  plan.step([{ entry: current, to: to.raw }], note);
}
