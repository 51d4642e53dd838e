/**
 * The fleet's deadlines as calendar entries: for each cluster, the latest day
 * its upgrade must start (with an alarm a week before) and the day its minor
 * leaves standard support on its calendar. Written as iCalendar by
 * src/domain/fleet-calendar.ts; UIDs are stable per cluster and minor, so a
 * calendar that subscribes to the feed moves an entry rather than adding one.
 */
import { icalendar, type CalendarEntry } from "../domain/fleet-calendar.js";
import type { ClusterView } from "./fleet.js";

/** Days before the start date the feed's alarm rings. */
const START_ALARM_DAYS = 7;

export function fleetCalendar(
  clusters: readonly ClusterView[],
  options: {
    readonly base: string;
    readonly generatedAt: Date;
    readonly filter: {
      readonly environment?: string;
      readonly owner?: string;
      readonly label?: string;
    };
  },
): string {
  const entries: CalendarEntry[] = [];
  for (const cluster of clusters) {
    const judgement = cluster.judgement;
    const support = judgement?.support;
    if (judgement === null || support === null || support === undefined) continue;
    const url = `${options.base}/fleet#cluster-${encodeURIComponent(cluster.name)}`;
    const categories = [cluster.environment, cluster.owner];
    const startBy = judgement.startBy;
    const upgrade = judgement.upgrade;
    if (startBy !== null && upgrade !== null && upgrade.hops > 0) {
      entries.push({
        uid: `start-${cluster.name}-${judgement.controlPlane}@kubecompat`,
        day: startBy.latestStart,
        summary: `Start upgrading ${cluster.name} (${cluster.environment}): ${judgement.controlPlane} → ${upgrade.targetVersion}`,
        description: `${startBy.explanation}\nOwner: ${cluster.owner}. Verdict today: ${judgement.status}.`,
        url,
        categories,
        alarmDaysBefore: START_ALARM_DAYS,
      });
    }
    if (judgement.deadline !== null) {
      entries.push({
        uid: `end-${cluster.name}-${judgement.controlPlane}@kubecompat`,
        day: judgement.deadline,
        summary: `${cluster.name}: last day of standard support for ${judgement.controlPlane} (${support.calendar})`,
        description: `Kubernetes ${judgement.controlPlane} on ${support.calendar} leaves standard support${support.endOfSupport === null ? "" : `; support ends entirely on ${support.endOfSupport}`}.${support.note === null ? "" : ` ${support.note}`}${support.sourceUrl === null ? "" : `\nSource: ${support.sourceUrl}`}`,
        url,
        categories,
      });
    }
  }
  const scope = [options.filter.environment, options.filter.owner, options.filter.label].filter(
    (part) => part !== undefined,
  );
  return icalendar(entries, {
    name: `kubecompat fleet${scope.length > 0 ? ` (${scope.join(", ")})` : ""}`,
    generatedAt: options.generatedAt,
  });
}
