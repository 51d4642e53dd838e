/**
 * `--output sarif`: the SARIF 2.1.0 that `kubecompat scan` and `kubecompat scan-cluster` write, validated
 * against the published SARIF 2.1.0 JSON schema (as shipped in @microsoft/jest-sarif), with rules that are
 * finding codes and results that point at file and line.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import draft04 from "ajv-draft-04";
import formats from "ajv-formats";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { kubecompat } from "./support/cli-process.js";
import { startListeningRuntime } from "./support/runtime.js";

const require = createRequire(import.meta.url);
const schema = require("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json") as object;
// The published schema has a pattern that is not valid with the u flag (`]?` in the language tag pattern).
// CommonJS packages: their classes are the default export's `default`.
const { default: Ajv } = draft04;
const { default: addFormats } = formats;
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

interface Sarif {
  version: string;
  runs: Array<{
    tool: {
      driver: {
        name: string;
        rules: Array<{ id: string; shortDescription: { text: string }; helpUri?: string }>;
      };
    };
    results: Array<{
      ruleId: string;
      level: string;
      message: { text: string };
      locations?: Array<{
        physicalLocation?: { artifactLocation: { uri: string }; region?: { startLine: number } };
        logicalLocations?: Array<{ fullyQualifiedName: string }>;
      }>;
    }>;
  }>;
}

describe("SARIF output", () => {
  let listening: { url: string; close(): Promise<void> } | undefined;
  let dir: string;
  before(async () => {
    listening = await startListeningRuntime({ inMemory: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-sarif-"));
  });
  after(async () => {
    await listening?.close();
  });

  it("the schema check can fail", () => {
    assert.equal(
      validate({ version: "2.1.0", runs: [{ tool: { driver: {} } }] }),
      false,
      "a driver without a name is refused",
    );
  });

  it("scan writes valid SARIF: each finding code a rule, each finding a result at its file and line", async () => {
    fs.mkdirSync(path.join(dir, "chart"), { recursive: true });
    fs.writeFileSync(
      path.join(dir, "chart", "cron.yaml"),
      "# a CronJob of old\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n  schedule: '0 1 * * *'\n---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: api\n",
    );
    const run = await kubecompat(["scan", "--to", "1.25", path.join(dir, "chart"), "-o", "sarif"], {
      env: { KUBECOMPAT_URL: listening!.url },
    });
    assert.equal(run.code, 1, run.stderr);
    const log = JSON.parse(run.stdout) as Sarif;
    assert.equal(validate(log), true, JSON.stringify(validate.errors?.slice(0, 5)));
    const [result] = log.runs;
    assert.equal(result!.tool.driver.name, "kubecompat");
    assert.deepEqual(
      result!.tool.driver.rules.map((rule) => rule.id),
      ["API_REMOVED"],
    );
    assert.match(result!.tool.driver.rules[0]!.shortDescription.text, /no longer serves/);
    assert.deepEqual(
      result!.results.map((entry) => [
        entry.ruleId,
        entry.level,
        entry.locations?.[0]?.physicalLocation?.region?.startLine,
        entry.locations?.[0]?.physicalLocation?.artifactLocation.uri.endsWith("chart/cron.yaml"),
      ]),
      [
        ["API_REMOVED", "error", 2, true],
        ["API_REMOVED", "error", 9, true],
      ],
    );
  });

  it("scan-cluster writes valid SARIF with logical locations, and other commands refuse --output sarif", async () => {
    const metrics =
      'apiserver_requested_deprecated_apis{group="batch",removed_release="1.25",resource="cronjobs",subresource="",version="v1beta1"} 1\n';
    fs.writeFileSync(path.join(dir, "metrics.txt"), metrics);
    const env = { KUBECOMPAT_URL: listening!.url };
    const run = await kubecompat(
      ["scan-cluster", "--metrics", path.join(dir, "metrics.txt"), "--to", "1.29", "-o", "sarif"],
      { env },
    );
    const log = JSON.parse(run.stdout) as Sarif;
    assert.equal(validate(log), true, JSON.stringify(validate.errors?.slice(0, 5)));
    assert.equal(
      log.runs[0]!.results[0]!.locations?.[0]?.logicalLocations?.[0]?.fullyQualifiedName,
      "batch/v1beta1/cronjobs",
    );
    const refused = await kubecompat(["check", "x.yaml", "-o", "sarif"], { env });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--output sarif is for scan, scan-cluster and fix/);
  });

  it("scan writes a JUnit report (ERRORs as failures) and GitHub annotations at file and line", async () => {
    const env = { KUBECOMPAT_URL: listening!.url };
    const target = path.join(dir, "chart");
    const junit = await kubecompat(["scan", "--to", "1.25", target, "-o", "junit"], { env });
    assert.equal(junit.code, 1, junit.stderr);
    assert.equal(XMLValidator.validate(junit.stdout), true, junit.stdout);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(
      junit.stdout,
    ) as {
      testsuites: {
        failures: string;
        testsuite: {
          name: string;
          testcase: Array<{ line: string; failure?: { type: string; message: string } }>;
        };
      };
    };
    assert.equal(parsed.testsuites.failures, "2");
    assert.ok(parsed.testsuites.testsuite.name.endsWith("chart/cron.yaml"));
    assert.deepEqual(
      parsed.testsuites.testsuite.testcase.map((entry) => [entry.line, entry.failure?.type]),
      [
        ["2", "API_REMOVED"],
        ["9", "API_REMOVED"],
      ],
    );
    assert.match(parsed.testsuites.testsuite.testcase[0]!.failure!.message, /batch\/v1beta1/);
    const github = await kubecompat(["scan", "--to", "1.25", target, "-o", "github"], { env });
    const lines = github.stdout.trim().split("\n");
    assert.equal(lines.length, 2);
    assert.match(
      lines[0]!,
      /^::error file=[^,]*chart\/cron\.yaml,line=2,title=API_REMOVED::.*CronJob/,
    );
    assert.ok(
      lines.every((line) => !line.slice(2).includes("\n")),
      "one command per line",
    );
  });
});
