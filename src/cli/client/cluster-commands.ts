/**
 * `kubecompat collect` and `kubecompat scan-cluster`: what runs in a cluster.
 * collect runs the user's own kubectl (KUBECTL, else `kubectl` on PATH) with
 * their credentials and context, and writes one bundle file that check and
 * scan-cluster accept; nothing is sent anywhere by it. Helm release records
 * are cut down to what the scan reads (helm-release-records.ts) both before
 * collect writes them and before scan-cluster sends them. scan-cluster sends
 * the bundle's (or the given files') Helm releases, objects, metrics and
 * audit log to POST /api/v1/scan/cluster.
 */
import { execFile } from "node:child_process";
import { fails, type ClusterAnswer } from "./answers.js";
import { protectStandardOutput, writeBundleFile } from "./bundle-file.js";
import { failOn, flagValue, type CommandLine } from "./command-line.js";
import { ask, ciReport, type CliContext } from "./commands.js";
import { EXIT_FINDINGS, EXIT_OK, InputFileError, ServerAnswerError, UsageError } from "./errors.js";
import { stripHelmReleases } from "./helm-release-records.js";
import { BUNDLE_KIND, labelOf, parseBundle, parseKubectlOutput } from "./inputs.js";

/** One kubectl command the bundle holds, and the field it fills. */
const COLLECTED: ReadonlyArray<{
  readonly field: string;
  readonly args: readonly string[];
  readonly json: boolean;
}> = [
  { field: "kubectlVersion", args: ["version", "-o", "json"], json: true },
  { field: "nodes", args: ["get", "nodes", "-o", "json"], json: true },
  {
    field: "workloads",
    args: ["get", "deployments,daemonsets,statefulsets", "-A", "-o", "json"],
    json: true,
  },
  {
    field: "helmReleases",
    args: ["get", "secrets", "-A", "-l", "owner=helm", "-o", "json"],
    json: true,
  },
  { field: "crds", args: ["get", "crd", "-o", "json"], json: true },
  { field: "metrics", args: ["get", "--raw", "/metrics"], json: false },
];

const MAX_KUBECTL_OUTPUT = 512 * 1024 * 1024;

function runKubectl(kubectl: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      kubectl,
      args,
      { maxBuffer: MAX_KUBECTL_OUTPUT, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else reject(Object.assign(new Error(error.message), { code: error.code, stderr }));
      },
    );
  });
}

export async function collect(
  commandLine: CommandLine,
  context: CliContext,
  environment: { readonly kubectl?: string | undefined } = {},
): Promise<number> {
  if (commandLine.positionals.length > 0)
    throw new UsageError(
      `kubecompat collect takes no file names; write the bundle with --output-file FILE (got "${commandLine.positionals[0]}")`,
      "collect",
    );
  const kubectl = environment.kubectl ?? "kubectl";
  const contextName = flagValue(commandLine, "context");
  const bundle: Record<string, unknown> = {
    kind: BUNDLE_KIND,
    apiVersion: "kubecompat.io/v1",
    collectedAt: new Date().toISOString(),
    context: contextName ?? null,
  };
  const errors: Array<{ command: string; message: string }> = [];
  const warnings: string[] = [];
  for (const { field, args, json } of COLLECTED) {
    const full = [...(contextName === undefined ? [] : ["--context", contextName]), ...args];
    const command = `kubectl ${full.join(" ")}`;
    let collected: unknown;
    try {
      const output = await runKubectl(kubectl, full);
      collected = json ? (JSON.parse(output) as unknown) : output;
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { stderr?: string };
      if (failure.code === "ENOENT")
        throw new InputFileError(
          `kubectl was not found (${kubectl}); install it, or set KUBECTL to its path`,
        );
      // A command the user may not run (no access to Secrets, no /metrics) leaves a gap the bundle names.
      const message = (failure.stderr ?? failure.message).trim().split("\n")[0]!.slice(0, 300);
      errors.push({ command, message });
      warnings.push(`${command} failed: ${message}`);
      continue;
    }
    if (field !== "helmReleases") {
      bundle[field] = collected;
      continue;
    }
    // The records hold the user's values and Secrets; only what the scan reads is written.
    const stripped = stripHelmReleases(collected);
    const leftOut =
      stripped === undefined
        ? ["its output is not a List of Helm release records, so it was left out"]
        : stripped.leftOut;
    if (stripped !== undefined) bundle[field] = stripped.list;
    for (const message of leftOut) {
      errors.push({ command, message });
      warnings.push(`${command}: ${message}`);
    }
  }
  bundle.errors = errors;
  const text = `${JSON.stringify(bundle, null, 2)}\n`;
  const file = flagValue(commandLine, "output-file");
  if (file === undefined) {
    const warning = protectStandardOutput();
    if (warning !== undefined) process.stderr.write(`kubecompat collect: warning: ${warning}\n`);
    context.write(text);
  } else {
    await writeBundleFile(file, text);
  }
  for (const warning of warnings) process.stderr.write(`kubecompat collect: ${warning}\n`);
  return EXIT_OK;
}

/** Helm release records as sent to the server: cut down as collect writes them, whether or not they came from collect. */
function releasesToSend(source: string, input: unknown): unknown {
  const stripped = stripHelmReleases(input);
  if (stripped === undefined)
    throw new InputFileError(
      `${source} holds no List of Helm release records; expected the output of \`kubectl get secrets -A -l owner=helm -o json\``,
    );
  for (const message of stripped.leftOut)
    process.stderr.write(`kubecompat scan-cluster: ${message} (not sent)\n`);
  return stripped.list;
}

