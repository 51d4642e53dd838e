/**
 * `kubecompat fix` on a chart's folder, as people keep charts: its templates (and its subcharts') are fixed
 * in place where the template text allows, the rest of the chart untouched, and what it could not fix said.
 * The CLI runs offline (the app over the shipped kb/, on a loopback port); the fixed chart is then rendered
 * with the real helm (no cluster runs here: helm only renders) and scanned.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { scanManifests } from "../src/domain/scan.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kubecompat } from "./support/cli-process.js";
import { renderTools } from "./support/helm-binary.js";
import { kbSnapshot } from "./support/snapshot.js";

const WEBSHOP = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  "fixtures",
  "charts",
  "webshop",
);

let snapshot: KbSnapshot;
let scratch: string;
before(async () => {
  snapshot = await kbSnapshot();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-cli-fix-chart-"));
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function filesOf(folder: string): Map<string, { text: string; mtimeMs: number }> {
  const files = new Map<string, { text: string; mtimeMs: number }>();
  for (const relative of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const full = path.join(folder, relative);
    if (fs.statSync(full).isFile())
      files.set(relative, {
        text: fs.readFileSync(full, "utf8"),
        mtimeMs: fs.statSync(full).mtimeMs,
      });
  }
  return files;
}

function removedKinds(chart: string): string[] {
  const rendered = execFileSync(
    renderTools().helm,
    ["template", "shop", chart, "--kube-version", "1.25.0"],
    {
      encoding: "utf8",
    },
  );
  return scanManifests(snapshot, rendered, "1.25")
    .findings.filter((finding) => finding.code === "API_REMOVED")
    .map((finding) => finding.kind)
    .sort();
}

describe("kubecompat fix on a chart folder", () => {
  it("fixes the templates in place, only the lines that change, and says what it left", async () => {
    const chart = path.join(scratch, "webshop");
    fs.cpSync(WEBSHOP, chart, { recursive: true });
    const before = filesOf(chart);
    const kindsBefore = removedKinds(chart);
    const diff = await kubecompat(["--offline", "fix", "--to", "1.25", chart]);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /templates\/cronjob\.yaml/);
    // Without --write nothing is written.
    for (const [file, { text }] of filesOf(chart)) assert.equal(text, before.get(file)!.text, file);
    const run = await kubecompat(["--offline", "fix", "--to", "1.25", "--write", chart]);
    assert.equal(run.code, 1, run.stderr);
    // PodSecurityPolicy has no replacement: said, and left.
    assert.match(run.stdout, /PodSecurityPolicy/);
    const afterFiles = filesOf(chart);
    const changed = [...afterFiles].filter(([file, { text }]) => text !== before.get(file)!.text);
    assert.deepEqual(
      changed.map(([file]) => file).sort(),
      ["charts/cache/templates/pdb.yaml", "templates/cronjob.yaml", "templates/pdb.yaml"].map(
        (file) => file.split("/").join(path.sep),
      ),
    );
    for (const [file, { text }] of changed) {
      const old = before.get(file)!.text.split("\n");
      const now = text.split("\n");
      assert.equal(now.length, old.length, file);
      const differing = now.filter((line, index) => line !== old[index]);
      assert.deepEqual(
        differing.map((line) => line.replace(/:.*/, "")),
        ["apiVersion"],
        `${file}: only the apiVersion line changes`,
      );
    }
    for (const [file, { mtimeMs }] of afterFiles)
      if (!changed.some(([name]) => name === file))
        assert.equal(mtimeMs, before.get(file)!.mtimeMs, file);
    const kindsAfter = removedKinds(chart);
    assert.ok(
      !kindsAfter.includes("CronJob") && !kindsAfter.includes("PodDisruptionBudget"),
      kindsAfter.join(),
    );
    assert.ok(kindsAfter.length < kindsBefore.length);
  });

  it("refuses a packaged chart, which it could not write back", async () => {
    const packaged = path.join(scratch, "webshop-1.0.0.tgz");
    fs.writeFileSync(packaged, "");
    const run = await kubecompat(["--offline", "fix", "--to", "1.25", packaged]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /packaged chart.*unpack it/);
  });
});
