/**
 * Release day in one step: `npm run kb:derive -- --released 1.38` with the released sources (here the
 * feature-gate pages of test/fixtures/feature-gates/pages, in kubernetes/website's front-matter format)
 * turns 1.38's pre-release knowledge into released knowledge for review: each pre-release fact is
 * confirmed, differs, or was not mentioned (did it ship?); a pre-release coverage claim whose kind was
 * read is proposed as RELEASED, one whose kind was not is still pre-release. The kb it reads is written
 * by the test (no internet here: the released 1.38 sources cannot be fetched), and is left unchanged.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { runExecutable } from "./support/cli-process.js";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const COMMAND = path.join(REPO_ROOT, "src", "ops", "kb-derive.ts");
const PAGES = path.join(REPO_ROOT, "test", "fixtures", "feature-gates", "pages");
const COMMIT = "5a52c384728ecdc487a9faa69326c5432631b8f3";

/** The real command, as an operator runs it (tsx, a child process); never throws on a non-zero exit. */
const derive = (args: readonly string[]) =>
  runExecutable(process.execPath, ["--import", "tsx", COMMAND, ...args]);

const gate = (name: string, stages: string[], notes: string) =>
  `  - name: ${name}\n    stages:\n${stages.map((stage) => `      - ${stage}\n`).join("")}    removedIn: null\n    components: []\n    sourceUrl: https://github.com/kubernetes/kubernetes/pull/1\n    notes: "${notes}"\n    disagreement: null\n`;

// SparkleScheduling as the released page has it (confirmed); GizmoLogging said GA where the page says beta
// (differs); PhantomGate, which no released page mentions (did it ship?); WobbleProbe, a released fact.
const GATES = `featureGates:\n${[
  gate(
    "SparkleScheduling",
    [
      '{ stage: ALPHA, defaultValue: false, fromVersion: "1.31", toVersion: "1.32" }',
      '{ stage: BETA, defaultValue: true, fromVersion: "1.33", toVersion: "1.34" }',
      '{ stage: GA, defaultValue: true, locked: true, fromVersion: "1.35", toVersion: null }',
    ],
    "Pre-release (1.38): locked in the alpha.2 notes.",
  ),
  gate(
    "GizmoLogging",
    [
      '{ stage: ALPHA, defaultValue: false, fromVersion: "1.24", toVersion: "1.29" }',
      '{ stage: GA, defaultValue: true, fromVersion: "1.30", toVersion: null }',
    ],
    "Pre-release (1.38): GA in the alpha.2 notes.",
  ),
  gate(
    "PhantomGate",
    ['{ stage: ALPHA, defaultValue: false, fromVersion: "1.38", toVersion: null }'],
    "Pre-release (1.38): added in alpha.1.",
  ),
  gate(
    "WobbleProbe",
    [
      '{ stage: GA, defaultValue: true, fromVersion: "1.0", toVersion: "1.32" }',
      '{ stage: DEPRECATED, defaultValue: false, fromVersion: "1.33", toVersion: null }',
    ],
    "From the website pages.",
  ),
].join("")}`;

const claim = (knowledge: string, source: string) =>
  `  - knowledge: ${knowledge}\n    throughMinor: "1.38"\n    stage: PRERELEASE\n    source: "${source}"\n    sourceRevision: "0411cc70"\n    sourceDate: "2026-09-09"\n    sourceUrl: https://github.com/kubernetes/kubernetes/blob/0411cc704533ed25a1bfc6e21a3195d9c6a2f0f2/CHANGELOG/CHANGELOG-1.38.md\n    notes: null\n`;
const COVERAGE = `coverage:\n${claim("featureGates", "CHANGELOG-1.38 v1.38.0-alpha.2")}${claim("behaviourChanges", "CHANGELOG-1.38 urgent notes")}`;

describe("kb:derive --released (release day)", () => {
  let kb: string;
  let before_: Map<string, string>;
  before(() => {
    kb = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-release-day-"));
    fs.writeFileSync(path.join(kb, "feature-gates.yaml"), GATES);
    fs.writeFileSync(path.join(kb, "coverage.yaml"), COVERAGE);
    for (const file of ["releases.yaml", "api-removals.yaml"])
      fs.copyFileSync(path.join(REPO_ROOT, "kb", file), path.join(kb, file));
    before_ = new Map(
      fs.readdirSync(kb).map((file) => [file, fs.readFileSync(path.join(kb, file), "utf8")]),
    );
  });
  after(() => fs.rmSync(kb, { recursive: true, force: true }));

  it("says per pre-release fact whether the released source confirms it, and what is still pre-release", async () => {
    const run = await derive([
      "--feature-gates",
      PAGES,
      "--website-commit",
      COMMIT,
      "--released",
      "1.38",
      "--kb",
      kb,
    ]);
    assert.equal(run.code, 1, run.stderr);
    const section = run.stdout.slice(
      run.stdout.indexOf("coverage.yaml  (from the pre-release knowledge of 1.38"),
    );
    assert.ok(section.length > 0, run.stdout);
    assert.match(
      section,
      /i info {5}SparkleScheduling: the released source confirms it; drop its pre-release note/,
    );
    assert.match(section, /~ differs {2}GizmoLogging: the released source says otherwise \(/);
    assert.match(
      section,
      /~ differs {2}PhantomGate: the released source does not mention it; check whether it shipped in 1\.38, or drop it/,
    );
    assert.doesNotMatch(section, /WobbleProbe/);
    assert.match(
      section,
      /~ differs {2}featureGates of 1\.38 was read from a released source \(kubernetes\/website feature-gate pages .*commit 5a52c384728e\)\): the claim becomes RELEASED/,
    );
    assert.match(
      section,
      /! warning {2}behaviourChanges of 1\.38 stays pre-release \(CHANGELOG-1\.38 urgent notes\): no released source of it was read in this run \(kb:derive reads none for this kind/,
    );
    // The kb's 1.38 release row is a pre-release fact too, and no endoflife.date copy was given.
    assert.match(
      section,
      /! warning {2}1\.38: a pre-release fact of 1\.38, not checked \(no released source of releases was read\)/,
    );
    for (const [file, text] of before_)
      assert.equal(fs.readFileSync(path.join(kb, file), "utf8"), text, `${file} is left as it was`);
  });

  it("proposes the claim as RELEASED in YAML a reviewer pastes", async () => {
    const run = await derive([
      "--feature-gates",
      PAGES,
      "--website-commit",
      COMMIT,
      "--released",
      "1.38",
      "--kb",
      kb,
      "--output",
      "yaml",
    ]);
    const documents = run.stdout.split(/^---$/m);
    const coverage = documents.find((document) => document.includes("coverage:"));
    assert.ok(coverage, run.stdout);
    const proposed = (parse(coverage) as { coverage: Array<Record<string, unknown>> }).coverage;
    assert.deepEqual(
      proposed.map((record) => [record.knowledge, record.throughMinor, record.stage]),
      [["featureGates", "1.38", "RELEASED"]],
    );
    assert.match(String(proposed[0]!.sourceRevision), /kubernetes\/website feature-gate pages/);
  });

  it("refuses a minor that is not one, saying what to write", async () => {
    const run = await derive(["--feature-gates", PAGES, "--released", "1.38.0", "--kb", kb]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--released: "1\.38\.0" is not a Kubernetes minor such as 1\.38/);
  });
});
