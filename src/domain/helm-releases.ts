/**
 * Helm releases as evidence: the manifests Helm stored for each release, which the next `helm upgrade` reads.
 * A stored object of an API the target no longer serves makes that upgrade fail until the record is repaired,
 * whatever the chart now says.
 */
import { gunzipSync } from "node:zlib";
import { InputError } from "../core/errors.js";
import {
  fromManifest,
  MAX_CLUSTER_ITEMS,
  type EvidenceFinding,
  type HelmReleaseRef,
  type EvidenceReading,
} from "./evidence-findings.js";
import { finding, type Finding } from "./findings.js";
import { object, text, type Json } from "./kubectl-json.js";
import { scanManifests } from "./scan.js";

/** At most this many bytes of a decoded release. */
const MAX_RELEASE_BYTES = 20 * 1024 * 1024;

export interface DecodedRelease extends HelmReleaseRef {
  readonly manifest: string;
  readonly skippedRevisions: readonly number[];
}

/**
 * Helm 3's release records: a Secret's `data.release` is base64 (the
 * Secret's encoding) of base64 of gzip of the release JSON; a ConfigMap's
 * `data.release` is base64 of gzip. Only each release's newest revision is
 * kept (the one the next upgrade reads); the skipped ones are named.
 */
export function readHelmReleases(input: unknown, notes: Finding[] = []): DecodedRelease[] {
  const items = object(input)?.items;
  if (!Array.isArray(items))
    throw new InputError(
      "helmReleases must be the JSON of `kubectl get secrets -A -l owner=helm -o json` (a List with items)",
      "helmReleases.items",
    );
  if (items.length > MAX_CLUSTER_ITEMS)
    throw new InputError(
      `helmReleases has ${items.length} items; at most ${MAX_CLUSTER_ITEMS} are accepted`,
      "helmReleases.items",
    );
  const newest = new Map<string, DecodedRelease>();
  const skipped = new Map<string, number[]>();
  const unreadable: string[] = [];
  items.forEach((item, index) => {
    const record = object(item);
    const metadata = object(record?.metadata);
    const label = `${text(metadata?.namespace) ?? "?"}/${text(metadata?.name) ?? `items[${index}]`}`;
    const encoded = text(object(record?.data)?.release);
    if (encoded === undefined) {
      unreadable.push(`${label} (no data.release)`);
      return;
    }
    let release: Json | undefined;
    try {
      const once = Buffer.from(encoded, "base64");
      // A Secret's data is base64 once more than a ConfigMap's: gzip starts with 1f 8b.
      const gzipped =
        record?.kind === "ConfigMap" || (once[0] === 0x1f && once[1] === 0x8b)
          ? once
          : Buffer.from(once.toString("latin1"), "base64");
      const json = gunzipSync(gzipped, { maxOutputLength: MAX_RELEASE_BYTES }).toString("utf8");
      release = object(JSON.parse(json));
    } catch (error) {
      unreadable.push(
        `${label} (${error instanceof Error ? error.message.split("\n")[0]!.slice(0, 80) : "not a Helm release"})`,
      );
      return;
    }
    const name = text(release?.name);
    const namespace = text(release?.namespace) ?? text(metadata?.namespace) ?? "default";
    const revision =
      typeof release?.version === "number"
        ? release.version
        : Number(text(object(metadata?.labels)?.version));
    const chartMetadata = object(object(release?.chart)?.metadata);
    if (name === undefined || !Number.isInteger(revision)) {
      unreadable.push(`${label} (no release name or revision)`);
      return;
    }
    const key = `${namespace}\u0000${name}`;
    const decoded: DecodedRelease = {
      name,
      namespace,
      chart: text(chartMetadata?.name) ?? "?",
      chartVersion: text(chartMetadata?.version) ?? "?",
      revision,
      manifest: text(release?.manifest) ?? "",
      skippedRevisions: [],
    };
    const held = newest.get(key);
    const older = skipped.get(key) ?? [];
    if (held === undefined || held.revision < revision) {
      if (held !== undefined) older.push(held.revision);
      newest.set(key, decoded);
    } else {
      older.push(revision);
    }
    skipped.set(key, older);
  });
  if (unreadable.length > 0) {
    notes.push(
      finding({
        code: "DOCUMENT_UNREADABLE",
        severity: "ERROR",
        message: `${unreadable.length} Helm release record${unreadable.length === 1 ? "" : "s"} could not be read and were not scanned: ${unreadable.slice(0, 20).join("; ")}`,
      }),
    );
  }
  return [...newest.entries()].map(([key, release]) => ({
    ...release,
    skippedRevisions: (skipped.get(key) ?? []).sort((a, b) => a - b),
  }));
}

/** The findings of a release's stored manifest, each saying which release stores the object and how to repair it. */
export function helmReleaseFindings(
  reading: EvidenceReading,
  release: DecodedRelease,
): EvidenceFinding[] {
  const { snapshot, target, notes, judged } = reading;
  if (release.manifest.trim() === "") return [];
  const ref: HelmReleaseRef = {
    name: release.name,
    namespace: release.namespace,
    chart: release.chart,
    chartVersion: release.chartVersion,
    revision: release.revision,
  };
  const scan = scanManifests(snapshot, release.manifest, target);
  judged.count += scan.objectsScanned;
  for (const note of scan.notes)
    if (note.code === "DOCUMENT_UNREADABLE")
      notes.push({
        ...note,
        message: `Helm release ${release.namespace}/${release.name}: ${note.message}`,
      });
  const where = `Helm release ${release.name} (namespace ${release.namespace}, chart ${release.chart}-${release.chartVersion}, revision ${release.revision})`;
  return scan.findings.map((entry) => ({
    ...fromManifest(entry, "HELM_RELEASE", ref),
    message:
      entry.severity === "ERROR"
        ? `${where} stores ${entry.kind} ${entry.name ?? "?"} as ${entry.apiVersion}, which Kubernetes ${entry.removedIn} no longer serves: the next \`helm upgrade\` of the release fails (Helm cannot map the stored object to a served API) until its record is repaired. Run \`helm mapkubeapis ${release.name} --namespace ${release.namespace}\` (the helm-mapkubeapis plugin rewrites the stored manifest${entry.replacement === null ? "" : ` to ${entry.replacement}`}), then upgrade with a chart that uses ${entry.replacement ?? "a served API"}. ${entry.message}`
        : `${where}: ${entry.message}`,
  }));
}
