import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { KbValidationError, formatKbIssue } from "../src/core/errors.js";
import { readKbFiles } from "../src/knowledge/load.js";
import { parseKbFiles } from "../src/knowledge/parse.js";
import { KB_DIR } from "./support/runtime.js";

/** Expects parsing to fail and returns the formatted issues. */
function issuesOf(files: Record<string, string>): string[] {
  try {
    parseKbFiles(files);
  } catch (error) {
    assert.ok(
      error instanceof KbValidationError,
      `expected KbValidationError, got ${String(error)}`,
    );
    return error.issues.map(formatKbIssue);
  }
  assert.fail("the broken bundle was accepted");
}

describe("parsing kb/", () => {
  let files: Record<string, string>;
  before(async () => {
    files = await readKbFiles(KB_DIR);
  });

  it("accepts the reviewed knowledge base", () => {
    const bundle = parseKbFiles(files);
    assert.ok(bundle.apiRemovals.length >= 50);
    assert.ok(bundle.components.some((component) => component.name === "kube-apiserver"));
  });

  it("names file, line, entry, key and field of a bad value", () => {
    const broken = files["ports.yaml"]!.replace("    port: 6443\n", "    port: 70000\n");
    const issues = issuesOf({ ...files, "ports.yaml": broken });
    assert.equal(issues.length, 1, issues.join("\n"));
    const line = broken.split("\n").findIndex((text) => text.includes("port: 70000")) + 1;
    assert.match(
      issues[0]!,
      new RegExp(
        `^ports\\.yaml:${line}: ports\\[\\d+\\] \\(kube-apiserver 70000/TCP CONTROL_PLANE\\): field "port": `,
      ),
    );
  });

  it("rejects a missing source URL and an unknown field (a typo must not drop a fact)", () => {
    const broken = files["api-removals.yaml"]!.replace(
      /(apiVersion: batch\/v1beta1\n(?:.*\n)*?)\s+sourceUrl: .*\n/,
      "$1",
    ).replace("kind: CronJob", 'kind: CronJob\n    removedin: "1.25"');
    const issues = issuesOf({ ...files, "api-removals.yaml": broken });
    assert.ok(
      issues.some((issue) =>
        /batch\/v1beta1 CronJob\): field "sourceUrl": .*primary source/.test(issue),
      ),
      issues.join("\n"),
    );
    assert.ok(
      issues.some((issue) => /batch\/v1beta1 CronJob\).*removedin/.test(issue)),
      issues.join("\n"),
    );
  });

  it("rejects a duplicate natural key", () => {
    const entry = files["releases.yaml"]!.match(/ {2}- version: "1\.30"\n(?: {4}.*\n)+/)?.[0];
    assert.ok(entry, "releases.yaml has 1.30");
    const issues = issuesOf({ ...files, "releases.yaml": `${files["releases.yaml"]}\n${entry}` });
    assert.ok(
      issues.some((issue) =>
        /releases\[\d+\] \(1\.30\): field "\(key\)": duplicates releases\[\d+\]/.test(issue),
      ),
      issues.join("\n"),
    );
  });

  it("rejects per-line floors that leave out minVersion, repeat a line, or belong to another kind", () => {
    const requirements = files["runtime-requirements.yaml"]!;
    const lowest = requirements.replace(
      'lineMinVersions: ["1.7.11", "1.6.27"]',
      'lineMinVersions: ["1.7.11", "1.6.30"]',
    );
    const repeated = requirements.replace(
      'lineMinVersions: ["1.7.11", "1.6.27"]',
      'lineMinVersions: ["1.7.11", "1.7.12", "1.6.27"]',
    );
    const malformed = requirements.replace(
      'lineMinVersions: ["1.7.11", "1.6.27"]',
      'lineMinVersions: ["1.7.11", "one.six"]',
    );
    const kind = requirements.replace(
      /(id: containerd-cri-v1alpha2-removed\n(?: {4}.*\n)*? {4}minVersion: .*\n)/,
      '$1    lineMinVersions: ["1.6.0"]\n',
    );
    assert.notEqual(kind, requirements, "the hard containerd requirement is there to break");
    for (const [broken, message] of [
      [
        lowest,
        /\(containerd-k8s-1-29-recommended\): field "lineMinVersions": must include minVersion as its lowest entry/,
      ],
      [
        repeated,
        /\(containerd-k8s-1-29-recommended\): field "lineMinVersions": must name each release line \(major\.minor\) once/,
      ],
      [
        kind,
        /\(containerd-cri-v1alpha2-removed\): field "lineMinVersions": is only for kind RECOMMENDED_MIN_VERSION/,
      ],
      [
        malformed,
        /\(containerd-k8s-1-29-recommended\): field "lineMinVersions(\[1\]|\.1)": must be a version such as "1\.6\.0"/,
      ],
    ] as const) {
      const issues = issuesOf({ ...files, "runtime-requirements.yaml": broken });
      assert.ok(
        issues.some((issue) => message.test(issue)),
        issues.join("\n"),
      );
    }
  });

  it("rejects references to unknown components and profiles", () => {
    const ports = files["ports.yaml"]!.replace(
      "component: kube-scheduler",
      "component: kube-schedular",
    );
    const rules = files["skew-rules.yaml"]!.replace("profile: strict", "profile: stricter");
    const issues = issuesOf({ ...files, "ports.yaml": ports, "skew-rules.yaml": rules });
    assert.ok(
      issues.some((issue) =>
        /field "component": names unknown component "kube-schedular"/.test(issue),
      ),
      issues.join("\n"),
    );
    assert.ok(
      issues.some((issue) => /field "profile": names unknown profile "stricter"/.test(issue)),
      issues.join("\n"),
    );
  });

  it("rejects an alias that names two components", () => {
    const broken = files["components.yaml"]!.replace(/aliases: \[/, 'aliases: ["KUBELET", ');
    const issues = issuesOf({ ...files, "components.yaml": broken });
    assert.ok(
      issues.some((issue) => /alias "KUBELET" already names kubelet/.test(issue)),
      issues.join("\n"),
    );
  });

  it("rejects skew rules that overlap in time for one profile and component", () => {
    const broken = files["skew-rules.yaml"]!.replace(
      /(id: upstream-kubelet-vs-apiserver-n2\n(?:.*\n)*?\s+appliesUntil: )"1\.27"/,
      '$1"1.28"',
    );
    const issues = issuesOf({ ...files, "skew-rules.yaml": broken });
    assert.ok(
      issues.some((issue) => /upstream-kubelet-vs-apiserver-n3.*overlaps/.test(issue)),
      issues.join("\n"),
    );
  });

  it("reports YAML syntax errors and missing files with their names", () => {
    const { ["links.yaml"]: _removed, ...withoutLinks } = files;
    const issues = issuesOf({
      ...withoutLinks,
      "releases.yaml": 'releases:\n  - version: "1.30\n    broken: [',
    });
    assert.ok(
      issues.some((issue) => /^links\.yaml: is missing/.test(issue)),
      issues.join("\n"),
    );
    assert.ok(
      issues.some((issue) => /^releases\.yaml:\d+: is not valid YAML/.test(issue)),
      issues.join("\n"),
    );
  });

  it("rejects unknown files and unknown top-level keys", () => {
    const issues = issuesOf({
      ...files,
      "extra.yaml": "x: 1",
      "profiles.yaml": `${files["profiles.yaml"]}\nprofile:\n  - x\n`,
    });
    assert.ok(
      issues.some((issue) => /^extra\.yaml: is not a knowledge-base file/.test(issue)),
      issues.join("\n"),
    );
    assert.ok(
      issues.some((issue) =>
        /^profiles\.yaml:\d+: has an unknown top-level key "profile"/.test(issue),
      ),
      issues.join("\n"),
    );
  });

  it("refuses a YAML alias bomb instead of expanding it", () => {
    const levels = ["recommendations:", "  - &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 10; level += 1) {
      const name = String.fromCharCode(97 + level);
      levels.push(
        `  - &${name} [${Array(10)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(", ")}]`,
      );
    }
    const issues = issuesOf({ ...files, "recommendations.yaml": levels.join("\n") });
    assert.deepEqual(
      issues.filter((issue) => issue.startsWith("recommendations.yaml")).length,
      1,
      issues.join("\n"),
    );
    assert.match(
      issues.find((issue) => issue.startsWith("recommendations.yaml"))!,
      /cannot be read: .*alias/i,
    );
  });
});
