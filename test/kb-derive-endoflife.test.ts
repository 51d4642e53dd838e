/**
 * `npm run kb:derive -- --endoflife-dir <dir>` / `--endoflife-product <product>=<file>`
 * (src/upstream/kb-derive-endoflife.ts) end to end, and its pure parts: endoflife.date's managed-platform
 * products against kb/platforms.yaml, containerd and etcd against kb/runtime-releases.yaml, and the
 * add-ons with a Kubernetes range against kb/addons.yaml. The inputs are fixtures written for these
 * tests in the API's shapes (test/fixtures/derive/endoflife/: v0 lists, and v1 products for GKE and
 * etcd); the kb they are compared with is written here, and every run checks it is left unchanged.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { addonRecord, platformRecord, runtimeReleaseRecord } from "../src/knowledge/records.js";
import { parseEndOfLifeProduct } from "../src/upstream/derive/endoflife.js";
import { kubernetesRange } from "../src/upstream/derive/endoflife-products.js";
import { endoflifeSections } from "../src/upstream/kb-derive-endoflife.js";
import { kbFiles } from "../src/upstream/kb-derive-files.js";
import { yamlRecords, hashes, derive } from "./support/kb-derive.js";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "derive", "endoflife");
const fixture = (product: string): string => path.join(FIXTURES, `${product}.json`);
const AWS_DOCS = "https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html";
const EOL_COMMIT =
  "https://github.com/endoflife-date/endoflife.date/blob/0123456789abcdef0123456789abcdef01234567/products";

const KB_PLATFORMS = `# Synthetic kb for kb:derive's endoflife.date tests.
platforms:
- name: eks
  displayName: Amazon EKS
  versionPattern: ^v?1\\.\\d+\\.\\d+-eks-[0-9a-f]+$
  nodeLabels: [eks.amazonaws.com/nodegroup]
  releases:
  - minor: "1.33"
    released: "2025-05-29"
    endOfStandardSupport: "2026-07-27"
    endOfExtendedSupport: "2027-07-27"
    precision: DAY
    sourceUrl: ${AWS_DOCS}
    disagreement: null
  - minor: "1.34"
    released: "2025-10-02"
    endOfStandardSupport: "2026-12-05"
    endOfExtendedSupport: "2027-12-05"
    precision: DAY
    sourceUrl: ${EOL_COMMIT}/amazon-eks.md
    disagreement: null
  sourceUrl: ${AWS_DOCS}
- name: gke
  displayName: Google Kubernetes Engine
  releases:
  - minor: "1.35"
    released: "2026-02-15"
    endOfStandardSupport: "2027-04-11"
    endOfExtendedSupport: null
    precision: DAY
    sourceUrl: ${EOL_COMMIT}/google-kubernetes-engine.md
    disagreement: null
  sourceUrl: https://cloud.google.com/kubernetes-engine/docs/release-schedule
- name: aks
  displayName: Azure Kubernetes Service
  releases:
  - minor: "1.34"
    released: "2025-11-01"
    endOfStandardSupport: "2026-11-30"
    endOfExtendedSupport: "2027-11-30"
    precision: MONTH
    sourceUrl: https://learn.microsoft.com/azure/aks/supported-kubernetes-versions
    disagreement: "GA: AKS docs Nov 2025 vs endoflife.date 2026-01-07"
  - minor: "1.35"
    released: "2026-03-01"
    endOfStandardSupport: "2027-03-31"
    endOfExtendedSupport: "2028-03-31"
    precision: MONTH
    sourceUrl: https://learn.microsoft.com/azure/aks/supported-kubernetes-versions
    disagreement: null
  sourceUrl: https://learn.microsoft.com/azure/aks/supported-kubernetes-versions
`;

const RELEASES_MD =
  "https://github.com/containerd/containerd/blob/0000000000000000000000000000000000000001/RELEASES.md";
const KB_RUNTIME_RELEASES = `runtimeReleases:
  - component: containerd
    line: "2.0"
    lts: true
    releaseDate: "2024-11-05"
    endOfActiveSupport: "2025-11-07"
    endOfLife: null
    endOfLifeMonth: "2027-03"
    sourceUrl: ${RELEASES_MD}#L10
  - component: containerd
    line: "2.3"
    lts: true
    releaseDate: "2026-04-30"
    endOfLife: "2028-04-30"
    sourceUrl: ${RELEASES_MD}#L12
  - component: etcd
    line: "3.2"
    lts: false
    releaseDate: "2017-06-09"
    endOfLife: "2021-03-28"
    sourceUrl: ${EOL_COMMIT}/etcd.md
  - component: etcd
    line: "3.3"
    lts: false
    releaseDate: "2018-02-01"
    endOfLife: "2021-10-15"
    sourceUrl: ${EOL_COMMIT}/etcd.md
`;

const KB_ADDONS = `addons:
- name: istio
  displayName: Istio
  rule: TABLE
  tableMeans: SUPPORTED
  lines:
  - versions: "1.30"
    kubernetes: ["1.32", "1.33", "1.34", "1.35", "1.36"]
    released: "2026-05-18"
    endOfLife: "2026-11-30"
    notes: from endoflife.date products/istio.md (range 1.32 - 1.36)
  - versions: "1.25"
    kubernetes: ["1.29", "1.30", "1.31", "1.32"]
    released: "2025-03-03"
    endOfLife: "2025-10-20"
    notes: istio.io supportStatus.yml k8sVersions
  sourceUrl: https://github.com/istio/istio.io/blob/0000000000000000000000000000000000000002/data/compatibility/supportStatus.yml
- name: karpenter
  displayName: Karpenter (AWS provider)
  rule: TABLE
  tableMeans: SUPPORTED
  lines:
  - versions: ">= 1.9"
    kubernetes: ["1.35"]
    notes: minimum Karpenter for Kubernetes 1.35
  - versions: ">= 1.13.0"
    kubernetes: ["1.36"]
    notes: minimum Karpenter for Kubernetes 1.36
  sourceUrl: https://github.com/aws/karpenter-provider-aws/blob/0000000000000000000000000000000000000003/website/content/en/docs/upgrading/compatibility.md
`;

const lineOf = (text: string, start: string): string =>
  text.split("\n").find((line) => line.includes(start)) ?? `(no line with ${start})`;

describe("kb:derive from endoflife.date's products beyond Kubernetes", () => {
  let work: string;
  let kbDir: string;
  let before_: Map<string, string>;

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "kb-derive-endoflife-"));
    kbDir = path.join(work, "kb");
    fs.mkdirSync(kbDir);
    fs.writeFileSync(path.join(kbDir, "platforms.yaml"), KB_PLATFORMS);
    fs.writeFileSync(path.join(kbDir, "runtime-releases.yaml"), KB_RUNTIME_RELEASES);
    fs.writeFileSync(path.join(kbDir, "addons.yaml"), KB_ADDONS);
    before_ = hashes(kbDir);
  });
  after(() => {
    assert.deepEqual(hashes(kbDir), before_, "kb:derive never edits the kb");
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("reads the v0 and v1 shapes alike, custom fields included (pure)", () => {
    const v0 = parseEndOfLifeProduct(
      JSON.stringify([
        {
          cycle: "1.30",
          releaseDate: "2026-05-18",
          eol: "2026-12-15",
          support: true,
          extendedSupport: "2027-06-01",
          lts: true,
          latest: "1.30.4",
          latestReleaseDate: "2026-08-01",
          supportedKubernetesVersions: "1.32 - 1.36",
          link: null,
        },
      ]),
      "istio.json",
      "--endoflife-product",
    );
    const v1 = parseEndOfLifeProduct(
      JSON.stringify({
        result: {
          name: "istio",
          releases: [
            {
              name: "1.30",
              releaseDate: "2026-05-18",
              eolFrom: "2026-12-15",
              eoasFrom: null,
              eoesFrom: "2027-06-01",
              isLts: true,
              latest: { name: "1.30.4", date: "2026-08-01", link: null },
              custom: { supportedKubernetesVersions: "1.32 - 1.36" },
            },
          ],
        },
      }),
      "istio-v1.json",
      "--endoflife-product",
    );
    assert.equal(v0.shape, "v0");
    assert.equal(v1.shape, "v1");
    assert.equal(v1.product, "istio");
    assert.deepEqual(v1.cycles, v0.cycles);
    assert.deepEqual(v0.cycles[0], {
      cycle: "1.30",
      releaseDate: "2026-05-18",
      support: null,
      eol: "2026-12-15",
      extendedSupport: "2027-06-01",
      latest: "1.30.4",
      latestReleaseDate: "2026-08-01",
      lts: true,
      custom: { supportedKubernetesVersions: "1.32 - 1.36" },
    });
    assert.throws(
      () => parseEndOfLifeProduct('{"releases": []}', "odd.json", "--endoflife-product"),
      /--endoflife-product: odd\.json is JSON but not an array of release cycles .* nor a v1 product/,
    );
    assert.deepEqual(kubernetesRange("1.32 - 1.34"), ["1.32", "1.33", "1.34"]);
    assert.deepEqual(kubernetesRange("1.30"), ["1.30"]);
    assert.equal(kubernetesRange("1.23.3 - 1.25"), null);
    assert.equal(kubernetesRange("1.30 - 1.28"), null);
  });

  it("reports each kind, proposes only what cites endoflife.date, and reports the rest as disagreements", async () => {
    const result = await derive(["--endoflife-dir", FIXTURES, "--kb", kbDir]);
    assert.equal(result.code, 1, result.stderr);
    const out = result.stdout;
    // Platforms: a row that cites AWS's page keeps its date; one that cites endoflife.date takes the new one.
    assert.match(
      lineOf(out, "eks 1.33 released"),
      /~ differs {2}eks 1\.33 released: kb says 2025-05-29, endoflife\.date releaseDate says 2025-05-27; the row cites https:\/\/docs\.aws\.amazon\.com\/.*which wins: not proposed/,
    );
    assert.match(
      lineOf(out, "eks 1.34 released"),
      /~ differs {2}eks 1\.34 released: kb says 2025-10-02, endoflife\.date releaseDate says 2025-10-05 \(https:\/\/endoflife\.date\/amazon-eks\)/,
    );
    assert.match(
      out,
      /\+ missing {2}eks 1\.36: released 2026-06-10, endOfStandardSupport 2027-08-10, endOfExtendedSupport 2028-08-10/,
    );
    assert.match(
      out,
      /endoflife\.date amazon-eks also lists 1\.20, older than eks's oldest row; not proposed/,
    );
    // GKE from the v1 shape: eolFrom is the end of standard support.
    assert.match(
      lineOf(out, "gke 1.35 endOfStandardSupport"),
      /kb says 2027-04-11, endoflife\.date eol says 2027-04-15/,
    );
    assert.match(
      out,
      /\+ missing {2}gke 1\.36: released 2026-06-15, endOfStandardSupport 2027-08-15, endOfExtendedSupport none/,
    );
    // AKS dates by month: the same month is no difference; a recorded disagreement is known.
    assert.doesNotMatch(out, /aks 1\.35/);
    assert.match(
      lineOf(out, "aks 1.34 released"),
      /= known {4}aks 1\.34 released: .*the row's disagreement records it/,
    );
    // Runtimes.
    assert.match(
      out,
      /containerd 2\.0 endOfLifeMonth 2027-03: endoflife\.date writes the month-only end as 2027-03-01; no difference/,
    );
    assert.doesNotMatch(out, /containerd 2\.3/);
    assert.match(out, /\+ missing {2}containerd 2\.5: released 2026-12-10, end of life 2027-08-10/);
    assert.match(out, /also lists 1\.5, older than the kb's oldest containerd line/);
    assert.match(
      lineOf(out, "etcd 3.3 endOfLife"),
      /~ differs {2}etcd 3\.3 endOfLife: kb says 2021-10-15, endoflife\.date eol says 2021-10-20 \(https:\/\/endoflife\.date\/etcd\)/,
    );
    assert.doesNotMatch(out, /etcd 3\.2/);
    // Add-ons.
    assert.match(
      lineOf(out, "istio 1.30 endOfLife"),
      /~ differs {2}istio 1\.30 endOfLife: kb says 2026-11-30, endoflife\.date eol says 2026-12-15 \(/,
    );
    assert.match(
      lineOf(out, "istio 1.25 kubernetes"),
      /kb says 1\.29, 1\.30, 1\.31, 1\.32, endoflife\.date supportedKubernetesVersions says 1\.28, .*the row cites https:\/\/github\.com\/istio\/istio\.io\/.*not proposed/,
    );
    assert.match(
      out,
      /\+ missing {2}istio 1\.31: versions 1\.31: Kubernetes 1\.33, 1\.34, 1\.35, 1\.36, 1\.37, released 2026-08-20, end of life none/,
    );
    assert.match(
      out,
      /endoflife\.date istio also gives 1\.10, older than the kb's oldest istio line/,
    );
    assert.match(
      out,
      /\+ missing {2}karpenter 1\.37 \(karpenter >= 1\.15\): versions >= 1\.15: Kubernetes 1\.37/,
    );
    assert.doesNotMatch(
      out,
      /karpenter 1\.36/,
      ">= 1.13.0 agrees with endoflife.date's first cycle 1.13",
    );
    assert.match(
      out,
      /\+ missing {2}the kb has no add-on keda; endoflife\.date keda gives 2 lines, the newest versions 2\.20: Kubernetes 1\.33, 1\.34, 1\.35.*Not proposed: add the record by hand/,
    );
    assert.match(
      out,
      /! warning {2}endoflife\.date keda cycle 2\.4: supportedKubernetesVersions "about 1\.16" is not a range/,
    );
  });

  it("proposes records that validate, with the primary rows left as they are (--output yaml)", async () => {
    const result = await derive(["--endoflife-dir", FIXTURES, "--kb", kbDir, "--output", "yaml"]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stdout,
      /\n {6}released: "2025-10-05"\n/,
      "nested dates are quoted as kb/ writes them",
    );
    const platforms = yamlRecords(result.stdout, "platforms");
    assert.deepEqual(
      platforms.map((record) => record.name),
      ["eks", "gke"],
      "aks: nothing to change",
    );
    for (const record of platforms)
      assert.ok(platformRecord.safeParse(record).success, JSON.stringify(record));
    const eks = platformRecord.parse(platforms[0]);
    assert.deepEqual(
      eks.releases.map((row) => row.minor),
      ["1.33", "1.34", "1.35", "1.36"],
    );
    assert.equal(eks.releases[0]!.released, "2025-05-29", "AWS's own page wins");
    assert.equal(eks.releases[0]!.sourceUrl, AWS_DOCS);
    assert.equal(eks.releases[1]!.released, "2025-10-05");
    assert.deepEqual(eks.releases[3], {
      minor: "1.36",
      released: "2026-06-10",
      endOfStandardSupport: "2027-08-10",
      endOfExtendedSupport: "2028-08-10",
      precision: "DAY",
      sourceUrl: "https://endoflife.date/amazon-eks",
      disagreement: null,
    });
    assert.equal(
      eks.nodeLabels[0],
      "eks.amazonaws.com/nodegroup",
      "the rest of the record is kept",
    );

    const runtimes = yamlRecords(result.stdout, "runtimeReleases");
    assert.deepEqual(
      runtimes.map((record) => `${String(record.component)} ${String(record.line)}`),
      ["containerd 2.5", "etcd 3.3"],
    );
    for (const record of runtimes)
      assert.ok(runtimeReleaseRecord.safeParse(record).success, JSON.stringify(record));
    assert.equal(runtimes[1]!.endOfLife, "2021-10-20");

    const addons = yamlRecords(result.stdout, "addons");
    assert.deepEqual(
      addons.map((record) => record.name),
      ["istio", "karpenter"],
    );
    const istio = addonRecord.parse(addons[0]);
    assert.deepEqual(
      istio.lines.map((line) => line.versions),
      ["1.31", "1.30", "1.25"],
    );
    assert.equal(istio.lines[1]!.endOfLife, "2026-12-15");
    assert.deepEqual(
      istio.lines[2]!.kubernetes,
      ["1.29", "1.30", "1.31", "1.32"],
      "istio.io's table wins",
    );
    const karpenter = addonRecord.parse(addons[1]);
    assert.deepEqual(karpenter.lines.at(-1), {
      versions: ">= 1.15",
      kubernetes: ["1.37"],
      minimumKubernetes: null,
      released: null,
      endOfLife: null,
      notes:
        "minimum karpenter for Kubernetes 1.37 by endoflife.date karpenter (supportedKubernetesVersion: 1.15 is the first cycle listing 1.37); newer karpenter also supports it",
    });
  });

  it("takes the texts in hand for a scheduled refresh (endoflifeSections)", () => {
    const sections = endoflifeSections(
      { "amazon-eks": fs.readFileSync(fixture("amazon-eks"), "utf8") },
      kbFiles(kbDir),
    );
    assert.equal(sections.length, 1);
    assert.equal(sections[0]!.entity, "platforms");
    assert.equal(sections[0]!.derivation, "endoflife-platforms");
    assert.match(
      sections[0]!.from,
      /amazon-eks \(https:\/\/endoflife\.date\/api\/amazon-eks\.json, 5 cycles\)/,
    );
    assert.equal(sections[0]!.proposals.length, 1);
    assert.throws(
      () => endoflifeSections({ openshift: "[]" }, kbFiles(kbDir)),
      /endoflife\.date: kb:derive does not read the endoflife\.date product "openshift"; it reads kubernetes, amazon-eks/,
    );
  });

  it("reads one product with --endoflife-product and exits 0 when nothing differs", async () => {
    const result = await derive([
      "--endoflife-product",
      `azure-kubernetes-service=${fixture("azure-kubernetes-service")}`,
      "--kb",
      kbDir,
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(
      result.stdout,
      /platforms\.yaml {2}\(from endoflife\.date azure-kubernetes-service \(.*, 2 cycles\)\)\n.*\n {2}nothing differs \(1 known, 0 info\)\n/,
    );
  });

  it("answers bad input with exit 2 and what to fix", async () => {
    const odd = path.join(work, "odd");
    fs.mkdirSync(odd);
    fs.writeFileSync(path.join(odd, "openshift.json"), "[]");
    const cases: [string[], RegExp][] = [
      [
        ["--endoflife-product", "amazon-eks"],
        /--endoflife-product: "amazon-eks" is not <product>=<file>/,
      ],
      [
        ["--endoflife-product", `openshift=${fixture("amazon-eks")}`],
        /--endoflife-product: kb:derive does not read the endoflife\.date product "openshift"; it reads kubernetes, amazon-eks, google-kubernetes-engine/,
      ],
      [
        ["--endoflife-product", `etcd=${fixture("google-kubernetes-engine")}`],
        /--endoflife-product: .*google-kubernetes-engine\.json is endoflife\.date's google-kubernetes-engine \(its result\.name\), given as etcd/,
      ],
      [
        ["--endoflife-product", `amazon-eks=${fixture("amazon-eks")}`, "--endoflife-dir", FIXTURES],
        /--endoflife-dir: endoflife\.date's amazon-eks is given twice \(also by --endoflife-product/,
      ],
      [
        ["--endoflife-dir", odd],
        /--endoflife-dir: kb:derive does not read the endoflife\.date product "openshift"/,
      ],
      [
        ["--endoflife-dir", path.join(work, "none")],
        /--endoflife-dir: .*none does not exist; give a directory of <product>\.json files/,
      ],
      [
        ["--endoflife-product", `istio=${path.join(work, "kb", "addons.yaml")}`],
        /--endoflife-product: .*addons\.yaml is not valid JSON/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await derive([...args, "--kb", kbDir]);
      assert.equal(
        result.code,
        2,
        `${args.join(" ")} → exit ${String(result.code)}\n${result.stdout}${result.stderr}`,
      );
      assert.match(result.stderr, message, args.join(" "));
      assert.equal(result.stdout, "");
    }
  });
});