type ClusterFinding = ClusterAnswer["findings"][number];

function isClusterAnswer(value: unknown): value is ClusterAnswer {
  const answer = value as Partial<ClusterAnswer> | null;
  return (
    answer !== null &&
    typeof answer === "object" &&
    Array.isArray(answer.findings) &&
    Array.isArray(answer.notes) &&
    typeof answer.status === "string"
  );
}

export async function scanCluster(commandLine: CommandLine, context: CliContext): Promise<number> {
  const targetVersion = flagValue(commandLine, "to");
  if (targetVersion === undefined)
    throw new UsageError(
      "kubecompat scan-cluster needs the target version: --to VERSION (e.g. --to 1.29)",
      "scan-cluster",
    );
  if (commandLine.positionals.length > 0)
    throw new UsageError(
      `kubecompat scan-cluster reads --bundle FILE or --helm/--objects/--metrics/--audit-log files, not "${commandLine.positionals[0]}"`,
      "scan-cluster",
    );
  const body: Record<string, unknown> = { targetVersion };
  const bundlePath = flagValue(commandLine, "bundle");
  if (bundlePath !== undefined) {
    const bundle = parseBundle(bundlePath, await context.inputs.read(bundlePath, "--bundle"));
    if (bundle.helmReleases !== undefined)
      body.helmReleases = releasesToSend(
        `the helmReleases of ${labelOf(bundlePath)}`,
        bundle.helmReleases,
      );
    if (bundle.metrics !== undefined) body.metrics = bundle.metrics;
  }
  const files: ReadonlyArray<{ flag: string; field: string; json: boolean }> = [
    { flag: "helm", field: "helmReleases", json: true },
    { flag: "objects", field: "objects", json: true },
    { flag: "metrics", field: "metrics", json: false },
    { flag: "audit-log", field: "auditLog", json: false },
  ];
  for (const { flag, field, json } of files) {
    const path = flagValue(commandLine, flag);
    if (path === undefined) continue;
    const text = await context.inputs.read(path, `--${flag}`);
    const given = json ? parseKubectlOutput(path, text, "workloads") : text;
    body[field] = field === "helmReleases" ? releasesToSend(labelOf(path), given) : given;
  }
  if (Object.keys(body).length === 1) {
    throw new UsageError(
      "kubecompat scan-cluster needs something to scan: --bundle FILE (from kubecompat collect), or --helm, --objects, --metrics, --audit-log FILE",
      "scan-cluster",
    );
  }
  const route = "/api/v1/scan/cluster";
  const raw = await ask(context, route, body);
  if (!isClusterAnswer(raw))
    throw new ServerAnswerError(
      `${context.api.server} answered POST ${route} with something that is not a cluster scan; is it a kubecompat server of this version?`,
      [],
    );
  if (context.output === "sarif" || context.output === "junit" || context.output === "github") {
    const where = (entry: ClusterFinding): string =>
      entry.release === null
        ? `${entry.apiVersion}/${entry.kind}${entry.name === null ? "" : `/${entry.namespace ?? ""}/${entry.name}`}`
        : `helm/${entry.release.namespace}/${entry.release.name}/r${entry.release.revision}/${entry.kind}/${entry.name ?? ""}`;
    const located = [
      ...raw.findings.map((entry) => ({
        code: entry.code,
        severity: entry.severity,
        message: entry.message,
        sourceUrl: entry.sourceUrl,
        logicalLocation: where(entry),
      })),
      ...raw.notes.map((note) => ({
        code: note.code,
        severity: note.severity,
        message: note.message,
      })),
    ];
    context.write(ciReport(located, context, `kubecompat scan-cluster --to ${raw.targetVersion}`));
  } else if (context.output === "json") {
    context.write(`${JSON.stringify(raw, null, 2)}\n`);
  } else {
    const lines = raw.findings.map((entry) => {
      const what =
        entry.release === null
          ? `${entry.kind}${entry.name === null ? "" : ` ${entry.namespace === null ? "" : `${entry.namespace}/`}${entry.name}`}`
          : `release ${entry.release.namespace}/${entry.release.name} r${entry.release.revision}: ${entry.kind} ${entry.name ?? ""}`;
      return context.output === "markdown"
        ? `- **${entry.severity}** \`${entry.code}\` (${entry.evidence}) ${what}: ${entry.message}`
        : `${entry.severity.padEnd(8)} ${entry.evidence.padEnd(13)} ${entry.code.padEnd(25)} ${what}\n${" ".repeat(9)}${entry.message}`;
    });
    for (const note of raw.notes) lines.push(`${note.severity} ${note.code}: ${note.message}`);
    lines.push(
      `${raw.status} at ${raw.targetVersion}: ${raw.findings.length} finding${raw.findings.length === 1 ? "" : "s"}, ${raw.releases.length} Helm release${raw.releases.length === 1 ? "" : "s"} read`,
    );
    context.write(`${lines.join("\n")}\n`);
  }
  return fails(
    { status: raw.status, findings: [...raw.findings, ...raw.notes] },
    failOn(commandLine),
  )
    ? EXIT_FINDINGS
    : EXIT_OK;
}
