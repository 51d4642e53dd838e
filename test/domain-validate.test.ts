import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { today, validateCluster } from "../src/domain/validate.js";
import { InputError } from "../src/core/errors.js";
import type { KbSnapshot } from "../src/knowledge/snapshot.js";
import { kbSnapshot, plan } from "./support/snapshot.js";
import { syntheticSnapshot } from "./support/synthetic-kb.js";

const AS_OF = "2026-11-29";

/** Codes of ERROR and WARNING findings, sorted, EOL notices left out unless asked for. */
function codes(
  snapshot: KbSnapshot,
  text: string,
  options: { profile?: string; asOf?: string; keepDates?: boolean } = {},
): string[] {
  const result = validateCluster(snapshot, plan(text), {
    profile: options.profile,
    asOf: options.asOf ?? AS_OF,
  });
  assert.equal(result.ok, !result.findings.some((finding) => finding.severity === "ERROR"));
  return result.findings
    .filter((finding) => finding.severity !== "INFO")
    .filter(
      (finding) =>
        options.keepDates || (!finding.code.startsWith("RELEASE_") && finding.check !== "PLATFORM"),
    )
    .map(
      (finding) =>
        `${finding.severity} ${finding.code}${finding.instance ? `@${finding.instance}` : ""}`,
    )
    .sort();
}

