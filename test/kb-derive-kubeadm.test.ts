/**
 * `npm run kb:derive -- --kubernetes <clone>` (src/upstream/kb-derive-kubeadm.ts) end to end, and its
 * pure parts (src/upstream/derive/kubeadm.ts, compare-kubeadm.ts). The clone is a git repository built
 * here with a cmd/kubeadm/app/constants/constants.go in kubeadm's layout (CoreDNSVersion and
 * DefaultEtcdVersion in a const block, SupportedEtcdVersion a map[uint8]string in a var block) at
 * release tags, lightweight and annotated, and a pre-release tag that is not read. It mirrors the
 * case known from the real kb: 1.30.0 installed CoreDNS 1.11.1 and a later 1.30 patch 1.11.3, while
 * 1.31.0 still installed 1.11.1. The kb it is compared with is written here and left unchanged.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { addonRecord, releaseRecord } from "../src/knowledge/records.js";
import {
  parseKubeadmConstants,
  parseReleaseTag,
  selectReleaseTags,
} from "../src/upstream/derive/kubeadm.js";
import { releaseDaySection } from "../src/upstream/derive/prerelease.js";
import { kubeadmSectionsFrom } from "../src/upstream/kb-derive-kubeadm.js";
import { kbFiles } from "../src/upstream/kb-derive-files.js";
import { constantsGo, derive, git, yamlRecords } from "./support/kb-derive.js";

const KB_RELEASES = `releases:
  - version: "1.29"
    releaseDate: "2023-12-13"
    etcdVersion: null
    etcdSourceUrl: null
    sourceUrl: https://endoflife.date/kubernetes
  - version: "1.30"
    releaseDate: "2024-04-17"
    etcdVersion: "3.5.15-0"
    etcdSourceUrl: https://github.com/kubernetes/kubernetes/pull/1
    sourceUrl: https://endoflife.date/kubernetes
  - version: "1.31"
    releaseDate: "2024-08-13"
    etcdVersion: "3.5.24-0"
    etcdSourceUrl: https://github.com/kubernetes/kubernetes/pull/2
    sourceUrl: https://endoflife.date/kubernetes
`;

const KB_ADDONS = `addons:
- name: coredns
  displayName: CoreDNS
  rule: TABLE
  tableMeans: TESTED
  lines:
  - versions: "1.11.1"
    kubernetes: ["1.29", "1.30"]
    notes: kubeadm default for these minors, not a support statement
  - versions: "1.11.3"
    kubernetes: ["1.31", "1.32"]
    notes: kubeadm default for these minors, not a support statement
  sourceUrl: https://github.com/coredns/deployment/blob/0000000000000000000000000000000000000004/kubernetes/CoreDNS-k8s_version.md
`;

describe("kb:derive from kubeadm's constants.go", () => {
  let work: string;
  let clone: string;
  let kbDir: string;
  const commits: Record<string, string> = {};

  function release(tag: string, text: string, annotated = false): void {
    const file = path.join(clone, "cmd", "kubeadm", "app", "constants", "constants.go");
    fs.writeFileSync(file, text);
    git(clone, ["add", "-A"]);
    git(clone, ["commit", "-q", "--allow-empty", "-m", `Release commit for Kubernetes ${tag}`]);
    git(clone, annotated ? ["tag", "-a", tag, "-m", `Kubernetes ${tag}`] : ["tag", tag]);
    commits[tag] = git(clone, ["rev-parse", "HEAD"]);
  }

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "kb-derive-kubeadm-"));
    clone = path.join(work, "kubernetes");
    fs.mkdirSync(path.join(clone, "cmd", "kubeadm", "app", "constants"), { recursive: true });
    git(clone, ["init", "-q", "-b", "master"]);
    fs.writeFileSync(
      path.join(clone, "README.md"),
      "A made-up kubernetes/kubernetes for kubecompat's tests.\n",
    );
    release(
      "v1.28.0",
      constantsGo("1.10.1", "3.5.9-0", { 26: "3.5.9-0", 27: "3.5.9-0", 28: "3.5.9-0" }),
    );
    release(
      "v1.29.0",
      constantsGo("1.11.1", "3.5.10-0", { 27: "3.5.10-0", 28: "3.5.10-0", 29: "3.5.10-0" }),
      true,
    );
    release(
      "v1.30.0",
      constantsGo("1.11.1", "3.5.12-0", { 28: "3.5.12-0", 29: "3.5.12-0", 30: "3.5.12-0" }),
      true,
    );
    release(
      "v1.30.7",
      constantsGo("1.11.3", "3.5.15-0", { 28: "3.5.15-0", 29: "3.5.15-0", 30: "3.5.15-0" }),
      true,
    );
    release(
      "v1.31.0",
      constantsGo("1.11.1", "3.5.15-0", { 29: "3.5.15-0", 30: "3.5.15-0", 31: "3.5.15-0" }),
    );
    release(
      "v1.31.4",
      constantsGo("1.11.3", "3.5.24-0", { 29: "3.5.24-0", 30: "3.5.24-0", 31: "3.5.24-0" }),
      true,
    );
    release(
      "v1.32.0-rc.0",
      constantsGo("1.11.3", "3.5.24-0", { 30: "3.5.24-0", 31: "3.5.24-0", 32: "3.5.24-0" }),
    );
    kbDir = path.join(work, "kb");
    fs.mkdirSync(kbDir);
    fs.writeFileSync(path.join(kbDir, "releases.yaml"), KB_RELEASES);
    fs.writeFileSync(path.join(kbDir, "addons.yaml"), KB_ADDONS);
  });
  after(() => {
    assert.equal(fs.readFileSync(path.join(kbDir, "releases.yaml"), "utf8"), KB_RELEASES);
    assert.equal(fs.readFileSync(path.join(kbDir, "addons.yaml"), "utf8"), KB_ADDONS);
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("reads the constants and chooses each minor's first and newest release tag (pure)", () => {
    const constants = parseKubeadmConstants(
      constantsGo("1.12.0", "3.5.21-0", { 31: "3.5.21-0", 33: "3.5.21-0" }),
      "constants.go",
    );
    assert.equal(constants.coreDns, "1.12.0");
    assert.equal(constants.defaultEtcd, "3.5.21-0");
    assert.deepEqual(
      [...constants.supportedEtcd],
      [
        [31, "3.5.21-0"],
        [33, "3.5.21-0"],
      ],
      "the commented-out 28 is no entry",
    );
    assert.throws(
      () => parseKubeadmConstants("package main\n", "main.go at v1.31.0"),
      /--kubernetes: main\.go at v1\.31\.0 has none of CoreDNSVersion, DefaultEtcdVersion or SupportedEtcdVersion/,
    );
    assert.deepEqual(parseReleaseTag("v1.31.4"), { minor: 31, patch: 4 });
    assert.equal(parseReleaseTag("v1.32.0-rc.0"), null);
    assert.deepEqual(
      selectReleaseTags(["v1.31.4", "v1.30.0", "v1.31.0", "v1.31.10", "v1.32.0-rc.0", "v1.29.3"]),
      [
        { first: null, newest: "v1.29.3" },
        { first: "v1.30.0", newest: "v1.30.0" },
        { first: "v1.31.0", newest: "v1.31.10" },
      ],
    );
  });

  it("proposes kubeadm's etcd per minor and the CoreDNS minors kb/addons.yaml lacks", async () => {
    const result = await derive(["--kubernetes", clone, "--kb", kbDir]);
    assert.equal(result.code, 1, result.stderr);
    const out = result.stdout;
    assert.match(
      out,
      /from kubeadm cmd\/kubeadm\/app\/constants\/constants\.go at v1\.28\.0, v1\.29\.0, v1\.30\.0, v1\.30\.7, v1\.31\.0, v1\.31\.4\)/,
    );
    assert.doesNotMatch(out, /rc\.0/);
    assert.match(
      out,
      new RegExp(
        `\\+ missing {2}1\\.29 lacks etcdVersion: kubeadm's SupportedEtcdVersion\\[29\\] at v1\\.29\\.0 \\(${commits["v1.29.0"]!.slice(0, 12)}\\) is 3\\.5\\.10-0`,
      ),
    );
    assert.match(
      out,
      /i info {5}1\.30: kubeadm's etcd was 3\.5\.12-0 at v1\.30\.0 and is 3\.5\.15-0 at v1\.30\.7 \(a backport\)/,
    );
    assert.doesNotMatch(
      out,
      /~ differs {2}1\.30 etcdVersion/,
      "3.5.15-0 at the newest 1.30 patch is what the kb says",
    );
    assert.doesNotMatch(out, /1\.31 etcdVersion/);
    assert.match(
      out,
      /i info {5}1\.31: kubeadm's etcd was 3\.5\.15-0 at v1\.31\.0 and is 3\.5\.24-0 at v1\.31\.4 \(a backport\)/,
    );
    assert.doesNotMatch(
      out,
      /1\.28 lacks|which kb\/releases\.yaml has no row of/,
      "1.28 is older than the kb's rows",
    );
    assert.match(
      out,
      /\+ missing {2}kubeadm installs CoreDNS 1\.11\.3 at v1\.30\.7 \(.*\); kb\/addons\.yaml's coredns line 1\.11\.3 lists 1\.31, 1\.32, not 1\.30/,
    );
    assert.match(
      out,
      /\+ missing {2}kubeadm installs CoreDNS 1\.11\.1 at v1\.31\.0 \(.*\); kb\/addons\.yaml's coredns line 1\.11\.1 lists 1\.29, 1\.30, not 1\.31/,
    );
    assert.match(
      out,
      /kubeadm's CoreDNSVersion was also read for 1\.28, older than the kb's oldest coredns line/,
    );
    assert.doesNotMatch(out, /1\.29 1\.11\.1|~ differs {2}1\.3\d 1\.11/);
  });

  it("proposes records that validate: etcd with its constants.go source, CoreDNS minors on both lines (--output yaml)", async () => {
    const result = await derive(["--kubernetes", clone, "--kb", kbDir, "--output", "yaml"]);
    assert.equal(result.code, 1, result.stderr);
    const records = (entity: string) => yamlRecords(result.stdout, entity);
    const releases = records("releases").map((record) => releaseRecord.parse(record));
    assert.deepEqual(
      releases.map((record) => [record.version, record.etcdVersion, record.etcdSourceUrl]),
      [
        [
          "1.29",
          "3.5.10-0",
          `https://github.com/kubernetes/kubernetes/blob/${commits["v1.29.0"]!}/cmd/kubeadm/app/constants/constants.go`,
        ],
      ],
    );
    const [coredns] = records("addons").map((record) => addonRecord.parse(record));
    assert.deepEqual(
      coredns!.lines.map((line) => [line.versions, line.kubernetes]),
      [
        ["1.11.1", ["1.29", "1.30", "1.31"]],
        ["1.11.3", ["1.30", "1.31", "1.32"]],
      ],
    );
    assert.match(
      coredns!.lines[1]!.notes!,
      /kubeadm CoreDNSVersion at v1\.30\.7 \(kubernetes\/kubernetes [0-9a-f]{12}\) is v1\.11\.3\./,
    );
  });

  it("reports a kb CoreDNS minor no tag read installs, and takes texts in hand for a refresh (kubeadmSectionsFrom)", () => {
    const sections = kubeadmSectionsFrom(
      [
        {
          tag: "v1.32.0",
          commit: "a".repeat(40),
          text: constantsGo("1.11.3", "3.5.24-0", {
            30: "3.5.24-0",
            31: "3.5.24-0",
            32: "3.5.24-0",
          }),
        },
        {
          tag: "v1.29.0",
          commit: "b".repeat(40),
          text: constantsGo("1.11.3", "3.5.10-0", { 29: "3.5.10-0" }),
        },
      ],
      kbFiles(kbDir),
    );
    assert.deepEqual(
      sections.map((section) => [section.entity, section.derivation]),
      [
        ["releases", "kubeadm-etcd"],
        ["addons", "kubeadm-coredns"],
      ],
    );
    const differs = sections[1]!.findings.filter((finding) => finding.status === "differs");
    assert.equal(differs.length, 1, JSON.stringify(sections[1]!.findings));
    assert.match(
      differs[0]!.message,
      /coredns line 1\.11\.1 lists 1\.29, but kubeadm installs 1\.11\.3 at v1\.29\.0; not proposed for removal/,
    );
    assert.throws(
      () =>
        kubeadmSectionsFrom([{ tag: "master", commit: "c".repeat(40), text: "" }], kbFiles(kbDir)),
      /--kubernetes: master is not a released tag such as v1\.31\.3/,
    );
  });

  it("is not the release calendar a release-day claim rests on (--released)", () => {
    const [etcd] = kubeadmSectionsFrom(
      [
        {
          tag: "v1.31.0",
          commit: "d".repeat(40),
          text: constantsGo("1.11.1", "3.5.15-0", { 31: "3.5.15-0" }),
        },
      ],
      kbFiles(kbDir),
    );
    const day = releaseDaySection({
      minor: "1.31",
      coverage: [
        {
          knowledge: "releases",
          throughMinor: "1.31",
          stage: "PRERELEASE",
          source: "the 1.31 release schedule",
          sourceRevision: null,
          sourceDate: null,
          sourceUrl:
            "https://github.com/kubernetes/sig-release/blob/0000000000000000000000000000000000000005/releases/release-1.31/README.md",
          notes: null,
          minorCadenceMonths: null,
        },
      ],
      records: {},
      sections: [etcd!],
      file: "kb/coverage.yaml",
    });
    assert.equal(day.proposals.length, 0, JSON.stringify(day.proposals));
    assert.match(
      day.findings[0]!.message,
      /releases of 1\.31 stays pre-release .*give --endoflife <kubernetes\.json>/,
    );
  });

  it("answers a clone without release tags or without kubeadm with exit 2", async () => {
    const empty = path.join(work, "empty");
    fs.mkdirSync(empty);
    git(empty, ["init", "-q"]);
    fs.writeFileSync(path.join(empty, "README.md"), "x\n");
    git(empty, ["add", "-A"]);
    git(empty, ["commit", "-q", "-m", "x"]);
    git(empty, ["tag", "v1.31.0"]);
    const cases: [string[], RegExp][] = [
      [
        ["--kubernetes", path.join(work, "none")],
        /--kubernetes: .*none does not exist; give a clone of https:\/\/github\.com\/kubernetes\/kubernetes/,
      ],
      [["--kubernetes", kbDir], /--kubernetes: .*kb is not a git repository/],
      [
        ["--kubernetes", empty],
        /--kubernetes: no cmd\/kubeadm\/app\/constants\/constants\.go at v1\.31\.0; is .*empty a clone of kubernetes\/kubernetes\?/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await derive([...args, "--kb", kbDir]);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});
