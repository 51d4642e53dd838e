/**
 * Which endoflife.date products kb:derive reads beyond Kubernetes itself, and what each one's fields
 * mean in the kb's terms: the managed platforms (kb/platforms.yaml releases), the runtimes' own
 * release lines (kb/runtime-releases.yaml) and the add-ons whose cycles carry a Kubernetes range in a
 * custom field (kb/addons.yaml lines). These tables describe the source's format, not knowledge: the
 * facts themselves are read from the JSON and compared with kb/.
 *
 * Source precedence (knowledge-base.md "Where sources disagree"): endoflife.date collects what the
 * projects and platforms publish. A kb row that cites endoflife.date takes its values; a row that cites
 * the platform's or project's own page keeps its values (that page wins on its platform), and a
 * difference is reported for the row's `disagreement` to record, never proposed. Pure.
 */
import { show, type Finding } from "./compare.js";

/** A platform product: its kb platform, and which endoflife.date field holds each kb date (the eol column is each platform's end of standard support). */
export const PLATFORM_PRODUCTS: Readonly<Record<string, { readonly platform: string }>> = {
  "amazon-eks": { platform: "eks" },
  "google-kubernetes-engine": { platform: "gke" },
  "azure-kubernetes-service": { platform: "aks" },
};

/** A runtime product: the kb component whose release lines it dates. */
export const RUNTIME_PRODUCTS: Readonly<Record<string, { readonly component: string }>> = {
  containerd: { component: "containerd" },
  etcd: { component: "etcd" },
};

/**
 * An add-on product: the kb add-on, the custom field with its Kubernetes minors, and how that field
 * reads: RANGE "1.32 - 1.36" (the minors each cycle supports), LOWER_BOUND "1.34" (the oldest minor),
 * MINIMUM_PER_MINOR (a range per cycle, which the kb writes as the minimum add-on version per minor).
 */
export const ADDON_PRODUCTS: Readonly<
  Record<
    string,
    { readonly addon: string; readonly field: string; readonly reads: AddonFieldReading }
  >
> = {
  istio: { addon: "istio", field: "supportedKubernetesVersions", reads: "RANGE" },
  keda: { addon: "keda", field: "supportedKubernetesVersions", reads: "RANGE" },
  kyverno: { addon: "kyverno", field: "supportedK8sVersions", reads: "RANGE" },
  karpenter: {
    addon: "karpenter",
    field: "supportedKubernetesVersion",
    reads: "MINIMUM_PER_MINOR",
  },
  knative: { addon: "knative", field: "minK8sVersion", reads: "LOWER_BOUND" },
};
export type AddonFieldReading = "RANGE" | "LOWER_BOUND" | "MINIMUM_PER_MINOR";

/** Every product kb:derive reads, kubernetes included. */
export const ENDOFLIFE_PRODUCTS: readonly string[] = [
  "kubernetes",
  ...Object.keys(PLATFORM_PRODUCTS),
  ...Object.keys(RUNTIME_PRODUCTS),
  ...Object.keys(ADDON_PRODUCTS),
];

/** The row's source is endoflife.date (its page, its API or a commit of its repository). */
export function citesEndoflife(url: string | null | undefined): boolean {
  return (
    url !== null &&
    url !== undefined &&
    (url.startsWith("https://endoflife.date/") ||
      url.startsWith("https://github.com/endoflife-date/endoflife.date/"))
  );
}

/** The row's disagreement already records endoflife.date's value (a date, or "field: value" for anything shorter). */
export function recordsDisagreement(
  disagreement: string | null | undefined,
  names: readonly string[],
  value: unknown,
): boolean {
  if (disagreement === null || disagreement === undefined) return false;
  const text = show(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text) || text.length > 6) return disagreement.includes(text);
  return names.some((name) => disagreement.includes(`${name}: ${text}`));
}

/** "1.32 - 1.36" → ["1.32", ..., "1.36"]; "1.30" → ["1.30"]; null when it is neither. */
export function kubernetesRange(text: string): string[] | null {
  const match = /^(1\.\d{1,3})(?:\s*[-–]\s*(1\.\d{1,3}))?$/.exec(text.trim());
  if (match === null) return null;
  const from = Number(match[1]!.split(".")[1]);
  const to = Number((match[2] ?? match[1]!).split(".")[1]);
  if (to < from) return null;
  return Array.from({ length: to - from + 1 }, (_, index) => `1.${from + index}`);
}

/** Orders release lines such as "1.9" and "1.10" (and "2.0") by number. */
export function compareLines(a: string, b: string): number {
  const left = a.split(".").map(Number);
  const right = b.split(".").map(Number);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** One kb value against endoflife.date's: what to report, and whether the value is taken. */
export interface FieldComparison {
  readonly key: string;
  /** The kb field, and endoflife.date's name of it (for the report). */
  readonly field: string;
  readonly upstreamField: string;
  readonly current: unknown;
  readonly upstream: unknown;
  /** The row cites endoflife.date: its values may be replaced. */
  readonly fromEndoflife: boolean;
  /** The row's own source, when it is not endoflife.date (named in the report). */
  readonly rowSource: string;
  readonly disagreement: string | null | undefined;
  readonly page: string;
}

/**
 * The finding for one value (none when they agree or endoflife.date gives none), and whether the
 * proposal takes endoflife.date's value: only for a row that cites endoflife.date.
 */
export function compareValue(input: FieldComparison): { finding: Finding | null; take: boolean } {
  const { key, field, upstreamField, current, upstream, page } = input;
  if (upstream === null || upstream === undefined) return { finding: null, take: false };
  if (JSON.stringify(current) === JSON.stringify(upstream)) return { finding: null, take: false };
  const says = `endoflife.date ${upstreamField} says ${show(upstream)}`;
  if (input.fromEndoflife) {
    const status = current === null || current === undefined ? "missing" : "differs";
    const message =
      status === "missing"
        ? `${key} lacks ${field}: ${says}`
        : `${key} ${field}: kb says ${show(current)}, ${says}`;
    return { finding: { status, key, message, source: page }, take: true };
  }
  if (recordsDisagreement(input.disagreement, [field, upstreamField], upstream)) {
    return {
      finding: {
        status: "known",
        key,
        message: `${key} ${field}: kb says ${show(current)} (${input.rowSource}), ${says}; the row's disagreement records it`,
        source: page,
      },
      take: false,
    };
  }
  return {
    finding: {
      status: "differs",
      key,
      message: `${key} ${field}: kb says ${show(current)}, ${says}; the row cites ${input.rowSource}, which wins: not proposed, record the difference in the row's disagreement`,
      source: page,
    },
    take: false,
  };
}