describe("validateCluster: skew rules and their version boundaries", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  const cases: Array<[string, string, string[], string?]> = [
    // kubelet: n-2 before 1.28, n-3 from 1.28, kubelets older than 1.25 only n-2
    ["kubelet two behind a 1.27 control plane", "apiserver=1.27 kubelet=1.25", []],
    [
      "kubelet three behind a 1.27 control plane (n-2 era)",
      "apiserver=1.27 kubelet=1.24",
      ["ERROR SKEW_KUBELET_TOO_OLD_FOR_APISERVER"],
    ],
    ["kubelet three behind a 1.28 control plane (n-3 era)", "apiserver=1.28 kubelet=1.25", []],
    [
      "kubelet 1.24 under 1.27 is n-3 but older than 1.25",
      "apiserver=1.27.3 kubelet=1.24.9",
      ["ERROR SKEW_KUBELET_TOO_OLD_FOR_APISERVER"],
    ],
    ["kubelet 1.24 under 1.26 is n-2", "apiserver=1.26 kubelet=1.24", []],
    [
      "kubelet 1.25 under 1.29 is n-4",
      "apiserver=1.29 kubelet=1.25",
      ["ERROR SKEW_KUBELET_TOO_OLD_FOR_APISERVER"],
    ],
    ["kubelet 1.27 under 1.30 is n-3", "apiserver=1.30 kubelet=1.27", []],
    [
      "kubelet newer than kube-apiserver",
      "apiserver=1.29 kubelet=1.30",
      ["ERROR SKEW_KUBELET_NEWER_THAN_APISERVER"],
    ],
    [
      "kubelet vendor build at the apiserver's minor",
      "apiserver=v1.29.3-eks-1234 kubelet=v1.29.1-eks-99",
      [],
    ],
    // kubeadm deploys control planes at its own minor or one older (kubeadm's page, not the skew policy page)
    [
      "kubeadm one minor newer than the control plane it upgrades",
      "apiserver=1.30 kubeadm=1.31",
      [],
    ],
    ["kubeadm at the control plane's minor", "apiserver=1.30 kubeadm=1.30", []],
    [
      "kubeadm two minors newer",
      "apiserver=1.30 kubeadm=1.32",
      ["WARNING SKEW_KUBEADM_NEWER_THAN_APISERVER"],
    ],
    [
      "kubeadm older than the control plane",
      "apiserver=1.30 kubeadm=1.29",
      ["WARNING SKEW_KUBEADM_TOO_OLD_FOR_APISERVER"],
    ],
    // HA control plane
    ["HA apiservers one minor apart", "apiserver@cp-1=1.30 apiserver@cp-2=1.29", []],
    [
      "HA apiservers two minors apart",
      "apiserver@cp-1=1.30 apiserver@cp-2=1.28",
      ["ERROR SKEW_APISERVER_HA_SPREAD@cp-2"],
    ],
    [
      "kubelet may not be newer than the oldest apiserver",
      "apiserver@cp-1=1.30 apiserver@cp-2=1.29 kubelet=1.30",
      ["ERROR SKEW_KUBELET_NEWER_THAN_APISERVER"],
    ],
    [
      "kubelet n-3 is measured from the newest apiserver",
      "apiserver@cp-1=1.30 apiserver@cp-2=1.29 kubelet=1.27",
      [],
    ],
    [
      "kubelet n-4 from the newest apiserver",
      "apiserver@cp-1=1.30 apiserver@cp-2=1.29 kubelet=1.26",
      ["ERROR SKEW_KUBELET_TOO_OLD_FOR_APISERVER"],
    ],
    // controllers: not newer than the oldest, at most one older than the newest
    ["controller-manager one behind", "apiserver=1.30 kcm=1.29 scheduler=1.30 ccm=1.29", []],
    [
      "controller-manager two behind",
      "apiserver=1.30 kcm=1.28",
      ["ERROR SKEW_KUBE_CONTROLLER_MANAGER_TOO_OLD_FOR_APISERVER"],
    ],
    [
      "scheduler newer than the oldest apiserver (HA narrowing)",
      "apiserver@cp-1=1.30 apiserver@cp-2=1.29 scheduler=1.30",
      ["ERROR SKEW_KUBE_SCHEDULER_NEWER_THAN_APISERVER"],
    ],
    [
      "cloud-controller-manager one behind the newest apiserver in HA",
      "apiserver@cp-1=1.30 apiserver@cp-2=1.29 ccm=1.29",
      [],
    ],
    [
      "controller-manager two behind the newest apiserver in HA",
      "apiserver@cp-1=1.30 apiserver@cp-2=1.29 kcm=1.28",
      ["ERROR SKEW_KUBE_CONTROLLER_MANAGER_TOO_OLD_FOR_APISERVER"],
    ],
    // kubectl: within one minor either way, a warning (the client, not the cluster, is affected)
    ["kubectl one newer", "apiserver=1.30 kubectl=1.31", []],
    [
      "kubectl two newer",
      "apiserver=1.30 kubectl=1.32",
      ["WARNING SKEW_KUBECTL_NEWER_THAN_APISERVER"],
    ],
    [
      "kubectl two older",
      "apiserver=1.30 kubectl=1.28",
      ["WARNING SKEW_KUBECTL_TOO_OLD_FOR_APISERVER"],
    ],
    // kube-proxy vs apiserver and vs its kubelet
    ["kube-proxy n-3 at 1.28", "apiserver=1.28 kubelet@a=1.28 kube-proxy@a=1.25", []],
    [
      "kube-proxy must match its kubelet's minor until 1.26",
      "apiserver=1.26 kubelet@a=1.26 kube-proxy@a=1.25",
      ["ERROR SKEW_KUBE_PROXY_OLDER_THAN_KUBELET@a"],
    ],
    [
      "kube-proxy within two of its kubelet in 1.27",
      "apiserver=1.27 kubelet@a=1.27 kube-proxy@a=1.25",
      [],
    ],
    [
      "kube-proxy newer than its kubelet in 1.26",
      "apiserver=1.26 kubelet@a=1.25 kube-proxy@a=1.26",
      ["ERROR SKEW_KUBE_PROXY_NEWER_THAN_KUBELET@a"],
    ],
    [
      "kube-proxy three older than its kubelet at 1.30",
      "apiserver=1.30 kubelet@a=1.30 kube-proxy@a=1.27",
      [],
    ],
    [
      "kube-proxy 1.24 three older than its kubelet at 1.28",
      "apiserver=1.28 kubelet@a=1.27 kube-proxy@a=1.24",
      [
        "ERROR SKEW_KUBE_PROXY_OLDER_THAN_KUBELET@a",
        "ERROR SKEW_KUBE_PROXY_TOO_OLD_FOR_APISERVER@a",
      ],
    ],
    [
      "pools are judged separately",
      "apiserver=1.30 kubelet@pool-a=1.29 kubelet@pool-b=1.26",
      ["ERROR SKEW_KUBELET_TOO_OLD_FOR_APISERVER@pool-b"],
    ],
    // strict profile: the design notes' n-1 on top of upstream
    ["strict allows kubelet n-1", "apiserver=1.30 kubelet=1.29", [], "strict"],
    [
      "strict refuses kubelet n-2",
      "apiserver=1.30 kubelet=1.28",
      ["ERROR SKEW_KUBELET_TOO_OLD_FOR_APISERVER"],
      "strict",
    ],
    [
      "strict refuses kube-proxy n-2",
      "apiserver=1.30 kube-proxy=1.28",
      ["ERROR SKEW_KUBE_PROXY_TOO_OLD_FOR_APISERVER"],
      "strict",
    ],
    [
      "strict keeps upstream's newer-than rule",
      "apiserver=1.30 kubelet=1.31",
      ["ERROR SKEW_KUBELET_NEWER_THAN_APISERVER"],
      "strict",
    ],
  ];
  for (const [name, text, expected, profile] of cases) {
    it(name, () => assert.deepEqual(codes(snapshot, text, { profile }), [...expected].sort()));
  }

  it("cites the rule and its source in every skew finding", () => {
    const result = validateCluster(snapshot, plan("apiserver=1.30 kubelet@pool-b=1.26"), {
      asOf: AS_OF,
    });
    const skew = result.findings.find(
      (finding) => finding.code === "SKEW_KUBELET_TOO_OLD_FOR_APISERVER",
    );
    assert.equal(skew?.ruleId, "upstream-kubelet-vs-apiserver-n3");
    assert.equal(skew?.sourceUrl, "https://kubernetes.io/releases/version-skew-policy/#kubelet");
    assert.equal(skew?.instance, "pool-b");
    assert.match(
      skew?.message ?? "",
      /kubelet@pool-b 1\.26 is 4 minors older .* allows at most 3\. Upgrade kubelet@pool-b to at least 1\.27/,
    );
  });
});

