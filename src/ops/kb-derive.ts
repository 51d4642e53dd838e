/**
 * `npm run kb:derive`: reads upstream sources from local copies and prints,
 * per kb file, what the knowledge base lacks or states differently, as a
 * report (--output text) or as proposed YAML (--output yaml). It never
 * writes to kb/: a maintainer reviews the output and edits kb/ by hand.
 *
 *   --kubernetes-api <clone of kubernetes/api> [--tags a,b] [--since 1.33]  → kb/api-removals.yaml
 *   --endoflife <endoflife.date's kubernetes.json>                          → kb/releases.yaml
 *   --endoflife-product <product>=<file> (repeatable), --endoflife-dir <dir> → kb/platforms.yaml,
 *       kb/runtime-releases.yaml, kb/addons.yaml (and kb/releases.yaml for kubernetes.json)
 *   --kubernetes <clone of kubernetes/kubernetes>                            → kb/releases.yaml etcd, kb/addons.yaml CoreDNS
 *   --containerd-releases <containerd's RELEASES.md> [--containerd-commit]  → kb/runtime-requirements.yaml
 *   --feature-gates <kubernetes/website feature-gates folder> [--website-commit] → kb/feature-gates.yaml
 *   --released <1.N> with any of the above: 1.N's pre-release facts against those released sources → kb/coverage.yaml
 *
 * With --propose it files what differs as proposals in the database of
 * DATABASE_URL instead (kb-derive-propose.ts), compared with the database's
 * records, and says how many were new.
 *
 * Exit 0: nothing differs (--propose: filed); 1: something to review; 2: bad usage or unreadable input.
 * The parsing and comparing is pure (src/upstream/derive/); kb-derive-files.ts
 * reads files and runs git (without a shell), kb-derive-sections.ts makes one
 * section per source; this file reads the flags and prints the report.
 */
import { parseArgs } from "node:util";
import { ConfigError } from "../core/config.js";
import { needsReview, type Section } from "../upstream/derive/compare.js";
import { renderFeatureGatesYaml } from "../upstream/derive/compare-feature-gates.js";
import { DeriveInputError } from "../upstream/derive/errors.js";
import { FEATURE_GATES_DIR } from "../upstream/derive/feature-gates.js";
import { releaseDaySection } from "../upstream/derive/prerelease.js";
import { renderText, renderYaml } from "../upstream/derive/render.js";
import { GitFailure, kbDirectory, kbFiles, type KbReader } from "../upstream/kb-derive-files.js";
import type { ProposalTarget } from "../upstream/kb-derive-propose.js";
import {
  DEFAULT_REMOVALS_SINCE,
  apiRemovalsSection,
  containerdSection,
  featureGatesSection,
} from "../upstream/kb-derive-sections.js";
import { endoflifeSections, readEndoflifeInputs } from "../upstream/kb-derive-endoflife.js";
import { kubeadmSections } from "../upstream/kb-derive-kubeadm.js";

