/**
 * Helm release records cut down to what a cluster scan reads, before they
 * are written to a bundle or sent: the server (readHelmReleases in
 * src/domain/helm-releases.ts) reads each release's name, namespace,
 * revision, chart name and version, and its manifest. Everything else a
 * record holds (the user's values, the chart's values, templates and files,
 * hooks, notes, and the data of Secrets in the manifest) stays home.
 *
 * A record is re-encoded the way it came: a Secret's `data.release` is
 * base64 (the Secret's encoding) of base64 of gzip of the release JSON, a
 * ConfigMap's is base64 of gzip.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { parseAllDocuments, stringify } from "yaml";

type Json = Record<string, unknown>;
const object = (value: unknown): Json | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Json)
    : undefined;

/** A decoded release larger than this is refused rather than inflated (a small gzip can expand enormously). */
const MAX_RELEASE_BYTES = 64 * 1024 * 1024;
const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: false } as const;
const MAX_ALIASES = 100;

export interface StrippedReleases {
  /** The List, holding only the records that could be read, each cut down. */
  readonly list: {
    readonly apiVersion: unknown;
    readonly kind: unknown;
    readonly items: readonly Json[];
  };
  /** The records left out, each named with why. */
  readonly leftOut: readonly string[];
}

/**
 * The Helm release records of `kubectl get secrets -A -l owner=helm -o json`
 * (or of Helm's ConfigMaps), each cut down to what the scan reads; undefined
 * when `input` is not a List with items. A record that cannot be decoded is
 * left out (its data is never passed on) and named in `leftOut`.
 */
export function stripHelmReleases(input: unknown): StrippedReleases | undefined {
  const list = object(input);
  if (!Array.isArray(list?.items)) return undefined;
  const items: Json[] = [];
  const leftOut: string[] = [];
  list.items.forEach((item: unknown, index) => {
    const metadata = object(object(item)?.metadata);
    const label = `${typeof metadata?.namespace === "string" ? metadata.namespace : "?"}/${typeof metadata?.name === "string" ? metadata.name : `items[${index}]`}`;
    try {
      items.push(strippedRecord(object(item) ?? {}));
    } catch (error) {
      leftOut.push(
        `Helm release record ${label} was left out: ${error instanceof Error ? error.message.split("\n")[0]!.slice(0, 200) : String(error)}`,
      );
    }
  });
  return { list: { apiVersion: list.apiVersion, kind: list.kind, items }, leftOut };
}

function strippedRecord(record: Json): Json {
  const encoded = object(record.data)?.release;
  if (typeof encoded !== "string" || encoded === "") throw new Error("it has no data.release");
  const once = Buffer.from(encoded, "base64");
  // As the server reads it: a ConfigMap (or a Secret given decoded once) holds gzip itself, which starts with 1f 8b.
  const twice = record.kind !== "ConfigMap" && !isGzip(once);
  const gzipped = twice ? Buffer.from(once.toString("latin1"), "base64") : once;
  if (!isGzip(gzipped)) throw new Error("its data.release is not a Helm release (base64 of gzip)");
  let release: Json | undefined;
  try {
    release = object(
      JSON.parse(gunzipSync(gzipped, { maxOutputLength: MAX_RELEASE_BYTES }).toString("utf8")),
    );
  } catch (error) {
    throw new Error(
      `its release could not be decoded (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (release === undefined) throw new Error("its release is not a JSON object");
  const reencoded = gzipSync(JSON.stringify(strippedRelease(release))).toString("base64");
  const metadata = object(record.metadata) ?? {};
  return {
    apiVersion: record.apiVersion,
    kind: record.kind,
    type: record.type,
    metadata: { name: metadata.name, namespace: metadata.namespace, labels: metadata.labels },
    data: { release: twice ? Buffer.from(reencoded).toString("base64") : reencoded },
  };
}

function isGzip(bytes: Buffer): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Name, namespace, revision, status and dates, the chart's metadata and the manifest; not values, templates, files, hooks or notes. */
function strippedRelease(release: Json): Json {
  const info = object(release.info);
  const chart = object(release.chart);
  return {
    name: release.name,
    namespace: release.namespace,
    version: release.version,
    info:
      info === undefined
        ? undefined
        : {
            status: info.status,
            first_deployed: info.first_deployed,
            last_deployed: info.last_deployed,
            deleted: info.deleted,
          },
    chart: chart === undefined ? undefined : { metadata: chart.metadata },
    manifest:
      typeof release.manifest === "string"
        ? manifestWithoutSecretData(release.manifest)
        : undefined,
  };
}

/**
 * The manifest with each Secret (also one inside a List) reduced to its
 * apiVersion, kind, name, namespace, labels and type; every other document
 * is kept exactly as it was written.
 */
function manifestWithoutSecretData(manifest: string): string {
  let result = "";
  let kept = 0;
  for (const [index, document] of parseAllDocuments(manifest, YAML_OPTIONS).entries()) {
    // A document that cannot be read might be a Secret, so the release cannot be passed on.
    if (document.errors.length > 0)
      throw new Error(
        `its manifest is not YAML that can be read (${document.errors[0]!.message.split("\n")[0]})`,
      );
    const value = object(document.toJS({ maxAliasCount: MAX_ALIASES }));
    let replacement: Json;
    if (isSecret(value)) replacement = secretWithoutData(value!);
    else if (Array.isArray(value?.items) && value.items.some(isSecret))
      replacement = {
        ...value,
        items: (value.items as unknown[]).map((entry) =>
          isSecret(entry) ? secretWithoutData(entry as Json) : entry,
        ),
      };
    else continue;
    const [start, , end] = document.range;
    const contentStart = document.contents?.range[0] ?? start;
    result +=
      manifest.slice(kept, start) +
      documentStart(manifest.slice(start, contentStart), index > 0) +
      stringify(replacement);
    kept = end;
  }
  return result + manifest.slice(kept);
}

function isSecret(value: unknown): boolean {
  return object(value)?.kind === "Secret";
}

function secretWithoutData(secret: Json): Json {
  const metadata = object(secret.metadata) ?? {};
  return {
    apiVersion: secret.apiVersion,
    kind: secret.kind,
    metadata: { name: metadata.name, namespace: metadata.namespace, labels: metadata.labels },
    type: secret.type,
  };
}

/** What is kept before a rewritten Secret: the `---` marker and Helm's `# Source:` line, not other comments (templates may print values into them). */
function documentStart(text: string, followsAnother: boolean): string {
  const source = text.split("\n").filter((line) => line.startsWith("# Source: "));
  // Without its marker, a document after another would run into the one before.
  const marker = followsAnother || /^---/m.test(text) ? ["---"] : [];
  return [...marker, ...source].map((line) => `${line}\n`).join("");
}
