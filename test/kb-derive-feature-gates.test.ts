/**
 * `npm run kb:derive -- --feature-gates <dir>` (src/ops/kb-derive.ts) end to end, and its pure
 * parts (src/upstream/derive/feature-gates.ts). The pages are fixtures in the kubernetes/website
 * front-matter format (test/fixtures/feature-gates/pages/: a removed gate, a GA gate locked to its
 * default, a deprecated gate, a page with a stage lacking toVersion and a patch release, a removed
 * gate whose deprecated stage gives no default, a page without stages, and the folder's index.md);
 * test/fixtures/feature-gates/malformed/ holds a page that is not in the format. The kb they are
 * compared with is written by the test, and every run checks that it is left unchanged.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { featureGateRecord } from "../src/knowledge/records.js";
import { DeriveInputError } from "../src/upstream/derive/errors.js";
import {
  featureGateSourceUrl,
  parseFeatureGatePage,
  parseFeatureGatePages,
  type FeatureGatePage,
} from "../src/upstream/derive/feature-gates.js";
import { hashes, derive } from "./support/kb-derive.js";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PAGES = path.join(REPO_ROOT, "test", "fixtures", "feature-gates", "pages");
const MALFORMED = path.join(REPO_ROOT, "test", "fixtures", "feature-gates", "malformed");
const COMMIT = "5a52c384728ecdc487a9faa69326c5432631b8f3";
const BLOB = `https://github.com/kubernetes/website/blob/${COMMIT}/content/en/docs/reference/command-line-tools-reference/feature-gates`;

function readPages(directory: string): FeatureGatePage[] {
  return fs
    .readdirSync(directory)
    .map((file) => ({ file, text: fs.readFileSync(path.join(directory, file), "utf8") }));
}

/** A feature-gate page with the given front-matter lines (for the error cases). */
const page = (...lines: string[]): string => `---\n${lines.join("\n")}\n---\nA test page.\n`;

function throwsInput(file: string, text: string, message: string): void {
  assert.throws(
    () => parseFeatureGatePage(file, text),
    (error: unknown) => {
      assert.ok(error instanceof DeriveInputError, String(error));
      assert.equal(error.message, message);
      return true;
    },
  );
}

// The kb the fixtures are compared with: SparkleScheduling as the page has it; FrobnicatorPlugin
// without its lock and removal; WobbleProbe with a removal the page does not give; OldTrick with a
// removal its disagreement explains; RetiredThing, which no page gives. GizmoLogging is missing.
const KB = `featureGates:
  - name: SparkleScheduling
    stages:
      - { stage: ALPHA, defaultValue: false, fromVersion: "1.31", toVersion: "1.32" }
      - { stage: BETA, defaultValue: true, fromVersion: "1.33", toVersion: "1.34" }
      - { stage: GA, defaultValue: true, locked: true, fromVersion: "1.35", toVersion: null }
    sourceUrl: https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/#SparkleScheduling
  - name: FrobnicatorPlugin
    stages:
      - { stage: ALPHA, defaultValue: false, fromVersion: "1.21", toVersion: "1.23" }
      - { stage: BETA, defaultValue: true, fromVersion: "1.24", toVersion: "1.26" }
      - { stage: GA, defaultValue: true, fromVersion: "1.27", toVersion: "1.29" }
    removedIn: null
    components: [kubelet]
    sourceUrl: https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates-removed/#FrobnicatorPlugin
    notes: "Kept by the kb."
  - name: WobbleProbe
    stages:
      - { stage: GA, defaultValue: true, fromVersion: "1.0", toVersion: "1.32" }
      - { stage: DEPRECATED, defaultValue: false, fromVersion: "1.33", toVersion: null }
    removedIn: "1.36"
    sourceUrl: https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/#WobbleProbe
  - name: OldTrick
    stages:
      - { stage: ALPHA, defaultValue: false, fromVersion: "1.8", toVersion: "1.9" }
    removedIn: "1.10"
    sourceUrl: https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates-removed/#OldTrick
    disagreement: "removedIn: the page's stages end at 1.10, which makes 1.11; the release notes say 1.10."
  - name: RetiredThing
    stages:
      - { stage: ALPHA, defaultValue: false, fromVersion: "1.2", toVersion: "1.3" }
    removedIn: "1.4"
    sourceUrl: https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates-removed/#RetiredThing
`;

