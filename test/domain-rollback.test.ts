import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { checkRollback } from "../src/domain/rollback.js";
import { InputError } from "../src/core/errors.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kbSnapshot, plan } from "./support/snapshot.js";

describe("checkRollback", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  const cases: Array<
    [string, string, string, string | undefined, string, boolean, string[], string?]
  > = [
    // [name, cluster, component, instance, toVersion, ok, error/warning codes, profile]
    [
      "a pool back one minor while the control plane stays",
      "apiserver=1.29 kubelet@pool-a=1.29",
      "kubelet",
      "pool-a",
      "1.28",
      true,
      [],
    ],
    // The design notes' trap, under their n-1 policy: the control plane moved on to 1.30.
    [
      "the trap: control plane already at 1.30, pool back to 1.28 (strict)",
      "apiserver=1.30 kubelet@pool-a=1.29",
      "kubelet",
      "pool-a",
      "1.28",
      false,
      ["ROLLBACK_TRAP"],
      "strict",
    ],
    [
      "the same rollback is fine upstream (n-3)",
      "apiserver=1.30 kubelet@pool-a=1.29",
      "kubelet",
      "pool-a",
      "1.28",
      true,
      [],
    ],
    [
      "upstream trap: pool back to 1.26 under 1.30",
      "apiserver=1.30 kubelet@pool-a=1.27",
      "kubelet",
      "pool-a",
      "1.26",
      false,
      ["ROLLBACK_TRAP"],
    ],
    [
      "kubelet 1.24 is n-2 only, even under a 1.28 control plane",
      "apiserver=1.28 kubelet@a=1.25",
      "kubelet",
      "a",
      "1.24",
      false,
      ["ROLLBACK_TRAP"],
    ],
    [
      "several minors back",
      "apiserver=1.30 kubelet@a=1.30",
      "kubelet",
      "a",
      "1.28",
      true,
      ["ROLLBACK_MULTIPLE_MINORS"],
    ],
    [
      "the control plane cannot go back a minor",
      "apiserver=1.30 kubelet=1.29",
      "apiserver",
      undefined,
      "1.29",
      false,
      ["ROLLBACK_CONTROL_PLANE_UNSUPPORTED"],
    ],
    [
      "a control-plane patch rollback is fine",
      "apiserver=1.30.5 kubelet=1.29",
      "kube-apiserver",
      undefined,
      "1.30.2",
      true,
      [],
    ],
    [
      "not a downgrade",
      "apiserver=1.30 kubelet@a=1.29",
      "kubelet",
      "a",
      "1.30",
      false,
      ["ROLLBACK_NOT_A_DOWNGRADE"],
    ],
    [
      "a runtime rollback that the kubelet cannot use",
      "apiserver=1.26 kubelet@a=1.26 containerd@a=1.6.9",
      "containerd",
      "a",
      "1.5.18",
      false,
      ["RUNTIME_VERSION_TOO_OLD"],
    ],
    [
      "kube-proxy back to a minor its kubelet does not allow (1.26: same minor)",
      "apiserver=1.26 kubelet@a=1.26 kube-proxy@a=1.26",
      "kube-proxy",
      "a",
      "1.25",
      false,
      ["SKEW_KUBE_PROXY_OLDER_THAN_KUBELET"],
    ],
    // etcd 3.4 reached its own end of life on 2026-06-01 (kb/runtime-releases.yaml): going back to it says so too.
    [
      "etcd across an etcd minor",
      "apiserver=1.30 etcd=3.5.15",
      "etcd",
      undefined,
      "3.4.27",
      true,
      ["ROLLBACK_UNSUPPORTED_ETCD_MINOR", "RUNTIME_END_OF_LIFE"],
    ],
  ];
  for (const [name, cluster, component, instance, toVersion, ok, expected, profile] of cases) {
    it(name, () => {
      const result = checkRollback(snapshot, {
        current: plan(cluster),
        component,
        instance,
        toVersion,
        profile,
        asOf: "2026-11-29",
      });
      assert.equal(result.ok, ok, result.findings.map((finding) => finding.message).join("\n"));
      assert.deepEqual(
        result.findings
          .filter((finding) => finding.severity !== "INFO" && !finding.code.startsWith("RELEASE_"))
          .map((finding) => finding.code)
          .sort(),
        [...expected].sort(),
      );
    });
  }

  it("explains the trap with the control plane's version and cites the rule", () => {
    const result = checkRollback(snapshot, {
      current: plan("apiserver=1.30 kubelet@pool-a=1.29"),
      component: "kubelet",
      instance: "pool-a",
      toVersion: "1.28",
      profile: "strict",
    });
    const trap = result.findings.find((finding) => finding.code === "ROLLBACK_TRAP")!;
    assert.equal(trap.instance, "pool-a");
    assert.equal(trap.ruleId, "strict-kubelet-vs-apiserver-n1");
    assert.match(
      trap.message,
      /rolling kubelet@pool-a back to 1\.28 .* control plane, which runs 1\.30 now/,
    );
  });

  it("needs an instance when the component runs as several", () => {
    assert.throws(
      () =>
        checkRollback(snapshot, {
          current: plan("apiserver=1.30 kubelet@a=1.30 kubelet@b=1.30"),
          component: "kubelet",
          toVersion: "1.29",
        }),
      (error: unknown) =>
        error instanceof InputError &&
        error.field === "instance" &&
        /several instances \(a, b\)/.test(error.message),
    );
    assert.throws(
      () =>
        checkRollback(snapshot, {
          current: plan("apiserver=1.30 kubelet@a=1.30"),
          component: "kubelet",
          instance: "c",
          toVersion: "1.29",
        }),
      (error: unknown) =>
        error instanceof InputError && /no kubelet with instance "c"/.test(error.message),
    );
    assert.throws(
      () =>
        checkRollback(snapshot, {
          current: plan("apiserver=1.30"),
          component: "kubelet",
          toVersion: "1.29",
        }),
      (error: unknown) => error instanceof InputError && error.field === "component",
    );
    assert.throws(
      () =>
        checkRollback(snapshot, {
          current: plan("apiserver=1.30 kubelet=1.30"),
          component: "kubelet",
          toVersion: "yesterday",
        }),
      (error: unknown) => error instanceof InputError && error.field === "toVersion",
    );
  });
});
