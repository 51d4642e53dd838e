/**
 * Control-plane rollbacks over generated clusters (test/support/cluster-generators.ts: every platform, profile,
 * day, HA control planes, vendor versions), going back one or two minors, with or without the day of the upgrade
 * (upgradedOn, before, on or after the day judged). Properties, whatever the cluster:
 * - on a platform whose policy takes control planes back (kb/rollback-policies.yaml PLATFORM_ROLLBACK), the answer
 *   is exactly one of: refused beyond its minors, window not judged (no upgradedOn), window closed, available until
 *   the day the window closes; elsewhere the minor downgrade is refused, never offered;
 * - an upgrade day after the day judged is an input error naming upgradedOn;
 * - REST answers as the domain does (every fourth run, over real HTTP).
 * The generators must reach every outcome (a rule never reached proves nothing).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import request from "supertest";
import { InputError } from "../src/core/errors.js";
import { today } from "../src/domain/days.js";
import { checkRollback } from "../src/domain/rollback.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import {
  PROPERTY_SEED,
  clusterQuestion,
  platformOf,
  propertyRuns,
} from "./support/cluster-generators.js";
import { kbSnapshot } from "./support/snapshot.js";
import { startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

describe("control-plane rollbacks over generated clusters", () => {
  let snapshot: KbSnapshot;
  let runtime: SnapshotRuntime;
  before(async () => {
    snapshot = await kbSnapshot();
    runtime = await startSnapshotRuntime();
  });
  after(async () => runtime.close());

  it("answer by the platform's policy, on every platform, and alike on REST", async () => {
    const reached = new Map<string, number>();
    const reach = (what: string) => reached.set(what, (reached.get(what) ?? 0) + 1);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        clusterQuestion(snapshot),
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: -12, max: 2 }),
        fc.boolean(),
        async (question, back, offset, giveDay) => {
          run += 1;
          const apiserver = question.components.find(
            (entry) => entry.component === "kube-apiserver",
          )!;
          const match = /^v?1\.(\d+)/.exec(apiserver.version.trim());
          if (match === null) return;
          const toVersion = `1.${Number(match[1]) - back}.1`;
          const asOf = question.asOf ?? today();
          const upgradedOn = giveDay ? addDays(asOf, offset) : undefined;
          const ask = {
            current: question.components,
            component: "kube-apiserver",
            instance: apiserver.instance ?? null,
            toVersion,
            profile: question.profile,
            asOf: question.asOf,
            platform: question.platform,
            upgradedOn,
          };
          let result;
          try {
            result = checkRollback(snapshot, ask);
          } catch (error) {
            if (!(error instanceof InputError)) throw error;
            // Only an upgrade day after the day judged is refused for the day; other input errors are the cluster's (versions beyond the knowledge).
            if (error.field === "upgradedOn") {
              assert.ok(giveDay && offset > 0, error.message);
              reach("upgradedOn refused");
            }
            return;
          }
          if (
            giveDay &&
            offset > 0 &&
            result.findings.some(
              (finding) =>
                finding.code === "PLATFORM_ROLLBACK_AVAILABLE" ||
                finding.code === "ROLLBACK_WINDOW_CLOSED",
            )
          ) {
            assert.fail(`an upgrade day after ${asOf} was judged: ${JSON.stringify(ask)}`);
          }
          const codes = result.findings.map((finding) => finding.code);
          const platform = platformOf(snapshot, question);
          const policy = snapshot.rollbackPolicy(
            { name: "kube-apiserver", category: "apiserver" },
            platform === "upstream" ? null : (platform ?? null),
            `1.${match[1]}`,
          );
          const outcomes = [
            "ROLLBACK_CONTROL_PLANE_UNSUPPORTED",
            "ROLLBACK_WINDOW_UNKNOWN",
            "ROLLBACK_WINDOW_CLOSED",
            "PLATFORM_ROLLBACK_AVAILABLE",
          ].filter((code) => (codes as readonly string[]).includes(code));
          const why = `${JSON.stringify(ask)}\n${result.findings.map((finding) => `${finding.severity} ${finding.code}: ${finding.message}`).join("\n")}`;
          if (policy?.minorDowngrade === "PLATFORM_ROLLBACK") {
            const expected =
              back > policy.maxMinorsBack
                ? "ROLLBACK_CONTROL_PLANE_UNSUPPORTED"
                : upgradedOn === undefined || policy.windowDays === null
                  ? "ROLLBACK_WINDOW_UNKNOWN"
                  : asOf > addDays(upgradedOn, policy.windowDays)
                    ? "ROLLBACK_WINDOW_CLOSED"
                    : "PLATFORM_ROLLBACK_AVAILABLE";
            assert.deepEqual(outcomes, [expected], why);
            if (expected === "PLATFORM_ROLLBACK_AVAILABLE")
              assert.ok(
                result.findings
                  .find((finding) => finding.code === expected)!
                  .message.includes(`until ${addDays(upgradedOn!, policy.windowDays!)}`),
                why,
              );
            if (
              expected === "ROLLBACK_WINDOW_CLOSED" ||
              expected === "ROLLBACK_CONTROL_PLANE_UNSUPPORTED"
            )
              assert.equal(result.ok, false, why);
            reach(`${platform} ${expected}`);
          } else {
            assert.deepEqual(outcomes, ["ROLLBACK_CONTROL_PLANE_UNSUPPORTED"], why);
            assert.equal(result.ok, false, why);
            reach(`${platform ?? "upstream"} refused`);
          }
          if (run % 4 === 0) {
            const rest = await request(runtime.app)
              .post("/api/v1/rollback-check")
              .send({
                ...ask,
                current: { components: question.components },
                ...(ask.profile === undefined ? {} : { profile: ask.profile }),
              })
              .expect(200);
            assert.deepEqual(
              rest.body.findings.map(
                (finding: { code: string; message: string }) =>
                  `${finding.code}: ${finding.message}`,
              ),
              result.findings.map((finding) => `${finding.code}: ${finding.message}`),
              why,
            );
            reach("REST");
          }
        },
      ),
      { numRuns: propertyRuns(160), seed: PROPERTY_SEED },
    );
    for (const what of [
      "eks ROLLBACK_CONTROL_PLANE_UNSUPPORTED",
      "eks ROLLBACK_WINDOW_UNKNOWN",
      "eks ROLLBACK_WINDOW_CLOSED",
      "eks PLATFORM_ROLLBACK_AVAILABLE",
      "gke ROLLBACK_WINDOW_UNKNOWN",
      "gke ROLLBACK_CONTROL_PLANE_UNSUPPORTED",
      "aks refused",
      "gke refused",
      "upstream refused",
      "upgradedOn refused",
      "REST",
    ]) {
      assert.ok(
        (reached.get(what) ?? 0) > 0,
        `the generators never reached ${what}: ${JSON.stringify([...reached])}`,
      );
    }
  });
});