const USAGE = `usage: npm run kb:derive -- [inputs] [options]

Compares upstream sources with kb/ and prints what kb/ lacks or states differently.
It never edits kb/. Give at least one input:

  --kubernetes-api <dir>        a git clone of https://github.com/kubernetes/api (bare or not, with its tags)
      --tags <t1,t2,...>        tags to read (default: every kubernetes-1.N.0 from 1.29 on, plus the newest tag)
      --since <1.N>             propose missing removals from this minor on (default 1.33)
  --endoflife <file>            endoflife.date's https://endoflife.date/api/kubernetes.json, saved
  --endoflife-product <product>=<file>
                                another endoflife.date product's JSON (v0 https://endoflife.date/api/<product>.json
                                or v1 https://endoflife.date/api/v1/products/<product>/), repeatable:
                                amazon-eks, google-kubernetes-engine, azure-kubernetes-service → kb/platforms.yaml;
                                containerd, etcd → kb/runtime-releases.yaml; istio, keda, kyverno, karpenter,
                                knative → kb/addons.yaml (kubernetes → kb/releases.yaml, as --endoflife)
  --endoflife-dir <dir>         a directory of such files named <product>.json (kubernetes.json included)
  --kubernetes <dir>            a git clone of https://github.com/kubernetes/kubernetes with its tags (a blobless
                                clone will do): kubeadm's cmd/kubeadm/app/constants/constants.go at each v1.N.0 and
                                newest v1.N.P tag → etcdVersion in kb/releases.yaml (SupportedEtcdVersion[N] at the
                                newest patch) and the CoreDNS lines of kb/addons.yaml (CoreDNSVersion at both tags)
  --containerd-releases <file>  containerd's RELEASES.md
      --containerd-commit <sha> the containerd commit the file is from (found by itself in a clean clone)
  --feature-gates <dir>         kubernetes/website's ${FEATURE_GATES_DIR}
                                folder (or the root of a website checkout), e.g. extracted with git archive
      --website-commit <sha>    the kubernetes/website commit the pages are from (sourceUrl links to the pages there)

Release day:
  --released <1.N>              the pre-release knowledge of 1.N (coverage claims PRERELEASE, notes "Pre-release (1.N)")
                                against the released sources given: confirmed, differs or not yet read; each claim
                                whose kind was read is proposed as RELEASED

Options:
  --propose                     file what differs as proposals in the database of DATABASE_URL, compared with
                                the database's knowledge base (not kb/), for review (GET /api/v1/proposals);
                                each upstream change is filed once, also after it was decided
  --output text|yaml            a report (default), or proposed YAML per kb file
  --kb <dir>                    the knowledge base to compare with (default: KB_DIR, else kb/)
  --help

Exit status: 0 nothing differs (with --propose: filed), 1 something to review, 2 bad usage or unreadable input.
`;

// ---------------------------------------------------------------- main

interface DeriveResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function readFlags(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      "kubernetes-api": { type: "string" },
      kubernetes: { type: "string" },
      tags: { type: "string" },
      since: { type: "string" },
      endoflife: { type: "string" },
      "endoflife-product": { type: "string", multiple: true },
      "endoflife-dir": { type: "string" },
      "containerd-releases": { type: "string" },
      "containerd-commit": { type: "string" },
      "feature-gates": { type: "string" },
      "website-commit": { type: "string" },
      released: { type: "string" },
      output: { type: "string" },
      kb: { type: "string" },
      propose: { type: "boolean" },
      help: { type: "boolean" },
    },
  }).values;
}

type DeriveFlags = ReturnType<typeof readFlags>;

async function run(argv: readonly string[]): Promise<DeriveResult> {
  let values: DeriveFlags;
  try {
    values = readFlags(argv);
  } catch (error) {
    return { code: 2, stdout: "", stderr: `kb:derive: ${(error as Error).message}\n\n${USAGE}` };
  }
  if (values.help === true) return { code: 0, stdout: USAGE, stderr: "" };
  try {
    const { output, since } = checkFlags(values);
    if (values.propose === true) return await propose(values, since);
    const sections = deriveSections(values, since, kbFiles(kbDirectory(values.kb)));
    return {
      code: needsReview(sections) ? 1 : 0,
      stdout: output === "yaml" ? proposedYaml(sections) : renderText(sections),
      stderr: "",
    };
  } catch (error) {
    return failure(error);
  }
}

/** The flags' values and combinations, checked before any input is read. */
function checkFlags(values: DeriveFlags): { output: "text" | "yaml"; since: string } {
  const output = values.output ?? "text";
  if (output !== "text" && output !== "yaml")
    throw new DeriveInputError(`--output: "${output}" is not text or yaml`);
  const since = values.since ?? DEFAULT_REMOVALS_SINCE;
  if (!/^1\.(0|[1-9]\d{0,2})$/.test(since))
    throw new DeriveInputError(`--since: "${since}" is not a Kubernetes minor such as 1.33`);
  if (
    values["kubernetes-api"] === undefined &&
    (values.tags !== undefined || values.since !== undefined)
  ) {
    throw new DeriveInputError("--tags and --since go with --kubernetes-api");
  }
  if (values.propose === true && (values.kb !== undefined || values.output !== undefined))
    throw new DeriveInputError(
      "--propose compares with the database's knowledge base and files proposals: --kb and --output do not go with it",
    );
  if (values["containerd-releases"] === undefined && values["containerd-commit"] !== undefined) {
    throw new DeriveInputError("--containerd-commit goes with --containerd-releases");
  }
  if (values["feature-gates"] === undefined && values["website-commit"] !== undefined) {
    throw new DeriveInputError("--website-commit goes with --feature-gates");
  }
  if (
    values["kubernetes-api"] === undefined &&
    values.endoflife === undefined &&
    values["endoflife-product"] === undefined &&
    values["endoflife-dir"] === undefined &&
    values.kubernetes === undefined &&
    values["containerd-releases"] === undefined &&
    values["feature-gates"] === undefined
  ) {
    throw new DeriveInputError(
      "give at least one input: --kubernetes-api <dir>, --endoflife <file> or --containerd-releases <file> (or --feature-gates <dir>, --endoflife-product <product>=<file>, --endoflife-dir <dir>, --kubernetes <dir>)",
    );
  }
  return { output, since };
}

