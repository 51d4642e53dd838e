/**
 * Long work runs in slices: a large scan gives the event loop back while it runs, so other requests
 * (the liveness probe above all) are answered before it ends. Order, not timing, is asserted: the scan
 * of a few megabytes takes far longer than a probe, whatever the machine.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { inSlices } from "../src/core/slices.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";
import { listen } from "./support/cli-process.js";

function* busy(steps: number, msEach: number): Generator<void, number, void> {
  for (let step = 0; step < steps; step += 1) {
    const until = performance.now() + msEach;
    while (performance.now() < until) {
      // busy: one step of a computation
    }
    yield;
  }
  return steps;
}

describe("work in slices", () => {
  it("gives the event loop back between slices and returns the computation's value", async () => {
    let ranBetween = false;
    setImmediate(() => (ranBetween = true));
    const value = await inSlices(busy(40, 1), 5);
    assert.equal(value, 40);
    assert.ok(ranBetween, "a callback queued before the work ran while it was under way");
    // Without slicing the same callback cannot run until the work is done.
    let ranDuring = false;
    const steps = busy(40, 1);
    setImmediate(() => (ranDuring = true));
    for (let step = steps.next(); step.done !== true; step = steps.next())
      assert.equal(ranDuring, false);
  });

  describe("a large scan over HTTP", () => {
    let runtime: SnapshotRuntime;
    let server: http.Server;
    let url: string;
    before(async () => {
      runtime = await startSnapshotRuntime();
      server = http.createServer(runtime.app);
      url = await listen(server);
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
    });

    it("lets /healthz answer while it runs", async () => {
      const document = (index: number) =>
        `---\n# Source: shop/templates/job-${index}.yaml\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: job-${index}\nspec:\n  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n            - name: job\n              image: busybox:1.36\n`;
      // About 7 MiB: judged in well over a third of a second even on a fast machine (js-yaml alone reads ~25 MB/s).
      const manifests = Array.from({ length: 30_000 }, (_, index) => document(index)).join("");
      let scanDone = false;
      const started = performance.now();
      const scan = fetch(`${url}/api/v1/scan?targetVersion=1.25`, {
        method: "POST",
        headers: { "content-type": "application/yaml" },
        body: manifests,
      }).then(async (response) => {
        const answer = (await response.json()) as { findings?: unknown[]; error?: unknown };
        scanDone = true;
        return [response.status, answer.findings?.length ?? JSON.stringify(answer.error)];
      });
      // Probes 20 ms apart until the scan has answered. Unsliced, judging would hold every probe from the
      // moment it starts until it ends, one gap of most of the scan's time; sliced, no gap is long.
      let last = started;
      let longestGap = 0;
      let probes = 0;
      while (!scanDone) {
        const probe = await fetch(`${url}/healthz`);
        assert.equal(probe.status, 200);
        const now = performance.now();
        if (!scanDone) {
          longestGap = Math.max(longestGap, now - last);
          probes += 1;
        }
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const scanMs = performance.now() - started;
      assert.deepEqual(await scan, [200, 30_000]);
      assert.ok(
        longestGap < scanMs / 3,
        `the longest wait for the probe was ${longestGap.toFixed(0)} ms of the scan's ${scanMs.toFixed(0)} ms (${probes} probes)`,
      );
    });
  });
});