describe("kb:derive --feature-gates", () => {
  let work: string;
  let kbDir: string;
  let kbHashes: Map<string, string>;
  const assertKbUntouched = (): void =>
    assert.deepEqual(hashes(kbDir), kbHashes, "kb:derive must not change the kb directory");

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-kb-derive-gates-"));
    kbDir = path.join(work, "kb");
    fs.mkdirSync(kbDir);
    fs.writeFileSync(path.join(kbDir, "feature-gates.yaml"), KB);
    kbHashes = hashes(kbDir);
  });

  after(() => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  describe("parsing the pages (pure)", () => {
    it("reads stages, locks, removals and what had to be inferred", () => {
      const parsed = parseFeatureGatePages(readPages(PAGES));
      assert.deepEqual(
        parsed.gates.map((gate) => gate.name),
        ["FrobnicatorPlugin", "GizmoLogging", "OldTrick", "SparkleScheduling", "WobbleProbe"],
        "index.md is the folder's page and NoStagesGate has no stages",
      );
      const byName = new Map(parsed.gates.map((gate) => [gate.name, gate]));
      assert.deepEqual(byName.get("FrobnicatorPlugin"), {
        name: "FrobnicatorPlugin",
        file: "FrobnicatorPlugin.md",
        removed: true,
        stages: [
          {
            stage: "ALPHA",
            defaultValue: false,
            locked: false,
            fromVersion: "1.21",
            toVersion: "1.23",
          },
          {
            stage: "BETA",
            defaultValue: true,
            locked: false,
            fromVersion: "1.24",
            toVersion: "1.26",
          },
          { stage: "GA", defaultValue: true, locked: true, fromVersion: "1.27", toVersion: "1.29" },
        ],
        removedIn: "1.30",
        notes: [],
      });
      assert.deepEqual(byName.get("SparkleScheduling")?.stages.at(-1), {
        stage: "GA",
        defaultValue: true,
        locked: true,
        fromVersion: "1.35",
        toVersion: null,
      });
      assert.equal(byName.get("SparkleScheduling")?.removedIn, null);
      assert.deepEqual(byName.get("WobbleProbe")?.stages, [
        { stage: "GA", defaultValue: true, locked: false, fromVersion: "1.0", toVersion: "1.32" },
        {
          stage: "DEPRECATED",
          defaultValue: false,
          locked: false,
          fromVersion: "1.33",
          toVersion: null,
        },
      ]);
      assert.deepEqual(byName.get("GizmoLogging")?.stages, [
        {
          stage: "ALPHA",
          defaultValue: false,
          locked: false,
          fromVersion: "1.24",
          toVersion: "1.29",
        },
        { stage: "BETA", defaultValue: true, locked: false, fromVersion: "1.30", toVersion: null },
      ]);
      assert.deepEqual(byName.get("GizmoLogging")?.notes, [
        "The page gives patch releases for the beta stage from 1.30.2; the record keeps their minors.",
        "On the page the alpha stage from 1.24 has no toVersion, so it is taken to end at 1.29, before the next stage starts at 1.30.",
        "The page says the gate was formerly named GadgetLogging.",
      ]);
      assert.deepEqual(byName.get("OldTrick")?.stages, [
        {
          stage: "ALPHA",
          defaultValue: false,
          locked: false,
          fromVersion: "1.8",
          toVersion: "1.9",
        },
      ]);
      assert.equal(
        byName.get("OldTrick")?.removedIn,
        "1.11",
        "the removal counts the stage left out",
      );
      assert.deepEqual(byName.get("OldTrick")?.notes, [
        "The page also lists a deprecated stage from 1.10 to 1.10 without a default value; the record leaves it out.",
      ]);
      assert.deepEqual(parsed.skipped, [
        {
          file: "NoStagesGate.md",
          name: "NoStagesGate",
          reason: "the page has no stages in its front matter",
        },
      ]);
      assert.deepEqual(parsed.warnings, []);
    });

    it("skips a removed gate whose last stage has no toVersion, and warns of a title that is not the file name", () => {
      const parsed = parseFeatureGatePages([
        {
          file: "Vanished.md",
          text: page(
            "title: Vanished",
            "stages:",
            "  - stage: alpha",
            "    defaultValue: false",
            '    fromVersion: "1.11"',
            "removed: true",
          ),
        },
        {
          file: "renamed-gate.md",
          text: page(
            "title: RenamedGate",
            "stages:",
            "  - stage: beta",
            "    defaultValue: true",
            '    fromVersion: "1.20"',
          ),
        },
      ]);
      assert.deepEqual(parsed.skipped, [
        {
          file: "Vanished.md",
          name: "Vanished",
          reason:
            "the page says removed: true, but its last stage (alpha from 1.11) has no toVersion, so the minor of the removal is not stated",
        },
      ]);
      assert.deepEqual(parsed.warnings, [
        "renamed-gate.md: the title is RenamedGate, not the file name; the gate is read as RenamedGate",
      ]);
      assert.equal(
        featureGateSourceUrl(parsed.gates[0]!, null),
        "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/#RenamedGate",
      );
      assert.equal(
        featureGateSourceUrl({ name: "OldTrick", file: "OldTrick.md", removed: true }, null),
        "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates-removed/#OldTrick",
      );
      assert.equal(
        featureGateSourceUrl({ name: "OldTrick", file: "OldTrick.md", removed: true }, COMMIT),
        `${BLOB}/OldTrick.md`,
      );
    });

    it("refuses pages that are not in the format, saying what to fix", () => {
      const malformed = fs.readFileSync(path.join(MALFORMED, "BrokenStage.md"), "utf8");
      throwsInput(
        "BrokenStage.md",
        malformed,
        '--feature-gates: BrokenStage.md: stages[0].stage is "gamma"; it must be one of alpha, beta, stable, deprecated',
      );
      throwsInput(
        "Plain.md",
        "Just text, no front matter.\n",
        '--feature-gates: Plain.md: does not start with YAML front matter (a "---" line); a feature-gate page starts with ---, its stages, and a closing ---',
      );
      throwsInput(
        "Open.md",
        "---\ntitle: Open\n",
        '--feature-gates: Open.md: its front matter has no closing "---" line',
      );
      throwsInput(
        "Numbers.md",
        page(
          "title: Numbers",
          "stages:",
          "  - stage: alpha",
          "    defaultValue: false",
          "    fromVersion: 1.10",
        ),
        '--feature-gates: Numbers.md: stages[0].fromVersion is the number 1.1; write versions quoted, such as "1.10" (unquoted, 1.10 reads as 1.1)',
      );
      throwsInput(
        "Odd.md",
        page(
          "title: Odd",
          "stages:",
          "  - stage: beta",
          "    defaultValue: true",
          '    fromVersion: "v1.30"',
        ),
        '--feature-gates: Odd.md: stages[0].fromVersion "v1.30" is not a Kubernetes version such as "1.31"',
      );
      throwsInput(
        "Late.md",
        page(
          "title: Late",
          "stages:",
          "  - stage: beta",
          "    defaultValue: true",
          '    fromVersion: "1.30"',
          '    toVersion: "1.29"',
        ),
        "--feature-gates: Late.md: stages[0]: toVersion 1.29 is before fromVersion 1.30",
      );
      throwsInput(
        "Yes.md",
        page(
          "title: Yes",
          "stages:",
          "  - stage: beta",
          "    defaultValue: yes",
          '    fromVersion: "1.30"',
        ),
        '--feature-gates: Yes.md: stages[0].defaultValue is "yes"; it must be true or false',
      );
      throwsInput(
        "Lower.md",
        page("title: lowerCase", "stages: []"),
        '--feature-gates: Lower.md: title is "lowerCase"; it must be the gate\'s name, such as DynamicKubeletConfig',
      );
      throwsInput(
        "Twice.md",
        page("title: Twice", "title: Again"),
        "--feature-gates: Twice.md: the front matter repeats a key (map keys must be unique)",
      );
      throwsInput(
        "Bad.md",
        page("title: Bad", "stages: [ { stage: alpha"),
        "--feature-gates: Bad.md: line 3: the front matter is not valid YAML (Flow map in block collection must be sufficiently indented and end with a })",
      );
      throwsInput(
        "Order.md",
        page(
          "title: Order",
          "stages:",
          "  - stage: beta",
          "    defaultValue: true",
          '    fromVersion: "1.30"',
          "  - stage: alpha",
          "    defaultValue: false",
          '    fromVersion: "1.29"',
        ),
        "--feature-gates: Order.md: stages[1] starts at 1.29, before stages[0] (1.30); list the stages in order",
      );
      assert.throws(
        () =>
          parseFeatureGatePages([
            {
              file: "A.md",
              text: page(
                "title: Same",
                "stages:",
                "  - stage: alpha",
                "    defaultValue: false",
                '    fromVersion: "1.30"',
              ),
            },
            {
              file: "B.md",
              text: page(
                "title: Same",
                "stages:",
                "  - stage: alpha",
                "    defaultValue: false",
                '    fromVersion: "1.30"',
              ),
            },
          ]),
        {
          name: "DeriveInputError",
          message:
            "--feature-gates: B.md: its title Same is also the title of A.md; each gate has one page",
        },
      );
      assert.throws(
        () => parseFeatureGatePages([{ file: "index.md", text: page("title: Feature Gates") }]),
        {
          name: "DeriveInputError",
          message:
            "--feature-gates: no feature-gate pages (<Gate>.md); give the content/en/docs/reference/command-line-tools-reference/feature-gates folder of a kubernetes/website checkout",
        },
      );
    });
  });

  describe("the command", () => {
    it("reports missing, differing, known and kb-only gates, and the page it leaves out", async () => {
      const result = await derive(["--feature-gates", PAGES, "--kb", kbDir]);
      assert.equal(result.code, 1, result.stderr);
      const anchor = (name: string, removed = false): string =>
        `https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates${removed ? "-removed" : ""}/#${name}`;
      assert.equal(
        result.stdout,
        [
          `${path.join(kbDir, "feature-gates.yaml")}  (from kubernetes/website feature-gate pages (test/fixtures/feature-gates/pages, 5 gates of which 2 removed, 1 page left out; commit unknown: pass --website-commit))`,
          "  ! warning  NoStagesGate (NoStagesGate.md) is left out: the page has no stages in its front matter",
          `  ~ differs  FrobnicatorPlugin stages: kb says ALPHA false 1.21–1.23, BETA true 1.24–1.26, GA true 1.27–1.29; the page says ALPHA false 1.21–1.23, BETA true 1.24–1.26, GA true locked 1.27–1.29 (${anchor("FrobnicatorPlugin", true)})`,
          "  + missing  FrobnicatorPlugin lacks removedIn: the page says removed: true, last stage to 1.29, so 1.30",
          `             source: ${anchor("FrobnicatorPlugin", true)}`,
          "  + missing  GizmoLogging: ALPHA false 1.24–1.29, BETA true 1.30–",
          `             source: ${anchor("GizmoLogging")}`,
          `  = known    OldTrick removedIn: kb says 1.10, the page says 1.11; the kb's disagreement explains it (${anchor("OldTrick", true)})`,
          `  ~ differs  WobbleProbe removedIn: kb says 1.36, the page says none (the gate still exists) (${anchor("WobbleProbe")})`,
          "  i info     the kb has RetiredThing, which no page read gives; nothing to compare",
          `  2 missing, 2 differs, 1 warnings, 1 known: review, then edit ${path.join(kbDir, "feature-gates.yaml")} by hand (--output yaml proposes the records)`,
          "",
        ].join("\n"),
      );
      assertKbUntouched();
    });

    it("--output yaml with --website-commit: records that validate, linked to the pages at the commit", async () => {
      const result = await derive([
        "--feature-gates",
        PAGES,
        "--website-commit",
        COMMIT,
        "--kb",
        kbDir,
        "--output",
        "yaml",
      ]);
      assert.equal(result.code, 1, result.stderr);
      const documents = parseAllDocuments(result.stdout);
      assert.equal(documents.length, 1);
      assert.deepEqual(documents[0]!.errors, []);
      const records = (documents[0]!.toJS() as { featureGates: Record<string, unknown>[] })
        .featureGates;
      for (const record of records)
        assert.ok(featureGateRecord.safeParse(record).success, JSON.stringify(record));
      assert.deepEqual(records, [
        {
          name: "GizmoLogging",
          stages: [
            { stage: "ALPHA", defaultValue: false, fromVersion: "1.24", toVersion: "1.29" },
            { stage: "BETA", defaultValue: true, fromVersion: "1.30", toVersion: null },
          ],
          removedIn: null,
          components: [],
          sourceUrl: `${BLOB}/GizmoLogging.md`,
          notes:
            "The page gives patch releases for the beta stage from 1.30.2; the record keeps their minors. On the page the alpha stage from 1.24 has no toVersion, so it is taken to end at 1.29, before the next stage starts at 1.30. The page says the gate was formerly named GadgetLogging.",
          disagreement: null,
        },
        {
          name: "FrobnicatorPlugin",
          stages: [
            { stage: "ALPHA", defaultValue: false, fromVersion: "1.21", toVersion: "1.23" },
            { stage: "BETA", defaultValue: true, fromVersion: "1.24", toVersion: "1.26" },
            {
              stage: "GA",
              defaultValue: true,
              locked: true,
              fromVersion: "1.27",
              toVersion: "1.29",
            },
          ],
          removedIn: "1.30",
          components: ["kubelet"],
          sourceUrl:
            "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates-removed/#FrobnicatorPlugin",
          notes: "Kept by the kb.",
          disagreement: null,
        },
        {
          name: "WobbleProbe",
          stages: [
            {
              stage: "GA",
              defaultValue: true,
              locked: false,
              fromVersion: "1.0",
              toVersion: "1.32",
            },
            {
              stage: "DEPRECATED",
              defaultValue: false,
              locked: false,
              fromVersion: "1.33",
              toVersion: null,
            },
          ],
          removedIn: null,
          components: [],
          sourceUrl:
            "https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/#WobbleProbe",
          notes: null,
          disagreement: null,
        },
      ]);
      assert.match(
        result.stdout,
        /^# warning: NoStagesGate \(NoStagesGate\.md\) is left out: the page has no stages in its front matter$/m,
      );
      assert.match(
        result.stdout,
        /^ {4}removedIn: "1\.30" +# kb: none; the minor after the last stage's toVersion$/m,
      );
      assert.ok(result.stdout.includes("commit 5a52c384728e"), result.stdout);
      assertKbUntouched();
    });

    it("accepts the root of a website checkout and exits 0 when the kb says what the pages say", async () => {
      const root = path.join(work, "website");
      const folder = path.join(
        root,
        "content",
        "en",
        "docs",
        "reference",
        "command-line-tools-reference",
        "feature-gates",
      );
      fs.mkdirSync(folder, { recursive: true });
      fs.copyFileSync(
        path.join(PAGES, "SparkleScheduling.md"),
        path.join(folder, "SparkleScheduling.md"),
      );
      fs.copyFileSync(path.join(PAGES, "index.md"), path.join(folder, "index.md"));
      const matching = path.join(work, "kb-matching");
      fs.mkdirSync(matching);
      fs.writeFileSync(
        path.join(matching, "feature-gates.yaml"),
        KB.split("  - name: FrobnicatorPlugin")[0]!,
      );
      const result = await derive(["--feature-gates", root, "--kb", matching]);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(
        result.stdout,
        /feature-gates\.yaml {2}\(from kubernetes\/website feature-gate pages \(.*website\/content\/en\/docs\/reference\/command-line-tools-reference\/feature-gates, 1 gates of which 0 removed, 0 pages left out; commit unknown: pass --website-commit\)\)\n {2}nothing differs\n/,
      );
    });

    it("exits 2 with a message naming what to fix, and proposes nothing", async () => {
      const empty = path.join(work, "empty");
      fs.mkdirSync(empty);
      const cases: [args: string[], message: string][] = [
        [
          ["--feature-gates", MALFORMED],
          'kb:derive: --feature-gates: BrokenStage.md: stages[0].stage is "gamma"; it must be one of alpha, beta, stable, deprecated\n',
        ],
        [
          ["--feature-gates", path.join(work, "no-such-dir")],
          `kb:derive: --feature-gates: ${path.join(work, "no-such-dir")} does not exist; give the content/en/docs/reference/command-line-tools-reference/feature-gates folder of a kubernetes/website checkout (or the checkout itself)\n`,
        ],
        [
          ["--feature-gates", empty],
          `kb:derive: --feature-gates: ${empty} holds no .md pages; give the content/en/docs/reference/command-line-tools-reference/feature-gates folder of a kubernetes/website checkout (or the checkout itself)\n`,
        ],
        [
          ["--feature-gates", PAGES, "--website-commit", "main"],
          'kb:derive: --website-commit: "main" is not a git commit id (7 to 40 lower-case hex digits)\n',
        ],
        [["--website-commit", COMMIT], "kb:derive: --website-commit goes with --feature-gates\n"],
      ];
      for (const [args, message] of cases) {
        const result = await derive([...args, "--kb", kbDir]);
        assert.equal(
          result.code,
          2,
          `${args.join(" ")} → exit ${String(result.code)}\n${result.stdout}${result.stderr}`,
        );
        assert.equal(result.stderr, message, args.join(" "));
        assert.equal(result.stdout, "", "nothing is proposed from bad input");
      }
      assertKbUntouched();
    });
  });
});
