import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InputError } from "../src/core/errors.js";
import {
  compareMinors,
  compareVersions,
  formatVersion,
  minorDistance,
  parseKubernetesVersion,
  parseMinor,
} from "../src/core/versions.js";

describe("parseKubernetesVersion", () => {
  const valid: Array<
    [
      string,
      {
        minor: string;
        patch: number | null;
        prerelease: string | null;
        vendorSuffix: string | null;
        text: string;
      },
    ]
  > = [
    ["1.29", { minor: "1.29", patch: null, prerelease: null, vendorSuffix: null, text: "1.29" }],
    ["v1.29", { minor: "1.29", patch: null, prerelease: null, vendorSuffix: null, text: "1.29" }],
    ["V1.9", { minor: "1.9", patch: null, prerelease: null, vendorSuffix: null, text: "1.9" }],
    ["v1.29.3", { minor: "1.29", patch: 3, prerelease: null, vendorSuffix: null, text: "1.29.3" }],
    [
      "  1.30.0  ",
      { minor: "1.30", patch: 0, prerelease: null, vendorSuffix: null, text: "1.30.0" },
    ],
    [
      "1.30.0-rc.1",
      { minor: "1.30", patch: 0, prerelease: "rc.1", vendorSuffix: null, text: "1.30.0-rc.1" },
    ],
    [
      "v1.31.0-alpha.3",
      {
        minor: "1.31",
        patch: 0,
        prerelease: "alpha.3",
        vendorSuffix: null,
        text: "1.31.0-alpha.3",
      },
    ],
    [
      "v1.29.3-eks-1234",
      {
        minor: "1.29",
        patch: 3,
        prerelease: null,
        vendorSuffix: "eks-1234",
        text: "1.29.3-eks-1234",
      },
    ],
    [
      "v1.29.3-eks-a1b2c3d",
      {
        minor: "1.29",
        patch: 3,
        prerelease: null,
        vendorSuffix: "eks-a1b2c3d",
        text: "1.29.3-eks-a1b2c3d",
      },
    ],
    [
      "1.29.3-gke.1200",
      {
        minor: "1.29",
        patch: 3,
        prerelease: null,
        vendorSuffix: "gke.1200",
        text: "1.29.3-gke.1200",
      },
    ],
    [
      "v1.28.5+k3s1",
      { minor: "1.28", patch: 5, prerelease: null, vendorSuffix: "k3s1", text: "1.28.5-k3s1" },
    ],
    ["1.10.0", { minor: "1.10", patch: 0, prerelease: null, vendorSuffix: null, text: "1.10.0" }],
  ];
  for (const [input, expected] of valid) {
    it(`parses ${JSON.stringify(input)}`, () => {
      const version = parseKubernetesVersion(input);
      assert.equal(`${version.major}.${version.minor}`, expected.minor);
      assert.equal(version.patch, expected.patch);
      assert.equal(version.prerelease, expected.prerelease);
      assert.equal(version.vendorSuffix, expected.vendorSuffix);
      assert.equal(formatVersion(version), expected.text);
    });
  }

  const invalid: Array<[unknown, RegExp]> = [
    ["", /is empty/],
    ["   ", /is empty/],
    ["1", /is not a Kubernetes version/],
    ["one.two", /is not a Kubernetes version/],
    ["1.29.3.4", /is not a Kubernetes version/],
    ["1.-1", /is not a Kubernetes version/],
    ["01.29", /is not a Kubernetes version/],
    ["1.29-rc.1", /has a suffix but no patch/],
    ["1.29.3 ; DROP TABLE x", /is not a Kubernetes version/],
    ["1.29.3\u0000", /is not a Kubernetes version/],
    ["v".repeat(65), /longer than 64/],
    [129, /must be a string/],
    [null, /must be a string/],
  ];
  for (const [input, message] of invalid) {
    it(`rejects ${JSON.stringify(input)?.slice(0, 30)} with an InputError`, () => {
      assert.throws(
        () => parseKubernetesVersion(input, "targetVersion"),
        (error: unknown) =>
          error instanceof InputError &&
          error.field === "targetVersion" &&
          message.test(error.message),
      );
    });
  }
});

describe("ordering", () => {
  const ordered: Array<[string, string, -1 | 0 | 1]> = [
    ["1.9", "1.10", -1],
    ["1.29.3", "1.29.10", -1],
    ["1.30.0-rc.1", "1.30.0", -1],
    ["1.30.0-alpha.1", "1.30.0-beta.0", -1],
    ["v1.29.3-eks-1234", "1.29.3", 0],
    ["1.29", "1.29.0", 0],
    ["1.30.1", "1.29.9", 1],
  ];
  for (const [a, b, expected] of ordered) {
    it(`compares ${a} with ${b} as ${expected}`, () => {
      assert.equal(compareVersions(a, b), expected);
      assert.equal(compareVersions(b, a), -expected === 0 ? 0 : -expected);
    });
  }

  it("measures distances in minors", () => {
    assert.equal(minorDistance("1.30.2", "1.27"), 3);
    assert.equal(minorDistance("1.25", "1.28.1"), -3);
    assert.equal(minorDistance("v1.29.3-eks-1", "1.29"), 0);
    assert.equal(compareMinors("1.9", "1.10"), -1);
  });

  it("reduces any version to its minor", () => {
    assert.equal(parseMinor("v1.29.3-eks-1234"), "1.29");
    assert.equal(parseMinor("1.30.0-rc.1"), "1.30");
  });
});
