/**
 * `npm run kb:derive` (src/ops/kb-derive.ts) end to end, and its pure parts
 * (src/upstream/derive/). The kubernetes/api input is a small git repository built
 * here in the real layout (register.go / doc.go / types.go and generated
 * zz_generated.prerelease-lifecycle.go files, two tagged releases); the kb
 * it is compared with is a synthetic kb/ directory written by the test. The
 * endoflife.date and containerd inputs are fixtures in test/fixtures/derive/.
 * Every run checks that the kb directory is byte-for-byte unchanged.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { parseContainerdReleases } from "../src/upstream/derive/containerd.js";
import { parseEndOfLifeJson } from "../src/upstream/derive/endoflife.js";
import { DeriveInputError } from "../src/upstream/derive/errors.js";
import {
  deriveRemovals,
  parseGroupName,
  parseLifecycleFile,
  selectDefaultTags,
  parseKubernetesTag,
  type TagSnapshot,
} from "../src/upstream/derive/lifecycle.js";
import {
  WIDGETS,
  derive,
  hashes,
  yamlRecords,
  docGo,
  git,
  lifecycleGo,
  registerGo,
  release133,
  release134,
  withList,
  writeRelease,
} from "./support/kb-derive.js";
import {
  apiRemovalRecord,
  releaseRecord,
  runtimeRequirementRecord,
} from "../src/knowledge/records.js";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "derive");
const HAS_SERVED_BY_DEFAULT =
  "servedByDefault" in (apiRemovalRecord as unknown as { shape: Record<string, unknown> }).shape;

function assertValid(schema: z.ZodType, record: Record<string, unknown>): void {
  const parsed = schema.safeParse(record);
  assert.ok(
    parsed.success,
    `proposed record validates: ${JSON.stringify(record)}\n${parsed.success ? "" : parsed.error.message}`,
  );
}

// ---------------------------------------------------------------- a synthetic kb/

const KB_API_REMOVALS = `# Synthetic kb for kb:derive's tests.
apiRemovals:
  - apiVersion: flowcontrol.apiserver.k8s.io/v1beta3
    group: flowcontrol.apiserver.k8s.io
    version: v1beta3
    kind: FlowSchema
    deprecatedIn: "1.29"
    removedIn: "1.32"
    replacement: flowcontrol.apiserver.k8s.io/v1
    replacementAvailableIn: "1.29"
    notes: null
    sourceUrl: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-32
    disagreement: null
  - apiVersion: widgets.example.k8s.io/v1alpha1
    group: widgets.example.k8s.io
    version: v1alpha1
    kind: Gadget
    deprecatedIn: "1.34"
    removedIn: "1.36"
    replacement: widgets.example.k8s.io/v1
    replacementAvailableIn: null
    notes: null
    sourceUrl: https://example.com/widgets-deprecations
    disagreement: null
`;

function release(version: string, fields: Record<string, string | null>): string {
  const values = {
    releaseDate: null,
    endOfStandardSupport: null,
    endOfLife: null,
    latestPatch: null,
    latestPatchDate: null,
    ...fields,
  };
  return `  - version: "${version}"
${Object.entries(values)
  .map(([field, value]) => `    ${field}: ${value === null ? "null" : JSON.stringify(value)}`)
  .join("\n")}
    sourceUrl: https://endoflife.date/kubernetes
`;
}

const KB_RELEASES = `releases:
${release("1.32", { releaseDate: "2024-12-11", endOfLife: "2026-02-28", latestPatch: "1.32.13", latestPatchDate: "2026-02-26" })}${release(
  "1.33",
  {
    releaseDate: "2025-04-23",
    endOfStandardSupport: "2026-04-28",
    endOfLife: "2026-06-28",
    latestPatch: "1.33.13",
    latestPatchDate: "2026-06-11",
  },
)}${release("1.34", {
  releaseDate: "2025-08-27",
  endOfStandardSupport: "2026-08-27",
  endOfLife: "2026-10-27",
  latestPatch: "1.34.11",
  latestPatchDate: "2026-08-20",
  disagreement: "endOfLife: the release schedule says 2026-10-27, endoflife.date says 2026-10-28.",
})}${release("1.35", { releaseDate: "2025-12-17", endOfStandardSupport: "2026-12-28", endOfLife: "2027-02-28", latestPatch: "1.35.8", latestPatchDate: "2026-08-20" })}${release(
  "1.36",
  {
    releaseDate: "2026-04-22",
    endOfStandardSupport: "2027-04-28",
    endOfLife: "2027-06-28",
    latestPatch: "1.36.4",
    latestPatchDate: "2026-08-20",
  },
)}`;

function containerdRow(minor: string, lines: readonly string[]): string {
  return `  - id: containerd-k8s-${minor.replace(".", "-")}-recommended
    component: containerd
    kubernetesFrom: "${minor}"
    kind: RECOMMENDED_MIN_VERSION
    minVersion: "${lines.at(-1)!}"
    lineMinVersions: [${lines.map((line) => `"${line}"`).join(", ")}]
    requires: null
    summary: "containerd's Kubernetes Support table for ${minor}."
    sourceUrl: https://github.com/containerd/containerd/blob/main/RELEASES.md#kubernetes-support
    notes: null
    disagreement: null
`;
}

const KB_RUNTIME = `runtimeRequirements:
${containerdRow("1.33", ["2.1.0", "2.0.4", "1.7.24", "1.6.36"])}${containerdRow("1.34", ["2.1.3", "2.0.6", "1.7.28", "1.6.39"])}${containerdRow("1.35", ["2.2.0", "2.1.4", "1.7.28"])}${containerdRow("1.36", ["2.3.0", "2.2.0"])}  - id: containerd-2-required
    component: containerd
    kubernetesFrom: "1.38"
    kind: MIN_VERSION
    minVersion: "2.0.0"
    summary: "A hard floor, not a table row."
    sourceUrl: https://github.com/kubernetes/enhancements/blob/main/keps/sig-node/4033-group-driver-detection-over-cri/README.md
`;

// ---------------------------------------------------------------- tests

describe("kb:derive", () => {
  let work: string;
  let apiRepo: string;
  let kbDir: string;
  let kbHashes: Map<string, string>;
  let sha133: string;
  let sha134: string;
  const assertKbUntouched = (): void =>
    assert.deepEqual(hashes(kbDir), kbHashes, "kb:derive must not change the kb directory");

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-kb-derive-"));
    apiRepo = path.join(work, "api");
    fs.mkdirSync(apiRepo);
    git(apiRepo, ["init", "-q", "-b", "master"]);
    writeRelease(apiRepo, release133());
    git(apiRepo, ["add", "-A"]);
    git(apiRepo, ["commit", "-q", "-m", "Sync for kubernetes-1.33.0"]);
    git(apiRepo, ["tag", "-a", "kubernetes-1.33.0", "-m", "Kubernetes release v1.33.0"]);
    sha133 = git(apiRepo, ["rev-parse", "HEAD"]);
    writeRelease(apiRepo, release134());
    git(apiRepo, ["add", "-A"]);
    git(apiRepo, ["commit", "-q", "-m", "Sync for kubernetes-1.34.0"]);
    git(apiRepo, ["tag", "kubernetes-1.34.0"]);
    sha134 = git(apiRepo, ["rev-parse", "HEAD"]);

    kbDir = path.join(work, "kb");
    fs.mkdirSync(kbDir);
    fs.writeFileSync(path.join(kbDir, "api-removals.yaml"), KB_API_REMOVALS);
    fs.writeFileSync(path.join(kbDir, "releases.yaml"), KB_RELEASES);
    fs.writeFileSync(path.join(kbDir, "runtime-requirements.yaml"), KB_RUNTIME);
    kbHashes = hashes(kbDir);
  });

  after(() => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  describe("kubernetes/api prerelease-lifecycle markers", () => {
    it("proposes the removals the kb lacks, reports differing records, and skips List kinds", async () => {
      const result = await derive(["--kubernetes-api", apiRepo, "--kb", kbDir]);
      assert.equal(result.code, 1, result.stderr);
      const out = result.stdout;
      const lifecycleUrl = (sha: string, dir: string): string =>
        `https://github.com/kubernetes/api/blob/${sha}/${dir}/zz_generated.prerelease-lifecycle.go`;

      assert.match(
        out,
        /api-removals\.yaml {2}\(from kubernetes\/api at kubernetes-1\.33\.0 \([0-9a-f]{12}\), kubernetes-1\.34\.0 \([0-9a-f]{12}\); removals the kb lacks from 1\.33 on\)\n/,
      );
      // Deleted at 1.34.0 although its marker said 1.36: removedIn is the tag where it went.
      assert.match(
        out,
        /^ {2}\+ missing {2}widgets\.example\.k8s\.io\/v1alpha1 Gizmo: removedIn 1\.34 \(type gone at kubernetes-1\.34\.0 \([0-9a-f]{12}\); marker said 1\.36\), deprecatedIn 1\.33, replacement none, introducedIn 1\.30, servedByDefault false$/m,
      );
      assert.ok(
        out.includes(
          `source: ${lifecycleUrl(sha133, "widgets/v1alpha1")} (kubernetes-1.33.0, ${sha133})`,
        ),
        out,
      );
      // Missing from the kb, removal from the marker as the newest tag has it (it moved from 1.39 to 1.38).
      assert.match(
        out,
        /^ {2}\+ missing {2}widgets\.example\.k8s\.io\/v1beta1 Gadget: removedIn 1\.38 \(APILifecycleRemoved at kubernetes-1\.34\.0\), deprecatedIn 1\.35, replacement widgets\.example\.k8s\.io\/v1, introducedIn 1\.33, servedByDefault false$/m,
      );
      assert.ok(
        out.includes(
          `source: ${lifecycleUrl(sha134, "widgets/v1beta1")} (kubernetes-1.34.0, ${sha134})`,
        ),
        out,
      );
      // In the kb with other values: one diff line per field, with the source.
      assert.ok(
        out.includes(
          `~ differs  widgets.example.k8s.io/v1alpha1 Gadget removedIn: kb says 1.36, marker says 1.37 (${lifecycleUrl(sha134, "widgets/v1alpha1")} (kubernetes-1.34.0, ${sha134}))`,
        ),
        out,
      );
      assert.ok(
        out.includes(
          "~ differs  widgets.example.k8s.io/v1alpha1 Gadget replacement: kb says widgets.example.k8s.io/v1, marker says widgets.example.k8s.io/v1beta1",
        ),
        out,
      );
      assert.ok(!out.includes("Gadget deprecatedIn"), "equal values are not reported");
      if (HAS_SERVED_BY_DEFAULT)
        assert.ok(
          out.includes(
            "+ missing  widgets.example.k8s.io/v1alpha1 Gadget lacks servedByDefault: the KEP-3136 rule says false",
          ),
          out,
        );
      // Skipped: List kinds, GA types without a removal, removals before --since, kb records removed before the oldest tag.
      for (const absent of ["List", "Pod", "Relic", "flowcontrol.apiserver.k8s.io/v1 "])
        assert.ok(!out.includes(absent), `"${absent}" must not be reported:\n${out}`);
      assert.ok(out.includes("2 derived removal(s) before 1.33 are not in the kb"), out);
      assert.ok(
        out.includes("1 kb record(s) removed before 1.33, the oldest tag read, are not compared"),
        out,
      );
      // A kb record without introducedIn gets the marker's value proposed.
      assert.ok(
        out.includes(
          "+ missing  widgets.example.k8s.io/v1alpha1 Gadget lacks introducedIn: marker says 1.31",
        ),
        out,
      );
      assert.ok(
        out.includes(
          HAS_SERVED_BY_DEFAULT
            ? "4 missing, 2 differs, 0 warnings"
            : "3 missing, 2 differs, 0 warnings",
        ),
        out,
      );
      assertKbUntouched();
    });

    it("--output yaml: proposed records in apiRemovalRecord shape that validate", async () => {
      const result = await derive(["--kubernetes-api", apiRepo, "--kb", kbDir, "--output", "yaml"]);
      assert.equal(result.code, 1, result.stderr);
      const records = yamlRecords(result.stdout, "apiRemovals");
      for (const record of records) assertValid(apiRemovalRecord, record);
      const byKey = new Map(
        records.map((record) => [`${String(record.apiVersion)} ${String(record.kind)}`, record]),
      );
      assert.deepEqual([...byKey.keys()].sort(), [
        "widgets.example.k8s.io/v1alpha1 Gadget",
        "widgets.example.k8s.io/v1alpha1 Gizmo",
        "widgets.example.k8s.io/v1beta1 Gadget",
      ]);

      const gizmo = byKey.get("widgets.example.k8s.io/v1alpha1 Gizmo")!;
      assert.equal(gizmo.group, WIDGETS);
      assert.equal(gizmo.removedIn, "1.34");
      assert.equal(gizmo.deprecatedIn, "1.33");
      assert.equal(gizmo.replacement, null);
      assert.equal(
        gizmo.sourceUrl,
        `https://github.com/kubernetes/api/blob/${sha133}/widgets/v1alpha1/zz_generated.prerelease-lifecycle.go`,
      );
      assert.match(String(gizmo.notes), new RegExp(`kubernetes-1\\.33\\.0 \\(commit ${sha133}\\)`));
      assert.match(
        String(gizmo.notes),
        new RegExp(`absent at kubernetes-1\\.34\\.0 \\(commit ${sha134}\\)`),
      );
      assert.equal(gizmo.introducedIn, "1.30", "introducedIn is a field of the record, not a note");
      if (HAS_SERVED_BY_DEFAULT) assert.equal(gizmo.servedByDefault, false);
      else assert.match(String(gizmo.notes), /servedByDefault false/);

      const beta = byKey.get("widgets.example.k8s.io/v1beta1 Gadget")!;
      assert.equal(beta.removedIn, "1.38");
      assert.equal(beta.replacement, "widgets.example.k8s.io/v1");
      assert.equal(beta.replacementAvailableIn, null, "widgets v1 is not in the tags read");
      assert.match(String(beta.notes), /markers changed between tags/);

      // The changed record keeps the kb's own values and takes the marker's.
      const changed = byKey.get("widgets.example.k8s.io/v1alpha1 Gadget")!;
      assert.equal(changed.removedIn, "1.37");
      assert.equal(changed.replacement, "widgets.example.k8s.io/v1beta1");
      assert.equal(
        changed.replacementAvailableIn,
        "1.33",
        "the replacement's introduced marker comes with it",
      );
      assert.equal(changed.sourceUrl, "https://example.com/widgets-deprecations");
      assert.match(
        result.stdout,
        /removedIn: "1\.37" +# kb: 1\.36; APILifecycleRemoved at kubernetes-1\.34\.0/,
      );
      assertKbUntouched();
    });

    it("--tags and --since choose what is read and what is proposed", async () => {
      const onlyFirst = await derive([
        "--kubernetes-api",
        apiRepo,
        "--kb",
        kbDir,
        "--tags",
        "kubernetes-1.33.0",
      ]);
      assert.equal(onlyFirst.code, 1, onlyFirst.stderr);
      assert.ok(!onlyFirst.stdout.includes("kubernetes-1.34.0"), onlyFirst.stdout);
      assert.match(
        onlyFirst.stdout,
        /\+ missing {2}widgets\.example\.k8s\.io\/v1alpha1 Gizmo: removedIn 1\.36 \(APILifecycleRemoved at kubernetes-1\.33\.0\)/,
      );

      const older = await derive([
        "--kubernetes-api",
        apiRepo,
        "--kb",
        kbDir,
        "--since",
        "1.26",
        "--output",
        "yaml",
      ]);
      assert.equal(older.code, 1, older.stderr);
      const relic = yamlRecords(older.stdout, "apiRemovals").find(
        (record) => record.kind === "Relic",
      );
      assert.ok(relic, older.stdout);
      assert.equal(relic.removedIn, "1.26");
      if (HAS_SERVED_BY_DEFAULT)
        assert.equal(relic.servedByDefault, true, "a beta introduced before 1.24 is on by default");
      else assert.match(String(relic.notes), /servedByDefault true/);

      const badTag = await derive([
        "--kubernetes-api",
        apiRepo,
        "--kb",
        kbDir,
        "--tags",
        "kubernetes-1.35.0",
      ]);
      assert.equal(badTag.code, 2);
      assert.match(
        badTag.stderr,
        /--tags: kubernetes-1\.35\.0 is not a tag in .*newest is kubernetes-1\.34\.0/,
      );
      assertKbUntouched();
    });

    it("parses the generated file, the group name and the default tags (pure)", () => {
      const text = lifecycleGo(
        "v1beta1",
        withList({
          Gadget: {
            introduced: 33,
            deprecated: 36,
            removed: 39,
            replacement: [WIDGETS, "v1", "Gadget"],
          },
        }),
      );
      const types = parseLifecycleFile(
        text,
        "widgets/v1beta1/zz_generated.prerelease-lifecycle.go",
      );
      assert.deepEqual(types.get("Gadget"), {
        introduced: 33,
        deprecated: 36,
        removed: 39,
        replacement: { group: WIDGETS, version: "v1", kind: "Gadget" },
      });
      assert.deepEqual(types.get("GadgetList")?.replacement, {
        group: WIDGETS,
        version: "v1",
        kind: "GadgetList",
      });
      assert.throws(
        () =>
          parseLifecycleFile(
            text.replace("return 1, 39", "return minor(39)"),
            "widgets/v1beta1/zz_generated.prerelease-lifecycle.go",
          ),
        (error: unknown) =>
          error instanceof DeriveInputError &&
          /widgets\/v1beta1\/zz_generated\.prerelease-lifecycle\.go: cannot read Gadget\.APILifecycleRemoved/.test(
            error.message,
          ),
      );

      assert.equal(parseGroupName(registerGo("v1", ""), docGo("v1", null)), "");
      assert.equal(parseGroupName(null, docGo("v1alpha1", WIDGETS)), WIDGETS);
      assert.equal(parseGroupName(registerGo("v1", "batch"), null), "batch");
      assert.equal(parseGroupName(null, docGo("v1", null)), null);

      const tags = [
        "kubernetes-1.28.0",
        "kubernetes-1.29.0",
        "kubernetes-1.29.3",
        "kubernetes-1.36.0",
        "kubernetes-1.36.3",
        "kubernetes-1.37.0-alpha.3",
        "kubernetes-1.37.0-beta.0",
        "v0.36.0",
      ];
      assert.deepEqual(
        selectDefaultTags(tags).map((tag) => tag.name),
        ["kubernetes-1.29.0", "kubernetes-1.36.0", "kubernetes-1.37.0-beta.0"],
      );
      assert.equal(parseKubernetesTag("master"), null);

      // A type whose package disappears at a pre-release tag: removed there, provisionally.
      const snapshot = (tag: string, commit: string, withGadget: boolean): TagSnapshot => ({
        tag: parseKubernetesTag(tag)!,
        commit,
        packages: withGadget
          ? [
              {
                dir: "widgets",
                version: "v1alpha1",
                group: WIDGETS,
                path: "widgets/v1alpha1/zz_generated.prerelease-lifecycle.go",
                types: parseLifecycleFile(
                  lifecycleGo("v1alpha1", {
                    Gadget: { introduced: 31, deprecated: 34, removed: 37 },
                  }),
                  "x",
                ),
              },
            ]
          : [],
      });
      const [gone] = deriveRemovals([
        snapshot("kubernetes-1.35.0", "a".repeat(40), true),
        snapshot("kubernetes-1.36.0-rc.0", "b".repeat(40), false),
      ]);
      assert.equal(gone?.removedIn, "1.36");
      assert.equal(gone?.removedBy, "type-gone");
      assert.equal(gone?.provisional, true);
      const [kept] = deriveRemovals(
        [
          snapshot("kubernetes-1.35.0", "a".repeat(40), true),
          snapshot("kubernetes-1.36.0", "b".repeat(40), false),
        ],
        () => true,
      );
      assert.equal(kept?.removedIn, "1.37", "a type still declared is not gone");
    });
  });

  describe("endoflife.date", () => {
    it("proposes the new release and the updates, and explains known disagreements", async () => {
      const result = await derive([
        "--endoflife",
        path.join(FIXTURES, "kubernetes.json"),
        "--kb",
        kbDir,
      ]);
      assert.equal(result.code, 1, result.stderr);
      const out = result.stdout;
      assert.ok(
        out.includes(
          "+ missing  1.37: releaseDate 2026-08-26, endOfStandardSupport 2027-08-28, endOfLife 2027-10-28, latestPatch 1.37.2, latestPatchDate 2026-11-18",
        ),
        out,
      );
      assert.ok(
        out.includes(
          "~ differs  1.36 latestPatch: kb says 1.36.4, endoflife.date says 1.36.7 (https://endoflife.date/kubernetes)",
        ),
        out,
      );
      assert.ok(
        out.includes(
          "~ differs  1.36 latestPatchDate: kb says 2026-08-20, endoflife.date says 2026-11-18",
        ),
        out,
      );
      assert.ok(
        out.includes("+ missing  1.32 lacks endOfStandardSupport: endoflife.date says 2025-12-28"),
        out,
      );
      assert.ok(
        out.includes(
          "= known    1.34 endOfLife: kb says 2026-10-27, endoflife.date says 2026-10-28; the kb's disagreement explains it",
        ),
        out,
      );
      assert.ok(
        out.includes(
          "i info     1.33 latestPatch: kb says 1.33.13, endoflife.date says 1.33.12; the endoflife.date copy is older",
        ),
        out,
      );
      assert.ok(
        !out.includes("1.33 latestPatchDate"),
        "the date of an older patch is not proposed",
      );
      assert.ok(!/ 1\.35[ :]/.test(out), `an equal release is not reported:\n${out}`);
      assert.ok(
        out.includes("endoflife.date also lists 1.18, older than the kb's oldest release"),
        out,
      );

      const yaml = await derive([
        "--endoflife",
        path.join(FIXTURES, "kubernetes.json"),
        "--kb",
        kbDir,
        "--output",
        "yaml",
      ]);
      assert.equal(yaml.code, 1, yaml.stderr);
      const records = yamlRecords(yaml.stdout, "releases");
      for (const record of records) assertValid(releaseRecord, record);
      assert.deepEqual(
        records.map((record) => record.version),
        ["1.37", "1.32", "1.36"],
      );
      assert.deepEqual(
        { ...records[0] },
        {
          version: "1.37",
          releaseDate: "2026-08-26",
          endOfStandardSupport: "2027-08-28",
          endOfLife: "2027-10-28",
          latestPatch: "1.37.2",
          latestPatchDate: "2026-11-18",
          etcdVersion: null,
          etcdSourceUrl: null,
          sourceUrl: "https://endoflife.date/kubernetes",
          disagreement: null,
        },
      );
      assert.equal(records[1]!.endOfStandardSupport, "2025-12-28");
      assert.equal(records[2]!.latestPatch, "1.36.7");
      assert.equal(
        records[2]!.releaseDate,
        "2026-04-22",
        "a changed record keeps the kb's other values",
      );
      assertKbUntouched();
    });

    it("exits 0 when the kb says what endoflife.date says", async () => {
      const matching = path.join(work, "kb-matching");
      fs.mkdirSync(matching, { recursive: true });
      const cycles = JSON.parse(
        fs.readFileSync(path.join(FIXTURES, "kubernetes.json"), "utf8"),
      ) as Record<string, string>[];
      const text = `releases:\n${cycles
        .map((cycle) =>
          release(cycle.cycle!, {
            releaseDate: cycle.releaseDate!,
            endOfStandardSupport: cycle.support!,
            endOfLife: cycle.eol!,
            latestPatch: cycle.latest!,
            latestPatchDate: cycle.latestReleaseDate!,
          }),
        )
        .join("")}`;
      fs.writeFileSync(path.join(matching, "releases.yaml"), text);
      const result = await derive([
        "--endoflife",
        path.join(FIXTURES, "kubernetes.json"),
        "--kb",
        matching,
      ]);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(
        result.stdout,
        /releases\.yaml {2}\(from endoflife\.date kubernetes\.json \(.*, 7 cycles\)\)\n {2}nothing differs\n/,
      );
    });

    it("reads booleans as no date and names entries it cannot use (pure)", () => {
      const parsed = parseEndOfLifeJson(
        JSON.stringify([
          {
            cycle: "1.38",
            releaseDate: "2026-12-16",
            support: true,
            eol: false,
            latest: "1.38.0",
            latestReleaseDate: "2026-12-16",
          },
          { cycle: 1.3 },
          { cycle: "1.37", eol: "soon" },
        ]),
        "k.json",
      );
      assert.deepEqual(parsed.cycles[0], {
        cycle: "1.38",
        releaseDate: "2026-12-16",
        support: null,
        eol: null,
        latest: "1.38.0",
        latestReleaseDate: "2026-12-16",
      });
      assert.equal(parsed.cycles.length, 2);
      assert.ok(
        parsed.warnings.some((warning) => warning.includes('k.json[1] has no string "cycle"')),
        parsed.warnings.join("\n"),
      );
      assert.ok(
        parsed.warnings.some((warning) => warning.includes('eol "soon" is not a date')),
        parsed.warnings.join("\n"),
      );
      assert.throws(
        () => parseEndOfLifeJson('{"cycle": "1.36"}', "k.json"),
        /not an array of release cycles/,
      );
    });
  });

  describe("containerd RELEASES.md", () => {
    const releasesMd = path.join(FIXTURES, "RELEASES.md");

    it("proposes the missing row and reports the differing one", async () => {
      const result = await derive(["--containerd-releases", releasesMd, "--kb", kbDir]);
      assert.equal(result.code, 1, result.stderr);
      const out = result.stdout;
      assert.ok(
        out.includes("+ missing  Kubernetes 1.37: containerd 2.4.0+, 2.3.1+ (CRI v1)"),
        out,
      );
      assert.ok(
        out.includes(
          "source: https://github.com/containerd/containerd/blob/main/RELEASES.md#kubernetes-support",
        ),
        "without a commit the source is the file on main",
      );
      assert.ok(
        out.includes(
          "~ differs  containerd-k8s-1-35-recommended (Kubernetes 1.35) lineMinVersions: kb says 2.2.0, 2.1.4, 1.7.28, RELEASES.md says 2.2.0, 2.1.5, 1.7.28 (2.1: 2.1.4 → 2.1.5)",
        ),
        out,
      );
      assert.ok(
        !out.includes("1-34-recommended") && !out.includes("1-36-recommended"),
        `equal rows are not reported:\n${out}`,
      );
      assert.ok(
        out.includes("the kb has containerd rows for 1.33 that this table does not list"),
        out,
      );
      assert.ok(
        !out.includes("v1.6.15") && !out.includes("1.26"),
        "the deprecated-versions table is not read",
      );
      assertKbUntouched();
    });

    it("--output yaml with --containerd-commit: records that validate, linked to their line", async () => {
      const commit = "0123456789abcdef0123456789abcdef01234567";
      const result = await derive([
        "--containerd-releases",
        releasesMd,
        "--containerd-commit",
        commit,
        "--kb",
        kbDir,
        "--output",
        "yaml",
      ]);
      assert.equal(result.code, 1, result.stderr);
      const records = yamlRecords(result.stdout, "runtimeRequirements");
      for (const record of records) assertValid(runtimeRequirementRecord, record);
      const line137 =
        fs
          .readFileSync(releasesMd, "utf8")
          .split("\n")
          .findIndex((line) => line.startsWith("| 1.37 ")) + 1;
      const line135 =
        fs
          .readFileSync(releasesMd, "utf8")
          .split("\n")
          .findIndex((line) => line.startsWith("| 1.35 ")) + 1;
      assert.deepEqual(
        records.map((record) => [
          record.id,
          record.minVersion,
          record.lineMinVersions,
          record.sourceUrl,
        ]),
        [
          [
            "containerd-k8s-1-37-recommended",
            "2.3.1",
            ["2.4.0", "2.3.1"],
            `https://github.com/containerd/containerd/blob/${commit}/RELEASES.md#L${line137}`,
          ],
          [
            "containerd-k8s-1-35-recommended",
            "1.7.28",
            ["2.2.0", "2.1.5", "1.7.28"],
            `https://github.com/containerd/containerd/blob/${commit}/RELEASES.md#L${line135}`,
          ],
        ],
      );
      assert.equal(records[0]!.kubernetesFrom, "1.37");
      assert.equal(records[0]!.kind, "RECOMMENDED_MIN_VERSION");
      assert.equal(
        records[0]!.summary,
        "containerd's Kubernetes Support table for 1.37: 2.4.0+ or 2.3.1+ (CRI v1).",
      );
      assert.match(String(records[0]!.notes), /Read at containerd commit 0123456789ab\./);
      assertKbUntouched();
    });

    it("finds columns by their header and reports entries it cannot read (pure)", () => {
      const text = [
        "### Kubernetes Support",
        "",
        "| Kubernetes Version | containerd Version | CRI Version | Notes |",
        "|---|---|---|---|",
        "| 1.34 | v2.1.3+, 2.0.6+, 1.7.28+, 1.6.39+ | v1 | |",
        "| 1.23 | 1.6.0+, 1,5.8+ | v1, v1alpha2 ** | typo kept |",
        "",
        "| Containerd Version | Kubernetes Version | CRI Version |",
        "|---|---|---|",
        "| v1.6.15+, v1.7.0+ | 1.26+ | v1 |",
      ].join("\n");
      const table = parseContainerdReleases(text, "RELEASES.md");
      assert.equal(table.rows.length, 2);
      assert.deepEqual(table.rows[0], {
        kubernetes: "1.34",
        versions: ["2.1.3", "2.0.6", "1.7.28", "1.6.39"],
        cri: "v1",
        line: 5,
        problems: [],
      });
      assert.equal(table.rows[1]!.cri, "v1, v1alpha2");
      assert.deepEqual(table.rows[1]!.problems, [
        'containerd version "1" is not a version such as 2.1.3+',
        'containerd version "5.8+" is not a version such as 2.1.3+',
      ]);
      assert.throws(
        () => parseContainerdReleases("# Releases\n\nno table here\n", "RELEASES.md"),
        /has no "Kubernetes Support" heading/,
      );
    });
  });

  describe("bad input", () => {
    it("exits 2 with a message naming what to fix, and leaves the kb untouched", async () => {
      const notGit = path.join(work, "not-a-repo");
      fs.mkdirSync(notGit, { recursive: true });
      const cases: [args: string[], message: RegExp][] = [
        [
          ["--kubernetes-api", notGit],
          new RegExp(
            `--kubernetes-api: ${notGit.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not a git repository .*clone of https://github\\.com/kubernetes/api`,
          ),
        ],
        [
          ["--kubernetes-api", path.join(work, "no-such-dir")],
          /--kubernetes-api: .*no-such-dir does not exist/,
        ],
        [
          ["--containerd-releases", path.join(work, "missing", "RELEASES.md")],
          /--containerd-releases: .*missing\/RELEASES\.md does not exist; give the path of containerd's RELEASES\.md/,
        ],
        [
          ["--endoflife", path.join(FIXTURES, "malformed.json")],
          /--endoflife: .*malformed\.json is not valid JSON \(/,
        ],
        [
          ["--endoflife", path.join(FIXTURES, "RELEASES.md")],
          /--endoflife: .*RELEASES\.md is not valid JSON/,
        ],
        [
          ["--containerd-releases", path.join(FIXTURES, "kubernetes.json")],
          /--containerd-releases: .*kubernetes\.json has no "Kubernetes Support" heading/,
        ],
        [
          ["--endoflife", path.join(FIXTURES, "kubernetes.json"), "--output", "json"],
          /--output: "json" is not text or yaml/,
        ],
        [["--kubernetes-api", apiRepo, "--since", "33"], /--since: "33" is not a Kubernetes minor/],
        [
          ["--kubernetes-api", apiRepo, "--tags", "master"],
          /--tags: "master" is not a kubernetes-1\.N\.P tag/,
        ],
        [
          [],
          /give at least one input: --kubernetes-api <dir>, --endoflife <file> or --containerd-releases <file>/,
        ],
        [["--endoflife"], /--endoflife/],
        [["--no-such-flag", "x"], /Unknown option '--no-such-flag'/],
      ];
      for (const [args, message] of cases) {
        const result = await derive([...args, "--kb", kbDir]);
        assert.equal(
          result.code,
          2,
          `${args.join(" ")} → exit ${String(result.code)}\n${result.stdout}${result.stderr}`,
        );
        assert.match(result.stderr, message, args.join(" "));
        assert.equal(result.stdout, "", "nothing is proposed from bad input");
      }
      const noKb = await derive([
        "--endoflife",
        path.join(FIXTURES, "kubernetes.json"),
        "--kb",
        notGit,
      ]);
      assert.equal(noKb.code, 2);
      assert.match(noKb.stderr, /--kb: .*not-a-repo\/releases\.yaml does not exist/);
      assertKbUntouched();
    });
  });
});