/** One section per source given, in a fixed order; the release-day section last, as it reads the others. */
function deriveSections(values: DeriveFlags, since: string, kb: KbReader): Section[] {
  const sections: Section[] = [];
  if (values["kubernetes-api"] !== undefined)
    sections.push(
      apiRemovalsSection({ repo: values["kubernetes-api"], tags: values.tags, since }, kb),
    );
  if (
    values.endoflife !== undefined ||
    values["endoflife-product"] !== undefined ||
    values["endoflife-dir"] !== undefined
  ) {
    const inputs = readEndoflifeInputs({
      endoflife: values.endoflife,
      products: values["endoflife-product"],
      directory: values["endoflife-dir"],
    });
    sections.push(...endoflifeSections(inputs, kb));
  }
  if (values.kubernetes !== undefined) sections.push(...kubeadmSections(values.kubernetes, kb));
  if (values["containerd-releases"] !== undefined)
    sections.push(
      containerdSection(values["containerd-releases"], values["containerd-commit"], kb),
    );
  if (values["feature-gates"] !== undefined)
    sections.push(featureGatesSection(values["feature-gates"], values["website-commit"], kb));
  if (values.released !== undefined) {
    if (!/^1\.(0|[1-9]\d{0,2})$/.test(values.released))
      throw new DeriveInputError(
        `--released: "${values.released}" is not a Kubernetes minor such as 1.38`,
      );
    sections.push(
      releaseDaySection({
        minor: values.released,
        coverage: kb("coverage").records,
        records: {
          featureGates: kb("featureGates").records,
          apiRemovals: kb("apiRemovals").records,
          releases: kb("releases").records,
        },
        sections: [...sections],
        file: kb("coverage").file,
      }),
    );
  }
  return sections;
}

/** --propose: the sources against the database's knowledge base, what differs filed as proposals; the report, then the count. */
async function propose(values: DeriveFlags, since: string): Promise<DeriveResult> {
  // Loaded here only: a report needs no database client.
  const { openProposalTarget } = await import("../upstream/kb-derive-propose.js");
  const target: ProposalTarget = await openProposalTarget();
  try {
    const sections = deriveSections(values, since, target.kb);
    const { filed, known } = await target.file(sections);
    return {
      code: 0,
      stdout: `${renderText(sections)}\nfiled ${filed} proposal${filed === 1 ? "" : "s"}, ${known} already proposed (or decided)\n`,
      stderr: "",
    };
  } finally {
    await target.close();
  }
}

function proposedYaml(sections: readonly Section[]): string {
  return sections
    .map((section) =>
      section.entity === "featureGates" ? renderFeatureGatesYaml(section) : renderYaml([section]),
    )
    .join("---\n");
}

/** Bad input, configuration or a failing git command: exit 2 with what went wrong; anything else is a bug and is thrown. */
function failure(error: unknown): DeriveResult {
  if (error instanceof DeriveInputError)
    return { code: 2, stdout: "", stderr: `kb:derive: ${error.message}\n` };
  if (error instanceof ConfigError)
    return { code: 2, stdout: "", stderr: `kb:derive: ${error.message}\n` };
  if (error instanceof GitFailure)
    return { code: 2, stdout: "", stderr: `kb:derive: git failed: ${error.message}\n` };
  throw error;
}

const result = await run(process.argv.slice(2));
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.code;