describe("validateCluster: runtimes, releases and input", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await kbSnapshot();
  });

  const cases: Array<[string, string, string[]]> = [
    [
      "Docker Engine alone under kubelet 1.23 is being deprecated",
      "apiserver=1.23 kubelet=1.23 docker-engine=20.10.7",
      ["WARNING RUNTIME_SUPPORT_ENDING"],
    ],
    [
      "Docker Engine alone under kubelet 1.24",
      "apiserver=1.24 kubelet=1.24 docker=20.10.7",
      ["ERROR RUNTIME_DOCKERSHIM_REMOVED"],
    ],
    [
      "Docker Engine with cri-dockerd under 1.24",
      "apiserver=1.24 kubelet=1.24 docker=20.10.7 cri-dockerd=0.3.1",
      [],
    ],
    ["containerd 1.5 under kubelet 1.25", "apiserver=1.25 kubelet=1.25 containerd=1.5.18", []],
    [
      "containerd 1.5 under kubelet 1.26 (CRI v1alpha2 gone)",
      "apiserver=1.26 kubelet=1.26 containerd=1.5.18",
      ["ERROR RUNTIME_VERSION_TOO_OLD"],
    ],
    // containerd's own table (recommended floors per release line) is judged on the synthetic kb below.
    ["CRI-O at the kubelet's minor", "apiserver=1.30 kubelet=1.30 cri-o=1.30.4", []],
    [
      "CRI-O a minor behind its kubelet",
      "apiserver=1.30 kubelet=1.30 crio=1.29.6",
      ["WARNING RUNTIME_MINOR_MISMATCH"],
    ],
    [
      "versions newer than the knowledge base",
      "apiserver=1.99 kubelet=1.99",
      ["WARNING KNOWLEDGE_EDGE", "WARNING VERSION_UNKNOWN_NEWER", "WARNING VERSION_UNKNOWN_NEWER"],
    ],
    ["pre-releases", "apiserver=1.30.0-rc.1 kubelet=1.30", ["WARNING VERSION_PRERELEASE"]],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () =>
      assert.deepEqual(
        codes(snapshot, text, { asOf: "2024-06-01" }).filter((code) => !code.includes("RELEASE_")),
        [...expected].sort(),
      ),
    );
  }

  it("flags releases past end of life on asOf, and not before", () => {
    const release = snapshot.findRelease("1.27")!;
    const dayAfter = new Date(`${release.endOfLife}T00:00:00Z`);
    dayAfter.setUTCDate(dayAfter.getUTCDate() + 1);
    const after = dayAfter.toISOString().slice(0, 10);
    assert.deepEqual(
      codes(snapshot, "apiserver=1.27 kubelet=1.27", { asOf: release.endOfLife!, keepDates: true }),
      [],
    );
    const late = validateCluster(snapshot, plan("apiserver=1.27 kubelet=1.27"), { asOf: after });
    const eol = late.findings.filter((finding) => finding.code === "RELEASE_END_OF_LIFE");
    assert.equal(eol.length, 1, "one finding for the minor, naming both components");
    assert.match(
      eol[0]!.message,
      new RegExp(`1\\.27 reached end of life on ${release.endOfLife}.*kube-apiserver, kubelet`),
    );
    assert.equal(late.ok, true, "end of life is a warning");
    const maintenance = validateCluster(snapshot, plan("apiserver=1.27"), {
      asOf: release.endOfStandardSupport! < release.endOfLife! ? release.endOfLife! : after,
    });
    assert.ok(
      maintenance.findings.some(
        (finding) =>
          finding.code === "RELEASE_MAINTENANCE_MODE" || finding.code === "RELEASE_END_OF_LIFE",
      ),
    );
  });

  it("reports a plan without kube-apiserver as not checked against the control plane", () => {
    const result = validateCluster(snapshot, plan("kubelet=1.30"), { asOf: AS_OF });
    assert.ok(
      result.findings.some(
        (finding) => finding.code === "NO_APISERVER_IN_PLAN" && finding.severity === "INFO",
      ),
    );
  });

  const badInputs: Array<[string, unknown, Record<string, string>, RegExp, string]> = [
    [
      "unknown component",
      plan("apiserver=1.30 kube-flux=1.0"),
      {},
      /unknown component "kube-flux"; valid names are kube-apiserver, etcd/,
      "components[1].component",
    ],
    [
      "unparseable version",
      plan("apiserver=newest"),
      {},
      /components\[0\]\.version "newest" is not a Kubernetes version/,
      "components[0].version",
    ],
    [
      "unknown profile",
      plan("apiserver=1.30"),
      { profile: "lenient" },
      /unknown profile "lenient"/,
      "profile",
    ],
    [
      "bad asOf",
      plan("apiserver=1.30"),
      { asOf: "next tuesday" },
      /asOf "next tuesday" is not a date/,
      "asOf",
    ],
    ["impossible asOf", plan("apiserver=1.30"), { asOf: "2026-02-30" }, /is not a date/, "asOf"],
    [
      "duplicate instance",
      plan("kubelet@a=1.30 kubelet@a=1.29"),
      {},
      /components\[1\] repeats kubelet@a from components\[0\]/,
      "components[1].instance",
    ],
    ["empty plan", [], {}, /components is empty/, "components"],
    ["not a list", { component: "kubelet" }, {}, /must be a list/, "components"],
    [
      "bad instance",
      [{ component: "kubelet", version: "1.30", instance: "a b\u0000" }],
      {},
      /is not a valid instance name/,
      "components[0].instance",
    ],
    [
      "runtime version",
      plan("containerd=one"),
      {},
      /components\[0\]\.version "one" is not a version/,
      "components[0].version",
    ],
    [
      "too many components",
      Array.from({ length: 1001 }, (_, index) => ({
        component: "kubelet",
        version: "1.30",
        instance: `n${index}`,
      })),
      {},
      /at most 1000/,
      "components",
    ],
  ];
  for (const [name, input, options, message, field] of badInputs) {
    it(`rejects ${name} with an InputError naming ${field}`, () => {
      assert.throws(
        () => validateCluster(snapshot, input, options),
        (error: unknown) =>
          error instanceof InputError && error.field === field && message.test(error.message),
      );
    });
  }
});

