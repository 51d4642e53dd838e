/**
 * Scans a Helm chart as people keep it (Chart.yaml, values.yaml, templates/, subcharts under charts/) for the
 * APIs a target removes, and says where each finding is in the chart: the template file and line. Two ways:
 * with `rendered` (what `helm template --kube-version <target>` printed) the rendered objects are scanned
 * whole and each is traced back through helm's `# Source:` comment to its template document; without it the
 * templates are read directly (chart-templates.ts): only each object's apiVersion and kind are judged, which
 * the answer says, with every document that could not be read. The chart's metadata is checked either way
 * (chart-metadata.ts). Pure: the files and helm's output come as text.
 */
import { InputError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { semverCompareAt } from "./chart-kube-version.js";
import {
  CHART_FILES_FIELD,
  chartOfTemplate,
  chartsOfFiles,
  judgeCharts,
  type ChartFiles,
  type ChartSummary,
} from "./chart-metadata.js";
import {
  describeBlocks,
  isManifestTemplate,
  templateDocuments,
  type TemplateBlock,
  type TemplateDocument,
} from "./chart-templates.js";
import { finding, verdictOf, type Finding } from "./findings.js";
import { manifestDocuments } from "./manifest-reader.js";
import { scanSteps, type ScanOptions } from "./scan.js";
import type {
  ChangeFinding,
  FoundObject,
  ManifestFinding,
  ManifestScanReport,
} from "./scan-findings.js";
import { readMinor } from "./version-reader.js";

export type { ChartFiles, ChartSummary } from "./chart-metadata.js";

export interface ChartScanOptions extends ScanOptions {
  /** What `helm template <release> <chart> --kube-version <target>` printed; the templates are read directly without it. */
  readonly rendered?: string | null | undefined;
}

/** Where in the chart a finding's object is. */
export interface TemplatePlace {
  /** The template file, relative to the chart (templates/ingress.yaml, charts/redis/templates/x.yaml); null when not traced. */
  readonly template: string | null;
  /** 1-based line of the object's apiVersion (its kind when the apiVersion is templated) in the template. */
  readonly templateLine: number | null;
  /** The template blocks the object is inside (`if .Values.ingress.enabled`), read without rendering; else null. */
  readonly condition: string | null;
}

/** A template document the scan could not read, and why. */
export interface UnreadTemplate {
  readonly template: string;
  readonly templateLine: number;
  readonly reason: string;
}

export interface ChartScanReport extends Omit<ManifestScanReport, "findings" | "changeFindings"> {
  readonly chart: ChartSummary;
  /** HELM: helm's rendering was scanned; TEMPLATES: the templates were read without rendering (apiVersion and kind only). */
  readonly rendering: "HELM" | "TEMPLATES";
  readonly findings: ReadonlyArray<ManifestFinding & TemplatePlace>;
  readonly changeFindings: ReadonlyArray<ChangeFinding & TemplatePlace>;
  readonly unreadTemplates: readonly UnreadTemplate[];
}

/** The chart scan, a step at a time (as scanSteps): the face runs it in slices. */
export function* chartScanSteps(
  snapshot: KbSnapshot,
  files: ChartFiles,
  targetVersion: string,
  options: ChartScanOptions = {},
): Generator<void, ChartScanReport, void> {
  const filesSeen: unknown = files;
  if (typeof filesSeen !== "object" || filesSeen === null || Array.isArray(filesSeen))
    throw new InputError("files must be an object of path → text", CHART_FILES_FIELD);
  const target = readMinor(snapshot, targetVersion, "targetVersion");
  const charts = chartsOfFiles(files);
  const top = charts[0]!;
  const chartNotes = judgeCharts(snapshot, charts, target);
  const rendered = options.rendered ?? null;
  const traced =
    rendered === null
      ? yield* fromTemplates(snapshot, files, charts, targetVersion, options)
      : yield* fromRendering(snapshot, files, rendered, targetVersion, options);
  const { report, findings, changeFindings, unreadTemplates, templateNotes } = traced;
  const notes = [...chartNotes, ...templateNotes, ...report.notes];
  const { name, version, apiVersion, kubeVersion } = top;
  return {
    ...report,
    chart: { name, version, apiVersion, kubeVersion },
    rendering: rendered === null ? "TEMPLATES" : "HELM",
    complete: rendered !== null && report.complete && unreadTemplates.length === 0,
    findings,
    changeFindings,
    notes,
    unreadTemplates,
    status: verdictOf([...findings, ...changeFindings, ...notes]),
  };
}

/** The scan of the objects, with each finding placed in its template. */
interface Traced {
  readonly report: ManifestScanReport;
  readonly findings: Array<ManifestFinding & TemplatePlace>;
  readonly changeFindings: Array<ChangeFinding & TemplatePlace>;
  readonly unreadTemplates: UnreadTemplate[];
  readonly templateNotes: Finding[];
}

/** The template documents of each file, read once. */
function templateReader(files: ChartFiles): (file: string) => TemplateDocument[] {
  const read = new Map<string, TemplateDocument[]>();
  return (file) => {
    let documents = read.get(file);
    if (documents === undefined) {
      documents = templateDocuments(file, files[file] ?? "");
      read.set(file, documents);
    }
    return documents;
  };
}

/** The line of a template document that a finding of `apiVersion` points to. */
function lineFor(document: TemplateDocument, apiVersion: string): number {
  const literal = document.apiVersions.find((entry) => entry.value === apiVersion);
  if (literal !== undefined) return literal.line;
  const kind = document.kinds[0];
  if (document.apiVersions.some((entry) => entry.value === null) && kind !== undefined)
    return kind.line;
  return document.apiVersions[0]?.line ?? kind?.line ?? document.line;
}

/** For each rendered document: its helm source and the kind of its first object. */
function* renderedDocuments(
  rendered: string,
): Generator<void, Map<number, { source: string | null; kind: string | null }>, void> {
  let seen = new Map<number, { source: string | null; kind: string | null }>();
  for (const document of manifestDocuments(rendered)) {
    yield;
    if (document.state === "restart") {
      seen = new Map();
      continue;
    }
    if (document.state !== "content") continue;
    const kind = document.objects[0]?.object.kind;
    seen.set(document.index, {
      source: document.source,
      kind: typeof kind === "string" ? kind : null,
    });
  }
  return seen;
}

function* fromRendering(
  snapshot: KbSnapshot,
  files: ChartFiles,
  rendered: string,
  targetVersion: string,
  options: ScanOptions,
): Generator<void, Traced, void> {
  const report = yield* scanSteps(snapshot, rendered, targetVersion, options);
  const documents = yield* renderedDocuments(rendered);
  const read = templateReader(files);
  const place = (found: FoundObject & { readonly documentIndex: number }): TemplatePlace => {
    // helm writes `# Source: <chart>/templates/x.yaml`, subcharts `<chart>/charts/sub/templates/x.yaml`.
    const file = found.source === null ? null : found.source.slice(found.source.indexOf("/") + 1);
    if (file === null || files[file] === undefined)
      return { template: null, templateLine: null, condition: null };
    const candidates = read(file).filter(
      (document) =>
        document.apiVersions.length + document.kinds.length > 0 &&
        (document.kinds.length === 0 ||
          document.kinds.some((kind) => kind.value === null || kind.value === found.kind)),
    );
    const ordinal = [...documents].filter(
      ([index, document]) =>
        index < found.documentIndex &&
        document.source === found.source &&
        document.kind === found.kind,
    ).length;
    const chosen =
      candidates.find((document) => found.name !== null && document.name === found.name) ??
      candidates[Math.min(ordinal, candidates.length - 1)];
    if (chosen === undefined) return { template: file, templateLine: null, condition: null };
    return { template: file, templateLine: lineFor(chosen, found.apiVersion), condition: null };
  };
  return {
    report,
    findings: report.findings.map((entry) => ({ ...entry, ...place(entry) })),
    changeFindings: report.changeFindings.map((entry) => ({ ...entry, ...place(entry) })),
    unreadTemplates: [],
    templateNotes: [],
  };
}

/** A skeletal object read from a template, and where it was read. */
interface Skeleton {
  readonly text: string;
  readonly place: TemplatePlace;
  readonly blocks: readonly TemplateBlock[];
}

/** The skeletal objects of the chart's templates, and the documents that could not be read. */
function skeletons(
  files: ChartFiles,
  charts: ReturnType<typeof chartsOfFiles>,
): { objects: Skeleton[]; unread: UnreadTemplate[] } {
  const objects: Skeleton[] = [];
  const unread: UnreadTemplate[] = [];
  const templates = Object.keys(files)
    .filter((file) => chartOfTemplate(charts, file) !== null && isManifestTemplate(file))
    .sort();
  for (const file of templates) {
    for (const document of templateDocuments(file, files[file]!)) {
      if (!document.hasContent) continue;
      const kind = document.kinds.find((entry) => entry.value !== null)?.value ?? null;
      if (document.apiVersions.length === 0 || kind === null) {
        const templated = document.kinds[0] ?? document.apiVersions[0];
        unread.push({
          template: file,
          templateLine: templated?.line ?? document.line,
          reason:
            templated === undefined
              ? "no top-level apiVersion and kind: the document is made by template actions (include, toYaml, tpl ...)"
              : `the ${document.kinds.length === 0 ? "kind is missing" : `kind is templated (${templated.text})`}`,
        });
        continue;
      }
      for (const entry of document.apiVersions) {
        if (entry.value === null) {
          unread.push({
            template: file,
            templateLine: entry.line,
            reason: `the apiVersion of this ${kind} is templated (${entry.text}): it could not be read without rendering`,
          });
          continue;
        }
        const object = { apiVersion: entry.value, kind, metadata: { name: document.name } };
        objects.push({
          text: `# Source: ${file}\n${JSON.stringify(object)}\n`,
          place: {
            template: file,
            templateLine: entry.line,
            condition: describeBlocks(entry.blocks),
          },
          blocks: entry.blocks,
        });
      }
    }
  }
  return { objects, unread };
}

/** Whether the branch a line sits in is taken at the target: false or true where helm's semverCompare decides, else null. */
function takenAt(
  snapshot: KbSnapshot,
  blocks: readonly TemplateBlock[],
  target: string,
): boolean | null {
  let known = true;
  for (const block of blocks) {
    if (block.action === "range" || block.action === "with") {
      known = false;
      continue;
    }
    const earlier = block.earlier.map((test) => semverCompareAt(snapshot, test, target));
    const own = block.action === "else" ? true : semverCompareAt(snapshot, block.test, target);
    if (own === false || earlier.some((answer) => answer === true)) return false;
    if (own === null || earlier.some((answer) => answer === null)) known = false;
  }
  return known ? true : null;
}

function* fromTemplates(
  snapshot: KbSnapshot,
  files: ChartFiles,
  charts: ReturnType<typeof chartsOfFiles>,
  targetVersion: string,
  options: ScanOptions,
): Generator<void, Traced, void> {
  const { objects, unread } = skeletons(files, charts);
  const text = objects.map((object) => object.text).join("---\n");
  const report = yield* scanSteps(snapshot, text, targetVersion, options);
  const target = report.targetVersion;
  const place = <Found extends FoundObject & { readonly documentIndex: number }>(
    found: Found,
  ): Found & TemplatePlace => {
    const object = objects[found.documentIndex]!;
    const taken = takenAt(snapshot, object.blocks, target);
    const placed = { ...found, ...object.place };
    if (taken !== false || found.severity === "INFO") return placed;
    // The alternative helm does not render at the target: said, not counted against it.
    return {
      ...placed,
      severity: "INFO",
      message: `${(found as { message?: string }).message ?? ""} (not at ${target}: this alternative sits in {{ ${object.place.condition} }}, which helm does not take at ${target})`,
    };
  };
  const partial = finding({
    code: "CHART_NOT_RENDERED",
    severity: "WARNING",
    message: `the chart was read without rendering (no helm): ${objects.length} object${objects.length === 1 ? "" : "s"} of its templates were judged by apiVersion and kind only; their fields, values.yaml and what template actions produce were not judged. Render with helm (kubecompat scan --helm, or send helm template's output as rendered) for a complete scan`,
  });
  const unreadNotes = unread.map((entry) =>
    finding({
      code: "TEMPLATE_NOT_READ",
      severity: "WARNING",
      instance: `${entry.template}:${entry.templateLine}`,
      message: `${entry.template}:${entry.templateLine}: ${entry.reason}; not judged`,
    }),
  );
  return {
    report,
    findings: report.findings.map((entry) => place(entry)),
    changeFindings: report.changeFindings.map((entry) => place(entry)),
    unreadTemplates: unread,
    templateNotes: [partial, ...unreadNotes],
  };
}
