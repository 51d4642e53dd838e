/**
 * `kubecompat scan --to V DIR` on a kustomization (issue 40, part 3): the overlay is built with the real
 * kubectl and each finding is shown at the base or overlay file that holds the object, at the line of its
 * apiVersion there (computed here from the fixture's text), though the built object is renamed
 * (namePrefix) and moved to another namespace.
 *
 * No cluster runs here: kubectl only builds (`kubectl kustomize`), the kubectl v1.35.2 of
 * test/support/helm-binary.ts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { kubecompat } from "./support/cli-process.js";
import { renderTools } from "./support/helm-binary.js";
import { REPO_ROOT, startListeningRuntime } from "./support/runtime.js";

const FIXTURE = "test/fixtures/kustomize";

function lineOf(file: string, text: string): number {
  const index = fs.readFileSync(path.join(REPO_ROOT, file), "utf8").split("\n").indexOf(text);
  assert.ok(index >= 0, `${file} has "${text}"`);
  return index + 1;
}

describe("kubecompat scan of a kustomization", () => {
  let listening: { url: string; close(): Promise<void> };
  let url: string;
  before(async () => {
    listening = await startListeningRuntime({ inMemory: true });
    url = listening.url;
  });
  after(() => listening.close());

  it("builds the overlay with kubectl and places each finding in its base or overlay file", async () => {
    const run = await kubecompat([
      "scan",
      "--server",
      url,
      "--to",
      "1.29",
      "--kubectl",
      renderTools().kubectl,
      "-o",
      "github",
      `${FIXTURE}/overlays/prod`,
    ]);
    assert.equal(run.code, 1, run.stderr);
    const places = run.stdout
      .split("\n")
      .filter((line) => line.startsWith("::error"))
      .map((line) => /file=([^,]+),line=(\d+)/.exec(line)!.slice(1).join(":"))
      .sort();
    const cronjob = `${FIXTURE}/base/cronjob.yaml`;
    const pdb = `${FIXTURE}/overlays/prod/pdb.yaml`;
    assert.deepEqual(places, [
      `${cronjob}:${lineOf(cronjob, "apiVersion: batch/v1beta1")}`,
      `${pdb}:${lineOf(pdb, "apiVersion: policy/v1beta1")}`,
    ]);
  });

  it("without kubectl: a clear message, exit 2", async () => {
    const run = await kubecompat([
      "scan",
      "--server",
      url,
      "--to",
      "1.29",
      "--kubectl",
      path.join(REPO_ROOT, "no-such-kubectl"),
      `${FIXTURE}/base`,
    ]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /is a kustomization, and building it needs kubectl/);
  });
});
