/**
 * `kb:derive --propose` with the derivations that share a kind with another (endoflife.date's
 * platforms, runtimes and add-ons; kubeadm's etcd and CoreDNS) against a real PostgreSQL holding the
 * shipped kb/: each proposal names the derivation that made it (kb-derive-propose.ts's DERIVATIONS),
 * an approved platform proposal changes what GET /api/v1/platforms answers, and a platform row that
 * cites the platform's own page is not proposed. The endoflife.date inputs are the fixtures of
 * test/fixtures/derive/endoflife/; the kubernetes/kubernetes clone is built here.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { derive, git } from "./support/kb-derive.js";
import {
  REPO_ROOT,
  createTestToken,
  startTestRuntime,
  type TestRuntime,
} from "./support/runtime.js";

const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "derive", "endoflife");

/** A constants.go reduced to the three constants kubeadm's derivation reads, in their real shape. */
const constantsGo = (coreDns: string, etcd: Record<number, string>): string =>
  `package constants\n\nconst (\n\t// CoreDNSVersion is the version of CoreDNS to be deployed if it is used\n\tCoreDNSVersion = "v${coreDns}"\n\n\t// DefaultEtcdVersion indicates the default etcd version that kubeadm uses\n\tDefaultEtcdVersion = "${Object.values(etcd).at(-1)!}"\n)\n\nvar (\n\t// SupportedEtcdVersion lists officially supported etcd versions with corresponding Kubernetes releases\n\tSupportedEtcdVersion = map[uint8]string{\n${Object.entries(
    etcd,
  )
    .map(([minor, version]) => `\t\t${minor}: "${version}",`)
    .join("\n")}\n\t}\n)\n`;

describe("kb:derive --propose names each derivation of a shared kind", () => {
  let runtime: TestRuntime;
  let editor: string;
  let work: string;
  let clone: string;

  type Proposal = Record<string, unknown> & { id: number; key: string; entity: string };
  async function proposals(): Promise<Proposal[]> {
    const list = await request(runtime.app).get("/api/v1/proposals?status=all").expect(200);
    return list.body.items as Proposal[];
  }

  before(async () => {
    runtime = await startTestRuntime();
    editor = await createTestToken(runtime, "reviewer", "editor");
    work = fs.mkdtempSync(path.join(os.tmpdir(), "kb-derive-derivations-"));
    clone = path.join(work, "kubernetes");
    const dir = path.join(clone, "cmd", "kubeadm", "app", "constants");
    fs.mkdirSync(dir, { recursive: true });
    git(clone, ["init", "-q", "-b", "master"]);
    // A made-up 1.30 line whose newest patch moves CoreDNS to 1.11.3 and etcd to 3.5.99-0.
    for (const [tag, coreDns, etcd] of [
      ["v1.30.0", "1.11.1", "3.5.12-0"],
      ["v1.30.9", "1.11.3", "3.5.99-0"],
    ] as const) {
      fs.writeFileSync(
        path.join(dir, "constants.go"),
        constantsGo(coreDns, { 29: etcd, 30: etcd }),
      );
      git(clone, ["add", "-A"]);
      git(clone, ["commit", "-q", "-m", `Release commit for Kubernetes ${tag}`]);
      git(clone, ["tag", "-a", tag, "-m", tag]);
    }
  });
  after(async () => {
    await runtime.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("files endoflife.date's and kubeadm's proposals under their own derivations", async () => {
    const filed = await derive(["--propose", "--endoflife-dir", FIXTURES, "--kubernetes", clone], {
      DATABASE_URL: runtime.database.url,
    });
    assert.equal(filed.code, 0, filed.stdout + filed.stderr);
    const all = await proposals();
    assert.match(filed.stdout, new RegExp(`filed ${all.length} proposals, 0 already`));
    const byDerivation = (derivation: string) =>
      all
        .filter((entry) => entry.derivation === derivation)
        .map((entry) => `${entry.entity} ${entry.key}`);
    assert.deepEqual(byDerivation("endoflife-platforms"), ["platforms eks", "platforms gke"]);
    assert.ok(
      byDerivation("endoflife-runtime-releases").includes("runtimeReleases containerd 2.5"),
      JSON.stringify(all.map((entry) => entry.key)),
    );
    assert.deepEqual(byDerivation("endoflife-addons"), ["addons istio", "addons karpenter"]);
    assert.deepEqual(byDerivation("kubeadm-etcd"), ["releases 1.30"]);
    assert.deepEqual(byDerivation("kubeadm-coredns"), ["addons coredns"]);
    const etcd = all.find((entry) => entry.derivation === "kubeadm-etcd")!;
    assert.deepEqual(etcd.changedFields, ["etcdVersion", "etcdSourceUrl"]);
    assert.ok(
      all.every((entry) => entry.action === "update" || entry.entity === "runtimeReleases"),
      "only new runtime lines are creates",
    );

    const again = await derive(["--propose", "--endoflife-dir", FIXTURES, "--kubernetes", clone], {
      DATABASE_URL: runtime.database.url,
    });
    assert.match(again.stdout, new RegExp(`filed 0 proposals, ${all.length} already proposed`));
  });

  it("applies an approved platform proposal and keeps the rows that cite the platform's own page", async () => {
    const before_ = await request(runtime.app).get("/api/v1/platforms").expect(200);
    const eksBefore = (
      before_.body.items as Array<{ name: string; releases: Array<Record<string, unknown>> }>
    ).find((platform) => platform.name === "eks")!;
    const proposal = (await proposals()).find(
      (entry) => entry.derivation === "endoflife-platforms" && entry.key === "eks",
    )!;
    await request(runtime.app)
      .post(`/api/v1/proposals/${proposal.id}/approve`)
      .set({ Authorization: `Bearer ${editor}` })
      .expect(200);
    const after_ = await request(runtime.app).get("/api/v1/platforms").expect(200);
    const eks = (
      after_.body.items as Array<{ name: string; releases: Array<Record<string, unknown>> }>
    ).find((platform) => platform.name === "eks")!;
    const row = (minor: string, platform: typeof eks) =>
      platform.releases.find((release) => release.minor === minor)!;
    // kb/ has 1.36 from an endoflife.date commit: the fixture's dates are taken.
    assert.equal(row("1.36", eks).released, "2026-06-10");
    assert.equal(row("1.36", eks).sourceUrl, "https://endoflife.date/amazon-eks");
    // kb/ has 1.33 from AWS's own page: the fixture's other date is not.
    assert.deepEqual(row("1.33", eks), row("1.33", eksBefore));
    assert.notEqual(row("1.33", eks).released, "2025-05-27");
  });
});