// The rules of a runtime's table, on the synthetic kb (test/fixtures/kb-synthetic): containerd must be
// 3.0.0+ from 1.51; the table lists 3.2.4+ and 3.1.9+ for 1.52, 3.3.0+ and 3.2.6+ for 1.53; from 1.53
// the kubelet's support for containerd 3.x is ending. Real rows change as containerd publishes them.
describe("validateCluster: a runtime's table of release lines (synthetic kb)", () => {
  let snapshot: KbSnapshot;
  before(async () => {
    snapshot = await syntheticSnapshot();
  });

  const cases: Array<[string, string, string[]]> = [
    ["below the hard floor before it applies", "apiserver=1.50 kubelet=1.50 containerd=2.9.0", []],
    [
      "below the hard floor once it applies (ERROR)",
      "apiserver=1.51 kubelet=1.51 containerd=2.9.0",
      ["ERROR RUNTIME_VERSION_TOO_OLD"],
    ],
    ["at the hard floor", "apiserver=1.51 kubelet=1.51 containerd=3.0.0", []],
    [
      "a listed line below its floor",
      "apiserver=1.52 kubelet=1.52 containerd=3.1.8",
      ["WARNING RUNTIME_BELOW_RECOMMENDED"],
    ],
    ["a listed line at its floor", "apiserver=1.52 kubelet=1.52 containerd=3.1.9", []],
    // Each listed line has its own floor: 3.2.3 is newer than the 3.1 line's 3.1.9 but below the 3.2 line's 3.2.4.
    [
      "a newer listed line below its own floor",
      "apiserver=1.52 kubelet=1.52 containerd=3.2.3",
      ["WARNING RUNTIME_BELOW_RECOMMENDED"],
    ],
    ["a newer listed line at its own floor", "apiserver=1.52 kubelet=1.52 containerd=3.2.4", []],
    ["a line newer than the table lists", "apiserver=1.52 kubelet=1.52 containerd=3.4.0", []],
    [
      "a line older than the table lists, above the hard floor",
      "apiserver=1.52 kubelet=1.52 containerd=3.0.5",
      ["WARNING RUNTIME_BELOW_RECOMMENDED"],
    ],
    [
      "a line the next minor's row no longer lists",
      "apiserver=1.53 kubelet=1.53 containerd=3.1.9",
      ["WARNING RUNTIME_BELOW_RECOMMENDED", "WARNING RUNTIME_SUPPORT_ENDING"],
    ],
    [
      "at the next row's floor, while support for the major is ending",
      "apiserver=1.53 kubelet=1.53 containerd=3.2.6",
      ["WARNING RUNTIME_SUPPORT_ENDING"],
    ],
    [
      "below the next row's floor, while support for the major is ending",
      "apiserver=1.53 kubelet=1.53 containerd=3.2.5",
      ["WARNING RUNTIME_BELOW_RECOMMENDED", "WARNING RUNTIME_SUPPORT_ENDING"],
    ],
    [
      "the next major, whose support is not ending",
      "apiserver=1.53 kubelet=1.53 containerd=4.0.0",
      [],
    ],
    [
      "runtimes pair with their pool's kubelet",
      "apiserver=1.52 kubelet@a=1.52 containerd@a=3.1.5 kubelet@b=1.51 containerd@b=3.1.5",
      ["WARNING RUNTIME_BELOW_RECOMMENDED@a"],
    ],
    [
      "a pool's old runtime fails only that pool",
      "apiserver=1.52 kubelet@a=1.52 containerd@a=2.9.0 kubelet@b=1.51 containerd@b=3.0.0",
      ["ERROR RUNTIME_VERSION_TOO_OLD@a"],
    ],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () =>
      assert.deepEqual(
        codes(snapshot, text, { asOf: "2032-05-15" }).filter((code) => !code.includes("RELEASE_")),
        [...expected].sort(),
      ),
    );
  }

  it("cites the row it judged by", () => {
    const result = validateCluster(snapshot, plan("apiserver=1.52 kubelet=1.52 containerd=3.2.3"), {
      asOf: "2032-01-15",
    });
    const below = result.findings.find((finding) => finding.code === "RUNTIME_BELOW_RECOMMENDED");
    assert.equal(below?.ruleId, "synthetic-containerd-table-1-52");
    assert.equal(below?.sourceUrl, "https://example.org/kb-synthetic/runtimes");
  });
});

describe("today", () => {
  it("is the UTC date, and turns over at midnight UTC (and back, if the clock is set back)", (context) => {
    context.mock.timers.enable({ apis: ["Date"], now: Date.parse("2026-03-01T23:59:59.500Z") });
    assert.equal(today(), "2026-03-01");
    context.mock.timers.tick(400);
    assert.equal(today(), "2026-03-01");
    context.mock.timers.tick(200);
    assert.equal(today(), "2026-03-02");
    context.mock.timers.setTime(Date.parse("2025-12-31T12:00:00Z"));
    assert.equal(today(), "2025-12-31");
  });
});
