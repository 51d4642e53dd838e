/**
 * Objects from the cluster as evidence, judged by the apiVersion they were applied with (their last-applied
 * annotation), never by the served one that `kubectl get` prints: the cluster converts every stored object to
 * the version asked for, so the served version hides what the manifests still say.
 */
import { InputError } from "../core/errors.js";
import {
  fromManifest,
  MAX_CLUSTER_ITEMS,
  type EvidenceFinding,
  type EvidenceReading,
} from "./evidence-findings.js";
import { finding } from "./findings.js";
import { object, safeJson, text } from "./kubectl-json.js";
import { scanManifests } from "./scan.js";

const LAST_APPLIED = ["kubectl.kubernetes.io/last-applied-configuration", "kapp.k14s.io/original"];

/** Objects from the cluster, judged by the apiVersion they were applied with (their annotation), never by the served one. */
export function lastAppliedFindings(reading: EvidenceReading, input: unknown): EvidenceFinding[] {
  const { snapshot, target, notes, judged } = reading;
  const items = object(input)?.items;
  if (!Array.isArray(items))
    throw new InputError(
      "objects must be the JSON of `kubectl get <kinds> -A -o json` (a List with items)",
      "objects.items",
    );
  if (items.length > MAX_CLUSTER_ITEMS)
    throw new InputError(
      `objects has ${items.length} items; at most ${MAX_CLUSTER_ITEMS} are accepted`,
      "objects.items",
    );
  const applied: Array<{ served: string; document: string }> = [];
  let without = 0;
  for (const item of items) {
    const annotations = object(object(object(item)?.metadata)?.annotations) ?? {};
    const original = LAST_APPLIED.map((key) => text(annotations[key])).find(
      (value) => value !== undefined,
    );
    const parsed = original === undefined ? undefined : safeJson(original);
    if (
      parsed === undefined ||
      typeof parsed.apiVersion !== "string" ||
      typeof parsed.kind !== "string"
    ) {
      without += 1;
      continue;
    }
    applied.push({
      served: text(object(item)?.apiVersion) ?? "?",
      document: JSON.stringify(parsed),
    });
  }
  if (without > 0) {
    notes.push(
      finding({
        code: "API_NOT_JUDGED",
        severity: "INFO",
        message: `${without} object${without === 1 ? "" : "s"} carr${without === 1 ? "ies" : "y"} no last-applied annotation (kubectl.kubernetes.io/last-applied-configuration, kapp.k14s.io/original): the apiVersion ${without === 1 ? "it was" : "they were"} applied with is not known (the served one kubectl prints is not it); scan the manifests ${without === 1 ? "it comes" : "they come"} from`,
      }),
    );
  }
  if (applied.length === 0) return [];
  judged.count += applied.length;
  const scan = scanManifests(
    snapshot,
    applied.map((entry) => entry.document).join("\n---\n"),
    target,
  );
  return scan.findings.map((entry) => {
    const served = applied[entry.documentIndex]?.served ?? "?";
    return {
      ...fromManifest(entry, "LAST_APPLIED", null),
      message: `${entry.message} (as last applied; the cluster serves it as ${served}, which is why \`kubectl get\` does not show it)`,
    };
  });
}
